//! `gitmem memory prune` and `gitmem compact`: memories that age.

use anyhow::Result;

use super::{emit, format_of, progress::Bars, CompactArgs, MemoryCommand};
use engine::compact::CompactRequest;
use engine::decay::PruneRequest;
use engine::App;

pub(super) fn memory(app: &App, command: MemoryCommand) -> Result<()> {
    match command {
        MemoryCommand::Prune(args) => {
            let request = PruneRequest {
                threshold: Some(args.threshold),
                dry_run: args.dry_run,
                hard: args.hard,
            };
            let outcome = app
                .oneshot(&Bars::default())
                .memory_prune(args.project.as_deref(), &request)?;
            emit(render::Output::either(
                format_of(args.json),
                || render::decay::prune_text(&outcome),
                || render::decay::prune_json(&outcome),
            ));
            Ok(())
        }
    }
}

pub(super) fn compact(app: &App, args: &CompactArgs) -> Result<()> {
    let request = CompactRequest {
        older_than: args.older_than.clone(),
        max_score: args.max_score,
        dry_run: args.dry_run,
    };
    let outcome = app
        .oneshot(&Bars::default())
        .memory_compact(args.project.as_deref(), &request)?;
    emit(render::Output::either(
        format_of(args.json),
        || render::decay::compact_text(&outcome),
        || render::decay::compact_json(&outcome),
    ));
    Ok(())
}
