//! Walking a directory into a snapshot, and diffing two snapshots.
//!
//! A scan stats every file and reads only those whose (mtime, size) differ from what the caller
//! already knows, so an unchanged tree costs one stat per file. The diff pairs a vanished path
//! with a new path of the same SHA-256 as a move. Paths that could not be read are reported and
//! never count as deleted: a scan that cannot see a file must not forget it.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Path, PathBuf};

use ignore::gitignore::{Gitignore, GitignoreBuilder};
use rayon::prelude::*;

use crate::file::{sha256_hex, system_time_ns, FileStat, Observed};

/// Compat 8.3 defaults, applied to every project scan.
pub const DEFAULT_IGNORES: &[&str] = &[
    ".*",
    "*.db",
    "*.db-shm",
    "*.db-wal",
    "config.json",
    ".git",
    ".svn",
    "__pycache__",
    "*.pyc",
    "*.pyo",
    "*.pyd",
    ".pytest_cache",
    ".coverage",
    "*.egg-info",
    ".tox",
    ".mypy_cache",
    ".ruff_cache",
    ".venv",
    "venv",
    "env",
    ".env",
    "node_modules",
    "build",
    "dist",
    ".cache",
    ".idea",
    ".vscode",
    ".DS_Store",
    "Thumbs.db",
    "desktop.ini",
    ".obsidian",
    "*.tmp",
    "*.swp",
    "*.swo",
    "*~",
];

/// What is already known about a file (from the index or a link registry).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Known {
    pub stat: FileStat,
    pub checksum: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScanWarning {
    pub path: String,
    pub message: String,
}

#[derive(Debug, thiserror::Error)]
pub enum ScanError {
    #[error("cannot read {}: {source}", root.display())]
    RootUnreadable {
        root: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    #[error("invalid ignore pattern: {0}")]
    BadPattern(String),
}

/// Decides which paths a scan skips.
pub trait Ignore: Sync {
    fn is_ignored(&self, relative: &str, is_dir: bool) -> bool;
}

impl Ignore for IgnoreRules {
    fn is_ignored(&self, relative: &str, is_dir: bool) -> bool {
        IgnoreRules::is_ignored(self, relative, is_dir)
    }
}

/// Which paths a project scan skips.
pub struct IgnoreRules {
    matcher: Gitignore,
    skip_hidden: bool,
}

impl IgnoreRules {
    /// Project rules: the defaults, the root `.gitignore`, and every hidden path.
    pub fn for_project(root: &Path) -> Result<Self, ScanError> {
        let mut builder = GitignoreBuilder::new(root);
        for pattern in DEFAULT_IGNORES {
            builder
                .add_line(None, pattern)
                .map_err(|e| ScanError::BadPattern(e.to_string()))?;
        }
        // A broken .gitignore line is skipped by the builder; the rest still applies.
        let _ = builder.add(root.join(".gitignore"));
        let matcher = builder
            .build()
            .map_err(|e| ScanError::BadPattern(e.to_string()))?;
        Ok(Self {
            matcher,
            skip_hidden: true,
        })
    }

