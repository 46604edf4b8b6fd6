//! What was seen of one file: its size and mtime, its SHA-256, and its bytes when they were
//! read. Scans and durable writes both describe files this way.

use std::path::Path;
use std::time::UNIX_EPOCH;

use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FileStat {
    pub size: u64,
    pub mtime_ns: i64,
}

impl FileStat {
    pub fn of(meta: &std::fs::Metadata) -> Self {
        FileStat {
            size: meta.len(),
            mtime_ns: system_time_ns(meta.modified()).unwrap_or(0),
        }
    }
}

/// A file as a scan found it, or as a write left it. `bytes` is set when the file had to be read.
#[derive(Debug, Clone)]
pub struct Observed {
    pub stat: FileStat,
    pub checksum: String,
    pub created_ns: Option<i64>,
    pub bytes: Option<Vec<u8>>,
}

impl Observed {
    /// A file just written with `bytes`, as `meta` describes it.
    pub fn written(meta: &std::fs::Metadata, bytes: Vec<u8>) -> Self {
        Observed {
            stat: FileStat::of(meta),
            checksum: sha256_hex(&bytes),
            created_ns: system_time_ns(meta.created()),
            bytes: Some(bytes),
        }
    }

    /// Reads one file as a scan would (its bytes, then its stat).
    pub fn read(path: &Path) -> std::io::Result<Self> {
        let bytes = std::fs::read(path)?;
        Ok(Self::written(&std::fs::metadata(path)?, bytes))
    }
}

pub fn system_time_ns(t: std::io::Result<std::time::SystemTime>) -> Option<i64> {
    let t = t.ok()?;
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => Some(d.as_nanos() as i64),
        Err(e) => Some(-(e.duration().as_nanos() as i64)),
    }
}

pub fn sha256_hex(bytes: &[u8]) -> String {
    hex::encode(Sha256::digest(bytes))
}
