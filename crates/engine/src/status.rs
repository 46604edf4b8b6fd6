//! `status`: what the index holds for a project.

use super::error::HeldSecret;
use super::progress::ProjectSync;
use super::Result;
use crate::Engine;
use index::{FileWarning, NoteKind};

#[derive(Debug, Clone)]
pub struct ProjectStatus {
    pub project: String,
    pub path: String,
    pub is_default: bool,
    pub notes: u64,
    pub files: u64,
    pub observations: u64,
    pub relations: u64,
    pub unresolved_relations: u64,
    pub last_scan: Option<String>,
    pub last_scan_ms: Option<u64>,
    pub warnings: Vec<FileWarning>,
    /// What held the last push of a versioned project (`crate::git::secrets`).
    pub held: Vec<HeldSecret>,
}

#[derive(Debug, Clone)]
pub struct Status {
    pub version: &'static str,
    pub root: String,
    pub index_bytes: u64,
    pub projects: Vec<ProjectStatus>,
    pub semantic: super::semantic::SemanticStatus,
    pub reranker: super::reranker::RerankStatus,
}

pub(crate) fn status(engine: &Engine, project: Option<&str>) -> Result<Status> {
    let snap = engine.store.index.snapshot()?;
    let mut projects = Vec::new();
    for p in crate::scope::projects(&engine.store, project)? {
        let mut s = ProjectStatus {
            project: p.name.clone(),
            path: p.path.display().to_string(),
            is_default: p.is_default,
            notes: 0,
            files: 0,
            observations: 0,
            relations: 0,
            unresolved_relations: 0,
            last_scan: None,
            last_scan_ms: None,
            warnings: Vec::new(),
            held: crate::git::secrets::held_push(&p)?,
        };
        for (_, id) in snap.project_paths(&p.name)? {
            let Some(note) = snap.note(&id)? else {
                continue;
            };
            match note.kind {
                NoteKind::Markdown => s.notes += 1,
                NoteKind::File => s.files += 1,
            }
            s.observations += note.observations.len() as u64;
            s.relations += note.relations.len() as u64;
            s.unresolved_relations +=
                note.relations.iter().filter(|r| r.to_id.is_none()).count() as u64;
            s.warnings.extend(note.warnings.iter().map(|m| FileWarning {
                path: note.path.clone(),
                message: m.clone(),
            }));
        }
        if let Some(state) = snap.project_state(&p.name)? {
            s.last_scan = state.last_scan;
            s.last_scan_ms = state.last_scan_ms;
            s.warnings.extend(state.warnings);
        }
        s.warnings.sort_by(|a, b| a.path.cmp(&b.path));
        projects.push(s);
    }
    Ok(Status {
        version: env!("CARGO_PKG_VERSION"),
        root: engine.store.config().root.display().to_string(),
        index_bytes: engine.store.index.disk_size(),
        projects,
        semantic: crate::semantic::semantic_status(engine)?,
        reranker: crate::reranker::reranker_status(engine),
    })
}

/// sync_status: how far the initial indexing of each visible project got.
#[derive(Debug, Clone)]
pub struct SyncStatus {
    pub projects: Vec<(String, ProjectSync)>,
    /// Drift between files, graph and search, once the initial indexing is done.
    pub health: Option<super::health::Health>,
    /// The project the call named, with its directory.
    pub active: Option<(String, String)>,
    pub semantic: super::semantic::SemanticStatus,
    pub reranker: super::reranker::RerankStatus,
    /// Unresolved git sync conflicts of versioned projects: (project, conflict).
    pub conflicts: Vec<(String, crate::git::exchange::Conflict)>,
    /// What held the last push of each versioned project: (project, secret).
    pub held: Vec<(String, HeldSecret)>,
}

impl SyncStatus {
    /// True when no project is still waiting or being indexed.
    pub fn ready(&self) -> bool {
        self.projects
            .iter()
            .all(|(_, s)| matches!(s, ProjectSync::Done | ProjectSync::Failed(_)))
    }
}

/// basic_memory_diagnostics: version, configuration and index statistics.
#[derive(Debug)]
pub struct Diagnostics {
    pub root: String,
    pub config_path: String,
    pub config_exists: bool,
    pub config_text: String,
    /// The index's statistics, or why they could not be read.
    pub status: Result<Status>,
}

pub(crate) fn sync_status(engine: &Engine, project: Option<&str>) -> Result<SyncStatus> {
    let projects = crate::scope::projects(&engine.store, None)?
        .into_iter()
        .map(|p| {
            let state = engine.store.progress.get(&p.name);
            (p.name, state)
        })
        .collect();
    let active = project
        .and_then(|name| crate::scope::project(&engine.store, Some(name)).ok())
        .map(|p| (p.name, p.path.display().to_string()));
    let mut status = SyncStatus {
        projects,
        health: None,
        active,
        semantic: crate::semantic::semantic_status(engine)?,
        reranker: crate::reranker::reranker_status(engine),
        conflicts: Vec::new(),
        held: Vec::new(),
    };
    for project in crate::scope::projects(&engine.store, None)? {
        if project.git.is_some() {
            for conflict in crate::git::exchange::exchange_conflicts(&engine.store.index, &project)?
            {
                status.conflicts.push((project.name.clone(), conflict));
            }
            for held in crate::git::secrets::held_push(&project)? {
                status.held.push((project.name.clone(), held));
            }
        }
    }
    if status.ready() {
        status.health = Some(crate::health::check(&engine.store, None)?);
    }
    Ok(status)
}

pub(crate) fn diagnostics(engine: &Engine) -> Diagnostics {
    let root = engine.store.config().root.clone();
    let config_path = crate::config::Config::config_path(&root);
    Diagnostics {
        root: root.display().to_string(),
        config_path: config_path.display().to_string(),
        config_exists: config_path.exists(),
        config_text: vault::fs::read_text(&config_path).unwrap_or_default(),
        status: status(engine, None),
    }
}

/// Everything `/metrics` reports.
#[derive(Debug, Clone, PartialEq)]
pub struct MetricsReport {
    pub counts: crate::metrics::Counts,
    /// Graph commits of this process that search does not see yet.
    pub index_lag_commits: u64,
    /// Notes in the search outbox, of any process.
    pub search_outbox_notes: u64,
    /// Notes waiting for the chosen model's vectors; 0 when semantic search is off.
    pub embedding_backlog_notes: u64,
}

/// The counters and gauges of this process now.
pub(crate) fn metrics_report(engine: &Engine) -> Result<MetricsReport> {
    let lag = engine.store.index.search_lag()?;
    let embedding_backlog_notes = match crate::semantic::semantic_status(engine)? {
        super::semantic::SemanticStatus::On {
            notes,
            notes_embedded,
            ..
        } => notes.saturating_sub(notes_embedded) as u64,
        _ => 0,
    };
    Ok(MetricsReport {
        counts: engine.metrics.counts(),
        index_lag_commits: lag.commits,
        search_outbox_notes: lag.outbox_notes,
        embedding_backlog_notes,
    })
}
