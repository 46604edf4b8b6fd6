//! `gitmem import`: exports of other tools into a project.

use anyhow::{Context, Result};

use super::{emit, format_of, progress, ImportArgs};
use crate::render;
use crate::service::scope::ProjectChoice;
use crate::service::sync::SyncMode;
use crate::service::App;

pub(super) fn import(app: &App, args: &ImportArgs) -> Result<()> {
    let source = crate::import::Source::named(&args.format)
        .with_context(|| format!("unknown import format '{}'", args.format))?;
    let options = crate::service::import::ImportOptions {
        folder: args.folder.clone(),
        dry_run: args.dry_run,
        overwrite: args.overwrite,
    };
    let choice = ProjectChoice::named(args.project.as_deref());
    // The index must know the project's notes: they decide what is already imported.
    let project = app.select_project(&choice)?;
    let bar = progress::SyncBar::new(&project.name);
    app.sync_project(&project, SyncMode::Incremental, &|e| bar.event(e))?;
    bar.finish();
    let bar = progress::CountBar::new("importing", "notes");
    let report = app.import_file(&choice, source, &args.file, &options, &|done, total| {
        bar.set(done, total)
    });
    bar.finish();
    emit(render::import::import_report(&report?, format_of(args.json)).into());
    Ok(())
}
