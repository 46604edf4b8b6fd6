//! Sharing a versioned project through its git remote: push, pull, or both. A pull merges three
//! ways, note by note (`note::merge`), and loses nothing: where both sides changed the same
//! lines the local note stays in place, tagged `conflict`, and the remote's text is written
//! beside it as `<name>.conflict-<device>-<time>.md`. A delete against an edit keeps the edit.
//! Only the paths the remote changed are read, written and re-indexed.

use serde::Serialize;

use super::scope::ProjectChoice;
use super::{App, Result, ServiceError};
use crate::config::{GitSettings, Project};
use crate::git::{self, GitError, PathChange, RemoteChange};
use crate::note::merge::{self, Merged};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Direction {
    Push,
    Pull,
    Both,
}

impl Direction {
    pub fn parse(text: &str) -> Option<Direction> {
        match text {
            "push" => Some(Direction::Push),
            "pull" => Some(Direction::Pull),
            "both" => Some(Direction::Both),
            _ => None,
        }
    }
}

/// A note both sides changed in the same lines.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Conflict {
    /// The note, as this device has it (tagged `conflict`).
    pub path: String,
    /// The remote's version, written beside it.
    pub copy: String,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct PullReport {
    /// `up to date`, `fast-forward` or `merge`.
    pub result: String,
    /// The merge commit, when one was made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commit: Option<String>,
    /// Paths written or deleted to take the remote's changes.
    pub updated: Vec<String>,
    pub deleted: Vec<String>,
    /// Local edits kept against the remote deleting the file.
    pub kept: Vec<String>,
    pub conflicts: Vec<Conflict>,
    /// Paths of the remote gitmem refuses to write: outside the project, in `.git`, or under
    /// a linked folder's mount.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct GitSyncReport {
    pub project: String,
    pub direction: Direction,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pull: Option<PullReport>,
    /// True when the remote now has this device's commits.
    pub pushed: bool,
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
    let parsed = crate::note::parse_note(copy_path, &text);
    let Some(permalink) = parsed.permalink else {
        return text.into_bytes();
    };
    let suffix = copy_path
        .rsplit_once(".conflict-")
        .map(|(_, rest)| crate::note::file_stem(rest).to_lowercase())
        .unwrap_or_default();
    let renamed = serde_json::Value::String(format!("{permalink}-conflict-{suffix}"));
    crate::note::frontmatter::set_key(&text, "permalink", &renamed).into_bytes()
}

fn git_error(e: GitError) -> ServiceError {
    match e {
        GitError::NoRemote | GitError::UnknownRevision(_) | GitError::Nested(..) => {
            ServiceError::invalid(e.to_string())
        }
        other => ServiceError::inconsistent(other.to_string()),
    }
}

/// The settings of a versioned project with a remote, or the reason it cannot sync.
fn remote_settings(project: &Project) -> Result<GitSettings> {
    let git = project.git.clone().ok_or_else(|| {
        ServiceError::invalid(format!(
            "project '{}' is not versioned; `gitmem git init --project {} --remote URL` versions it",
            project.name, project.name
        ))
    })?;
    if git.remote.is_none() {
        return Err(git_error(GitError::NoRemote));
    }
    Ok(git)
}

fn read_optional(path: &std::path::Path) -> Result<Option<Vec<u8>>> {
    match std::fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.into()),
    }
}

impl App {
    /// `sync push|pull|both`: pending commits are made first; a push the remote refuses
    /// because it moved on pulls (merging) and pushes again.
    pub fn git_sync(&self, choice: &ProjectChoice, direction: Direction) -> Result<GitSyncReport> {
        let project = &self.select_project(choice)?;
        remote_settings(project)?;
        self.history.flush();
        let mut report = GitSyncReport {
            project: project.name.clone(),
            direction,
            pull: None,
            pushed: false,
        };
        if direction != Direction::Push {
            report.pull = Some(self.git_pull(project)?);
        }
        if direction != Direction::Pull {
            match git::remote::push(&project.path) {
                Ok(()) => {}
                Err(GitError::Rejected(_)) => {
                    report.pull = Some(self.git_pull(project)?);
                    git::remote::push(&project.path).map_err(git_error)?;
                }
                Err(e) => return Err(git_error(e)),
            }
            report.pushed = true;
        }
        Ok(report)
    }

    /// Fetches the remote and merges what it has into the work tree, the history and the index.
    pub(crate) fn git_pull(&self, project: &Project) -> Result<PullReport> {
        let settings = remote_settings(project)?;
        let dir = &project.path;
        let mut report = PullReport {
            result: "up to date".into(),
            ..Default::default()
        };
        let Some(theirs) = git::remote::fetch(dir).map_err(git_error)? else {
            return Ok(report);
        };
        let Some(incoming) = git::incoming(dir, theirs).map_err(git_error)? else {
            return Ok(report);
        };
        let device = settings.device_name();
        let now = chrono::Utc::now();
        let mut touched: Vec<PathChange> = Vec::new();
        for change in &incoming {
            self.apply_remote_change(project, change, &device, now, &mut report, &mut touched)?;
        }
        let message = merge_message(&report, incoming.len());
        let author = (
            settings.author_name.as_str(),
            settings.author_email.as_str(),
        );
        report.result =
            match git::finish_merge(dir, &touched, theirs, &message, author).map_err(git_error)? {
                git::Merged::FastForward => "fast-forward".into(),
                git::Merged::Commit(id) => {
                    report.commit = Some(id.to_string());
                    "merge".into()
                }
            };
        self.index_paths(project, &touched)?;
        Ok(report)
    }

