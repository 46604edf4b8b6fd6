//! The operations of gitmem as typed Rust functions over config, vault and index. The CLI and
//! the MCP server are thin adapters over this module.

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

use std::path::Path;
use std::sync::{RwLock, RwLockReadGuard};

use crate::config::{Config, Project};
use index::{Index, WriteOp};

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

/// An open data root: its configuration and its index. Shared by every request of a server.
pub struct App {
    config: RwLock<Config>,
    pub index: Index,
    /// Linked-folder mounts per project, reloaded when links.json changes.
    mount_cache: mounts::MountCache,
    /// Serialises this process's read-modify-write of links.json.
    links_lock: std::sync::Mutex<()>,
    /// Serialises this process's memory writes with their count against `[limits]
    /// max_total_daily`.
    memory_lock: std::sync::Mutex<()>,
    /// Initial indexing of each project, and link changes, as this process sees them.
    pub progress: progress::Progress,
    semantic: semantic::Semantic,
    reranking: reranker::Reranking,
    /// Automatic commits of versioned projects.
    history: git::commits::History,
    /// What `/metrics` reports; shared with the history thread, which counts failed pushes.
    pub metrics: std::sync::Arc<metrics::Metrics>,
}

impl App {
    /// Opens a data root. When its index had to be discarded, every project is indexed again
    /// from its files before anything else runs.
    pub fn open(root: &Path) -> Result<Self> {
        let config = Config::load(root)?;
        let index = Index::open(&config.index_dir())?;
        if let Some(ms) = config.search.refresh_ms {
            index
                .writer()
                .set_search_pace(std::time::Duration::from_millis(ms));
        }
        let metrics = std::sync::Arc::new(metrics::Metrics::default());
        let history = git::commits::History::new(config.redactor.clone(), metrics.clone());
        let app = Self {
            config: RwLock::new(config),
            index,
            mount_cache: Default::default(),
            links_lock: Default::default(),
            memory_lock: Default::default(),
            progress: Default::default(),
            semantic: Default::default(),
            reranking: Default::default(),
            history,
            metrics,
        };
        app.recover()?;
        app.recover_repositories();
        app.finish_interrupted_rebuilds()?;
        if app.index.rebuilt {
            for project in app.projects(None)? {
                match app.rebuild_project(&project, &|_| {}) {
                    Ok(report) => tracing::warn!(
                        "re-indexed project '{}' from its files ({} files)",
                        project.name,
                        report.scanned
                    ),
                    Err(e) => tracing::warn!("could not re-index project '{}': {e}", project.name),
                }
            }
        }
        Ok(app)
    }

    pub fn config(&self) -> RwLockReadGuard<'_, Config> {
        self.config.read().unwrap_or_else(|e| e.into_inner())
    }

    fn config_mut(&self) -> std::sync::RwLockWriteGuard<'_, Config> {
        self.config.write().unwrap_or_else(|e| e.into_inner())
    }

    /// The named project, or the default one.
    pub fn project(&self, name: Option<&str>) -> Result<Project> {
        Ok(self.config().project_or_default(name)?.clone())
    }

    /// The projects a command addresses: one by name, or all.
    pub fn projects(&self, name: Option<&str>) -> Result<Vec<Project>> {
        let config = self.config();
        match name {
            Some(n) => Ok(vec![config.project(n)?.clone()]),
            None => Ok(config.projects().to_vec()),
        }
    }

    pub fn add_project(&self, name: &str, path: &Path, make_default: bool) -> Result<Project> {
        Ok(self.config_mut().add_project(name, path, make_default)?)
    }

    /// Points a project at another directory; what the index held of the old one is dropped.
    pub(crate) fn relocate_project(&self, name: &str, path: &Path) -> Result<Project> {
        let project = self.config_mut().relocate_project(name, path)?;
        self.index.write(vec![WriteOp::DeleteProject {
            project: project.name.clone(),
        }])?;
        Ok(project)
    }

    /// Unregisters a project and drops it from the index; with `delete_notes`, its directory
    /// too.
    pub fn remove_project(&self, name: &str, delete_notes: bool) -> Result<Project> {
        let project = self.config_mut().remove_project(name)?;
        self.index.write(vec![WriteOp::DeleteProject {
            project: project.name.clone(),
        }])?;
        // Its linked folders go with it (their files stay where they are).
        let meta = self.config().meta_dir().join(&project.name);
        if meta.exists() {
            vault::fs::remove_tree(&meta)?;
        }
        if delete_notes && project.path.exists() {
            vault::fs::remove_tree(&project.path)?;
        }
        Ok(project)
    }

    pub fn set_default_project(&self, name: &str) -> Result<Project> {
        Ok(self.config_mut().set_default(name)?)
    }

    /// Start-up repair: finishes the search work an earlier process left behind, and reads again
    /// the files of notes whose search text it lost, so everything acknowledged is searchable
    /// without a reindex.
    fn recover(&self) -> Result<()> {
        let lost = self.index.recover()?;
        if lost == 0 {
            return Ok(());
        }
        tracing::warn!(
            "an earlier process stopped before {lost} notes were searchable; reading them again"
        );
        for project in self.projects(None)? {
            if let Err(e) = self.reread_project(&project) {
                tracing::warn!("re-reading project '{}' failed: {e}", project.name);
            }
        }
        self.index.wait_searchable()?;
        Ok(())
    }

    /// Finishes every acknowledged write (graph and search) and stops the writer threads. Calls
    /// made afterwards fail; a process calls this last, whoever else still holds the app.
    pub fn shutdown(&self) {
        self.stop_embedding();
        if let Err(e) = self.index.flush_uses() {
            tracing::warn!("storing uses of notes failed: {e}");
        }
        self.index.writer().shutdown();
        self.history.finish();
    }

    pub fn close(self) {
        self.history.finish();
        self.index.close();
    }
}
