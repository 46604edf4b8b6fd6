//! search_notes: the request, and the App methods that run it (text and title modes, filters,
//! the relaxed OR retry, several projects). The permalink mode, observation and relation rows,
//! the query language, metadata filters and result rows live in their own modules.

mod boost;
mod diverse;
mod lexical;
mod metadata;
mod names;
mod parts;
mod permalinks;
mod query;
mod ranked;
mod rerank;
pub(crate) mod rows;

use std::collections::HashMap;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::error::{PageError, QueryError};
use super::scope::ProjectChoice;
use super::Result;
use crate::config::Project;
use index::query::{Hit, Hits, Matching, Query};
use note::chunk::{best_matching, passages};
use note::memory::Reveal;
use note::permalink::normalize_note_type;

pub use boost::Boost;
pub(crate) use metadata::{is_metadata_key, metadata_matches, validate_metadata_filters};
pub use query::STOPWORDS;
pub(crate) use query::{extract_tags, filter_literal};
pub use ranked::{Explanation, FusedBy, Ranking, VectorRanking};
pub use rows::{RowKind, SearchResponse, SearchResult};

use crate::Engine;
use index::Index;
use parts::PartsAsked;
use query::{any_of, relaxed_terms, ParsedQuery};
use rows::{str_field, ResultBuilder};

/// The notes a text query found: a page of them, how many, and what the ranking saw.
struct NoteHits {
    total: u64,
    hits: Vec<Hit>,
    exact: bool,
    best_passages: HashMap<String, u32>,
    explanation: Option<Explanation>,
}

pub(crate) const SEARCH_TYPES: &str = "hybrid, permalink, semantic, text, title, vector";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchMode {
    Text,
    Title,
    Permalink,
    /// Notes by the similarity of their passages to the query (a model is installed).
    Vector,
    /// Text and vector rankings fused (the default when a model is installed).
    Hybrid,
}

/// Parameters of search_notes after the MCP layer has coerced them.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: Option<String>,
    pub page: usize,
    pub page_size: usize,
    pub search_type: Option<String>,
    /// `entity`, `observation`, `relation`; default `entity` (or `observation` with categories).
    pub entity_types: Vec<String>,
    pub categories: Vec<String>,
    pub note_types: Vec<String>,
    pub tags: Vec<String>,
    pub status: Option<String>,
    pub after_date: Option<DateTime<Utc>>,
    pub metadata_filters: Option<Map<String, Value>>,
    /// Only notes whose front matter `session_id` is one of these (none: every note).
    pub sessions: Vec<String>,
    /// Vector and hybrid search drop notes whose best passage is less similar.
    pub min_similarity: Option<f64>,
    /// How hybrid search fuses its text and vector rankings (RRF unless measuring).
    pub fusion: Fusion,
    /// Also find soft-deleted memories or superseded notes (expired ones stay hidden).
    pub reveal: Reveal,
    /// Reorder a ranked search's results by MMR, so near-duplicates do not crowd the page.
    pub diversify: bool,
    /// Only these notes (by id): find's `path` scope with `meta`.
    pub within: Option<Vec<String>>,
    /// Weighs a worded search's ranking by recency or importance (none: unchanged).
    pub boost: Boost,
}

/// How hybrid search combines the text and the vector ranking.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Fusion {
    /// Reciprocal-rank fusion, the vector ranking's vote weighted by how sharply it
    /// separates notes (the default; see docs/search-quality.md).
    #[default]
    Rrf,
    /// Each ranking's scores scaled to 0..1 and averaged.
    Score,
    /// RRF with the vector ranking's votes weighted by a constant number of hundredths (the
    /// text ranking's count whole), for measuring weights (`hybrid:wNN` in the benchmark;
    /// `hybrid:w100` is equal votes).
    VectorWeighted(u8),
}

impl Default for SearchRequest {
    fn default() -> Self {
        Self {
            query: None,
            page: 1,
            page_size: 10,
            search_type: None,
            entity_types: Vec::new(),
            categories: Vec::new(),
            note_types: Vec::new(),
            tags: Vec::new(),
            status: None,
            after_date: None,
            metadata_filters: None,
            sessions: Vec::new(),
            min_similarity: None,
            fusion: Fusion::Rrf,
            reveal: Reveal::default(),
            diversify: false,
            within: None,
            boost: Boost::default(),
        }
    }
}

