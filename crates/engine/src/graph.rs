//! The official memory server's knowledge graph over a project's notes (`serve --tools
//! graph`): every markdown note is an entity named by its title, typed by its `type`, with its
//! observations; its relations are the graph's edges. New entities are notes in
//! `<entityType>/`; observations and relations are list items (`note::entity`), so what a
//! graph client writes reads as an ordinary note, and the other way round.
//!
//! Names are matched exactly, as the official server matches them, and else ignoring case
//! when that finds one entity. Soft-deleted and expired memories are not part of the graph;
//! superseded notes are not either, unless a reading tool asks for them (`Reveal`), and a tool
//! that needs one entity by name says when the name means a superseded note.

use std::collections::{HashMap, HashSet};

use serde_json::{Map, Value};

use super::error::GraphError;
use super::scope::ProjectChoice;
use super::write::{WriteNoteRequest, WriteRefusal};
use super::{Outcome, Result};
use crate::config::Project;
use crate::{Engine, Store};
use index::Index;
use index::{NoteKind, NoteRecord};
use note::document::Document;
use note::entity::{
    append_lines, entity_body, normalized_observation, observation_line, observation_text,
    relation_line, remove_items, Item,
};
use note::filename::{
    entity_type_folder, foreign_file_stem, note_file_path, sanitize_for_filename,
};
use note::memory::{is_hidden_unless, Reveal};
use note::parse::link_lookup_text;
use note::redact::Redactions;
use note::supersede::superseded_by;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entity {
    pub name: String,
    pub entity_type: String,
    pub observations: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct GraphRelation {
    pub from: String,
    pub to: String,
    pub relation_type: String,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KnowledgeGraph {
    pub entities: Vec<Entity>,
    pub relations: Vec<GraphRelation>,
}

/// Observations for one entity: to add (`contents`) or to delete.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityObservations {
    pub entity_name: String,
    pub observations: Vec<String>,
}

/// What a graph tool wrote, as the files hold it, and what the redaction filter replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GraphWrite<T> {
    pub written: Vec<T>,
    pub redacted: Redactions,
}

/// What add_observations added to one entity.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservationsAdded {
    pub entity_name: String,
    pub added_observations: Vec<String>,
}

/// What delete_observations removed: how many observations, and the named entities that do
/// not exist.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ObservationsDeleted {
    pub deleted: usize,
    pub missing_entities: Vec<String>,
}

/// A project's notes as graph nodes, with each note's edges named.
pub(super) struct Graph {
    pub(super) notes: Vec<NoteRecord>,
    /// Relations of `notes[i]`, with their targets named as entities.
    pub(super) edges: Vec<Vec<Edge>>,
    /// The title and successor of each note left out only because it is superseded, so a
    /// name that means one is answered as such rather than as unknown.
    superseded: Vec<(String, String)>,
}

/// A relation as the graph names it, and its target as the note writes it (`acme-corp`,
/// `Acme Corp|Acme`), which is what a delete must find in the text.
pub(super) struct Edge {
    pub(super) relation: GraphRelation,
    pub(super) written: String,
    /// The index in `Graph::notes` of the entity the relation points to, if it is one.
    pub(super) target: Option<usize>,
}

impl Graph {
    /// The note an entity name means: the exact title, else the one title equal ignoring case.
    pub(super) fn find(&self, name: &str) -> Option<&NoteRecord> {
        if let Some(note) = self.notes.iter().find(|n| n.title == name) {
            return Some(note);
        }
        let mut folded = self
            .notes
            .iter()
            .filter(|n| n.title.to_lowercase() == name.to_lowercase());
        match (folded.next(), folded.next()) {
            (Some(note), None) => Some(note),
            _ => None,
        }
    }

    /// Why `name` is no entity: a superseded note's name says so, any other is `unknown`.
    pub(super) fn missing(&self, name: &str, unknown: fn(String) -> GraphError) -> GraphError {
        let wanted = name.trim().to_lowercase();
        match self
            .superseded
            .iter()
            .find(|(title, _)| title.to_lowercase() == wanted)
        {
            Some((_, by)) => GraphError::Superseded {
                name: name.to_string(),
                by: by.clone(),
            },
            None => unknown(name.to_string()),
        }
    }

    /// A relation as the graph names it: `from` an entity's title, `to` one when it names an
    /// entity (else the trimmed text), the type trimmed; with the `from` entity's note. None
    /// when `from` is not an entity.
    fn resolve(&self, relation: &GraphRelation) -> Option<(&NoteRecord, GraphRelation)> {
        let note = self.find(relation.from.trim())?;
        let resolved = GraphRelation {
            from: note.title.clone(),
            to: self
                .find(relation.to.trim())
                .map_or_else(|| relation.to.trim().to_string(), |t| t.title.clone()),
            relation_type: relation.relation_type.trim().to_string(),
        };
        Some((note, resolved))
    }

