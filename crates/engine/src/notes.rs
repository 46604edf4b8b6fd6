//! Note operations: resolving identifiers, and writing, reading, editing, moving and deleting
//! notes. Every write goes to disk first (atomically) and is then handed to the index; the call
//! returns once the graph tables know the result.

use crate::NoteRow;

use serde_json::{Map, Value};

use super::error::{InternalError, NoteError};
use super::git::commits::ChangeKind;
use super::{authored, note_input, Result};
use crate::config::Project;
use crate::{Engine, Store};
use index::graph::KeyKind;
use index::Index;
use index::{NoteKind, NoteRecord, OpOutcome, WriteOp};
use note::identifier::{lookup_key, normalize_identifier, permalink_candidates};
use note::permalink::note_permalink;
use note::redact::Redactions;
use note::{self, frontmatter};
use vault::{self, path::RelPath};

/// What an identifier names.
#[derive(Debug, Clone)]
pub(crate) enum Lookup {
    Found(Box<NoteRecord>),
    /// Several notes share the title; none was named exactly.
    Ambiguous(Vec<NoteRecord>),
    NotFound,
}

/// The result of writing or editing a note, for rendering.
#[derive(Debug, Clone)]
pub struct NoteWritten {
    pub project: String,
    pub title: String,
    pub permalink: Option<String>,
    pub file_path: String,
    pub checksum: String,
    pub created: bool,
    pub id: String,
    /// Observation counts by category, sorted by category.
    pub categories: Vec<(String, usize)>,
    pub resolved_relations: usize,
    pub unresolved_relations: usize,
    pub tags: Vec<String>,
    /// Secret-shaped values replaced before the file was written.
    pub redacted: Redactions,
}

/// A note's file, read from disk.
#[derive(Debug, Clone)]
pub struct NoteFile {
    pub note: NoteRow,
    pub text: String,
    /// The SHA-256 of the file's bytes as read: the revision `expected_checksum` names.
    pub checksum: String,
    /// The corrections the note is part of (read_note fills it; other reads leave it out).
    pub chain: Option<crate::CorrectionChain>,
}

pub(crate) fn note_by_id(index: &Index, id: &str) -> Result<Option<NoteRecord>> {
    let snap = index.snapshot()?;
    Ok(snap.note(id)?)
}

pub(crate) fn note_by_path(
    index: &Index,
    project: &Project,
    path: &str,
) -> Result<Option<NoteRecord>> {
    let snap = index.snapshot()?;
    match snap.id_by_path(&project.name, path)? {
        Some(id) => Ok(snap.note(&id)?),
        None => Ok(None),
    }
}

/// Resolves an identifier the way Basic Memory does (compat 4.9): a note UUID, a permalink
/// (with or without the project prefix, or its slug), a title, a file path (with or without
/// `.md`), an alias or a file name. Never a fuzzy match.
pub(crate) fn resolve(index: &Index, project: &Project, identifier: &str) -> Result<Lookup> {
    let ident = normalize_identifier(identifier);
    if ident.is_empty() {
        return Ok(Lookup::NotFound);
    }
    let snap = index.snapshot()?;
    let load = |id: &str| -> Result<Option<NoteRecord>> {
        Ok(snap.note(id)?.filter(|n| n.project == project.name))
    };
    if uuid::Uuid::parse_str(&ident).is_ok() {
        if let Some(note) = load(&ident.to_lowercase())? {
            return Ok(Lookup::Found(Box::new(note)));
        }
    }
    for candidate in permalink_candidates(&ident, &project.permalink) {
        if let Some(id) = snap.id_by_permalink(&project.name, &candidate)? {
            if let Some(note) = load(&id)? {
                return Ok(Lookup::Found(Box::new(note)));
            }
        }
    }
    for path in [ident.clone(), format!("{ident}.md")] {
        if let Some(id) = snap.id_by_path(&project.name, &path)? {
            if let Some(note) = load(&id)? {
                return Ok(Lookup::Found(Box::new(note)));
            }
        }
    }
    let key = lookup_key(&ident);
    let matches = snap.ids_by_key(&project.name, &key)?;
    for kind in [
        KeyKind::Title,
        KeyKind::Path,
        KeyKind::PathWithoutExtension,
        KeyKind::Alias,
        KeyKind::FileName,
    ] {
        let mut notes: Vec<NoteRecord> = Vec::new();
        for (k, _, id) in &matches {
            if *k == kind as u8 {
                notes.extend(load(id)?);
            }
        }
        match notes.len() {
            0 => continue,
            1 => return Ok(Lookup::Found(Box::new(notes.remove(0)))),
            _ => {
                // An exact (case-sensitive) title wins over case-folded look-alikes.
                let exact: Vec<_> = notes.iter().filter(|n| n.title == ident).cloned().collect();
                if exact.len() == 1 {
                    return Ok(Lookup::Found(Box::new(exact[0].clone())));
                }
                notes.sort_by_key(|n| n.path.len());
                return Ok(Lookup::Ambiguous(notes));
            }
        }
    }
    Ok(Lookup::NotFound)
}

