//! What a sync with a git remote did: the sync tool's report and `gitmem sync`.

use serde_json::{json, Value};

use super::{Format, Output};
use crate::service::gitsync::GitSyncReport;

/// The sync tool's answer: the one project's report, in the list the external sync also
/// answers with.
pub fn reports(report: &GitSyncReport) -> Value {
    json!({ "reports": [report] })
}

/// `gitmem sync`.
pub fn sync(report: &GitSyncReport, format: Format) -> Output {
    Output::either(
        format,
        || {
            let mut out = String::new();
            if let Some(pull) = &report.pull {
                out.push_str(&format!(
                    "pulled '{}': {} ({} updated, {} deleted, {} local edits kept)\n",
                    report.project,
                    pull.result,
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
            if report.pushed {
                out.push_str(&format!("pushed '{}'\n", report.project));
            }
            out
        },
        || json!(report),
    )
}
