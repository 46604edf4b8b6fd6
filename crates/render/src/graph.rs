//! The official memory server's answers to the knowledge-graph tools: its camelCase shapes as
//! structured content, and as text the same value pretty-printed in the server's key order
//! (which a JSON value, its keys sorted, would lose; so the text comes from the shapes).

use serde::Serialize;
use serde_json::{json, Value};

use engine::graph::{
    Entity, GraphRelation, GraphWrite, KnowledgeGraph, ObservationsAdded, ObservationsDeleted,
};
use engine::graph_query::{EntityDescription, GraphStats, TypeCount};

/// A graph tool's answer: structured content, and the text shown beside it.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphAnswer {
    pub text: String,
    pub content: Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EntityShape<'a> {
    name: &'a str,
    entity_type: &'a str,
    observations: &'a [String],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct RelationShape<'a> {
    from: &'a str,
    to: &'a str,
    relation_type: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct AddedShape<'a> {
    entity_name: &'a str,
    added_observations: &'a [String],
}

#[derive(Serialize)]
pub(super) struct GraphShape<'a> {
    entities: Vec<EntityShape<'a>>,
    relations: Vec<RelationShape<'a>>,
}

impl<'a> From<&'a Entity> for EntityShape<'a> {
    fn from(e: &'a Entity) -> Self {
        EntityShape {
            name: &e.name,
            entity_type: &e.entity_type,
            observations: &e.observations,
        }
    }
}

impl<'a> From<&'a GraphRelation> for RelationShape<'a> {
    fn from(r: &'a GraphRelation) -> Self {
        RelationShape {
            from: &r.from,
            to: &r.to,
            relation_type: &r.relation_type,
        }
    }
}

impl<'a> From<&'a ObservationsAdded> for AddedShape<'a> {
    fn from(r: &'a ObservationsAdded) -> Self {
        AddedShape {
            entity_name: &r.entity_name,
            added_observations: &r.added_observations,
        }
    }
}

/// The wire shape of each of `items`.
fn shapes<'a, T, S: From<&'a T>>(items: &'a [T]) -> Vec<S> {
    items.iter().map(S::from).collect()
}

/// `shown` pretty-printed as the text; `content` is `shown` under `key`, or `shown` itself.
fn answer(shown: &impl Serialize, key: Option<&str>) -> GraphAnswer {
    let value = serde_json::to_value(shown).unwrap_or_default();
    GraphAnswer {
        text: serde_json::to_string_pretty(shown).unwrap_or_default(),
        content: match key {
            Some(key) => json!({ key: value }),
            None => value,
        },
    }
}

/// A write's answer: what it wrote (redacted, as the files hold it) under `key`, and in the
/// structured content what the redaction filter replaced, as the note tools report it.
fn written<'a, T, S: From<&'a T> + Serialize>(write: &'a GraphWrite<T>, key: &str) -> GraphAnswer {
    let mut answer = answer(&shapes::<_, S>(&write.written), Some(key));
    answer.content = super::with_redacted(answer.content, &write.redacted);
    answer
}

/// create_entities: the entities it created.
pub fn entities(created: &GraphWrite<Entity>) -> GraphAnswer {
    written::<_, EntityShape>(created, "entities")
}

/// create_relations: the relations it created.
pub fn relations(created: &GraphWrite<GraphRelation>) -> GraphAnswer {
    written::<_, RelationShape>(created, "relations")
}

/// search_relations: the relations found.
pub fn relations_found(found: &[GraphRelation]) -> GraphAnswer {
    answer(&shapes::<_, RelationShape>(found), Some("relations"))
}

/// add_observations: what each entity gained.
pub fn observations_added(results: &GraphWrite<ObservationsAdded>) -> GraphAnswer {
    written::<_, AddedShape>(results, "results")
}

impl<'a> From<&'a KnowledgeGraph> for GraphShape<'a> {
    fn from(graph: &'a KnowledgeGraph) -> Self {
        GraphShape {
            entities: shapes(&graph.entities),
            relations: shapes(&graph.relations),
        }
    }
}

/// read_graph, search_nodes, open_nodes, get_neighbors and extract_subgraph: a graph.
pub fn graph(graph: &KnowledgeGraph) -> GraphAnswer {
    answer(&GraphShape::from(graph), None)
}

