//! `gitmem import`: exports of other tools into a project.

use anyhow::{Context, Result};

use super::{emit, format_of, progress::Bars, ImportArgs};
use engine::import::ImportOptions;
use engine::scope::ProjectChoice;
use engine::App;
use note::import::Source;

pub(super) fn import(app: &App, args: &ImportArgs) -> Result<()> {
    let source = Source::named(&args.format)
        .with_context(|| format!("unknown import format '{}'", args.format))?;
    let options = ImportOptions {
        folder: args.folder.clone(),
        dry_run: args.dry_run,
        overwrite: args.overwrite,
    };
    let report = app.oneshot(&Bars::default()).import_file(
        &ProjectChoice::named(args.project.as_deref()),
        source,
        &args.file,
        &options,
    )?;
    emit(render::import::import_report(&report, format_of(args.json)).into());
    Ok(())
}
