//! Bringing the index up to date with a project directory.

use std::collections::{BTreeSet, HashMap, VecDeque};
use std::time::Instant;

use serde::Serialize;

use super::changes::{self, Target};
use super::Result;
use crate::config::Project;
use crate::{Engine, Store};
use index::Index;
use index::{FileWarning, NoteRecord, PendingWrite, ProjectState, WriteHandle, WriteOp};
use vault::file::FileStat;
use vault::scan::{self, Change, IgnoreRules, Known};
use vault::watch::Touched;

/// Ops sent to the writer per message: small enough to report progress, large enough to batch.
const CHUNK: usize = 1000;
/// Files parsed at a time: one batch is applied while the next is parsed.
const PARSE_BATCH: usize = 5000;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SyncMode {
    /// Read only what changed since the last scan.
    Incremental,
    /// Forget the project's index entries and read every file again.
    Rebuild,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct SyncReport {
    pub project: String,
    pub scanned: usize,
    pub created: usize,
    pub modified: usize,
    pub deleted: usize,
    pub moved: usize,
    pub bytes_read: u64,
    pub runtime_ms: u64,
    pub warnings: Vec<FileWarning>,
}

/// Progress of a sync, for progress bars.
#[derive(Debug, Clone, Copy)]
pub enum SyncEvent {
    Scanned { files: usize, changes: usize },
    Indexed { done: usize, total: usize },
    Searchable,
}

/// A sync's writes queued to the index writer and not answered yet, oldest first.
struct InFlight<'a> {
    writer: &'a WriteHandle,
    pending: VecDeque<(usize, PendingWrite)>,
    /// Ops of `pending`.
    unanswered: usize,
    done: usize,
    total: usize,
    /// Ops the writer refused, as warnings.
    errors: Vec<FileWarning>,
    on_event: &'a (dyn Fn(SyncEvent) + Sync),
}

impl InFlight<'_> {
    fn queue(&mut self, ops: Vec<WriteOp>) -> Result<()> {
        let mut ops = ops.into_iter().peekable();
        while ops.peek().is_some() {
            let chunk: Vec<WriteOp> = ops.by_ref().take(CHUNK).collect();
            let len = chunk.len();
            self.pending.push_back((len, self.writer.queue(chunk)?));
            self.unanswered += len;
        }
        Ok(())
    }

    /// Waits for the oldest writes until at most `ahead` ops are unanswered.
    fn settle(&mut self, ahead: usize) -> Result<()> {
        while self.unanswered > ahead {
            let Some((len, write)) = self.pending.pop_front() else {
                break;
            };
            for result in write.wait()? {
                if let Err(e) = result {
                    self.errors.push(FileWarning {
                        path: String::new(),
                        message: e.to_string(),
                    });
                }
            }
            self.unanswered -= len;
            self.done += len;
            (self.on_event)(SyncEvent::Indexed {
                done: self.done,
                total: self.total,
            });
        }
        Ok(())
    }
}

/// What the index knows of a project's files.
fn known_files(store: &Store, project: &str) -> Result<HashMap<String, Known>> {
    let snap = store.index.snapshot()?;
    let mut known = HashMap::new();
    for (path, id) in snap.project_paths(project)? {
        if let Some(note) = snap.note(&id)? {
            known.insert(path, known_of(&note));
        }
    }
    Ok(known)
}

fn known_of(note: &NoteRecord) -> Known {
    Known {
        stat: FileStat {
            size: note.size,
            mtime_ns: note.mtime_ns,
        },
        checksum: note.checksum.clone(),
    }
}

/// Scans a project directory and applies what changed. A directory that cannot be read
/// changes nothing and returns the error.
pub(crate) fn sync_project(
    engine: &Engine,
    project: &Project,
    mode: SyncMode,
    on_event: &(dyn Fn(SyncEvent) + Sync),
) -> Result<SyncReport> {
    sync_with(engine, project, mode, None, None, on_event)
}

