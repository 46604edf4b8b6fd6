//! Tools that find and walk notes: search_notes, recent_activity, build_context,
//! list_directory, and the ChatGPT `search` / `fetch` pair.

use chrono::Utc;
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args::{self, FormatArgs, PageArgs, ProjectArgs};
use super::{
    answer, array, object, parse, schema_of, service_error, tri, Hints, Icon, ToolCtx, ToolReply,
    ToolSpec,
};
use engine::context::ContextRequest;
use engine::directory::DirectoryRequest;
use engine::error::QueryError;
use engine::search::{Boost, RowKind, SearchRequest};
use engine::timeframe::{parse_instant, Timeframe};
use engine::{Outcome, ServiceError, UserError};
use note::memory::Reveal;
use render::{self, Format, Rendered};

/// Most results one page of search_notes or build_context may hold: bounds one call's work.
const MAX_PAGE_SIZE: i64 = 1000;

pub const SEARCH_NOTES: ToolSpec = ToolSpec {
    name: "search_notes",
    title: "Search Notes",
    description: "Search notes, observations and relations by a question or keywords: hybrid (text and meaning) when an embedding model is installed, else full text; with filters (note_types, entity_types, categories, tags, status, after_date, metadata_filters), `tag:` shorthand, AND/OR/NOT, permalink patterns and pagination.",
    hints: Hints::SEARCHES,
    schema: schema_of::<SearchNotesArgs>,
    handler: search_notes,
    dotted: None,
    icon: Icon::Search,
    output: None,
};

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
    #[serde(flatten)]
    pub project: ProjectArgs,
    /// Search every project (when no project is given)
    #[serde(default, alias = "all_projects", deserialize_with = "args::boolean")]
    pub search_all_projects: Option<bool>,
    #[serde(flatten)]
    pub page: PageArgs,
    /// hybrid (default with a model), text (default without), vector / semantic, title, permalink
    #[serde(default, deserialize_with = "args::string")]
    pub search_type: Option<String>,
    #[serde(flatten)]
    pub format: FormatArgs,
    /// Note types (front matter `type`), any spelling
    #[serde(
        default,
        alias = "note_type",
        alias = "types",
        deserialize_with = "args::string_list"
    )]
    pub note_types: Option<Vec<String>>,
    /// entity, observation, relation (default entity)
    #[serde(default, alias = "entity_type", deserialize_with = "args::string_list")]
    pub entity_types: Option<Vec<String>>,
    /// Observation categories (implies entity_types=observation)
    #[serde(default, alias = "category", deserialize_with = "args::string_list")]
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
    pub metadata_filters: Option<Map<String, Value>>,
    /// Notes carrying all of these tags
    #[serde(default, deserialize_with = "args::string_list")]
    pub tags: Option<Vec<String>>,
    /// Front matter `status`
    #[serde(default, deserialize_with = "args::string")]
    pub status: Option<String>,
    /// Only notes of these sessions (front matter `session_id`); one id or a list
    #[serde(
        default,
        alias = "session_id",
        alias = "session",
        deserialize_with = "args::string_list"
    )]
    pub sessions: Option<Vec<String>>,
    /// Vector and hybrid search: drop notes whose best passage is less similar (cosine, -1..1)
    #[serde(
        default,
        alias = "threshold",
        alias = "similarity_threshold",
        deserialize_with = "args::float"
    )]
    pub min_similarity: Option<f64>,
    /// Also find notes a correction or a compaction superseded (hidden by default)
    #[serde(default, deserialize_with = "args::boolean")]
    pub include_superseded: Option<bool>,
    /// Maximal Marginal Relevance: let a distinct note past near-duplicates of better-ranked ones
    #[serde(default, alias = "mmr", deserialize_with = "args::boolean")]
    pub diversify: Option<bool>,
    /// Weigh the ranking of a worded search: "recency" (newer first, by a half-life of the
    /// note's type), "score" (front matter score, or a decaying memory's relevance), or both
    #[serde(default, deserialize_with = "args::string_list")]
    pub boost: Option<Vec<String>>,
}