    pub fn is_ignored(&self, relative: &str, is_dir: bool) -> bool {
        if self.skip_hidden && relative.split('/').any(|part| part.starts_with('.')) {
            return true;
        }
        self.matcher
            .matched_path_or_any_parents(relative, is_dir)
            .is_ignore()
    }
}

/// The result of scanning a directory tree.
#[derive(Debug, Default)]
pub struct Scan {
    pub files: BTreeMap<String, Observed>,
    pub warnings: Vec<ScanWarning>,
    /// Paths (files or directories) that exist but could not be read; nothing at or under them
    /// may be treated as deleted.
    pub unreadable: BTreeSet<String>,
    pub bytes_read: u64,
    /// Temp files of writes that never finished (older than a minute).
    pub stale_temp_files: Vec<PathBuf>,
}

impl Scan {
    /// True when `path` is, or is under, something this scan could not read.
    pub fn is_unreadable(&self, path: &str) -> bool {
        self.unreadable.iter().any(|u| {
            u.is_empty()
                || path == u
                || (path.starts_with(u.as_str()) && path[u.len()..].starts_with('/'))
        })
    }
}

/// A folder (project or linked) that held at least this many files and scans empty is
/// suspect: an unmounted drive, perhaps.
pub const EMPTIED_GUARD: usize = 3;

/// Walks `root`, reading and hashing only files whose stat differs from `known`.
pub fn scan(
    root: &Path,
    rules: &dyn Ignore,
    known: &HashMap<String, Known>,
) -> Result<Scan, ScanError> {
    let meta = std::fs::metadata(root).map_err(|source| ScanError::RootUnreadable {
        root: root.to_path_buf(),
        source,
    })?;
    if !meta.is_dir() {
        return Err(ScanError::NotADirectory(root.to_path_buf()));
    }
    std::fs::read_dir(root).map_err(|source| ScanError::RootUnreadable {
        root: root.to_path_buf(),
        source,
    })?;
    let whole = walkdir::WalkDir::new(root).follow_links(true).min_depth(1);
    walk(root, rules, known, vec![whole])
}

/// Scans only `paths` of the project (files, or folders with what is under them; relative,
/// slash-separated), as `scan` would see them: a watcher's events cost in proportion to what
/// changed, not to the project. A path that is gone, ignored or under an ignored folder is
/// not in the result; the caller compares with what it knew of those paths alone.
pub fn scan_paths(
    root: &Path,
    rules: &dyn Ignore,
    known: &HashMap<String, Known>,
    paths: &[String],
) -> Result<Scan, ScanError> {
    std::fs::metadata(root).map_err(|source| ScanError::RootUnreadable {
        root: root.to_path_buf(),
        source,
    })?;
    let under_ignored_folder = |rel: &str| {
        rel.match_indices('/')
            .any(|(at, _)| rules.is_ignored(&rel[..at], true))
    };
    let starts = paths
        .iter()
        .filter(|rel| !rel.is_empty() && !under_ignored_folder(rel))
        .map(|rel| root.join(rel))
        .filter(|path| path.symlink_metadata().is_ok())
        .map(|path| walkdir::WalkDir::new(path).follow_links(true))
        .collect();
    walk(root, rules, known, starts)
}

fn walk(
    root: &Path,
    rules: &dyn Ignore,
    known: &HashMap<String, Known>,
    starts: Vec<walkdir::WalkDir>,
) -> Result<Scan, ScanError> {
    let mut scan = Scan::default();
    let mut to_read: Vec<(String, PathBuf, FileStat, Option<i64>)> = Vec::new();
    let canonical_root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let temp_files = std::cell::RefCell::new(Vec::new());
    let keep = |entry: &walkdir::DirEntry| {
        if is_temp_file(entry) {
            temp_files.borrow_mut().push(entry.path().to_path_buf());
            return false;
        }
        match crate::path::relative_slash_path(root, entry.path()) {
            Some(rel) => !rules.is_ignored(&rel, entry.file_type().is_dir()),
            None => false,
        }
    };
    for start in starts {
        let mut walker = start.into_iter().filter_entry(keep);
        while let Some(entry) = walker.next() {
            let entry = match entry {
                Ok(entry) => entry,
                Err(err) => {
                    let rel = err
                        .path()
                        .and_then(|p| crate::path::relative_slash_path(root, p))
                        .unwrap_or_default();
                    let message = if err.loop_ancestor().is_some() {
                        "symlink loop; skipped".to_string()
                    } else {
                        format!(
                            "cannot read: {}",
                            err.io_error()
                                .map(|e| e.to_string())
                                .unwrap_or_else(|| err.to_string())
                        )
                    };
                    scan.warnings.push(ScanWarning {
                        path: rel.clone(),
                        message,
                    });
                    scan.unreadable.insert(rel);
                    continue;
                }
            };
            // A symlink may lead anywhere: what it leads to outside the root is not the project's.
            if entry.path_is_symlink() && !leads_inside(&canonical_root, entry.path()) {
                let rel = crate::path::relative_slash_path(root, entry.path()).unwrap_or_default();
                scan.warnings.push(ScanWarning {
                    path: rel,
                    message: "symlink leads outside the project; skipped".into(),
                });
                if entry.file_type().is_dir() {
                    walker.skip_current_dir();
                }
                continue;
            }
            if entry.file_type().is_dir() {
                continue;
            }
            let Some(rel) = crate::path::relative_slash_path(root, entry.path()) else {
                scan.warnings.push(ScanWarning {
                    path: entry.path().to_string_lossy().into_owned(),
                    message: "file name is not valid UTF-8; skipped".into(),
                });
                continue;
            };
            if !entry.file_type().is_file() {
                scan.warnings.push(ScanWarning {
                    path: rel,
                    message: "not a regular file; skipped".into(),
                });
                continue;
            }
            let meta = match entry.metadata() {
                Ok(m) => m,
                Err(e) => {
                    scan.warnings.push(ScanWarning {
                        path: rel.clone(),
                        message: format!("cannot stat: {e}"),
                    });
                    scan.unreadable.insert(rel);
                    continue;
                }
            };
            let stat = FileStat::of(&meta);
            let created_ns = system_time_ns(meta.created());
            // An empty checksum means the index lost what it read: read the file again.
            match known.get(&rel) {
                Some(k) if k.stat == stat && !k.checksum.is_empty() => {
                    scan.files.insert(
                        rel,
                        Observed {
                            stat,
                            checksum: k.checksum.clone(),
                            created_ns,
                            bytes: None,
                        },
                    );
                }
                _ => to_read.push((rel, entry.into_path(), stat, created_ns)),
            }
        }
    }

    let read: Vec<_> = to_read
        .into_par_iter()
        .map(|(rel, path, stat, created_ns)| {
            let result = std::fs::read(&path).map(|bytes| Observed {
                stat,
                checksum: sha256_hex(&bytes),
                created_ns,
                bytes: Some(bytes),
            });
            (rel, result)
        })
        .collect();
    for (rel, result) in read {
        match result {
            Ok(observed) => {
                scan.bytes_read += observed.stat.size;
                scan.files.insert(rel, observed);
            }
            Err(e) => {
                scan.warnings.push(ScanWarning {
                    path: rel.clone(),
                    message: format!("cannot read: {e}"),
                });
                scan.unreadable.insert(rel);
            }
        }
    }
    scan.stale_temp_files = temp_files
        .into_inner()
        .into_iter()
        .filter(|p| is_stale(p))
        .collect();
    Ok(scan)
}

/// A temp file of gitmem's atomic writes (`.<name>.<stamp>-<uuid>.gitmem-tmp`).
fn is_temp_file(entry: &walkdir::DirEntry) -> bool {
    entry.file_type().is_file()
        && entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with('.') && n.ends_with(crate::fs::TEMP_SUFFIX))
}

