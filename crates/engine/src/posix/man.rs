//! man: gitmem's bundled manual pages (`templates/man/`) for the POSIX tools and Basic
//! Memory's main tools, then the notes of the manual project: pages that are not bundled are
//! notes there, and `query` searches its notes of type `manpage`.

use super::super::error::PosixError;
use super::super::notes::NoteFile;
use super::super::scope::ProjectChoice;
use super::super::search::{SearchRequest, SearchResponse};
use super::super::Result;
use crate::Engine;

/// The project whose notes are the manual's other pages.
pub(crate) const MANUAL_PROJECT: &str = "manual";

/// A bundled page: its name and section, as in `grep(1)`, the tool it documents and its text.
#[derive(Debug, Clone, Copy)]
pub struct ManPage {
    pub name: &'static str,
    pub section: u8,
    pub tool: &'static str,
    pub summary: &'static str,
    pub text: &'static str,
}

macro_rules! page {
    ($name:literal, $section:literal, $tool:literal, $summary:literal) => {
        ManPage {
            name: $name,
            section: $section,
            tool: $tool,
            summary: $summary,
            text: include_str!(concat!("../../../../templates/man/", $name, ".md")),
        }
    };
}

/// Every bundled page, section 1 (the POSIX tools) before section 3 (the note tools).
pub(crate) const PAGES: &[ManPage] = &[
    page!("cat", 1, "cat", "print a note, whole or in part"),
    page!(
        "grep",
        1,
        "grep",
        "find notes by keyword, meaning, or literal lines"
    ),
    page!("ls", 1, "ls", "list one folder level, or the projects"),
    page!("find", 1, "find", "walk a folder tree, by name"),
    page!("tail", 1, "tail", "the most recently changed notes"),
    page!("man", 1, "man", "the manual"),
    page!("write-note", 3, "write_note", "create or replace a note"),
    page!("read-note", 3, "read_note", "read a note's file"),
    page!("edit-note", 3, "edit_note", "change part of a note"),
    page!(
        "search-notes",
        3,
        "search_notes",
        "search the knowledge base"
    ),
    page!(
        "build-context",
        3,
        "build_context",
        "a note and what it links to"
    ),
    page!(
        "recent-activity",
        3,
        "recent_activity",
        "what changed recently"
    ),
    page!(
        "list-directory",
        3,
        "list_directory",
        "the folders and files of a project"
    ),
];

/// What man answers.
#[derive(Debug, Clone)]
pub enum Manual {
    /// No page and no query: the index of the bundled pages.
    Index(&'static [ManPage]),
    Bundled(&'static ManPage),
    /// A page that is a note of the manual project.
    Note(Box<NoteFile>),
    Search(SearchResponse),
}

/// The bundled page a reference names, in any common spelling: `grep`, `grep(1)`,
/// `search_notes`, `Search-Notes(3)`.
pub(crate) fn bundled_page(reference: &str) -> Option<&'static ManPage> {
    let reference = reference.trim().to_lowercase().replace('_', "-");
    let (name, section) = match reference.strip_suffix(')').and_then(|r| r.rsplit_once('(')) {
        Some((name, section)) => (name.trim().to_string(), section.trim().parse::<u8>().ok()),
        None => (reference, None),
    };
    PAGES
        .iter()
        .find(|p| p.name == name && section.is_none_or(|s| s == p.section))
}

/// man: the index, one page, or a search of the manual project's `manpage` notes.
pub(crate) fn man(
    engine: &Engine,
    choice: &ProjectChoice,
    page: Option<&str>,
    query: Option<&str>,
) -> Result<Manual> {
    if page.is_some() && query.is_some() {
        return Err(PosixError::PageAndQuery.into());
    }
    if let Some(bundled) = page.and_then(bundled_page) {
        return Ok(Manual::Bundled(bundled));
    }
    let ((Some(asked), None) | (None, Some(asked))) = (page, query) else {
        return Ok(Manual::Index(PAGES));
    };
    let named = choice.project.is_some() || choice.project_id.is_some();
    let manual = ProjectChoice {
        project: Some(MANUAL_PROJECT.to_string()),
        ..choice.clone()
    };
    let manual = if named { choice } else { &manual };
    let project = match crate::scope::select_project(&engine.store, manual) {
        Ok(project) => project,
        Err(e) if !named && e.is_project_choice() => {
            return Err(match query {
                Some(_) => PosixError::NoManualProject(MANUAL_PROJECT.to_string()),
                None => PosixError::NoManualEntry(asked.to_string()),
            }
            .into())
        }
        Err(e) => return Err(e),
    };
    if query.is_none() {
        return match crate::notes::resolve(&engine.store.index, &project, asked)? {
            super::super::notes::Lookup::Found(note) => Ok(Manual::Note(Box::new(
                crate::notes::read_note_file(&engine.store, &project, &note)?,
            ))),
            _ => Err(PosixError::NoManualEntry(asked.to_string()).into()),
        };
    }
    let request = SearchRequest {
        query: Some(asked.to_string()),
        search_type: Some("text".into()),
        note_types: vec!["manpage".into()],
        entity_types: vec!["entity".into()],
        ..Default::default()
    };
    Ok(Manual::Search(crate::search::search(
        engine, &project, &request,
    )?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_in_any_common_spelling() {
        for (reference, name) in [
            ("grep", "grep"),
            ("grep(1)", "grep"),
            ("search_notes", "search-notes"),
            (" Search-Notes(3) ", "search-notes"),
        ] {
            assert_eq!(bundled_page(reference).map(|p| p.name), Some(name));
        }
        assert!(bundled_page("grep(3)").is_none());
        assert!(bundled_page("nothing").is_none());
        for page in PAGES {
            assert!(page
                .text
                .starts_with(&format!("# {}({})", page.name, page.section)));
        }
    }
}