/// find_path: the names along the path, or `null` when there is none.
pub fn path(path: &Option<Vec<String>>) -> GraphAnswer {
    answer(path, Some("path"))
}

/// find_all_paths: the paths found.
pub fn paths(paths: &[Vec<String>]) -> GraphAnswer {
    answer(&paths, Some("paths"))
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct DescriptionShape<'a> {
    name: &'a str,
    entity_type: &'a str,
    observations: &'a [String],
    relations: Vec<RelationShape<'a>>,
    neighbors: &'a [String],
    degree: usize,
}

/// describe_entity: the entity's own keys, then its relations, neighbours and degree.
pub fn description(d: &EntityDescription) -> GraphAnswer {
    let shape = DescriptionShape {
        name: &d.entity.name,
        entity_type: &d.entity.entity_type,
        observations: &d.entity.observations,
        relations: shapes(&d.relations),
        neighbors: &d.neighbors,
        degree: d.degree,
    };
    answer(&shape, None)
}

#[derive(Serialize)]
struct StatsShape {
    entities: usize,
    relations: usize,
    observations: usize,
}

/// graph_stats: the counts.
pub fn stats(stats: &GraphStats) -> GraphAnswer {
    let shape = StatsShape {
        entities: stats.entities,
        relations: stats.relations,
        observations: stats.observations,
    };
    answer(&shape, None)
}

#[derive(Serialize)]
struct TypeShape<'a> {
    #[serde(rename = "type")]
    name: &'a str,
    count: usize,
}

/// list_entity_types and list_relation_types: `[{type, count}]`.
pub fn types(types: &[TypeCount]) -> GraphAnswer {
    let shape: Vec<TypeShape> = types
        .iter()
        .map(|t| TypeShape {
            name: &t.name,
            count: t.count,
        })
        .collect();
    answer(&shape, Some("types"))
}

/// upsert_entities: `{results}`, each entity as it reads back.
pub fn upserted(upsert: &GraphWrite<Entity>) -> GraphAnswer {
    let shape = json!({ "results": shapes::<_, EntityShape>(&upsert.written) });
    let mut answer = answer(&shape, None);
    answer.content = super::with_redacted(answer.content, &upsert.redacted);
    answer
}

/// merge_entities: the target entity after the merge.
pub fn entity(entity: &Entity) -> GraphAnswer {
    answer(&EntityShape::from(entity), None)
}

/// batch_get_entities: each entity, or `null` where a name is none.
pub fn batch(found: &[Option<Entity>]) -> GraphAnswer {
    let shape: Vec<Option<EntityShape>> = found
        .iter()
        .map(|e| e.as_ref().map(EntityShape::from))
        .collect();
    answer(&shape, Some("entities"))
}

/// A delete's answer: a message, which is also the text.
fn done(message: String) -> GraphAnswer {
    GraphAnswer {
        content: json!({"success": true, "message": message}),
        text: message,
    }
}

/// delete_entities, of `requested` names, `not_found` of which did not exist.
pub fn entities_deleted(requested: usize, not_found: &[String]) -> GraphAnswer {
    if not_found.is_empty() {
        return done("Entities deleted successfully".into());
    }
    done(format!(
        "Deleted {} of {requested} entities. Not found: {}",
        requested - not_found.len(),
        not_found.join(", ")
    ))
}

/// delete_observations, of `requested` observations.
pub fn observations_deleted(requested: usize, outcome: &ObservationsDeleted) -> GraphAnswer {
    if outcome.deleted == requested {
        return done("Observations deleted successfully".into());
    }
    let mut message = format!("Deleted {} of {requested} observations.", outcome.deleted);
    if !outcome.missing_entities.is_empty() {
        message.push_str(&format!(
            " Entities not found: {}",
            outcome.missing_entities.join(", ")
        ));
    }
    done(message)
}

/// delete_relations, of `requested` relations, `deleted` of which existed.
pub fn relations_deleted(requested: usize, deleted: usize) -> GraphAnswer {
    if deleted == requested {
        return done("Relations deleted successfully".into());
    }
    done(format!(
        "Deleted {deleted} of {requested} relations. The rest matched nothing."
    ))
}
