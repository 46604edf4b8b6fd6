//! The operations of gitmem as typed Rust functions over config, vault and index. The CLI and
//! the MCP server are thin adapters over this crate. This file is its map: the feature modules,
//! the contexts they run over (`Store`, `Engine`), and `App`, which lists every public workflow
//! in one line.

pub mod activity;
mod authored;
pub mod background;
pub mod canvas;
mod changes;
pub mod compact;
pub mod config;
pub mod content;
pub mod context;
pub mod correct;
pub mod crypto;
pub mod decay;
pub mod directory;
pub mod edit;
pub mod encryption;
pub mod error;
pub mod git;
pub mod graph;
mod graph_merge;
pub mod graph_query;
pub mod health;
pub mod history;
pub mod import;
pub mod inspect;
pub mod links;
pub mod memory;
pub mod metrics;
pub mod models;
mod mounts;
pub mod note_input;
pub mod notes;
pub mod oneshot;
pub mod pack;
pub mod posix;
pub mod progress;
pub mod projects;
pub mod read;
pub mod relocate;
pub mod reranker;
pub mod retrieval;
pub mod row;
pub mod schema;
mod schema_notes;
pub mod scope;
pub mod search;
pub mod semantic;
pub mod status;
pub mod sync;
pub mod throughput;
pub mod timeframe;
pub mod tokens;
mod uses;
pub mod write;

use std::path::Path;
use std::sync::{Arc, Mutex, RwLock, RwLockReadGuard, RwLockWriteGuard};

use chrono::{DateTime, Utc};
use index::Index;
use note::import::Source;
use note::memory::Reveal;
use note::schema::infer::Inference;
use serde_json::{Map, Value};
use vault::links::LinkRecord;

use crate::activity::{ActivityAnswer, ActivityItem};
use crate::canvas::{CanvasRequest, CanvasWritten};
use crate::compact::{CompactOutcome, CompactRequest};
use crate::config::{Config, Project};
use crate::content::Content;
use crate::context::{ContextRequest, GraphContext};
use crate::correct::{Corrected, CorrectionRequest};
use crate::crypto::{CryptoChange, NewIdentity};
use crate::decay::{PruneOutcome, PruneRequest};
use crate::directory::{DirectoryListing, DirectoryRequest};
use crate::edit::{EditNoteRequest, EditRefusal, NoteEdited};
use crate::error::HeldSecret;
use crate::git::exchange::ExchangeReport;
use crate::graph::{
    Entity, EntityObservations, GraphRelation, GraphWrite, KnowledgeGraph, ObservationsAdded,
    ObservationsDeleted,
};
use crate::graph_query::{EntityDescription, EntityPage, GraphStats, TypeCount};
use crate::health::Health;
use crate::history::{NoteDiff, NoteHistory, Restored};
use crate::import::{ImportOptions, ImportReport};
use crate::inspect::{NoteInspection, QueryInspection};
use crate::links::{LinkOptions, ScanReport};
use crate::memory::ingest::IngestReport;
use crate::memory::search::{MemoryPage, MemoryQuery};
use crate::memory::{Memory, MemoryDeleted, MemoryPatch, NewMemory};
use crate::models::hub::{Download, ModelFetch};
use crate::models::{ModelChoice, ModelInfo};
use crate::notes::{NoteFile, NoteWritten};
use crate::oneshot::{Observer, Oneshot};
use crate::pack::{ContextPack, PackRequest};
use crate::posix::man::Manual;
use crate::posix::{CatRequest, Catted, FindRequest, GrepRequest, Grepped, Listed, Route};
use crate::projects::{
    AddProjectError, BasicMemoryImport, ProjectAdded, ProjectCreated, ProjectListing,
    ProjectRefusal, ProjectStatistics,
};
use crate::read::{NoteLines, NoteView, Page, ReadRefusal};
use crate::relocate::{
    DeleteNoteRequest, DeleteRefusal, Deleted, MoveNoteRequest, MoveRefusal, Moved,
};
use crate::reranker::RerankStatus;
use crate::schema::{DriftReport, SchemaRefusal, ValidationReport};
use crate::scope::ProjectChoice;
use crate::search::rows::SearchResponse;
use crate::search::{ScopedSearch, SearchRequest};
use crate::semantic::{EmbedProgress, SemanticStatus};
use crate::status::{Diagnostics, MetricsReport, Status, SyncStatus};
use crate::sync::{SyncEvent, SyncMode, SyncReport};
use crate::throughput::{ThroughputReport, ThroughputSpec};
use crate::write::{WriteNoteRequest, WriteRefusal};