/// Reads a note's file as text.
pub(crate) fn read_note_file(
    store: &Store,
    project: &Project,
    note: &NoteRecord,
) -> Result<NoteFile> {
    let path = crate::mounts::project_file(store, project, &note.path)?;
    let bytes = vault::fs::read(&path)?;
    Ok(NoteFile {
        note: note.clone().into(),
        checksum: vault::file::sha256_hex(&bytes),
        text: String::from_utf8_lossy(&bytes).into_owned(),
        chain: None,
    })
}

/// Hands a file gitmem just wrote (or found) to the index and waits until the graph has it.
pub(crate) fn index_written_file(
    engine: &Engine,
    project: &Project,
    relative: &str,
) -> Result<NoteRecord> {
    index_file_as(engine, project, relative, ChangeKind::Written)
}

/// Indexes a file gitmem wrote, recording the change as `kind` in the project's history.
pub(crate) fn index_file_as(
    engine: &Engine,
    project: &Project,
    relative: &str,
    kind: ChangeKind,
) -> Result<NoteRecord> {
    let op = crate::note_input::upsert_op(&engine.store, project, relative)?;
    index_op_as(engine, project, relative, op, kind)
}

/// Hands one upsert of `relative` to the index and records the change as `kind`.
pub(crate) fn index_op_as(
    engine: &Engine,
    project: &Project,
    relative: &str,
    op: WriteOp,
    kind: ChangeKind,
) -> Result<NoteRecord> {
    let outcome = engine.store.index.write(vec![op])?;
    let id = match outcome.into_iter().next() {
        Some(Ok(OpOutcome::Upserted { id, .. })) => id,
        Some(Err(e)) => return Err(e.into()),
        _ => return Err(InternalError::NotIndexed(relative.to_string()).into()),
    };
    let note = note_by_id(&engine.store.index, &id)?
        .ok_or_else(|| InternalError::Vanished(relative.to_string()))?;
    crate::git::versioned::record_change(engine, project, relative, kind, &note);
    Ok(note)
}

pub(crate) fn written(note: &NoteRecord, bytes: &[u8], created: bool) -> NoteWritten {
    let mut categories: std::collections::BTreeMap<String, usize> = Default::default();
    for obs in &note.observations {
        *categories.entry(obs.category.clone()).or_default() += 1;
    }
    NoteWritten {
        project: note.project.clone(),
        title: note.title.clone(),
        permalink: note.permalink.clone(),
        file_path: note.path.clone(),
        checksum: vault::file::sha256_hex(bytes),
        created,
        id: note.id.clone(),
        categories: categories.into_iter().collect(),
        resolved_relations: note.relations.iter().filter(|r| r.to_id.is_some()).count(),
        unresolved_relations: note.relations.iter().filter(|r| r.to_id.is_none()).count(),
        tags: note.tags.clone(),
        redacted: Redactions::default(),
    }
}

