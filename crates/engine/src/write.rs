//! write_note (compat 2.1): a note created, or replaced with overwrite, at the path its
//! title and directory name; with `expected_checksum`, replaced only if the file is still the
//! revision the caller read.

use serde_json::{Map, Value};

use super::error::NoteError;
use super::git::commits::ChangeKind;
use super::notes::{
    check_note_size, equivalent_note, free_permalink, index_op_as, written, NoteWritten,
};
use super::scope::ProjectChoice;
use super::{authored, refuse_outside, Outcome, OutsideProject, PathArg, Result};
use crate::config::Project;
use crate::SchemaViolation;
use crate::{Engine, Store};
use index::{NoteRecord, WriteOp};
use note::document::Document;
use note::permalink::{generate_permalink, normalize_note_type, note_permalink};
use note::{self, filename};
use vault::path::RelPath;

#[derive(Debug, Clone, Default)]
pub struct WriteNoteRequest {
    pub title: String,
    pub content: String,
    pub directory: String,
    pub tags: Option<Vec<String>>,
    pub note_type: Option<String>,
    pub metadata: Option<Map<String, Value>>,
    pub overwrite: Option<bool>,
    /// The checksum of the revision the caller read (read_note's `checksum`): the note is
    /// replaced only while its file is still that revision.
    pub expected_checksum: Option<String>,
}

/// Why write_note declined.
#[derive(Debug, Clone)]
pub enum WriteRefusal {
    /// A note already exists at that path (or an equivalent one) and overwrite was not asked.
    AlreadyExists {
        project: String,
        title: String,
        permalink: String,
        existing_path: String,
    },
    OutsideProject(OutsideProject),
    /// `expected_checksum` names a revision the file no longer is (or no note is at the
    /// path any more, `current: None`); nothing is written.
    RevisionConflict {
        project: String,
        title: String,
        permalink: Option<String>,
        file_path: Option<String>,
        /// The checksum of the file now, to retry against.
        current: Option<String>,
    },
    /// The note's schema says `validation: strict` and the note fails it; nothing is written.
    Schema {
        title: String,
        violation: SchemaViolation,
    },
}

/// write_note (compat 2.1).
pub(crate) fn write_note(
    engine: &Engine,
    choice: &ProjectChoice,
    req: &WriteNoteRequest,
) -> Result<Outcome<NoteWritten, WriteRefusal>> {
    write_note_with(engine, choice, req, None)
}

/// write_note with its content given as a document (the graph tools build theirs), in
/// which case `req.content` is not read; `None` parses `req.content`.
pub(super) fn write_note_with(
    engine: &Engine,
    choice: &ProjectChoice,
    req: &WriteNoteRequest,
    content: Option<Document>,
) -> Result<Outcome<NoteWritten, WriteRefusal>> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    let directory = if req.directory.trim() == "/" {
        ""
    } else {
        req.directory.as_str()
    };
    let Ok(directory) = RelPath::parse(directory) else {
        return Ok(Outcome::Refused(WriteRefusal::OutsideProject(
            OutsideProject::new(PathArg::Directory, &req.directory),
        )));
    };
    refuse_outside(
        write_note_in(engine, &project, &directory, req, content),
        WriteRefusal::OutsideProject,
    )
}

