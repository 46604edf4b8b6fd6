//! note_history, note_diff and restore_note answers.

use chrono::SecondsFormat;
use serde_json::{json, Value};

use super::{Format, Rendered};
use engine::history::{NoteDiff, NoteHistory, NoteVersion, Restored};

/// A commit as the history shows it in short.
fn short(commit: &str) -> String {
    commit.chars().take(10).collect()
}

fn version_time(v: &NoteVersion) -> String {
    v.time.to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn version_json(v: &NoteVersion) -> Value {
    json!({
        "commit": v.commit,
        "short": short(&v.commit),
        "time": version_time(v),
        "author": v.author,
        "email": v.email,
        "message": v.message,
        "path": v.path,
        "deleted": v.deleted,
    })
}

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
                    short(&v.commit),
                    version_time(v),
                    v.author,
                    v.email,
                    v.message
                ));
            }
            out
        },
        || {
            json!({
                "project": history.project,
                "path": history.path,
                "exists": history.exists,
                "versions": history.versions.iter().map(version_json).collect::<Vec<_>>(),
            })
        },
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
        || {
            json!({
                "project": diff.project,
                "path": diff.path,
                "from": diff.from,
                "to": diff.to,
                "diff": diff.diff,
            })
        },
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
            let mut out = format!(
                "# Restored\n\n{} ({}) is {how} as of `{}`; the restore is a new change in the history.\n",
                restored.title,
                restored.path,
                short(&restored.restored_from)
            );
            if let Some(permalink) = &restored.permalink {
                out.push_str(&format!("permalink: {permalink}\n"));
            }
            out
        },
        || {
            json!({
                "project": restored.project,
                "title": restored.title,
                "permalink": restored.permalink,
                "path": restored.path,
                "restored_from": restored.restored_from,
                "existed": restored.existed,
            })
        },
    )
}
