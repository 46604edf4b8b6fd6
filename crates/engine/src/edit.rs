//! edit_note (compat 2.3): every operation of `note::edit` on a note's file, the metadata merge,
//! the H1 rule, and the creation of a missing note by append or prepend.

use crate::NoteRow;
use serde_json::{Map, Value};

use super::error::EditInputError;
use super::notes::{follow_h1, split_identifier_path, Lookup, NoteWritten};
use super::read::check_identifier;
use super::scope::ProjectChoice;
use super::{Outcome, OutsideProject, PathArg, Result};
use crate::config::Project;
use crate::Engine;
use index::NoteRecord;
use note::document::Document;
use note::edit::{self, EditError, EditRequest, Operation};
use note::filename::note_file_path;
use note::permalink::note_permalink;

/// An edit_note call after argument parsing.
#[derive(Debug, Clone, Default)]
pub struct EditNoteRequest {
    pub identifier: String,
    /// The operation's name: append, prepend, find_replace, replace_section,
    /// insert_before_section, insert_after_section.
    pub operation: String,
    pub content: String,
    pub section: Option<String>,
    pub find_text: Option<String>,
    pub expected_replacements: Option<i64>,
    pub replace_subsections: Option<bool>,
    pub metadata: Option<Map<String, Value>>,
    /// The checksum of the revision the caller read: the edit applies only to that revision.
    pub expected_checksum: Option<String>,
}

/// What an edit did.
#[derive(Debug, Clone)]
pub struct NoteEdited {
    pub written: NoteWritten,
    pub operation: Operation,
    /// What changed, in words ("Added 3 lines to end of note").
    pub summary: String,
    /// The note did not exist and append or prepend created it.
    pub created: bool,
}

/// Why an edit was not made.
#[derive(Debug, Clone)]
pub enum EditRefusal {
    OutsideProject(OutsideProject),
    Ambiguous {
        identifier: String,
        notes: Vec<NoteRow>,
    },
    NotFound {
        identifier: String,
        project: String,
    },
    /// A memory:// URL whose first segment is not a project: edit_note never creates notes in
    /// a project that does not exist.
    UnresolvedProjectRoute {
        identifier: String,
        segment: String,
    },
    /// The operation does not apply to the note's text.
    NotApplicable {
        identifier: String,
        error: EditError,
    },
    /// The file is not UTF-8 text, so no edit could keep its other bytes.
    NotText {
        identifier: String,
    },
    /// Another program kept changing the file while the edit was made.
    KeptChanging {
        identifier: String,
    },
    /// `expected_checksum` names a revision the note no longer is (`current`), or the note is
    /// gone (`current: None`); nothing is edited.
    RevisionConflict {
        identifier: String,
        note: Option<Box<NoteRow>>,
        current: Option<String>,
    },
}

/// How often an edit is tried against a file that changes under it.
const EDIT_ATTEMPTS: usize = 3;

impl EditNoteRequest {
    /// Checks what the schema cannot: the operation's name and the parameters it needs.
    fn validate(&self) -> Result<Operation> {
        let operation = Operation::parse(&self.operation)
            .ok_or_else(|| EditInputError::UnknownOperation(self.operation.clone()))?;
        let blank = |s: &Option<String>| s.as_deref().is_none_or(|t| t.trim().is_empty());
        if operation == Operation::FindReplace && blank(&self.find_text) {
            return Err(EditInputError::MissingParameter(EditError::MissingFindText).into());
        }
        let needs_section = matches!(
            operation,
            Operation::ReplaceSection
                | Operation::InsertBeforeSection
                | Operation::InsertAfterSection
        );
        if needs_section && blank(&self.section) {
            return Err(EditInputError::MissingParameter(EditError::MissingSection(
                operation.name(),
            ))
            .into());
        }
        if let Some(meta) = &self.metadata {
            let nulls: Vec<String> = meta
                .iter()
                .filter(|(_, v)| v.is_null())
                .map(|(k, _)| k.clone())
                .collect();
            if !nulls.is_empty() {
                return Err(EditInputError::NullMetadata(nulls).into());
            }
            if meta.get("type").is_some_and(|t| !t.is_string()) {
                return Err(EditInputError::TypeNotText.into());
            }
        }
        if self.expected_replacements.unwrap_or(1) < 1 {
            return Err(EditInputError::ExpectedReplacements(
                self.expected_replacements.unwrap_or(1),
            )
            .into());
        }
        Ok(operation)
    }

    fn edit(&self, operation: Operation) -> EditRequest<'_> {
        EditRequest {
            operation,
            content: &self.content,
            section: self.section.as_deref(),
            find_text: self.find_text.as_deref(),
            expected_replacements: self.expected_replacements.unwrap_or(1) as usize,
            replace_subsections: self.replace_subsections.unwrap_or(true),
        }
    }
}

