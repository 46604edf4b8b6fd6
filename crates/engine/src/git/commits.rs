//! Automatic commits of versioned projects (`[projects.NAME.git]`): every change gitmem makes
//! to a note is queued here and committed by a background thread, changes within the
//! project's `commit_batch_ms` in one commit, so a tool's reply never waits for git. A process
//! flushes the queue before it exits (`App::shutdown`, `App::close`).
//!
//! Messages follow Conventional Commits: `feat(mem): add <title>`, `fix(mem): update <title>`,
//! `fix(mem): move <title>`, `fix(mem): restore <title>`, `chore(mem): delete <title>`, with the
//! permalink and path in the body (how a deleted note is found again by its names); a
//! batch of several changes is summed up in the subject and listed in the body.

use std::cell::RefCell;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use crate::config::Project;
use crate::metrics::Metrics;
use git;
use note::redact::Redactor;

/// One path of a change, relative to the project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathChange {
    pub path: String,
    /// False when the file is gone.
    pub present: bool,
}

/// What happened to a note's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeKind {
    Written,
    Moved {
        from: String,
    },
    Deleted,
    /// An earlier version brought back (`restore_note`), from this commit.
    Restored {
        from: String,
    },
    /// Files another program changed, found by a scan (`paths` as the commit lists them).
    Synced {
        paths: Vec<PathChange>,
    },
    /// The notes one import wrote, committed together (`source`: what was imported).
    Imported {
        source: String,
        paths: Vec<PathChange>,
    },
    /// The changes of one workflow that touches many notes (a compaction, a prune), committed
    /// together under `subject` (see [`History::together`]).
    Together {
        subject: String,
        changes: Vec<Change>,
    },
}

/// One change to commit.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub dir: PathBuf,
    pub path: String,
    pub kind: ChangeKind,
    pub title: String,
    pub permalink: Option<String>,
    batch: Duration,
    author: (String, String),
    /// Push after committing (`auto_push` with a remote).
    push: bool,
    /// The encryption of the project's remote, for that push.
    crypto: Option<crate::config::Crypto>,
    /// Commit attempts that failed so far.
    failures: u32,
}

impl Change {
    /// A change of `project` (versioned) to the note at `path`.
    pub fn of(
        project: &Project,
        path: &str,
        kind: ChangeKind,
        title: &str,
        permalink: Option<&str>,
    ) -> Option<Change> {
        let git = project.git.as_ref()?;
        Some(Change {
            dir: project.path.clone(),
            path: path.to_string(),
            kind,
            title: title.to_string(),
            permalink: permalink.map(String::from),
            batch: Duration::from_millis(git.commit_batch_ms),
            author: (git.author_name.clone(), git.author_email.clone()),
            push: git.auto_push && git.remote.is_some(),
            crypto: project.crypto.clone(),
            failures: 0,
        })
    }

    /// Files of `project` changed on disk by other programs, when it commits them
    /// (`auto_commit_external`).
    pub fn synced(project: &Project, paths: Vec<PathChange>) -> Option<Change> {
        let wanted = project.git.as_ref()?.auto_commit_external && !paths.is_empty();
        wanted
            .then(|| Change::of(project, "", ChangeKind::Synced { paths }, "", None))
            .flatten()
    }

    /// The notes of one import, as one commit.
    pub fn imported(project: &Project, source: &str, paths: Vec<PathChange>) -> Option<Change> {
        let kind = ChangeKind::Imported {
            source: source.to_string(),
            paths,
        };
        Change::of(project, "", kind, "", None)
    }

    /// The paths this change commits.
    fn paths(&self) -> Vec<PathChange> {
        match &self.kind {
            ChangeKind::Synced { paths } | ChangeKind::Imported { paths, .. } => paths.clone(),
            ChangeKind::Together { changes, .. } => {
                changes.iter().flat_map(Change::paths).collect()
            }
            ChangeKind::Moved { from } => vec![
                PathChange {
                    path: self.path.clone(),
                    present: true,
                },
                PathChange {
                    path: from.clone(),
                    present: false,
                },
            ],
            kind => vec![PathChange {
                path: self.path.clone(),
                present: *kind != ChangeKind::Deleted,
            }],
        }
    }

    fn is_synced(&self) -> bool {
        matches!(self.kind, ChangeKind::Synced { .. })
    }

