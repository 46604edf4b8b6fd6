//! note_history, note_diff and restore_note answers.

use serde_json::json;

use super::{Format, Rendered};
use crate::service::versions::{NoteDiff, NoteHistory, Restored};

pub fn note_history(history: &NoteHistory, format: Format) -> Rendered {
    Rendered::either(
        format,
        || {
            let state = if history.exists { "" } else { " (deleted)" };
            let mut out = format!(
                "# History of {}{state}\n\n{} versions, newest first. Pass a commit to note_diff or restore_note.\n\n",
                history.path,
                history.versions.len()
            );
            for v in &history.versions {
                let moved = if v.path == history.path {
                    String::new()
                } else {
                    format!(" (as {})", v.path)
                };
                let deleted = if v.deleted { " [deleted]" } else { "" };
                out.push_str(&format!(
                    "- `{}` {} {} <{}>: {}{moved}{deleted}\n",
                    v.short, v.time, v.author, v.email, v.message
                ));
            }
            out
        },
        || json!(history),
    )
}

pub fn note_diff(diff: &NoteDiff, format: Format) -> Rendered {
    Rendered::either(
        format,
        || {
            if diff.diff.is_empty() {
                return format!(
                    "{} is the same in {} and {}.",
                    diff.path, diff.from, diff.to
                );
            }
            format!(
                "# {}: {} → {}\n\n```diff\n{}```\n",
                diff.path, diff.from, diff.to, diff.diff
            )
        },
        || json!(diff),
    )
}

pub fn restored(restored: &Restored, format: Format) -> Rendered {
    Rendered::either(
        format,
        || {
            let how = if restored.existed {
                "restored"
            } else {
                "brought back (it had been deleted)"
            };
            let short: String = restored.restored_from.chars().take(10).collect();
            let mut out = format!(
                "# Restored\n\n{} ({}) is {how} as of `{short}`; the restore is a new change in the history.\n",
                restored.title, restored.path
            );
            if let Some(permalink) = &restored.permalink {
                out.push_str(&format!("permalink: {permalink}\n"));
            }
            out
        },
        || json!(restored),
    )
}
