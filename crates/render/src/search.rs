//! search_notes text output (compat 2.8).

use serde_json::{json, Value};

use super::{iso_from_ms, Format, Output, Rendered, Stream};
use engine::error::QueryError;
use engine::oneshot::Searched;
use engine::search::{RowKind, ScopedSearch, SearchResponse, SearchResult, SearchScope};
use engine::{ServiceError, UserError};

/// A row of Basic Memory's `SearchResponse` (compat 6.5); absent fields are left out.
pub fn row_json(row: &SearchResult) -> Value {
    let mut v = json!({
        "title": row.title,
        "type": row.kind.as_str(),
        "score": row.score,
        "external_id": row.external_id,
        "file_path": row.file_path,
        "updated_at": iso_from_ms(row.updated_ms),
        "metadata": metadata(row),
        "entity_id": row.entity_id,
    });
    let optional = [
        ("entity", &row.entity),
        ("permalink", &row.permalink),
        ("content", &row.content),
        ("matched_chunk", &row.matched_chunk),
        ("observation_id", &row.observation_id),
        ("relation_id", &row.relation_id),
        ("category", &row.category),
        ("from_entity", &row.from_entity),
        ("to_entity", &row.to_entity),
        ("relation_type", &row.relation_type),
        ("project", &row.project),
    ];
    for (key, value) in optional {
        if let Some(value) = value {
            v[key] = json!(value);
        }
    }
    if let Some(size) = row.content_size {
        v["content_length"] = json!(size.length);
        v["content_truncated"] = json!(size.truncated);
    }
    v
}

/// A row's `metadata`: a note's type (and a linked note's source and tags), an
/// observation's tags (null when it has none), nothing for a relation.
fn metadata(row: &SearchResult) -> Value {
    match row.kind {
        RowKind::Entity => {
            let mut v = json!({ "note_type": row.note_type });
            if let Some(source) = &row.linked_source {
                v["source"] = source.clone();
                v["tags"] = json!(row.tags);
            }
            v
        }
        RowKind::Observation => json!({ "tags": (!row.tags.is_empty()).then_some(&row.tags) }),
        RowKind::Relation => json!({}),
    }
}

/// Basic Memory's `SearchResponse`.
pub fn response_json(response: &SearchResponse) -> Value {
    json!({
        "results": response.results.iter().map(row_json).collect::<Vec<_>>(),
        "current_page": response.current_page,
        "page_size": response.page_size,
        "total": response.total,
        "total_is_exact": response.total_is_exact,
        "has_more": response.has_more,
    })
}

pub fn text(
    response: &SearchResponse,
    query: Option<&str>,
    project: &str,
    all_projects: bool,
) -> String {
    let query = query.map(str::trim).filter(|q| !q.is_empty());
    let notice = response
        .notice
        .as_ref()
        .map(|n| format!("*{n}*\n\n"))
        .unwrap_or_default();
    if response.results.is_empty() {
        let hint = if all_projects {
            "or call list_memory_projects() to see what exists across your projects.".to_string()
        } else {
            "or call recent_activity() to orient — if the project is empty it will guide creating a first note.".to_string()
        };
        return match query {
            Some(q) => format!("{notice}No results found for '{q}' in project '{project}'. Try broader or different terms, {hint}"),
            None => format!("{notice}No results found in project '{project}'. Try other filters, {hint}"),
        };
    }
    let mut out = match query {
        Some(q) => format!("# Search Results: {q}\n*project: {project}*\n"),
        None => format!("# Search Results\n*project: {project}*\n"),
    };
    if let Some(n) = &response.notice {
        out.push_str(&format!("*{n}*\n"));
    }
    for r in &response.results {
        out.push_str(&format!("\n### {}\n", r.title));
        if let Some(p) = &r.project {
            out.push_str(&format!("- project: {p}\n"));
        }
        if let Some(permalink) = &r.permalink {
            out.push_str(&format!("- permalink: {permalink}\n"));
        }
        out.push_str(&format!("- external_id: {}\n", r.external_id));
        out.push_str(&format!("- score: {:.4}\n", r.score));
        if let Some(chunk) = &r.matched_chunk {
            let line: String = chunk.split_whitespace().collect::<Vec<_>>().join(" ");
            out.push_str(&format!(
                "- match: {}\n",
                truncate_chars(&line, MATCH_CHARS)
            ));
        }
    }
    out.push_str(&format!(
        "\n---\n*{} results | page {}, page_size {}{}*",
        response.results.len(),
        response.current_page,
        response.page_size,
        if response.has_more {
            " | more available"
        } else {
            ""
        }
    ));
    out
}

