//! Memories that age: the uses that reinforce a decaying memory (kept by `index::uses`, never
//! in the note's file), its relevance now (`note::memory::relevance`), and memory_prune, which
//! soft-deletes the decaying memories whose relevance fell below a threshold (in a versioned
//! project, one commit).

use chrono::Utc;
use serde_json::Value;

use super::error::MemoryError;
use super::memory::DeleteMode;
use super::scope::ProjectChoice;
use super::Result;
use crate::Engine;
use index::{NoteKind, NoteRecord};
use note::memory::is_deleted;

/// Below this relevance memory_prune takes a decaying memory: a memory of full importance
/// gets there a little over three half-lives after its last touch.
pub const DEFAULT_PRUNE_THRESHOLD: f64 = 0.1;

/// memory_prune's request.
#[derive(Debug, Clone, Copy, Default)]
pub struct PruneRequest {
    /// Default [`DEFAULT_PRUNE_THRESHOLD`].
    pub threshold: Option<f64>,
    /// List what would go; change nothing.
    pub dry_run: bool,
    /// Delete the files instead of marking them `deleted_at`.
    pub hard: bool,
}

/// One memory memory_prune took (or would take).
#[derive(Debug, Clone, PartialEq)]
pub struct Pruned {
    pub permalink: Option<String>,
    pub title: String,
    pub file_path: String,
    pub relevance: f64,
}

/// What memory_prune did.
#[derive(Debug, Clone, PartialEq)]
pub struct PruneOutcome {
    pub project: String,
    pub threshold: f64,
    pub dry_run: bool,
    pub hard: bool,
    /// The memories below the threshold, least relevant first.
    pub pruned: Vec<Pruned>,
    /// Decaying memories at or above the threshold, which stay.
    pub kept: usize,
}

/// A fraction a caller gives (a threshold, a score bound), refused outside 0..=1.
pub(super) fn check_fraction(field: &'static str, value: f64) -> Result<f64> {
    if (0.0..=1.0).contains(&value) {
        Ok(value)
    } else {
        Err(MemoryError::Fraction { field, value }.into())
    }
}

/// memory_prune: every decaying memory whose relevance fell below the threshold is
/// soft-deleted (its file kept, every search hiding it), or with `hard` deleted. Memories
/// without `decay` are never taken; a soft prune passes over those already deleted.
pub(crate) fn memory_prune(
    engine: &Engine,
    choice: &ProjectChoice,
    request: &PruneRequest,
) -> Result<PruneOutcome> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    let threshold = check_fraction(
        "threshold",
        request.threshold.unwrap_or(DEFAULT_PRUNE_THRESHOLD),
    )?;
    let now = Utc::now();
    let mut below: Vec<(NoteRecord, f64)> = Vec::new();
    let mut kept = 0;
    for note in crate::notes::all_notes(&engine.store.index, &project)? {
        if note.kind != NoteKind::Markdown || (!request.hard && is_deleted(&note.metadata)) {
            continue;
        }
        match crate::uses::relevance_of(&engine.store.index, &note, now)? {
            Some(r) if r < threshold => below.push((note, r)),
            Some(_) => kept += 1,
            None => {}
        }
    }
    below.sort_by(|a, b| a.1.total_cmp(&b.1).then(a.0.path.cmp(&b.0.path)));
    if !request.dry_run {
        let subject = format!("chore(mem): prune {} memories", below.len());
        engine.history.together(&subject, || -> Result<()> {
            for (note, _) in &below {
                let id = note
                    .metadata
                    .get("id")
                    .and_then(Value::as_str)
                    .map(String::from)
                    .or_else(|| note.permalink.clone())
                    .unwrap_or_else(|| note.id.clone());
                // A memory that faded did not change: its update time stays, so a later
                // hard prune still finds it below the threshold.
                let mode = DeleteMode::of(request.hard);
                crate::memory::delete_memory_note(engine, &project, note, &id, mode, false)?;
            }
            Ok(())
        })?;
    }
    let pruned = below
        .into_iter()
        .map(|(note, relevance)| Pruned {
            permalink: note.permalink,
            title: note.title,
            file_path: note.path,
            relevance,
        })
        .collect();
    Ok(PruneOutcome {
        project: project.name,
        threshold,
        dry_run: request.dry_run,
        hard: request.hard,
        pruned,
        kept,
    })
}