    /// An import or a workflow's changes: a commit of its own, whatever else the batch holds.
    fn is_own_commit(&self) -> bool {
        matches!(
            self.kind,
            ChangeKind::Imported { .. } | ChangeKind::Together { .. }
        )
    }
}

thread_local! {
    /// The changes held back by the [`History::together`] this thread runs, if any.
    static GATHERED: RefCell<Option<Vec<Change>>> = const { RefCell::new(None) };
}

/// The end of a [`History::together`]: sends what its work gathered.
struct Together<'a> {
    history: &'a History,
    subject: &'a str,
}

impl Drop for Together<'_> {
    fn drop(&mut self) {
        let gathered = GATHERED.with(|g| g.borrow_mut().take()).unwrap_or_default();
        self.history.send_together(self.subject, gathered);
    }
}

enum Message {
    Change(Box<Change>),
    /// Commit everything queued now; with `push`, also make every pending push (the process
    /// is about to exit), else only those due.
    Flush {
        done: Sender<()>,
        push: bool,
    },
}

/// The committer of one process; its thread starts with the first change.
pub struct History {
    queue: Mutex<Option<(Sender<Message>, std::thread::JoinHandle<()>)>>,
    /// The filter of the push gate (`crate::git::secrets`), for the pushes of `auto_push`.
    redactor: Arc<Redactor>,
    /// Where failed pushes are counted.
    metrics: Arc<Metrics>,
}

impl History {
    pub fn new(redactor: Arc<Redactor>, metrics: Arc<Metrics>) -> Self {
        History {
            queue: Mutex::default(),
            redactor,
            metrics,
        }
    }

    /// Runs `work`, then queues every change it recorded as one commit per project under
    /// `subject`, so a workflow that changes many notes is one change in the history whatever
    /// the batch window. What it changed before failing is committed as well. The changes are
    /// held per thread: the writes of a workflow are made on the thread that runs it.
    pub fn together<T>(&self, subject: &str, work: impl FnOnce() -> T) -> T {
        let outer = GATHERED.with(|g| g.borrow().is_some());
        if outer {
            return work();
        }
        GATHERED.with(|g| *g.borrow_mut() = Some(Vec::new()));
        // Sent when `work` ends, by returning or by panicking: a thread of a pool must not be
        // left gathering, and what was written must still be committed.
        let _commit = Together {
            history: self,
            subject,
        };
        work()
    }

    fn send_together(&self, subject: &str, gathered: Vec<Change>) {
        let mut projects: Vec<Vec<Change>> = Vec::new();
        for change in gathered {
            match projects.iter_mut().find(|p| p[0].dir == change.dir) {
                Some(project) => project.push(change),
                None => projects.push(vec![change]),
            }
        }
        for changes in projects {
            let first = changes[0].clone();
            let push = changes.iter().any(|c| c.push);
            self.send(Change {
                path: String::new(),
                title: String::new(),
                permalink: None,
                push,
                kind: ChangeKind::Together {
                    subject: subject.to_string(),
                    changes,
                },
                ..first
            });
        }
    }

    /// Queues a change (held back inside [`History::together`]); never blocks on git.
    pub fn record(&self, change: Change) {
        let change = GATHERED.with(|g| match g.borrow_mut().as_mut() {
            Some(gathered) => {
                gathered.push(change);
                None
            }
            None => Some(change),
        });
        if let Some(change) = change {
            self.send(change);
        }
    }

    fn send(&self, change: Change) {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let (tx, _) = queue.get_or_insert_with(|| {
            let (tx, rx) = crossbeam_channel::unbounded();
            let (redactor, metrics) = (self.redactor.clone(), self.metrics.clone());
            let thread = std::thread::Builder::new()
                .name("gitmem-history".into())
                .spawn(move || run(rx, &redactor, &metrics))
                .expect("spawning the history thread");
            (tx, thread)
        });
        let _ = tx.send(Message::Change(Box::new(change)));
    }

    /// Commits everything queued, and waits for it (never for the network).
    pub fn flush(&self) {
        self.send_flush(false);
    }

    /// Commits everything queued and tries once every pending push: the last call of a
    /// process.
    pub fn finish(&self) {
        self.send_flush(true);
    }

    fn send_flush(&self, push: bool) {
        let tx = self
            .queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|(tx, _)| tx.clone());
        if let Some(tx) = tx {
            let (done, wait) = crossbeam_channel::bounded(1);
            if tx.send(Message::Flush { done, push }).is_ok() {
                let _ = wait.recv();
            }
        }
    }
}

