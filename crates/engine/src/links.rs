//! Linked folders: an external directory (an Obsidian vault) bound to a project. Its notes
//! appear under a mount folder of the project and are indexed like native notes; scans read the
//! folder and never write to it; tool edits write back to its files.

pub use vault::links::{effective_interval_ms, LinkRecord};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Instant, SystemTime};

use serde_json::json;

use super::changes::{self, Target};
use super::error::LinkError;
use super::scope::ProjectChoice;
use super::{now_text, Result};
use crate::config::Project;
use crate::Store;
use index::{FileWarning, NoteInput, OpOutcome, WriteOp};
use vault::file::{FileStat, Observed};
use vault::links::{
    self, link_id, LinkRules, LinkStatus, Mapping, WatchMode, WatchSettings, FAILURES_FOR_ERROR,
};
use vault::path::RelPath;
use vault::scan::{self, Change, Known};

/// What `link_folder` is asked to do.
#[derive(Debug, Clone, Default)]
pub struct LinkOptions {
    pub path: String,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub watch: WatchChoice,
    pub mount: Option<String>,
}

/// How a link asks to be watched; what it leaves out comes from config.toml's `[watch]`.
#[derive(Debug, Clone, Default)]
pub struct WatchChoice {
    pub mode: Option<String>,
    pub poll_interval_ms: Option<u64>,
    pub jitter_pct: Option<u32>,
}

/// One scan of a linked folder.
#[derive(Debug, Clone, Default)]
pub struct ScanReport {
    pub project: String,
    pub link_id: String,
    pub path: String,
    pub display_path: String,
    pub include: Vec<String>,
    pub exclude: Vec<String>,
    pub scanned: usize,
    pub created: usize,
    pub updated: usize,
    pub deleted: usize,
    pub moved: usize,
    pub total_bytes: u64,
    pub runtime_ms: u64,
    pub last_error: Option<String>,
    pub warnings: Vec<FileWarning>,
}

impl ScanReport {
    /// True when the folder could not be scanned (the link records why).
    pub fn failed(&self) -> bool {
        self.last_error.is_some()
    }
}

