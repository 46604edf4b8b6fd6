//! corporatepiyush/mcp-memory's graph tools beyond the official nine (`serve --tools graph`),
//! with that server's parameter names, defaults and limits and its result shapes: paths,
//! neighbourhoods and subgraphs, one entity described or several fetched, counts, type lists,
//! relation search, the graph exported, and entities upserted or merged. They run on the same
//! graph of notes as the official tools; like them, every argument struct denies unknown
//! fields and takes an optional `project`, and the tools that read entities take
//! `include_superseded`.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args::ProjectArgs;
use super::args::{EntityArg, ProjectOnly, SupersededArg};
use super::common::{entity_schema, graph, relation_schema, relations_created};
use super::{
    array, object, parse, schema_of, service_error, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec,
};
use engine::graph::Entity;
use engine::graph_query::Direction;
use engine::ServiceError;
use render::graph_export::ExportFormat;
use render::{self, graph::GraphAnswer};

/// The reply of a graph service call: its rendered answer, or an MCP error result.
fn reply<T>(
    tool: &str,
    result: Result<T, ServiceError>,
    render: impl FnOnce(&T) -> GraphAnswer,
) -> ToolReply {
    match result {
        Ok(value) => render(&value).into(),
        Err(e) => service_error(tool, e),
    }
}