    pub(super) fn entity(note: &NoteRecord) -> Entity {
        Entity {
            name: note.title.clone(),
            entity_type: note.note_type.clone(),
            observations: note.observations.iter().map(observation_text).collect(),
        }
    }

    /// The entities `keep` picks, and every relation that starts or ends at one of them (as
    /// the official server's search_nodes and open_nodes answer).
    pub(super) fn subgraph(&self, keep: impl Fn(&Entity) -> bool) -> KnowledgeGraph {
        let entities: Vec<Entity> = self
            .notes
            .iter()
            .map(Self::entity)
            .filter(|e| keep(e))
            .collect();
        let names: HashSet<&str> = entities.iter().map(|e| e.name.as_str()).collect();
        let relations = self
            .relations()
            .filter(|r| names.contains(r.from.as_str()) || names.contains(r.to.as_str()))
            .collect();
        KnowledgeGraph {
            entities,
            relations,
        }
    }

    /// Whether an entity's name, type or an observation holds `query` (lowercase), ignoring
    /// case.
    pub(super) fn matches(entity: &Entity, query: &str) -> bool {
        entity.name.to_lowercase().contains(query)
            || entity.entity_type.to_lowercase().contains(query)
            || entity
                .observations
                .iter()
                .any(|o| o.to_lowercase().contains(query))
    }

    /// Every relation once (a note may write one twice, as a list item and inline).
    pub(super) fn relations(&self) -> impl Iterator<Item = GraphRelation> + '_ {
        let mut seen = HashSet::new();
        self.edges
            .iter()
            .flatten()
            .map(|e| e.relation.clone())
            .filter(move |r| seen.insert(r.clone()))
    }

    pub(super) fn has_relation(&self, relation: &GraphRelation) -> bool {
        self.edges.iter().flatten().any(|e| e.relation == *relation)
    }
}

/// The chosen project, and its notes as a graph: where every graph tool starts.
pub(super) fn project_graph(store: &Store, choice: &ProjectChoice) -> Result<(Project, Graph)> {
    project_graph_revealing(store, choice, Reveal::default())
}

/// `project_graph`, with the hidden notes `reveal` asks for among its entities.
pub(super) fn project_graph_revealing(
    store: &Store,
    choice: &ProjectChoice,
    reveal: Reveal,
) -> Result<(Project, Graph)> {
    let project = crate::scope::select_project(store, choice)?;
    let graph = graph(&store.index, &project, reveal)?;
    Ok((project, graph))
}

fn graph(index: &Index, project: &Project, reveal: Reveal) -> Result<Graph> {
    let now = chrono::Utc::now();
    let shown = |n: &NoteRecord, reveal| !is_hidden_unless(&n.metadata, n.created_ms, now, reveal);
    let with_superseded = Reveal {
        superseded: true,
        ..reveal
    };
    let mut notes = Vec::new();
    let mut superseded = Vec::new();
    for note in crate::notes::all_notes(index, project)? {
        if note.kind != NoteKind::Markdown {
            continue;
        }
        if shown(&note, reveal) {
            notes.push(note);
        } else if shown(&note, with_superseded) {
            let by = superseded_by(&note.metadata).unwrap_or_default();
            superseded.push((note.title.clone(), by.to_string()));
        }
    }
    notes.sort_by(|a, b| a.path.cmp(&b.path));
    let index: HashMap<&str, usize> = notes
        .iter()
        .enumerate()
        .map(|(i, n)| (n.id.as_str(), i))
        .collect();
    let edges = notes
        .iter()
        .map(|note| {
            note.relations
                .iter()
                .map(|stored| {
                    let target = stored
                        .to_id
                        .as_deref()
                        .and_then(|id| index.get(id))
                        .copied();
                    Edge {
                        relation: GraphRelation {
                            from: note.title.clone(),
                            to: target.map_or_else(
                                || link_lookup_text(&stored.relation.target).to_string(),
                                |t| notes[t].title.clone(),
                            ),
                            relation_type: stored.relation.relation_type.clone(),
                        },
                        written: stored.relation.target.clone(),
                        target,
                    }
                })
                .collect()
        })
        .collect();
    Ok(Graph {
        notes,
        edges,
        superseded,
    })
}

