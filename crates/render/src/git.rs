//! What an exchange with a git remote (pull, push) did: the sync tool's report and `gitmem sync`.

use serde_json::{json, Value};

use super::{Format, Output};
use engine::git::exchange::{ExchangeReport, PullReport, PullResult};

fn result_name(result: PullResult) -> &'static str {
    match result {
        PullResult::UpToDate => "up to date",
        PullResult::FastForward => "fast-forward",
        PullResult::Merge => "merge",
    }
}

fn pull_json(pull: &PullReport) -> Value {
    let mut v = json!({
        "result": result_name(pull.result),
        "updated": pull.updated,
        "deleted": pull.deleted,
        "kept": pull.kept,
        "conflicts": pull.conflicts.iter().map(|c| json!({"path": c.path, "copy": c.copy})).collect::<Vec<_>>(),
    });
    if let Some(commit) = &pull.commit {
        v["commit"] = json!(commit);
    }
    if !pull.skipped.is_empty() {
        v["skipped"] = json!(pull.skipped);
    }
    v
}

fn report_json(report: &ExchangeReport) -> Value {
    let mut v = json!({
        "project": report.project,
        "direction": report.direction.as_str(),
        "pushed": report.pushed,
    });
    if let Some(pull) = &report.pull {
        v["pull"] = pull_json(pull);
    }
    if let Some(squashed) = &report.squashed {
        v["squashed"] = json!({"commits": squashed.commits, "kept": squashed.kept});
    }
    v
}

/// The sync tool's answer: the one project's report, in the list the external sync also
/// answers with.
pub fn reports(report: &ExchangeReport) -> Value {
    json!({ "reports": [report_json(report)] })
}

/// `gitmem sync`.
pub fn exchange(report: &ExchangeReport, format: Format) -> Output {
    Output::either(
        format,
        || {
            let mut out = String::new();
            if let Some(pull) = &report.pull {
                out.push_str(&format!(
                    "pulled '{}': {} ({} updated, {} deleted, {} local edits kept)\n",
                    report.project,
                    result_name(pull.result),
                    pull.updated.len(),
                    pull.deleted.len(),
                    pull.kept.len()
                ));
                for conflict in &pull.conflicts {
                    out.push_str(&format!(
                        "conflict: {} kept as it is here, tagged `conflict`; the remote's version is {}\n",
                        conflict.path, conflict.copy
                    ));
                }
            }
            if let Some(squashed) = &report.squashed {
                out.push_str(&format!(
                    "{} unpushed commits sent as one: the secret-shaped text they carried was edited out (they stay on this device at {})\n",
                    squashed.commits, squashed.kept
                ));
            }
            if report.pushed {
                out.push_str(&format!("pushed '{}'\n", report.project));
            }
            out
        },
        || report_json(report),
    )
}
