//! Sharing a versioned project through its git remote: push, pull, or both. A pull merges three
//! ways, note by note (`note::merge`), and loses nothing: where both sides changed the same
//! lines the local note stays in place, tagged `conflict`, and the remote's text is written
//! beside it as `<name>.conflict-<device>-<time>.md`. A delete against an edit keeps the edit.
//! Only the paths the remote changed are read, written and re-indexed.

use crate::config::{GitSettings, Project};
use crate::error::{HistoryError, InternalError};
use crate::git::commits::PathChange;
use crate::scope::ProjectChoice;
use crate::Result;
use crate::{Engine, Store};
use git::outgoing::Squashed;
use git::{self, GitError, RemoteChange};
use index::Index;
use note::merge::{self, Merged};
use vault::fs::read_optional;
use vault::path::RelPath;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Push,
    Pull,
    Both,
}

impl Direction {
    /// The name the sync tool and `gitmem sync` take and answer the direction by.
    pub fn as_str(self) -> &'static str {
        match self {
            Direction::Push => "push",
            Direction::Pull => "pull",
            Direction::Both => "both",
        }
    }

    pub fn parse(text: &str) -> Option<Direction> {
        [Direction::Push, Direction::Pull, Direction::Both]
            .into_iter()
            .find(|d| d.as_str() == text)
    }
}

/// How a pull ended.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PullResult {
    /// The remote had nothing new.
    #[default]
    UpToDate,
    FastForward,
    /// A merge commit joins both histories (`PullReport::commit`).
    Merge,
}

/// A note both sides changed in the same lines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conflict {
    /// The note, as this device has it (tagged `conflict`).
    pub path: String,
    /// The remote's version, written beside it.
    pub copy: String,
}

#[derive(Debug, Clone, Default)]
pub struct PullReport {
    pub result: PullResult,
    /// The merge commit, when one was made.
    pub commit: Option<String>,
    /// Paths written or deleted to take the remote's changes.
    pub updated: Vec<String>,
    pub deleted: Vec<String>,
    /// Local edits kept against the remote deleting the file.
    pub kept: Vec<String>,
    pub conflicts: Vec<Conflict>,
    /// Paths of the remote gitmem refuses to write: outside the project, in `.git`, or under
    /// a linked folder's mount.
    pub skipped: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct ExchangeReport {
    pub project: String,
    pub direction: Direction,
    pub pull: Option<PullReport>,
    /// True when the remote now has this device's commits.
    pub pushed: bool,
    /// The unpushed commits sent as one, because secret-shaped text was edited out of them.
    pub squashed: Option<Squashed>,
}

/// What to do with one path the remote changed.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Action {
    Keep,
    /// A local edit survives the remote's delete.
    KeepEdit,
    Write(Vec<u8>),
    Delete,
    Conflict {
        local: Vec<u8>,
        copy: Vec<u8>,
    },
}

/// The three-way decision for one path: `base` is the common ancestor's version, `local` the
/// work tree's, `theirs` the remote's (None: absent).
fn decide(path: &str, base: Option<&[u8]>, local: Option<&[u8]>, theirs: Option<&[u8]>) -> Action {
    if local == theirs {
        return Action::Keep;
    }
    if local == base {
        return match theirs {
            Some(t) => Action::Write(t.to_vec()),
            None => Action::Delete,
        };
    }
    match (local, theirs) {
        (Some(_), None) => Action::KeepEdit,
        (None, Some(t)) => Action::Write(t.to_vec()),
        (None, None) => Action::Keep,
        (Some(l), Some(t)) => {
            let texts = (
                base.map(std::str::from_utf8).transpose(),
                std::str::from_utf8(l),
                std::str::from_utf8(t),
            );
            let is_note = path.ends_with(".md");
            if let (true, (Ok(b), Ok(l), Ok(t))) = (is_note, texts) {
                match merge::merge_note(b, l, t) {
                    Merged::Clean(text) => return Action::Write(text.into_bytes()),
                    Merged::Conflict => {
                        return Action::Conflict {
                            local: merge::tag_conflict(l).into_bytes(),
                            copy: t.as_bytes().to_vec(),
                        }
                    }
                }
            }
            Action::Conflict {
                local: l.to_vec(),
                copy: t.to_vec(),
            }
        }
    }
}

