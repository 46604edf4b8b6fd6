//! What a running server knows beyond the index: how far each project's initial indexing got.

use std::collections::BTreeMap;
use std::sync::Mutex;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectSync {
    Pending,
    Running { done: usize, total: usize },
    Done,
    Failed(String),
}

#[derive(Debug, Default)]
pub struct ServerState {
    projects: Mutex<BTreeMap<String, ProjectSync>>,
    /// Bumped when a tool links or unlinks a folder, so the poller looks again at once.
    links_version: std::sync::atomic::AtomicU64,
}

impl ServerState {
    pub fn get(&self, project: &str) -> ProjectSync {
        self.projects
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(project)
            .cloned()
            .unwrap_or(ProjectSync::Done)
    }

    pub fn set(&self, project: &str, state: ProjectSync) {
        self.projects
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(project.to_string(), state);
    }

    pub fn links_changed(&self) {
        self.links_version
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
    }

    pub fn links_version(&self) -> u64 {
        self.links_version.load(std::sync::atomic::Ordering::SeqCst)
    }

    pub fn remove(&self, project: &str) {
        self.projects
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(project);
    }
}
