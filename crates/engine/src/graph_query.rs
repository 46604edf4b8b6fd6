//! corporatepiyush/mcp-memory's read-only graph tools over the same graph of notes as the
//! official memory server's (`graph`): paths, neighbourhoods, subgraphs, counts,
//! relation search, one entity described, several fetched at once, and read_graph and
//! search_nodes a page at a time. Every walk is a pure function of `Graph`.
//!
//! Nodes are entities (notes); a relation whose target is no entity (a forward link) is shown
//! where relations are listed, but no walk passes through it. Paths and subgraphs follow
//! relations either way, as that server's do.
//!
//! Superseded notes are no entities unless a tool that reads entities is asked for them
//! (`Reveal`); the counts, type lists and relation search always leave them out.

use note::memory::Reveal;
use std::collections::{HashMap, HashSet, VecDeque};

use super::error::GraphError;
use super::graph::{Entity, Graph, GraphRelation, KnowledgeGraph};
use super::scope::ProjectChoice;
use super::Result;
use crate::Store;

/// The most hops get_neighbors and extract_subgraph walk.
pub(crate) const MAX_DEPTH: usize = 16;
/// find_all_paths' bounds: the hops of a path, and the paths returned.
pub(crate) const MAX_PATH_DEPTH: usize = 10;
pub(crate) const MAX_PATHS: usize = 100;
/// The most entities a page holds, and the most relations search_relations returns.
pub(crate) const MAX_PAGE: usize = 1000;
/// search_nodes' page when a page is asked for without a limit.
pub(crate) const SEARCH_PAGE: usize = 20;
/// The most names batch_get_entities looks up.
pub(crate) const MAX_NAMES: usize = 1000;

/// Which relations a walk follows from an entity.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Out,
    In,
    Both,
}

/// Which entities a page of read_graph or search_nodes holds: of one type (or any), from
/// `offset`, at most `limit` (each tool has its default).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EntityPage {
    pub entity_type: Option<String>,
    pub offset: usize,
    pub limit: Option<usize>,
}

/// Aggregate counts of a graph.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GraphStats {
    pub entities: usize,
    pub relations: usize,
    pub observations: usize,
}

/// A type and how many entities (or relations) have it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TypeCount {
    pub name: String,
    pub count: usize,
}

/// One entity with everything around it: its relations either way, the names at their other
/// ends, and how many relations it has.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntityDescription {
    pub entity: Entity,
    pub relations: Vec<GraphRelation>,
    pub neighbors: Vec<String>,
    pub degree: usize,
}

/// A relation between two entities, by their indices in `Graph::notes`.
struct Link<'a> {
    from: usize,
    to: usize,
    relation: &'a GraphRelation,
}

impl Graph {
    /// Every relation between two entities, once.
    fn links(&self) -> Vec<Link<'_>> {
        let mut seen = HashSet::new();
        let mut links = Vec::new();
        for (from, edges) in self.edges.iter().enumerate() {
            for edge in edges {
                let Some(to) = edge.target else { continue };
                if seen.insert((from, to, edge.relation.relation_type.as_str())) {
                    links.push(Link {
                        from,
                        to,
                        relation: &edge.relation,
                    });
                }
            }
        }
        links
    }

    /// The index in `notes` of the entity a name means.
    pub(super) fn index_of(&self, name: &str) -> Option<usize> {
        let note = self.find(name.trim())?;
        self.notes.iter().position(|n| n.id == note.id)
    }

    /// Each entity's neighbours either way, each once, outgoing ones first.
    fn undirected(&self) -> Vec<Vec<usize>> {
        let links = self.links();
        let mut adjacent: Vec<Vec<usize>> = vec![Vec::new(); self.notes.len()];
        for link in &links {
            adjacent[link.from].push(link.to);
        }
        for link in &links {
            adjacent[link.to].push(link.from);
        }
        for list in &mut adjacent {
            let mut seen = HashSet::new();
            list.retain(|n| seen.insert(*n));
        }
        adjacent
    }

    fn name(&self, index: usize) -> String {
        self.notes[index].title.clone()
    }

    /// The entities of `reached` in the graph's order, with `relations`.
    fn part(&self, reached: &HashSet<usize>, relations: Vec<GraphRelation>) -> KnowledgeGraph {
        KnowledgeGraph {
            entities: (0..self.notes.len())
                .filter(|i| reached.contains(i))
                .map(|i| Graph::entity(&self.notes[i]))
                .collect(),
            relations,
        }
    }
}