fn search_notes(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = SEARCH_NOTES.name;
    let a: SearchNotesArgs = tri!(parse(TOOL, raw));
    let format = tri!(a.format.format(Format::Text));
    let (page, page_size) = tri!(a.page.checked(TOOL, 10, Some(MAX_PAGE_SIZE)));
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
        search_type: a.search_type,
        entity_types: a.entity_types.unwrap_or_default(),
        categories: a.categories.unwrap_or_default(),
        note_types: a.note_types.unwrap_or_default(),
        tags: a.tags.unwrap_or_default(),
        status: a.status,
        after_date,
        metadata_filters: a.metadata_filters,
        sessions: a.sessions.unwrap_or_default(),
        min_similarity: a.min_similarity,
        reveal: Reveal {
            superseded: a.include_superseded.unwrap_or(false),
            ..Reveal::default()
        },
        diversify: a.diversify.unwrap_or(false),
        boost: match Boost::named(&a.boost.unwrap_or_default()) {
            Ok(boost) => boost,
            Err(e) => return service_error(TOOL, e),
        },
        ..SearchRequest::default()
    };
    let all = a.search_all_projects.unwrap_or(false);
    match ctx.app.search_notes(&ctx.choice(&a.project), all, &request) {
        Err(e) if e.is_project_choice() => service_error(TOOL, e),
        result => {
            let notes = result.as_ref().map_or_else(
                |_| Vec::new(),
                |found| {
                    let mut notes: Vec<(String, String)> = Vec::new();
                    for row in &found.response.results {
                        if row.kind != RowKind::Entity {
                            continue;
                        }
                        if let Some(permalink) = &row.permalink {
                            notes.push((permalink.clone(), row.title.clone()));
                        }
                    }
                    notes
                },
            );
            ToolReply::from(render::search::answer(
                a.query.as_deref(),
                &result,
                page,
                page_size,
                format,
            ))
            .linking(notes)
        }
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

pub const RECENT_ACTIVITY: ToolSpec = ToolSpec {
    name: "recent_activity",
    title: "Recent Activity",
    description: "What changed recently in a project (or across projects when none is chosen): notes, observations or relations within a timeframe such as '7d', '2 weeks' or 'yesterday'.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<RecentActivityArgs>,
    handler: recent_activity,
    dotted: None,
    icon: Icon::Search,
    output: None,
};

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
    pub kind: Option<Vec<String>>,
    // Accepted as Basic Memory accepts it; recent activity has no depth to walk.
    #[allow(dead_code)]
    #[serde(default, deserialize_with = "args::int")]
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
    /// Group the items: "day" (UTC date of the update, newest first), "type" (note type) or
    /// "session" (front matter `session_id`, else a memory's `source.session`)
    #[serde(default, alias = "group", deserialize_with = "args::string")]
    pub group_by: Option<String>,
    #[serde(flatten)]
    pub page: PageArgs,
    #[serde(flatten)]
    pub project: ProjectArgs,
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn recent_activity(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = RECENT_ACTIVITY.name;
    let a: RecentActivityArgs = tri!(parse(TOOL, raw));
    let format = tri!(a.format.format(Format::Text));
    let (page, page_size) = tri!(a.page.checked(TOOL, 10, Some(100)));
    let tf = tri!(timeframe(TOOL, a.timeframe.as_deref()));
    let types = a.kind.unwrap_or_default();
    let since = tf.since(Utc::now());
    let group_by = a.group_by.as_deref().filter(|g| !g.trim().is_empty());
    let outcome = ctx.app.recent_activity_for(
        &ctx.choice(&a.project),
        &types,
        since,
        page,
        page_size,
        group_by,
    );
    answer(TOOL, outcome, |found| {
        render::activity::answer(found, &tf.label(), page, !types.is_empty(), format)
    })
}

pub const BUILD_CONTEXT: ToolSpec = ToolSpec {
    name: "build_context",
    title: "Build Context",
    description: "Load a note (memory:// URL, permalink or `folder/*` pattern) with its observations and the notes linked to it, up to `depth` links away.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<BuildContextArgs>,
    handler: build_context,
    dotted: None,
    icon: Icon::Search,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct BuildContextArgs {
    /// memory:// URL or path; `folder/*` for every note of a folder
    #[serde(
        alias = "uri",
        alias = "memory_url",
        deserialize_with = "args::required_string"
    )]
    pub url: String,
    #[serde(flatten)]
    pub project: ProjectArgs,
    /// How many links away to follow (default 1)
    #[serde(default, deserialize_with = "args::int")]
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
    #[serde(flatten)]
    pub page: PageArgs,
    /// Most related items per primary note (default 10)
    #[serde(default, alias = "max_results", deserialize_with = "args::int")]
    pub max_related: Option<i64>,
    /// Most tokens the answer may hold (about four characters a token, at most 16000):
    /// related rows, then content lines, then notes are left out to fit
    #[serde(default, deserialize_with = "args::int")]
    pub token_budget: Option<i64>,
    /// Also walk notes a correction or a compaction superseded (hidden by default)
    #[serde(default, deserialize_with = "args::boolean")]
    pub include_superseded: Option<bool>,
    /// "json" (default) or "text"
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn build_context(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = BUILD_CONTEXT.name;
    let a: BuildContextArgs = match parse(TOOL, raw) {
        Ok(a) => a,
        Err(_) if raw.get("depth").is_some_and(Value::is_string) => {
            return ToolReply::Error(format!(
                "Error calling tool '{TOOL}': Invalid depth parameter: '{}' is not a valid integer",
                raw["depth"].as_str().unwrap_or("")
            ))
        }
        Err(e) => return e,
    };
    let format = tri!(a.format.format(Format::Json));
    let (page, page_size) = tri!(a.page.checked(TOOL, 10, Some(MAX_PAGE_SIZE)));
    let budget = match a.token_budget {
        Some(n) if n < 1 => {
            return service_error(TOOL, QueryError::TokenBudgetBelowOne(n).into());
        }
        other => other.map(|n| n as usize),
    };
    let path = match note::memory_url::memory_url_path(&a.url) {
        Ok(p) => p,
        Err(e) => {
            return ToolReply::Error(format!(
                "1 validation error for call[{TOOL}]\nurl\n  Value error, {e}"
            ))
        }
    };
    let since = match a.timeframe.as_deref() {
        Some(t) => Some(tri!(timeframe(TOOL, Some(t))).since(Utc::now())),
        None => None,
    };
    let request = ContextRequest {
        uri: String::new(),
        depth: a.depth.unwrap_or(1).max(0) as usize,
        since,
        page,
        page_size,
        max_related: a.max_related.unwrap_or(10).max(0) as usize,
        include_superseded: a.include_superseded.unwrap_or(false),
        stop: Some(ctx.stop.clone()),
    };
    let outcome = ctx
        .app
        .build_context_at(&ctx.choice(&a.project), &path, request);
    let notes: Vec<(String, String)> = outcome.as_ref().map_or_else(
        |_| Vec::new(),
        |(_, context)| {
            let named = context.notes_named().into_iter();
            named.map(|(title, permalink)| (permalink, title)).collect()
        },
    );
    answer(TOOL, outcome, |(project, context)| match budget {
        Some(budget) => {
            render::context::within_budget(context.clone(), &project.name, budget, format)
        }
        None => Rendered::either(
            format,
            || render::context::text(context, &project.name),
            || render::context::json(context),
        ),
    })
    .linking(notes)
}

pub const LIST_DIRECTORY: ToolSpec = ToolSpec {
    name: "list_directory",
    title: "List Directory",
    description:
        "List folders and files of a project, with depth, a name glob, sorting and paging.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<ListDirectoryArgs>,
    handler: list_directory,
    dotted: None,
    icon: Icon::Search,
    output: None,
};

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
    #[serde(flatten)]
    pub page: PageArgs,
    #[serde(flatten)]
    pub format: FormatArgs,
    #[serde(flatten)]
    pub project: ProjectArgs,
}