pub use error::{InternalError, OutsideProject, PathArg, ServiceError, UserError};
/// A client's reads wait for its own writes only (read-your-writes); adapters give each
/// client one.
pub use index::horizon::{self, Horizon, Horizons};
pub use row::{ChainLink, CorrectionChain, NoteRow, RelationRow, SchemaViolation};

/// What a workflow did, or why it declined: a refusal is an answer for the agent (guidance
/// text, or a JSON error code), not a failure.
#[derive(Debug, Clone)]
pub enum Outcome<T, R> {
    Done(T),
    Refused(R),
}

/// Turns a path that escapes the project, met deep inside a workflow, into that workflow's
/// refusal, so every tool answers it the same way wherever it is found.
pub(crate) fn refuse_outside<T, R>(
    result: Result<Outcome<T, R>>,
    refusal: impl FnOnce(OutsideProject) -> R,
) -> Result<Outcome<T, R>> {
    match result {
        Err(ServiceError::User(UserError::OutsideProject(o))) => Ok(Outcome::Refused(refusal(o))),
        other => other,
    }
}

pub type Result<T> = std::result::Result<T, ServiceError>;

/// Now as the times gitmem records (a memory's, a link's scan, a token's creation) are
/// written: RFC 3339, UTC, whole seconds, so one form reads back everywhere.
pub(crate) fn now_text() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}

// The contexts the workflows run over. `Store` is a data root's projects, their files and
// their index: many features need no more. `Engine` adds what only some need: the models, the
// history of versioned projects, the metrics and the memory write lock. They live here, at the
// root, because they compose the features' own state; `App` below owns one `Engine` and hands
// each feature the narrowest context it takes.
/// A data root's configuration, the index of its projects and the linked folders mounted in
/// them.
pub(crate) struct Store {
    config: RwLock<Config>,
    pub(crate) index: Index,
    /// Linked-folder mounts per project, reloaded when links.json changes.
    pub(crate) mount_cache: mounts::MountCache,
    /// Serialises this process's read-modify-write of links.json.
    pub(crate) links_lock: Mutex<()>,
    /// Initial indexing of each project, and link changes, as this process sees them.
    pub(crate) progress: progress::Progress,
}

impl Store {
    pub(crate) fn config(&self) -> RwLockReadGuard<'_, Config> {
        self.config.read().unwrap_or_else(|e| e.into_inner())
    }

    pub(crate) fn config_mut(&self) -> RwLockWriteGuard<'_, Config> {
        self.config.write().unwrap_or_else(|e| e.into_inner())
    }
}

/// Everything the workflows share: the store, and the state of the features above it.
pub(crate) struct Engine {
    pub(crate) store: Store,
    /// Serialises this process's memory writes with their count against `[limits]
    /// max_total_daily`.
    pub(crate) memory_lock: Mutex<()>,
    pub(crate) semantic: semantic::Semantic,
    pub(crate) reranking: reranker::Reranking,
    /// Automatic commits of versioned projects.
    pub(crate) history: git::commits::History,
    /// What `/metrics` reports; shared with the history thread, which counts failed pushes.
    pub(crate) metrics: Arc<metrics::Metrics>,
}

