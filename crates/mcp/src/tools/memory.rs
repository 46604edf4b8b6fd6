//! The gitmem memory API (`serve --tools gitmem`): memory_save (and its alias
//! memory_create), memory_get, memory_update, memory_delete, memory_search,
//! memory_lookup_basic_id and memory_import_basic; dotted names (`memory.save`, ...) with
//! `--dotted-names`. Every answer is JSON; an error carries the specification's code in its
//! structured content (`{"error": {"code", "message"}}`, `render::memory::error_code`). Every
//! argument struct denies unknown fields, so a misspelt or misplaced field is refused, never
//! dropped.

use rmcp::schemars::{self, JsonSchema};
use serde::de::{self, Deserializer};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::{self, ProjectArgs};
use super::common::{arguments, invalid, json_answer};
use super::{schema_of, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec};
use engine::memory::{MemoryPatch, MemoryQuery, MemorySort, NewMemory};
use note::memory::{MemorySource, Reveal};
use render;

/// A field given both inside its object (`patch`, `filters`) and at the top level, as the
/// flat form of earlier clients has it: refused, since one would have to be dropped.
fn once<T>(
    tool: &str,
    object: &str,
    field: &str,
    inside: Option<T>,
    flat: Option<T>,
) -> Result<Option<T>, ToolReply> {
    match (inside, flat) {
        (Some(_), Some(_)) => Err(invalid(ToolReply::Error(format!(
            "Error calling tool '{tool}': `{field}` is given both in {object} and at the top level; give it once, in {object}"
        )))),
        (inside, flat) => Ok(inside.or(flat)),
    }
}

/// A `source`: an object `{agent, session, origin, app}`, or a string (its origin).
fn source<'de, D: Deserializer<'de>>(d: D) -> Result<Option<MemorySource>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(value) => MemorySource::parse(&value)
            .map(Some)
            .map_err(de::Error::custom),
    }
}

/// A `source` that `null` clears.
fn clearable_source<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<MemorySource>>, D::Error> {
    match Value::deserialize(d)? {
        Value::Null => Ok(Some(None)),
        value => MemorySource::parse(&value)
            .map(|s| Some(Some(s)))
            .map_err(de::Error::custom),
    }
}

const SAVE_DESCRIPTION: &str = "Save a new memory: a note in memories/ whose front matter keeps its id, type, tags, score, ttl (an ISO 8601 duration after which searches no longer show it), decay (a half-life: its relevance halves with every one since it was last updated, read or found), times, source and compat.basic_id. Returns the memory with its id.";

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

/// A Basic Memory id, top-level or under `compat`, and the memory's other names.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CompatArg {
    /// The note's Basic Memory permalink
    #[serde(default, deserialize_with = "args::string")]
    basic_id: Option<String>,
    /// Other names of the memory (front matter `aliases`; links find it by them)
    #[serde(default, deserialize_with = "args::string_list")]
    aliases: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
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
    /// A half-life, an ISO 8601 duration (P7D): the memory's relevance halves with every
    /// half-life since it was last updated, read or found
    #[serde(default, deserialize_with = "args::string")]
    decay: Option<String>,
    /// Where the memory comes from: {agent, session, origin, app}, or a string (its origin;
    /// default `memory_save`)
    #[serde(default, deserialize_with = "source")]
    #[schemars(with = "Option<Value>")]
    source: Option<MemorySource>,
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
    let a: SaveArgs = tri!(arguments(MEMORY_SAVE.name, raw));
    let compat = a.compat.unwrap_or_default();
    let new = NewMemory {
        id: a.id,
        title: a.title,
        content: a.content,
        memory_type: a.memory_type,
        tags: a.tags.unwrap_or_default(),
        score: a.score,
        ttl: a.ttl,
        decay: a.decay,
        source: a.source,
        basic_id: tri!(once(
            MEMORY_SAVE.name,
            "compat",
            "basic_id",
            compat.basic_id,
            a.basic_id
        )),
        aliases: compat.aliases.unwrap_or_default(),
        created_at: a.created_at,
        extra: Map::new(),
    };
    json_answer(
        MEMORY_SAVE.name,
        ctx.app.memory_save(&ctx.choice(&a.project), &new),
        render::memory::memory,
    )
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
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
    let a: IdArgs = tri!(arguments(MEMORY_GET.name, raw));
    json_answer(
        MEMORY_GET.name,
        ctx.app.memory_get(&ctx.choice(&a.project), &a.id),
        render::memory::memory,
    )
}