    /// Brings one path the remote changed into the work tree. The local file is read again
    /// right before it is replaced, so a write that lands meanwhile is merged, not lost.
    fn apply_remote_change(
        &self,
        project: &Project,
        change: &RemoteChange,
        device: &str,
        now: chrono::DateTime<chrono::Utc>,
        report: &mut PullReport,
        touched: &mut Vec<PathChange>,
    ) -> Result<()> {
        let dir = &project.path;
        // A remote is not trusted with the file system: nothing outside the project, nothing
        // in `.git` (hooks, config), nothing under a linked folder's mount.
        let inside = crate::vault::path::resolve_inside(dir, &change.path).is_ok()
            && !change
                .path
                .split('/')
                .any(|part| part.eq_ignore_ascii_case(".git"))
            && self.mounted(project, &change.path).is_none();
        if !inside {
            tracing::warn!(
                "pull of '{}': skipped {:?}, a path gitmem does not write",
                project.name,
                change.path
            );
            report.skipped.push(change.path.clone());
            return Ok(());
        }
        let blob = |id: Option<git2::Oid>| -> Result<Option<Vec<u8>>> {
            id.map(|id| git::blob(dir, id).map_err(git_error))
                .transpose()
        };
        let base = blob(change.base)?;
        let theirs = blob(change.theirs)?;
        let file = dir.join(&change.path);
        let mut local = read_optional(&file)?;
        let action = loop {
            let action = decide(
                &change.path,
                base.as_deref(),
                local.as_deref(),
                theirs.as_deref(),
            );
            let now_local = read_optional(&file)?;
            if now_local == local {
                break action;
            }
            local = now_local;
        };
        let present = |path: &str| PathChange {
            path: path.to_string(),
            present: true,
        };
        match action {
            Action::Keep => touched.push(PathChange {
                path: change.path.clone(),
                present: local.is_some(),
            }),
            Action::KeepEdit => {
                report.kept.push(change.path.clone());
                touched.push(present(&change.path));
            }
            Action::Write(bytes) => {
                write_file(&file, &bytes)?;
                report.updated.push(change.path.clone());
                touched.push(present(&change.path));
            }
            Action::Delete => {
                crate::vault::fs::delete_file(&file)?;
                report.deleted.push(change.path.clone());
                touched.push(PathChange {
                    path: change.path.clone(),
                    present: false,
                });
            }
            Action::Conflict { local, copy } => {
                let copy_path = merge::conflict_path(&change.path, device, now);
                write_file(&dir.join(&copy_path), &conflict_copy(copy, &copy_path))?;
                write_file(&file, &local)?;
                report.conflicts.push(Conflict {
                    path: change.path.clone(),
                    copy: copy_path.clone(),
                });
                touched.push(present(&change.path));
                touched.push(present(&copy_path));
            }
        }
        Ok(())
    }

    /// Re-indexes exactly these project paths from their files (a pull's changes).
    fn index_paths(&self, project: &Project, paths: &[PathChange]) -> Result<()> {
        let rules = crate::vault::scan::IgnoreRules::for_project(&project.path)?;
        let mut ops = Vec::new();
        for change in paths {
            if rules.is_ignored(&change.path, false) {
                continue;
            }
            if change.present {
                ops.push(self.upsert_op(project, &change.path)?);
            } else {
                ops.push(crate::index::WriteOp::Delete {
                    project: project.name.clone(),
                    path: change.path.clone(),
                });
            }
        }
        for outcome in self.index.write(ops)? {
            if let Err(message) = outcome {
                tracing::warn!("indexing a pulled file failed: {message}");
            }
        }
        Ok(())
    }

    /// The notes of `project` that hold an unresolved sync conflict: (note, copy) paths.
    pub fn sync_conflicts(&self, project: &Project) -> Result<Vec<Conflict>> {
        let txn = self.index.read_txn()?;
        let paths: Vec<String> = self
            .index
            .tables()
            .project_paths(&txn, &project.name)?
            .into_iter()
            .map(|(path, _)| path)
            .collect();
        Ok(paths
            .iter()
            .filter_map(|copy| {
                let (stem, rest) = copy.rsplit_once(".conflict-")?;
                let extension = rest.rsplit_once('.').map(|(_, ext)| ext).unwrap_or("md");
                Some(Conflict {
                    path: format!("{stem}.{extension}"),
                    copy: copy.clone(),
                })
            })
            .collect())
    }
}

fn write_file(path: &std::path::Path, bytes: &[u8]) -> Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    crate::vault::fs::atomic_write(path, bytes)?;
    Ok(())
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
