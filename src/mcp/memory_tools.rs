//! The gitmem memory API (`serve --tools gitmem`): memory_save (and its alias
//! memory_create), memory_get, memory_update, memory_delete, memory_search,
//! memory_lookup_basic_id and memory_import_basic; dotted names (`memory.save`, ...) with
//! `--dotted-names`. Every answer is JSON.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::{self, ProjectArgs};
use super::tools::{answer, parse, schema_of, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec};
use crate::render;
use crate::service::memory::{MemoryPatch, MemoryQuery, MemorySort, NewMemory};

pub const TOOLS: &[ToolSpec] = &[
    MEMORY_SAVE,
    MEMORY_CREATE,
    MEMORY_GET,
    MEMORY_UPDATE,
    MEMORY_DELETE,
    MEMORY_SEARCH,
    MEMORY_LOOKUP_BASIC_ID,
    MEMORY_IMPORT_BASIC,
    super::crypto_tools::MEMORY_ENCRYPT,
    super::crypto_tools::MEMORY_DECRYPT,
];

const SAVE_DESCRIPTION: &str = "Save a new memory: a note in memories/ whose front matter keeps its id, type, tags, score, ttl (an ISO 8601 duration after which searches no longer show it), times, source and compat.basic_id. Returns the memory with its id.";

pub const MEMORY_SAVE: ToolSpec = ToolSpec {
    name: "memory_save",
    title: "Save Memory",
    description: SAVE_DESCRIPTION,
    hints: Hints::WRITES,
    schema: schema_of::<SaveArgs>,
    handler: memory_save,
    dotted: Some("memory.save"),
    icon: Icon::Notebook,
    output: None,
};

pub const MEMORY_CREATE: ToolSpec = ToolSpec {
    name: "memory_create",
    title: "Create Memory",
    description: "The same as memory_save.",
    hints: Hints::WRITES,
    schema: schema_of::<SaveArgs>,
    handler: memory_save,
    dotted: Some("memory.create"),
    icon: Icon::Notebook,
    output: None,
};

