//! move_note and delete_note (compat 2.4 and 2.5), of one note or of every note in a folder.
//! A moved note keeps its id, permalink and links.

use super::notes::Lookup;
use super::read::check_identifier;
use super::scope::ProjectChoice;
use super::{refuse_outside, Outcome, OutsideProject, PathArg, Result};
use crate::config::Project;
use crate::Engine;
use crate::NoteRow;
use note::identifier::normalize_identifier;
use vault::path::RelPath;

/// A move_note call after argument parsing.
#[derive(Debug, Clone, Default)]
pub struct MoveNoteRequest {
    pub identifier: String,
    /// The new project-relative path, with its extension.
    pub destination_path: Option<String>,
    /// A folder to move one note into, keeping its file name.
    pub destination_folder: Option<String>,
    /// Move every note under the folder `identifier` to `destination_path`.
    pub is_directory: bool,
}

/// A note that moved.
#[derive(Debug, Clone)]
pub struct NoteMoved {
    pub project: String,
    /// The title it had before the move.
    pub title: String,
    pub note: NoteRow,
    pub destination: String,
}

/// What a folder move or delete did to each of its files.
#[derive(Debug, Clone)]
pub struct FolderBatch {
    pub project: String,
    pub folder: String,
    /// Moves only: the folder the files went to.
    pub destination: Option<String>,
    pub total: usize,
    /// `from → to` for moves, the path for deletes.
    pub done: Vec<String>,
    /// `path: error`.
    pub failed: Vec<String>,
}

#[derive(Debug, Clone)]
pub enum Moved {
    Note(Box<NoteMoved>),
    Folder(FolderBatch),
}

/// Why a move was not made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MoveRefusal {
    BothDestinations,
    MissingDestination,
    FolderDestinationForDirectory,
    OutsideProject(OutsideProject),
    /// The destination's first segment names another project.
    CrossProject {
        other: String,
        project: String,
    },
    NoFilesFound {
        folder: String,
    },
    NotFound {
        identifier: String,
    },
    SameAsSource {
        destination: String,
    },
    ExtensionRequired {
        destination: String,
    },
    ExtensionMismatch {
        destination: String,
        source: String,
    },
    DestinationExists {
        destination: String,
    },
}

/// A delete_note call after argument parsing.
#[derive(Debug, Clone, Default)]
pub struct DeleteNoteRequest {
    pub identifier: String,
    pub is_directory: bool,
}

#[derive(Debug, Clone)]
pub enum Deleted {
    Note(Box<NoteRow>),
    Folder(FolderBatch),
}

/// Why nothing was deleted.
#[derive(Debug, Clone)]
pub enum DeleteRefusal {
    OutsideProject(OutsideProject),
    /// No note has that identifier (Basic Memory answers `false`).
    NotFound,
    Ambiguous {
        identifier: String,
    },
    NoFilesFound {
        project: String,
        folder: String,
    },
    /// The file could not be deleted.
    Failed {
        identifier: String,
        error: String,
    },
}

fn extension(path: &str) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rfind('.')
        .filter(|i| *i > 0)
        .map(|i| name[i + 1..].to_lowercase())
}

/// move_note: checks the parameters, then moves one note or a folder's notes.
pub(crate) fn move_note(
    engine: &Engine,
    choice: &ProjectChoice,
    req: &MoveNoteRequest,
) -> Result<Outcome<Moved, MoveRefusal>> {
    let destination_path = req
        .destination_path
        .as_deref()
        .filter(|p| !p.trim().is_empty());
    let destination_folder = req.destination_folder.as_deref();
    let refused = |r| Ok(Outcome::Refused(r));
    let requested = match (destination_path, destination_folder) {
        (Some(_), Some(_)) => return refused(MoveRefusal::BothDestinations),
        (None, None) => return refused(MoveRefusal::MissingDestination),
        (None, Some(_)) if req.is_directory => {
            return refused(MoveRefusal::FolderDestinationForDirectory)
        }
        (Some(path), None) | (None, Some(path)) => path,
    };
    let Ok(destination) = RelPath::parse(requested.trim()) else {
        return refused(MoveRefusal::OutsideProject(OutsideProject::new(
            PathArg::Destination,
            requested,
        )));
    };
    let project = crate::scope::project_for_identifier(&engine.store, choice, &req.identifier)?;
    if let Some((first, _)) = requested.split_once('/') {
        if let Ok(other) = crate::scope::project(&engine.store, Some(first)) {
            if other.name != project.name {
                return refused(MoveRefusal::CrossProject {
                    other: first.to_string(),
                    project: project.name,
                });
            }
        }
    }
    let outcome = if req.is_directory {
        move_folder(engine, &project, &req.identifier, &destination)
    } else {
        let into_folder = destination_path.is_none();
        move_one(engine, &project, req, &destination, into_folder)
    };
    refuse_outside(outcome, MoveRefusal::OutsideProject)
}

fn move_folder(
    engine: &Engine,
    project: &Project,
    identifier: &str,
    destination: &RelPath,
) -> Result<Outcome<Moved, MoveRefusal>> {
    let folder = normalize_identifier(identifier)
        .trim_matches('/')
        .to_string();
    let destination = destination.as_str().trim_end_matches('/').to_string();
    if let Err(refusal) = check_identifier(&folder, PathArg::Identifier) {
        return Ok(Outcome::Refused(MoveRefusal::OutsideProject(
            OutsideProject::new(refusal.what, identifier),
        )));
    }
    let notes = crate::notes::notes_under(&engine.store.index, project, &folder)?;
    if notes.is_empty() {
        return Ok(Outcome::Refused(MoveRefusal::NoFilesFound { folder }));
    }
    let (mut done, mut failed) = (Vec::new(), Vec::new());
    for note in &notes {
        let target = format!("{destination}{}", &note.path[folder.len()..]);
        match crate::notes::move_note_file(engine, project, note, &target) {
            Ok(_) => done.push(format!("{} → {target}", note.path)),
            Err(e) => failed.push(format!("{}: {e}", note.path)),
        }
    }
    Ok(Outcome::Done(Moved::Folder(FolderBatch {
        project: project.name.clone(),
        folder,
        destination: Some(destination),
        total: notes.len(),
        done,
        failed,
    })))
}

