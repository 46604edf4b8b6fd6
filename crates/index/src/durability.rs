//! How graph commits reach the disk. The files are the truth and are synced before a write is
//! acknowledged; the graph tables are derived from them, so a graph commit need not wait for
//! the disk: it is written (LMDB `NO_SYNC`) and synced at most `SYNC_EVERY` later. A killed
//! process loses nothing by that (its writes are in the kernel's page cache); only an
//! operating-system crash or a power cut can leave the tables torn.
//!
//! So that a torn index is never opened, the writer makes a marker durable before its first
//! unsynced commit and removes it after the next sync: `<index>/unsynced/<boot>.<writer>`. An
//! index that holds a marker of another boot of the machine is rebuilt from the files; a
//! marker of this boot whose writer is gone is cleared by syncing (its pages are in the page
//! cache). Where the boot cannot be told (no `/proc/sys/kernel/random/boot_id`), every commit
//! is synced, as LMDB does by default.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use milli_core::heed::{Env, EnvFlags, FlagSetMode, WithoutTls};

use super::IndexError;
use vault::fs::sync_dir;

const DIR: &str = "unsynced";
/// Longest time a graph commit stays unsynced (measured, docs/performance-http.md: syncing
/// every commit held 16 writing clients at 418–470 notes/s, not syncing at 658–720).
pub(super) const SYNC_EVERY: Duration = Duration::from_secs(1);

/// This machine's boot: markers of another one were left by a crash.
fn boot_id() -> Option<String> {
    let id = std::fs::read_to_string("/proc/sys/kernel/random/boot_id").ok()?;
    let id = id.trim();
    (!id.is_empty() && !id.contains(['.', '/'])).then(|| id.to_owned())
}

/// What the markers under an index say when it is opened.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Markers {
    /// No writer left unsynced commits behind, or every one that did still runs.
    Clean,
    /// Writers of this boot that are gone left unsynced commits, which the page cache holds:
    /// sync the environment, then call `clear`.
    Unflushed(Vec<PathBuf>),
    /// A writer had unsynced commits when the machine stopped: the tables may be torn.
    Torn,
}

/// Reads the markers under `index_dir`; `alive` tells whether a writer (by its nonce) runs.
pub(super) fn inspect(index_dir: &Path, alive: impl Fn(&str) -> bool) -> Markers {
    let Ok(entries) = std::fs::read_dir(index_dir.join(DIR)) else {
        return Markers::Clean;
    };
    let boot = boot_id();
    let mut unflushed = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some((marker_boot, nonce)) = name.split_once('.') else {
            continue;
        };
        if alive(nonce) {
            continue;
        }
        if boot.as_deref() != Some(marker_boot) {
            return Markers::Torn;
        }
        unflushed.push(entry.path());
    }
    if unflushed.is_empty() {
        Markers::Clean
    } else {
        Markers::Unflushed(unflushed)
    }
}

/// Removes the markers of gone writers once `env` is synced.
pub(super) fn clear(env: &Env<WithoutTls>, markers: Vec<PathBuf>) -> Result<(), IndexError> {
    env.force_sync()?;
    for marker in markers {
        std::fs::remove_file(marker)?;
    }
    Ok(())
}

/// The graph writer's side: markers, the flag, and when the next sync is due.
pub(super) struct Deferred {
    env: Env<WithoutTls>,
    marker: Option<PathBuf>,
    every: Duration,
    /// Set while commits wait for a sync: when it is due.
    due: Option<Instant>,
}

impl Deferred {
    /// Turns off per-commit syncing of `env` where a crash can be told from the boot id; only
    /// the graph writer thread may call this (LMDB's rule for changing flags).
    pub fn start(env: &Env<WithoutTls>, index_dir: &Path, nonce: &str, every: Duration) -> Self {
        let marker = boot_id().and_then(|boot| {
            let dir = index_dir.join(DIR);
            // Made durable once; a writer starts with every command line.
            if !dir.is_dir() {
                std::fs::create_dir_all(&dir)
                    .and_then(|()| sync_dir(index_dir))
                    .map_err(|e| tracing::warn!("graph commits stay synced: {e}"))
                    .ok()?;
            }
            // SAFETY: the graph writer is the only thread that sets flags, and NO_SYNC is safe
            // here because a torn environment is detected by the marker and rebuilt.
            unsafe { env.set_flags(EnvFlags::NO_SYNC, FlagSetMode::Enable) }
                .map_err(|e| tracing::warn!("graph commits stay synced: {e}"))
                .ok()?;
            Some(dir.join(format!("{boot}.{nonce}")))
        });
        Deferred {
            env: env.clone(),
            marker,
            every,
            due: None,
        }
    }

    /// When the commits made since the last sync must be synced.
    pub fn due(&self) -> Option<Instant> {
        self.due
    }

    /// Called before each commit: makes the marker durable before the first unsynced one.
    pub fn before_commit(&mut self) -> Result<(), IndexError> {
        let Some(marker) = &self.marker else {
            return Ok(());
        };
        if self.due.is_none() {
            std::fs::File::create(marker)?;
            sync_dir(marker.parent().expect("a marker is in a folder"))?;
            self.due = Some(Instant::now() + self.every);
        }
        Ok(())
    }

    /// Syncs when it is due.
    pub fn after_commit(&mut self) {
        if self.due.is_some_and(|due| Instant::now() >= due) {
            self.sync();
        }
    }

    /// Syncs the commits made so far and removes the marker; a failure keeps the marker (an
    /// index that may be torn is rebuilt after a crash) and tries again later.
    pub fn sync(&mut self) {
        let (Some(marker), Some(_)) = (&self.marker, self.due) else {
            return;
        };
        match self.env.force_sync() {
            // Its removal need not be durable: a marker that comes back costs a rebuild.
            Ok(()) => match std::fs::remove_file(marker) {
                Ok(()) => self.due = None,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => self.due = None,
                Err(e) => {
                    tracing::error!("removing {}: {e}", marker.display());
                    self.due = Some(Instant::now() + self.every);
                }
            },
            Err(e) => {
                tracing::error!("syncing the graph index failed: {e}");
                self.due = Some(Instant::now() + self.every);
            }
        }
    }
}

#[cfg(test)]
mod tests;