/// The permalink a new note's file names: `wanted`, suffixed if another note has it. The
/// graph writer checks it again inside its write transaction, with the same function.
pub(super) fn free_permalink(
    index: &Index,
    project: &Project,
    wanted: &str,
    except_id: Option<&str>,
) -> Result<String> {
    let snap = index.snapshot()?;
    Ok(snap.free_permalink(&project.name, wanted, except_id)?)
}

/// A note whose file name is equivalent to `path`: same path ignoring case, or the same
/// generated permalink (compat 4.7).
pub(super) fn equivalent_note(
    store: &Store,
    project: &Project,
    path: &str,
) -> Result<Option<NoteRecord>> {
    if let Some(note) = note_by_path(&store.index, project, path)? {
        return Ok(Some(note));
    }
    let include = store.config().compat.permalinks_include_project;
    let snap = store.index.snapshot()?;
    for (kind, _, id) in snap.ids_by_key(&project.name, &lookup_key(path))? {
        if kind == KeyKind::Path as u8 {
            if let Some(note) = snap.note(&id)? {
                return Ok(Some(note));
            }
        }
    }
    // A note whose own path slugs to the same permalink (`notes/My Note.md` and
    // `notes/my-note.md`) is a twin; notes keep the permalink of their path unless they
    // asked for another, so the permalink table finds it.
    let generated = note_permalink(&project.name, path, include);
    if let Some(id) = snap.id_by_permalink(&project.name, &generated)? {
        if let Some(note) = snap.note(&id)? {
            if note.kind == NoteKind::Markdown
                && note_permalink(&project.name, &note.path, include) == generated
            {
                return Ok(Some(note));
            }
        }
    }
    Ok(None)
}

/// The bytes of a note's file for an edit. Bytes that are exactly what the index saw
/// (size and checksum) are used at once; anything else may be an editor's save in
/// progress, and is read once the file has been quiet for a moment. `None` when it kept
/// changing and what could be read is shorter than the note the index knows: a half-written
/// save must never be the base of an edit.
pub(crate) fn read_for_edit(
    store: &Store,
    project: &Project,
    note: &NoteRecord,
) -> Result<Option<Vec<u8>>> {
    let path = crate::mounts::project_file(store, project, &note.path)?;
    let bytes = vault::fs::read(&path)?;
    if bytes.len() as u64 == note.size && vault::file::sha256_hex(&bytes) == note.checksum {
        return Ok(Some(bytes));
    }
    // A file the index knew with content that is empty now is an editor's save caught
    // between truncating and writing far more often than a note someone emptied: never
    // edit it (write_note replaces a note that really is meant to be empty).
    let trusted = |bytes: Vec<u8>| (!bytes.is_empty() || note.size == 0).then_some(bytes);
    if let Some(bytes) = vault::fs::read_settled(&path)? {
        return Ok(trusted(bytes));
    }
    let bytes = vault::fs::read(&path)?;
    Ok((bytes.len() as u64 >= note.size)
        .then_some(bytes)
        .and_then(trusted))
}

/// Writes `text` over a note's file if the file still holds `expected`, and re-indexes it;
/// `None` when the file changed in between.
pub(crate) fn replace_note_text_if(
    engine: &Engine,
    project: &Project,
    note: &NoteRecord,
    expected: &[u8],
    text: &str,
) -> Result<Option<NoteWritten>> {
    let absolute = crate::mounts::project_file(&engine.store, project, &note.path)?;
    let before = String::from_utf8_lossy(expected);
    let authored = crate::authored::author(&engine.store, &note.path, text, Some(&before))?;
    if !authored::replace_if(&absolute, expected, &authored)? {
        return Ok(None);
    }
    let updated = index_written_file(engine, project, &note.path)?;
    let written = written(&updated, authored.bytes(), false);
    Ok(Some(NoteWritten {
        redacted: authored.redacted,
        ..written
    }))
}