impl Engine {
    /// Opens a data root. When its index had to be discarded, every project is indexed again
    /// from its files before anything else runs.
    pub(crate) fn open(root: &Path) -> Result<Self> {
        let config = Config::load(root)?;
        let index = Index::open(&config.index_dir())?;
        if let Some(ms) = config.search.refresh_ms {
            index
                .writer()
                .set_search_pace(std::time::Duration::from_millis(ms));
        }
        let metrics = Arc::new(metrics::Metrics::default());
        let history = git::commits::History::new(config.redactor.clone(), metrics.clone());
        let engine = Self {
            store: Store {
                config: RwLock::new(config),
                index,
                mount_cache: Default::default(),
                links_lock: Default::default(),
                progress: Default::default(),
            },
            memory_lock: Default::default(),
            semantic: Default::default(),
            reranking: Default::default(),
            history,
            metrics,
        };
        recover(&engine)?;
        git::versioned::recover_repositories(&engine.store);
        crate::sync::finish_interrupted_rebuilds(&engine)?;
        if engine.store.index.rebuilt {
            for project in crate::scope::projects(&engine.store, None)? {
                match crate::sync::rebuild_project(&engine, &project, &|_| {}) {
                    Ok(report) => tracing::warn!(
                        "re-indexed project '{}' from its files ({} files)",
                        project.name,
                        report.scanned
                    ),
                    Err(e) => tracing::warn!("could not re-index project '{}': {e}", project.name),
                }
            }
        }
        Ok(engine)
    }

    /// Finishes every acknowledged write (graph and search) and stops the writer threads. Calls
    /// made afterwards fail; a process calls this last, whoever else still holds the app.
    pub(crate) fn shutdown(&self) {
        semantic::stop_embedding(self);
        if let Err(e) = self.store.index.flush_uses() {
            tracing::warn!("storing uses of notes failed: {e}");
        }
        self.store.index.writer().shutdown();
        self.history.finish();
    }

    pub(crate) fn close(self) {
        self.history.finish();
        self.store.index.close();
    }
}

/// Start-up repair: finishes the search work an earlier process left behind, and reads again
/// the files of notes whose search text it lost, so everything acknowledged is searchable
/// without a reindex.
fn recover(engine: &Engine) -> Result<()> {
    let lost = engine.store.index.recover()?;
    if lost == 0 {
        return Ok(());
    }
    tracing::warn!(
        "an earlier process stopped before {lost} notes were searchable; reading them again"
    );
    for project in crate::scope::projects(&engine.store, None)? {
        if let Err(e) = crate::sync::reread_project(engine, &project) {
            tracing::warn!("re-reading project '{}' failed: {e}", project.name);
        }
    }
    engine.store.index.wait_searchable()?;
    Ok(())
}

/// An open data root, shared by every request of a server.
///
/// Its methods are gitmem's public workflows, one line each, in the style of rust-analyzer's
/// `Analysis`: each calls its feature module's function over the narrowest context that
/// feature takes (the `Store` most need, or the whole `Engine`). The docs live on
/// those functions.
pub struct App {
    engine: Engine,
}

impl App {
    pub fn open(root: &Path) -> Result<Self> {
        Ok(Self {
            engine: Engine::open(root)?,
        })
    }

    /// Finishes every acknowledged write and stops the writer threads (`Engine::shutdown`).
    pub fn shutdown(&self) {
        self.engine.shutdown()
    }

    pub fn close(self) {
        self.engine.close()
    }
}

