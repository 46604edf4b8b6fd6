//! Tools that find and walk notes: search_notes, recent_activity, build_context,
//! list_directory, and the ChatGPT `search` / `fetch` pair.

use chrono::Utc;
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args;
use super::tools::{
    check_page, output_format, parse, service_error, tri, Format, ToolCtx, ToolReply,
};
use crate::render;
use crate::service::activity::activity_types;
use crate::service::context::ContextRequest;
use crate::service::directory::DirectoryRequest;
use crate::service::search::{SearchRequest, SEARCH_TYPES};
use crate::service::timeframe::{parse_instant, Timeframe};
use crate::service::ServiceError;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchNotesArgs {
    /// Words to find; supports AND / OR / NOT, "phrases", `tag:x`, and memory:// URLs
    #[serde(
        default,
        alias = "q",
        alias = "search",
        alias = "text",
        deserialize_with = "args::string"
    )]
    pub query: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project_id: Option<String>,
    /// Search every project (when no project is given)
    #[serde(default, alias = "all_projects", deserialize_with = "args::boolean")]
    pub search_all_projects: Option<bool>,
    #[serde(default, alias = "page_number", deserialize_with = "args::int")]
    #[schemars(with = "Option<i64>")]
    pub page: Option<i64>,
    #[serde(
        default,
        alias = "limit",
        alias = "per_page",
        deserialize_with = "args::int"
    )]
    #[schemars(with = "Option<i64>")]
    pub page_size: Option<i64>,
    /// text (default), title, permalink; vector / semantic / hybrid run as text search
    #[serde(default, deserialize_with = "args::string")]
    pub search_type: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub output_format: Option<String>,
    /// Note types (front matter `type`), any spelling
    #[serde(
        default,
        alias = "note_type",
        alias = "types",
        deserialize_with = "args::string_list"
    )]
    #[schemars(with = "Option<Vec<String>>")]
    pub note_types: Option<Vec<String>>,
    /// entity, observation, relation (default entity)
    #[serde(default, alias = "entity_type", deserialize_with = "args::string_list")]
    #[schemars(with = "Option<Vec<String>>")]
    pub entity_types: Option<Vec<String>>,
    /// Observation categories (implies entity_types=observation)
    #[serde(default, alias = "category", deserialize_with = "args::string_list")]
    #[schemars(with = "Option<Vec<String>>")]
    pub categories: Option<Vec<String>>,
    /// Only rows updated after this ("2d", "1 week", "2024-01-01")
    #[serde(
        default,
        alias = "since",
        alias = "after",
        alias = "from_date",
        deserialize_with = "args::string"
    )]
    pub after_date: Option<String>,
    /// Front matter filters: {"status": "active", "priority": {"$gte": 2}, "tags": ["a", "b"]}
    #[serde(default, deserialize_with = "args::object")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub metadata_filters: Option<Map<String, Value>>,
    /// Notes carrying all of these tags
    #[serde(default, deserialize_with = "args::string_list")]
    #[schemars(with = "Option<Vec<String>>")]
    pub tags: Option<Vec<String>>,
    /// Front matter `status`
    #[serde(default, deserialize_with = "args::string")]
    pub status: Option<String>,
    /// Accepted for compatibility; gitmem has no semantic search yet
    #[serde(
        default,
        alias = "threshold",
        alias = "similarity_threshold",
        deserialize_with = "args::float"
    )]
    #[schemars(with = "Option<f64>")]
    pub min_similarity: Option<f64>,
}

fn search_failed(format: Format, title: &str, body: String) -> ToolReply {
    match format {
        Format::Text => ToolReply::Text(format!("# {title}\n\n{body}")),
        Format::Json => ToolReply::Json(
            json!({"results": [], "current_page": 1, "page_size": 10, "total": 0, "total_is_exact": true, "has_more": false, "error": body}),
        ),
    }
}

