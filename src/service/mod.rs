//! The operations of gitmem as typed Rust functions over config, vault and index. The CLI and
//! the MCP server are thin adapters over this module.

pub mod activity;
pub mod content;
pub mod context;
pub mod directory;
pub mod ingest;
pub mod links;
pub mod notes;
pub mod projects;
pub mod search;
pub mod status;
pub mod sync;
pub mod timeframe;

use std::path::Path;
use std::sync::{RwLock, RwLockReadGuard};

use crate::config::{Config, ConfigError, Project};
use crate::index::{Index, IndexError, WriteOp};

/// Errors of service calls: the caller's input, or the server.
#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    /// Something the caller can fix; the message says how.
    #[error("{0}")]
    Invalid(String),
    /// A path-like argument that would leave the project.
    #[error("{0}")]
    Security(String),
    #[error("no search criteria: give a query or at least one filter")]
    NoSearchCriteria,
    #[error("Invalid search_type '{0}'. Valid options: hybrid, permalink, semantic, text, title, vector")]
    InvalidSearchType(String),
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Index(#[from] IndexError),
    #[error(transparent)]
    Scan(#[from] crate::vault::scan::ScanError),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

impl ServiceError {
    /// True when the input was wrong (as opposed to a failure of gitmem or the disk).
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            ServiceError::Invalid(_)
                | ServiceError::Security(_)
                | ServiceError::NoSearchCriteria
                | ServiceError::InvalidSearchType(_)
        ) || matches!(
            self,
            ServiceError::Config(
                ConfigError::UnknownProject(..)
                    | ConfigError::DuplicateProject(_)
                    | ConfigError::BadName(_)
                    | ConfigError::Overlap { .. }
                    | ConfigError::ContainsRoot(_)
                    | ConfigError::RemoveDefault(_)
            )
        )
    }
}

pub type Result<T> = std::result::Result<T, ServiceError>;

/// An open data root: its configuration and its index. Shared by every request of a server.
pub struct App {
    config: RwLock<Config>,
    pub index: Index,
    /// Linked-folder mounts per project, reloaded when links.json changes.
    mount_cache: links::MountCache,
    /// Serialises this process's read-modify-write of links.json.
    links_lock: std::sync::Mutex<()>,
}

impl App {
    /// Opens a data root. When its index had to be discarded, every project is indexed again
    /// from its files before anything else runs.
    pub fn open(root: &Path) -> Result<Self> {
        let config = Config::load(root)?;
        let index = Index::open(&config.index_dir())?;
        let app = Self {
            config: RwLock::new(config),
            index,
            mount_cache: Default::default(),
            links_lock: Default::default(),
        };
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
            std::fs::remove_dir_all(&meta)?;
        }
        if delete_notes && project.path.exists() {
            std::fs::remove_dir_all(&project.path)?;
        }
        Ok(project)
    }

    pub fn set_default_project(&self, name: &str) -> Result<Project> {
        Ok(self.config_mut().set_default(name)?)
    }

    pub fn close(self) {
        self.index.close();
    }
}

impl From<milli_core::heed::Error> for ServiceError {
    fn from(e: milli_core::heed::Error) -> Self {
        ServiceError::Index(e.into())
    }
}