/// A file's modification time as a linked note's front matter records it (with milliseconds).
fn stamp_of(mtime_ns: i64) -> String {
    chrono::DateTime::from_timestamp_millis(mtime_ns / 1_000_000)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// The links of a project.
pub(crate) fn links(store: &Store, project: &Project) -> Result<Vec<LinkRecord>> {
    Ok(links::load(&crate::mounts::registry(store, project)).map_err(LinkError::Registry)?)
}

fn save_links(store: &Store, project: &Project, records: &[LinkRecord]) -> Result<()> {
    Ok(
        links::save(&crate::mounts::registry(store, project), records)
            .map_err(LinkError::Registry)?,
    )
}

/// Folders outside the home directory are read only when config.toml allows it: a
/// client must not turn the server into a reader of the whole machine.
pub(super) fn refuse_outside_home(store: &Store, canonical: &Path, to_do: &str) -> Result<()> {
    if store.config().storage.local.allow_outside_home {
        return Ok(());
    }
    let home = dirs::home_dir().and_then(|h| h.canonicalize().ok());
    if home.as_ref().is_some_and(|h| canonical.starts_with(h)) {
        return Ok(());
    }
    Err(LinkError::OutsideHome {
        folder: canonical.to_path_buf(),
        to_do: to_do.to_string(),
    }
    .into())
}

/// Refuses a folder from outside that overlaps gitmem's own data: the data root, a
/// project, or a folder already linked (but for `relinked`, the link being updated). Reading
/// such a folder in again would duplicate notes, and would let a caller confined to one
/// project read another's.
pub(super) fn refuse_known_folder(
    store: &Store,
    canonical: &Path,
    to_do: &str,
    relinked: Option<&str>,
) -> Result<()> {
    refuse_outside_home(store, canonical, to_do)?;
    let config = store.config();
    let overlaps = |other: &Path| canonical.starts_with(other) || other.starts_with(canonical);
    if overlaps(&config.root) {
        return Err(LinkError::OverlapsRoot {
            folder: canonical.to_path_buf(),
            root: config.root.clone(),
        }
        .into());
    }
    for p in config.projects() {
        if overlaps(&p.path) {
            return Err(LinkError::OverlapsProject {
                folder: canonical.to_path_buf(),
                project: p.name.clone(),
                project_path: p.path.clone(),
            }
            .into());
        }
    }
    for p in config.projects() {
        for link in
            links::load(&links::registry_path(&config.meta_dir(), &p.name)).unwrap_or_default()
        {
            if relinked != Some(link.id.as_str()) && overlaps(&link.resolved_path) {
                return Err(LinkError::OverlapsLink {
                    folder: canonical.to_path_buf(),
                    linked: link.resolved_path,
                    project: p.name.clone(),
                    id: link.id,
                }
                .into());
            }
        }
    }
    Ok(())
}

/// Links a folder to a project (or updates an existing link of the same folder) and scans it.
pub(crate) fn link_folder(
    store: &Store,
    choice: &ProjectChoice,
    options: &LinkOptions,
) -> Result<(LinkRecord, ScanReport)> {
    let project = &crate::scope::select_project(store, choice)?;
    let linked = link_folder_in(store, project, options)?;
    store.progress.links_changed();
    Ok(linked)
}

fn link_folder_in(
    store: &Store,
    project: &Project,
    options: &LinkOptions,
) -> Result<(LinkRecord, ScanReport)> {
    let _guard = store.links_lock.lock().unwrap_or_else(|e| e.into_inner());
    let raw = options.path.trim();
    if raw.is_empty() {
        return Err(LinkError::EmptyPath.into());
    }
    let expanded = match raw.strip_prefix("~/") {
        Some(rest) => dirs::home_dir().unwrap_or_default().join(rest),
        None => PathBuf::from(raw),
    };
    let canonical = expanded
        .canonicalize()
        .map_err(|source| LinkError::Unresolvable {
            path: raw.to_string(),
            source,
        })?;
    if !canonical.is_dir() {
        return Err(LinkError::NotADirectory(raw.to_string()).into());
    }
    let id = link_id(&project.name, &canonical);
    refuse_known_folder(store, &canonical, "link it", Some(&id))?;
    let watch_defaults = store.config().storage.local.watch.clone();
    let mode = match options
        .watch
        .mode
        .as_deref()
        .or(watch_defaults.mode.as_deref())
    {
        None => WatchMode::Poll,
        Some(m) => WatchMode::parse(m).ok_or_else(|| LinkError::WatchMode(m.to_string()))?,
    };
    let poll_interval_ms = options
        .watch
        .poll_interval_ms
        .or(watch_defaults.poll_interval_ms)
        .unwrap_or(30_000);
    if poll_interval_ms < 100 {
        return Err(LinkError::PollInterval(poll_interval_ms).into());
    }
    let jitter_pct = options
        .watch
        .jitter_pct
        .or(watch_defaults.jitter_pct)
        .unwrap_or(20);
    if jitter_pct > 100 {
        return Err(LinkError::Jitter(jitter_pct).into());
    }
    LinkRules::new(&options.include, &options.exclude).map_err(LinkError::Pattern)?;

    let mut records = links(store, project)?;
    let existing = records.iter().position(|l| l.id == id);
    let base_name = canonical
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "linked".into());
    let mount =
        note::filename::sanitize_for_directory(options.mount.as_deref().unwrap_or(&base_name));
    if mount.is_empty() {
        return Err(LinkError::EmptyMount.into());
    }
    RelPath::parse(&mount).map_err(LinkError::Mount)?;
    if records.iter().any(|l| l.id != id && l.mount == mount) {
        return Err(LinkError::MountTaken {
            mount,
            project: project.name.clone(),
        }
        .into());
    }
    if project.path.join(&mount).exists() {
        return Err(LinkError::MountExists {
            project: project.name.clone(),
            mount,
        }
        .into());
    }
    let watch = WatchSettings {
        mode,
        poll_interval_ms,
        jitter_pct,
        platform: std::env::consts::OS.to_string(),
    };
    let record = match existing {
        Some(i) => {
            let r = &mut records[i];
            if r.mount != mount {
                return Err(LinkError::MountChange {
                    path: raw.to_string(),
                    mount: r.mount.clone(),
                }
                .into());
            }
            r.include = options.include.clone();
            r.exclude = options.exclude.clone();
            r.watch = watch;
            r.display_path = raw.to_string();
            r.clone()
        }
        None => {
            let r = LinkRecord {
                id: id.clone(),
                project: project.name.clone(),
                display_path: raw.to_string(),
                resolved_path: canonical,
                mount,
                include: options.include.clone(),
                exclude: options.exclude.clone(),
                watch,
                created_at: now_text(),
                last_scan: None,
                last_error: None,
                file_count: 0,
                total_bytes: 0,
                last_runtime_ms: 0,
                status: LinkStatus::Idle,
                failures: 0,
                last_changes: [0; 4],
                emptied: false,
                mappings: Default::default(),
            };
            records.push(r.clone());
            r
        }
    };
    save_links(store, project, &records)?;
    drop(_guard);
    let report = rescan_link(store, project, &record.id)?;
    let linked = links(store, project)?
        .into_iter()
        .find(|l| l.id == record.id)
        .unwrap_or(record);
    Ok((linked, report))
}