/// A Basic Memory id, top-level or under `compat`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
struct CompatArg {
    /// The note's Basic Memory permalink
    #[serde(default, deserialize_with = "args::string")]
    basic_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SaveArgs {
    /// What to remember (markdown)
    #[serde(deserialize_with = "args::required_string")]
    content: String,
    /// A title (default: the content's first line)
    #[serde(default, deserialize_with = "args::string")]
    title: Option<String>,
    /// The memory's type (default `memory`), e.g. fact, preference, event
    #[serde(default, rename = "type", deserialize_with = "args::string")]
    memory_type: Option<String>,
    /// Tags, as a list or comma-separated
    #[serde(default, deserialize_with = "args::string_list")]
    tags: Option<Vec<String>>,
    /// Importance from 0 to 1
    #[serde(default, deserialize_with = "args::float")]
    score: Option<f64>,
    /// Time to live, an ISO 8601 duration (P30D, PT12H)
    #[serde(default, deserialize_with = "args::string")]
    ttl: Option<String>,
    /// Where the memory comes from (default `memory_save`)
    #[serde(default, deserialize_with = "args::string")]
    source: Option<String>,
    /// The id to give it (default: derived from the content and its time)
    #[serde(default, deserialize_with = "args::string")]
    id: Option<String>,
    /// When it was created, RFC 3339 (default: now)
    #[serde(default, deserialize_with = "args::string")]
    created_at: Option<String>,
    /// The note's Basic Memory permalink
    #[serde(default, deserialize_with = "args::string")]
    basic_id: Option<String>,
    #[serde(default)]
    compat: Option<CompatArg>,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn memory_save(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: SaveArgs = tri!(parse(MEMORY_SAVE.name, raw));
    let new = NewMemory {
        id: a.id,
        title: a.title,
        content: a.content,
        memory_type: a.memory_type,
        tags: a.tags.unwrap_or_default(),
        score: a.score,
        ttl: a.ttl,
        source: a.source,
        basic_id: a.basic_id.or(a.compat.and_then(|c| c.basic_id)),
        created_at: a.created_at,
    };
    answer(
        MEMORY_SAVE.name,
        ctx.app.memory_save(&ctx.choice(&a.project), &new),
        render::memory::memory,
    )
}

#[derive(Debug, Deserialize, JsonSchema)]
struct IdArgs {
    /// The memory's id (or, for a note without one, its permalink)
    #[serde(deserialize_with = "args::required_string")]
    id: String,
    #[serde(flatten)]
    project: ProjectArgs,
}

pub const MEMORY_GET: ToolSpec = ToolSpec {
    name: "memory_get",
    title: "Get Memory",
    description: "A memory by its id, with its content and fields; soft-deleted and expired memories too (`deleted_at`, `expired` say so).",
    hints: Hints::READ_ONLY,
    schema: schema_of::<IdArgs>,
    handler: memory_get,
    dotted: Some("memory.get"),
    icon: Icon::Notebook,
    output: None,
};

fn memory_get(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: IdArgs = tri!(parse(MEMORY_GET.name, raw));
    answer(
        MEMORY_GET.name,
        ctx.app.memory_get(&ctx.choice(&a.project), &a.id),
        render::memory::memory,
    )
}

pub const MEMORY_UPDATE: ToolSpec = ToolSpec {
    name: "memory_update",
    title: "Update Memory",
    description: "Change a memory: only the fields given change; `null` clears score, ttl, source, basic_id, and `deleted_at: null` restores a soft-deleted memory. `updated_at` is set to now.",
    hints: Hints::WRITES.idempotent(true),
    schema: schema_of::<UpdateArgs>,
    handler: memory_update,
    dotted: Some("memory.update"),
    icon: Icon::Notebook,
    output: None,
};

/// A field that may be absent (leave it), `null` (clear it) or a value.
fn clearable<'de, D, T>(d: D) -> Result<Option<Option<T>>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Deserialize<'de>,
{
    Option::<T>::deserialize(d).map(Some)
}

#[derive(Debug, Deserialize, JsonSchema)]
struct UpdateArgs {
    /// The memory's id
    #[serde(deserialize_with = "args::required_string")]
    id: String,
    /// A new title
    #[serde(default, deserialize_with = "args::string")]
    title: Option<String>,
    /// New content (replaces the old)
    #[serde(default, deserialize_with = "args::string")]
    content: Option<String>,
    /// A new type
    #[serde(default, rename = "type", deserialize_with = "args::string")]
    memory_type: Option<String>,
    /// New tags (replace the old), as a list or comma-separated
    #[serde(default, deserialize_with = "args::string_list")]
    tags: Option<Vec<String>>,
    /// Importance from 0 to 1; null clears it
    #[serde(default, deserialize_with = "clearable")]
    #[schemars(with = "Option<f64>")]
    score: Option<Option<f64>>,
    /// Time to live, an ISO 8601 duration; null clears it
    #[serde(default, deserialize_with = "clearable")]
    #[schemars(with = "Option<String>")]
    ttl: Option<Option<String>>,
    /// Where the memory comes from; null clears it
    #[serde(default, deserialize_with = "clearable")]
    #[schemars(with = "Option<String>")]
    source: Option<Option<String>>,
    /// The Basic Memory permalink; null clears it
    #[serde(default, deserialize_with = "clearable")]
    #[schemars(with = "Option<String>")]
    basic_id: Option<Option<String>>,
    /// null restores a soft-deleted memory
    #[serde(default, deserialize_with = "clearable")]
    #[schemars(with = "Option<String>")]
    deleted_at: Option<Option<String>>,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn memory_update(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: UpdateArgs = tri!(parse(MEMORY_UPDATE.name, raw));
    let patch = MemoryPatch {
        title: a.title,
        content: a.content,
        memory_type: a.memory_type,
        tags: a.tags,
        score: a.score,
        ttl: a.ttl,
        source: a.source,
        basic_id: a.basic_id,
        deleted_at: a.deleted_at,
    };
    answer(
        MEMORY_UPDATE.name,
        ctx.app
            .memory_update(&ctx.choice(&a.project), &a.id, &patch),
        render::memory::memory,
    )
}

pub const MEMORY_DELETE: ToolSpec = ToolSpec {
    name: "memory_delete",
    title: "Delete Memory",
    description: "Delete a memory. Soft by default: `deleted_at` is set and searches hide it (memory_update with deleted_at: null brings it back). `hard: true` deletes its file.",
    hints: Hints::DESTRUCTIVE.idempotent(true),
    schema: schema_of::<DeleteArgs>,
    handler: memory_delete,
    dotted: Some("memory.delete"),
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
struct DeleteArgs {
    /// The memory's id
    #[serde(deserialize_with = "args::required_string")]
    id: String,
    /// Delete the file instead of marking it deleted
    #[serde(default, deserialize_with = "args::boolean")]
    hard: Option<bool>,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn memory_delete(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: DeleteArgs = tri!(parse(MEMORY_DELETE.name, raw));
    answer(
        MEMORY_DELETE.name,
        ctx.app
            .memory_delete(&ctx.choice(&a.project), &a.id, a.hard.unwrap_or(false)),
        render::memory::deleted,
    )
}

pub const MEMORY_SEARCH: ToolSpec = ToolSpec {
    name: "memory_search",
    title: "Search Memories",
    description: "Find memories by words (ranked like search_notes) and filters: type, tags (all must match), time_range on created_at, limit (default 10, at most 100) and offset, sort relevance | recency | score. Expired memories are never found; soft-deleted ones only with include_deleted.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<SearchArgs>,
    handler: memory_search,
    dotted: Some("memory.search"),
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Default, Deserialize, JsonSchema)]
struct TimeRange {
    /// Created at or after, RFC 3339
    #[serde(default, deserialize_with = "args::string")]
    from: Option<String>,
    /// Created at or before, RFC 3339
    #[serde(default, deserialize_with = "args::string")]
    to: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
struct SearchArgs {
    /// Words to look for (empty: every memory that passes the filters)
    #[serde(default, deserialize_with = "args::string")]
    query: Option<String>,
    /// Only these types, as a list or comma-separated
    #[serde(
        default,
        rename = "type",
        alias = "types",
        deserialize_with = "args::string_list"
    )]
    types: Option<Vec<String>>,
    /// Only memories with all these tags
    #[serde(default, deserialize_with = "args::string_list")]
    tags: Option<Vec<String>>,
    #[serde(default)]
    time_range: Option<TimeRange>,
    /// Results per page (default 10, at most 100)
    #[serde(default, deserialize_with = "args::int")]
    limit: Option<i64>,
    /// Results to skip
    #[serde(default, deserialize_with = "args::int")]
    offset: Option<i64>,
    /// relevance (default), recency or score
    #[serde(default, deserialize_with = "args::string")]
    sort: Option<String>,
    /// Also find soft-deleted memories
    #[serde(default, deserialize_with = "args::boolean")]
    include_deleted: Option<bool>,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn time_arg(
    field: &str,
    value: Option<&str>,
) -> Result<Option<chrono::DateTime<chrono::Utc>>, ToolReply> {
    value
        .map(|v| {
            chrono::DateTime::parse_from_rfc3339(v.trim())
                .map(|t| t.with_timezone(&chrono::Utc))
                .map_err(|_| {
                    ToolReply::Error(format!(
                        "Error calling tool 'memory_search': invalid argument 'time_range.{field}': expected an RFC 3339 time such as 2026-01-31T09:00:00Z, got '{v}'"
                    ))
                })
        })
        .transpose()
}

fn memory_search(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: SearchArgs = tri!(parse(MEMORY_SEARCH.name, raw));
    let sort = match a.sort.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => MemorySort::Relevance,
        Some(name) => match MemorySort::named(name) {
            Some(sort) => sort,
            None => {
                return ToolReply::Error(format!(
                    "Error calling tool 'memory_search': invalid argument 'sort': use relevance, recency or score, got '{name}'"
                ))
            }
        },
    };
    let range = a.time_range.unwrap_or_default();
    let non_negative = |field: &str, n: Option<i64>, default: i64| match n.unwrap_or(default) {
        n if n < 0 => Err(ToolReply::Error(format!(
            "Error calling tool 'memory_search': invalid argument '{field}': must be >= 0, got {n}"
        ))),
        n => Ok(n as usize),
    };
    let query = MemoryQuery {
        query: a.query,
        types: a.types.unwrap_or_default(),
        tags: a.tags.unwrap_or_default(),
        from: tri!(time_arg("from", range.from.as_deref())),
        to: tri!(time_arg("to", range.to.as_deref())),
        limit: tri!(non_negative("limit", a.limit, 10)),
        offset: tri!(non_negative("offset", a.offset, 0)),
        sort,
        include_deleted: a.include_deleted.unwrap_or(false),
    };
    answer(
        MEMORY_SEARCH.name,
        ctx.app.memory_search(&ctx.choice(&a.project), &query),
        render::memory::page,
    )
}

pub const MEMORY_LOOKUP_BASIC_ID: ToolSpec = ToolSpec {
    name: "memory_lookup_basic_id",
    title: "Look Up Basic Memory Id",
    description: "The memory imported from a Basic Memory note, by that note's permalink (its compat.basic_id); a Basic Memory note registered in place is found by its permalink.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<LookupArgs>,
    handler: memory_lookup_basic_id,
    dotted: Some("memory.lookupBasicId"),
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
struct LookupArgs {
    /// The Basic Memory permalink
    #[serde(alias = "basicId", deserialize_with = "args::required_string")]
    basic_id: String,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn memory_lookup_basic_id(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: LookupArgs = tri!(parse(MEMORY_LOOKUP_BASIC_ID.name, raw));
    answer(
        MEMORY_LOOKUP_BASIC_ID.name,
        ctx.app
            .memory_lookup_basic_id(&ctx.choice(&a.project), &a.basic_id),
        render::memory::memory,
    )
}

pub const MEMORY_IMPORT_BASIC: ToolSpec = ToolSpec {
    name: "memory_import_basic",
    title: "Import Basic Memory Notes",
    description: "Copy every note of a Basic Memory project directory into memories/ of this project: each keeps its permalink as compat.basic_id, its tags and times; map_types renames types ({\"note\": \"fact\"}). Ids are stable, so importing again adds nothing twice; existing notes are never overwritten. dry_run reports without writing.",
    hints: Hints::WRITES.idempotent(true),
    schema: schema_of::<ImportBasicArgs>,
    handler: memory_import_basic,
    dotted: Some("memory.import.basic"),
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
struct ImportBasicArgs {
    /// The Basic Memory project's directory
    #[serde(deserialize_with = "args::required_string")]
    path: String,
    /// Report what would be imported, write nothing
    #[serde(default, deserialize_with = "args::boolean")]
    dry_run: Option<bool>,
    /// Type renames, e.g. {"note": "fact"}
    #[serde(default, deserialize_with = "args::object")]
    map_types: Option<Map<String, Value>>,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn memory_import_basic(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ImportBasicArgs = tri!(parse(MEMORY_IMPORT_BASIC.name, raw));
    answer(
        MEMORY_IMPORT_BASIC.name,
        ctx.app.memory_import_basic(
            &ctx.choice(&a.project),
            std::path::Path::new(&a.path),
            a.dry_run.unwrap_or(false),
            &a.map_types.unwrap_or_default(),
        ),
        render::import::report_json,
    )
}
