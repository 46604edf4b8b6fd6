//! corporatepiyush/mcp-memory's two writing graph tools beyond the official nine, through the
//! same note writers: upsert_entities (create_entities and add_observations in one) and
//! merge_entities (one entity's observations, relations and incoming links moved to another,
//! then its note deleted).

use std::cell::RefCell;
use std::collections::HashSet;

use super::error::{GraphError, InternalError};
use super::graph::{Entity, EntityObservations, Graph, GraphRelation, GraphWrite};
use super::scope::ProjectChoice;
use super::Result;
use crate::Engine;
use note::entity::{
    append_lines, normalized_observation, observation_line, relation_line, remove_items,
    retarget_links, Item,
};
use note::parse::link_lookup_text;

/// upsert_entities: creates the entities that do not exist and adds to those that do the
/// observations they lack (their type stays); every entity as it reads back, in order.
pub(crate) fn upsert_entities(
    engine: &Engine,
    choice: &ProjectChoice,
    entities: &[Entity],
) -> Result<GraphWrite<Entity>> {
    if let Some(unnamed) = entities.iter().position(|e| e.name.trim().is_empty()) {
        return Err(GraphError::UnnamedEntity(unnamed).into());
    }
    // Redacted first, so a name is looked up as it is stored.
    let (entities, redacted) = crate::graph::redacted_entities(&engine.store, entities);
    let (_, graph) = crate::graph::project_graph(&engine.store, choice)?;
    let (existing, new): (Vec<&Entity>, Vec<&Entity>) = entities
        .iter()
        .partition(|e| graph.find(e.name.trim()).is_some());
    let new: Vec<Entity> = new.into_iter().cloned().collect();
    crate::graph::create_entities(engine, choice, &new)?;
    let additions: Vec<EntityObservations> = existing
        .into_iter()
        .map(|e| EntityObservations {
            entity_name: e.name.clone(),
            observations: e.observations.clone(),
        })
        .collect();
    crate::graph::add_observations(engine, choice, &additions)?;
    let (_, graph) = crate::graph::project_graph(&engine.store, choice)?;
    let written = entities
        .iter()
        .map(|e| {
            graph
                .find(e.name.trim())
                .map(Graph::entity)
                .ok_or_else(|| GraphError::EntityNotFound(e.name.clone()).into())
        })
        .collect::<Result<_>>()?;
    Ok(GraphWrite { written, redacted })
}

/// merge_entities: moves `source`'s observations and relations (but those that would
/// point from `target` to itself) into `target`, with the rest of its body under a
/// `## Merged from <source>` heading; points every `[[link]]` to `source` at `target`;
/// then deletes `source`'s note. Returns `target` as it reads back.
pub(crate) fn merge_entities(
    engine: &Engine,
    choice: &ProjectChoice,
    source: &str,
    target: &str,
) -> Result<Entity> {
    let (project, graph) = crate::graph::project_graph(&engine.store, choice)?;
    let s_index = graph
        .index_of(source)
        .ok_or_else(|| GraphError::SourceNotFound(source.to_string()))?;
    let t_index = graph
        .index_of(target)
        .ok_or_else(|| GraphError::TargetNotFound(target.to_string()))?;
    let (s, t) = (&graph.notes[s_index], &graph.notes[t_index]);
    if s_index == t_index {
        return Ok(Graph::entity(t));
    }
    let source_text = crate::notes::read_for_edit(&engine.store, &project, s)?
        .map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
        // Its note is about to go: never on a half-written read of it.
        .ok_or_else(|| InternalError::KeptChanging(s.path.clone()))?;

    let target_entity = Graph::entity(t);
    let had: HashSet<&String> = target_entity.observations.iter().collect();
    let mut lines: Vec<String> = Graph::entity(s)
        .observations
        .iter()
        .filter(|o| !had.contains(&normalized_observation(o)))
        .map(|o| observation_line(o))
        .collect();
    // The source's list-item relations become the target's; its inline links travel
    // with the rest of its body.
    let items: RefCell<Vec<(String, String)>> = RefCell::default();
    let (rest, _) = remove_items(&source_text, |item| {
        if let Item::Relation(r) = item {
            items
                .borrow_mut()
                .push((r.relation_type.clone(), r.target.clone()));
        }
        true
    });
    let items = items.into_inner();
    let mut moved: Vec<GraphRelation> = Vec::new();
    for edge in &graph.edges[s_index] {
        let listed = items
            .iter()
            .any(|(kind, to)| *kind == edge.relation.relation_type && *to == edge.written);
        let self_loop = matches!(edge.target, Some(i) if i == s_index || i == t_index);
        let relation = GraphRelation {
            from: t.title.clone(),
            ..edge.relation.clone()
        };
        if listed && !self_loop && !graph.has_relation(&relation) && !moved.contains(&relation) {
            lines.push(relation_line(&relation.relation_type, &relation.to));
            moved.push(relation);
        }
    }
    if let Some(rest) = leftover_body(&rest, &s.title) {
        lines.push(format!("\n## Merged from {}\n\n{rest}", s.title));
    }

    // Links to the source, as each note writes them, point at the target from now on;
    // the target's own relations to the source would point at itself and go.
    for (i, (note, edges)) in graph.notes.iter().zip(&graph.edges).enumerate() {
        let written: HashSet<String> = edges
            .iter()
            .filter(|e| e.target == Some(s_index))
            .map(|e| link_lookup_text(&e.written).to_string())
            .collect();
        if i == s_index || (written.is_empty() && i != t_index) {
            continue;
        }
        let append = if i == t_index { lines.as_slice() } else { &[] };
        crate::notes::rewrite_note(engine, &project, note, |text| {
            let text = if i == t_index {
                remove_items(text, |item| {
                    matches!(item, Item::Relation(r) if written.contains(link_lookup_text(&r.target)))
                })
                .0
            } else {
                text.to_string()
            };
            let (text, _) = retarget_links(&text, &written, &t.title);
            Some(append_lines(&text, append))
        })?;
    }
    crate::notes::delete_note_file(engine, &project, s)?;
    let (_, graph) = crate::graph::project_graph(&engine.store, choice)?;
    graph
        .find(&t.title)
        .map(Graph::entity)
        .ok_or_else(|| GraphError::TargetNotFound(target.to_string()).into())
}

/// What a note's body holds beyond its observations and relations (already taken out of
/// `rest`) and its `# title` heading: the text a merge must not lose.
fn leftover_body(rest: &str, title: &str) -> Option<String> {
    let body = note::frontmatter::locate(rest).map_or(rest, |b| &rest[b.body_start..]);
    let body = body.trim_start();
    let body = match body.split_once('\n') {
        Some((first, after)) if first.trim() == format!("# {title}") => after,
        None if body.trim() == format!("# {title}") => "",
        _ => body,
    };
    let body = body.trim();
    (!body.is_empty()).then(|| body.to_string())
}