/// The entities as they are stored: names, types and observations through the redaction
/// filter, and what it replaced.
pub(crate) fn redacted_entities(store: &Store, entities: &[Entity]) -> (Vec<Entity>, Redactions) {
    let mut entities = entities.to_vec();
    let redacted = crate::authored::redact_fields(
        store,
        entities.iter_mut().flat_map(|e| {
            [&mut e.name, &mut e.entity_type]
                .into_iter()
                .chain(e.observations.iter_mut())
        }),
    );
    (entities, redacted)
}

/// create_entities: a note per new name; names that exist already are left alone and not
/// returned.
pub(crate) fn create_entities(
    engine: &Engine,
    choice: &ProjectChoice,
    entities: &[Entity],
) -> Result<GraphWrite<Entity>> {
    let (project, graph) = project_graph(&engine.store, choice)?;
    let (entities, redacted) = redacted_entities(&engine.store, entities);
    if let Some(unnamed) = entities.iter().position(|e| e.name.trim().is_empty()) {
        return Err(GraphError::UnnamedEntity(unnamed).into());
    }
    // Every new entity's file is checked before the first is written, so a bad name
    // leaves nothing half done.
    let mut new: Vec<(&Entity, String)> = Vec::new();
    let mut files: HashSet<String> = HashSet::new();
    for (i, entity) in entities.iter().enumerate() {
        let name = entity.name.trim();
        let taken = graph.find(name).is_some()
            || new
                .iter()
                .any(|(e, _)| e.name.trim().eq_ignore_ascii_case(name));
        if taken {
            continue;
        }
        let folder = entity_type_folder(entity.entity_type.trim());
        let stem = foreign_file_stem(name).filter(|stem| *stem == sanitize_for_filename(name));
        let Some(stem) = stem else {
            return Err(GraphError::UnusableName {
                index: i,
                name: name.to_string(),
            }
            .into());
        };
        let path = note_file_path(&folder, &stem, false);
        if !files.insert(path.to_lowercase())
            || crate::mounts::project_file(&engine.store, &project, &path)?.exists()
        {
            return Err(GraphError::PathTaken {
                index: i,
                name: name.to_string(),
                path,
            }
            .into());
        }
        new.push((entity, folder));
    }
    let mut created: Vec<Entity> = Vec::new();
    for (entity, folder) in new {
        let name = entity.name.trim();
        let entity_type = match entity.entity_type.trim() {
            "" => "entity",
            given => given,
        };
        let mut meta = Map::new();
        meta.insert("type".into(), Value::String(entity_type.to_string()));
        let observations: Vec<&str> = entity.observations.iter().map(String::as_str).collect();
        let content = Document {
            meta,
            body: entity_body(name, dedup_observations(&observations), []),
        };
        let request = WriteNoteRequest {
            title: name.to_string(),
            content: String::new(),
            directory: folder,
            tags: None,
            note_type: None,
            metadata: None,
            overwrite: Some(false),
            expected_checksum: None,
        };
        match crate::write::write_note_with(engine, choice, &request, Some(content))? {
            Outcome::Done(_) => created.push(Entity {
                name: name.to_string(),
                entity_type: entity_type.to_string(),
                observations: dedup_observations(&observations)
                    .into_iter()
                    .map(normalized_observation)
                    .collect(),
            }),
            // The graph tools' own documents are never checked against a schema.
            // No checksum is asked, so no revision conflicts.
            Outcome::Refused(
                WriteRefusal::AlreadyExists { .. }
                | WriteRefusal::Schema { .. }
                | WriteRefusal::RevisionConflict { .. },
            ) => {}
            Outcome::Refused(WriteRefusal::OutsideProject(o)) => return Err(o.into()),
        }
    }
    Ok(GraphWrite {
        written: created,
        redacted,
    })
}

