//! The official memory server's knowledge-graph tools (`serve --tools graph`), with its
//! parameter and result shapes: structured content (`{"entities": [...]}` and so on) plus the
//! same result, pretty-printed, as text. An optional `project` (or `project_id`) picks the
//! project (default: the default one). Every argument struct, the entities and relations in
//! them included, denies unknown fields: a misspelt `entityTyp` is refused, never dropped.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args::{EntityArg, ProjectArgs, SupersededArg};
use super::common::{entity_schema, graph, relations_created};
use super::{
    array, object, parse, schema_of, service_error, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec,
};
use engine::graph::{Entity, EntityObservations, GraphRelation};
use engine::graph_query::EntityPage;
use render::{self, graph::GraphAnswer};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
struct RelationArg {
    /// The name of the entity where the relation starts
    from: String,
    /// The name of the entity where the relation ends
    to: String,
    /// The type of the relation
    relation_type: String,
}

impl From<RelationArg> for GraphRelation {
    fn from(r: RelationArg) -> Self {
        GraphRelation {
            from: r.from,
            to: r.to,
            relation_type: r.relation_type,
        }
    }
}

/// corporatepiyush/mcp-memory's page of entities: of one type, from `offset`, at most
/// `limit`. Absent, read_graph and search_nodes answer as the official server does.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
struct PageArg {
    /// Only return entities of this type
    entity_type: Option<String>,
    /// Number of matching entities to skip
    offset: Option<usize>,
    /// Maximum number of entities to return (at most 1000)
    limit: Option<usize>,
}

impl PageArg {
    fn page(self) -> Option<EntityPage> {
        let asked = self.entity_type.is_some() || self.offset.is_some() || self.limit.is_some();
        asked.then(|| EntityPage {
            entity_type: self.entity_type,
            offset: self.offset.unwrap_or(0),
            limit: self.limit,
        })
    }
}

/// read_graph's arguments: a page, and the project.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct ReadGraphArgs {
    #[serde(flatten)]
    page: PageArg,
    #[serde(flatten)]
    superseded: SupersededArg,
    #[serde(flatten)]
    project: ProjectArgs,
}

impl From<GraphAnswer> for ToolReply {
    fn from(answer: GraphAnswer) -> Self {
        ToolReply::Structured {
            text: answer.text,
            content: answer.content,
        }
    }
}

