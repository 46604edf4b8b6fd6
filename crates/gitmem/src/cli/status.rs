//! `gitmem reindex`, `status` and `repair`: the index and its health.

use anyhow::Result;

use super::{emit, format_of, progress::Bars};
use engine::App;

pub(super) fn reindex(app: &App, project: Option<&str>) -> Result<()> {
    let reindexed = app.oneshot(&Bars::default()).reindex(project)?;
    emit(render::status::reindexed(&reindexed));
    Ok(())
}

/// Exits with 1 when the index has drifted from the files.
pub(super) fn check(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let health = app.check(project)?;
    emit(render::status::health(&health, format_of(json)));
    if !health.is_clean() {
        anyhow::bail!("the index has drifted from the files; `gitmem repair` fixes it");
    }
    Ok(())
}

/// Exits with 1 when drift remains after the repair (the JSON report says so in its own terms).
pub(super) fn repair(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let (before, after) = app.repair(project)?;
    emit(render::status::repair(&before, &after, format_of(json)));
    if !json && !after.is_clean() {
        anyhow::bail!("some drift remains; see the report above");
    }
    Ok(())
}

pub(super) fn status(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let status = app.status(project)?;
    emit(render::status::status(&status, format_of(json)));
    Ok(())
}
