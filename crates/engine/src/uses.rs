//! A note's uses: reading it or finding it records a use (in the index, never in its file), and
//! a decaying memory's relevance counts its age from its last use.

use chrono::{DateTime, Utc};

use crate::Result;
use index::Index;
use index::NoteRecord;
use note::memory::{half_life, relevance};

/// Records that these notes were used now (read, or found by a search): a decaying memory
/// counts its age from its last use. Nothing is written to the notes' files.
pub(crate) fn record_uses(index: &Index, note_ids: &[String]) {
    if !note_ids.is_empty() {
        index.record_uses(note_ids, Utc::now().timestamp_millis());
    }
}

/// A decaying memory's relevance at `now`, its uses counted; `None` for a note that does
/// not decay.
pub(crate) fn relevance_of(
    index: &Index,
    note: &NoteRecord,
    now: DateTime<Utc>,
) -> Result<Option<f64>> {
    if half_life(&note.metadata).is_none() {
        return Ok(None);
    }
    let used = index.note_use(&note.id)?;
    Ok(relevance(
        &note.metadata,
        note.updated_ms,
        used.map(|u| u.last_ms),
        now,
    ))
}