// One line per workflow, grouped by feature module: a list to read, not to reformat.
#[rustfmt::skip]
impl App {
    // the data root
    pub fn config(&self) -> RwLockReadGuard<'_, Config> { self.engine.store.config() }
    pub fn metrics(&self) -> &metrics::Metrics { &self.engine.metrics }
    pub fn graph_generation(&self) -> usize { self.engine.store.index.graph_generation() }
    pub fn wait_searchable(&self) -> Result<()> { Ok(self.engine.store.index.wait_searchable()?) }
    // activity
    pub fn note_page(&self, project: &Project, offset: usize, limit: usize) -> Result<(Vec<NoteRow>, bool)> { activity::note_page(&self.engine.store.index, project, offset, limit) }
    pub fn note_stamps(&self) -> Result<std::collections::HashMap<String, i64>> { activity::note_stamps(&self.engine.store.index) }
    pub fn notes_updated_since(&self, project: &Project, since: DateTime<Utc>) -> Result<Vec<NoteRow>> { activity::notes_updated_since(&self.engine.store.index, project, since) }
    pub fn recent_activity_for(&self, choice: &ProjectChoice, types: &[String], since: DateTime<Utc>, page: usize, page_size: usize, group_by: Option<&str>) -> Result<ActivityAnswer> { activity::recent_activity_for(&self.engine, choice, types, since, page, page_size, group_by) }
    // canvas
    pub fn canvas(&self, choice: &ProjectChoice, req: &CanvasRequest) -> Result<Outcome<CanvasWritten, OutsideProject>> { canvas::canvas(&self.engine, choice, req) }
    // compact
    pub fn memory_compact(&self, choice: &ProjectChoice, request: &CompactRequest) -> Result<CompactOutcome> { compact::memory_compact(&self.engine, choice, request) }
    // context
    pub fn build_context_at(&self, choice: &ProjectChoice, path: &str, request: ContextRequest) -> Result<(Project, GraphContext)> { context::build_context_at(&self.engine.store, choice, path, request) }
    // correct
    pub fn correct_memory(&self, choice: &ProjectChoice, request: &CorrectionRequest) -> Result<Outcome<Corrected, WriteRefusal>> { correct::correct_memory(&self.engine, choice, request) }
    // crypto
    pub fn crypto_keygen(&self, out: Option<&Path>) -> Result<NewIdentity> { crypto::crypto_keygen(&self.engine.store, out) }
    pub fn crypto_enable(&self, choice: &ProjectChoice, recipients: Option<Vec<String>>) -> Result<CryptoChange> { crypto::crypto_enable(&self.engine, choice, recipients) }
    pub fn crypto_disable(&self, choice: &ProjectChoice) -> Result<CryptoChange> { crypto::crypto_disable(&self.engine, choice) }
    // decay
    pub fn memory_prune(&self, choice: &ProjectChoice, request: &PruneRequest) -> Result<PruneOutcome> { decay::memory_prune(&self.engine, choice, request) }
    // directory
    pub fn list_directory(&self, choice: &ProjectChoice, request: &DirectoryRequest) -> Result<DirectoryListing> { directory::list_directory(&self.engine.store, choice, request) }
    // edit
    pub fn edit_note(&self, choice: &ProjectChoice, req: &EditNoteRequest) -> Result<Outcome<NoteEdited, EditRefusal>> { edit::edit_note(&self.engine, choice, req) }
    // git
    pub fn exchange(&self, choice: &ProjectChoice, direction: git::exchange::Direction) -> Result<ExchangeReport> { git::exchange::exchange(&self.engine, choice, direction) }
    pub fn held_push(&self, project: &Project) -> Result<Vec<HeldSecret>> { git::secrets::held_push(project) }
    pub fn exchange_allowing(&self, choice: &ProjectChoice, direction: git::exchange::Direction, allow: &[String]) -> Result<ExchangeReport> { git::secrets::exchange_allowing(&self.engine, choice, direction, allow) }
    pub fn version_project(&self, name: &str, remote: Option<&str>) -> Result<(Project, ::git::Prepared)> { git::versioned::version_project(&self.engine.store, name, remote) }
    // graph
    pub fn create_entities(&self, choice: &ProjectChoice, entities: &[Entity]) -> Result<GraphWrite<Entity>> { graph::create_entities(&self.engine, choice, entities) }
    pub fn create_relations(&self, choice: &ProjectChoice, relations: &[GraphRelation]) -> Result<GraphWrite<GraphRelation>> { graph::create_relations(&self.engine, choice, relations) }
    pub fn add_observations(&self, choice: &ProjectChoice, additions: &[EntityObservations]) -> Result<GraphWrite<ObservationsAdded>> { graph::add_observations(&self.engine, choice, additions) }
    pub fn delete_entities(&self, choice: &ProjectChoice, names: &[String]) -> Result<Vec<String>> { graph::delete_entities(&self.engine, choice, names) }
    pub fn delete_observations(&self, choice: &ProjectChoice, deletions: &[EntityObservations]) -> Result<ObservationsDeleted> { graph::delete_observations(&self.engine, choice, deletions) }
    pub fn delete_relations(&self, choice: &ProjectChoice, relations: &[GraphRelation]) -> Result<usize> { graph::delete_relations(&self.engine, choice, relations) }
    pub fn read_graph(&self, choice: &ProjectChoice, reveal: Reveal) -> Result<KnowledgeGraph> { graph::read_graph(&self.engine.store, choice, reveal) }
    pub fn search_nodes(&self, choice: &ProjectChoice, query: &str, reveal: Reveal) -> Result<KnowledgeGraph> { graph::search_nodes(&self.engine.store, choice, query, reveal) }
    pub fn open_nodes(&self, choice: &ProjectChoice, names: &[String], reveal: Reveal) -> Result<KnowledgeGraph> { graph::open_nodes(&self.engine.store, choice, names, reveal) }
    // graph_merge
    pub fn upsert_entities(&self, choice: &ProjectChoice, entities: &[Entity]) -> Result<GraphWrite<Entity>> { graph_merge::upsert_entities(&self.engine, choice, entities) }
    pub fn merge_entities(&self, choice: &ProjectChoice, source: &str, target: &str) -> Result<Entity> { graph_merge::merge_entities(&self.engine, choice, source, target) }
    // graph_query
    pub fn find_path(&self, choice: &ProjectChoice, from: &str, to: &str, reveal: Reveal) -> Result<Option<Vec<String>>> { graph_query::find_path(&self.engine.store, choice, from, to, reveal) }
    pub fn find_all_paths(&self, choice: &ProjectChoice, from: &str, to: &str, max_depth: usize, max_paths: usize, reveal: Reveal) -> Result<Vec<Vec<String>>> { graph_query::find_all_paths(&self.engine.store, choice, from, to, max_depth, max_paths, reveal) }
    pub fn neighbors(&self, choice: &ProjectChoice, name: &str, direction: graph_query::Direction, relation_type: Option<&str>, depth: usize, reveal: Reveal) -> Result<KnowledgeGraph> { graph_query::neighbors(&self.engine.store, choice, name, direction, relation_type, depth, reveal) }
    pub fn extract_subgraph(&self, choice: &ProjectChoice, names: &[String], depth: usize, reveal: Reveal) -> Result<KnowledgeGraph> { graph_query::extract_subgraph(&self.engine.store, choice, names, depth, reveal) }
    pub fn describe_entity(&self, choice: &ProjectChoice, name: &str, reveal: Reveal) -> Result<EntityDescription> { graph_query::describe_entity(&self.engine.store, choice, name, reveal) }
    pub fn graph_stats(&self, choice: &ProjectChoice) -> Result<GraphStats> { graph_query::graph_stats(&self.engine.store, choice) }
    pub fn list_entity_types(&self, choice: &ProjectChoice) -> Result<Vec<TypeCount>> { graph_query::list_entity_types(&self.engine.store, choice) }
    pub fn list_relation_types(&self, choice: &ProjectChoice) -> Result<Vec<TypeCount>> { graph_query::list_relation_types(&self.engine.store, choice) }
    pub fn search_relations(&self, choice: &ProjectChoice, from: Option<&str>, to: Option<&str>, relation_type: Option<&str>) -> Result<Vec<GraphRelation>> { graph_query::search_relations(&self.engine.store, choice, from, to, relation_type) }
    pub fn batch_get_entities(&self, choice: &ProjectChoice, names: &[String], reveal: Reveal) -> Result<Vec<Option<Entity>>> { graph_query::batch_get_entities(&self.engine.store, choice, names, reveal) }
    pub fn read_graph_page(&self, choice: &ProjectChoice, page: &EntityPage, reveal: Reveal) -> Result<KnowledgeGraph> { graph_query::read_graph_page(&self.engine.store, choice, page, reveal) }
    pub fn search_nodes_page(&self, choice: &ProjectChoice, query: &str, page: &EntityPage, reveal: Reveal) -> Result<KnowledgeGraph> { graph_query::search_nodes_page(&self.engine.store, choice, query, page, reveal) }
    // health
    pub fn check(&self, project: Option<&str>) -> Result<Health> { health::check(&self.engine.store, project) }
    pub fn repair(&self, project: Option<&str>) -> Result<(Health, Health)> { health::repair(&self.engine, project) }
    // history
    pub fn note_history(&self, choice: &ProjectChoice, identifier: &str, limit: usize) -> Result<NoteHistory> { history::note_history(&self.engine, choice, identifier, limit) }
    pub fn note_diff(&self, choice: &ProjectChoice, identifier: &str, from: Option<&str>, to: Option<&str>) -> Result<NoteDiff> { history::note_diff(&self.engine, choice, identifier, from, to) }
    pub fn restore_note(&self, choice: &ProjectChoice, identifier: &str, version: &str) -> Result<Restored> { history::restore_note(&self.engine, choice, identifier, version) }
    // import
    pub fn import_file(&self, project: &Project, source: Source, file: &Path, options: &ImportOptions, progress: &dyn Fn(usize, usize)) -> Result<ImportReport> { import::import_file(&self.engine, project, source, file, options, progress) }
    // inspect
    pub fn inspect_note(&self, choice: &ProjectChoice, identifier: &str) -> Result<Outcome<NoteInspection, ReadRefusal>> { inspect::inspect_note(&self.engine, choice, identifier) }
    pub fn inspect_query(&self, choice: &ProjectChoice, query: &str, limit: usize) -> Result<QueryInspection> { inspect::inspect_query(&self.engine, choice, query, limit) }
    // links
    pub fn link_folder(&self, choice: &ProjectChoice, options: &LinkOptions) -> Result<(LinkRecord, ScanReport)> { links::link_folder(&self.engine.store, choice, options) }
    pub fn unlink_folder(&self, choice: &ProjectChoice, path: Option<&str>) -> Result<Vec<LinkRecord>> { links::unlink_folder(&self.engine.store, choice, path) }
    pub fn list_links(&self, choice: &ProjectChoice) -> Result<Vec<LinkRecord>> { links::list_links(&self.engine.store, choice) }
    pub fn rescan_links_of(&self, choice: &ProjectChoice, paths: &[String]) -> Result<Vec<ScanReport>> { links::rescan_links_of(&self.engine.store, choice, paths) }
    pub fn rescan_links_across(&self, project: Option<&str>, path: Option<&str>) -> Result<Vec<ScanReport>> { links::rescan_links_across(&self.engine.store, project, path) }
    // memory
    pub fn memory_import_basic(&self, choice: &ProjectChoice, path: &Path, dry_run: bool, map_types: &Map<String, Value>) -> Result<ImportReport> { memory::basic::memory_import_basic(&self.engine, choice, path, dry_run, map_types) }
    pub fn memory_ingest(&self, choice: &ProjectChoice, body: &[u8]) -> Result<IngestReport> { memory::ingest::memory_ingest(&self.engine, choice, body) }
    pub fn memory_save(&self, choice: &ProjectChoice, new: &NewMemory) -> Result<Memory> { memory::memory_save(&self.engine, choice, new) }
    pub fn memory_get(&self, choice: &ProjectChoice, id: &str) -> Result<Memory> { memory::memory_get(&self.engine.store, choice, id) }
    pub fn memory_update(&self, choice: &ProjectChoice, id: &str, patch: &MemoryPatch) -> Result<Memory> { memory::memory_update(&self.engine, choice, id, patch) }
    pub fn memory_delete(&self, choice: &ProjectChoice, id: &str, hard: bool) -> Result<MemoryDeleted> { memory::memory_delete(&self.engine, choice, id, hard) }
    pub fn memory_lookup_basic_id(&self, choice: &ProjectChoice, basic: &str) -> Result<Memory> { memory::memory_lookup_basic_id(&self.engine.store, choice, basic) }
    pub fn memory_search(&self, choice: &ProjectChoice, query: &MemoryQuery) -> Result<MemoryPage> { memory::search::memory_search(&self.engine, choice, query) }
    // models
    pub fn fetch_model(&self, on_progress: &dyn Fn(&Download)) -> ModelFetch { models::hub::fetch_model(&self.engine, on_progress) }
    pub fn model_choice(&self) -> ModelChoice { models::model_choice(&self.engine.store) }
    pub fn install_model(&self, source: &str, name: Option<&str>, on_download: &dyn Fn(&Download)) -> Result<ModelInfo> { models::install_model(&self.engine, source, name, on_download) }
    pub fn distill_model(&self, teacher: Option<&str>, name: Option<&str>, on_progress: &dyn Fn(usize, usize)) -> Result<ModelInfo> { models::distill_model(&self.engine, teacher, name, on_progress) }
    pub fn models(&self) -> Result<Vec<ModelInfo>> { models::models(&self.engine.store) }
    pub fn use_model(&self, name: &str) -> Result<ModelInfo> { models::use_model(&self.engine, name) }
    pub fn remove_model(&self, name: &str) -> Result<ModelInfo> { models::remove_model(&self.engine, name) }
    // notes
    // oneshot
    pub fn oneshot<'a>(&'a self, observer: &'a dyn Observer) -> Oneshot<'a> { oneshot::oneshot(self, observer) }
    // pack
    pub fn memory_context(&self, choice: &ProjectChoice, request: &PackRequest) -> Result<ContextPack> { pack::memory_context(&self.engine, choice, request) }
    // posix
    pub fn man(&self, choice: &ProjectChoice, page: Option<&str>, query: Option<&str>) -> Result<Manual> { posix::man::man(&self.engine, choice, page, query) }
    pub fn route(&self, choice: &ProjectChoice, path: &str) -> Result<Route> { posix::route(&self.engine.store, choice, path) }
    pub fn cat(&self, choice: &ProjectChoice, request: &CatRequest) -> Result<Catted> { posix::cat(&self.engine, choice, request) }
    pub fn grep(&self, choice: &ProjectChoice, request: &GrepRequest) -> Result<Grepped> { posix::grep(&self.engine, choice, request) }
    pub fn ls(&self, choice: &ProjectChoice, path: &str, page: Page) -> Result<Listed> { posix::ls(&self.engine.store, choice, path, page) }
    pub fn find(&self, choice: &ProjectChoice, request: &FindRequest) -> Result<Listed> { posix::find(&self.engine, choice, request) }
    pub fn tail(&self, choice: &ProjectChoice, timeframe: &str, lines: i64) -> Result<Vec<ActivityItem>> { posix::tail(&self.engine, choice, timeframe, lines) }
    // projects
    pub fn add_project(&self, name: &str, path: &Path, make_default: bool) -> Result<Project> { projects::add_project(&self.engine.store, name, path, make_default) }
    pub fn remove_project(&self, name: &str, delete_notes: bool) -> Result<Project> { projects::remove_project(&self.engine.store, name, delete_notes) }
    pub fn set_default_project(&self, name: &str) -> Result<Project> { projects::set_default_project(&self.engine.store, name) }
    pub fn list_projects(&self, choice: &ProjectChoice) -> Result<ProjectListing> { projects::list_projects(&self.engine.store, choice) }
    pub fn create_project_from_tool(&self, choice: &ProjectChoice, name: &str, path: &str, set_default: bool) -> Result<Outcome<ProjectCreated, ProjectRefusal>> { projects::create_project_from_tool(&self.engine, choice, name, path, set_default) }
    pub fn delete_project_from_tool(&self, choice: &ProjectChoice, name: &str, delete_notes: bool) -> Result<Outcome<Project, ProjectRefusal>> { projects::delete_project_from_tool(&self.engine.store, choice, name, delete_notes) }
    pub fn add_project_versioned(&self, name: &str, path: &Path, make_default: bool, git: bool, remote: Option<&str>) -> std::result::Result<ProjectAdded, AddProjectError> { projects::add_project_versioned(&self.engine.store, name, path, make_default, git, remote) }
    pub fn project_statistics(&self, project: &Project) -> Result<ProjectStatistics> { projects::project_statistics(&self.engine.store.index, project) }
    pub fn import_basic_memory(&self, config: Option<&Path>) -> Result<BasicMemoryImport> { projects::import_basic_memory(&self.engine.store, config) }
    // read
    pub fn read_note(&self, choice: &ProjectChoice, identifier: &str, suggestions: Page) -> Result<Outcome<NoteFile, ReadRefusal>> { read::read_note(&self.engine, choice, identifier, suggestions) }
    pub fn read_note_lines(&self, choice: &ProjectChoice, identifier: &str, start: Option<i64>, end: Option<i64>) -> Result<Outcome<NoteLines, ReadRefusal>> { read::read_note_lines(&self.engine, choice, identifier, start, end) }
    pub fn view_note(&self, choice: &ProjectChoice, identifier: &str) -> Result<Outcome<NoteView, ReadRefusal>> { read::view_note(&self.engine, choice, identifier) }
    pub fn fetch_document(&self, choice: &ProjectChoice, id: &str) -> Result<Outcome<NoteFile, ReadRefusal>> { read::fetch_document(&self.engine, choice, id) }
    pub fn read_content(&self, choice: &ProjectChoice, path: &str) -> Result<Outcome<Content, OutsideProject>> { read::read_content(&self.engine.store, choice, path) }
    // relocate
    pub fn move_note(&self, choice: &ProjectChoice, req: &MoveNoteRequest) -> Result<Outcome<Moved, MoveRefusal>> { relocate::move_note(&self.engine, choice, req) }
    pub fn delete_note(&self, choice: &ProjectChoice, req: &DeleteNoteRequest) -> Result<Outcome<Deleted, DeleteRefusal>> { relocate::delete_note(&self.engine, choice, req) }
    // reranker
    pub fn reranker_status(&self) -> RerankStatus { reranker::reranker_status(&self.engine) }
    // schema
    pub fn schema_validate(&self, choice: &ProjectChoice, note_type: Option<&str>, identifier: Option<&str>) -> Result<Outcome<ValidationReport, SchemaRefusal>> { schema::schema_validate(&self.engine.store, choice, note_type, identifier) }
    pub fn schema_infer(&self, choice: &ProjectChoice, note_type: &str, threshold: f64) -> Result<Outcome<Inference, SchemaRefusal>> { schema::schema_infer(&self.engine.store, choice, note_type, threshold) }
    pub fn schema_diff(&self, choice: &ProjectChoice, note_type: &str) -> Result<Outcome<DriftReport, SchemaRefusal>> { schema::schema_diff(&self.engine.store, choice, note_type) }
    // scope
    pub fn project(&self, name: Option<&str>) -> Result<Project> { scope::project(&self.engine.store, name) }
    pub fn projects(&self, name: Option<&str>) -> Result<Vec<Project>> { scope::projects(&self.engine.store, name) }
    pub fn select_project(&self, choice: &ProjectChoice) -> Result<Project> { scope::select_project(&self.engine.store, choice) }
    pub fn visible_projects(&self, choice: &ProjectChoice) -> Result<Vec<Project>> { scope::visible_projects(&self.engine.store, choice) }
    // search
    pub fn search_notes(&self, choice: &ProjectChoice, search_all_projects: bool, request: &SearchRequest) -> Result<ScopedSearch> { search::search_notes(&self.engine, choice, search_all_projects, request) }
    pub fn search(&self, project: &Project, request: &SearchRequest) -> Result<SearchResponse> { search::search(&self.engine, project, request) }
    // semantic
    pub fn semantic_status(&self) -> Result<SemanticStatus> { semantic::semantic_status(&self.engine) }
    pub fn embed_pending(&self, on_progress: &dyn Fn(EmbedProgress)) -> Result<usize> { semantic::embed_pending(&self.engine, on_progress) }
    pub fn embed_in_background(&self) { semantic::embed_in_background(&self.engine) }
    // status
    pub fn metrics_report(&self) -> Result<MetricsReport> { status::metrics_report(&self.engine) }
    pub fn status(&self, project: Option<&str>) -> Result<Status> { status::status(&self.engine, project) }
    pub fn sync_status(&self, project: Option<&str>) -> Result<SyncStatus> { status::sync_status(&self.engine, project) }
    pub fn diagnostics(&self) -> Diagnostics { status::diagnostics(&self.engine) }
    // sync
    pub fn sync_project(&self, project: &Project, mode: SyncMode, on_event: &(dyn Fn(SyncEvent) + Sync)) -> Result<SyncReport> { sync::sync_project(&self.engine, project, mode, on_event) }
    pub fn rebuild_project(&self, project: &Project, on_event: &(dyn Fn(SyncEvent) + Sync)) -> Result<SyncReport> { sync::rebuild_project(&self.engine, project, on_event) }
    // throughput
    pub fn embedding_throughput(&self, spec: &ThroughputSpec) -> Result<ThroughputReport> { throughput::embedding_throughput(&self.engine.store, spec) }
    // write
    pub fn write_note(&self, choice: &ProjectChoice, req: &WriteNoteRequest) -> Result<Outcome<NoteWritten, WriteRefusal>> { write::write_note(&self.engine, choice, req) }
}
