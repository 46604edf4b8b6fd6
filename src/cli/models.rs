//! `gitmem model`: embedding models for semantic search.

use anyhow::Result;

use super::{emit, format_of, progress, ModelCommand};
use crate::render;
use crate::service::App;

/// Embeds what changed, with a progress bar; says nothing without a model.
pub(super) fn embed(app: &App) -> Result<()> {
    let bar = progress::CountBar::new("embedding", "notes");
    let embedded = app.embed_pending(&|p| bar.set(p.done, p.total))?;
    bar.finish();
    emit(render::models::embedded(embedded));
    Ok(())
}

pub(super) fn model(app: &App, cmd: ModelCommand) -> Result<()> {
    match cmd {
        ModelCommand::Install { source, name } => {
            let m = app.install_model(&source, name.as_deref())?;
            emit(render::models::installed(&m));
            embed(app)?;
        }
        ModelCommand::List { json } => {
            let models = app.models()?;
            emit(render::models::models(&models, format_of(json)));
        }
        ModelCommand::Use { name } => {
            let m = app.use_model(&name)?;
            emit(render::models::used(&m));
            embed(app)?;
        }
        ModelCommand::Distill { from, name } => {
            let bar = progress::CountBar::new("distilling", "tokens");
            let m = app.distill_model(from.as_deref(), name.as_deref(), &|done, total| {
                bar.set(done, total)
            })?;
            bar.finish();
            emit(render::models::distilled(&m));
            embed(app)?;
        }
        ModelCommand::Remove { name } => {
            let m = app.remove_model(&name)?;
            emit(render::models::removed(&m));
        }
    }
    Ok(())
}
