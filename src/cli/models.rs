//! `gitmem model`: embedding models for semantic search.

use anyhow::Result;

use super::{print_json, progress, ModelCommand};
use crate::service::App;

/// Embeds what changed, with a progress bar; says nothing without a model.
pub(super) fn embed(app: &App) -> Result<()> {
    let bar = progress::CountBar::new("embedding", "notes");
    let embedded = app.embed_pending(&|p| bar.set(p.done, p.total))?;
    bar.finish();
    if embedded > 0 {
        println!("embedded {embedded} notes for semantic search");
    }
    Ok(())
}

pub(super) fn model(app: &App, cmd: ModelCommand) -> Result<()> {
    match cmd {
        ModelCommand::Install { source, name } => {
            let m = app.install_model(&source, name.as_deref())?;
            println!(
                "installed model '{}' ({} dimensions, {:.1} MB) at {}; it is the default",
                m.name,
                m.dimensions,
                m.bytes as f64 / 1e6,
                m.path.display()
            );
            embed(app)?;
        }
        ModelCommand::List { json } => {
            let models = app.models()?;
            if json {
                return print_json(&models);
            }
            if models.is_empty() {
                println!("no model installed; search is lexical (gitmem model install SOURCE)");
            }
            for m in models {
                println!(
                    "{}{}\t{} dimensions\t{:.1} MB\t{}",
                    m.name,
                    if m.is_default { " (default)" } else { "" },
                    m.dimensions,
                    m.bytes as f64 / 1e6,
                    m.source
                );
            }
        }
        ModelCommand::Use { name } => {
            let m = app.use_model(&name)?;
            println!("model '{}' is the default", m.name);
            embed(app)?;
        }
        ModelCommand::Distill { from, name } => {
            let bar = progress::CountBar::new("distilling", "tokens");
            let m = app.distill_model(from.as_deref(), name.as_deref(), &|done, total| {
                bar.set(done, total)
            })?;
            bar.finish();
            println!(
                "installed model '{}' ({} dimensions, {:.1} MB, {}); it is the default",
                m.name,
                m.dimensions,
                m.bytes as f64 / 1e6,
                m.source
            );
            embed(app)?;
        }
        ModelCommand::Remove { name } => {
            let m = app.remove_model(&name)?;
            println!(
                "removed model '{}'{}",
                m.name,
                if m.is_default {
                    "; semantic search is off until another model is chosen"
                } else {
                    ""
                }
            );
        }
    }
    Ok(())
}
