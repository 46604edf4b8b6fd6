//! search_notes text output (compat 2.8).

use crate::service::search::SearchResponse;

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

/// `# No Search Criteria` guidance.
pub fn no_criteria() -> String {
    "# No Search Criteria\n\nPlease provide at least one of: `query`, `metadata_filters`, `tags`, `status`, `note_types`, `entity_types`, `categories`, or `after_date`.".to_string()
}