impl SearchRequest {
    /// Whether the request asks for anything. A query of quotes, brackets, operators or control
    /// characters alone (`"`, `()`, a NUL) names nothing to find.
    pub(crate) fn has_criteria(&self) -> bool {
        self.query
            .as_deref()
            .is_some_and(|q| q.chars().any(char::is_alphanumeric))
            || self
                .metadata_filters
                .as_ref()
                .is_some_and(|m| !m.is_empty())
            || !self.tags.is_empty()
            || !self.sessions.is_empty()
            || self.status.is_some()
            || !self.note_types.is_empty()
            || !self.entity_types.is_empty()
            || !self.categories.is_empty()
            || self.after_date.is_some()
    }
}

/// Where a search_notes call looked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchScope {
    Project(String),
    AllProjects,
}

/// A search_notes answer with the scope it covered.
#[derive(Debug, Clone)]
pub struct ScopedSearch {
    pub response: SearchResponse,
    pub scope: SearchScope,
}

/// search_notes as the tool takes it: one project, or every visible project when asked and
/// no project is named. The notes on the page are used (found), which reinforces the
/// decaying ones.
pub(crate) fn search_notes(
    engine: &Engine,
    choice: &ProjectChoice,
    search_all_projects: bool,
    request: &SearchRequest,
) -> Result<ScopedSearch> {
    let all = search_all_projects && choice.project.is_none() && choice.project_id.is_none();
    let found = if all {
        let projects = crate::scope::visible_projects(&engine.store, choice)?;
        ScopedSearch {
            response: search_projects(engine, &projects, request)?,
            scope: SearchScope::AllProjects,
        }
    } else {
        let project = crate::scope::select_project(&engine.store, choice)?;
        ScopedSearch {
            response: search(engine, &project, request)?,
            scope: SearchScope::Project(project.name),
        }
    };
    let mut used: Vec<String> = found
        .response
        .results
        .iter()
        .map(|r| r.entity_id.clone())
        .collect();
    used.sort_unstable();
    used.dedup();
    crate::uses::record_uses(&engine.store.index, &used);
    Ok(found)
}

/// search_notes in one project.
pub(crate) fn search(
    engine: &Engine,
    project: &Project,
    request: &SearchRequest,
) -> Result<SearchResponse> {
    Ok(search_explained(engine, project, request, false)?.0)
}

/// search_notes in one project, with the rankings a ranked query fused when `explain`
/// (`None` for a query that is not ranked: boolean, title, permalink or filters only).
pub(crate) fn search_explained(
    engine: &Engine,
    project: &Project,
    request: &SearchRequest,
    explain: bool,
) -> Result<(SearchResponse, Option<Explanation>)> {
    if request.page < 1 {
        return Err(PageError::PageBelowOne(request.page as i64).into());
    }
    if request.page_size < 1 {
        return Err(PageError::SizeBelowOne(request.page_size as i64).into());
    }
    if !request.has_criteria() {
        return Err(QueryError::NoSearchCriteria.into());
    }
    let semantic = crate::models::chosen_model(&engine.store).is_some();
    let (mode, notice) = match request
        .search_type
        .as_deref()
        .map(str::to_lowercase)
        .as_deref()
    {
        None if semantic => (SearchMode::Hybrid, None),
        None | Some("text") => (SearchMode::Text, None),
        Some("title") => (SearchMode::Title, None),
        Some("permalink") => (SearchMode::Permalink, None),
        Some("vector" | "semantic") if semantic => (SearchMode::Vector, None),
        Some("hybrid") if semantic => (SearchMode::Hybrid, None),
        Some(kind @ ("vector" | "semantic" | "hybrid")) => (
            SearchMode::Text,
            Some(format!(
                "Semantic search is off (no model installed): this {kind} search ran as a text search. Turn it on with `gitmem model install SOURCE`."
            )),
        ),
        Some(_) => {
            return Err(QueryError::InvalidSearchType {
                given: request.search_type.clone().unwrap_or_default(),
                valid: SEARCH_TYPES,
            }
            .into());
        }
    };
    let mut request = request.clone();
    let raw = request.query.clone().unwrap_or_default();
    let (text, shorthand_tags) = extract_tags(raw.trim());
    request.tags.extend(shorthand_tags);
    let (mode, text) = match text.strip_prefix("memory://") {
        Some(path) => (SearchMode::Permalink, path.to_string()),
        None => (mode, text),
    };
    for t in &request.entity_types {
        if !["entity", "observation", "relation"].contains(&t.as_str()) {
            return Err(QueryError::InvalidEntityType(t.clone()).into());
        }
    }
    if let Some(filters) = &request.metadata_filters {
        validate_metadata_filters(filters)?;
    }
    if !request.sessions.is_empty() {
        // A session is a front matter value like any other, so it filters as one.
        request
            .metadata_filters
            .get_or_insert_with(Map::new)
            .insert(
                "session_id".into(),
                serde_json::json!({"$in": request.sessions}),
            );
    }
    let (mut response, explanation) = match mode {
        SearchMode::Permalink => (
            crate::search::permalinks::search_permalinks(
                &engine.store.index,
                project,
                &request,
                &text,
            )?,
            None,
        ),
        _ => search_text(engine, project, &request, &text, mode, explain)?,
    };
    response.notice = notice;
    Ok((response, explanation))
}