/// Syncs after a file event. A path that vanished may be an editor's save-by-rename in
/// flight, so a delete is applied only when a second scan `confirm_after` later agrees.
pub(crate) fn sync_after_event(
    engine: &Engine,
    project: &Project,
    confirm_after: std::time::Duration,
    touched: &Touched,
) -> Result<SyncReport> {
    let scope = match touched {
        Touched::Paths(paths) => Some(paths),
        Touched::Everything => None,
    };
    sync_with(
        engine,
        project,
        SyncMode::Incremental,
        scope,
        Some(confirm_after),
        &|_| {},
    )
}

/// Brings the index up to date with the project directory, or with the paths of `scope`
/// only (a watcher's events: the files the server writes itself cost one stat each then,
/// instead of a scan of the whole project).
fn sync_with(
    engine: &Engine,
    project: &Project,
    mode: SyncMode,
    scope: Option<&BTreeSet<String>>,
    confirm_deletes: Option<std::time::Duration>,
    on_event: &(dyn Fn(SyncEvent) + Sync),
) -> Result<SyncReport> {
    let started = Instant::now();
    let rules = IgnoreRules::for_project(&project.path)?;
    // Notes of linked folders are the links' business, not the project directory's.
    let (known, paths) = match (mode, scope) {
        (SyncMode::Rebuild, _) => (HashMap::new(), None),
        (SyncMode::Incremental, None) => (known_project_files(&engine.store, project)?, None),
        (SyncMode::Incremental, Some(paths)) => {
            let paths = outside_mounts(&engine.store, project, paths);
            (
                known_paths(&engine.store.index, project, &paths)?,
                Some(paths),
            )
        }
    };
    let rescan = || match &paths {
        None => scan::scan(&project.path, &rules, &known),
        Some(paths) => scan::scan_paths(&project.path, &rules, &known, paths),
    };
    let mut scan = rescan()?;
    scan::remove_stale_temp_files(&scan);
    let mut changes = scan::diff(&known, &scan);
    if let Some(wait) = confirm_deletes {
        if changes.iter().any(|c| matches!(c, Change::Deleted(_))) {
            std::thread::sleep(wait);
            scan = rescan()?;
            changes = scan::diff(&known, &scan);
        }
    }
    tracing::debug!(
        elapsed_ms = started.elapsed().as_millis() as u64,
        files = scan.files.len(),
        "scanned"
    );
    // A project folder that held files and is suddenly empty may be an unmounted drive:
    // keep its notes until a reindex says otherwise.
    let emptied = mode == SyncMode::Incremental
        && paths.is_none()
        && scan.files.is_empty()
        && known.len() >= scan::EMPTIED_GUARD;
    if emptied {
        changes.retain(|c| !matches!(c, Change::Deleted(_)));
        scan.warnings.push(scan::ScanWarning {
            path: String::new(),
            message: format!(
                "the project folder is empty now but held {} files (an unmounted drive?); its notes are kept until `gitmem reindex --project {}` confirms",
                known.len(),
                project.name
            ),
        });
    }
    on_event(SyncEvent::Scanned {
        files: scan.files.len(),
        changes: changes.len(),
    });
    if mode == SyncMode::Incremental {
        crate::git::versioned::record_external(engine, project, &changes);
    }

    let mut report = SyncReport {
        project: project.name.clone(),
        scanned: scan.files.len(),
        bytes_read: scan.bytes_read,
        ..Default::default()
    };
    let include_project_prefix = engine.store.config().compat.permalinks_include_project;
    let target = Target {
        project: &project.name,
        include_project_prefix,
        place: &|path| path.to_string(),
        annotate: &|_, _, _| {},
    };
    let sorted = changes::sort(&target, &changes, &scan);
    report.created = sorted.counts.created;
    report.modified = sorted.counts.modified;
    report.deleted = sorted.counts.deleted;
    report.moved = sorted.counts.moved;
    // Scan problems are kept with the project state; parse problems with each note.
    let scan_warnings: Vec<FileWarning> = scan
        .warnings
        .iter()
        .map(|w| FileWarning {
            path: w.path.clone(),
            message: w.message.clone(),
        })
        .collect();
    let mut warnings = scan_warnings.clone();
    let mut first: Vec<WriteOp> = Vec::new();
    if mode == SyncMode::Rebuild {
        first.push(WriteOp::DeleteProject {
            project: project.name.clone(),
        });
    }
    first.extend(sorted.ops);
    let mut writes = InFlight {
        writer: engine.store.index.writer(),
        pending: VecDeque::new(),
        unanswered: 0,
        done: 0,
        total: first.len() + sorted.to_parse.len(),
        errors: Vec::new(),
        on_event,
    };
    writes.queue(first)?;
    // Parsed a batch at a time while the writer applies the one before: the whole vault
    // parsed at once was most of a bulk load's memory, and kept the writer idle meanwhile.
    for batch in sorted.to_parse.chunks(PARSE_BATCH) {
        writes.settle(PARSE_BATCH)?;
        let (upserts, parse_warnings) = changes::parse(&target, &scan, batch);
        warnings.extend(parse_warnings);
        for path in batch {
            if let Some(observed) = scan.files.get_mut(*path) {
                observed.bytes = None;
            }
        }
        writes.queue(upserts)?;
    }
    tracing::debug!(elapsed_ms = started.elapsed().as_millis() as u64, "parsed");
    writes.settle(0)?;
    warnings.append(&mut writes.errors);
    report.runtime_ms = started.elapsed().as_millis() as u64;
    report.warnings = warnings;
    if paths.is_some() {
        // The project's state (file count, scan warnings) is a whole scan's to record.
        return Ok(report);
    }
    let state = ProjectState {
        last_scan: Some(super::now_text()),
        last_scan_ms: Some(report.runtime_ms),
        files: scan.files.len() as u64,
        warnings: scan_warnings,
    };
    engine.store.index.write(vec![WriteOp::SetProjectState {
        project: project.name.clone(),
        state,
    }])?;
    Ok(report)
}

