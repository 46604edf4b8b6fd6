//! The gitmem family's tools for memories that age: memory_prune (soft-delete the decaying
//! memories whose relevance fell below a threshold) and memory_compact (fold old, low-value
//! memories into one summary note). Answers are JSON, errors carry the memory API's codes.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::{self, ProjectArgs};
use super::common::{arguments, json_answer};
use super::{schema_of, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec};
use engine::compact::CompactRequest;
use engine::decay::PruneRequest;

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct PruneArgs {
    /// Prune decaying memories whose relevance is below this (0 to 1; default 0.1)
    #[serde(default, deserialize_with = "args::float")]
    threshold: Option<f64>,
    /// List what would be pruned; change nothing
    #[serde(default, deserialize_with = "args::boolean")]
    dry_run: Option<bool>,
    /// Delete the files instead of soft-deleting (deleted_at)
    #[serde(default, deserialize_with = "args::boolean")]
    hard: Option<bool>,
    #[serde(flatten)]
    project: ProjectArgs,
}

pub const MEMORY_PRUNE: ToolSpec = ToolSpec {
    name: "memory_prune",
    title: "Prune Decayed Memories",
    description: "Soft-delete every decaying memory (front matter `decay`, a half-life) whose relevance (score, default 1, halved every half-life since it was last updated, read or found) fell below `threshold` (default 0.1): its file is kept, searches hide it. `dry_run` lists what would go; only `hard` deletes files. Memories without `decay` are never pruned. Answers each memory with its relevance and what was done.",
    hints: Hints::DESTRUCTIVE,
    schema: schema_of::<PruneArgs>,
    handler: memory_prune,
    dotted: Some("memory.prune"),
    icon: Icon::Notebook,
    output: None,
};

fn memory_prune(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: PruneArgs = tri!(arguments(MEMORY_PRUNE.name, raw));
    let request = PruneRequest {
        threshold: a.threshold,
        dry_run: a.dry_run.unwrap_or(false),
        hard: a.hard.unwrap_or(false),
    };
    json_answer(
        MEMORY_PRUNE.name,
        ctx.app.memory_prune(&ctx.choice(&a.project), &request),
        render::decay::prune_json,
    )
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CompactArgs {
    /// Fold memories not updated, read or found for this long: an ISO 8601 duration (P30D)
    /// or 30d, 12h, 2w
    #[serde(deserialize_with = "args::required_string")]
    older_than: String,
    /// Fold only memories whose importance (score, or a decaying memory's relevance) is at
    /// most this (0 to 1; default 0.5)
    #[serde(default, deserialize_with = "args::float")]
    max_score: Option<f64>,
    /// List what would be folded; change nothing
    #[serde(default, deserialize_with = "args::boolean")]
    dry_run: Option<bool>,
    #[serde(flatten)]
    project: ProjectArgs,
}

pub const MEMORY_COMPACT: ToolSpec = ToolSpec {
    name: "memory_compact",
    title: "Compact Old Memories",
    description: "Fold old, low-value memories into one new summary note (compacted/<date>-summary) that lists each as a [[link]] with its title and first line. Folded: memories not updated, read or found for `older_than`, of importance (score, default 1, or a decaying memory's relevance) at most `max_score` (default 0.5), not pinned and not a decision, preference or fact. Each original is kept, tagged `compacted` and marked `superseded_by` the summary, which hides it by default; no file is deleted. `dry_run` lists them and changes nothing.",
    hints: Hints::WRITES,
    schema: schema_of::<CompactArgs>,
    handler: memory_compact,
    dotted: Some("memory.compact"),
    icon: Icon::Notebook,
    output: None,
};

fn memory_compact(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: CompactArgs = tri!(arguments(MEMORY_COMPACT.name, raw));
    let request = CompactRequest {
        older_than: a.older_than,
        max_score: a.max_score,
        dry_run: a.dry_run.unwrap_or(false),
    };
    json_answer(
        MEMORY_COMPACT.name,
        ctx.app.memory_compact(&ctx.choice(&a.project), &request),
        render::decay::compact_json,
    )
}
