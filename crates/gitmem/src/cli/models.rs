//! `gitmem model`: embedding models for semantic search.

use anyhow::Result;

use super::{emit, format_of, progress::Bars, ModelCommand};
use engine::models::hub::ModelFetch;
use engine::App;

pub(super) fn model(app: &App, cmd: ModelCommand) -> Result<()> {
    let bars = Bars::default();
    let oneshot = app.oneshot(&bars);
    match cmd {
        ModelCommand::Install { source, name } => {
            let changed = oneshot.install_model(&source, name.as_deref())?;
            emit(render::models::installed(&changed));
        }
        ModelCommand::Fetch => {
            let fetch = oneshot.fetch_model();
            let failed = matches!(fetch, ModelFetch::Failed { .. });
            emit(render::models::fetched(&fetch));
            if let ModelFetch::NotNeeded = fetch {
                emit(render::models::nothing_to_fetch(&app.semantic_status()?));
            }
            if failed {
                anyhow::bail!("the model was not fetched");
            }
        }
        ModelCommand::List { json } => {
            emit(render::models::models(&app.models()?, format_of(json)));
        }
        ModelCommand::Use { name } => {
            emit(render::models::used(&oneshot.use_model(&name)?));
        }
        ModelCommand::Distill { from, name } => {
            let changed = oneshot.distill_model(from.as_deref(), name.as_deref())?;
            emit(render::models::distilled(&changed));
        }
        ModelCommand::Remove { name } => {
            emit(render::models::removed(&app.remove_model(&name)?));
        }
    }
    Ok(())
}
