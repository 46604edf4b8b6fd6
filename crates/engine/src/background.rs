//! What a running server does besides answering calls: it indexes every project (tools answer
//! meanwhile), watches the project directories, and keeps linked folders fresh.
//!
//! Linked folders get one schedule per link, at most `max_concurrent` scans at once. A `poll`
//! link is rescanned every `effective_interval` (the deterministic jitter of design 6); a
//! `native` link is rescanned after file events (debounced), with the poll as a safety net. An
//! unchanged folder costs one stat per file.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use super::progress::ProjectSync;
use super::App;
use crate::models::hub::ModelFetch;
use vault::links::{effective_interval_ms, WatchMode};

/// A delete seen by the watcher is applied only if a second scan this much later agrees.
const DELETE_CONFIRMATION: Duration = Duration::from_millis(150);

/// The app and the project a server is pinned to, shared by the background threads.
#[derive(Clone)]
struct Ctx {
    app: Arc<App>,
    constrained: Option<String>,
}

/// Indexes every project in the background (tools answer meanwhile), then watches them.
/// The returned guard keeps the watcher alive.
pub fn index_and_watch(
    app: Arc<App>,
    constrained: Option<String>,
) -> std::thread::JoinHandle<Option<vault::watch::WatchGuard>> {
    let ctx = Ctx { app, constrained };
    let projects = match &ctx.constrained {
        Some(c) => ctx.app.projects(Some(c)).unwrap_or_default(),
        None => ctx.app.projects(None).unwrap_or_default(),
    };
    for p in &projects {
        ctx.app
            .engine
            .store
            .progress
            .set(&p.name, ProjectSync::Pending);
    }
    std::thread::Builder::new()
        .name("gitmem-initial-index".into())
        .spawn(move || {
            for project in &projects {
                ctx.app
                    .engine
                    .store
                    .progress
                    .set(&project.name, ProjectSync::Running { done: 0, total: 0 });
                let app = ctx.app.clone();
                let name = project.name.clone();
                let report =
                    ctx.app
                        .sync_project(project, super::sync::SyncMode::Incremental, &move |e| {
                            if let super::sync::SyncEvent::Indexed { done, total } = e {
                                app.engine
                                    .store
                                    .progress
                                    .set(&name, ProjectSync::Running { done, total });
                            }
                        });
                match report {
                    // Done once watched (below): sync_status says "indexed and watched".
                    Ok(_) => {}
                    Err(e) => {
                        tracing::warn!("indexing project '{}' failed: {e}", project.name);
                        ctx.app
                            .engine
                            .store
                            .progress
                            .set(&project.name, ProjectSync::Failed(e.to_string()));
                    }
                }
            }
            let roots: Vec<_> = projects
                .iter()
                .map(|p| (p.name.clone(), p.path.clone()))
                .collect();
            let app = ctx.app.clone();
            let watched = vault::watch::watch(roots, move |name, touched| {
                if let Ok(project) = app.project(Some(name)) {
                    if let Err(e) = crate::sync::sync_after_event(
                        &app.engine,
                        &project,
                        DELETE_CONFIRMATION,
                        &touched,
                    ) {
                        tracing::warn!("re-indexing project '{name}' after a change failed: {e}");
                    }
                }
            });
            // A file changed between a project's first scan and the watch start sent no
            // event: one more scan (stats only, for files already read) catches it.
            for project in &projects {
                if matches!(
                    ctx.app.engine.store.progress.get(&project.name),
                    ProjectSync::Failed(_)
                ) {
                    continue;
                }
                if let Err(e) =
                    ctx.app
                        .sync_project(project, super::sync::SyncMode::Incremental, &|_| {})
                {
                    tracing::warn!("re-scanning project '{}' failed: {e}", project.name);
                }
                // Ready promises that search finds what was indexed; milli commits behind
                // the graph, and a client that wrote nothing does not wait for it.
                if let Err(e) = ctx.app.engine.store.index.wait_searchable() {
                    tracing::warn!("waiting for the search index failed: {e}");
                }
                ctx.app
                    .engine
                    .store
                    .progress
                    .set(&project.name, ProjectSync::Done);
            }
            match watched {
                Ok(guard) => Some(guard),
                Err(e) => {
                    tracing::warn!("cannot watch project directories: {e}");
                    None
                }
            }
        })
        .expect("spawning the indexing thread")
}