/// A failed commit is tried again this many times before its changes are left to the next
/// commit that touches the same files.
const COMMIT_ATTEMPTS: u32 = 5;
const COMMIT_RETRY: Duration = Duration::from_secs(2);
/// The longest wait between two attempts to push.
const MAX_PUSH_BACKOFF: Duration = Duration::from_secs(300);

/// A push still to make: a project committed with `auto_push`, or one whose push failed.
struct PendingPush {
    target: PushTarget,
    due: Instant,
    failures: u32,
}

/// A project to push: its work tree and its remote's encryption.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PushTarget {
    dir: PathBuf,
    crypto: Option<crate::config::Crypto>,
    /// Who signs the one commit a squash before the push makes (see `secrets::hold_secrets_in`).
    author: (String, String),
}

impl PushTarget {
    /// Pushes, unless a commit to push carries secret-shaped text (the push is then held).
    fn push(&self, redactor: &Redactor) -> crate::Result<()> {
        let author = (self.author.0.as_str(), self.author.1.as_str());
        crate::git::secrets::hold_secrets_in(&self.dir, redactor, author)?;
        let keys = self
            .crypto
            .as_ref()
            .map(|c| git::crypt::Keys::load(&c.recipients, &c.identity_file))
            .transpose()
            .map_err(git::GitError::from)?;
        Ok(git::remote::push(&self.dir, keys.as_ref(), false)?)
    }
}

fn run(rx: Receiver<Message>, redactor: &Redactor, metrics: &Metrics) {
    let mut pending: Vec<Change> = Vec::new();
    let mut deadline: Option<Instant> = None;
    let mut pushes: Vec<PendingPush> = Vec::new();
    loop {
        let next = pushes.iter().map(|p| p.due).chain(deadline).min();
        let wait = next.map_or(Duration::from_secs(3600), |d| {
            d.saturating_duration_since(Instant::now())
        });
        match rx.recv_timeout(wait) {
            Ok(Message::Change(change)) => {
                if pending.is_empty() {
                    deadline = Some(Instant::now() + change.batch);
                }
                pending.push(*change);
            }
            Ok(Message::Flush { done, push }) => {
                (pending, deadline) = commit_pending(std::mem::take(&mut pending), &mut pushes);
                if push {
                    push_due(&mut pushes, true, redactor, metrics);
                }
                let _ = done.send(());
            }
            Err(RecvTimeoutError::Timeout) => {
                if deadline.is_some_and(|d| d <= Instant::now()) {
                    (pending, deadline) = commit_pending(std::mem::take(&mut pending), &mut pushes);
                }
                push_due(&mut pushes, false, redactor, metrics);
            }
            Err(RecvTimeoutError::Disconnected) => {
                commit_pending(pending, &mut pushes);
                push_due(&mut pushes, true, redactor, metrics);
                return;
            }
        }
    }
}

/// Commits `changes`, schedules the pushes they ask for, and returns what is left to retry
/// with its deadline.
fn commit_pending(
    changes: Vec<Change>,
    pushes: &mut Vec<PendingPush>,
) -> (Vec<Change>, Option<Instant>) {
    let (committed, failed) = commit_all(changes);
    for target in committed {
        if !pushes.iter().any(|p| p.target == target) {
            pushes.push(PendingPush {
                target,
                due: Instant::now(),
                failures: 0,
            });
        }
    }
    let retry: Vec<Change> = failed
        .into_iter()
        .filter_map(|mut change| {
            change.failures += 1;
            if change.failures < COMMIT_ATTEMPTS {
                return Some(change);
            }
            tracing::error!(
                "giving up committing {} in {} after {COMMIT_ATTEMPTS} attempts; the next commit of that file takes it in",
                change.path,
                change.dir.display()
            );
            None
        })
        .collect();
    let deadline = (!retry.is_empty()).then(|| Instant::now() + COMMIT_RETRY);
    (retry, deadline)
}

/// Pushes what is due (everything, when the process is about to stop). A
/// failed push never fails anything else: it is logged and tried again later, each wait twice
/// the last, up to five minutes.
fn push_due(pushes: &mut Vec<PendingPush>, all: bool, redactor: &Redactor, metrics: &Metrics) {
    let now = Instant::now();
    pushes.retain_mut(|push| {
        if !all && push.due > now {
            return true;
        }
        match push.target.push(redactor) {
            Ok(()) => false,
            Err(e) => {
                metrics.push_failed();
                push.failures += 1;
                let wait = Duration::from_secs(1 << push.failures.min(9)).min(MAX_PUSH_BACKOFF);
                tracing::warn!(
                    "pushing {} failed (attempt {}), trying again in {}s: {e}",
                    push.target.dir.display(),
                    push.failures,
                    wait.as_secs()
                );
                push.due = Instant::now() + wait;
                true
            }
        }
    });
}

