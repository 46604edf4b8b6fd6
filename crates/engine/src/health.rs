//! `gitmem status --check` and `gitmem repair`: the files, the graph tables and the search
//! documents compared, and drift between them repaired without touching a user's file.

use super::Result;
use crate::config::Project;
use crate::{Engine, Store};
use index::WriteOp;
use vault::scan::{self, Change, IgnoreRules};

/// What differs between a project's files, its graph records and its search documents.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ProjectHealth {
    pub project: String,
    /// Files on disk the index does not know.
    pub not_indexed: Vec<String>,
    /// Files whose content changed since they were indexed.
    pub changed: Vec<String>,
    /// Index entries whose file is gone.
    pub stale: Vec<String>,
    /// Notes without a search document for their current text.
    pub not_searchable: Vec<String>,
    /// Notes whose text the index lost; their files must be read again.
    pub text_lost: Vec<String>,
    /// Notes waiting in the search outbox.
    pub pending_search: usize,
    /// Temp files left by writes that never finished.
    pub temp_files: Vec<String>,
    /// A reindex of the project stopped half-way.
    pub interrupted_reindex: bool,
}

impl ProjectHealth {
    pub fn is_clean(&self) -> bool {
        self == &ProjectHealth {
            project: self.project.clone(),
            ..Default::default()
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Health {
    pub projects: Vec<ProjectHealth>,
    /// Search documents whose note is gone.
    pub orphan_search_documents: usize,
}

impl Health {
    pub fn is_clean(&self) -> bool {
        self.orphan_search_documents == 0 && self.projects.iter().all(ProjectHealth::is_clean)
    }
}

/// Compares files, graph and search for one project or all. Reads, never writes.
pub(crate) fn check(store: &Store, project: Option<&str>) -> Result<Health> {
    let mut health = Health {
        orphan_search_documents: store.index.orphan_search_docs()?.len(),
        ..Default::default()
    };
    for p in crate::scope::projects(store, project)? {
        health.projects.push(check_project(store, &p)?);
    }
    Ok(health)
}

fn check_project(store: &Store, project: &Project) -> Result<ProjectHealth> {
    let mut health = ProjectHealth {
        project: project.name.clone(),
        interrupted_reindex: crate::sync::rebuild_interrupted(store, project),
        ..Default::default()
    };
    let known = crate::sync::known_project_files(store, project)?;
    let rules = IgnoreRules::for_project(&project.path)?;
    let found = scan::scan(&project.path, &rules, &known)?;
    for change in scan::diff(&known, &found) {
        match change {
            Change::Created(path) => health.not_indexed.push(path),
            Change::Modified(path) => health.changed.push(path),
            Change::Deleted(path) => health.stale.push(path),
            Change::Moved { from, to } => {
                health.stale.push(from);
                health.not_indexed.push(to);
            }
            Change::Touched(_) => {}
        }
    }
    health.temp_files = found
        .stale_temp_files
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let drift = store.index.search_drift(&project.name)?;
    health.not_searchable = drift.not_searchable.into_iter().map(|(p, _)| p).collect();
    health.text_lost = drift.text_lost;
    health.pending_search = drift.pending;
    Ok(health)
}

/// Repairs what `check` finds: finishes the search outbox and interrupted reindexes,
/// re-indexes notes whose search documents are missing or stale, drops orphan documents,
/// reads changed and lost files again and removes leftover temp files. User files are only
/// read. Returns the health before and after.
pub(crate) fn repair(engine: &Engine, project: Option<&str>) -> Result<(Health, Health)> {
    let before = check(&engine.store, project)?;
    engine.store.index.recover()?;
    crate::sync::finish_interrupted_rebuilds(engine)?;
    let mut ids: Vec<String> = engine.store.index.orphan_search_docs()?;
    for p in crate::scope::projects(&engine.store, project)? {
        let drift = engine.store.index.search_drift(&p.name)?;
        ids.extend(drift.not_searchable.into_iter().map(|(_, id)| id));
    }
    if !ids.is_empty() {
        engine
            .store
            .index
            .write(vec![WriteOp::RefreshSearchOf { ids }])?;
        engine.store.index.wait_searchable()?;
    }
    for p in crate::scope::projects(&engine.store, project)? {
        crate::sync::reread_project(engine, &p)?;
    }
    engine.store.index.wait_searchable()?;
    Ok((before, check(&engine.store, project)?))
}
