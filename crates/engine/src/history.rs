//! A versioned note's past: its history (following renames), the diff between two versions or
//! a version and the working file, and restoring an earlier version (or a deleted note) as a
//! new change. Notes are named as read_note names them; a deleted note by the title, permalink
//! or path gitmem's commit messages recorded.

use chrono::{DateTime, Utc};

use crate::config::Project;
use crate::error::HistoryError;
use crate::git::commits::ChangeKind;
use crate::notes::Lookup;
use crate::scope::ProjectChoice;
use crate::Result;
use crate::{Engine, Store};
use git::{self, log::Version};
use note::merge::unified_diff;

/// How many commits are searched for a deleted note's names.
const NAME_SEARCH_DEPTH: usize = 5000;

#[derive(Debug, Clone)]
pub struct NoteVersion {
    pub commit: String,
    pub time: DateTime<Utc>,
    pub author: String,
    pub email: String,
    pub message: String,
    /// The note's path in this version.
    pub path: String,
    /// True when this commit deleted the note.
    pub deleted: bool,
}

impl From<&Version> for NoteVersion {
    fn from(v: &Version) -> Self {
        NoteVersion {
            commit: v.commit.clone(),
            time: v.time,
            author: v.author.clone(),
            email: v.email.clone(),
            message: v.summary.clone(),
            path: v.path.clone(),
            deleted: v.blob.is_none(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct NoteHistory {
    pub project: String,
    /// The note's path now (or when it was deleted).
    pub path: String,
    /// False when the note no longer exists.
    pub exists: bool,
    pub versions: Vec<NoteVersion>,
}

#[derive(Debug, Clone)]
pub struct NoteDiff {
    pub project: String,
    pub path: String,
    pub from: String,
    pub to: String,
    /// A unified diff; empty when both sides are the same.
    pub diff: String,
}

#[derive(Debug, Clone)]
pub struct Restored {
    pub project: String,
    pub title: String,
    pub permalink: Option<String>,
    pub path: String,
    pub restored_from: String,
    /// False when the note had been deleted and is back.
    pub existed: bool,
}

/// A note's bytes in one version.
struct AtVersion {
    bytes: Vec<u8>,
    /// The note's path in that version.
    path: String,
    /// The version's full commit id.
    commit: String,
}

/// A note as its history knows it.
struct Tracked {
    path: String,
    exists: bool,
    versions: Vec<Version>,
}

fn versioned_dir(project: &Project) -> Result<&std::path::Path> {
    match project.git {
        Some(_) => Ok(&project.path),
        None => Err(HistoryError::NoHistory(project.name.clone()).into()),
    }
}

/// Finds a note's history: a live note by read_note's rules, else a deleted one by the
/// path, title or permalink gitmem's commits recorded.
fn tracked(store: &Store, project: &Project, identifier: &str) -> Result<Tracked> {
    let dir = versioned_dir(project)?;
    let live = match crate::notes::resolve(&store.index, project, identifier)? {
        Lookup::Found(note) => Some(note.path),
        Lookup::Ambiguous(notes) => {
            let paths: Vec<String> = notes.iter().map(|n| n.path.clone()).collect();
            return Err(HistoryError::Ambiguous {
                identifier: identifier.to_string(),
                paths,
            }
            .into());
        }
        Lookup::NotFound => None,
    };
    if let Some(path) = live {
        if crate::mounts::mounted(store, project, &path).is_some() {
            return Err(HistoryError::LinkedFolder(path).into());
        }
        let versions = git::log::file_history(dir, &path, usize::MAX)?;
        return Ok(Tracked {
            path,
            exists: true,
            versions,
        });
    }
    let wanted = note::identifier::normalize_identifier(identifier);
    let lower = wanted.to_lowercase();
    let by_path = [wanted.clone(), format!("{wanted}.md")];
    for path in &by_path {
        let versions = git::log::file_history(dir, path, usize::MAX)?;
        if !versions.is_empty() {
            return Ok(Tracked {
                path: path.clone(),
                exists: false,
                versions,
            });
        }
    }
    let prefixed = format!("{}/{lower}", project.permalink);
    let named = git::log::find_named(dir, NAME_SEARCH_DEPTH, |n| {
        n.title.to_lowercase() == lower
            || n.permalink
                .as_deref()
                .is_some_and(|p| p == lower || p == prefixed)
    })?;
    if let Some(path) = named {
        let versions = git::log::file_history(dir, &path, usize::MAX)?;
        if !versions.is_empty() {
            return Ok(Tracked {
                path,
                exists: false,
                versions,
            });
        }
    }
    Err(HistoryError::UnknownNote {
        identifier: identifier.to_string(),
        project: project.name.clone(),
    }
    .into())
}

/// The commits that changed a note, newest first.
pub(crate) fn note_history(
    engine: &Engine,
    choice: &ProjectChoice,
    identifier: &str,
    limit: usize,
) -> Result<NoteHistory> {
    let project = &crate::scope::select_project(&engine.store, choice)?;
    engine.history.flush();
    let tracked = tracked(&engine.store, project, identifier)?;
    Ok(NoteHistory {
        project: project.name.clone(),
        path: tracked.path,
        exists: tracked.exists,
        versions: tracked
            .versions
            .iter()
            .take(limit)
            .map(NoteVersion::from)
            .collect(),
    })
}

/// The note's bytes at `rev` (at the path it had then), that path, and the full commit id.
fn version_at(project: &Project, tracked: &Tracked, rev: &str) -> Result<AtVersion> {
    let dir = &project.path;
    let commit = git::log::resolve_in(dir, rev)?;
    let then = tracked
        .versions
        .iter()
        .find(|v| v.commit == commit)
        .map(|v| v.path.clone());
    let paths = then
        .into_iter()
        .chain(std::iter::once(tracked.path.clone()))
        .chain(tracked.versions.iter().map(|v| v.path.clone()));
    for path in paths {
        if let Some(bytes) = git::log::file_at(dir, &commit, &path)? {
            return Ok(AtVersion {
                bytes,
                path,
                commit,
            });
        }
    }
    Err(HistoryError::NotInVersion {
        path: tracked.path.clone(),
        version: rev.to_string(),
    }
    .into())
}

/// The diff of a note between `from` and `to` (commits; `to` absent = the working file).
/// Without `from`: the last change, from the newest version whose text differs (a rename
/// changes no text).
pub(crate) fn note_diff(
    engine: &Engine,
    choice: &ProjectChoice,
    identifier: &str,
    from: Option<&str>,
    to: Option<&str>,
) -> Result<NoteDiff> {
    let project = &crate::scope::select_project(&engine.store, choice)?;
    engine.history.flush();
    let tracked = tracked(&engine.store, project, identifier)?;
    let labelled = |at: AtVersion| {
        let label = at.commit.chars().take(10).collect::<String>();
        (at.bytes, label)
    };
    let (new_bytes, new_label) = match to {
        Some(rev) => labelled(version_at(project, &tracked, rev)?),
        None => {
            let file = crate::mounts::project_file(&engine.store, project, &tracked.path)?;
            let bytes = vault::fs::read_optional(&file)?.unwrap_or_default();
            (bytes, "working file".to_string())
        }
    };
    let from = match from {
        Some(rev) => Some(rev.to_string()),
        None => {
            let new_blob = git::blob_id(&new_bytes);
            tracked
                .versions
                .iter()
                .find(|v| v.blob.is_some() && v.blob != new_blob)
                .map(|v| v.commit.clone())
        }
    };
    let (old_bytes, old_label) = match &from {
        Some(rev) => labelled(version_at(project, &tracked, rev)?),
        None => (Vec::new(), "nothing".to_string()),
    };
    let diff = unified_diff(
        &String::from_utf8_lossy(&old_bytes),
        &String::from_utf8_lossy(&new_bytes),
        &format!("a/{} ({old_label})", tracked.path),
        &format!("b/{} ({new_label})", tracked.path),
    );
    Ok(NoteDiff {
        project: project.name.clone(),
        path: tracked.path,
        from: old_label,
        to: new_label,
        diff,
    })
}

/// Brings back a note as it was at `version`: over the note if it exists, or at the path
/// it had then if it was deleted. The restore is a new change, committed like any other.
pub(crate) fn restore_note(
    engine: &Engine,
    choice: &ProjectChoice,
    identifier: &str,
    version: &str,
) -> Result<Restored> {
    let project = &crate::scope::select_project(&engine.store, choice)?;
    engine.history.flush();
    let tracked = tracked(&engine.store, project, identifier)?;
    let at = version_at(project, &tracked, version)?;
    let path = if tracked.exists {
        tracked.path.clone()
    } else {
        at.path
    };
    // A version from before redaction (or from another program) comes back redacted.
    let authored = crate::authored::author_bytes(&engine.store, &path, &at.bytes)?;
    crate::authored::replace(
        &crate::mounts::project_file(&engine.store, project, &path)?,
        &authored,
    )?;
    let commit = at.commit;
    let note = crate::notes::index_file_as(
        engine,
        project,
        &path,
        ChangeKind::Restored {
            from: commit.clone(),
        },
    )?;
    Ok(Restored {
        project: project.name.clone(),
        title: note.title,
        permalink: note.permalink,
        path,
        restored_from: commit,
        existed: tracked.exists,
    })
}