pub const CREATE_ENTITIES: ToolSpec = ToolSpec {
    name: "create_entities",
    title: "Create Entities",
    description: "Create multiple new entities in the knowledge graph. Each entity is a note titled by its name in the folder of its type; entities whose names exist already are skipped, and only the new ones are returned.",
    hints: Hints::WRITES,
    schema: schema_of::<CreateEntitiesArgs>,
    handler: create_entities,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(entities_created),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct CreateEntitiesArgs {
    entities: Vec<EntityArg>,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn create_entities(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: CreateEntitiesArgs = tri!(parse(CREATE_ENTITIES.name, raw));
    let entities: Vec<Entity> = a.entities.into_iter().map(Entity::from).collect();
    let choice = ctx.choice(&a.project);
    match ctx.app.create_entities(&choice, &entities) {
        Ok(created) => render::graph::entities(&created).into(),
        Err(e) => service_error(CREATE_ENTITIES.name, e),
    }
}

pub const CREATE_RELATIONS: ToolSpec = ToolSpec {
    name: "create_relations",
    title: "Create Relations",
    description: "Create multiple new relations between entities in the knowledge graph. Relations should be in active voice. Each is written into its `from` entity's note as `- relationType [[to]]`; relations that exist already are skipped.",
    hints: Hints::WRITES,
    schema: schema_of::<RelationsArgs>,
    handler: create_relations,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(relations_created),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct RelationsArgs {
    relations: Vec<RelationArg>,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn relations_of(a: RelationsArgs) -> (ProjectArgs, Vec<GraphRelation>) {
    let relations = a.relations.into_iter().map(GraphRelation::from).collect();
    (a.project, relations)
}

fn create_relations(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let (project, relations) = relations_of(tri!(parse(CREATE_RELATIONS.name, raw)));
    let choice = ctx.choice(&project);
    match ctx.app.create_relations(&choice, &relations) {
        Ok(created) => render::graph::relations(&created).into(),
        Err(e) => service_error(CREATE_RELATIONS.name, e),
    }
}

pub const ADD_OBSERVATIONS: ToolSpec = ToolSpec {
    name: "add_observations",
    title: "Add Observations",
    description: "Add new observations to existing entities in the knowledge graph, as `- [note] ...` lines of their notes. Fails if an entity does not exist; returns the observations each entity did not have yet.",
    hints: Hints::WRITES,
    schema: schema_of::<AddObservationsArgs>,
    handler: add_observations,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(observations_added),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
struct ObservationsToAdd {
    /// The name of the entity to add the observations to
    entity_name: String,
    /// An array of observation contents to add
    contents: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct AddObservationsArgs {
    observations: Vec<ObservationsToAdd>,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn add_observations(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: AddObservationsArgs = tri!(parse(ADD_OBSERVATIONS.name, raw));
    let additions: Vec<EntityObservations> = a
        .observations
        .into_iter()
        .map(|o| EntityObservations {
            entity_name: o.entity_name,
            observations: o.contents,
        })
        .collect();
    let choice = ctx.choice(&a.project);
    match ctx.app.add_observations(&choice, &additions) {
        Ok(results) => render::graph::observations_added(&results).into(),
        Err(e) => service_error(ADD_OBSERVATIONS.name, e),
    }
}

pub const DELETE_ENTITIES: ToolSpec = ToolSpec {
    name: "delete_entities",
    title: "Delete Entities",
    description: "Delete multiple entities and their associated relations from the knowledge graph: their notes are deleted, and relation lines in other notes that point to them are removed. Names that do not exist are reported in the message.",
    hints: Hints::DESTRUCTIVE.idempotent(true),
    schema: schema_of::<DeleteEntitiesArgs>,
    handler: delete_entities,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(deleted),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
struct DeleteEntitiesArgs {
    /// An array of entity names to delete
    entity_names: Vec<String>,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn delete_entities(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: DeleteEntitiesArgs = tri!(parse(DELETE_ENTITIES.name, raw));
    let choice = ctx.choice(&a.project);
    match ctx.app.delete_entities(&choice, &a.entity_names) {
        Ok(not_found) => render::graph::entities_deleted(a.entity_names.len(), &not_found).into(),
        Err(e) => service_error(DELETE_ENTITIES.name, e),
    }
}

pub const DELETE_OBSERVATIONS: ToolSpec = ToolSpec {
    name: "delete_observations",
    title: "Delete Observations",
    description: "Delete specific observations from entities in the knowledge graph. Observations or entities that do not exist are counted out in the message.",
    hints: Hints::DESTRUCTIVE.idempotent(true),
    schema: schema_of::<DeleteObservationsArgs>,
    handler: delete_observations,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(deleted),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
struct ObservationsToDelete {
    /// The name of the entity containing the observations
    entity_name: String,
    /// An array of observations to delete
    observations: Vec<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DeleteObservationsArgs {
    deletions: Vec<ObservationsToDelete>,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn delete_observations(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: DeleteObservationsArgs = tri!(parse(DELETE_OBSERVATIONS.name, raw));
    let deletions: Vec<EntityObservations> = a
        .deletions
        .into_iter()
        .map(|d| EntityObservations {
            entity_name: d.entity_name,
            observations: d.observations,
        })
        .collect();
    let requested: usize = deletions.iter().map(|d| d.observations.len()).sum();
    let choice = ctx.choice(&a.project);
    match ctx.app.delete_observations(&choice, &deletions) {
        Ok(outcome) => render::graph::observations_deleted(requested, &outcome).into(),
        Err(e) => service_error(DELETE_OBSERVATIONS.name, e),
    }
}

pub const DELETE_RELATIONS: ToolSpec = ToolSpec {
    name: "delete_relations",
    title: "Delete Relations",
    description: "Delete multiple relations from the knowledge graph: their lines are removed from the `from` entity's note. Relations that do not exist are counted out in the message.",
    hints: Hints::DESTRUCTIVE.idempotent(true),
    schema: schema_of::<RelationsArgs>,
    handler: delete_relations,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(deleted),
};

fn delete_relations(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let (project, relations) = relations_of(tri!(parse(DELETE_RELATIONS.name, raw)));
    let choice = ctx.choice(&project);
    match ctx.app.delete_relations(&choice, &relations) {
        Ok(deleted) => render::graph::relations_deleted(relations.len(), deleted).into(),
        Err(e) => service_error(DELETE_RELATIONS.name, e),
    }
}

pub const READ_GRAPH: ToolSpec = ToolSpec {
    name: "read_graph",
    title: "Read Graph",
    description: "Read the entire knowledge graph: every note of the project as an entity, and every relation between them. Optionally filter by entityType and page with offset/limit; then only the relations whose both ends are in the page are included.",
    hints: Hints::READ_ONLY.idempotent(true),
    schema: schema_of::<ReadGraphArgs>,
    handler: read_graph,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(graph),
};

fn read_graph(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ReadGraphArgs = tri!(parse(READ_GRAPH.name, raw));
    let choice = ctx.choice(&a.project);
    let reveal = a.superseded.reveal();
    let found = match a.page.page() {
        Some(page) => ctx.app.read_graph_page(&choice, &page, reveal),
        None => ctx.app.read_graph(&choice, reveal),
    };
    match found {
        Ok(found) => render::graph::graph(&found).into(),
        Err(e) => service_error(READ_GRAPH.name, e),
    }
}

pub const SEARCH_NODES: ToolSpec = ToolSpec {
    name: "search_nodes",
    title: "Search Nodes",
    description: "Search for nodes in the knowledge graph based on a query: entities whose name, type or an observation contains it (ignoring case), with the relations that start or end at them. Optionally restrict by entityType and page with offset/limit (20 by default once paging).",
    hints: Hints::SEARCHES.idempotent(true),
    schema: schema_of::<SearchNodesArgs>,
    handler: search_nodes,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(graph),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct SearchNodesArgs {
    /// The search query to match against entity names, types, and observation content
    query: String,
    #[serde(flatten)]
    page: PageArg,
    #[serde(flatten)]
    superseded: SupersededArg,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn search_nodes(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: SearchNodesArgs = tri!(parse(SEARCH_NODES.name, raw));
    let choice = ctx.choice(&a.project);
    let reveal = a.superseded.reveal();
    let found = match a.page.page() {
        Some(page) => ctx.app.search_nodes_page(&choice, &a.query, &page, reveal),
        None => ctx.app.search_nodes(&choice, &a.query, reveal),
    };
    match found {
        Ok(found) => render::graph::graph(&found).into(),
        Err(e) => service_error(SEARCH_NODES.name, e),
    }
}

pub const OPEN_NODES: ToolSpec = ToolSpec {
    name: "open_nodes",
    title: "Open Nodes",
    description: "Open specific nodes in the knowledge graph by their names, with the relations that start or end at them. Names that do not exist are skipped, and so are superseded notes (a correction or a compaction replaced them) unless include_superseded.",
    hints: Hints::READ_ONLY.idempotent(true),
    schema: schema_of::<OpenNodesArgs>,
    handler: open_nodes,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(graph),
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct OpenNodesArgs {
    /// An array of entity names to retrieve
    names: Vec<String>,
    #[serde(flatten)]
    superseded: SupersededArg,
    #[serde(flatten)]
    project: ProjectArgs,
}

fn open_nodes(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: OpenNodesArgs = tri!(parse(OPEN_NODES.name, raw));
    let choice = ctx.choice(&a.project);
    match ctx.app.open_nodes(&choice, &a.names, a.superseded.reveal()) {
        Ok(found) => render::graph::graph(&found).into(),
        Err(e) => service_error(OPEN_NODES.name, e),
    }
}

fn entities_created(_: bool) -> Value {
    object(json!({ "entities": array(entity_schema()) }))
}

fn observations_added(_: bool) -> Value {
    object(json!({ "results": array(object(json!({
        "entityName": {"type": "string"},
        "addedObservations": {"type": "array", "items": {"type": "string"}},
    }))) }))
}

fn deleted(_: bool) -> Value {
    object(json!({"success": {"type": "boolean"}, "message": {"type": "string"}}))
}