/// A temp file whose writer the name does not tell (an older gitmem's) is left over once it is
/// this old; a younger one may belong to a write in flight in another process.
const STALE_TEMP_AGE: std::time::Duration = std::time::Duration::from_secs(60);

/// Whether a temp file was left by a write that will never finish: its writer is gone,
/// whatever the file's age. A live writer's temp files are never stale.
fn is_stale(path: &Path) -> bool {
    let writer = path
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(|n| n.strip_suffix(crate::fs::TEMP_SUFFIX))
        .and_then(|n| n.rsplit_once('.'))
        .and_then(|(_, id)| id.rsplit_once('-'))
        .and_then(|(stamp, _uuid)| crate::process::alive(stamp));
    match writer {
        Some(alive) => !alive,
        None => std::fs::metadata(path)
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age >= STALE_TEMP_AGE),
    }
}

/// Deletes the temp files a scan found left over by interrupted writes (gitmem's own files,
/// never a user's).
pub fn remove_stale_temp_files(scan: &Scan) {
    for path in &scan.stale_temp_files {
        match std::fs::remove_file(path) {
            Ok(()) => tracing::info!("removed {}, left by an interrupted write", path.display()),
            Err(e) => tracing::warn!("cannot remove {}: {e}", path.display()),
        }
    }
}