/// edit_note: resolves the note, applies the operation to its file and re-indexes it.
pub(crate) fn edit_note(
    engine: &Engine,
    choice: &ProjectChoice,
    req: &EditNoteRequest,
) -> Result<Outcome<NoteEdited, EditRefusal>> {
    let operation = req.validate()?;
    super::notes::check_note_size(&req.content)?;
    let project = crate::scope::project_for_identifier(&engine.store, choice, &req.identifier)?;
    if let Err(refusal) = check_identifier(&req.identifier, PathArg::Identifier) {
        return Ok(Outcome::Refused(EditRefusal::OutsideProject(refusal)));
    }
    let note = match crate::notes::resolve(&engine.store.index, &project, &req.identifier)? {
        Lookup::Found(note) => Some(*note),
        Lookup::Ambiguous(notes) => {
            return Ok(Outcome::Refused(EditRefusal::Ambiguous {
                identifier: req.identifier.clone(),
                notes: notes.into_iter().map(NoteRow::from).collect(),
            }))
        }
        Lookup::NotFound => crate::notes::index_file_if_present(engine, &project, &req.identifier)?,
    };
    let outcome = match note {
        Some(note) => edit_existing(engine, &project, &note, req, operation),
        // A revision was expected and there is none: an append must not create one.
        None if req.expected_checksum.is_some() => {
            Ok(Outcome::Refused(EditRefusal::RevisionConflict {
                identifier: req.identifier.clone(),
                note: None,
                current: None,
            }))
        }
        None => create_by_edit(engine, &project, req, operation),
    };
    super::refuse_outside(outcome, EditRefusal::OutsideProject)
}

/// Applies the edit to the note's current text and writes it only if the file is still that
/// text (compare-and-swap). A file an editor changed in between is read again and the edit
/// applied to the new text; after a few such races the edit fails rather than overwrite.
fn edit_existing(
    engine: &Engine,
    project: &Project,
    note: &NoteRecord,
    req: &EditNoteRequest,
    operation: Operation,
) -> Result<Outcome<NoteEdited, EditRefusal>> {
    let request = req.edit(operation);
    for _ in 0..EDIT_ATTEMPTS {
        let Some(bytes) = crate::notes::read_for_edit(&engine.store, project, note)? else {
            break;
        };
        // Checked on every attempt: a file that changed under the edit is another revision,
        // which the caller did not read.
        if let Some(expected) = &req.expected_checksum {
            let current = vault::file::sha256_hex(&bytes);
            if !crate::notes::same_checksum(&current, expected) {
                return Ok(Outcome::Refused(EditRefusal::RevisionConflict {
                    identifier: req.identifier.clone(),
                    note: Some(Box::new(note.clone().into())),
                    current: Some(current),
                }));
            }
        }
        // Edits work on text; a lossy decoding would rewrite every invalid byte of the file.
        let Ok(text) = std::str::from_utf8(&bytes) else {
            return Ok(Outcome::Refused(EditRefusal::NotText {
                identifier: req.identifier.clone(),
            }));
        };
        let metadata_only = matches!(operation, Operation::Append | Operation::Prepend)
            && req.content.is_empty()
            && req.metadata.is_some();
        let edited = if metadata_only {
            text.to_string()
        } else {
            match edit::apply(text, &request) {
                Ok(edited) => edited,
                Err(error) => {
                    return Ok(Outcome::Refused(EditRefusal::NotApplicable {
                        identifier: req.identifier.clone(),
                        error,
                    }))
                }
            }
        };
        let merged = match &req.metadata {
            Some(meta) => edit::merge_metadata(&edited, meta),
            None => edited,
        };
        let new_text = follow_h1(text, &merged, &note.title);
        if let Some(written) =
            crate::notes::replace_note_text_if(engine, project, note, &bytes, &new_text)?
        {
            return Ok(Outcome::Done(NoteEdited {
                written,
                operation,
                summary: edit::summary(&request),
                created: false,
            }));
        }
        tracing::info!(path = %note.path, "the note changed while it was edited; editing the new text");
    }
    Ok(Outcome::Refused(EditRefusal::KeptChanging {
        identifier: req.identifier.clone(),
    }))
}

/// append and prepend create a missing note at the identifier's path.
fn create_by_edit(
    engine: &Engine,
    project: &Project,
    req: &EditNoteRequest,
    operation: Operation,
) -> Result<Outcome<NoteEdited, EditRefusal>> {
    if !matches!(operation, Operation::Append | Operation::Prepend) {
        return Ok(Outcome::Refused(EditRefusal::NotFound {
            identifier: req.identifier.clone(),
            project: project.name.clone(),
        }));
    }
    let trimmed = req.identifier.trim();
    let path_part = trimmed.strip_prefix("memory://").unwrap_or(trimmed);
    let first = path_part.split('/').next().unwrap_or("");
    if trimmed.starts_with("memory://")
        && path_part.contains('/')
        && crate::scope::project(&engine.store, Some(first)).is_err()
        && first != project.permalink
    {
        return Ok(Outcome::Refused(EditRefusal::UnresolvedProjectRoute {
            identifier: req.identifier.clone(),
            segment: first.to_string(),
        }));
    }
    let inside_project = path_part
        .strip_prefix(&format!("{}/", project.permalink))
        .unwrap_or(path_part);
    let (dir, title) = split_identifier_path(inside_project);
    let path = note_file_path(&dir, &title, false);
    let include = engine.store.config().compat.permalinks_include_project;
    let permalink = note_permalink(&project.name, &path, include);
    let metadata = req.metadata.clone().unwrap_or_default();
    let text =
        Document::headed(&title, "note", &permalink, &metadata, req.content.as_str()).render();
    let written = crate::notes::create_note_file(engine, project, &path, &text)?;
    Ok(Outcome::Done(NoteEdited {
        written,
        operation,
        summary: format!(
            "Created note with {} lines",
            req.content.split('\n').count()
        ),
        created: true,
    }))
}
