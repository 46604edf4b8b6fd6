//! The linked-folder registry: `meta/<project>/links.json` (design 6), the ignore rules of a
//! linked folder, and its deterministic poll schedule.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WatchMode {
    Poll,
    Native,
}

impl WatchMode {
    pub fn parse(s: &str) -> Option<WatchMode> {
        match s.trim().to_lowercase().as_str() {
            "poll" => Some(WatchMode::Poll),
            "native" => Some(WatchMode::Native),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct WatchSettings {
    pub mode: WatchMode,
    pub poll_interval_ms: u64,
    pub jitter_pct: u32,
    pub platform: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LinkStatus {
    Idle,
    Polling,
    Error,
}

/// What the registry remembers of one file of a linked folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Mapping {
    pub note_id: String,
    pub checksum_sha256: String,
    pub mtime: i64,
    pub size: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LinkRecord {
    pub id: String,
    pub project: String,
    /// The path as the user gave it.
    pub display_path: String,
    /// The canonical path (symlinks resolved).
    pub resolved_path: PathBuf,
    /// Folder of the project the linked notes appear under.
    pub mount: String,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub watch: WatchSettings,
    pub created_at: String,
    pub last_scan: Option<String>,
    pub last_error: Option<String>,
    pub file_count: u64,
    pub total_bytes: u64,
    pub last_runtime_ms: u64,
    pub status: LinkStatus,
    /// Failed scans in a row; the link shows `error` from the second one.
    #[serde(default)]
    pub failures: u32,
    /// Changes the last successful scan found: created, updated, deleted, moved.
    #[serde(default)]
    pub last_changes: [u64; 4],
    /// The last scan found the folder empty although it held files (an unmounted drive?):
    /// its notes are kept until an explicit rescan finds it empty again.
    #[serde(default)]
    pub emptied: bool,
    /// Relative path -> the note it maps to.
    pub mappings: BTreeMap<String, Mapping>,
}

/// Failed scans in a row after which a link's status is `error`.
pub const FAILURES_FOR_ERROR: u32 = 2;

/// A stable link id: `lf_` and the hex of a hash of the project and the canonical path.
pub fn link_id(project: &str, canonical: &Path) -> String {
    let digest = Sha256::digest(format!("{project}\0{}", canonical.display()).as_bytes());
    format!("lf_{}", hex::encode(&digest[..8]))
}

/// `poll_interval_ms × (1 + jitter_pct/100 × f)` with `f ∈ [-1, 1]` derived from the link id:
/// the same link always gets the same interval; different links spread out.
pub fn effective_interval_ms(poll_interval_ms: u64, jitter_pct: u32, id: &str) -> u64 {
    let digest = Sha256::digest(id.as_bytes());
    let raw = u64::from_be_bytes(digest[..8].try_into().expect("8 bytes"));
    let f = (raw as f64 / u64::MAX as f64) * 2.0 - 1.0;
    let factor = 1.0 + f64::from(jitter_pct.min(100)) / 100.0 * f;
    ((poll_interval_ms as f64) * factor).round().max(1.0) as u64
}

#[derive(Debug, thiserror::Error)]
pub enum RegistryError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not a valid link registry: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// `meta/<project>/links.json`.
pub fn registry_path(meta_dir: &Path, project: &str) -> PathBuf {
    meta_dir.join(project).join("links.json")
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct RegistryFile {
    links: Vec<LinkRecord>,
}

pub fn load(path: &Path) -> Result<Vec<LinkRecord>, RegistryError> {
    match std::fs::read(path) {
        Ok(bytes) => serde_json::from_slice::<RegistryFile>(&bytes)
            .map(|f| f.links)
            .map_err(|e| RegistryError::Parse {
                path: path.to_path_buf(),
                message: e.to_string(),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Vec::new()),
        Err(source) => Err(RegistryError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

pub fn save(path: &Path, links: &[LinkRecord]) -> Result<(), RegistryError> {
    let file = RegistryFile {
        links: links.to_vec(),
    };
    let bytes = serde_json::to_vec_pretty(&file).expect("a link registry always serialises");
    crate::fs::atomic_write(path, &bytes).map_err(|source| RegistryError::Write {
        path: path.to_path_buf(),
        source,
    })
}

/// Which files of a linked folder are notes: Obsidian's own folders, dotfiles and editor
/// temp files are skipped unless an include pattern names them; excludes always win.
pub struct LinkRules {
    include: Option<GlobSet>,
    exclude: GlobSet,
    /// An include reaches into hidden folders, so they must be walked.
    walk_hidden: bool,
}

fn globset(patterns: &[String]) -> Result<GlobSet, globset::Error> {
    let mut builder = GlobSetBuilder::new();
    for p in patterns {
        builder.add(Glob::new(p)?);
        // `docs` or `docs/` also means everything below it.
        let trimmed = p.trim_end_matches('/');
        if !trimmed.contains('*') {
            builder.add(Glob::new(&format!("{trimmed}/**"))?);
        }
    }
    builder.build()
}

fn default_ignored(relative: &str) -> bool {
    let name = relative.rsplit('/').next().unwrap_or(relative);
    relative.split('/').any(|part| part.starts_with('.'))
        || name.ends_with(".tmp")
        || name.ends_with(".swp")
        || name.ends_with('~')
}

impl LinkRules {
    pub fn new(include: &[String], exclude: &[String]) -> Result<Self, globset::Error> {
        Ok(Self {
            include: if include.is_empty() {
                None
            } else {
                Some(globset(include)?)
            },
            exclude: globset(exclude)?,
            walk_hidden: include
                .iter()
                .any(|p| p.starts_with('.') || p.contains("/.")),
        })
    }

    pub fn is_ignored(&self, relative: &str, is_dir: bool) -> bool {
        if self.exclude.is_match(relative) {
            return true;
        }
        let included = self.include.as_ref().map(|inc| inc.is_match(relative));
        if is_dir {
            // Directories are walked unless hidden (and no include reaches into them).
            return relative.split('/').any(|p| p.starts_with('.')) && !self.walk_hidden;
        }
        match included {
            Some(true) => false,
            Some(false) => true,
            None => default_ignored(relative),
        }
    }
}

impl crate::scan::Ignore for LinkRules {
    fn is_ignored(&self, relative: &str, is_dir: bool) -> bool {
        LinkRules::is_ignored(self, relative, is_dir)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_and_schedules_are_deterministic_and_spread() {
        let a = link_id("main", Path::new("/home/u/vault"));
        assert_eq!(a, link_id("main", Path::new("/home/u/vault")));
        assert!(a.starts_with("lf_") && a.len() == 19, "{a}");
        assert_ne!(a, link_id("work", Path::new("/home/u/vault")));
        let intervals: Vec<u64> = (0..50)
            .map(|i| {
                effective_interval_ms(30_000, 20, &link_id("main", Path::new(&format!("/v{i}"))))
            })
            .collect();
        assert!(
            intervals.iter().all(|ms| (24_000..=36_000).contains(ms)),
            "{intervals:?}"
        );
        let distinct: std::collections::BTreeSet<_> = intervals.iter().collect();
        assert!(distinct.len() > 40, "links spread out");
        assert_eq!(effective_interval_ms(30_000, 0, &a), 30_000);
        assert_eq!(
            effective_interval_ms(1000, 20, &a),
            effective_interval_ms(1000, 20, &a)
        );
    }

    #[test]
    fn obsidian_extras_are_skipped_unless_included() {
        let rules = LinkRules::new(&[], &["private/**".to_string()]).unwrap();
        let cases = [
            ("note.md", false, false),
            ("nested/deep/note.md", false, false),
            ("attachments/image.png", false, false),
            (".obsidian/workspace.json", false, true),
            (".obsidian", true, true),
            (".trash/old.md", false, true),
            (".git/config", false, true),
            (".hidden.md", false, true),
            ("draft.md.tmp", false, true),
            ("note.md.swp", false, true),
            ("note.md~", false, true),
            ("private/secret.md", false, true),
            ("private", true, false),
        ];
        for (path, is_dir, expected) in cases {
            assert_eq!(rules.is_ignored(path, is_dir), expected, "{path}");
        }
        let including =
            LinkRules::new(&["*.md".to_string(), ".trash/**".to_string()], &[]).unwrap();
        assert!(!including.is_ignored(".trash/old.md", false));
        assert!(!including.is_ignored(".trash", true));
        assert!(including.is_ignored("image.png", false));
    }

    #[test]
    fn registry_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let path = registry_path(dir.path(), "main");
        assert!(load(&path).unwrap().is_empty());
        let record = LinkRecord {
            id: "lf_1".into(),
            project: "main".into(),
            display_path: "~/vault".into(),
            resolved_path: "/home/u/vault".into(),
            mount: "vault".into(),
            include: vec![],
            exclude: vec![],
            watch: WatchSettings {
                mode: WatchMode::Poll,
                poll_interval_ms: 30_000,
                jitter_pct: 20,
                platform: "linux".into(),
            },
            created_at: "2026-11-21T00:00:00Z".into(),
            last_scan: None,
            last_error: None,
            file_count: 0,
            total_bytes: 0,
            last_runtime_ms: 0,
            status: LinkStatus::Idle,
            failures: 0,
            last_changes: [0; 4],
            emptied: false,
            mappings: BTreeMap::from([(
                "a.md".into(),
                Mapping {
                    note_id: "n".into(),
                    checksum_sha256: "c".into(),
                    mtime: 1,
                    size: 2,
                },
            )]),
        };
        save(&path, std::slice::from_ref(&record)).unwrap();
        assert_eq!(load(&path).unwrap(), vec![record]);
        std::fs::write(&path, "not json").unwrap();
        assert!(matches!(load(&path), Err(RegistryError::Parse { .. })));
    }
}