pub fn search_notes(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "search_notes";
    let a: SearchNotesArgs = tri!(parse(TOOL, raw));
    let format = tri!(output_format(a.output_format.as_deref(), Format::Text));
    let (page, page_size) = tri!(check_page(TOOL, a.page, a.page_size, 10, None));
    let after_date = match a.after_date.as_deref().filter(|d| !d.trim().is_empty()) {
        Some(d) => match parse_instant(d, Utc::now()) {
            Ok(t) => Some(t),
            Err(e) => {
                return ToolReply::Error(format!(
                    "Error calling tool '{TOOL}': invalid after_date: {e}"
                ))
            }
        },
        None => None,
    };
    let request = SearchRequest {
        query: a.query.clone(),
        page,
        page_size,
        search_type: a.search_type.clone(),
        entity_types: a.entity_types.unwrap_or_default(),
        categories: a.categories.unwrap_or_default(),
        note_types: a.note_types.unwrap_or_default(),
        tags: a.tags.unwrap_or_default(),
        status: a.status,
        after_date,
        metadata_filters: a.metadata_filters,
    };
    let all =
        a.search_all_projects.unwrap_or(false) && a.project.is_none() && a.project_id.is_none();
    let (result, label) = if all {
        let projects = match &ctx.constrained {
            Some(c) => ctx.app.projects(Some(c)),
            None => ctx.app.projects(None),
        };
        match projects {
            Ok(projects) => (
                ctx.app.search_projects(&projects, &request),
                "all projects".to_string(),
            ),
            Err(e) => return service_error(TOOL, e),
        }
    } else {
        let project = tri!(ctx.project(TOOL, a.project.as_deref(), a.project_id.as_deref()));
        (ctx.app.search(&project, &request), project.name)
    };
    match result {
        Ok(response) => match format {
            Format::Text => ToolReply::Text(render::search::text(&response, a.query.as_deref(), &label, all)),
            Format::Json => ToolReply::Json(serde_json::to_value(&response).unwrap_or_default()),
        },
        Err(ServiceError::NoSearchCriteria) => match format {
            Format::Text => ToolReply::Text(render::search::no_criteria()),
            Format::Json => ToolReply::Json(json!({"results": [], "current_page": page, "page_size": page_size, "total": 0, "total_is_exact": true, "has_more": false, "error": "NO_SEARCH_CRITERIA"})),
        },
        Err(ServiceError::InvalidSearchType(kind)) => search_failed(
            format,
            "Search Failed",
            format!(
                "Error searching for '{}': Invalid search_type '{kind}'. Valid options: {SEARCH_TYPES}",
                a.query.as_deref().unwrap_or("")
            ),
        ),
        Err(e @ (ServiceError::Invalid(_) | ServiceError::Security(_))) => search_failed(
            format,
            "Search Failed - Invalid Syntax",
            format!("Error searching for '{}': {e}", a.query.as_deref().unwrap_or("")),
        ),
        Err(ServiceError::Config(e)) => service_error(TOOL, ServiceError::Config(e)),
        Err(e) => search_failed(format, "Search Failed - Server Error", format!("Error searching for '{}': {e}", a.query.as_deref().unwrap_or(""))),
    }
}

/// A timeframe argument: "7d", "1 week", "yesterday", ... (compat 5.5); the error is the
/// validation error upstream raises.
fn timeframe(tool: &str, raw: Option<&str>) -> Result<Timeframe, ToolReply> {
    Timeframe::parse(raw.unwrap_or("7d"), Utc::now()).map_err(|e| {
        ToolReply::Error(format!(
            "1 validation error for call[{tool}]\ntimeframe\n  Value error, {e}"
        ))
    })
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RecentActivityArgs {
    /// entity (default), observation, relation — one or several
    #[serde(
        default,
        rename = "type",
        alias = "types",
        alias = "kind",
        deserialize_with = "args::string_list"
    )]
    #[schemars(with = "Option<Vec<String>>")]
    pub kind: Option<Vec<String>>,
    #[serde(default, deserialize_with = "args::int")]
    #[schemars(with = "Option<i64>")]
    pub depth: Option<i64>,
    /// How far back: "7d" (default), "24h", "1 week", "yesterday", "2024-01-01"
    #[serde(
        default,
        alias = "since",
        alias = "time_range",
        alias = "lookback",
        deserialize_with = "args::string"
    )]
    pub timeframe: Option<String>,
    #[serde(default, alias = "page_number", deserialize_with = "args::int")]
    #[schemars(with = "Option<i64>")]
    pub page: Option<i64>,
    #[serde(
        default,
        alias = "limit",
        alias = "per_page",
        deserialize_with = "args::int"
    )]
    #[schemars(with = "Option<i64>")]
    pub page_size: Option<i64>,
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project_id: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub output_format: Option<String>,
}