/// Unlinks one folder (by path) or every folder of a project. The folders' files are not
/// touched; their notes leave the index.
pub(crate) fn unlink_folder(
    store: &Store,
    choice: &ProjectChoice,
    path: Option<&str>,
) -> Result<Vec<LinkRecord>> {
    let project = &crate::scope::select_project(store, choice)?;
    let _guard = store.links_lock.lock().unwrap_or_else(|e| e.into_inner());
    let mut records = links(store, project)?;
    let wanted = |l: &LinkRecord| match path {
        None => true,
        Some(p) => {
            let p = p.trim();
            let canonical = PathBuf::from(p).canonicalize().ok();
            l.display_path == p
                || canonical.as_ref() == Some(&l.resolved_path)
                || l.resolved_path == Path::new(p)
                || l.id == p
        }
    };
    let (removed, kept): (Vec<_>, Vec<_>) = records.drain(..).partition(|l| wanted(l));
    if removed.is_empty() {
        return Err(match path {
            Some(p) => LinkError::NotLinked {
                path: p.to_string(),
                project: project.name.clone(),
            },
            None => LinkError::NoLinks(project.name.clone()),
        }
        .into());
    }
    save_links(store, project, &kept)?;
    let mut ops = Vec::new();
    for link in &removed {
        for note in crate::notes::notes_under(&store.index, project, &link.mount)? {
            ops.push(WriteOp::Delete {
                project: project.name.clone(),
                path: note.path,
            });
        }
    }
    store.index.write(ops)?;
    store.progress.links_changed();
    Ok(removed)
}

/// Scans one linked folder and applies what changed. An unreadable or vanished folder
/// changes nothing: the link records the error, and after repeated failures shows `error`.
pub(crate) fn rescan_link(store: &Store, project: &Project, id: &str) -> Result<ScanReport> {
    rescan_link_confirming(store, project, id, false)
}