/// How much of the matched passage the text output shows (as upstream's `- match:` line).
const MATCH_CHARS: usize = 200;

fn truncate_chars(s: &str, n: usize) -> &str {
    s.char_indices().nth(n).map_or(s, |(i, _)| &s[..i])
}

/// `# No Search Criteria` guidance.
pub fn no_criteria() -> String {
    "# No Search Criteria\n\nPlease provide at least one of: `query`, `metadata_filters`, `tags`, `status`, `note_types`, `entity_types`, `categories`, or `after_date`.".to_string()
}

fn failed(format: Format, title: &str, body: String) -> Rendered {
    Rendered::either(
        format,
        || format!("# {title}\n\n{body}"),
        || json!({"results": [], "current_page": 1, "page_size": 10, "total": 0, "total_is_exact": true, "has_more": false, "error": body}),
    )
}

/// search_notes's answer, failures included: they are guidance for the agent, except a project
/// that cannot be chosen, which the caller reports as an error before calling this.
pub fn answer(
    query: Option<&str>,
    result: &Result<ScopedSearch, ServiceError>,
    page: usize,
    page_size: usize,
    format: Format,
) -> Rendered {
    let shown = query.unwrap_or("");
    match result {
        Ok(found) => {
            let (label, all) = match &found.scope {
                SearchScope::Project(name) => (name.as_str(), false),
                SearchScope::AllProjects => ("all projects", true),
            };
            Rendered::either(
                format,
                || text(&found.response, query, label, all),
                || response_json(&found.response),
            )
        }
        Err(ServiceError::User(UserError::Query(QueryError::NoSearchCriteria))) => {
            Rendered::either(
                format,
                no_criteria,
                || json!({"results": [], "current_page": page, "page_size": page_size, "total": 0, "total_is_exact": true, "has_more": false, "error": "NO_SEARCH_CRITERIA"}),
            )
        }
        Err(e @ ServiceError::User(UserError::Query(QueryError::InvalidSearchType { .. }))) => {
            failed(
                format,
                "Search Failed",
                format!("Error searching for '{shown}': {e}"),
            )
        }
        Err(e @ ServiceError::User(_)) => failed(
            format,
            "Search Failed - Invalid Syntax",
            format!("Error searching for '{shown}': {e}"),
        ),
        Err(e) => failed(
            format,
            "Search Failed - Server Error",
            format!("Error searching for '{shown}': {e}"),
        ),
    }
}

/// `gitmem search QUERY` in one project. At a terminal, a note first says when the project's
/// files have warnings, and when the model semantic search needs is being fetched.
pub fn command(searched: &Searched, query: &str, format: Format, at_terminal: bool) -> Output {
    let mut output = Output::default();
    if let Some(model) = searched.fetching.as_ref().filter(|_| at_terminal) {
        output.push(
            Stream::Stderr,
            format!(
                "note: fetching the model {model} in the background for semantic search; this search is lexical (`gitmem status` shows progress)\n"
            ),
        );
    }
    if searched.warnings > 0 && at_terminal {
        output.push(
            Stream::Stderr,
            format!(
                "note: {} files in '{}' have warnings; `gitmem status` lists them\n",
                searched.warnings, searched.project
            ),
        );
    }
    output.append(Output::either(
        format,
        || {
            format!(
                "{}\n",
                text(&searched.response, Some(query), &searched.project, false)
            )
        },
        || response_json(&searched.response),
    ));
    output
}
