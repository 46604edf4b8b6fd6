//! Reading: read_note (found, or not found with suggestions), view_note, read_content, and the
//! ChatGPT connector's fetch.

use serde_json::Value;

use super::content::Content;
use super::error::NoteError;
use super::notes::{Lookup, NoteFile};
use super::scope::ProjectChoice;
use super::search::{SearchRequest, SearchResult};
use super::{Outcome, OutsideProject, PathArg, Result};
use crate::config::Project;
use crate::{Engine, Store};
use index::NoteRecord;
use note::frontmatter;
use note::identifier::normalize_identifier;
use vault::path::RelPath;

/// Why a note could not be read.
#[derive(Debug, Clone)]
pub enum ReadRefusal {
    OutsideProject(OutsideProject),
    /// Nothing matches; `related` are search hits for the identifier, for suggestions.
    NotFound {
        project: String,
        identifier: String,
        related: Vec<SearchResult>,
    },
}

/// Lines of a note, as read_note's `start_line`/`end_line` ask for them: numbered over the
/// whole file, front matter included, so that a follow-up read asks for the next ones.
#[derive(Debug, Clone)]
pub struct NoteLines {
    pub file: NoteFile,
    /// The lines, joined by newlines, without the final one.
    pub content: String,
    pub start_line: usize,
    pub end_line: usize,
    pub total_lines: usize,
}

/// A note as view_note shows it.
#[derive(Debug, Clone)]
pub struct NoteView {
    pub title: String,
    pub text: String,
}

/// A page of a list (the suggestions of a not-found read, a listing, the notes of a context):
/// its number, from 1, and its size.
#[derive(Debug, Clone, Copy)]
pub struct Page {
    pub page: usize,
    pub page_size: usize,
}

impl Page {
    /// This page of `all`, and whether more items follow it.
    pub fn of<T>(self, all: Vec<T>) -> (Vec<T>, bool) {
        let offset = (self.page - 1) * self.page_size;
        let more = all.len() > offset + self.page_size;
        let items = all.into_iter().skip(offset).take(self.page_size).collect();
        (items, more)
    }
}

impl Default for Page {
    fn default() -> Self {
        Page {
            page: 1,
            page_size: 10,
        }
    }
}

/// True when an identifier (or the path of its memory:// URL) stays inside a project. An
/// identifier may be a title or a permalink as well as a path, and is looked up as given, so
/// the parsed path is not kept; but any identifier that would not parse as a path is refused,
/// whichever it turns out to be.
fn identifier_inside(identifier: &str) -> bool {
    let trimmed = identifier.trim();
    let path = trimmed.strip_prefix("memory://").unwrap_or(trimmed);
    RelPath::parse(path).is_ok()
}

/// Refuses an identifier that would leave the project.
pub(crate) fn check_identifier(
    identifier: &str,
    what: PathArg,
) -> std::result::Result<(), OutsideProject> {
    if identifier_inside(identifier) {
        Ok(())
    } else {
        Err(OutsideProject::new(what, identifier))
    }
}

/// read_note (compat 2.2): strict resolution, then an exact title among title-search hits;
/// otherwise a refusal carrying a page of related notes.
pub(crate) fn read_note(
    engine: &Engine,
    choice: &ProjectChoice,
    identifier: &str,
    suggestions: Page,
) -> Result<Outcome<NoteFile, ReadRefusal>> {
    let project = crate::scope::project_for_identifier(&engine.store, choice, identifier)?;
    if let Err(refusal) = check_identifier(identifier, PathArg::Identifier) {
        return Ok(Outcome::Refused(ReadRefusal::OutsideProject(refusal)));
    }
    if let Some(note) = find_for_read(engine, &project, identifier)? {
        // A note whose file just vanished (renamed or deleted, the watcher not yet done)
        // reads as not found rather than as a server failure.
        match crate::notes::read_note_file(&engine.store, &project, &note) {
            Ok(file) => {
                crate::uses::record_uses(&engine.store.index, std::slice::from_ref(&note.id));
                let chain = crate::correct::correction_chain(&engine.store.index, &project, &note)?;
                return Ok(Outcome::Done(NoteFile { chain, ..file }));
            }
            Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => {}
            Err(e) => return Err(e),
        }
    }
    let request = SearchRequest {
        query: Some(normalize_identifier(identifier)),
        page: suggestions.page,
        page_size: suggestions.page_size,
        ..Default::default()
    };
    let related = crate::search::search(engine, &project, &request)
        .map(|r| r.results)
        .unwrap_or_default();
    Ok(Outcome::Refused(ReadRefusal::NotFound {
        project: project.name,
        identifier: identifier.to_string(),
        related,
    }))
}