pub fn recent_activity(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "recent_activity";
    let a: RecentActivityArgs = tri!(parse(TOOL, raw));
    let format = tri!(output_format(a.output_format.as_deref(), Format::Text));
    let (page, page_size) = tri!(check_page(TOOL, a.page, a.page_size, 10, Some(100)));
    let tf = tri!(timeframe(TOOL, a.timeframe.as_deref()));
    let requested_types = a.kind.clone().unwrap_or_default();
    let types = match activity_types(&requested_types) {
        Ok(t) => t,
        Err(e) => return service_error(TOOL, e),
    };
    let since = tf.since(Utc::now());
    let explicit = a.project.is_some() || a.project_id.is_some() || ctx.constrained.is_some();
    let project = if explicit {
        match ctx.project(TOOL, a.project.as_deref(), a.project_id.as_deref()) {
            Ok(p) => Some(p),
            Err(e) => return e,
        }
    } else {
        ctx.app.project(None).ok()
    };
    let Some(project) = project else {
        // Discovery mode: no default project, so look everywhere.
        let mut per_project = Vec::new();
        for p in ctx.app.projects(None).unwrap_or_default() {
            match ctx.app.recent_activity(&p, &types, since, 1, page_size) {
                Ok(activity) => per_project.push((p.name.clone(), activity.items)),
                Err(e) => return service_error(TOOL, e),
            }
        }
        return match format {
            Format::Text => {
                ToolReply::Text(render::activity::discovery_text(&tf.label(), &per_project))
            }
            Format::Json => ToolReply::Json(Value::Array(
                per_project
                    .into_iter()
                    .flat_map(|(name, items)| {
                        items.into_iter().map(move |mut i| {
                            i.project = Some(name.clone());
                            serde_json::to_value(i).unwrap_or_default()
                        })
                    })
                    .collect(),
            )),
        };
    };
    match ctx
        .app
        .recent_activity(&project, &types, since, page, page_size)
    {
        Ok(activity) => match format {
            Format::Text => ToolReply::Text(render::activity::project_text(
                &project.name,
                &project.external_id(),
                &tf.label(),
                &activity.items,
                page,
                activity.has_more,
                !requested_types.is_empty(),
            )),
            Format::Json => {
                ToolReply::Json(serde_json::to_value(&activity.items).unwrap_or_default())
            }
        },
        Err(e) => service_error(TOOL, e),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BuildContextArgs {
    /// memory:// URL or path; `folder/*` for every note of a folder
    #[serde(
        alias = "uri",
        alias = "memory_url",
        deserialize_with = "args::required_string"
    )]
    pub url: String,
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project_id: Option<String>,
    /// How many links away to follow (default 1)
    #[serde(default, deserialize_with = "args::int")]
    #[schemars(with = "Option<i64>")]
    pub depth: Option<i64>,
    /// Only related notes changed within this window ("7d", "1 week", ...)
    #[serde(
        default,
        alias = "since",
        alias = "time_range",
        alias = "lookback",
        deserialize_with = "args::string"
    )]
    pub timeframe: Option<String>,
    #[serde(default, alias = "page_number", deserialize_with = "args::int")]
    #[schemars(with = "Option<i64>")]
    pub page: Option<i64>,
    #[serde(
        default,
        alias = "limit",
        alias = "per_page",
        deserialize_with = "args::int"
    )]
    #[schemars(with = "Option<i64>")]
    pub page_size: Option<i64>,
    /// Most related items per primary note (default 10)
    #[serde(default, alias = "max_results", deserialize_with = "args::int")]
    #[schemars(with = "Option<i64>")]
    pub max_related: Option<i64>,
    /// "json" (default) or "text"
    #[serde(default, deserialize_with = "args::string")]
    pub output_format: Option<String>,
}