/// A rescan; with `confirm_empty` (an explicit rescan by the user) a folder that an earlier
/// scan found suddenly empty is taken as really empty, and its notes leave the index.
fn rescan_link_confirming(
    store: &Store,
    project: &Project,
    id: &str,
    confirm_empty: bool,
) -> Result<ScanReport> {
    let started = Instant::now();
    let mut link = links(store, project)?
        .into_iter()
        .find(|l| l.id == id)
        .ok_or_else(|| LinkError::UnknownLink {
            id: id.to_string(),
            project: project.name.clone(),
        })?;
    let mut report = ScanReport {
        project: project.name.clone(),
        link_id: link.id.clone(),
        path: link.resolved_path.display().to_string(),
        display_path: link.display_path.clone(),
        include: link.include.clone(),
        exclude: link.exclude.clone(),
        ..Default::default()
    };
    let rules = LinkRules::new(&link.include, &link.exclude).map_err(LinkError::StoredPattern)?;
    let known: HashMap<String, Known> = link
        .mappings
        .iter()
        .map(|(rel, m)| {
            (
                rel.clone(),
                Known {
                    stat: FileStat {
                        size: m.size,
                        mtime_ns: m.mtime,
                    },
                    checksum: m.checksum_sha256.clone(),
                },
            )
        })
        .collect();
    // `polling` while the scan runs, for list_links in this or another process.
    let previous_status = link.status;
    link.status = LinkStatus::Polling;
    store_link(store, project, &link)?;
    let scanned = scan::scan(&link.resolved_path, &rules, &known);
    let scan = match scanned {
        Ok(scan) => scan,
        Err(e) => {
            link.failures += 1;
            link.last_error = Some(e.to_string());
            link.status =
                if link.failures >= FAILURES_FOR_ERROR || previous_status == LinkStatus::Error {
                    LinkStatus::Error
                } else {
                    LinkStatus::Idle
                };
            link.last_runtime_ms = started.elapsed().as_millis() as u64;
            store_link(store, project, &link)?;
            report.last_error = link.last_error.clone();
            report.runtime_ms = link.last_runtime_ms;
            return Ok(report);
        }
    };
    scan::remove_stale_temp_files(&scan);
    let emptied = scan.files.is_empty() && known.len() >= scan::EMPTIED_GUARD;
    if emptied && !(confirm_empty && link.emptied) {
        link.emptied = true;
        link.status = LinkStatus::Error;
        link.last_error = Some(format!(
            "the folder is empty now but held {} files (an unmounted drive?); its notes are kept until an explicit rescan (`gitmem rescan-links`, or the sync tool) finds it empty again",
            known.len()
        ));
        link.last_runtime_ms = started.elapsed().as_millis() as u64;
        store_link(store, project, &link)?;
        report.last_error = link.last_error.clone();
        report.runtime_ms = link.last_runtime_ms;
        return Ok(report);
    }
    link.emptied = false;
    let changes = scan::diff(&known, &scan);
    let mounted = |rel: &str| format!("{}/{rel}", link.mount);
    let annotate = |rel: &str, observed: &Observed, input: &mut NoteInput| {
        if !input.tags.iter().any(|t| t == "linked") {
            input.tags.push("linked".into());
        }
        input.metadata.insert(
            "source".into(),
            json!({
                "origin": "linked_folder",
                "file_uri": format!("file://{}", link.resolved_path.join(rel).display()),
                "relative_path": rel,
                "checksum_sha256": observed.checksum,
                "linked_folder_id": link.id,
                "file_mtime": stamp_of(observed.stat.mtime_ns),
                "file_size": observed.stat.size,
            }),
        );
    };
    let target = Target {
        project: &project.name,
        include_project_prefix: store.config().compat.permalinks_include_project,
        place: &mounted,
        annotate: &annotate,
    };
    let planned = changes::plan(&target, &changes, &scan);
    report.created = planned.counts.created;
    report.updated = planned.counts.modified;
    report.deleted = planned.counts.deleted;
    report.moved = planned.counts.moved;
    report.warnings.extend(planned.warnings);
    let (ops, op_paths) = (planned.ops, planned.upserted);
    report
        .warnings
        .extend(scan.warnings.iter().map(|w| FileWarning {
            path: mounted(&w.path),
            message: w.message.clone(),
        }));
    let outcomes = if ops.is_empty() {
        Vec::new()
    } else {
        store.index.write(ops)?
    };
    let mut ids: HashMap<String, String> = HashMap::new();
    for (outcome, rel) in outcomes.iter().zip(&op_paths) {
        if let (Ok(OpOutcome::Upserted { id, .. }), Some(rel)) = (outcome, rel) {
            ids.insert(rel.clone(), id.clone());
        }
    }
    let mut mappings = std::collections::BTreeMap::new();
    for (rel, observed) in &scan.files {
        let note_id = ids
            .get(rel)
            .cloned()
            .or_else(|| link.mappings.get(rel).map(|m| m.note_id.clone()))
            .or_else(|| {
                changes.iter().find_map(|c| match c {
                    Change::Moved { from, to } if to == rel => {
                        link.mappings.get(from).map(|m| m.note_id.clone())
                    }
                    _ => None,
                })
            })
            .unwrap_or_default();
        mappings.insert(
            rel.clone(),
            Mapping {
                note_id,
                checksum_sha256: observed.checksum.clone(),
                mtime: observed.stat.mtime_ns,
                size: observed.stat.size,
            },
        );
    }
    // Paths that could not be read keep their mapping: fail closed.
    for (rel, m) in &link.mappings {
        if !mappings.contains_key(rel) && scan.is_unreadable(rel) {
            mappings.insert(rel.clone(), m.clone());
        }
    }
    report.scanned = scan.files.len();
    report.total_bytes = scan.files.values().map(|o| o.stat.size).sum();
    report.runtime_ms = started.elapsed().as_millis() as u64;
    link.mappings = mappings;
    link.file_count = report.scanned as u64;
    link.total_bytes = report.total_bytes;
    link.last_runtime_ms = report.runtime_ms;
    link.last_scan = Some(now_text());
    link.last_error = None;
    link.failures = 0;
    link.last_changes =
        [report.created, report.updated, report.deleted, report.moved].map(|n| n as u64);
    link.status = LinkStatus::Idle;
    store_link(store, project, &link)?;
    Ok(report)
}

/// Writes back one link's record, keeping the others as they are on disk now.
fn store_link(store: &Store, project: &Project, link: &LinkRecord) -> Result<()> {
    let _guard = store.links_lock.lock().unwrap_or_else(|e| e.into_inner());
    let mut records = links(store, project)?;
    match records.iter_mut().find(|l| l.id == link.id) {
        Some(slot) => *slot = link.clone(),
        // Unlinked while the scan ran: nothing to record.
        None => return Ok(()),
    }
    save_links(store, project, &records)
}

