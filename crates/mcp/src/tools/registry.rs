//! Every tool gitmem serves, in one place and in the order `tools/list` shows them, by the
//! family `serve --tools` names. A tool's spec (name, description, hints, argument schema,
//! handler) sits beside its handler in the family's module; this file only lists them.

use super::{
    correct, crypto, decay, graph, graph_query, history, inspect, links, memory, notes, pack,
    posix, projects, query, schema, ToolSpec,
};

/// Basic Memory's tools and gitmem's own (links, history, sync): `--tools basic`, the default.
pub(super) const BASIC: &[ToolSpec] = &[
    notes::WRITE_NOTE,
    notes::READ_NOTE,
    notes::VIEW_NOTE,
    notes::EDIT_NOTE,
    notes::MOVE_NOTE,
    notes::DELETE_NOTE,
    notes::READ_CONTENT,
    history::NOTE_HISTORY,
    history::NOTE_DIFF,
    history::RESTORE_NOTE,
    query::SEARCH_NOTES,
    query::RECENT_ACTIVITY,
    query::BUILD_CONTEXT,
    query::LIST_DIRECTORY,
    projects::LIST_MEMORY_PROJECTS,
    projects::LIST_WORKSPACES,
    projects::CREATE_MEMORY_PROJECT,
    projects::DELETE_PROJECT,
    projects::CANVAS,
    projects::SYNC_STATUS,
    query::SEARCH,
    query::FETCH,
    projects::DIAGNOSTICS,
    links::LINK_FOLDER,
    links::UNLINK_FOLDER,
    links::LIST_LINKS,
    links::SYNC,
    posix::CAT,
    posix::GREP,
    posix::LS,
    posix::FIND,
    posix::TAIL,
    posix::MAN,
    schema::SCHEMA_VALIDATE,
    schema::SCHEMA_INFER,
    schema::SCHEMA_DIFF,
];

/// The POSIX-shaped tools among the basic ones, which `[server] posix_tools = false` hides.
pub(super) const POSIX: &[&str] = &[
    posix::CAT.name,
    posix::GREP.name,
    posix::LS.name,
    posix::FIND.name,
    posix::TAIL.name,
    posix::MAN.name,
];

/// The official memory server's knowledge-graph tools, and the graph queries of the other
/// graph servers: `--tools graph`.
pub(super) const GRAPH: &[ToolSpec] = &[
    graph::CREATE_ENTITIES,
    graph::CREATE_RELATIONS,
    graph::ADD_OBSERVATIONS,
    graph::DELETE_ENTITIES,
    graph::DELETE_OBSERVATIONS,
    graph::DELETE_RELATIONS,
    graph::READ_GRAPH,
    graph::SEARCH_NODES,
    graph::OPEN_NODES,
    graph_query::FIND_PATH,
    graph_query::FIND_ALL_PATHS,
    graph_query::EXTRACT_SUBGRAPH,
    graph_query::DESCRIBE_ENTITY,
    graph_query::GET_NEIGHBORS,
    graph_query::GRAPH_STATS,
    graph_query::LIST_ENTITY_TYPES,
    graph_query::LIST_RELATION_TYPES,
    graph_query::SEARCH_RELATIONS,
    graph_query::EXPORT_GRAPH,
    graph_query::UPSERT_ENTITIES,
    graph_query::MERGE_ENTITIES,
    graph_query::BATCH_GET_ENTITIES,
];

/// The gitmem memory API: `--tools gitmem`.
pub(super) const GITMEM: &[ToolSpec] = &[
    memory::MEMORY_SAVE,
    memory::MEMORY_CREATE,
    memory::MEMORY_GET,
    memory::MEMORY_UPDATE,
    memory::MEMORY_DELETE,
    memory::MEMORY_SEARCH,
    memory::MEMORY_LOOKUP_BASIC_ID,
    memory::MEMORY_IMPORT_BASIC,
    decay::MEMORY_PRUNE,
    decay::MEMORY_COMPACT,
    crypto::MEMORY_ENCRYPT,
    crypto::MEMORY_DECRYPT,
    pack::MEMORY_CONTEXT,
    correct::CORRECT_MEMORY,
];

/// Looking inside the index: `--tools diagnostics`.
pub(super) const DIAGNOSTICS: &[ToolSpec] = &[inspect::INSPECT_NOTE, inspect::INSPECT_QUERY];
