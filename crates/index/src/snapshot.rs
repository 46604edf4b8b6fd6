//! A consistent read of the graph tables: one read transaction, and the typed queries the engine
//! asks of it. Transactions, tables and how their keys are laid out stay inside the index, so
//! the engine reads notes, never bytes.

use std::collections::HashMap;

use milli_core::heed::{RoTxn, WithoutTls};

use crate::graph::{activity_entry, Tables};
use crate::model::{NoteRecord, ProjectState};
use crate::{Index, IndexError};

pub struct Snapshot<'i> {
    txn: RoTxn<'i, WithoutTls>,
    tables: &'i Tables,
}

/// A note's entry in the activity table: when it was last updated, and its id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stamp {
    pub updated_ms: i64,
    pub id: String,
}

impl Index {
    /// Reads from the graph tables as they are now; writes committed later are not seen.
    pub fn snapshot(&self) -> Result<Snapshot<'_>, IndexError> {
        Ok(Snapshot {
            txn: self.env.read_txn()?,
            tables: &self.tables,
        })
    }
}

impl Snapshot<'_> {
    pub fn note(&self, id: &str) -> Result<Option<NoteRecord>, IndexError> {
        self.tables.get_note(&self.txn, id)
    }

    pub fn id_by_path(&self, project: &str, path: &str) -> Result<Option<String>, IndexError> {
        self.tables.id_by_path(&self.txn, project, path)
    }

    pub fn note_by_path(
        &self,
        project: &str,
        path: &str,
    ) -> Result<Option<NoteRecord>, IndexError> {
        match self.id_by_path(project, path)? {
            Some(id) => self.note(&id),
            None => Ok(None),
        }
    }

    /// The note holding `permalink`, compared without case.
    pub fn id_by_permalink(
        &self,
        project: &str,
        permalink: &str,
    ) -> Result<Option<String>, IndexError> {
        self.tables.id_by_permalink(&self.txn, project, permalink)
    }

    /// `base` if no note but `owner` has it, else the first free `base-1`, `base-2`, ...
    pub fn free_permalink(
        &self,
        project: &str,
        base: &str,
        owner: Option<&str>,
    ) -> Result<String, IndexError> {
        self.tables.free_permalink(&self.txn, project, base, owner)
    }

    /// Notes registered under lookup `key` (a title, alias or path, as `names` folds them),
    /// best first: (kind, path length, id).
    pub fn ids_by_key(
        &self,
        project: &str,
        key: &str,
    ) -> Result<Vec<(u8, u16, String)>, IndexError> {
        self.tables.ids_by_key(&self.txn, project, key)
    }

    /// Every (path, id) of a project.
    pub fn project_paths(&self, project: &str) -> Result<Vec<(String, String)>, IndexError> {
        self.tables.project_paths(&self.txn, project)
    }

    pub fn project_state(&self, project: &str) -> Result<Option<ProjectState>, IndexError> {
        self.tables.project_state(&self.txn, project)
    }

    /// Ids of the notes that link to `id`.
    pub fn incoming_ids(&self, project: &str, id: &str) -> Result<Vec<String>, IndexError> {
        self.tables.incoming_ids(&self.txn, project, id)
    }

    /// A project's notes by last update, newest first. The walk is lazy: a caller that wants
    /// one page, or the notes since a time, stops early.
    pub fn newest_first<'s>(
        &'s self,
        project: &str,
    ) -> Result<impl Iterator<Item = Result<Stamp, IndexError>> + 's, IndexError> {
        let prefix = format!("{project}\0");
        let entries = self.tables.activity.rev_prefix_iter(&self.txn, &prefix)?;
        Ok(entries.filter_map(|item| match item {
            Ok((key, ())) => activity_entry(key).map(|(updated_ms, id)| {
                Ok(Stamp {
                    updated_ms,
                    id: id.to_string(),
                })
            }),
            Err(e) => Some(Err(e.into())),
        }))
    }

    /// Every note's last update (ms) by note id, over all projects.
    pub fn stamps(&self) -> Result<HashMap<String, i64>, IndexError> {
        let mut stamps = HashMap::new();
        for item in self.tables.activity.iter(&self.txn)? {
            let (key, ()) = item?;
            if let Some((updated_ms, id)) = activity_entry(key) {
                stamps.insert(id.to_string(), updated_ms);
            }
        }
        Ok(stamps)
    }

    /// The notes of `project` whose text best matches `terms` by BM25 over their body terms,
    /// among those `keep` allows: (id, score), best first, at most `limit`.
    pub fn rank_by_terms(
        &self,
        project: &str,
        terms: &[String],
        keep: impl Fn(&str) -> bool,
        limit: usize,
    ) -> Result<Vec<(String, f64)>, IndexError> {
        self.tables
            .terms
            .rank(&self.txn, project, terms, keep, limit)
    }
}