fn write_note_in(
    engine: &Engine,
    project: &Project,
    directory: &RelPath,
    req: &WriteNoteRequest,
    content: Option<Document>,
) -> Result<Outcome<NoteWritten, WriteRefusal>> {
    if req.title.trim().is_empty() {
        return Err(NoteError::EmptyTitle.into());
    }
    let (title, mut redacted) = crate::authored::redact_title(&engine.store, &req.title);
    let checks_schema = content.is_none();
    let content = match content {
        Some(doc) => doc,
        None => {
            check_note_size(&req.content)?;
            Document::parse_lenient(&req.content)
        }
    };
    let path = filename::note_file_path(directory.as_str(), &title, false);
    if filename::sanitize_for_filename(&title).is_empty() {
        return Err(NoteError::UnusableTitle(title.clone()).into());
    }
    let absolute = crate::mounts::project_file(&engine.store, project, &path)?;
    let include = engine.store.config().compat.permalinks_include_project;
    let overwrite = req
        .overwrite
        .unwrap_or(engine.store.config().compat.write_note_overwrite_default);
    if req.expected_checksum.is_some() && !overwrite {
        return Err(NoteError::ChecksumWithoutOverwrite.into());
    }

    let existing = equivalent_note(&engine.store, project, &path)?;
    if let Some(existing) = &existing {
        if !overwrite {
            let client_permalink = existing
                .permalink
                .clone()
                .map(|p| {
                    p.strip_prefix(&format!("{}/", project.permalink))
                        .map(String::from)
                        .unwrap_or(p)
                })
                .unwrap_or_else(|| generate_permalink(&path, true));
            return Ok(Outcome::Refused(WriteRefusal::AlreadyExists {
                project: project.name.clone(),
                title: title.clone(),
                permalink: client_permalink,
                existing_path: existing.path.clone(),
            }));
        }
    } else if absolute.exists() && !overwrite {
        return Ok(Outcome::Refused(WriteRefusal::AlreadyExists {
            project: project.name.clone(),
            title: title.clone(),
            permalink: generate_permalink(&path, true),
            existing_path: path.clone(),
        }));
    }
    // With expected_checksum the file replaced must still be the revision the caller read:
    // now, and at the moment it is replaced (`replace_if`), so of two racing writers that
    // read the same revision one wins and the other is told.
    let conflict = |current: Option<String>| {
        Outcome::Refused(revision_conflict(
            project,
            &title,
            existing.as_ref(),
            &path,
            current,
        ))
    };
    let base = match &req.expected_checksum {
        None => None,
        Some(expected) => {
            let replaced = match &existing {
                Some(old) => crate::mounts::project_file(&engine.store, project, &old.path)?,
                None => absolute.clone(),
            };
            match revision_base(&replaced, expected)? {
                Ok(bytes) => Some(bytes),
                Err(current) => return Ok(conflict(current)),
            }
        }
    };

    // Front matter: title, type, permalink, then the content's own keys, then metadata,
    // then tags; an overwrite keeps the old file's other keys.
    let note_type = content
        .meta
        .get("type")
        .and_then(Value::as_str)
        .map(String::from)
        .unwrap_or_else(|| normalize_note_type(req.note_type.as_deref().unwrap_or("note")));
    let old_meta = match &existing {
        Some(old) => kept_front_matter(&engine.store, project, old)?,
        None => Map::new(),
    };
    let permalink = match &existing {
        Some(old) if old.permalink.is_some() => old.permalink.clone().unwrap_or_default(),
        _ => {
            let wanted = content
                .meta
                .get("permalink")
                .and_then(Value::as_str)
                .map(String::from)
                .unwrap_or_else(|| note_permalink(&project.name, &path, include));
            free_permalink(
                &engine.store.index,
                project,
                &wanted,
                existing.as_ref().map(|n| n.id.as_str()),
            )?
        }
    };
    let mut doc = Document::headed(
        &title,
        &note_type,
        &permalink,
        old_meta.iter().chain(content.meta.iter()),
        content.body.trim_start_matches('\n'),
    );
    if let Some(metadata) = &req.metadata {
        for (k, v) in metadata {
            if !(k == "tags" && req.tags.is_some()) {
                doc.insert_other(k, v);
            }
        }
    }
    if let Some(tags) = &req.tags {
        let tags = note::parse_tags(&Value::Array(
            tags.iter().cloned().map(Value::String).collect(),
        ));
        doc.meta.remove("tags");
        doc.meta.insert(
            "tags".into(),
            Value::Array(tags.iter().cloned().map(Value::String).collect()),
        );
    }
    let text = doc.render();
    let parsed = note::parse_note(&path, &text);
    // The graph tools keep the official memory server's behaviour: no schema is enforced.
    if checks_schema {
        if let Some(violation) = crate::schema_notes::schema_violation(
            &engine.store.index,
            project,
            &parsed.metadata,
            &parsed.observations,
            &parsed.relations,
        )? {
            return Ok(Outcome::Refused(WriteRefusal::Schema {
                title: title.clone(),
                violation,
            }));
        }
    }
    let authored = crate::authored::author(&engine.store, &path, &text, None)?;
    // What the index gets is the parse of the bytes placed: the text's, unless redaction
    // changed them.
    let parsed = (authored.bytes() == text.as_bytes()).then_some(parsed);
    let same_file = existing.as_ref().is_none_or(|old| old.path == path);
    let observed = match &base {
        Some(bytes) if same_file => {
            if !authored::replace_if(&absolute, bytes, &authored)? {
                let now = vault::fs::read_optional(&absolute)?;
                return Ok(conflict(now.map(|b| vault::file::sha256_hex(&b))));
            }
            None
        }
        _ => Some(authored::replace(&absolute, &authored)?),
    };
    redacted.merge(&authored.redacted);
    if let Some(old) = &existing {
        if old.path != path {
            // A file-name twin is replaced by the new name (compat 2.1, overwrite).
            engine.store.index.write(vec![WriteOp::Move {
                project: project.name.clone(),
                from: old.path.clone(),
                to: path.clone(),
            }])?;
            let old_file = crate::mounts::project_file(&engine.store, project, &old.path)?;
            if old_file.exists() {
                vault::fs::delete_file(&old_file)?;
            }
        }
    }
    // The index gets the bytes just written, not a second read of the file: they are
    // what a scan would read, and the stat is the written file's own, so a later change
    // by another program still shows to the next scan.
    let note = match &observed {
        Some(observed) => {
            let op =
                crate::note_input::upsert_observed(&engine.store, project, &path, observed, parsed);
            index_op_as(engine, project, &path, op, ChangeKind::Written)?
        }
        None => crate::notes::index_file_as(engine, project, &path, ChangeKind::Written)?,
    };
    let written = written(&note, authored.bytes(), existing.is_none());
    Ok(Outcome::Done(NoteWritten {
        redacted,
        ..written
    }))
}

