//! Projects as the tools see them: listing, creating (and indexing), deleting, statistics.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use super::progress::ProjectSync;
use super::scope::ProjectChoice;
use super::sync::{SyncMode, SyncReport};
use super::{App, Outcome, Result, ServiceError};
use crate::config::Project;

#[derive(Debug, Clone, Serialize)]
pub struct ProjectStatistics {
    pub total_entities: usize,
    pub total_observations: usize,
    pub total_relations: usize,
    pub total_unresolved_relations: usize,
    pub note_types: BTreeMap<String, usize>,
    pub observation_categories: BTreeMap<String, usize>,
    pub relation_types: BTreeMap<String, usize>,
    pub most_connected_entities: Vec<serde_json::Value>,
    pub isolated_entities: usize,
}

#[derive(Debug, Clone)]
pub struct ProjectCreated {
    pub project: Project,
    pub created: bool,
    pub indexing: SyncReport,
}

/// The projects a call may see, sorted by permalink.
#[derive(Debug, Clone)]
pub struct ProjectListing {
    pub projects: Vec<Project>,
    pub default: Option<String>,
    pub constrained: Option<String>,
}

/// Why a project was not created or deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectRefusal {
    /// `serve --project` pins the server to one project.
    Constrained { project: String },
}

/// A project directory as a tool names it: `~/` is the home directory.
fn expand_home(path: &str) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => dirs::home_dir().unwrap_or_default().join(rest),
        None => PathBuf::from(path),
    }
}

impl App {
    /// list_memory_projects.
    pub fn list_projects(&self, choice: &ProjectChoice) -> Result<ProjectListing> {
        let mut projects = self.projects(None)?;
        projects.retain(|p| choice.allows(p));
        projects.sort_by(|a, b| a.permalink.cmp(&b.permalink));
        Ok(ProjectListing {
            projects,
            default: self.project(None).ok().map(|p| p.name),
            constrained: choice.constrained.clone(),
        })
    }

    /// create_memory_project: registers and indexes a project, unless the server is pinned.
    pub fn create_project_from_tool(
        &self,
        choice: &ProjectChoice,
        name: &str,
        path: &str,
        set_default: bool,
    ) -> Result<Outcome<ProjectCreated, ProjectRefusal>> {
        if let Some(project) = choice
            .constrained
            .clone()
            .or(choice.allowed.as_ref().map(|a| a.join(", ")))
        {
            return Ok(Outcome::Refused(ProjectRefusal::Constrained { project }));
        }
        let created = self.create_project(name, &expand_home(path), set_default)?;
        self.progress.set(&created.project.name, ProjectSync::Done);
        Ok(Outcome::Done(created))
    }

    /// delete_project: unregisters a project other than the default, unless the server is
    /// pinned.
    pub fn delete_project_from_tool(
        &self,
        choice: &ProjectChoice,
        name: &str,
        delete_notes: bool,
    ) -> Result<Outcome<Project, ProjectRefusal>> {
        if let Some(project) = choice
            .constrained
            .clone()
            .or(choice.allowed.as_ref().map(|a| a.join(", ")))
        {
            return Ok(Outcome::Refused(ProjectRefusal::Constrained { project }));
        }
        let names: Vec<String> = self.projects(None)?.into_iter().map(|p| p.name).collect();
        let Ok(project) = self.project(Some(name)) else {
            return Err(ServiceError::invalid(format!(
                "Project '{name}' not found. Available projects: {}",
                names.join(", ")
            )));
        };
        if project.is_default {
            let others: Vec<&str> = names
                .iter()
                .map(String::as_str)
                .filter(|n| *n != project.name)
                .collect();
            let advice = if others.is_empty() {
                "This is the only project in your configuration.".to_string()
            } else {
                format!(
                    "Set another project as default first. Available: {}",
                    others.join(", ")
                )
            };
            return Err(ServiceError::invalid(format!(
                "Cannot delete default project '{}'. {advice}",
                project.name
            )));
        }
        let removed = self.remove_project(&project.name, delete_notes)?;
        self.progress.remove(&removed.name);
        Ok(Outcome::Done(removed))
    }

    /// Registers a project and indexes it; an existing name (any case) is re-indexed instead.
    pub fn create_project(
        &self,
        name: &str,
        path: &Path,
        set_default: bool,
    ) -> Result<ProjectCreated> {
        if let Ok(existing) = self.project(Some(name)) {
            if existing.name.eq_ignore_ascii_case(name)
                || existing.permalink == crate::note::permalink::generate_permalink(name, false)
            {
                let indexing = self.sync_and_wait(&existing, SyncMode::Incremental, &|_| {})?;
                return Ok(ProjectCreated {
                    project: existing,
                    created: false,
                    indexing,
                });
            }
        }
        let project = self.add_project(name, path, set_default)?;
        let indexing = self.sync_and_wait(&project, SyncMode::Incremental, &|_| {})?;
        Ok(ProjectCreated {
            project,
            created: true,
            indexing,
        })
    }

    pub fn project_statistics(&self, project: &Project) -> Result<ProjectStatistics> {
        let notes = self.all_notes(project)?;
        let mut stats = ProjectStatistics {
            total_entities: notes.len(),
            total_observations: 0,
            total_relations: 0,
            total_unresolved_relations: 0,
            note_types: BTreeMap::new(),
            observation_categories: BTreeMap::new(),
            relation_types: BTreeMap::new(),
            most_connected_entities: Vec::new(),
            isolated_entities: 0,
        };
        let mut degree: BTreeMap<String, usize> = BTreeMap::new();
        for note in &notes {
            *stats.note_types.entry(note.note_type.clone()).or_default() += 1;
            stats.total_observations += note.observations.len();
            for obs in &note.observations {
                *stats
                    .observation_categories
                    .entry(obs.category.clone())
                    .or_default() += 1;
            }
            for rel in &note.relations {
                stats.total_relations += 1;
                *stats
                    .relation_types
                    .entry(rel.relation.relation_type.clone())
                    .or_default() += 1;
                *degree.entry(note.id.clone()).or_default() += 1;
                match &rel.to_id {
                    Some(to) => *degree.entry(to.clone()).or_default() += 1,
                    None => stats.total_unresolved_relations += 1,
                }
            }
        }
        stats.isolated_entities = notes.iter().filter(|n| !degree.contains_key(&n.id)).count();
        let mut ranked: Vec<_> = notes
            .iter()
            .filter_map(|n| degree.get(&n.id).map(|d| (*d, n)))
            .collect();
        ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.title.cmp(&b.1.title)));
        stats.most_connected_entities = ranked
            .into_iter()
            .take(10)
            .map(|(d, n)| serde_json::json!({"title": n.title, "permalink": n.permalink, "relation_count": d}))
            .collect();
        Ok(stats)
    }
}
