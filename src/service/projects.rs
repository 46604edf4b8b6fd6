//! Projects as the tools see them: listing, creating (and indexing), deleting, statistics.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::sync::{SyncMode, SyncReport};
use super::{App, Result};
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

impl App {
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
