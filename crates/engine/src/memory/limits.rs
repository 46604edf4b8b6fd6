//! `[limits]` of the memory API: the bytes of one memory's content (`max_memory_size`) and the
//! bytes of memory content written to a project in a UTC day (`max_total_daily`). The day's
//! count is kept in `meta/<project>/memory-writes.json` (`{"day", "bytes"}`), so a restart
//! does not reset it; a new day starts it from zero. Only the writes made while a daily limit
//! is set are counted.

use std::path::Path;

use chrono::{NaiveDate, SecondsFormat, Utc};
use serde::{Deserialize, Serialize};

use super::super::error::{InternalError, MemoryError};
use super::super::Result;
use crate::config::Project;
use crate::{Engine, Store};
use vault;

const COUNT_FILE: &str = "memory-writes.json";

/// The bytes of memory content written to a project on one UTC day.
#[derive(Debug, Serialize, Deserialize)]
struct DailyWrites {
    day: NaiveDate,
    bytes: u64,
}

/// What was written on `today`, by the count file at `path`. A count that does not parse is
/// taken as zero rather than blocking every write until the day ends.
fn written_on(path: &Path, today: NaiveDate) -> Result<u64> {
    let bytes = match vault::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(e) => return Err(e.into()),
    };
    match serde_json::from_slice::<DailyWrites>(&bytes) {
        Ok(count) if count.day == today => Ok(count.bytes),
        Ok(_) => Ok(0),
        Err(e) => {
            tracing::warn!(
                "{} does not parse ({e}); counting today from zero",
                path.display()
            );
            Ok(0)
        }
    }
}

/// Runs `write`, a memory write of `bytes` bytes of content, if the limits allow it, and
/// counts it against the day's limit once it is done.
pub(super) fn within_limits<T>(
    engine: &Engine,
    project: &Project,
    bytes: usize,
    write: impl FnOnce() -> Result<T>,
) -> Result<T> {
    check_memory_size(&engine.store, bytes)?;
    within_daily_limit(engine, project, bytes, write)
}

/// Refuses one memory's content over `max_memory_size`.
pub(super) fn check_memory_size(
    store: &Store,
    bytes: usize,
) -> std::result::Result<(), MemoryError> {
    let limit = store.config().limits.max_memory_size;
    match bytes as u64 {
        size if size > limit => Err(MemoryError::TooLarge { size, limit }),
        _ => Ok(()),
    }
}

/// Runs `write`, memory writes of `bytes` bytes of content in all, if the day's limit
/// leaves room for them, and counts them once they are done.
pub(super) fn within_daily_limit<T>(
    engine: &Engine,
    project: &Project,
    bytes: usize,
    write: impl FnOnce() -> Result<T>,
) -> Result<T> {
    let size = bytes as u64;
    let Some(limit) = engine
        .store
        .config()
        .limits
        .max_total_daily
        .filter(|_| size > 0)
    else {
        return write();
    };
    // Checked, written and counted under one lock, so two calls cannot both fit the
    // room that is left for one.
    let _guard = engine.memory_lock.lock().unwrap_or_else(|e| e.into_inner());
    let path = engine
        .store
        .config()
        .meta_dir()
        .join(&project.name)
        .join(COUNT_FILE);
    let now = Utc::now();
    let today = now.date_naive();
    let written = written_on(&path, today)?;
    if written + size > limit {
        let resets_at = today
            .succ_opt()
            .and_then(|day| day.and_hms_opt(0, 0, 0))
            .map(|midnight| {
                midnight
                    .and_utc()
                    .to_rfc3339_opts(SecondsFormat::Secs, true)
            })
            .unwrap_or_default();
        return Err(MemoryError::DailyLimit {
            size,
            written,
            limit,
            resets_at,
        }
        .into());
    }
    let done = write()?;
    let count = DailyWrites {
        day: today,
        bytes: written + size,
    };
    let json = serde_json::to_vec(&count).map_err(|source| InternalError::Encode {
        what: "the day's count of memory writes",
        source,
    })?;
    vault::fs::atomic_write(&path, &json)?;
    Ok(done)
}