fn move_one(
    engine: &Engine,
    project: &Project,
    req: &MoveNoteRequest,
    requested: &RelPath,
    into_folder: bool,
) -> Result<Outcome<Moved, MoveRefusal>> {
    let refused = |r| Ok(Outcome::Refused(r));
    let note = match crate::notes::resolve(&engine.store.index, project, &req.identifier)? {
        Lookup::Found(n) => *n,
        Lookup::Ambiguous(mut n) => n.remove(0),
        Lookup::NotFound => {
            return refused(MoveRefusal::NotFound {
                identifier: req.identifier.clone(),
            })
        }
    };
    let destination = if into_folder {
        let name = note.path.rsplit('/').next().unwrap_or(&note.path);
        match requested.as_str().trim_end_matches('/') {
            "" => name.to_string(),
            folder => format!("{folder}/{name}"),
        }
    } else {
        requested.to_string()
    };
    if destination == note.path {
        return refused(MoveRefusal::SameAsSource { destination });
    }
    match (extension(&destination), extension(&note.path)) {
        (None, _) => return refused(MoveRefusal::ExtensionRequired { destination }),
        (Some(d), Some(s)) if d != s => {
            return refused(MoveRefusal::ExtensionMismatch {
                destination: d,
                source: s,
            })
        }
        _ => {}
    }
    if crate::mounts::project_file(&engine.store, project, &destination)?.exists() {
        return refused(MoveRefusal::DestinationExists { destination });
    }
    let moved = crate::notes::move_note_file(engine, project, &note, &destination)?;
    Ok(Outcome::Done(Moved::Note(Box::new(NoteMoved {
        project: project.name.clone(),
        title: note.title,
        note: moved.into(),
        destination,
    }))))
}

/// delete_note: one note, or every note under a folder.
pub(crate) fn delete_note(
    engine: &Engine,
    choice: &ProjectChoice,
    req: &DeleteNoteRequest,
) -> Result<Outcome<Deleted, DeleteRefusal>> {
    let project = crate::scope::project_for_identifier(&engine.store, choice, &req.identifier)?;
    if let Err(refusal) = check_identifier(&req.identifier, PathArg::Identifier) {
        return Ok(Outcome::Refused(DeleteRefusal::OutsideProject(refusal)));
    }
    let outcome = if req.is_directory {
        delete_folder(engine, &project, &req.identifier)
    } else {
        delete_one(engine, &project, &req.identifier)
    };
    refuse_outside(outcome, DeleteRefusal::OutsideProject)
}

fn delete_folder(
    engine: &Engine,
    project: &Project,
    identifier: &str,
) -> Result<Outcome<Deleted, DeleteRefusal>> {
    let raw = normalize_identifier(identifier);
    let folder = raw
        .strip_prefix(&format!("{}/", project.permalink))
        .unwrap_or(&raw)
        .trim_matches('/')
        .to_string();
    let notes = crate::notes::notes_under(&engine.store.index, project, &folder)?;
    if notes.is_empty() {
        return Ok(Outcome::Refused(DeleteRefusal::NoFilesFound {
            project: project.name.clone(),
            folder,
        }));
    }
    let (mut done, mut failed) = (Vec::new(), Vec::new());
    for note in &notes {
        match crate::notes::delete_note_file(engine, project, note) {
            Ok(()) => done.push(note.path.clone()),
            Err(e) => failed.push(format!("{}: {e}", note.path)),
        }
    }
    Ok(Outcome::Done(Deleted::Folder(FolderBatch {
        project: project.name.clone(),
        folder,
        destination: None,
        total: notes.len(),
        done,
        failed,
    })))
}

fn delete_one(
    engine: &Engine,
    project: &Project,
    identifier: &str,
) -> Result<Outcome<Deleted, DeleteRefusal>> {
    let note = match crate::notes::resolve(&engine.store.index, project, identifier)? {
        Lookup::Found(n) => *n,
        Lookup::Ambiguous(_) => {
            return Ok(Outcome::Refused(DeleteRefusal::Ambiguous {
                identifier: identifier.to_string(),
            }))
        }
        Lookup::NotFound => return Ok(Outcome::Refused(DeleteRefusal::NotFound)),
    };
    match crate::notes::delete_note_file(engine, project, &note) {
        Ok(()) => Ok(Outcome::Done(Deleted::Note(Box::new(note.into())))),
        Err(e) => {
            tracing::warn!(
                "deleting '{}' of project '{}' failed: {e}",
                note.path,
                project.name
            );
            Ok(Outcome::Refused(DeleteRefusal::Failed {
                identifier: identifier.to_string(),
                error: e.to_string(),
            }))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::extension;

    #[test]
    fn extensions_are_lowercased_and_dotfiles_have_none() {
        for (path, expected) in [
            ("a/Note.MD", Some("md")),
            ("note.md", Some("md")),
            ("folder.v2/note", None),
            (".hidden", None),
            ("archive/x.tar.gz", Some("gz")),
        ] {
            assert_eq!(extension(path).as_deref(), expected, "{path}");
        }
    }
}