pub fn build_context(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "build_context";
    let depth_raw = raw.get("depth").cloned();
    let a: BuildContextArgs =
        match parse(TOOL, raw) {
            Ok(a) => a,
            Err(_) if depth_raw.as_ref().is_some_and(|d| d.is_string()) => {
                return ToolReply::Error(format!(
                "Error calling tool '{TOOL}': Invalid depth parameter: {} is not a valid integer",
                depth_raw.map(|d| format!("'{}'", d.as_str().unwrap_or(""))).unwrap_or_default()
            ))
            }
            Err(e) => return e,
        };
    let format = tri!(output_format(a.output_format.as_deref(), Format::Json));
    let (page, page_size) = tri!(check_page(TOOL, a.page, a.page_size, 10, None));
    let path = match crate::note::memory_url::memory_url_path(&a.url) {
        Ok(p) => p,
        Err(e) => {
            return ToolReply::Error(format!(
                "1 validation error for call[{TOOL}]\nurl\n  Value error, {e}"
            ))
        }
    };
    let since = match a.timeframe.as_deref() {
        Some(t) => match timeframe(TOOL, Some(t)) {
            Ok(tf) => Some(tf.since(Utc::now())),
            Err(e) => return e,
        },
        None => None,
    };
    let project =
        tri!(ctx.project_for_url(TOOL, &path, a.project.as_deref(), a.project_id.as_deref()));
    let include = ctx.app.config().compat.permalinks_include_project;
    let uri = if include
        && !(path == project.permalink || path.starts_with(&format!("{}/", project.permalink)))
    {
        format!("{}/{path}", project.permalink)
    } else {
        path
    };
    let request = ContextRequest {
        uri,
        depth: a.depth.unwrap_or(1).max(0) as usize,
        since,
        page,
        page_size,
        max_related: a.max_related.unwrap_or(10).max(0) as usize,
    };
    match ctx.app.build_context(&project, &request) {
        Ok(context) => match format {
            Format::Json => ToolReply::Json(context.json),
            Format::Text => ToolReply::Text(render::context::text(&context, &project.name)),
        },
        Err(e) => service_error(TOOL, e),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListDirectoryArgs {
    /// Folder to list ("/" = project root)
    #[serde(
        default,
        alias = "directory",
        alias = "folder",
        alias = "path",
        alias = "dir",
        deserialize_with = "args::string"
    )]
    pub dir_name: Option<String>,
    /// Levels below dir_name to include (default 1)
    #[serde(default, deserialize_with = "args::int")]
    #[schemars(with = "Option<i64>")]
    pub depth: Option<i64>,
    /// Shell pattern on names, e.g. "*.md"
    #[serde(
        default,
        alias = "glob",
        alias = "pattern",
        alias = "filter",
        deserialize_with = "args::string"
    )]
    pub file_name_glob: Option<String>,
    /// title_asc, title_desc, updated_asc, updated_desc
    #[serde(default, deserialize_with = "args::string")]
    pub sort: Option<String>,
    #[serde(default, alias = "page_number", deserialize_with = "args::int")]
    #[schemars(with = "Option<i64>")]
    pub page: Option<i64>,
    #[serde(
        default,
        alias = "limit",
        alias = "per_page",
        deserialize_with = "args::int"
    )]
    #[schemars(with = "Option<i64>")]
    pub page_size: Option<i64>,
    #[serde(default, deserialize_with = "args::string")]
    pub output_format: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project_id: Option<String>,
}