/// The remote's version of a note, as the copy beside the local one: its own permalink, so the
/// local note keeps the one links point to.
fn conflict_copy(text: Vec<u8>, copy_path: &str) -> Vec<u8> {
    let text = match String::from_utf8(text) {
        Ok(text) => text,
        Err(binary) => return binary.into_bytes(),
    };
    let parsed = note::parse_note(copy_path, &text);
    let Some(permalink) = parsed.permalink else {
        return text.into_bytes();
    };
    let suffix = copy_path
        .rsplit_once(".conflict-")
        .map(|(_, rest)| note::file_stem(rest).to_lowercase())
        .unwrap_or_default();
    let renamed = serde_json::Value::String(format!("{permalink}-conflict-{suffix}"));
    note::frontmatter::set_key(&text, "permalink", &renamed).into_bytes()
}

/// The settings of a versioned project with a remote, or the reason it cannot sync.
fn remote_settings(project: &Project) -> Result<GitSettings> {
    let git = project
        .git
        .clone()
        .ok_or_else(|| HistoryError::NotVersioned(project.name.clone()))?;
    if git.remote.is_none() {
        return Err(GitError::NoRemote.into());
    }
    Ok(git)
}

/// `sync push|pull|both`: pending commits are made first; a push the remote refuses
/// because it moved on pulls (merging) and pushes again.
pub(crate) fn exchange(
    engine: &Engine,
    choice: &ProjectChoice,
    direction: Direction,
) -> Result<ExchangeReport> {
    let project = &crate::scope::select_project(&engine.store, choice)?;
    remote_settings(project)?;
    engine.history.flush();
    let mut report = ExchangeReport {
        project: project.name.clone(),
        direction,
        pull: None,
        pushed: false,
        squashed: None,
    };
    if direction != Direction::Push {
        report.pull = Some(git_pull(&engine.store, project)?);
    }
    if direction != Direction::Pull {
        let pushed = push_merging(&engine.store, project, &mut report);
        if pushed.is_err() {
            engine.metrics.push_failed();
        }
        pushed?;
        report.pushed = true;
    }
    Ok(report)
}

/// Pushes past the push gate; a push the remote refuses because it moved on pulls
/// (merging) and pushes again.
fn push_merging(store: &Store, project: &Project, report: &mut ExchangeReport) -> Result<()> {
    report.squashed = crate::git::secrets::hold_secrets(store, project)?;
    let keys = crate::encryption::keys_of(project)?;
    match git::remote::push(&project.path, keys.as_ref(), false) {
        Ok(()) => Ok(()),
        Err(GitError::Rejected(_)) => {
            report.pull = Some(git_pull(store, project)?);
            Ok(git::remote::push(&project.path, keys.as_ref(), false)?)
        }
        Err(e) => Err(e.into()),
    }
}

/// Fetches the remote and merges what it has into the work tree, the history and the index.
pub(crate) fn git_pull(store: &Store, project: &Project) -> Result<PullReport> {
    let settings = remote_settings(project)?;
    let dir = &project.path;
    let mut report = PullReport::default();
    let keys = crate::encryption::keys_of(project)?;
    let Some(theirs) = git::remote::fetch(dir, keys.as_ref())? else {
        return Ok(report);
    };
    let Some(incoming) = git::incoming(dir, theirs)? else {
        return Ok(report);
    };
    let device = settings.device_name();
    let now = chrono::Utc::now();
    let mut touched: Vec<PathChange> = Vec::new();
    for change in &incoming.changes {
        let base = incoming.read(change.base)?;
        let theirs = incoming.read(change.theirs)?;
        let sides = Sides {
            change,
            base: base.as_deref(),
            theirs: theirs.as_deref(),
        };
        apply_remote_change(
            store,
            project,
            &sides,
            &device,
            now,
            &mut report,
            &mut touched,
        )?;
    }
    let message = merge_message(&report, incoming.changes.len());
    drop(incoming);
    let author = (
        settings.author_name.as_str(),
        settings.author_email.as_str(),
    );
    let paths: Vec<String> = touched.iter().map(|t| t.path.clone()).collect();
    report.result = match git::finish_merge(dir, &paths, theirs, &message, author)? {
        git::Merged::FastForward => PullResult::FastForward,
        git::Merged::Commit(id) => {
            report.commit = Some(id.to_string());
            PullResult::Merge
        }
    };
    index_paths(store, project, &touched)?;
    Ok(report)
}

