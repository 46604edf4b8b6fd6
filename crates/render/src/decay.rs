//! memory_prune's and memory_compact's answers: each note taken, with its relevance and what
//! was done to it, as JSON (the tools, `--json`) and as lines (the CLI).

use serde_json::{json, Value};

use chrono::SecondsFormat;

use engine::compact::CompactOutcome;
use engine::decay::PruneOutcome;

/// What a prune did to each note it took.
fn prune_action(outcome: &PruneOutcome) -> &'static str {
    match (outcome.dry_run, outcome.hard) {
        (true, false) => "would_soft_delete",
        (true, true) => "would_delete",
        (false, false) => "soft_deleted",
        (false, true) => "deleted",
    }
}

/// Relevances as they are shown: four decimals.
fn rounded(relevance: f64) -> f64 {
    (relevance * 10_000.0).round() / 10_000.0
}

pub fn prune_json(outcome: &PruneOutcome) -> Value {
    let action = prune_action(outcome);
    json!({
        "project": outcome.project,
        "threshold": outcome.threshold,
        "dry_run": outcome.dry_run,
        "hard": outcome.hard,
        "pruned": outcome.pruned.iter().map(|p| json!({
            "permalink": p.permalink,
            "title": p.title,
            "file_path": p.file_path,
            "relevance": rounded(p.relevance),
            "action": action,
        })).collect::<Vec<_>>(),
        "kept": outcome.kept,
    })
}

pub fn prune_text(outcome: &PruneOutcome) -> String {
    let action = prune_action(outcome).replace('_', " ");
    let mut lines = vec![format!(
        "{} decaying memor{} below relevance {} in project '{}'{}; {} kept.",
        outcome.pruned.len(),
        if outcome.pruned.len() == 1 {
            "y"
        } else {
            "ies"
        },
        outcome.threshold,
        outcome.project,
        if outcome.dry_run {
            " (dry run: nothing changed)"
        } else {
            ""
        },
        outcome.kept,
    )];
    for p in &outcome.pruned {
        lines.push(format!(
            "{action}  {:.4}  {}",
            p.relevance,
            p.permalink.as_deref().unwrap_or(&p.file_path)
        ));
    }
    lines.join("\n") + "\n"
}

pub fn compact_json(outcome: &CompactOutcome) -> Value {
    json!({
        "project": outcome.project,
        "cutoff": outcome.cutoff.to_rfc3339_opts(SecondsFormat::Secs, true),
        "max_score": outcome.max_score,
        "dry_run": outcome.dry_run,
        "summary": outcome.summary.as_ref().map(|(permalink, path)| json!({
            "permalink": permalink,
            "file_path": path,
        })),
        "folded": outcome.folded.iter().map(|f| json!({
            "permalink": f.permalink,
            "title": f.title,
            "file_path": f.file_path,
            "first_line": f.first_line,
            "importance": rounded(f.importance),
        })).collect::<Vec<_>>(),
    })
}

pub fn compact_text(outcome: &CompactOutcome) -> String {
    let count = outcome.folded.len();
    let mut lines = vec![match (&outcome.summary, outcome.dry_run) {
        (_, true) => format!(
            "{count} memor{} would be folded (dry run: nothing changed).",
            if count == 1 { "y" } else { "ies" }
        ),
        (Some((permalink, _)), false) => format!(
            "Folded {count} memor{} into {permalink}; the originals are kept, tagged compacted.",
            if count == 1 { "y" } else { "ies" }
        ),
        (None, false) => format!(
            "Nothing to fold in project '{}': no memory last touched before {} has importance at most {}.",
            outcome.project,
            outcome.cutoff.format("%Y-%m-%d"),
            outcome.max_score
        ),
    }];
    for f in &outcome.folded {
        lines.push(format!(
            "{:.4}  {}  {}",
            f.importance, f.permalink, f.first_line
        ));
    }
    lines.join("\n") + "\n"
}