pub fn list_directory(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "list_directory";
    let a: ListDirectoryArgs = tri!(parse(TOOL, raw));
    let format = tri!(output_format(a.output_format.as_deref(), Format::Text));
    let (page, page_size) = tri!(check_page(TOOL, a.page, a.page_size, 10, Some(200)));
    let project = tri!(ctx.project(TOOL, a.project.as_deref(), a.project_id.as_deref()));
    let request = DirectoryRequest {
        dir_name: a.dir_name.unwrap_or_else(|| "/".into()),
        depth: a.depth.unwrap_or(1).max(1) as usize,
        glob: a.file_name_glob,
        sort: a.sort,
        page,
        page_size,
    };
    match ctx.app.list_directory(&project, &request) {
        Ok(listing) => match format {
            Format::Text => ToolReply::Text(render::directory::text(&listing, &request)),
            Format::Json => ToolReply::Json(serde_json::to_value(&listing).unwrap_or_default()),
        },
        Err(ServiceError::Security(m)) => ToolReply::Text(format!("# Error\n\n{m}")),
        Err(e) => service_error(TOOL, e),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ChatGptSearchArgs {
    #[serde(deserialize_with = "args::required_string")]
    pub query: String,
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ChatGptFetchArgs {
    #[serde(deserialize_with = "args::required_string")]
    pub id: String,
}

/// ChatGPT's connector format: a list holding one text item whose text is the JSON payload
/// (compat 2.17); the payload uses `", "` and `": "` separators like Python's json.dumps.
fn chatgpt_payload(payload: Value) -> ToolReply {
    let inner = python_json(&payload);
    ToolReply::Json(json!([{"type": "text", "text": inner}]))
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

pub fn chatgpt_search(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "search";
    let a: ChatGptSearchArgs = tri!(parse(TOOL, raw));
    let project = tri!(ctx.project(TOOL, None, None));
    let request = SearchRequest {
        query: Some(a.query.clone()),
        ..Default::default()
    };
    match ctx.app.search(&project, &request) {
        Ok(response) => chatgpt_payload(json!({
            "results": response.results.iter().enumerate().map(|(i, r)| json!({
                "id": r.permalink.clone().unwrap_or_else(|| format!("doc-{i}")),
                "title": if r.title.is_empty() { "Untitled".to_string() } else { r.title.clone() },
                "url": r.permalink.clone().unwrap_or_default(),
            })).collect::<Vec<_>>(),
            "total_count": response.total,
            "query": a.query,
        })),
        Err(ServiceError::NoSearchCriteria) => {
            chatgpt_payload(json!({"results": [], "total_count": 0, "query": a.query}))
        }
        Err(e) => {
            let details: String = e.to_string().chars().take(500).collect();
            chatgpt_payload(
                json!({"results": [], "error": "Search failed", "error_details": details}),
            )
        }
    }
}

pub fn chatgpt_fetch(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "fetch";
    let a: ChatGptFetchArgs = tri!(parse(TOOL, raw));
    let identifier = if a.id.contains('/') && !a.id.starts_with("memory://") {
        format!("memory://{}", a.id)
    } else {
        a.id.clone()
    };
    let mut read = Map::new();
    read.insert("identifier".into(), json!(identifier));
    let reply = super::note_tools::read_note(ctx, &read);
    let text = match reply {
        ToolReply::Text(t) => t,
        other => {
            return chatgpt_payload(json!({
                "id": a.id, "title": "Fetch Error", "text": format!("Failed to fetch document: {}", other.text()),
                "url": a.id, "metadata": {"error": "Fetch failed"},
            }))
        }
    };
    if text.contains("# Note Not Found") {
        return chatgpt_payload(json!({
            "id": a.id, "title": "Document Not Found", "text": text, "url": a.id,
            "metadata": {"error": "Document not found"},
        }));
    }
    let title = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("# "))
        .map(String::from)
        .unwrap_or_else(|| {
            let last = a.id.rsplit('/').next().unwrap_or(&a.id).replace('-', " ");
            last.split(' ')
                .map(render::notes::capitalize)
                .collect::<Vec<_>>()
                .join(" ")
        });
    chatgpt_payload(
        json!({"id": a.id, "title": title, "text": text, "url": a.id, "metadata": {"format": "markdown"}}),
    )
}