/// Makes the next rescan read again the linked files whose notes lost their search text
/// (their checksum in the graph is empty).
pub(crate) fn forget_lost_link_files(store: &Store, project: &Project) -> Result<()> {
    let _guard = store.links_lock.lock().unwrap_or_else(|e| e.into_inner());
    let mut records = links(store, project)?;
    let mut forgot = false;
    {
        let snap = store.index.snapshot()?;
        for link in &mut records {
            for mapping in link.mappings.values_mut() {
                let lost = snap
                    .note(&mapping.note_id)?
                    .is_some_and(|n| n.checksum.is_empty());
                if lost {
                    mapping.checksum_sha256.clear();
                    forgot = true;
                }
            }
        }
    }
    if forgot {
        save_links(store, project, &records)?;
    }
    Ok(())
}

/// Forgets what the links of a project know and reads every linked file again (after the
/// project's index entries were rebuilt).
pub(crate) fn reindex_links(store: &Store, project: &Project) -> Result<Vec<ScanReport>> {
    {
        let _guard = store.links_lock.lock().unwrap_or_else(|e| e.into_inner());
        let mut records = links(store, project)?;
        if records.is_empty() {
            return Ok(Vec::new());
        }
        for r in &mut records {
            r.mappings.clear();
        }
        save_links(store, project, &records)?;
    }
    rescan_links(store, project, None)
}

/// Rescans the links of a project (all, or the one at `path`).
pub(crate) fn rescan_links(
    store: &Store,
    project: &Project,
    path: Option<&str>,
) -> Result<Vec<ScanReport>> {
    let links = links(store, project)?;
    let selected: Vec<&LinkRecord> = links
        .iter()
        .filter(|l| match path {
            None => true,
            Some(p) => {
                let canonical = PathBuf::from(p.trim()).canonicalize().ok();
                l.display_path == p.trim()
                    || canonical.as_ref() == Some(&l.resolved_path)
                    || l.id == p.trim()
            }
        })
        .collect();
    if selected.is_empty() {
        if let Some(p) = path {
            return Err(LinkError::NotLinked {
                path: p.to_string(),
                project: project.name.clone(),
            }
            .into());
        }
    }
    selected
        .into_iter()
        .map(|l| rescan_link_confirming(store, project, &l.id, true))
        .collect()
}

/// The links of the named project, else of every visible project.
pub(crate) fn list_links(store: &Store, choice: &ProjectChoice) -> Result<Vec<LinkRecord>> {
    let projects = match &choice.constrained {
        Some(c) => crate::scope::projects(store, Some(c))?,
        None => crate::scope::projects(store, choice.project.as_deref())?,
    };
    let mut all = Vec::new();
    for p in projects {
        all.extend(links(store, &p)?);
    }
    Ok(all)
}

/// Rescans the chosen project's linked folders: those at `paths` (paths or link ids), or all.
pub(crate) fn rescan_links_of(
    store: &Store,
    choice: &ProjectChoice,
    paths: &[String],
) -> Result<Vec<ScanReport>> {
    let project = crate::scope::select_project(store, choice)?;
    if paths.is_empty() {
        return rescan_links(store, &project, None);
    }
    let mut reports = Vec::new();
    for path in paths {
        reports.extend(rescan_links(store, &project, Some(path))?);
    }
    Ok(reports)
}

/// Rescans linked folders of one project or of every project; with `path` and no project,
/// only the projects that link that folder.
pub(crate) fn rescan_links_across(
    store: &Store,
    project: Option<&str>,
    path: Option<&str>,
) -> Result<Vec<ScanReport>> {
    let mut reports = Vec::new();
    for p in crate::scope::projects(store, project)? {
        let links = links(store, &p)?;
        let elsewhere = path.is_some()
            && project.is_none()
            && !links.iter().any(|l| Some(l.display_path.as_str()) == path);
        if links.is_empty() || elsewhere {
            continue;
        }
        reports.extend(rescan_links(store, &p, path)?);
    }
    Ok(reports)
}

/// When the link registry of a project last changed, so a poller rereads only what moved.
pub(crate) fn links_registry_mtime(store: &Store, project: &Project) -> Option<SystemTime> {
    vault::fs::modified(&crate::mounts::registry(store, project))
}