/// The shortest path from `from` to `to` over relations either way, by breadth-first search.
fn shortest_path(adjacent: &[Vec<usize>], from: usize, to: usize) -> Option<Vec<usize>> {
    let mut parent: HashMap<usize, usize> = HashMap::new();
    let mut queue = VecDeque::from([from]);
    let mut seen = HashSet::from([from]);
    while let Some(current) = queue.pop_front() {
        if current == to {
            let mut path = vec![to];
            while let Some(&p) = parent.get(path.last()?) {
                path.push(p);
            }
            path.reverse();
            return Some(path);
        }
        for &next in &adjacent[current] {
            if seen.insert(next) {
                parent.insert(next, current);
                queue.push_back(next);
            }
        }
    }
    None
}

/// Every simple path from `from` to `to` of at most `max_depth` hops, shortest first, until
/// `max_paths` are found.
fn all_paths(
    adjacent: &[Vec<usize>],
    from: usize,
    to: usize,
    max_depth: usize,
    max_paths: usize,
) -> Vec<Vec<usize>> {
    let mut found = Vec::new();
    let mut queue = VecDeque::from([vec![from]]);
    while let Some(path) = queue.pop_front() {
        let current = *path.last().unwrap_or(&from);
        for &next in &adjacent[current] {
            if found.len() >= max_paths {
                return found;
            }
            if next == to {
                let mut whole = path.clone();
                whole.push(next);
                found.push(whole);
            } else if !path.contains(&next) && path.len() < max_depth {
                let mut longer = path.clone();
                longer.push(next);
                queue.push_back(longer);
            }
        }
    }
    found
}

fn check_depth(depth: usize) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(GraphError::DepthTooLarge { max: MAX_DEPTH }.into());
    }
    Ok(())
}

/// The entities of `names` (the first one being the source, the second the target of the
/// search), or which of them is not an entity.
fn endpoints(graph: &Graph, from: &str, to: &str) -> Result<(usize, usize)> {
    let from = graph
        .index_of(from)
        .ok_or_else(|| graph.missing(from, GraphError::SourceNotFound))?;
    let to = graph
        .index_of(to)
        .ok_or_else(|| graph.missing(to, GraphError::TargetNotFound))?;
    Ok((from, to))
}

/// find_path: the names along the shortest path between two entities, or None.
pub(crate) fn find_path(
    store: &Store,
    choice: &ProjectChoice,
    from: &str,
    to: &str,
    reveal: Reveal,
) -> Result<Option<Vec<String>>> {
    let (_, graph) = crate::graph::project_graph_revealing(store, choice, reveal)?;
    let (from, to) = endpoints(&graph, from, to)?;
    let path = shortest_path(&graph.undirected(), from, to);
    Ok(path.map(|p| p.into_iter().map(|i| graph.name(i)).collect()))
}

/// find_all_paths: the simple paths between two entities, shortest first; `max_depth`
/// and `max_paths` are capped at `MAX_PATH_DEPTH` and `MAX_PATHS`.
pub(crate) fn find_all_paths(
    store: &Store,
    choice: &ProjectChoice,
    from: &str,
    to: &str,
    max_depth: usize,
    max_paths: usize,
    reveal: Reveal,
) -> Result<Vec<Vec<String>>> {
    let (_, graph) = crate::graph::project_graph_revealing(store, choice, reveal)?;
    let (from, to) = endpoints(&graph, from, to)?;
    if from == to {
        return Ok(vec![vec![graph.name(from)]]);
    }
    let paths = all_paths(
        &graph.undirected(),
        from,
        to,
        max_depth.min(MAX_PATH_DEPTH),
        max_paths.min(MAX_PATHS),
    );
    Ok(paths
        .into_iter()
        .map(|p| p.into_iter().map(|i| graph.name(i)).collect())
        .collect())
}