/// Rewrites a note's text with `change` (None: nothing to change) unless another writer
/// got there first, in which case the change is made again on what that writer left.
/// Answers what the redaction filter replaced in the text written.
pub(crate) fn rewrite_note(
    engine: &Engine,
    project: &Project,
    note: &NoteRecord,
    change: impl Fn(&str) -> Option<String>,
) -> Result<Redactions> {
    try_rewrite_note(engine, project, note, |text| Ok(change(text)))
}

/// `rewrite_note` with a change that may refuse the text it is given.
pub(crate) fn try_rewrite_note(
    engine: &Engine,
    project: &Project,
    note: &NoteRecord,
    change: impl Fn(&str) -> Result<Option<String>>,
) -> Result<Redactions> {
    for _ in 0..5 {
        let Some(current) = note_by_id(&engine.store.index, &note.id)? else {
            return Ok(Redactions::default());
        };
        let Some(bytes) = read_for_edit(&engine.store, project, &current)? else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        let Some(changed) = change(&text)?.filter(|c| *c != text) else {
            return Ok(Redactions::default());
        };
        if let Some(written) = replace_note_text_if(engine, project, &current, &bytes, &changed)? {
            return Ok(written.redacted);
        }
    }
    Err(InternalError::KeptChanging(note.path.clone()).into())
}

/// Creates a note at `path` with exactly `text`, for auto-created notes.
pub(crate) fn create_note_file(
    engine: &Engine,
    project: &Project,
    path: &str,
    text: &str,
) -> Result<NoteWritten> {
    let absolute = crate::mounts::project_file(&engine.store, project, path)?;
    let authored = crate::authored::author(&engine.store, path, text, None)?;
    match authored::create(&absolute, &authored) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            return Err(NoteError::AlreadyExists(path.to_string()).into());
        }
        Err(e) => return Err(e.into()),
    }
    let note = index_written_file(engine, project, path)?;
    let written = written(&note, authored.bytes(), true);
    Ok(NoteWritten {
        redacted: authored.redacted,
        ..written
    })
}

/// Moves one note's file; the note keeps its id, permalink and links.
pub(crate) fn move_note_file(
    engine: &Engine,
    project: &Project,
    note: &NoteRecord,
    destination: &str,
) -> Result<NoteRecord> {
    let from = crate::mounts::project_file(&engine.store, project, &note.path)?;
    let to = crate::mounts::project_file(&engine.store, project, destination)?;
    // A move keeps the text, whoever wrote it; only the new name is gitmem's.
    crate::authored::author(&engine.store, destination, "", None)?;
    vault::fs::move_file(&from, &to)?;
    let outcome = engine.store.index.write(vec![WriteOp::Move {
        project: project.name.clone(),
        from: note.path.clone(),
        to: destination.to_string(),
    }])?;
    if let Some(Err(e)) = outcome.into_iter().next() {
        return Err(e.into());
    }
    let moved = note_by_id(&engine.store.index, &note.id)?
        .ok_or_else(|| InternalError::Vanished(destination.to_string()))?;
    let from = note.path.clone();
    crate::git::versioned::record_change(
        engine,
        project,
        destination,
        ChangeKind::Moved { from },
        &moved,
    );
    Ok(moved)
}

/// Deletes one note's file and its index entry.
pub(crate) fn delete_note_file(
    engine: &Engine,
    project: &Project,
    note: &NoteRecord,
) -> Result<()> {
    let path = crate::mounts::project_file(&engine.store, project, &note.path)?;
    match vault::fs::delete_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e.into()),
    }
    engine.store.index.write(vec![WriteOp::Delete {
        project: project.name.clone(),
        path: note.path.clone(),
    }])?;
    crate::git::versioned::record_change(engine, project, &note.path, ChangeKind::Deleted, note);
    Ok(())
}