pub(super) fn find_for_read(
    engine: &Engine,
    project: &Project,
    identifier: &str,
) -> Result<Option<NoteRecord>> {
    match crate::notes::resolve(&engine.store.index, project, identifier)? {
        Lookup::Found(note) => return Ok(Some(*note)),
        Lookup::Ambiguous(mut notes) => return Ok(Some(notes.remove(0))),
        Lookup::NotFound => {}
    }
    let ident = normalize_identifier(identifier);
    let request = SearchRequest {
        query: Some(ident.clone()),
        search_type: Some("title".into()),
        page_size: 100,
        ..Default::default()
    };
    let Ok(found) = crate::search::search(engine, project, &request) else {
        return Ok(None);
    };
    match found
        .results
        .iter()
        .find(|r| r.title.to_lowercase() == ident.to_lowercase())
    {
        Some(hit) => crate::notes::note_by_id(&engine.store.index, &hit.external_id),
        None => Ok(None),
    }
}

/// view_note: read_note, titled by the note's front matter (else by the identifier).
pub(crate) fn view_note(
    engine: &Engine,
    choice: &ProjectChoice,
    identifier: &str,
) -> Result<Outcome<NoteView, ReadRefusal>> {
    Ok(
        match read_note(engine, choice, identifier, Page::default())? {
            Outcome::Done(file) => {
                let title = frontmatter::locate(&file.text)
                    .and_then(|b| frontmatter::parse_yaml(&file.text[b.yaml]).ok())
                    .and_then(|m| m.get("title").and_then(Value::as_str).map(String::from))
                    .unwrap_or_else(|| normalize_identifier(identifier));
                Outcome::Done(NoteView {
                    title,
                    text: file.text,
                })
            }
            Outcome::Refused(refusal) => Outcome::Refused(refusal),
        },
    )
}

/// fetch of the ChatGPT connector: a document id is a permalink (or any identifier);
/// a path-like id is read as a memory:// URL so that its first segment may name a project.
pub(crate) fn fetch_document(
    engine: &Engine,
    choice: &ProjectChoice,
    id: &str,
) -> Result<Outcome<NoteFile, ReadRefusal>> {
    let identifier = if id.contains('/') && !id.starts_with("memory://") {
        format!("memory://{id}")
    } else {
        id.to_string()
    };
    read_note(engine, choice, &identifier, Page::default())
}

/// read_content (compat 2.7): a file's raw content, by path or by any note identifier.
pub(crate) fn read_content(
    store: &Store,
    choice: &ProjectChoice,
    path: &str,
) -> Result<Outcome<Content, OutsideProject>> {
    let project = crate::scope::project_for_identifier(store, choice, path)?;
    if let Err(refusal) = check_identifier(path, PathArg::Path) {
        return Ok(Outcome::Refused(refusal));
    }
    let ident = normalize_identifier(path);
    let note = match crate::notes::note_by_path(&store.index, &project, &ident)? {
        Some(n) => Some(n),
        None => match crate::notes::resolve(&store.index, &project, path)? {
            Lookup::Found(n) => Some(*n),
            Lookup::Ambiguous(mut n) => Some(n.remove(0)),
            Lookup::NotFound => None,
        },
    };
    let (relative, content_type) = match &note {
        Some(n) => (n.path.clone(), n.content_type.clone()),
        None => (
            ident.clone(),
            super::note_input::content_type(&ident).to_string(),
        ),
    };
    let Ok(file) = crate::mounts::project_file(store, &project, &relative) else {
        return Ok(Outcome::Refused(OutsideProject::new(PathArg::Path, path)));
    };
    match vault::fs::read(&file) {
        Ok(bytes) => {
            if let Some(note) = &note {
                crate::uses::record_uses(&store.index, std::slice::from_ref(&note.id));
            }
            Ok(Outcome::Done(super::content::content_of(
                bytes,
                &content_type,
            )))
        }
        Err(_) => Err(NoteError::ResourceNotFound(relative).into()),
    }
}

/// read_note with `start_line`/`end_line`: the note's lines `start..=end` (to its end when
/// `end` is None), numbered over the whole file.
pub(crate) fn read_note_lines(
    engine: &Engine,
    choice: &ProjectChoice,
    identifier: &str,
    start: Option<i64>,
    end: Option<i64>,
) -> Result<Outcome<NoteLines, ReadRefusal>> {
    let first = start.unwrap_or(1);
    if first < 1 {
        return Err(NoteError::StartBelowOne(first).into());
    }
    if let Some(end) = end.filter(|end| *end < first) {
        return Err(NoteError::EndBeforeStart(end).into());
    }
    let file = match read_note(engine, choice, identifier, Page::default())? {
        Outcome::Done(file) => file,
        Outcome::Refused(refusal) => return Ok(Outcome::Refused(refusal)),
    };
    let lines = note::lines::document_lines(&file.text);
    let total = lines.len();
    let first = first as usize;
    // Line 1 of an empty note is still readable: reading from the top is always valid.
    if first > total.max(1) {
        return Err(NoteError::LinesPastEnd {
            start: first,
            total,
        }
        .into());
    }
    let last = end.map_or(total, |end| (end as usize).min(total));
    let content = lines[(first - 1).min(total)..last.max(first - 1)].join("\n");
    Ok(Outcome::Done(NoteLines {
        content,
        start_line: first,
        end_line: last,
        total_lines: total,
        file,
    }))
}