/// create_relations: each new relation becomes a list item of its `from` entity; ones
/// the graph has already are left out of the answer. Every `from` must be an entity.
pub(crate) fn create_relations(
    engine: &Engine,
    choice: &ProjectChoice,
    relations: &[GraphRelation],
) -> Result<GraphWrite<GraphRelation>> {
    let (project, graph) = project_graph(&engine.store, choice)?;
    let mut relations = relations.to_vec();
    let redacted = crate::authored::redact_fields(
        &engine.store,
        relations
            .iter_mut()
            .flat_map(|r| [&mut r.from, &mut r.to, &mut r.relation_type]),
    );
    let mut by_note: Vec<(&NoteRecord, Vec<GraphRelation>)> = Vec::new();
    for (i, relation) in relations.iter().enumerate() {
        for (field, value) in [
            ("from", &relation.from),
            ("to", &relation.to),
            ("relationType", &relation.relation_type),
        ] {
            if value.trim().is_empty() {
                return Err(GraphError::EmptyRelationField { index: i, field }.into());
            }
        }
        // A [[link]] ends its target at `#` (a heading), `|` (an alias) or `]]`, so such
        // a target would read back as another entity and could never be deleted.
        if relation.to.contains(['#', '|', '[', ']']) {
            return Err(GraphError::UnlinkableTarget {
                index: i,
                to: relation.to.clone(),
            }
            .into());
        }
        let (note, relation) =
            graph
                .resolve(relation)
                .ok_or_else(|| GraphError::MissingSource {
                    index: i,
                    from: relation.from.clone(),
                })?;
        let queued = by_note.iter().flat_map(|(_, r)| r).any(|r| *r == relation);
        if graph.has_relation(&relation) || queued {
            continue;
        }
        match by_note.iter_mut().find(|(n, _)| n.id == note.id) {
            Some((_, list)) => list.push(relation),
            None => by_note.push((note, vec![relation])),
        }
    }
    let mut created = Vec::new();
    for (note, list) in by_note {
        let lines: Vec<String> = list
            .iter()
            .map(|r| relation_line(&r.relation_type, &r.to))
            .collect();
        crate::notes::rewrite_note(engine, &project, note, |text| {
            Some(append_lines(text, &lines))
        })?;
        created.extend(list);
    }
    Ok(GraphWrite {
        written: created,
        redacted,
    })
}

/// add_observations: appends the observations an entity lacks; every entity must exist.
pub(crate) fn add_observations(
    engine: &Engine,
    choice: &ProjectChoice,
    additions: &[EntityObservations],
) -> Result<GraphWrite<ObservationsAdded>> {
    let (project, graph) = project_graph(&engine.store, choice)?;
    let mut additions = additions.to_vec();
    let redacted = crate::authored::redact_fields(
        &engine.store,
        additions.iter_mut().flat_map(|a| a.observations.iter_mut()),
    );
    let mut plan = Vec::new();
    for addition in &additions {
        let note = graph
            .find(addition.entity_name.trim())
            .ok_or_else(|| GraphError::EntityNotFound(addition.entity_name.clone()))?;
        let existing: HashSet<String> = Graph::entity(note).observations.into_iter().collect();
        let contents: Vec<&str> = addition.observations.iter().map(String::as_str).collect();
        let new: Vec<&str> = dedup_observations(&contents)
            .into_iter()
            .filter(|o| !existing.contains(&normalized_observation(o)))
            .collect();
        plan.push((note, addition.entity_name.clone(), new));
    }
    let mut results = Vec::new();
    for (note, entity_name, new) in plan {
        if !new.is_empty() {
            let lines: Vec<String> = new.iter().map(|o| observation_line(o)).collect();
            crate::notes::rewrite_note(engine, &project, note, |text| {
                Some(append_lines(text, &lines))
            })?;
        }
        results.push(ObservationsAdded {
            entity_name,
            added_observations: new.into_iter().map(normalized_observation).collect(),
        });
    }
    Ok(GraphWrite {
        written: results,
        redacted,
    })
}

/// delete_entities: deletes each entity's note and the relation items other notes hold to
/// it. Names that are not entities are not refused: they are the answer.
pub(crate) fn delete_entities(
    engine: &Engine,
    choice: &ProjectChoice,
    names: &[String],
) -> Result<Vec<String>> {
    let (project, graph) = project_graph(&engine.store, choice)?;
    let mut doomed: Vec<&NoteRecord> = Vec::new();
    let mut not_found: Vec<String> = Vec::new();
    for name in names {
        match graph.find(name.trim()) {
            Some(note) if !doomed.iter().any(|d| d.id == note.id) => doomed.push(note),
            Some(_) => {}
            None => not_found.push(name.clone()),
        }
    }
    let doomed_names: HashSet<&str> = doomed.iter().map(|n| n.title.as_str()).collect();
    for (note, edges) in graph.notes.iter().zip(&graph.edges) {
        if !doomed_names.contains(note.title.as_str()) {
            remove_edges(engine, &project, note, edges, |r| {
                doomed_names.contains(r.to.as_str())
            })?;
        }
    }
    for note in &doomed {
        crate::notes::delete_note_file(engine, &project, note)?;
    }
    Ok(not_found)
}

