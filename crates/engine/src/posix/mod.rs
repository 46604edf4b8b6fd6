//! Basic Memory's POSIX-shaped read tools as workflows: `cat` (a note by lines, section or
//! token budget), `grep` (a search, or the lines that hold a pattern), `ls` and `find`
//! (listings, with projects as mount points), `tail` (recent notes); `man` is in [`man`].
//!
//! Projects are mount points: with no project named, a path or identifier whose first segment
//! names a project routes there, and the answer's paths carry that segment again, so that
//! what one tool returns is what the next one accepts.

pub mod man;
pub mod meta;

use crate::NoteRow;
use chrono::Utc;
use serde_json::{Map, Value};

use super::activity::ActivityItem;
use super::directory::{DirectoryListing, DirectoryRequest};
use super::error::{PageError, PosixError};
use super::notes::{split_note_text, NoteFile};
use super::read::{Page, ReadRefusal};
use super::scope::ProjectChoice;
use super::search::{RowKind, SearchRequest, SearchResponse};
use super::timeframe::Timeframe;
use super::{Outcome, Result};
use crate::config::Project;
use crate::{Engine, Store};
use index::{NoteKind, NoteRecord};
use note::lines::{self, LineScan};
use note::memory::Reveal;
use note::permalink::generate_permalink;
use note::section::section_lines;

/// find's deepest descent, and its default.
pub(crate) const MAX_FIND_DEPTH: usize = 10;
/// tail's longest answer.
pub(crate) const MAX_TAIL_LINES: usize = 100;
/// grep's line mode: the largest page of candidates, and of matches shown per note.
const MAX_LINE_PAGE: usize = 100;
const MAX_MATCHES: usize = 100;
const DEFAULT_MAX_MATCHES: usize = 10;
const MAX_CONTEXT_LINES: usize = 10;

/// Where a path or identifier leads: a project, the path inside it, and the project segment
/// the caller wrote, which the answer's paths carry again.
#[derive(Debug, Clone)]
pub struct Route {
    pub project: Project,
    pub path: String,
    pub prefix: Option<String>,
}