/// Whether the symlink at `path` resolves to somewhere inside `canonical_root`.
fn leads_inside(canonical_root: &Path, path: &Path) -> bool {
    path.canonicalize()
        .is_ok_and(|target| target.starts_with(canonical_root))
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Change {
    Created(String),
    Modified(String),
    /// Same bytes, new stat (touched): only the stored stat needs updating.
    Touched(String),
    Deleted(String),
    Moved {
        from: String,
        to: String,
    },
}

/// Compares what was known with what a scan found.
pub fn diff(known: &HashMap<String, Known>, scan: &Scan) -> Vec<Change> {
    let mut changes = Vec::new();
    let mut created: Vec<&String> = Vec::new();
    for (path, observed) in &scan.files {
        match known.get(path) {
            None => created.push(path),
            Some(k) if k.checksum != observed.checksum => {
                changes.push(Change::Modified(path.clone()))
            }
            Some(k) if k.stat != observed.stat => changes.push(Change::Touched(path.clone())),
            Some(_) => {}
        }
    }
    let mut vanished: Vec<&String> = known
        .keys()
        .filter(|p| !scan.files.contains_key(*p) && !scan.is_unreadable(p))
        .collect();
    vanished.sort();

    // A new path with the checksum of a vanished one is that file, moved.
    let mut new_by_checksum: HashMap<&str, Vec<&String>> = HashMap::new();
    for path in &created {
        new_by_checksum
            .entry(scan.files[*path].checksum.as_str())
            .or_default()
            .push(path);
    }
    let mut moved_to: BTreeSet<&String> = BTreeSet::new();
    for from in vanished {
        let candidates = new_by_checksum.get_mut(known[from].checksum.as_str());
        match candidates.and_then(|c| {
            if c.is_empty() {
                None
            } else {
                Some(c.remove(0))
            }
        }) {
            Some(to) => {
                moved_to.insert(to);
                changes.push(Change::Moved {
                    from: from.clone(),
                    to: to.clone(),
                });
            }
            None => changes.push(Change::Deleted(from.clone())),
        }
    }
    for path in created {
        if !moved_to.contains(path) {
            changes.push(Change::Created(path.clone()));
        }
    }
    changes
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    fn known_from(scan: &Scan) -> HashMap<String, Known> {
        scan.files
            .iter()
            .map(|(p, o)| {
                (
                    p.clone(),
                    Known {
                        stat: o.stat,
                        checksum: o.checksum.clone(),
                    },
                )
            })
            .collect()
    }

    /// A temporary folder holding `files`: (path, text) each.
    fn folder_with(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            fs::create_dir_all(path.parent().unwrap()).unwrap();
            fs::write(path, text).unwrap();
        }
        dir
    }

    /// The folder's ignore rules and a first scan of it, which knows no file yet.
    fn first_scan(root: &Path) -> (IgnoreRules, Scan) {
        let rules = IgnoreRules::for_project(root).unwrap();
        let scanned = scan(root, &rules, &HashMap::new()).unwrap();
        (rules, scanned)
    }

    #[test]
    fn ignore_rules_follow_compat() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(
            dir.path().join(".gitignore"),
            "secret.md\n/private/\n# comment\n",
        )
        .unwrap();
        let rules = IgnoreRules::for_project(dir.path()).unwrap();
        let cases = [
            ("notes/a.md", false, false),
            ("secret.md", false, true),
            ("sub/secret.md", false, true),
            ("private", true, true),
            ("private/x.md", false, true),
            (".hidden.md", false, true),
            ("notes/.obsidian", true, true),
            ("node_modules/pkg/readme.md", false, true),
            ("a.tmp", false, true),
            ("a.md.swp", false, true),
            ("draft.md~", false, true),
            ("x.db", false, true),
            ("build", true, true),
            ("builder/a.md", false, false),
            ("image.png", false, false),
        ];
        for (path, is_dir, expected) in cases {
            assert_eq!(rules.is_ignored(path, is_dir), expected, "{path}");
        }
    }

    #[test]
    fn scan_reads_only_changed_files_and_diff_finds_moves() {
        let dir = folder_with(&[
            ("a/one.md", "one"),
            ("two.md", "two"),
            ("three.md", "three"),
            (".hidden.md", "hidden"),
        ]);
        let root = dir.path();

        let (rules, first) = first_scan(root);
        assert_eq!(
            first.files.keys().collect::<Vec<_>>(),
            ["a/one.md", "three.md", "two.md"]
        );
        assert!(first.files.values().all(|o| o.bytes.is_some()));
        let known = known_from(&first);

        let again = scan(root, &rules, &known).unwrap();
        assert!(
            again.files.values().all(|o| o.bytes.is_none()),
            "unchanged files are not read"
        );
        assert_eq!(again.bytes_read, 0);
        assert!(diff(&known, &again).is_empty());

        fs::rename(root.join("a/one.md"), root.join("a/renamed.md")).unwrap();
        fs::write(root.join("two.md"), "two, edited").unwrap();
        fs::remove_file(root.join("three.md")).unwrap();
        fs::write(root.join("four.md"), "four").unwrap();
        let after = scan(root, &rules, &known).unwrap();
        let mut changes = diff(&known, &after);
        changes.sort_by_key(|c| format!("{c:?}"));
        assert_eq!(
            changes,
            vec![
                Change::Created("four.md".into()),
                Change::Deleted("three.md".into()),
                Change::Modified("two.md".into()),
                Change::Moved {
                    from: "a/one.md".into(),
                    to: "a/renamed.md".into()
                },
            ]
        );
    }

    #[test]
    fn a_scan_of_some_paths_sees_them_as_a_whole_scan_would() {
        let dir = folder_with(&[
            ("a.md", "a"),
            ("d/b.md", "b"),
            ("d/e/c.md", "c"),
            ("private/x.md", "x"),
            (".hidden/y.md", "y"),
        ]);
        fs::write(dir.path().join(".gitignore"), "/private/\n").unwrap();
        let root = dir.path();
        let rules = IgnoreRules::for_project(root).unwrap();
        // (paths asked for, files found)
        #[rustfmt::skip]
        let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
            (vec!["a.md"], vec!["a.md"]),
            (vec!["d"], vec!["d/b.md", "d/e/c.md"]),
            (vec!["d/e/c.md", "a.md"], vec!["a.md", "d/e/c.md"]),
            (vec!["gone.md", "gone"], vec![]),
            (vec!["private/x.md", ".hidden/y.md", "private"], vec![]),
        ];
        for (paths, expected) in cases {
            let paths: Vec<String> = paths.iter().map(|p| p.to_string()).collect();
            let s = scan_paths(root, &rules, &HashMap::new(), &paths).unwrap();
            assert_eq!(s.files.keys().collect::<Vec<_>>(), expected, "{paths:?}");
        }
    }

    #[test]
    fn a_copy_is_not_a_move_and_unreadable_paths_are_not_deleted() {
        let dir = folder_with(&[("a.md", "same")]);
        let root = dir.path();
        let (rules, first) = first_scan(root);
        let known = known_from(&first);
        fs::write(root.join("copy.md"), "same").unwrap();
        let s = scan(root, &rules, &known).unwrap();
        assert_eq!(diff(&known, &s), vec![Change::Created("copy.md".into())]);

        fs::remove_file(root.join("a.md")).unwrap();
        std::os::unix::fs::symlink(root.join("missing-target"), root.join("a.md")).unwrap();
        let s = scan(root, &rules, &known).unwrap();
        assert!(s.unreadable.contains("a.md"), "{:?}", s.warnings);
        assert!(!diff(&known, &s).contains(&Change::Deleted("a.md".into())));
    }

    #[test]
    fn symlink_loops_warn_and_missing_roots_fail() {
        let dir = folder_with(&[("d/n.md", "n")]);
        let root = dir.path();
        std::os::unix::fs::symlink(root.join("d"), root.join("d/loop")).unwrap();
        let (rules, s) = first_scan(root);
        assert!(s.files.contains_key("d/n.md"));
        assert!(
            s.warnings.iter().any(|w| w.message.contains("loop")),
            "{:?}",
            s.warnings
        );

        let missing = root.join("nope");
        assert!(matches!(
            scan(&missing, &rules, &HashMap::new()),
            Err(ScanError::RootUnreadable { .. })
        ));
    }
}
