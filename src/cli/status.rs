//! `gitmem reindex`, `status` and `repair`: the index and its health.

use anyhow::Result;

use super::{emit, format_of, models::embed, progress};
use crate::render;
use crate::service::App;

pub(super) fn reindex(app: &App, project: Option<&str>) -> Result<()> {
    for p in app.projects(project)? {
        let bar = progress::SyncBar::new(&p.name);
        let report = app.rebuild_project(&p, &|e| bar.event(e))?;
        bar.finish();
        emit(render::status::reindexed(&report));
    }
    embed(app)
}

pub(super) fn check(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let health = app.check(project)?;
    emit(render::status::health(&health, format_of(json)));
    if !health.is_clean() {
        anyhow::bail!("the index has drifted from the files; `gitmem repair` fixes it");
    }
    Ok(())
}

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