/// Rebuilds a project's index entries from its files and its linked folders. A marker file
/// under the index lives while the rebuild runs: a process that dies half-way leaves it, and
/// the next start finishes the rebuild (`finish_interrupted_rebuilds`).
pub(crate) fn rebuild_project(
    engine: &Engine,
    project: &Project,
    on_event: &(dyn Fn(SyncEvent) + Sync),
) -> Result<SyncReport> {
    let marker = rebuild_marker(&engine.store, project);
    vault::fs::atomic_write(&marker, project.name.as_bytes())?;
    // Locked while the rebuild runs, so that another process (a `status` beside this
    // `reindex`) does not take a running rebuild for an interrupted one.
    let _running = vault::fs::try_lock(&marker)?;
    let mut report = sync_project(engine, project, SyncMode::Rebuild, on_event)?;
    for link in crate::links::reindex_links(&engine.store, project)? {
        report.scanned += link.scanned;
        report.created += link.created;
        report.warnings.extend(link.warnings);
    }
    engine.store.index.wait_searchable()?;
    vault::fs::delete_file(&marker)?;
    on_event(SyncEvent::Searchable);
    Ok(report)
}

/// Whether `path` is under a linked folder's mount: the link's business, not the project
/// directory's.
fn in_a_mount(store: &Store, project: &Project) -> impl Fn(&str) -> bool {
    let mounts: Vec<String> = crate::mounts::mounts(store, project)
        .into_iter()
        .map(|(m, _)| format!("{m}/"))
        .collect();
    move |path| mounts.iter().any(|m| path.starts_with(m.as_str()))
}

/// `paths` without those under a linked folder's mount.
fn outside_mounts(store: &Store, project: &Project, paths: &BTreeSet<String>) -> Vec<String> {
    let in_a_mount = in_a_mount(store, project);
    paths.iter().filter(|p| !in_a_mount(p)).cloned().collect()
}