impl Route {
    /// The choice that names this route's project, under the call's constraints.
    fn choice(&self, choice: &ProjectChoice) -> ProjectChoice {
        ProjectChoice {
            project: Some(self.project.name.clone()),
            project_id: None,
            ..choice.clone()
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct CatRequest {
    pub identifier: String,
    pub start_line: Option<i64>,
    pub end_line: Option<i64>,
    pub section: Option<String>,
    pub max_tokens: Option<i64>,
    pub include_frontmatter: bool,
}

/// The lines a slice holds, by the note's numbering.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slice {
    pub start_line: usize,
    pub end_line: usize,
    pub total_lines: usize,
}

/// A note as cat prints it.
#[derive(Debug, Clone)]
pub struct Catted {
    pub file: NoteFile,
    pub content: String,
    pub frontmatter: Option<Map<String, Value>>,
    /// Set when lines, a section or a token budget chose part of the note.
    pub slice: Option<Slice>,
    pub section: Option<String>,
    /// The first line left out by the token budget.
    pub continue_line: Option<usize>,
    pub prefix: Option<String>,
}

#[derive(Debug, Clone)]
pub struct GrepRequest {
    pub pattern: String,
    pub semantic: bool,
    /// gitmem's own: every note file of the project scanned, not search candidates.
    pub literal: bool,
    pub context_lines: Option<i64>,
    pub max_matches: Option<i64>,
    pub page: usize,
    pub page_size: usize,
}

/// One note's matching lines.
#[derive(Debug, Clone)]
pub struct GrepRow {
    pub note: NoteRow,
    pub scan: LineScan,
}

/// What grep found: a search page, or notes' matching lines.
#[derive(Debug, Clone)]
pub enum Grepped {
    Search(SearchResponse),
    Lines {
        rows: Vec<GrepRow>,
        page: usize,
        page_size: usize,
        total: usize,
        has_more: bool,
        /// Whether the page is of search candidates (Basic Memory's) or of every note holding
        /// the pattern (`literal`).
        literal: bool,
    },
}

/// A listing of `ls` or `find`.
#[derive(Debug, Clone)]
pub enum Listed {
    /// `ls /` with no project named: the projects, as folders.
    Projects {
        projects: Vec<Project>,
        page: Page,
        total: usize,
        has_more: bool,
    },
    Directory {
        listing: DirectoryListing,
        request: DirectoryRequest,
        prefix: Option<String>,
    },
    /// find with `meta`: the notes whose front matter holds, as a search page.
    Found {
        response: SearchResponse,
        /// With `fields`: per result, each field asked for (its path as written) and its value.
        fields: Option<Vec<Map<String, Value>>>,
        prefix: Option<String>,
    },
}

#[derive(Debug, Clone)]
pub struct FindRequest {
    pub path: String,
    pub name: Option<String>,
    pub depth: Option<i64>,
    pub page: usize,
    pub page_size: usize,
    /// Front matter predicates (`status=active`): find searches instead of listing.
    pub meta: Option<Vec<String>>,
    /// Front matter fields to return per note, with `meta`.
    pub fields: Option<Vec<String>>,
}

/// The project a path's first segment names when the call named none (or named the same),
/// else the call's project with the path unchanged. A project wins over a folder of the
/// same name, as in Basic Memory.
pub(crate) fn route(store: &Store, choice: &ProjectChoice, path: &str) -> Result<Route> {
    let trimmed = path.trim();
    let trimmed = trimmed
        .strip_prefix("./")
        .unwrap_or(trimmed)
        .trim_matches('/');
    let (first, rest) = trimmed.split_once('/').unwrap_or((trimmed, ""));
    if !first.is_empty() {
        let wanted = generate_permalink(first, false);
        let named = crate::scope::visible_projects(store, choice)?
            .into_iter()
            .find(|p| p.permalink == wanted || p.name == first);
        if let Some(project) = named {
            if !choice.is_explicit()
                || crate::scope::select_project(store, choice)?.name == project.name
            {
                return Ok(Route {
                    prefix: Some(project.permalink.clone()),
                    path: rest.to_string(),
                    project,
                });
            }
        }
    }
    Ok(Route {
        project: crate::scope::select_project(store, choice)?,
        path: path.to_string(),
        prefix: None,
    })
}

/// cat: a note, whole or sliced by lines, a section or a token budget.
pub(crate) fn cat(engine: &Engine, choice: &ProjectChoice, request: &CatRequest) -> Result<Catted> {
    let has_lines = request.start_line.is_some() || request.end_line.is_some();
    check_cat(request, has_lines)?;
    let identifier = request.identifier.trim();
    let (file, prefix) = if identifier.starts_with("memory://") {
        (read_for_cat(engine, choice, identifier)?, None)
    } else {
        let route = route(&engine.store, choice, identifier)?;
        if route.prefix.is_some() && route.path.trim_matches('/').is_empty() {
            return Err(PosixError::ProjectNotNote(identifier.to_string()).into());
        }
        let file = read_for_cat(engine, &route.choice(choice), &route.path)?;
        (file, route.prefix)
    };
    let (body, frontmatter) = split_note_text(&file.text);
    let mut catted = Catted {
        content: String::new(),
        frontmatter,
        slice: None,
        section: request.section.clone(),
        continue_line: None,
        prefix,
        file,
    };
    // A body-relative range: without front matter, lines count from the body's first,
    // as Basic Memory slices the content it would return.
    let body_range = has_lines && !request.include_frontmatter;
    let text = if body_range { &body } else { &catted.file.text };
    let all = lines::document_lines(text);
    let total = all.len();
    let (first, mut last) = if let Some(section) = &request.section {
        let range = section_lines(text, section).map_err(PosixError::from)?;
        (range.start + 1, range.end)
    } else if has_lines {
        let first = request.start_line.unwrap_or(1) as usize;
        if first > total.max(1) {
            return Err(PosixError::PastEnd {
                start: first,
                total,
            }
            .into());
        }
        let last = request
            .end_line
            .map_or(total, |end| (end as usize).min(total));
        (first, last)
    } else if request.max_tokens.is_some() {
        (lines::body_first_line(text), total)
    } else {
        catted.content = if request.include_frontmatter {
            catted.file.text.clone()
        } else {
            body
        };
        return Ok(catted);
    };
    if let Some(max) = request.max_tokens {
        let wanted = &all[(first - 1).min(total)..last.max(first - 1)];
        let fits = lines::lines_within(wanted, max as usize);
        if fits < wanted.len() {
            last = first + fits - 1;
            catted.continue_line = Some(last + 1);
        }
    }
    catted.content = all[(first - 1).min(total)..last.max(first - 1)].join("\n");
    catted.slice = Some(Slice {
        start_line: first,
        end_line: last,
        total_lines: total,
    });
    Ok(catted)
}

fn read_for_cat(engine: &Engine, choice: &ProjectChoice, identifier: &str) -> Result<NoteFile> {
    match crate::read::read_note(engine, choice, identifier, Page::default())? {
        Outcome::Done(file) => Ok(file),
        Outcome::Refused(ReadRefusal::OutsideProject(refusal)) => Err(refusal.into()),
        Outcome::Refused(ReadRefusal::NotFound { .. }) => {
            Err(PosixError::NoteNotFound(identifier.to_string()).into())
        }
    }
}

/// grep: notes by keyword (or meaning), or, with `context_lines` or `literal`, the lines
/// that hold the pattern, numbered as cat numbers them.
pub(crate) fn grep(
    engine: &Engine,
    choice: &ProjectChoice,
    request: &GrepRequest,
) -> Result<Grepped> {
    let line_mode = check_grep(request)?;
    let project = crate::scope::select_project(&engine.store, choice)?;
    let context = request.context_lines.unwrap_or(0) as usize;
    let max_matches = request
        .max_matches
        .map_or(DEFAULT_MAX_MATCHES, |m| m as usize);
    let scan =
        |file: &NoteFile| lines::scan_literal(&file.text, &request.pattern, context, max_matches);
    if request.literal {
        return grep_files(&engine.store, &project, request, scan);
    }
    let search = SearchRequest {
        query: Some(request.pattern.clone()),
        search_type: Some(if request.semantic { "hybrid" } else { "text" }.into()),
        entity_types: vec!["entity".into()],
        page: request.page,
        page_size: request.page_size,
        ..Default::default()
    };
    let response = crate::search::search(engine, &project, &search)?;
    if !line_mode {
        return Ok(Grepped::Search(response));
    }
    let mut rows = Vec::new();
    for hit in &response.results {
        let Some(note) = crate::notes::note_by_id(&engine.store.index, &hit.external_id)? else {
            continue;
        };
        let file = crate::notes::read_note_file(&engine.store, &project, &note)?;
        rows.push(GrepRow {
            scan: scan(&file),
            note: note.into(),
        });
    }
    Ok(Grepped::Lines {
        rows,
        page: response.current_page,
        page_size: response.page_size,
        total: response.total as usize,
        has_more: response.has_more,
        literal: false,
    })
}

/// Every markdown note of the project whose file holds the pattern, by path.
fn grep_files(
    store: &Store,
    project: &Project,
    request: &GrepRequest,
    scan: impl Fn(&NoteFile) -> LineScan,
) -> Result<Grepped> {
    let hidden = crate::search::hidden_notes(&store.index, project, Reveal::default())?;
    let mut notes: Vec<NoteRecord> = crate::notes::all_notes(&store.index, project)?
        .into_iter()
        .filter(|n| n.kind == NoteKind::Markdown && !hidden.contains(&n.id))
        .collect();
    notes.sort_by(|a, b| a.path.cmp(&b.path));
    let mut matching = Vec::new();
    for note in notes {
        let file = match crate::notes::read_note_file(store, project, &note) {
            Ok(file) => file,
            // Gone since the index saw it: not a match, not a failure.
            Err(e) if e.io_kind() == Some(std::io::ErrorKind::NotFound) => continue,
            Err(e) => return Err(e),
        };
        if lines::contains_literal(&file.text, &request.pattern) {
            matching.push(file);
        }
    }
    let total = matching.len();
    let page = Page {
        page: request.page,
        page_size: request.page_size,
    };
    let (files, has_more) = page.of(matching);
    let rows = files
        .iter()
        .map(|file| GrepRow {
            scan: scan(file),
            note: file.note.clone(),
        })
        .collect();
    Ok(Grepped::Lines {
        rows,
        page: request.page,
        page_size: request.page_size,
        total,
        has_more,
        literal: true,
    })
}

/// ls: one level of a folder; `/` with no project named lists the projects.
pub(crate) fn ls(store: &Store, choice: &ProjectChoice, path: &str, page: Page) -> Result<Listed> {
    check_page(page)?;
    if !choice.is_explicit() && path.trim().trim_matches('/').is_empty() {
        let projects = crate::scope::visible_projects(store, choice)?;
        let total = projects.len();
        let (projects, has_more) = page.of(projects);
        return Ok(Listed::Projects {
            projects,
            page,
            total,
            has_more,
        });
    }
    listing(store, choice, path, 1, None, page)
}

/// find: the files and folders under a path, to a depth, whose names match a glob.
pub(crate) fn find(
    engine: &Engine,
    choice: &ProjectChoice,
    request: &FindRequest,
) -> Result<Listed> {
    if let Some(meta) = &request.meta {
        return find_by_metadata(engine, choice, request, meta);
    }
    if request.fields.is_some() {
        return Err(PosixError::FieldsWithoutMeta.into());
    }
    let depth = request.depth.unwrap_or(MAX_FIND_DEPTH as i64);
    if !(1..=MAX_FIND_DEPTH as i64).contains(&depth) {
        return Err(PosixError::DepthOutOfRange {
            max: MAX_FIND_DEPTH,
            depth,
        }
        .into());
    }
    let page = Page {
        page: request.page,
        page_size: request.page_size,
    };
    check_page(page)?;
    listing(
        &engine.store,
        choice,
        &request.path,
        depth as usize,
        request.name.clone(),
        page,
    )
}

/// find with `meta`: the markdown notes under the path whose front matter passes every
/// predicate, newest first, as search_notes finds them with metadata filters.
fn find_by_metadata(
    engine: &Engine,
    choice: &ProjectChoice,
    request: &FindRequest,
    meta: &[String],
) -> Result<Listed> {
    if meta.is_empty() {
        return Err(PosixError::EmptyMeta.into());
    }
    if request.name.is_some() {
        return Err(PosixError::NameWithMeta.into());
    }
    if request.depth.is_some_and(|d| d != MAX_FIND_DEPTH as i64) {
        return Err(PosixError::DepthWithMeta.into());
    }
    let fields = request
        .fields
        .as_deref()
        .map(meta::parse_fields)
        .transpose()?;
    let mut filters = meta::parse_predicates(meta)?;
    check_page(Page {
        page: request.page,
        page_size: request.page_size,
    })?;
    let route = route(&engine.store, choice, &request.path)?;
    let project = crate::scope::select_project(&engine.store, &route.choice(choice))?;
    let folder = route.path.trim_start_matches("./").trim_matches('/');
    if !folder.is_empty() {
        vault::path::RelPath::parse(folder)
            .map_err(|_| super::OutsideProject::new(super::PathArg::Path, &request.path))?;
    }
    // Note types match normalised, as the types search results show (upstream #1428).
    let note_types: Vec<String> = match filters.get("type") {
        Some(Value::String(t)) => vec![t.clone()],
        Some(Value::Object(op)) => match op.get("$in").and_then(Value::as_array) {
            Some(types) if types.iter().all(Value::is_string) => types
                .iter()
                .filter_map(Value::as_str)
                .map(String::from)
                .collect(),
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    if !note_types.is_empty() {
        filters.remove("type");
    }
    let markdown: Vec<NoteRecord> =
        crate::notes::notes_under(&engine.store.index, &project, folder)?
            .into_iter()
            .filter(|n| n.kind == NoteKind::Markdown)
            .collect();
    let search = SearchRequest {
        entity_types: vec!["entity".into()],
        note_types,
        metadata_filters: (!filters.is_empty()).then_some(filters),
        within: Some(markdown.iter().map(|n| n.id.clone()).collect()),
        page: request.page,
        page_size: request.page_size,
        ..Default::default()
    };
    let response = crate::search::search(engine, &project, &search)?;
    let fields = fields.map(|fields| {
        response
            .results
            .iter()
            .map(|row| {
                let note = markdown.iter().find(|n| n.id == row.external_id);
                fields
                    .iter()
                    .map(|field| {
                        let value = note.map_or(Value::Null, |n| {
                            meta::project_field(&projected_metadata(n), field)
                        });
                        (field.clone(), value)
                    })
                    .collect()
            })
            .collect()
    });
    Ok(Listed::Found {
        response,
        fields,
        prefix: route.prefix,
    })
}

fn listing(
    store: &Store,
    choice: &ProjectChoice,
    path: &str,
    depth: usize,
    glob: Option<String>,
    page: Page,
) -> Result<Listed> {
    let route = route(store, choice, path)?;
    let request = DirectoryRequest {
        dir_name: route.path.clone(),
        depth,
        glob,
        sort: None,
        page: page.page,
        page_size: page.page_size,
    };
    let listing = crate::directory::list_directory(store, &route.choice(choice), &request)?;
    Ok(Listed::Directory {
        listing,
        request,
        prefix: route.prefix,
    })
}

/// tail: the project's notes changed within a timeframe, newest first.
pub(crate) fn tail(
    engine: &Engine,
    choice: &ProjectChoice,
    timeframe: &str,
    lines: i64,
) -> Result<Vec<ActivityItem>> {
    if !(1..=MAX_TAIL_LINES as i64).contains(&lines) {
        return Err(PosixError::TailLines {
            max: MAX_TAIL_LINES,
            lines,
        }
        .into());
    }
    let now = Utc::now();
    let since = Timeframe::parse(timeframe, now)
        .map_err(PosixError::from)?
        .since(now);
    let project = crate::scope::select_project(&engine.store, choice)?;
    let activity = crate::activity::recent_activity(
        engine,
        &project,
        &[RowKind::Entity],
        since,
        1,
        lines as usize,
    )?;
    Ok(activity.items)
}

/// What `fields` reads: the front matter with its YAML types, and the note's title and type
/// as the index has them (a note without front matter still has both, as upstream).
fn projected_metadata(note: &NoteRecord) -> Map<String, Value> {
    let mut metadata = note.metadata.clone();
    metadata.insert("title".into(), Value::String(note.title.clone()));
    metadata.insert("type".into(), Value::String(note.note_type.clone()));
    metadata
}

fn check_page(page: Page) -> Result<()> {
    if page.page < 1 {
        return Err(PageError::PageBelowOne(page.page as i64).into());
    }
    if page.page_size < 1 {
        return Err(PageError::SizeBelowOne(page.page_size as i64).into());
    }
    Ok(())
}

/// cat's arguments, checked in Basic Memory's order.
fn check_cat(request: &CatRequest, has_lines: bool) -> Result<()> {
    let error = if request.section.is_some() && has_lines {
        PosixError::SectionWithLines
    } else if let Some(max) = request.max_tokens.filter(|m| *m < 1) {
        PosixError::TokensBelowOne(max)
    } else if let Some(start) = request.start_line.filter(|s| *s < 1) {
        PosixError::StartBelowOne(start)
    } else if let Some(end) = request
        .end_line
        .filter(|e| *e < request.start_line.unwrap_or(1))
    {
        PosixError::EndBeforeStart(end)
    } else if request.max_tokens.is_some() && !request.include_frontmatter && has_lines {
        PosixError::BodyRangeWithTokens
    } else {
        return Ok(());
    };
    Err(error.into())
}

/// grep's arguments; true when lines are asked for rather than a search page.
fn check_grep(request: &GrepRequest) -> Result<bool> {
    if request.pattern.trim().is_empty() {
        return Err(PosixError::EmptyPattern.into());
    }
    check_page(Page {
        page: request.page,
        page_size: request.page_size,
    })?;
    let line_mode = request.context_lines.is_some() || request.literal;
    let error = if request.literal && request.semantic {
        PosixError::LiteralWithSemantic
    } else if request.context_lines.is_some() && request.semantic {
        PosixError::ContextWithSemantic
    } else if request
        .context_lines
        .is_some_and(|c| !(0..=MAX_CONTEXT_LINES as i64).contains(&c))
    {
        PosixError::ContextOutOfRange
    } else if line_mode && request.pattern.contains(['\n', '\r']) {
        PosixError::MultiLinePattern
    } else if line_mode && request.page_size > MAX_LINE_PAGE {
        PosixError::LinePageTooLarge
    } else if !line_mode && request.max_matches.is_some() {
        PosixError::MaxMatchesWithoutLines
    } else if request
        .max_matches
        .is_some_and(|m| !(1..=MAX_MATCHES as i64).contains(&m))
    {
        PosixError::MaxMatchesOutOfRange
    } else {
        return Ok(line_mode);
    };
    Err(error.into())
}