/// Brings one path the remote changed into the work tree. The local file is replaced only
/// if it still holds what the decision was made from (`vault::fs::replace_if_unchanged`),
/// so a write that lands meanwhile is merged, not lost.
fn apply_remote_change(
    store: &Store,
    project: &Project,
    sides: &Sides,
    device: &str,
    now: chrono::DateTime<chrono::Utc>,
    report: &mut PullReport,
    touched: &mut Vec<PathChange>,
) -> Result<()> {
    let dir = &project.path;
    let path = &sides.change.path;
    // A remote is not trusted with the file system: nothing outside the project, nothing
    // in `.git` (hooks, config), nothing under a linked folder's mount.
    let inside = RelPath::parse(path)
        .and_then(|p| p.resolve_inside(dir))
        .is_ok()
        && !path
            .split('/')
            .any(|part| part.eq_ignore_ascii_case(".git"))
        && crate::mounts::mounted(store, project, path).is_none();
    if !inside {
        tracing::warn!(
            "pull of '{}': skipped {path:?}, a path gitmem does not write",
            project.name
        );
        report.skipped.push(path.clone());
        return Ok(());
    }
    let file = dir.join(path);
    let changed = |path: &str, present: bool| PathChange {
        path: path.to_string(),
        present,
    };
    for _ in 0..WRITE_ATTEMPTS {
        let local = read_optional(&file)?;
        let action = decide(path, sides.base, local.as_deref(), sides.theirs);
        let written = match &action {
            Action::Keep | Action::KeepEdit => true,
            Action::Write(bytes) => replace(&file, local.as_deref(), bytes)?,
            Action::Delete => {
                vault::fs::delete_file(&file)?;
                true
            }
            Action::Conflict {
                local: tagged,
                copy,
            } => {
                let copy_path = merge::conflict_path(path, device, now);
                let copy = conflict_copy(copy.clone(), &copy_path);
                vault::fs::atomic_write(&dir.join(&copy_path), &copy)?;
                if !replace(&file, local.as_deref(), tagged)? {
                    continue;
                }
                report.conflicts.push(Conflict {
                    path: path.clone(),
                    copy: copy_path.clone(),
                });
                touched.push(changed(&copy_path, true));
                true
            }
        };
        if !written {
            continue;
        }
        match action {
            Action::Keep => {}
            Action::KeepEdit => report.kept.push(path.clone()),
            Action::Write(_) => report.updated.push(path.clone()),
            Action::Delete => report.deleted.push(path.clone()),
            Action::Conflict { .. } => {}
        }
        touched.push(changed(path, file.exists()));
        return Ok(());
    }
    Err(InternalError::KeptChangingInPull(path.to_string()).into())
}

/// Re-indexes exactly these project paths from their files (a pull's changes).
fn index_paths(store: &Store, project: &Project, paths: &[PathChange]) -> Result<()> {
    let rules = vault::scan::IgnoreRules::for_project(&project.path)?;
    let mut ops = Vec::new();
    for change in paths {
        if rules.is_ignored(&change.path, false) {
            continue;
        }
        if change.present {
            ops.push(crate::note_input::upsert_op(store, project, &change.path)?);
        } else {
            ops.push(index::WriteOp::Delete {
                project: project.name.clone(),
                path: change.path.clone(),
            });
        }
    }
    for outcome in store.index.write(ops)? {
        if let Err(message) = outcome {
            tracing::warn!("indexing a pulled file failed: {message}");
        }
    }
    Ok(())
}

/// The notes of `project` that hold an unresolved conflict of a pull, each with its copy.
pub(crate) fn exchange_conflicts(index: &Index, project: &Project) -> Result<Vec<Conflict>> {
    let snap = index.snapshot()?;
    let paths = snap.project_paths(&project.name)?;
    Ok(paths
        .into_iter()
        .filter_map(|(copy, _)| {
            let path = merge::conflict_origin(&copy)?;
            Some(Conflict { path, copy })
        })
        .collect())
}

/// How often a path is merged again when its file keeps changing under the pull.
const WRITE_ATTEMPTS: usize = 3;

/// One path the remote changed, with its versions at the common ancestor and in the remote.
struct Sides<'a> {
    change: &'a RemoteChange,
    base: Option<&'a [u8]>,
    theirs: Option<&'a [u8]>,
}