/// How often the poller looks for new or removed links (one stat of links.json per project).
const REGISTRY_CHECK: Duration = Duration::from_secs(1);

struct Scheduled {
    project: String,
    next_due: Instant,
    interval: Duration,
    _watch: Option<vault::watch::WatchGuard>,
}

/// Keeps every note's passage vectors in step with its text, after each search commit, until
/// the app shuts down. Embedding is slow (tens of milliseconds a passage), so it runs here and
/// never on a tool call's path.
pub fn embed(app: Arc<App>) {
    let spawned = std::thread::Builder::new()
        .name("gitmem-embedder".into())
        .spawn(move || app.embed_in_background());
    if let Err(e) = spawned {
        tracing::warn!("semantic search will not follow changes: cannot start its thread: {e}");
    }
}

/// Fetches the chosen model when it is a hub model not installed yet (the default, on a fresh
/// root), while search answers lexically; the embedding worker takes over once it is in.
pub fn fetch_model(app: Arc<App>) {
    let spawned = std::thread::Builder::new()
        .name("gitmem-model-fetch".into())
        .spawn(move || match app.fetch_model(&|_| {}) {
            ModelFetch::NotNeeded => {}
            ModelFetch::Busy { model } => {
                tracing::info!("another gitmem process is fetching the model {model}");
            }
            ModelFetch::Fetched(info) => {
                tracing::info!("semantic search is on: fetched the model {}", info.name);
            }
            ModelFetch::Failed { model, error } => {
                tracing::warn!("semantic search is off: cannot fetch the model {model}: {error}");
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("cannot start fetching the model: {e}");
    }
}

/// Starts the link poller thread; it runs until the process ends.
pub fn poll_links(app: Arc<App>, constrained: Option<String>) {
    let ctx = Ctx { app, constrained };
    let max_concurrent = ctx
        .app
        .config()
        .storage
        .local
        .watch
        .max_concurrent
        .unwrap_or(4)
        .max(1);
    let running = Arc::new(AtomicUsize::new(0));
    let (events_tx, events_rx) = std::sync::mpsc::channel::<(String, String)>();
    std::thread::Builder::new()
        .name("gitmem-link-poller".into())
        .spawn(move || {
            let mut schedule: HashMap<String, Scheduled> = HashMap::new();
            let mut seen: HashMap<String, Option<SystemTime>> = HashMap::new();
            let mut seen_version = u64::MAX;
            let mut last_check = Instant::now() - REGISTRY_CHECK;
            loop {
                if last_check.elapsed() >= REGISTRY_CHECK
                    || ctx.app.engine.store.progress.links_version() != seen_version
                {
                    seen_version = ctx.app.engine.store.progress.links_version();
                    last_check = Instant::now();
                    refresh(&ctx, &mut schedule, &mut seen, &events_tx);
                }
                let now = Instant::now();
                let mut due: Vec<(String, String)> = schedule
                    .iter()
                    .filter(|(_, s)| s.next_due <= now)
                    .map(|(id, s)| (id.clone(), s.project.clone()))
                    .collect();
                due.extend(events_rx.try_iter());
                for (id, project) in due {
                    if running.load(Ordering::SeqCst) >= max_concurrent {
                        break;
                    }
                    if let Some(s) = schedule.get_mut(&id) {
                        s.next_due = Instant::now() + s.interval;
                    }
                    running.fetch_add(1, Ordering::SeqCst);
                    let ctx = ctx.clone();
                    let running = running.clone();
                    std::thread::spawn(move || {
                        if let Ok(p) = ctx.app.project(Some(&project)) {
                            if let Err(e) =
                                crate::links::rescan_link(&ctx.app.engine.store, &p, &id)
                            {
                                tracing::warn!("rescanning link {id} failed: {e}");
                            }
                        }
                        running.fetch_sub(1, Ordering::SeqCst);
                    });
                }
                let next = schedule
                    .values()
                    .map(|s| s.next_due)
                    .min()
                    .unwrap_or(now + REGISTRY_CHECK);
                let wait = next
                    .saturating_duration_since(Instant::now())
                    .min(REGISTRY_CHECK)
                    .max(Duration::from_millis(20));
                std::thread::sleep(wait);
            }
        })
        .expect("spawning the link poller");
}

/// Re-reads the link registries that changed and updates the schedule.
fn refresh(
    ctx: &Ctx,
    schedule: &mut HashMap<String, Scheduled>,
    seen: &mut HashMap<String, Option<SystemTime>>,
    events: &std::sync::mpsc::Sender<(String, String)>,
) {
    let projects = match &ctx.constrained {
        Some(c) => ctx.app.projects(Some(c)).unwrap_or_default(),
        None => ctx.app.projects(None).unwrap_or_default(),
    };
    for project in &projects {
        let mtime = crate::links::links_registry_mtime(&ctx.app.engine.store, project);
        if seen.get(&project.name) == Some(&mtime) {
            continue;
        }
        seen.insert(project.name.clone(), mtime);
        let links = crate::links::links(&ctx.app.engine.store, project).unwrap_or_default();
        schedule.retain(|id, s| s.project != project.name || links.iter().any(|l| &l.id == id));
        for link in links {
            let interval = Duration::from_millis(effective_interval_ms(
                link.watch.poll_interval_ms,
                link.watch.jitter_pct,
                &link.id,
            ));
            match schedule.get_mut(&link.id) {
                Some(s) => s.interval = interval,
                None => {
                    let watch = (link.watch.mode == WatchMode::Native)
                        .then(|| {
                            let tx = events.clone();
                            let (id, name) = (link.id.clone(), project.name.clone());
                            vault::watch::watch(
                                vec![(id.clone(), link.resolved_path.clone())],
                                // A linked folder is rescanned whole, as its poll does.
                                move |_, _| {
                                    let _ = tx.send((id.clone(), name.clone()));
                                },
                            )
                            .map_err(|e| {
                                tracing::warn!(
                                    "cannot watch {}: {e}; polling it instead",
                                    link.resolved_path.display()
                                )
                            })
                            .ok()
                        })
                        .flatten();
                    if watch.is_some() {
                        // Catch what changed between the link's last scan and the watch.
                        let _ = events.send((link.id.clone(), project.name.clone()));
                    }
                    schedule.insert(
                        link.id.clone(),
                        Scheduled {
                            project: project.name.clone(),
                            next_due: Instant::now() + interval,
                            interval,
                            _watch: watch,
                        },
                    );
                }
            }
        }
    }
}

/// Pulls every versioned project with a remote from it, each `pull_interval_ms`, until the
/// process ends; a failed pull is logged and tried again at the next interval. Projects added
/// while the server runs are picked up.
pub fn pull_remotes(app: Arc<App>, constrained: Option<String>) {
    let spawned = std::thread::Builder::new()
        .name("gitmem-git-pull".into())
        .spawn(move || {
            let mut next_due: HashMap<String, Instant> = HashMap::new();
            loop {
                std::thread::sleep(REGISTRY_CHECK);
                let projects = app.projects(constrained.as_deref()).unwrap_or_default();
                for project in projects {
                    let Some(git) = &project.git else { continue };
                    if git.remote.is_none() || git.pull_interval_ms == 0 {
                        continue;
                    }
                    let interval = Duration::from_millis(git.pull_interval_ms);
                    let due = *next_due
                        .entry(project.name.clone())
                        .or_insert_with(|| Instant::now() + interval);
                    if due > Instant::now() {
                        continue;
                    }
                    let choice = super::scope::ProjectChoice::named(Some(&project.name));
                    match app.exchange(&choice, crate::git::exchange::Direction::Pull) {
                        Ok(report) => {
                            if let Some(pull) = report
                                .pull
                                .filter(|p| p.result != crate::git::exchange::PullResult::UpToDate)
                            {
                                tracing::info!(
                                    "pulled project '{}': {} updated, {} deleted, {} conflicts",
                                    project.name,
                                    pull.updated.len(),
                                    pull.deleted.len(),
                                    pull.conflicts.len()
                                );
                            }
                        }
                        Err(e) => tracing::warn!("pulling project '{}' failed: {e}", project.name),
                    }
                    next_due.insert(project.name.clone(), Instant::now() + interval);
                }
            }
        });
    if let Err(e) = spawned {
        tracing::warn!("periodic git pulls are off: cannot start their thread: {e}");
    }
}
