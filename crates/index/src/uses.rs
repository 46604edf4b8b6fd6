//! The use store: when each note was last used (read, or found by a search) and how often, on
//! this device. Decaying memories are reinforced by use, but a read must never rewrite a
//! note's file (nor make a git commit), so uses live here, in the graph environment's `uses`
//! table (note id -> last use in ms and a count), which `reindex` leaves alone. Uses are
//! gathered in memory and written by the graph writer at most every [`FLUSH_EVERY`], so a
//! search pays a map insert, never a write transaction; readers see the gathered ones too.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use milli_core::heed::types::{Bytes, Str};
use milli_core::heed::{Database, RoTxn, RwTxn};

use super::IndexError;

/// How long uses wait in memory before the graph writer stores them.
pub const FLUSH_EVERY: Duration = Duration::from_secs(2);

/// A note's uses: the last one (ms since the epoch) and how many there were.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct NoteUse {
    pub last_ms: i64,
    pub count: u64,
}

impl NoteUse {
    /// Both records of one note together: the later use, the counts summed.
    pub fn merged(self, other: NoteUse) -> NoteUse {
        NoteUse {
            last_ms: self.last_ms.max(other.last_ms),
            count: self.count.saturating_add(other.count),
        }
    }

    fn encode(self) -> [u8; 16] {
        let mut bytes = [0; 16];
        bytes[..8].copy_from_slice(&self.last_ms.to_be_bytes());
        bytes[8..].copy_from_slice(&self.count.to_be_bytes());
        bytes
    }

    fn decode(bytes: &[u8]) -> Option<NoteUse> {
        Some(NoteUse {
            last_ms: i64::from_be_bytes(bytes.get(..8)?.try_into().ok()?),
            count: u64::from_be_bytes(bytes.get(8..16)?.try_into().ok()?),
        })
    }
}

/// The stored uses, by note id.
pub type UseTable = Database<Str, Bytes>;

/// A note's stored uses (a record of another length reads as none).
pub fn stored(table: &UseTable, txn: &RoTxn, id: &str) -> Result<Option<NoteUse>, IndexError> {
    Ok(table.get(txn, id)?.and_then(NoteUse::decode))
}

/// Adds uses to the stored ones; the graph writer's half of a flush.
pub fn add(
    table: &UseTable,
    txn: &mut RwTxn,
    uses: &[(String, NoteUse)],
) -> Result<(), IndexError> {
    for (id, used) in uses {
        let merged = match stored(table, txn, id)? {
            Some(before) => before.merged(*used),
            None => *used,
        };
        table.put(txn, id, &merged.encode())?;
    }
    Ok(())
}

/// Uses gathered since the last flush.
pub(crate) struct UseLog {
    pending: Mutex<(HashMap<String, NoteUse>, Instant)>,
}

impl Default for UseLog {
    fn default() -> Self {
        UseLog {
            pending: Mutex::new((HashMap::new(), Instant::now())),
        }
    }
}

impl UseLog {
    /// Records a use of each note at `at_ms`; answers the uses to store when a flush is due.
    pub fn record(&self, ids: &[String], at_ms: i64) -> Option<Vec<(String, NoteUse)>> {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        for id in ids {
            let used = NoteUse {
                last_ms: at_ms,
                count: 1,
            };
            let entry = pending.0.entry(id.clone()).or_default();
            *entry = entry.merged(used);
        }
        (pending.1.elapsed() >= FLUSH_EVERY && !pending.0.is_empty()).then(|| {
            pending.1 = Instant::now();
            pending.0.drain().collect()
        })
    }

    /// The uses of a note not stored yet.
    pub fn pending(&self, id: &str) -> Option<NoteUse> {
        let pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.0.get(id).copied()
    }

    /// Every use not stored yet, taken out of the log.
    pub fn take(&self) -> Vec<(String, NoteUse)> {
        let mut pending = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        pending.1 = Instant::now();
        pending.0.drain().collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uses_merge_to_the_latest_and_count_every_one() {
        let log = UseLog::default();
        assert_eq!(log.record(&["a".into(), "b".into()], 10), None);
        assert_eq!(log.record(&["a".into()], 5), None, "not due yet");
        assert_eq!(
            log.pending("a"),
            Some(NoteUse {
                last_ms: 10,
                count: 2
            })
        );
        let mut taken = log.take();
        taken.sort_by(|x, y| x.0.cmp(&y.0));
        assert_eq!(taken.len(), 2);
        assert_eq!(log.pending("a"), None);
        let used = NoteUse {
            last_ms: 7,
            count: 3,
        };
        assert_eq!(NoteUse::decode(&used.encode()), Some(used));
        assert_eq!(NoteUse::decode(&[1, 2, 3]), None);
    }
}