/// Commits each project's changes, gitmem's own apart from other programs'. Returns the
/// projects that committed and want a push, and the changes whose commit failed (the files
/// are safe on disk; they are tried again).
fn commit_all(changes: Vec<Change>) -> (Vec<PushTarget>, Vec<Change>) {
    let mut to_push: Vec<PushTarget> = Vec::new();
    let mut failed: Vec<Change> = Vec::new();
    let mut groups: Vec<((PathBuf, bool), Vec<Change>)> = Vec::new();
    for change in changes {
        let key = (change.dir.clone(), change.is_synced());
        let own = change.is_own_commit();
        match groups
            .iter_mut()
            .find(|(k, list)| *k == key && !own && !list[0].is_own_commit())
        {
            Some((_, list)) => list.push(change),
            None => groups.push((key, vec![change])),
        }
    }
    // A scan running while gitmem writes may see gitmem's own file first: a path gitmem
    // changed in this batch is committed under gitmem's message, not as a sync.
    let own: Vec<(PathBuf, String)> = groups
        .iter()
        .filter(|((_, synced), _)| !synced)
        .flat_map(|((dir, _), changes)| {
            changes
                .iter()
                .flat_map(Change::paths)
                .map(move |p| (dir.clone(), p.path))
        })
        .collect();
    groups.sort_by_key(|((_, synced), _)| *synced);
    for ((dir, synced), changes) in groups {
        let author = changes[0].author.clone();
        let paths: Vec<PathChange> = changes
            .iter()
            .flat_map(Change::paths)
            .filter(|p| !synced || !own.iter().any(|(d, path)| *d == dir && *path == p.path))
            .collect();
        if paths.is_empty() {
            continue;
        }
        let message = match &changes[0].kind {
            _ if synced => synced_message(&paths),
            ChangeKind::Imported { source, .. } => imported_message(source, &paths),
            ChangeKind::Together { subject, changes } => together_message(&dir, subject, changes),
            _ => message(&dir, &changes),
        };
        let changed: Vec<String> = paths.into_iter().map(|p| p.path).collect();
        match git::commit(&dir, &changed, &message, (&author.0, &author.1)) {
            Ok(_) if changes.iter().any(|c| c.push) && !to_push.iter().any(|t| t.dir == dir) => {
                to_push.push(PushTarget {
                    crypto: changes[0].crypto.clone(),
                    dir,
                    author: author.clone(),
                });
            }
            Ok(_) => {}
            Err(e) => {
                tracing::warn!("committing to {} failed: {e}", dir.display());
                failed.extend(changes);
            }
        }
    }
    (to_push, failed)
}

/// (type, verb) of one change; a written file is an addition unless HEAD has it.
fn verb(dir: &std::path::Path, change: &Change) -> (&'static str, &'static str) {
    match &change.kind {
        ChangeKind::Written if git::in_head(dir, &change.path) => ("fix", "update"),
        ChangeKind::Written => ("feat", "add"),
        ChangeKind::Moved { .. } => ("fix", "move"),
        ChangeKind::Deleted => ("chore", "delete"),
        ChangeKind::Restored { .. } => ("fix", "restore"),
        ChangeKind::Synced { .. } => ("chore", "sync"),
        ChangeKind::Imported { .. } => ("feat", "import"),
        ChangeKind::Together { .. } => ("fix", "change"),
    }
}

/// `feat(mem): import <n> notes from <source>`, each path listed.
fn imported_message(source: &str, paths: &[PathChange]) -> String {
    let listed: Vec<String> = paths.iter().map(|p| format!("- {}", p.path)).collect();
    format!(
        "feat(mem): import {} notes from {source}\n\n{}\n",
        paths.len(),
        listed.join("\n")
    )
}

/// `chore(mem): sync <n> files`, each path listed.
fn synced_message(paths: &[PathChange]) -> String {
    let mut listed: Vec<String> = paths
        .iter()
        .map(|p| {
            let verb = if p.present { "changed" } else { "removed" };
            format!("- {verb}: {}", p.path)
        })
        .collect();
    listed.dedup();
    format!(
        "chore(mem): sync {} files\n\n{}\n",
        paths.len(),
        listed.join("\n")
    )
}