/// search_notes over several projects, merged by score.
pub(crate) fn search_projects(
    engine: &Engine,
    projects: &[Project],
    request: &SearchRequest,
) -> Result<SearchResponse> {
    let mut per_project = request.clone();
    per_project.page = 1;
    per_project.page_size = request.page * request.page_size;
    let mut rows = Vec::new();
    let mut total = 0;
    let mut exact = true;
    let mut notice = None;
    for project in projects {
        match search(engine, project, &per_project) {
            Ok(response) => {
                total += response.total;
                exact &= response.total_is_exact;
                notice = notice.or(response.notice);
                rows.extend(response.results.into_iter().map(|mut r| {
                    r.project = Some(project.name.clone());
                    r
                }));
            }
            Err(e) if e.is_user_error() => return Err(e),
            Err(e) => {
                tracing::warn!("search in project '{}' failed: {e}", project.name);
                exact = false;
            }
        }
    }
    rows.sort_by(|a, b| a.score.total_cmp(&b.score));
    let offset = (request.page - 1) * request.page_size;
    let results: Vec<_> = rows
        .into_iter()
        .skip(offset)
        .take(request.page_size)
        .collect();
    let mut response = SearchResponse::page(results, request, offset, total, exact);
    response.notice = notice;
    Ok(response)
}

fn entity_types(request: &SearchRequest) -> Vec<String> {
    if request.entity_types.is_empty() {
        vec![if request.categories.is_empty() {
            "entity"
        } else {
            "observation"
        }
        .to_string()]
    } else {
        request.entity_types.clone()
    }
}

/// Note ids of a project's soft-deleted, expired and superseded notes, which no search
/// shows unless `reveal` asks. Few notes are any of these, so the filter is usually empty
/// and costs nothing downstream.
pub(crate) fn hidden_notes(
    index: &Index,
    project: &Project,
    reveal: Reveal,
) -> Result<Vec<String>> {
    let now = Utc::now().timestamp_millis() as f64 / 1000.0;
    let mut hiding = vec![format!("expires <= {now}")];
    if !reveal.deleted {
        hiding.push("deleted = true".to_string());
    }
    if !reveal.superseded {
        hiding.push("superseded = true".to_string());
    }
    let hidden = index.search(&every_note_id(format!(
        "project = {} AND ({})",
        filter_literal(&project.name),
        hiding.join(" OR ")
    )))?;
    Ok(note_ids(&hidden).collect())
}

/// Note ids of a project whose front matter passes the metadata filters.
fn notes_matching_metadata(
    index: &Index,
    project: &Project,
    filters: &Map<String, Value>,
) -> Result<Vec<String>> {
    Ok(crate::notes::all_notes(index, project)?
        .into_iter()
        .filter(|n| metadata_matches(&n.metadata, filters))
        .map(|n| n.id)
        .collect())
}

