//! What a running process knows beyond the index: how far each project's initial indexing got,
//! and a counter that moves whenever a link is added or removed, so the poller looks again.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectSync {
    Pending,
    Running { done: usize, total: usize },
    Done,
    Failed(String),
}

#[derive(Debug, Default)]
pub struct Progress {
    projects: Mutex<BTreeMap<String, ProjectSync>>,
    links_version: AtomicU64,
}

impl Progress {
    /// A project nobody is indexing counts as done: one-shot commands index before they answer.
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

    pub fn remove(&self, project: &str) {
        self.projects
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .remove(project);
    }

    pub(crate) fn links_changed(&self) {
        self.links_version.fetch_add(1, Ordering::SeqCst);
    }

    pub(crate) fn links_version(&self) -> u64 {
        self.links_version.load(Ordering::SeqCst)
    }
}