/// delete_observations: removes the given observations; missing ones are counted out,
/// not refused.
pub(crate) fn delete_observations(
    engine: &Engine,
    choice: &ProjectChoice,
    deletions: &[EntityObservations],
) -> Result<ObservationsDeleted> {
    let (project, graph) = project_graph(&engine.store, choice)?;
    let mut outcome = ObservationsDeleted::default();
    for deletion in deletions {
        let Some(note) = graph.find(deletion.entity_name.trim()) else {
            outcome.missing_entities.push(deletion.entity_name.clone());
            continue;
        };
        let doomed: HashSet<String> = deletion
            .observations
            .iter()
            .map(|o| normalized_observation(o))
            .collect();
        // The edit may run again on a newer text; the count is the last run's.
        let removed_here = std::cell::Cell::new(0);
        crate::notes::rewrite_note(engine, &project, note, |text| {
            let (text, removed) = remove_items(text, |item| match item {
                Item::Observation(o) => doomed.contains(&observation_text(o)),
                Item::Relation(_) => false,
            });
            removed_here.set(removed);
            (removed > 0).then_some(text)
        })?;
        outcome.deleted += removed_here.get();
    }
    Ok(outcome)
}

/// delete_relations: removes the given relations' list items; the answer counts those
/// the graph had (missing ones are not refused).
pub(crate) fn delete_relations(
    engine: &Engine,
    choice: &ProjectChoice,
    relations: &[GraphRelation],
) -> Result<usize> {
    let (project, graph) = project_graph(&engine.store, choice)?;
    let doomed: HashSet<GraphRelation> = relations
        .iter()
        .filter_map(|r| graph.resolve(r).map(|(_, relation)| relation))
        .collect();
    let deleted = graph.relations().filter(|r| doomed.contains(r)).count();
    for (note, edges) in graph.notes.iter().zip(&graph.edges) {
        remove_edges(engine, &project, note, edges, |r| doomed.contains(r))?;
    }
    Ok(deleted)
}

/// Removes the relation items of a note whose edges `doomed` picks.
fn remove_edges(
    engine: &Engine,
    project: &Project,
    note: &NoteRecord,
    edges: &[Edge],
    doomed: impl Fn(&GraphRelation) -> bool,
) -> Result<()> {
    let written: HashSet<(&str, &str)> = edges
        .iter()
        .filter(|e| doomed(&e.relation))
        .map(|e| (e.relation.relation_type.as_str(), e.written.as_str()))
        .collect();
    if written.is_empty() {
        return Ok(());
    }
    crate::notes::rewrite_note(engine, project, note, |text| {
        let (text, removed) = remove_items(text, |item| match item {
            Item::Relation(r) => written.contains(&(r.relation_type.as_str(), r.target.as_str())),
            Item::Observation(_) => false,
        });
        (removed > 0).then_some(text)
    })?;
    Ok(())
}

/// read_graph: every entity and relation of the project (with the hidden notes `reveal`
/// asks for).
pub(crate) fn read_graph(
    store: &Store,
    choice: &ProjectChoice,
    reveal: Reveal,
) -> Result<KnowledgeGraph> {
    let (_, graph) = project_graph_revealing(store, choice, reveal)?;
    Ok(KnowledgeGraph {
        entities: graph.notes.iter().map(Graph::entity).collect(),
        relations: graph.relations().collect(),
    })
}

/// search_nodes: entities whose name, type or an observation contains the query (ignoring
/// case), with their relations.
pub(crate) fn search_nodes(
    store: &Store,
    choice: &ProjectChoice,
    query: &str,
    reveal: Reveal,
) -> Result<KnowledgeGraph> {
    let (_, graph) = project_graph_revealing(store, choice, reveal)?;
    let query = query.to_lowercase();
    Ok(graph.subgraph(|e| Graph::matches(e, &query)))
}

/// open_nodes: the named entities, with their relations. A superseded note is skipped
/// like a name that is none unless `reveal` asks for it.
pub(crate) fn open_nodes(
    store: &Store,
    choice: &ProjectChoice,
    names: &[String],
    reveal: Reveal,
) -> Result<KnowledgeGraph> {
    let (_, graph) = project_graph_revealing(store, choice, reveal)?;
    let wanted: HashSet<&str> = names
        .iter()
        .filter_map(|n| graph.find(n.trim()))
        .map(|n| n.title.as_str())
        .collect();
    Ok(graph.subgraph(|e| wanted.contains(e.name.as_str())))
}

/// Observations in order without repeats (as they will read back).
fn dedup_observations<'a>(observations: &[&'a str]) -> Vec<&'a str> {
    let mut seen = HashSet::new();
    observations
        .iter()
        .copied()
        .filter(|o| !o.trim().is_empty() && seen.insert(normalized_observation(o)))
        .collect()
}