fn search_text(
    engine: &Engine,
    project: &Project,
    request: &SearchRequest,
    text: &str,
    mode: SearchMode,
    explain: bool,
) -> Result<(SearchResponse, Option<Explanation>)> {
    let types = entity_types(request);
    let parts = PartsAsked::of(&types, &request.categories);
    // Categories are observations': a note has none of its own.
    let wants_notes = types.iter().any(|t| t == "entity") && request.categories.is_empty();
    let mut filters = vec![format!("project = {}", filter_literal(&project.name))];
    if !request.note_types.is_empty() {
        let canonical: Vec<String> = request
            .note_types
            .iter()
            .map(|t| normalize_note_type(t))
            .collect();
        filters.push(any_of("note_type", &canonical));
    }
    for tag in &request.tags {
        filters.push(format!("note_tags = {}", filter_literal(tag)));
    }
    if let Some(status) = &request.status {
        filters.push(format!("status = {}", filter_literal(status)));
    }
    if let Some(after) = request.after_date {
        filters.push(format!(
            "updated > {}",
            after.timestamp_millis() as f64 / 1000.0
        ));
    }
    let offset = (request.page - 1) * request.page_size;
    let empty = |request: &SearchRequest| SearchResponse {
        results: Vec::new(),
        current_page: request.page,
        page_size: request.page_size,
        total: 0,
        total_is_exact: true,
        has_more: false,
        notice: None,
    };
    if let Some(meta) = request.metadata_filters.as_ref().filter(|m| !m.is_empty()) {
        let ids = notes_matching_metadata(&engine.store.index, project, meta)?;
        if ids.is_empty() {
            return Ok((empty(request), None));
        }
        filters.push(any_of("note_id", &ids));
    }
    if let Some(ids) = &request.within {
        if ids.is_empty() {
            return Ok((empty(request), None));
        }
        filters.push(any_of("note_id", ids));
    }
    let hidden = hidden_notes(&engine.store.index, project, request.reveal)?;
    if !hidden.is_empty() {
        filters.push(format!("NOT {}", any_of("note_id", &hidden)));
    }
    let parsed = ParsedQuery::new(text);
    let text = parsed.text.as_str();
    // Notes and parts together are fused from the top of each: each is asked for the
    // whole window, and the page is cut after.
    let mixed = wants_notes && parts.is_some();
    let base = Query {
        text: text.to_string(),
        filter: Some(filters.join(" AND ")),
        offset: if mixed { 0 } else { offset },
        limit: if mixed {
            offset + request.page_size
        } else {
            request.page_size
        },
        matching: Matching::All,
        fields: (mode == SearchMode::Title).then(|| vec!["title".to_string()]),
        newest_first: text.is_empty(),
        load_only: None,
    };
    let notes = if wants_notes {
        let filtered = filters.len() > 1;
        Some(note_hits(
            engine,
            project,
            request,
            &base,
            &parsed,
            mode,
            (filtered, explain),
        )?)
    } else {
        None
    };
    let found_parts = match parts {
        Some(asked) => {
            let queries: Vec<(String, Matching)> = match &parsed.branches {
                Some(branches) => branches
                    .iter()
                    .map(|b| (b.clone(), Matching::All))
                    .collect(),
                None if mode != SearchMode::Title && !text.is_empty() => {
                    vec![(parsed.meaningful.clone(), Matching::MostSpecific)]
                }
                None => vec![(text.to_string(), Matching::All)],
            };
            Some(crate::search::parts::find_parts(
                &engine.store.index,
                &base,
                &queries,
                asked,
            )?)
        }
        None => None,
    };
    let page = |hits: Vec<Hit>| -> Vec<Hit> {
        hits.into_iter()
            .skip(offset)
            .take(request.page_size)
            .collect()
    };
    let (total, hits, exact, best_passages, explanation) = match (notes, found_parts) {
        (Some(notes), None) => (
            notes.total,
            notes.hits,
            notes.exact,
            notes.best_passages,
            notes.explanation,
        ),
        (None, Some(parts)) => (
            parts.total,
            parts.hits(offset, request.page_size),
            parts.exact,
            HashMap::new(),
            None,
        ),
        (Some(notes), Some(parts)) => {
            let ranking = |hits: &[Hit]| -> Ranking {
                hits.iter()
                    .map(|h| {
                        (
                            str_field(&h.doc, "id").unwrap_or_default().to_string(),
                            h.score,
                        )
                    })
                    .collect()
            };
            let part_hits = parts.hits(0, offset + request.page_size);
            let fused = ranked::rrf(&[&ranking(&notes.hits), &ranking(&part_hits)]);
            let mut by_id: HashMap<String, Hit> = notes
                .hits
                .into_iter()
                .chain(part_hits)
                .map(|h| (str_field(&h.doc, "id").unwrap_or_default().to_string(), h))
                .collect();
            let hits = fused
                .iter()
                .filter_map(|(id, _)| by_id.remove(id))
                .collect();
            (
                notes.total + parts.total,
                page(hits),
                notes.exact && parts.exact,
                notes.best_passages,
                None,
            )
        }
        (None, None) => return Ok((empty(request), None)),
    };
    let snap = engine.store.index.snapshot()?;
    let mut builder = ResultBuilder::new(&snap);
    let terms = &parsed.snippet_terms;
    let mut results = Vec::with_capacity(hits.len());
    for hit in &hits {
        let Some(mut row) = builder.hit_row(hit)? else {
            continue;
        };
        if row.kind == RowKind::Entity && !text.is_empty() {
            let body = str_field(&hit.doc, "content").unwrap_or_default();
            let passages = passages(&row.title, body);
            let best = best_passages
                .get(&row.external_id)
                .map(|&p| p as usize)
                .filter(|&p| p < passages.len())
                .or_else(|| best_matching(&passages, terms));
            row.matched_chunk = best
                .map(|i| passages[i].body.clone())
                .filter(|b| !b.is_empty());
        }
        results.push(row);
    }
    Ok((
        SearchResponse::page(results, request, offset, total, exact),
        explanation,
    ))
}