fn list_directory(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = LIST_DIRECTORY.name;
    let a: ListDirectoryArgs = tri!(parse(TOOL, raw));
    let format = tri!(a.format.format(Format::Text));
    let (page, page_size) = tri!(a.page.checked(TOOL, 10, Some(200)));
    let request = DirectoryRequest {
        dir_name: a.dir_name.unwrap_or_else(|| "/".into()),
        depth: a.depth.unwrap_or(1).max(1) as usize,
        glob: a.file_name_glob,
        sort: a.sort,
        page,
        page_size,
    };
    match ctx.app.list_directory(&ctx.choice(&a.project), &request) {
        Err(ServiceError::User(UserError::OutsideProject(refusal))) => {
            render::directory::refused(&refusal).into()
        }
        outcome => answer(TOOL, outcome, |listing| {
            render::directory::answer(listing, &request, format)
        }),
    }
}

pub const SEARCH: ToolSpec = ToolSpec {
    name: "search",
    title: "Search Knowledge Base",
    description:
        "Search the knowledge base (ChatGPT connector format): returns ids, titles and urls.",
    hints: Hints::SEARCHES,
    schema: schema_of::<ChatGptSearchArgs>,
    handler: chatgpt_search,
    dotted: None,
    icon: Icon::Search,
    output: Some(search_results),
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ChatGptSearchArgs {
    #[serde(deserialize_with = "args::required_string")]
    pub query: String,
}

fn chatgpt_search(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ChatGptSearchArgs = tri!(parse(SEARCH.name, raw));
    let request = SearchRequest {
        query: Some(a.query.clone()),
        ..Default::default()
    };
    let result = ctx.app.search_notes(&ctx.choice_of(None), false, &request);
    match (result, ctx.public_url.as_deref()) {
        (Err(e), _) if e.is_project_choice() => service_error(SEARCH.name, e),
        (Ok(found), Some(base)) => render::chatgpt::openai_search(&found.response, base).into(),
        (Err(e), Some(_)) => service_error(SEARCH.name, e),
        (result, None) => {
            render::chatgpt::search(&a.query, &result.map(|found| found.response)).into()
        }
    }
}

pub const FETCH: ToolSpec = ToolSpec {
    name: "fetch",
    title: "Fetch Document",
    description: "Fetch a document by the id `search` returned (ChatGPT connector format).",
    hints: Hints::READ_ONLY,
    schema: schema_of::<ChatGptFetchArgs>,
    handler: chatgpt_fetch,
    dotted: None,
    icon: Icon::Search,
    output: Some(fetched),
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ChatGptFetchArgs {
    #[serde(deserialize_with = "args::required_string")]
    pub id: String,
}

fn chatgpt_fetch(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ChatGptFetchArgs = tri!(parse(FETCH.name, raw));
    let outcome = ctx.app.fetch_document(&ctx.choice_of(None), &a.id);
    match (outcome, ctx.public_url.as_deref()) {
        (Ok(Outcome::Done(file)), Some(base)) => {
            render::chatgpt::openai_fetch(&a.id, &file, base).into()
        }
        (Ok(Outcome::Refused(refusal)), Some(_)) => ToolReply::Error(format!(
            "Error calling tool '{}': {}",
            FETCH.name,
            render::chatgpt::refusal_text(&refusal)
        )),
        (Err(e), Some(_)) => service_error(FETCH.name, e),
        (outcome, None) => render::chatgpt::fetch(&a.id, &outcome).into(),
    }
}

/// Over stdio, Basic Memory's shims answer a list of one text item (wrapped in `result`).
fn shim_text() -> Value {
    object(json!({"result": array(object(json!({
        "type": {"const": "text"}, "text": {"type": "string"},
    })))}))
}

fn search_results(connector: bool) -> Value {
    if !connector {
        return shim_text();
    }
    object(json!({"results": array(object(json!({
        "id": {"type": "string"}, "title": {"type": "string"}, "url": {"type": "string"},
    })))}))
}

fn fetched(connector: bool) -> Value {
    if !connector {
        return shim_text();
    }
    object(json!({
        "id": {"type": "string"}, "title": {"type": "string"}, "text": {"type": "string"},
        "url": {"type": "string"}, "metadata": {"type": "object"},
    }))
}
