//! `[limits]`: what the memory API may write.

use serde::Deserialize;

/// `[limits]`: bounds on what the memory API writes (`memory_save`, `memory_update`).
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct LimitsConfig {
    /// The most bytes one memory's content may hold. 1 MiB by default: a memory is a fact or
    /// a preference, and notes (32 MiB at most) are written with write_note.
    pub max_memory_size: u64,
    /// The most bytes of memory content the memory API may write to one project in a UTC day;
    /// unset means no limit.
    pub max_total_daily: Option<u64>,
}

impl Default for LimitsConfig {
    fn default() -> Self {
        Self {
            max_memory_size: 1024 * 1024,
            max_total_daily: None,
        }
    }
}
