//! A note's uses: reading it or finding it records a use (in the index, never in its file), and
//! a decaying memory's relevance counts its age from its last use.

use chrono::{DateTime, Utc};

use crate::{App, Result};
use index::NoteRecord;
use note::memory::{half_life, relevance};

impl App {
    /// Records that these notes were used now (read, or found by a search): a decaying memory
    /// counts its age from its last use. Nothing is written to the notes' files.
    pub(crate) fn record_uses(&self, note_ids: &[String]) {
        if !note_ids.is_empty() {
            self.index
                .record_uses(note_ids, Utc::now().timestamp_millis());
        }
    }

    /// A decaying memory's relevance at `now`, its uses counted; `None` for a note that does
    /// not decay.
    pub(crate) fn relevance_of(
        &self,
        note: &NoteRecord,
        now: DateTime<Utc>,
    ) -> Result<Option<f64>> {
        if half_life(&note.metadata).is_none() {
            return Ok(None);
        }
        let used = self.index.note_use(&note.id)?;
        Ok(relevance(
            &note.metadata,
            note.updated_ms,
            used.map(|u| u.last_ms),
            now,
        ))
    }
}