/// What the index knows of `paths`: the note at each, or, for a path that is no note's
/// (a folder, perhaps gone), the notes under it.
fn known_paths(
    index: &Index,
    project: &Project,
    paths: &[String],
) -> Result<HashMap<String, Known>> {
    let snap = index.snapshot()?;
    let mut known = HashMap::new();
    let mut folders = Vec::new();
    for path in paths {
        let note = match snap.id_by_path(&project.name, path)? {
            Some(id) => snap.note(&id)?,
            None => None,
        };
        match note {
            Some(note) => {
                known.insert(path.clone(), known_of(&note));
            }
            // A new file; anything else may be a folder, here or gone.
            None if project.path.join(path).is_file() => {}
            None => folders.push(format!("{path}/")),
        }
    }
    if folders.is_empty() {
        return Ok(known);
    }
    for (path, id) in snap.project_paths(&project.name)? {
        if folders.iter().any(|f| path.starts_with(f.as_str())) {
            if let Some(note) = snap.note(&id)? {
                known.insert(path, known_of(&note));
            }
        }
    }
    Ok(known)
}

/// What the index knows of the project directory's own files: paths under a linked
/// folder's mount are the link's business.
pub(crate) fn known_project_files(
    store: &Store,
    project: &Project,
) -> Result<HashMap<String, Known>> {
    let in_a_mount = in_a_mount(store, project);
    let mut known = known_files(store, &project.name)?;
    known.retain(|path, _| !in_a_mount(path));
    Ok(known)
}

/// Reads again what the index lost or missed: changed and lost files of the project
/// directory and of its linked folders. A scheduled-style rescan, so a folder that looks
/// suddenly empty is not taken at its word.
pub(crate) fn reread_project(engine: &Engine, project: &Project) -> Result<()> {
    crate::links::forget_lost_link_files(&engine.store, project)?;
    sync_project(engine, project, SyncMode::Incremental, &|_| {})?;
    for link in crate::links::links(&engine.store, project)? {
        crate::links::rescan_link(&engine.store, project, &link.id)?;
    }
    Ok(())
}

/// Whether a reindex of `project` stopped half-way: its marker is there and no running
/// rebuild holds it. With the marker's lock, the caller may finish the rebuild.
fn interrupted_rebuild(store: &Store, project: &Project) -> Option<vault::fs::Lock> {
    let marker = rebuild_marker(store, project);
    if !marker.exists() {
        return None;
    }
    vault::fs::try_lock(&marker).ok().flatten()
}

/// Whether a reindex of `project` stopped half-way.
pub(crate) fn rebuild_interrupted(store: &Store, project: &Project) -> bool {
    interrupted_rebuild(store, project).is_some()
}

/// Where the marker of a running rebuild of `project` lives.
fn rebuild_marker(store: &Store, project: &Project) -> std::path::PathBuf {
    store
        .config()
        .index_dir()
        .join("rebuilding")
        .join(hex::encode(project.name.as_bytes()))
}

/// Finishes rebuilds that a dead process left half done: an incremental sync adds back what
/// the rebuild had not re-read yet, and the linked folders are read again.
pub(crate) fn finish_interrupted_rebuilds(engine: &Engine) -> Result<()> {
    for project in crate::scope::projects(&engine.store, None)? {
        let Some(_finishing) = interrupted_rebuild(&engine.store, &project) else {
            continue;
        };
        let marker = rebuild_marker(&engine.store, &project);
        tracing::warn!(
            "finishing the interrupted reindex of project '{}'",
            project.name
        );
        sync_project(engine, &project, SyncMode::Incremental, &|_| {})?;
        crate::links::reindex_links(&engine.store, &project)?;
        engine.store.index.wait_searchable()?;
        vault::fs::delete_file(&marker)?;
    }
    Ok(())
}

pub(crate) fn sync_and_wait(
    engine: &Engine,
    project: &Project,
    mode: SyncMode,
    on_event: &(dyn Fn(SyncEvent) + Sync),
) -> Result<SyncReport> {
    let report = sync_project(engine, project, mode, on_event)?;
    engine.store.index.wait_searchable()?;
    on_event(SyncEvent::Searchable);
    Ok(report)
}