/// The notes a text query finds (`base` carries its filters and page): boolean branches
/// united, a natural-language query ranked, a title or empty query as milli orders it.
fn note_hits(
    engine: &Engine,
    project: &Project,
    request: &SearchRequest,
    base: &Query,
    parsed: &ParsedQuery,
    mode: SearchMode,
    (filtered, explain): (bool, bool),
) -> Result<NoteHits> {
    let text = parsed.text.as_str();
    let mut found = NoteHits {
        total: 0,
        hits: Vec::new(),
        exact: true,
        best_passages: HashMap::new(),
        explanation: None,
    };
    (found.total, found.hits) = match &parsed.branches {
        Some(branches) => search_union(&engine.store.index, base, branches)?,
        // Agents ask in sentences: rank by the meaningful words and let a note that lacks
        // one of them still be found, below the notes that have them all.
        None if mode != SearchMode::Title && !text.is_empty() => {
            let natural = Query {
                text: parsed.meaningful.clone(),
                matching: Matching::MostSpecific,
                ..base.clone()
            };
            let ranked = crate::search::ranked::search_ranked(
                engine,
                project,
                request,
                &natural,
                parsed,
                ranked::RankedRun {
                    mode,
                    filtered,
                    explain,
                },
            )?;
            found.exact = ranked.total_is_exact;
            found.best_passages = ranked.best_passages;
            found.explanation = ranked.explanation;
            (ranked.total, ranked.hits)
        }
        None => {
            let strict = engine.store.index.search(base)?;
            if strict.total == 0 && !text.is_empty() {
                match relaxed_terms(text) {
                    Some(terms) => search_union(&engine.store.index, base, &terms)?,
                    None => (0, Vec::new()),
                }
            } else {
                (strict.total, strict.hits)
            }
        }
    };
    Ok(found)
}

/// Documents matching any of `queries`, ranked by their best score in any of them. Taking
/// the top `offset + limit` of each query gives the exact top of the union, so pages are
/// consistent with each other.
fn search_union(index: &Index, base: &Query, queries: &[String]) -> Result<(u64, Vec<Hit>)> {
    let window = base.offset + base.limit;
    let mut merged: HashMap<String, Hit> = HashMap::new();
    let mut matching = roaring::RoaringBitmap::new();
    for text in queries {
        let q = Query {
            text: text.clone(),
            offset: 0,
            limit: window,
            ..base.clone()
        };
        let hits = index.search(&q)?;
        matching |= &hits.candidates;
        for hit in hits.hits {
            let id = str_field(&hit.doc, "id").unwrap_or_default().to_string();
            match merged.get(&id) {
                Some(best) if best.score >= hit.score => {}
                _ => {
                    merged.insert(id, hit);
                }
            }
        }
    }
    // Same order as milli's within each query (score, then internal id), so the top of the
    // union is exact.
    let mut ranked: Vec<Hit> = merged.into_values().collect();
    ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.docid.cmp(&b.docid)));
    let page = ranked
        .into_iter()
        .skip(base.offset)
        .take(base.limit)
        .collect();
    Ok((matching.len(), page))
}

/// A query for the note id of every document `filter` passes.
fn every_note_id(filter: String) -> Query {
    Query {
        text: String::new(),
        filter: Some(filter),
        offset: 0,
        limit: usize::MAX / 2,
        matching: Matching::All,
        fields: None,
        newest_first: false,
        load_only: Some(&["note_id"]),
    }
}

/// The note ids of `found`'s documents.
fn note_ids(found: &Hits) -> impl Iterator<Item = String> + '_ {
    found
        .hits
        .iter()
        .filter_map(|h| str_field(&h.doc, "note_id").map(String::from))
}