/// The front matter of the note an overwrite replaces, whose other keys it keeps. A file
/// gone meanwhile has none; front matter that cannot be parsed refuses the overwrite,
/// which would otherwise drop those keys.
fn kept_front_matter(
    store: &Store,
    project: &Project,
    old: &NoteRecord,
) -> Result<Map<String, Value>> {
    let Some(bytes) =
        vault::fs::read_optional(&crate::mounts::project_file(store, project, &old.path)?)?
    else {
        return Ok(Map::new());
    };
    Document::parse(&String::from_utf8_lossy(&bytes))
        .map(|doc| doc.meta)
        .map_err(|source| {
            NoteError::FrontMatter {
                path: old.path.clone(),
                source,
            }
            .into()
        })
}

/// The bytes of `file` when they are the revision `expected` names; else the checksum the
/// file has now (`None`: there is no file).
fn revision_base(
    file: &std::path::Path,
    expected: &str,
) -> Result<std::result::Result<Vec<u8>, Option<String>>> {
    let Some(bytes) = vault::fs::read_optional(file)? else {
        return Ok(Err(None));
    };
    let current = vault::file::sha256_hex(&bytes);
    Ok(match crate::notes::same_checksum(&current, expected) {
        true => Ok(bytes),
        false => Err(Some(current)),
    })
}

/// The refusal of a write whose expected revision is gone: the note as it is now, and the
/// checksum to retry against (none once no note owns the path).
fn revision_conflict(
    project: &Project,
    title: &str,
    existing: Option<&NoteRecord>,
    path: &str,
    current: Option<String>,
) -> WriteRefusal {
    WriteRefusal::RevisionConflict {
        project: project.name.clone(),
        title: existing.map_or(title, |n| n.title.as_str()).to_string(),
        permalink: existing.and_then(|n| n.permalink.clone()),
        file_path: current
            .is_some()
            .then(|| existing.map_or(path, |n| n.path.as_str()).to_string()),
        current,
    }
}
