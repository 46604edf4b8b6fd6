//! search_notes text output (compat 2.8).

use serde_json::json;

use super::{Format, Output, Rendered, Stream};
use crate::service::error::QueryError;
use crate::service::oneshot::Searched;
use crate::service::search::{ScopedSearch, SearchResponse, SearchScope};
use crate::service::{ServiceError, UserError};

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
                || serde_json::to_value(&found.response).unwrap_or_default(),
            )
        }
        Err(ServiceError::User(UserError::Query(QueryError::NoSearchCriteria))) => {
            Rendered::either(
                format,
                no_criteria,
                || json!({"results": [], "current_page": page, "page_size": page_size, "total": 0, "total_is_exact": true, "has_more": false, "error": "NO_SEARCH_CRITERIA"}),
            )
        }
        Err(e @ ServiceError::User(UserError::Query(QueryError::InvalidSearchType(_)))) => failed(
            format,
            "Search Failed",
            format!("Error searching for '{shown}': {e}"),
        ),
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
/// files have warnings.
pub fn command(searched: &Searched, query: &str, format: Format, at_terminal: bool) -> Output {
    let mut output = Output::default();
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
        || json!(searched.response),
    ));
    output
}