/// Every indexed note or file under `folder` (project-relative, `""` = everything).
pub(crate) fn notes_under(
    index: &Index,
    project: &Project,
    folder: &str,
) -> Result<Vec<NoteRecord>> {
    let folder = folder.trim_matches('/');
    let snap = index.snapshot()?;
    let mut out = Vec::new();
    for (path, id) in snap.project_paths(&project.name)? {
        let inside = folder.is_empty()
            || path
                .strip_prefix(folder)
                .is_some_and(|rest| rest.starts_with('/'));
        if inside {
            out.extend(snap.note(&id)?);
        }
    }
    Ok(out)
}

/// Every note of a project (markdown and other files).
pub(crate) fn all_notes(index: &Index, project: &Project) -> Result<Vec<NoteRecord>> {
    notes_under(index, project, "")
}

/// Indexes a single file that exists on disk but not (yet) in the index.
pub(crate) fn index_file_if_present(
    engine: &Engine,
    project: &Project,
    identifier: &str,
) -> Result<Option<NoteRecord>> {
    let ident = normalize_identifier(identifier);
    for candidate in [
        ident.clone(),
        format!("{ident}.md"),
        format!("{ident}.markdown"),
    ] {
        // Unwrapping a `[[link]]` or a memory:// URL can expose what the identifier's
        // own check did not see; such a candidate names no file here.
        if RelPath::parse(&candidate).is_err() {
            return Ok(None);
        }
        let absolute = crate::mounts::project_file(&engine.store, project, &candidate)?;
        if absolute.is_file() && note_input::is_markdown(&candidate) {
            return Ok(Some(index_written_file(engine, project, &candidate)?));
        }
    }
    Ok(None)
}

/// Largest note content a tool writes. Search indexes the first mebibyte of a note anyway;
/// this bounds the memory one call can take.
pub const MAX_NOTE_BYTES: usize = 32 * 1024 * 1024;

/// Refuses note content over `MAX_NOTE_BYTES`.
pub(crate) fn check_note_size(content: &str) -> Result<()> {
    if content.len() > MAX_NOTE_BYTES {
        return Err(NoteError::TooLarge {
            size: content.len(),
            max: MAX_NOTE_BYTES,
        }
        .into());
    }
    Ok(())
}

/// A note's body (after front matter) and its parsed front matter.
pub fn split_note_text(text: &str) -> (String, Option<Map<String, Value>>) {
    match frontmatter::locate(text) {
        Some(block) => (
            text[block.body_start..].to_string(),
            frontmatter::parse_yaml(&text[block.yaml.clone()]).ok(),
        ),
        None => (frontmatter::body(text).to_string(), None),
    }
}

/// The folder and title an auto-created note gets from an identifier: `inbox/new-idea` ->
/// (`inbox`, `new-idea`).
pub(crate) fn split_identifier_path(identifier: &str) -> (String, String) {
    let ident = normalize_identifier(identifier);
    let ident = ident.strip_suffix(".md").unwrap_or(&ident).to_string();
    match ident.rsplit_once('/') {
        Some((dir, title)) => (dir.to_string(), title.to_string()),
        None => (String::new(), ident),
    }
}

/// The H1 rule of edit_note: when the first `# ` heading equalled the title and the edit
/// changed it, the front matter title follows.
pub(crate) fn follow_h1(before: &str, after: &str, title: &str) -> String {
    let (Some(old), Some(new)) = (note::edit::first_h1(before), note::edit::first_h1(after)) else {
        return after.to_string();
    };
    if old == title && new != old && frontmatter::locate(after).is_some() {
        frontmatter::set_key(after, "title", &Value::String(new))
    } else {
        after.to_string()
    }
}

/// Whether `expected`, a checksum a client sends back, names the revision `current`: the
/// same SHA-256 in hex, in either case.
pub(crate) fn same_checksum(current: &str, expected: &str) -> bool {
    current.eq_ignore_ascii_case(expected.trim())
}
