//! search_notes text output (compat 2.8).

use crate::service::search::SearchResponse;

pub fn text(response: &SearchResponse, query: Option<&str>, project: &str) -> String {
    let query = query.map(str::trim).filter(|q| !q.is_empty());
    if response.results.is_empty() {
        return match query {
            Some(q) => format!(
                "No results found for '{q}' in project '{project}'. Try broader or different terms, or call recent_activity() to orient — if the project is empty it will guide creating a first note."
            ),
            None => format!("No results found in project '{project}'."),
        };
    }
    let mut out = match query {
        Some(q) => format!("# Search Results: {q}\n*project: {project}*\n"),
        None => format!("# Search Results\n*project: {project}*\n"),
    };
    for r in &response.results {
        out.push_str(&format!("\n### {}\n", r.title));
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