/// get_neighbors: the entity and those within `depth` hops along relations of
/// `relation_type` (any, if None) in `direction`, with the relations walked.
pub(crate) fn neighbors(
    store: &Store,
    choice: &ProjectChoice,
    name: &str,
    direction: Direction,
    relation_type: Option<&str>,
    depth: usize,
    reveal: Reveal,
) -> Result<KnowledgeGraph> {
    check_depth(depth)?;
    let (_, graph) = crate::graph::project_graph_revealing(store, choice, reveal)?;
    let start = graph
        .index_of(name)
        .ok_or_else(|| graph.missing(name, GraphError::EntityNotFound))?;
    let links: Vec<Link> = graph
        .links()
        .into_iter()
        .filter(|l| relation_type.is_none_or(|t| l.relation.relation_type == t))
        .collect();
    let mut reached = HashSet::from([start]);
    let mut walked: HashSet<usize> = HashSet::new();
    let mut frontier = HashSet::from([start]);
    for _ in 0..depth {
        let mut next = HashSet::new();
        for (i, link) in links.iter().enumerate() {
            let out = direction != Direction::In && frontier.contains(&link.from);
            let inward = direction != Direction::Out && frontier.contains(&link.to);
            for (taken, other) in [(out, link.to), (inward, link.from)] {
                if taken {
                    walked.insert(i);
                    if reached.insert(other) {
                        next.insert(other);
                    }
                }
            }
        }
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    let relations = links
        .iter()
        .enumerate()
        .filter(|(i, _)| walked.contains(i))
        .map(|(_, l)| l.relation.clone())
        .collect();
    Ok(graph.part(&reached, relations))
}

/// extract_subgraph: the named entities (names that are none are skipped) and those within
/// `depth` hops of them either way, with every relation among them.
pub(crate) fn extract_subgraph(
    store: &Store,
    choice: &ProjectChoice,
    names: &[String],
    depth: usize,
    reveal: Reveal,
) -> Result<KnowledgeGraph> {
    check_depth(depth)?;
    let (_, graph) = crate::graph::project_graph_revealing(store, choice, reveal)?;
    let adjacent = graph.undirected();
    let mut frontier: Vec<usize> = names.iter().filter_map(|n| graph.index_of(n)).collect();
    let mut reached: HashSet<usize> = frontier.iter().copied().collect();
    for _ in 0..depth {
        let next: Vec<usize> = frontier
            .iter()
            .flat_map(|&i| adjacent[i].iter().copied())
            .filter(|&n| reached.insert(n))
            .collect();
        if next.is_empty() {
            break;
        }
        frontier = next;
    }
    let relations = graph
        .links()
        .iter()
        .filter(|l| reached.contains(&l.from) && reached.contains(&l.to))
        .map(|l| l.relation.clone())
        .collect();
    Ok(graph.part(&reached, relations))
}

/// describe_entity: one entity, its relations either way, its neighbours and degree.
pub(crate) fn describe_entity(
    store: &Store,
    choice: &ProjectChoice,
    name: &str,
    reveal: Reveal,
) -> Result<EntityDescription> {
    let (_, graph) = crate::graph::project_graph_revealing(store, choice, reveal)?;
    let note = graph
        .find(name.trim())
        .ok_or_else(|| graph.missing(name, GraphError::EntityNotFound))?;
    let entity = Graph::entity(note);
    let relations: Vec<GraphRelation> = graph
        .relations()
        .filter(|r| r.from == entity.name || r.to == entity.name)
        .collect();
    let mut neighbors: Vec<String> = Vec::new();
    for r in &relations {
        let other = if r.from == entity.name {
            &r.to
        } else {
            &r.from
        };
        if *other != entity.name && !neighbors.contains(other) {
            neighbors.push(other.clone());
        }
    }
    Ok(EntityDescription {
        degree: relations.len(),
        entity,
        relations,
        neighbors,
    })
}

/// graph_stats: how many entities, relations and observations the graph has.
pub(crate) fn graph_stats(store: &Store, choice: &ProjectChoice) -> Result<GraphStats> {
    let (_, graph) = crate::graph::project_graph(store, choice)?;
    Ok(GraphStats {
        entities: graph.notes.len(),
        relations: graph.relations().count(),
        observations: graph.notes.iter().map(|n| n.observations.len()).sum(),
    })
}

/// list_entity_types: each entity type with its count, most used first.
pub(crate) fn list_entity_types(store: &Store, choice: &ProjectChoice) -> Result<Vec<TypeCount>> {
    let (_, graph) = crate::graph::project_graph(store, choice)?;
    Ok(ranked(graph.notes.iter().map(|n| n.note_type.clone())))
}

/// list_relation_types: each relation type with its count, most used first.
pub(crate) fn list_relation_types(store: &Store, choice: &ProjectChoice) -> Result<Vec<TypeCount>> {
    let (_, graph) = crate::graph::project_graph(store, choice)?;
    Ok(ranked(graph.relations().map(|r| r.relation_type)))
}

/// search_relations: the relations from, to and of the type given (an empty or absent
/// filter matches every relation), at most `MAX_PAGE`.
pub(crate) fn search_relations(
    store: &Store,
    choice: &ProjectChoice,
    from: Option<&str>,
    to: Option<&str>,
    relation_type: Option<&str>,
) -> Result<Vec<GraphRelation>> {
    let (_, graph) = crate::graph::project_graph(store, choice)?;
    // A name is the entity it means, else the text a forward link holds.
    let named = |name: Option<&str>| {
        name.map(str::trim).filter(|n| !n.is_empty()).map(|n| {
            graph
                .find(n)
                .map_or_else(|| n.to_string(), |note| note.title.clone())
        })
    };
    let (from, to) = (named(from), named(to));
    let relation_type = relation_type.map(str::trim).filter(|t| !t.is_empty());
    Ok(graph
        .relations()
        .filter(|r| from.as_ref().is_none_or(|f| r.from == *f))
        .filter(|r| to.as_ref().is_none_or(|t| r.to == *t))
        .filter(|r| relation_type.is_none_or(|t| r.relation_type == t))
        .take(MAX_PAGE)
        .collect())
}

/// batch_get_entities: each name's entity, or None, in the order given (at most
/// `MAX_NAMES`); a superseded note is None unless `reveal` asks for it.
pub(crate) fn batch_get_entities(
    store: &Store,
    choice: &ProjectChoice,
    names: &[String],
    reveal: Reveal,
) -> Result<Vec<Option<Entity>>> {
    let (_, graph) = crate::graph::project_graph_revealing(store, choice, reveal)?;
    Ok(names
        .iter()
        .take(MAX_NAMES)
        .map(|n| graph.find(n.trim()).map(Graph::entity))
        .collect())
}

/// read_graph a page at a time: the page's entities (at most `MAX_PAGE`, all of them
/// by default) and the relations with both ends among them.
pub(crate) fn read_graph_page(
    store: &Store,
    choice: &ProjectChoice,
    page: &EntityPage,
    reveal: Reveal,
) -> Result<KnowledgeGraph> {
    let (_, graph) = crate::graph::project_graph_revealing(store, choice, reveal)?;
    let picked = paged(&graph, page, MAX_PAGE, |_| true);
    let names: HashSet<&str> = picked.iter().map(|e| e.name.as_str()).collect();
    let relations = graph
        .relations()
        .filter(|r| names.contains(r.from.as_str()) && names.contains(r.to.as_str()))
        .collect();
    Ok(KnowledgeGraph {
        entities: picked,
        relations,
    })
}

/// search_nodes a page at a time (`SEARCH_PAGE` entities by default), with the
/// relations that start or end at the page's entities.
pub(crate) fn search_nodes_page(
    store: &Store,
    choice: &ProjectChoice,
    query: &str,
    page: &EntityPage,
    reveal: Reveal,
) -> Result<KnowledgeGraph> {
    let (_, graph) = crate::graph::project_graph_revealing(store, choice, reveal)?;
    let query = query.to_lowercase();
    let picked = paged(&graph, page, SEARCH_PAGE, |e| Graph::matches(e, &query));
    let names: HashSet<&str> = picked.iter().map(|e| e.name.as_str()).collect();
    Ok(graph.subgraph(|e| names.contains(e.name.as_str())))
}

/// The entities `keep` picks, of the page's type, from its offset, at most its limit
/// (`default_limit` when it has none), never more than `MAX_PAGE`.
fn paged(
    graph: &Graph,
    page: &EntityPage,
    default_limit: usize,
    keep: impl Fn(&Entity) -> bool,
) -> Vec<Entity> {
    let entity_type = page.entity_type.as_deref().filter(|t| !t.is_empty());
    graph
        .notes
        .iter()
        .map(Graph::entity)
        .filter(|e| entity_type.is_none_or(|t| e.entity_type == t))
        .filter(|e| keep(e))
        .skip(page.offset)
        .take(page.limit.unwrap_or(default_limit).min(MAX_PAGE))
        .collect()
}

/// Each distinct value with its count, most frequent first, then by name.
fn ranked(values: impl Iterator<Item = String>) -> Vec<TypeCount> {
    let mut counts: HashMap<String, usize> = HashMap::new();
    for value in values {
        *counts.entry(value).or_default() += 1;
    }
    let mut ranked: Vec<TypeCount> = counts
        .into_iter()
        .map(|(name, count)| TypeCount { name, count })
        .collect();
    ranked.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.name.cmp(&b.name)));
    ranked
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0 - 1 - 2 - 3, and 0 - 4 - 3: two routes from 0 to 3; 5 stands alone.
    fn diamond() -> Vec<Vec<usize>> {
        vec![
            vec![1, 4],
            vec![0, 2],
            vec![1, 3],
            vec![2, 4],
            vec![0, 3],
            vec![],
        ]
    }

    #[test]
    fn the_shortest_path_is_found_breadth_first() {
        let cases: [(usize, usize, Option<Vec<usize>>); 4] = [
            (0, 3, Some(vec![0, 4, 3])),
            (0, 2, Some(vec![0, 1, 2])),
            (2, 2, Some(vec![2])),
            (0, 5, None),
        ];
        for (from, to, expected) in cases {
            assert_eq!(
                shortest_path(&diamond(), from, to),
                expected,
                "{from}->{to}"
            );
        }
    }

    #[test]
    fn all_paths_are_simple_shortest_first_and_bounded() {
        let cases: [(usize, usize, Vec<Vec<usize>>); 4] = [
            (6, 50, vec![vec![0, 4, 3], vec![0, 1, 2, 3]]),
            (2, 50, vec![vec![0, 4, 3]]),
            (1, 50, vec![]),
            (6, 1, vec![vec![0, 4, 3]]),
        ];
        for (depth, max, expected) in cases {
            assert_eq!(
                all_paths(&diamond(), 0, 3, depth, max),
                expected,
                "{depth} {max}"
            );
        }
    }

    #[test]
    fn types_rank_by_count_then_name() {
        let ranked = ranked(["b", "a", "c", "a", "b"].into_iter().map(String::from));
        let pairs: Vec<(&str, usize)> = ranked.iter().map(|t| (t.name.as_str(), t.count)).collect();
        assert_eq!(pairs, [("a", 2), ("b", 2), ("c", 1)]);
    }
}