pub const MEMORY_UPDATE: ToolSpec = ToolSpec {
    name: "memory_update",
    title: "Update Memory",
    description: "Change a memory: `patch` holds the fields to change (title, content, tags, type, ttl, decay, score); only those change, and `null` clears ttl, decay or score. source, basic_id and deleted_at (null restores a soft-deleted memory) are given beside patch. `updated_at` is set to now and `version` goes up by one.",
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

/// The fields memory_update changes.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PatchArg {
    /// A new title
    #[serde(default, deserialize_with = "args::string")]
    title: Option<String>,
    /// New content (replaces the old)
    #[serde(default, deserialize_with = "args::string")]
    content: Option<String>,
    /// New tags (replace the old), as a list or comma-separated
    #[serde(default, deserialize_with = "args::string_list")]
    tags: Option<Vec<String>>,
    /// A new type
    #[serde(default, rename = "type", deserialize_with = "args::string")]
    memory_type: Option<String>,
    /// Time to live, an ISO 8601 duration; null clears it
    #[serde(default, deserialize_with = "clearable")]
    #[schemars(with = "Option<String>")]
    ttl: Option<Option<String>>,
    /// A half-life, an ISO 8601 duration; null clears it
    #[serde(default, deserialize_with = "clearable")]
    #[schemars(with = "Option<String>")]
    decay: Option<Option<String>>,
    /// Importance from 0 to 1; null clears it
    #[serde(default, deserialize_with = "clearable")]
    #[schemars(with = "Option<f64>")]
    score: Option<Option<f64>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpdateArgs {
    /// The memory's id
    #[serde(deserialize_with = "args::required_string")]
    id: String,
    /// The fields to change
    #[serde(default)]
    patch: Option<PatchArg>,
    /// A new title (the flat form: patch.title)
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
    /// A half-life, an ISO 8601 duration; null clears it
    #[serde(default, deserialize_with = "clearable")]
    #[schemars(with = "Option<String>")]
    decay: Option<Option<String>>,
    /// Where the memory comes from, {agent, session, origin, app} or a string; null clears it
    #[serde(default, deserialize_with = "clearable_source")]
    #[schemars(with = "Option<Value>")]
    source: Option<Option<MemorySource>>,
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
    let a: UpdateArgs = tri!(arguments(MEMORY_UPDATE.name, raw));
    let p = a.patch.unwrap_or_default();
    let field = |name, inside, flat| once(MEMORY_UPDATE.name, "patch", name, inside, flat);
    let patch = MemoryPatch {
        title: tri!(field("title", p.title, a.title)),
        content: tri!(field("content", p.content, a.content)),
        memory_type: tri!(field("type", p.memory_type, a.memory_type)),
        tags: tri!(once(MEMORY_UPDATE.name, "patch", "tags", p.tags, a.tags)),
        score: tri!(once(MEMORY_UPDATE.name, "patch", "score", p.score, a.score)),
        ttl: tri!(once(MEMORY_UPDATE.name, "patch", "ttl", p.ttl, a.ttl)),
        decay: tri!(once(MEMORY_UPDATE.name, "patch", "decay", p.decay, a.decay)),
        source: a.source,
        basic_id: a.basic_id,
        deleted_at: a.deleted_at,
    };
    json_answer(
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
#[serde(deny_unknown_fields)]
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
    let a: DeleteArgs = tri!(arguments(MEMORY_DELETE.name, raw));
    json_answer(
        MEMORY_DELETE.name,
        ctx.app
            .memory_delete(&ctx.choice(&a.project), &a.id, a.hard.unwrap_or(false)),
        render::memory::deleted,
    )
}

/// memory_search's page size when the call names none.
const DEFAULT_LIMIT: i64 = 50;

pub const MEMORY_SEARCH: ToolSpec = ToolSpec {
    name: "memory_search",
    title: "Search Memories",
    description: "Find memories by words (ranked like search_notes) and filters: {type, tags (all must match)}, time_range {from, to} on created_at, limit (default 50, at most 100) and offset, sort relevance | recency | score. Answers {items, total}, total counting the matches before paging. Expired memories are never found; soft-deleted ones only with include_deleted, superseded ones (corrected or compacted) only with include_superseded.",
    hints: Hints::SEARCHES,
    schema: schema_of::<SearchArgs>,
    handler: memory_search,
    dotted: Some("memory.search"),
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct TimeRange {
    /// Created at or after, RFC 3339
    #[serde(default, deserialize_with = "args::string")]
    from: Option<String>,
    /// Created at or before, RFC 3339
    #[serde(default, deserialize_with = "args::string")]
    to: Option<String>,
}

/// What memory_search keeps.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FiltersArg {
    /// Only these types, as a list or comma-separated
    #[serde(default, rename = "type", deserialize_with = "args::string_list")]
    types: Option<Vec<String>>,
    /// Only memories with all these tags
    #[serde(default, deserialize_with = "args::string_list")]
    tags: Option<Vec<String>>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchArgs {
    /// Words to look for (empty: every memory that passes the filters)
    #[serde(default, deserialize_with = "args::string")]
    query: Option<String>,
    /// Only memories of these types and with all these tags
    #[serde(default)]
    filters: Option<FiltersArg>,
    /// Only these types (the flat form: filters.type)
    #[serde(
        default,
        rename = "type",
        alias = "types",
        deserialize_with = "args::string_list"
    )]
    types: Option<Vec<String>>,
    /// Only memories with all these tags (the flat form: filters.tags)
    #[serde(default, deserialize_with = "args::string_list")]
    tags: Option<Vec<String>>,
    #[serde(default)]
    time_range: Option<TimeRange>,
    /// Results per page (default 50, at most 100)
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
    /// Also find memories a correction or a compaction superseded
    #[serde(default, deserialize_with = "args::boolean")]
    include_superseded: Option<bool>,
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
    let a: SearchArgs = tri!(arguments(MEMORY_SEARCH.name, raw));
    let filters = a.filters.unwrap_or_default();
    let field = |name, inside, flat| once(MEMORY_SEARCH.name, "filters", name, inside, flat);
    let types = tri!(field("type", filters.types, a.types));
    let tags = tri!(field("tags", filters.tags, a.tags));
    let sort = match a.sort.as_deref().map(str::trim).filter(|s| !s.is_empty()) {
        None => MemorySort::Relevance,
        Some(name) => match MemorySort::named(name) {
            Some(sort) => sort,
            None => {
                return invalid(ToolReply::Error(format!(
                    "Error calling tool 'memory_search': invalid argument 'sort': use relevance, recency or score, got '{name}'"
                )))
            }
        },
    };
    let range = a.time_range.unwrap_or_default();
    let non_negative = |field: &str, n: Option<i64>, default: i64| match n.unwrap_or(default) {
        n if n < 0 => Err(invalid(ToolReply::Error(format!(
            "Error calling tool 'memory_search': invalid argument '{field}': must be >= 0, got {n}"
        )))),
        n => Ok(n as usize),
    };
    let query = MemoryQuery {
        query: a.query,
        types: types.unwrap_or_default(),
        tags: tags.unwrap_or_default(),
        from: tri!(time_arg("from", range.from.as_deref()).map_err(invalid)),
        to: tri!(time_arg("to", range.to.as_deref()).map_err(invalid)),
        limit: tri!(non_negative("limit", a.limit, DEFAULT_LIMIT)),
        offset: tri!(non_negative("offset", a.offset, 0)),
        sort,
        reveal: Reveal {
            deleted: a.include_deleted.unwrap_or(false),
            superseded: a.include_superseded.unwrap_or(false),
        },
    };
    json_answer(
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
#[serde(deny_unknown_fields)]
struct LookupArgs {
    /// The Basic Memory permalink
    #[serde(alias = "basicId", deserialize_with = "args::required_string")]
    basic_id: String,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn memory_lookup_basic_id(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: LookupArgs = tri!(arguments(MEMORY_LOOKUP_BASIC_ID.name, raw));
    json_answer(
        MEMORY_LOOKUP_BASIC_ID.name,
        ctx.app
            .memory_lookup_basic_id(&ctx.choice(&a.project), &a.basic_id),
        render::memory::memory,
    )
}

pub const MEMORY_IMPORT_BASIC: ToolSpec = ToolSpec {
    name: "memory_import_basic",
    title: "Import Basic Memory Notes",
    description: "Copy Basic Memory's notes into memories/ of this project, from a Basic Memory project directory or an export of its notes (a .json file: an array of notes, or an object with one under notes; a .jsonl file: one note a line; each note {content, file_path, title, type, permalink, tags, created, modified, metadata}). Each keeps its permalink as compat.basic_id, its tags and times; map_types renames types ({\"note\": \"fact\"}). Ids are stable, so importing again adds nothing twice; existing notes are never overwritten; a bad line or note is reported by its line number and nothing is written. dry_run reports without writing.",
    hints: Hints::WRITES.idempotent(true),
    schema: schema_of::<ImportBasicArgs>,
    handler: memory_import_basic,
    dotted: Some("memory.import.basic"),
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ImportBasicArgs {
    /// A Basic Memory project's directory, or a .json or .jsonl export of its notes
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
    let a: ImportBasicArgs = tri!(arguments(MEMORY_IMPORT_BASIC.name, raw));
    json_answer(
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