pub const FIND_PATH: ToolSpec = ToolSpec {
    name: "find_path",
    title: "Find Path",
    description: "Find the shortest path (via relations, followed either way) between two entities using BFS. Returns the sequence of entity names connecting them, or null when none does.",
    hints: Hints::READ_ONLY.idempotent(true),
    schema: schema_of::<FindPathArgs>,
    handler: find_path,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(path_schema),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct FindPathArgs {
    /// The starting entity name
    from: String,
    /// The target entity name
    to: String,
    #[serde(flatten)]
    superseded: SupersededArg,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn find_path(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: FindPathArgs = tri!(parse(FIND_PATH.name, raw));
    let found = ctx.app.find_path(
        &ctx.choice(&a.project),
        &a.from,
        &a.to,
        a.superseded.reveal(),
    );
    reply(FIND_PATH.name, found, render::graph::path)
}

pub const FIND_ALL_PATHS: ToolSpec = ToolSpec {
    name: "find_all_paths",
    title: "Find All Paths",
    description: "Enumerate the simple paths between two entities (relations followed either way), shortest first, up to maxDepth hops (default 6, at most 10) and maxPaths paths (default 50, at most 100). Each path is the entity names from one end to the other.",
    hints: Hints::READ_ONLY.idempotent(true),
    schema: schema_of::<FindAllPathsArgs>,
    handler: find_all_paths,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(paths_schema),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
struct FindAllPathsArgs {
    /// Starting entity name
    from: String,
    /// Target entity name
    to: String,
    /// Max path length in hops (default 6; more than 10 counts as 10)
    #[schemars(range(min = 1, max = 16))]
    max_depth: Option<usize>,
    /// Stop after finding this many paths (default 50; more than 100 counts as 100)
    #[schemars(range(min = 1, max = 1000))]
    max_paths: Option<usize>,
    #[serde(flatten)]
    superseded: SupersededArg,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn find_all_paths(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: FindAllPathsArgs = tri!(parse(FIND_ALL_PATHS.name, raw));
    let found = ctx.app.find_all_paths(
        &ctx.choice(&a.project),
        &a.from,
        &a.to,
        a.max_depth.unwrap_or(6),
        a.max_paths.unwrap_or(50),
        a.superseded.reveal(),
    );
    reply(FIND_ALL_PATHS.name, found, |p| render::graph::paths(p))
}

pub const EXTRACT_SUBGRAPH: ToolSpec = ToolSpec {
    name: "extract_subgraph",
    title: "Extract Subgraph",
    description: "The entities within `depth` hops (default 1, at most 16; 0 returns only the seeds) of the named seed entities, relations followed either way, with every relation whose both ends are among them. Names that are no entity are skipped.",
    hints: Hints::READ_ONLY.idempotent(true),
    schema: schema_of::<ExtractSubgraphArgs>,
    handler: extract_subgraph,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(graph),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExtractSubgraphArgs {
    /// Seed entity names to expand around (names that are no entity are skipped)
    names: Vec<String>,
    /// Expansion depth (0 returns only the seeds; default 1)
    #[schemars(range(max = 16))]
    depth: Option<usize>,
    #[serde(flatten)]
    superseded: SupersededArg,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn extract_subgraph(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ExtractSubgraphArgs = tri!(parse(EXTRACT_SUBGRAPH.name, raw));
    let choice = ctx.choice(&a.project);
    let depth = a.depth.unwrap_or(1);
    let found = ctx
        .app
        .extract_subgraph(&choice, &a.names, depth, a.superseded.reveal());
    reply(EXTRACT_SUBGRAPH.name, found, render::graph::graph)
}

pub const DESCRIBE_ENTITY: ToolSpec = ToolSpec {
    name: "describe_entity",
    title: "Describe Entity",
    description: "One entity in one call: its name, type and observations, every relation that starts or ends at it, the distinct names at their other ends, and its degree (how many relations). A superseded note (a correction or a compaction replaced it) is refused, naming its successor, unless include_superseded.",
    hints: Hints::READ_ONLY.idempotent(true),
    schema: schema_of::<NameArgs>,
    handler: describe_entity,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(description_schema),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NameArgs {
    /// The name of the entity
    name: String,
    #[serde(flatten)]
    superseded: SupersededArg,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn describe_entity(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: NameArgs = tri!(parse(DESCRIBE_ENTITY.name, raw));
    let found = ctx
        .app
        .describe_entity(&ctx.choice(&a.project), &a.name, a.superseded.reveal());
    reply(DESCRIBE_ENTITY.name, found, render::graph::description)
}

pub const GET_NEIGHBORS: ToolSpec = ToolSpec {
    name: "get_neighbors",
    title: "Get Neighbors",
    description: "The neighbourhood of an entity: the entity and every entity within `depth` hops (default 1, at most 16) along relations in `direction` (out, in or both, the default), optionally of one relationType, with the relations walked.",
    hints: Hints::READ_ONLY.idempotent(true),
    schema: schema_of::<NeighborsArgs>,
    handler: get_neighbors,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(graph),
};

/// Which relations get_neighbors follows; that server's code also reads `OUTGOING` and
/// `INCOMING`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum DirectionArg {
    #[serde(alias = "OUTGOING")]
    Out,
    #[serde(alias = "INCOMING")]
    In,
    #[default]
    Both,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
struct NeighborsArgs {
    /// The entity to expand around
    name: String,
    /// Follow outgoing (out), incoming (in), or any (both) relations; default both
    #[serde(default)]
    direction: DirectionArg,
    /// Only follow relations of this type
    relation_type: Option<String>,
    /// Number of hops to expand (default 1)
    #[schemars(range(max = 16))]
    depth: Option<usize>,
    #[serde(flatten)]
    superseded: SupersededArg,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn get_neighbors(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: NeighborsArgs = tri!(parse(GET_NEIGHBORS.name, raw));
    let direction = match a.direction {
        DirectionArg::Out => Direction::Out,
        DirectionArg::In => Direction::In,
        DirectionArg::Both => Direction::Both,
    };
    let relation_type = a.relation_type.as_deref().filter(|t| !t.is_empty());
    let found = ctx.app.neighbors(
        &ctx.choice(&a.project),
        &a.name,
        direction,
        relation_type,
        a.depth.unwrap_or(1),
        a.superseded.reveal(),
    );
    reply(GET_NEIGHBORS.name, found, render::graph::graph)
}

pub const GRAPH_STATS: ToolSpec = ToolSpec {
    name: "graph_stats",
    title: "Graph Stats",
    description: "Counts of the knowledge graph: entities, relations and observations.",
    hints: Hints::READ_ONLY.idempotent(true),
    schema: schema_of::<ProjectOnly>,
    handler: graph_stats,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(stats_schema),
};

fn graph_stats(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ProjectOnly = tri!(parse(GRAPH_STATS.name, raw));
    let found = ctx.app.graph_stats(&ctx.choice(&a.project));
    reply(GRAPH_STATS.name, found, render::graph::stats)
}

pub const LIST_ENTITY_TYPES: ToolSpec = ToolSpec {
    name: "list_entity_types",
    title: "List Entity Types",
    description: "Every entity type in the graph with its count of entities, most used first. Use it to discover the schema of the memory before querying.",
    hints: Hints::READ_ONLY.idempotent(true),
    schema: schema_of::<ProjectOnly>,
    handler: list_entity_types,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(types_schema),
};

fn list_entity_types(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ProjectOnly = tri!(parse(LIST_ENTITY_TYPES.name, raw));
    let found = ctx.app.list_entity_types(&ctx.choice(&a.project));
    reply(LIST_ENTITY_TYPES.name, found, |t| render::graph::types(t))
}

pub const LIST_RELATION_TYPES: ToolSpec = ToolSpec {
    name: "list_relation_types",
    title: "List Relation Types",
    description: "Every relation type in the graph with its count of relations, most used first.",
    hints: Hints::READ_ONLY.idempotent(true),
    schema: schema_of::<ProjectOnly>,
    handler: list_relation_types,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(types_schema),
};

fn list_relation_types(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ProjectOnly = tri!(parse(LIST_RELATION_TYPES.name, raw));
    let found = ctx.app.list_relation_types(&ctx.choice(&a.project));
    reply(LIST_RELATION_TYPES.name, found, |t| render::graph::types(t))
}

pub const SEARCH_RELATIONS: ToolSpec = ToolSpec {
    name: "search_relations",
    title: "Search Relations",
    description: "Relations by from, to and relationType (each optional; omitted or empty matches all), at most 1000.",
    hints: Hints::SEARCHES.idempotent(true),
    schema: schema_of::<SearchRelationsArgs>,
    handler: search_relations,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(relations_created),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
struct SearchRelationsArgs {
    /// Filter by the source entity name
    from: Option<String>,
    /// Filter by the target entity name
    to: Option<String>,
    /// Filter by relation type
    relation_type: Option<String>,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn search_relations(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: SearchRelationsArgs = tri!(parse(SEARCH_RELATIONS.name, raw));
    let found = ctx.app.search_relations(
        &ctx.choice(&a.project),
        a.from.as_deref(),
        a.to.as_deref(),
        a.relation_type.as_deref(),
    );
    reply(SEARCH_RELATIONS.name, found, |r| {
        render::graph::relations_found(r)
    })
}

pub const EXPORT_GRAPH: ToolSpec = ToolSpec {
    name: "export_graph",
    title: "Export Graph",
    description: "Export the entire knowledge graph as text in the requested format: 'json' (entities and relations), 'mermaid' (a Mermaid graph diagram), or 'dot' (Graphviz DOT). Defaults to json.",
    hints: Hints::READ_ONLY.idempotent(true),
    schema: schema_of::<ExportArgs>,
    handler: export_graph,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(export_schema),
};

#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum FormatArg {
    #[default]
    Json,
    Mermaid,
    Dot,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ExportArgs {
    /// Output format (default json)
    #[serde(default)]
    format: FormatArg,
    #[serde(flatten)]
    superseded: SupersededArg,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn export_graph(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ExportArgs = tri!(parse(EXPORT_GRAPH.name, raw));
    let format = match a.format {
        FormatArg::Json => ExportFormat::Json,
        FormatArg::Mermaid => ExportFormat::Mermaid,
        FormatArg::Dot => ExportFormat::Dot,
    };
    let found = ctx
        .app
        .read_graph(&ctx.choice(&a.project), a.superseded.reveal());
    reply(EXPORT_GRAPH.name, found, |g| {
        render::graph_export::export(g, format)
    })
}

pub const UPSERT_ENTITIES: ToolSpec = ToolSpec {
    name: "upsert_entities",
    title: "Upsert Entities",
    description: "Create-or-merge entities idempotently. Entities that do not exist are created (a note titled by the name, in the folder of its type); existing entities keep their type and gain the observations they lack. Returns every entity as it now reads.",
    hints: Hints::WRITES.idempotent(true),
    schema: schema_of::<UpsertArgs>,
    handler: upsert_entities,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(upserted_schema),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct UpsertArgs {
    entities: Vec<EntityArg>,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn upsert_entities(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: UpsertArgs = tri!(parse(UPSERT_ENTITIES.name, raw));
    let entities: Vec<Entity> = a.entities.into_iter().map(Entity::from).collect();
    let done = ctx.app.upsert_entities(&ctx.choice(&a.project), &entities);
    reply(UPSERT_ENTITIES.name, done, render::graph::upserted)
}

pub const MERGE_ENTITIES: ToolSpec = ToolSpec {
    name: "merge_entities",
    title: "Merge Entities",
    description: "Merge the source entity into the target: the target gains the source's observations and relations (relations that would point from the target to itself are dropped) and the rest of its note under a 'Merged from' heading, every [[link]] to the source points to the target, and the source's note is deleted. Returns the target. Use it to collapse duplicate entities.",
    hints: Hints::DESTRUCTIVE.idempotent(false),
    schema: schema_of::<MergeArgs>,
    handler: merge_entities,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(entity_output),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct MergeArgs {
    /// Entity name to merge from (deleted after the merge)
    source: String,
    /// Entity name to merge into (receives the observations and relations)
    target: String,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn merge_entities(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: MergeArgs = tri!(parse(MERGE_ENTITIES.name, raw));
    let merged = ctx
        .app
        .merge_entities(&ctx.choice(&a.project), &a.source, &a.target);
    reply(MERGE_ENTITIES.name, merged, render::graph::entity)
}

pub const BATCH_GET_ENTITIES: ToolSpec = ToolSpec {
    name: "batch_get_entities",
    title: "Batch Get Entities",
    description: "Entities by name, in one call: each name's entity in the order given, null where a name is no entity or a superseded note without include_superseded (at most 1000 names).",
    hints: Hints::READ_ONLY.idempotent(true),
    schema: schema_of::<NamesArgs>,
    handler: batch_get_entities,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(batch_schema),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct NamesArgs {
    /// Entity names to retrieve (order kept, null for a missing one)
    names: Vec<String>,
    #[serde(flatten)]
    superseded: SupersededArg,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn batch_get_entities(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: NamesArgs = tri!(parse(BATCH_GET_ENTITIES.name, raw));
    let found =
        ctx.app
            .batch_get_entities(&ctx.choice(&a.project), &a.names, a.superseded.reveal());
    reply(BATCH_GET_ENTITIES.name, found, |e| render::graph::batch(e))
}

fn names() -> Value {
    json!({"type": "array", "items": {"type": "string"}})
}

fn path_schema(_: bool) -> Value {
    object(json!({"path": {"type": ["array", "null"], "items": {"type": "string"}}}))
}

fn paths_schema(_: bool) -> Value {
    object(json!({"paths": array(names())}))
}

fn description_schema(_: bool) -> Value {
    let mut schema = entity_schema();
    schema["properties"]["relations"] = array(relation_schema());
    schema["properties"]["neighbors"] = names();
    schema["properties"]["degree"] = json!({"type": "integer"});
    schema
}

fn stats_schema(_: bool) -> Value {
    object(json!({
        "entities": {"type": "integer"},
        "relations": {"type": "integer"},
        "observations": {"type": "integer"},
    }))
}

fn types_schema(_: bool) -> Value {
    object(json!({"types": array(object(json!({
        "type": {"type": "string"},
        "count": {"type": "integer"},
    })))}))
}

fn export_schema(_: bool) -> Value {
    object(json!({
        "format": {"type": "string", "enum": ["json", "mermaid", "dot"]},
        "export": {"type": "string"},
    }))
}

fn upserted_schema(_: bool) -> Value {
    object(json!({"results": array(entity_schema())}))
}

fn entity_output(_: bool) -> Value {
    entity_schema()
}

fn batch_schema(_: bool) -> Value {
    let mut entity = entity_schema();
    entity["type"] = json!(["object", "null"]);
    object(json!({"entities": array(entity)}))
}
