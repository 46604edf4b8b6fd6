//! The diagnostics family (`serve --tools diagnostics`): how the index sees a note, and why a
//! search ranked what it ranked. Read only; answers are JSON.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args;
use super::{
    answer, array, object, parse, schema_of, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec,
};
use render::{self, Format};

/// The most fused entries inspect_query shows.
const MAX_LIMIT: i64 = 100;

pub const INSPECT_NOTE: ToolSpec = ToolSpec {
    name: "inspect_note",
    title: "Inspect Note",
    description: "Show how the index sees a note: its search documents (the fields search reads), the passages it is cut into for embedding with each passage's checksum and whether a vector is stored, which model embedded it and when, and the file's checksum against the indexed ones (fresh or stale). The identifier is resolved as read_note resolves it.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<InspectNoteArgs>,
    handler: inspect_note,
    dotted: Some("diagnostics.inspect_note"),
    icon: Icon::Search,
    output: Some(note_output),
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct InspectNoteArgs {
    /// Note title, permalink, file path, memory:// URL or id
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    /// Project name (default: the default project)
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
}

fn inspect_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: InspectNoteArgs = tri!(parse(INSPECT_NOTE.name, raw));
    let outcome = ctx
        .app
        .inspect_note(&ctx.choice_of(a.project.as_deref()), &a.identifier);
    answer(INSPECT_NOTE.name, outcome, |o| {
        render::inspect::note(o, Format::Json)
    })
}

fn note_output(_: bool) -> Value {
    let text = json!({"type": ["string", "null"]});
    object(json!({
        "project": text,
        "id": text,
        "title": text,
        "permalink": text,
        "file_path": text,
        "checksums": object(json!({
            "file": text, "graph": text, "search_index": text, "vectors": text,
        })),
        "fresh": {"type": "boolean"},
        "search_documents": array(json!({"type": "object"})),
        "passages": array(json!({"type": "object"})),
        "vectors": {"type": "object"},
        "error": {"type": "string"},
        "message": {"type": "string"},
    }))
}

pub const INSPECT_QUERY: ToolSpec = ToolSpec {
    name: "inspect_query",
    title: "Inspect Query",
    description: "Show why search_notes ranked what it ranked for a query: each ranking it fused (names: title, aliases, tags and permalink; body: BM25; lexical: the two fused; vector, or why there is none), the top ten of each with its score, the fusion used, and the fused order, which is search_notes' order for the same query.",
    hints: Hints::SEARCHES,
    schema: schema_of::<InspectQueryArgs>,
    handler: inspect_query,
    dotted: Some("diagnostics.inspect_query"),
    icon: Icon::Search,
    output: Some(query_output),
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct InspectQueryArgs {
    /// The search text, as search_notes takes it
    #[serde(deserialize_with = "args::required_string")]
    pub query: String,
    /// Project name (default: the default project)
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    /// How many of the fused order to show (1-100, default 10)
    #[serde(default, deserialize_with = "args::int")]
    pub limit: Option<i64>,
}

fn inspect_query(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: InspectQueryArgs = tri!(parse(INSPECT_QUERY.name, raw));
    let limit = a.limit.unwrap_or(10);
    if !(1..=MAX_LIMIT).contains(&limit) {
        return ToolReply::Error(format!(
            "Error calling tool '{}': limit must be between 1 and {MAX_LIMIT}, got {limit}",
            INSPECT_QUERY.name
        ));
    }
    let outcome = ctx.app.inspect_query(
        &ctx.choice_of(a.project.as_deref()),
        &a.query,
        limit as usize,
    );
    answer(INSPECT_QUERY.name, outcome, |q| {
        render::inspect::query(q, Format::Json)
    })
}

fn query_output(_: bool) -> Value {
    let entries = array(json!({"type": "object"}));
    object(json!({
        "project": {"type": "string"},
        "query": {"type": "string"},
        "ranked": {"type": "boolean"},
        "mode": {"type": "string"},
        "rankings": {"type": "object"},
        "fusion": {"type": "object"},
        "fused": entries,
        "results": entries,
        "notice": {"type": ["string", "null"]},
    }))
}