/// Writes `bytes` over the file if it still holds `expected` (or creates it if it was absent);
/// false when another program changed it first.
fn replace(file: &std::path::Path, expected: Option<&[u8]>, bytes: &[u8]) -> Result<bool> {
    match expected {
        Some(expected) => Ok(vault::fs::replace_if_unchanged(file, expected, bytes)?),
        None => {
            vault::fs::atomic_write(file, bytes)?;
            Ok(true)
        }
    }
}

/// `chore(mem): merge <n> files from the remote`, conflicts listed in the body.
fn merge_message(report: &PullReport, changed: usize) -> String {
    let mut body: Vec<String> = Vec::new();
    body.extend(report.updated.iter().map(|p| format!("- updated: {p}")));
    body.extend(report.deleted.iter().map(|p| format!("- deleted: {p}")));
    body.extend(
        report
            .kept
            .iter()
            .map(|p| format!("- kept local edit (deleted remotely): {p}")),
    );
    body.extend(
        report
            .conflicts
            .iter()
            .map(|c| format!("- conflict: {} (remote version in {})", c.path, c.copy)),
    );
    format!(
        "chore(mem): merge {changed} files from the remote\n\n{}\n",
        body.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_side_of_a_three_way_decision_keeps_every_edit() {
        let b = Some(&b"base\n"[..]);
        let l = Some(&b"local\n"[..]);
        let t = Some(&b"theirs\n"[..]);
        type Case<'a> = (
            &'a str,
            Option<&'a [u8]>,
            Option<&'a [u8]>,
            Option<&'a [u8]>,
            Action,
        );
        let cases: Vec<Case> = vec![
            (
                "unchanged here",
                b,
                b,
                t,
                Action::Write(b"theirs\n".to_vec()),
            ),
            ("same change", b, t, t, Action::Keep),
            ("deleted there", b, b, None, Action::Delete),
            ("edit against delete", b, l, None, Action::KeepEdit),
            (
                "delete against edit",
                b,
                None,
                t,
                Action::Write(b"theirs\n".to_vec()),
            ),
            (
                "added there",
                None,
                None,
                t,
                Action::Write(b"theirs\n".to_vec()),
            ),
            (
                "binary both changed",
                b,
                l,
                t,
                Action::Conflict {
                    local: b"local\n".to_vec(),
                    copy: b"theirs\n".to_vec(),
                },
            ),
        ];
        for (name, base, local, theirs, expected) in cases {
            assert_eq!(decide("file.bin", base, local, theirs), expected, "{name}");
        }
    }

    #[test]
    fn notes_changed_in_different_places_merge_and_in_the_same_lines_conflict() {
        let base = "---\ntitle: N\n---\n\none\ntwo\nthree\nfour\nfive\n";
        let local = "---\ntitle: N\n---\n\nONE\ntwo\nthree\nfour\nfive\n";
        let theirs = "---\ntitle: N\n---\n\none\ntwo\nthree\nfour\nFIVE\n";
        assert_eq!(
            decide(
                "n.md",
                Some(base.as_bytes()),
                Some(local.as_bytes()),
                Some(theirs.as_bytes())
            ),
            Action::Write(b"---\ntitle: N\n---\n\nONE\ntwo\nthree\nfour\nFIVE\n".to_vec())
        );
        let clash = "---\ntitle: N\n---\n\nUno\ntwo\nthree\nfour\nfive\n";
        match decide(
            "n.md",
            Some(base.as_bytes()),
            Some(local.as_bytes()),
            Some(clash.as_bytes()),
        ) {
            Action::Conflict { local, copy } => {
                let local = String::from_utf8(local).unwrap();
                assert!(local.contains("conflict"), "{local}");
                assert!(local.contains("ONE"), "{local}");
                assert_eq!(copy, clash.as_bytes());
            }
            other => panic!("expected a conflict, got {other:?}"),
        }
    }

    #[test]
    fn a_conflict_copy_gets_its_own_permalink() {
        let copy = conflict_copy(
            b"---\ntitle: N\npermalink: notes/n\n---\n\nbody\n".to_vec(),
            "dir/N.conflict-laptop-20261123T225300Z.md",
        );
        let text = String::from_utf8(copy).unwrap();
        assert!(
            text.contains("permalink: notes/n-conflict-laptop-20261123t225300z"),
            "{text}"
        );
    }
}