/// A batch's changes with one per path: a note written then edited within the batch is one
/// addition or update; a delete stands for whatever came before it.
fn distinct(changes: &[Change]) -> Vec<Change> {
    let mut out: Vec<Change> = Vec::new();
    for change in changes {
        match out.iter().position(|seen| seen.path == change.path) {
            Some(i) if change.kind == ChangeKind::Deleted => out[i] = change.clone(),
            Some(_) => {}
            None => out.push(change.clone()),
        }
    }
    out
}

/// One line of a batch's body: `- <verb> <title> (permalink: P; path: F)`, which
/// `git::log::named_in_message` reads back.
fn line(change: &Change, verb: &str) -> String {
    match &change.permalink {
        Some(permalink) => format!(
            "- {verb} {} (permalink: {permalink}; path: {})",
            change.title, change.path
        ),
        None => format!("- {verb} {} (path: {})", change.title, change.path),
    }
}

/// `subject`, then a line per distinct path of the changes.
fn together_message(dir: &std::path::Path, subject: &str, changes: &[Change]) -> String {
    let body: Vec<String> = distinct(changes)
        .iter()
        .map(|c| line(c, verb(dir, c).1))
        .collect();
    format!("{subject}\n\n{}\n", body.join("\n"))
}

/// The Conventional Commits message of a batch.
fn message(dir: &std::path::Path, changes: &[Change]) -> String {
    let changes = &distinct(changes);
    let verbs: Vec<(&str, &str)> = changes.iter().map(|c| verb(dir, c)).collect();
    if let [(kind, verb)] = verbs.as_slice() {
        let change = &changes[0];
        let mut body = String::new();
        if let Some(permalink) = &change.permalink {
            body.push_str(&format!("permalink: {permalink}\n"));
        }
        body.push_str(&format!("path: {}\n", change.path));
        match &change.kind {
            ChangeKind::Moved { from } => body.push_str(&format!("from: {from}\n")),
            ChangeKind::Restored { from } => body.push_str(&format!("restored from: {from}\n")),
            _ => {}
        }
        return format!("{kind}(mem): {verb} {}\n\n{body}", change.title);
    }
    let same = verbs.iter().all(|v| *v == verbs[0]);
    let (kind, verb) = if same { verbs[0] } else { ("fix", "change") };
    let body: Vec<String> = changes
        .iter()
        .zip(&verbs)
        .map(|(c, (_, v))| line(c, v))
        .collect();
    format!(
        "{kind}(mem): {verb} {} notes\n\n{}\n",
        changes.len(),
        body.join("\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::GitSettings;

    #[test]
    fn a_path_gitmem_wrote_is_not_also_committed_as_a_sync() {
        let dir = tempfile::tempdir().unwrap();
        git::prepare(dir.path(), None, false).unwrap();
        std::fs::write(dir.path().join("Note.md"), "# Note\n").unwrap();
        std::fs::write(dir.path().join("Other.md"), "# Other\n").unwrap();
        let project = Project {
            name: "p".into(),
            permalink: "p".into(),
            path: dir.path().to_path_buf(),
            is_default: true,
            git: Some(GitSettings::default()),
            crypto: None,
        };
        let present = |path: &str| PathChange {
            path: path.into(),
            present: true,
        };
        let synced = Change::synced(&project, vec![present("Note.md"), present("Other.md")]);
        let own = Change::of(
            &project,
            "Note.md",
            ChangeKind::Written,
            "Note",
            Some("p/note"),
        );
        commit_all(vec![synced.unwrap(), own.unwrap()]);
        let repo = git2::Repository::open(dir.path()).unwrap();
        let mut walk = repo.revwalk().unwrap();
        walk.push_head().unwrap();
        let messages: Vec<String> = walk
            .map(|oid| {
                repo.find_commit(oid.unwrap())
                    .unwrap()
                    .message()
                    .unwrap()
                    .to_string()
            })
            .collect();
        assert_eq!(messages.len(), 2, "{messages:?}");
        assert!(
            messages[1].starts_with("feat(mem): add Note"),
            "{messages:?}"
        );
        assert_eq!(
            messages[0],
            "chore(mem): sync 1 files\n\n- changed: Other.md\n"
        );
    }
}
