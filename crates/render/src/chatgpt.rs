//! The ChatGPT connector's `search` and `fetch` (compat 2.17): a list holding one text item
//! whose text is the JSON payload, with Python's `", "` and `": "` separators.

use serde_json::{json, Value};

use super::notes::{capitalize, not_found_text};
use super::Rendered;
use engine::error::QueryError;
use engine::notes::NoteFile;
use engine::read::ReadRefusal;
use engine::search::SearchResponse;
use engine::{Outcome, ServiceError, UserError};

fn payload(inner: Value) -> Rendered {
    Rendered::Json(json!([{"type": "text", "text": python_json(&inner)}]))
}

/// JSON text with Python's default separators and unescaped non-ASCII.
fn python_json(v: &Value) -> String {
    match v {
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!(
                    "{}: {}",
                    serde_json::to_string(k).unwrap_or_default(),
                    python_json(v)
                ))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(python_json).collect::<Vec<_>>().join(", ")
        ),
        other => serde_json::to_string(other).unwrap_or_default(),
    }
}

/// `search`: ids (permalinks), titles and urls; a failure is reported inside the payload.
pub fn search(query: &str, result: &Result<SearchResponse, ServiceError>) -> Rendered {
    match result {
        Ok(response) => payload(json!({
            "results": response.results.iter().enumerate().map(|(i, r)| json!({
                "id": r.permalink.clone().unwrap_or_else(|| format!("doc-{i}")),
                "title": if r.title.is_empty() { "Untitled".to_string() } else { r.title.clone() },
                "url": r.permalink.clone().unwrap_or_default(),
            })).collect::<Vec<_>>(),
            "total_count": response.total,
            "query": query,
        })),
        Err(ServiceError::User(UserError::Query(QueryError::NoSearchCriteria))) => {
            payload(json!({"results": [], "total_count": 0, "query": query}))
        }
        Err(e) => {
            let details: String = e.to_string().chars().take(500).collect();
            payload(json!({"results": [], "error": "Search failed", "error_details": details}))
        }
    }
}

/// The link of a note over HTTP: `<base>/notes/<permalink>` (`GET` serves its markdown).
pub fn note_url(base: &str, permalink: &str) -> String {
    format!("{}/notes/{}", base.trim_end_matches('/'), permalink)
}

/// `search` over HTTP, OpenAI's shape exactly: `{"results": [{id, title, url}]}`, the url a
/// real link.
pub fn openai_search(response: &SearchResponse, base: &str) -> Rendered {
    Rendered::Json(json!({
        "results": response.results.iter().filter_map(|r| {
            let permalink = r.permalink.as_deref()?;
            Some(json!({
                "id": permalink,
                "title": if r.title.is_empty() { "Untitled" } else { r.title.as_str() },
                "url": note_url(base, permalink),
            }))
        }).collect::<Vec<_>>(),
    }))
}

/// `fetch` over HTTP, OpenAI's shape exactly: `{id, title, text, url, metadata}`.
pub fn openai_fetch(id: &str, file: &NoteFile, base: &str) -> Rendered {
    Rendered::Json(json!({
        "id": id,
        "title": file.note.title,
        "text": file.text,
        "url": note_url(base, file.note.permalink.as_deref().unwrap_or(id)),
        "metadata": {"format": "markdown", "file_path": file.note.path},
    }))
}

/// Why a fetch found nothing, in a sentence.
pub fn refusal_text(refusal: &ReadRefusal) -> String {
    match refusal {
        ReadRefusal::NotFound { identifier, .. } => format!("Document not found: {identifier}"),
        ReadRefusal::OutsideProject(refusal) => refusal.to_string(),
    }
}

/// `fetch`: the document's markdown, titled by its first `# ` line (else by its id).
pub fn fetch(id: &str, result: &Result<Outcome<NoteFile, ReadRefusal>, ServiceError>) -> Rendered {
    let failed = |text: String| {
        payload(json!({
            "id": id, "title": "Fetch Error", "text": format!("Failed to fetch document: {text}"),
            "url": id, "metadata": {"error": "Fetch failed"},
        }))
    };
    match result {
        Ok(Outcome::Done(file)) => {
            let title = file
                .text
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("# "))
                .map(String::from)
                .unwrap_or_else(|| {
                    let last = id.rsplit('/').next().unwrap_or(id).replace('-', " ");
                    last.split(' ')
                        .map(capitalize)
                        .collect::<Vec<_>>()
                        .join(" ")
                });
            payload(json!({
                "id": id, "title": title, "text": file.text, "url": id,
                "metadata": {"format": "markdown"},
            }))
        }
        Ok(Outcome::Refused(ReadRefusal::NotFound {
            project,
            identifier,
            related,
        })) => payload(json!({
            "id": id, "title": "Document Not Found", "text": not_found_text(project, identifier, related),
            "url": id, "metadata": {"error": "Document not found"},
        })),
        Ok(Outcome::Refused(ReadRefusal::OutsideProject(refusal))) => failed(refusal.to_string()),
        Err(e) => failed(format!("Error calling tool 'fetch': {e}")),
    }
}
