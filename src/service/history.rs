//! Automatic commits of versioned projects (`[projects.NAME.git]`): every change gitmem makes
//! to a note is queued here and committed by a background thread, changes within the
//! project's `commit_batch_ms` in one commit, so a tool's reply never waits for git. A process
//! flushes the queue before it exits (`App::shutdown`, `App::close`).
//!
//! Messages follow Conventional Commits: `feat(mem): add <title>`, `fix(mem): update <title>`,
//! `fix(mem): move <title>`, `chore(mem): delete <title>`, with the permalink in the body; a
//! batch of several changes is summed up in the subject and listed in the body.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, RecvTimeoutError, Sender};

use crate::config::Project;
use crate::git::{self, PathChange};

/// What happened to a note's file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChangeKind {
    Written,
    Moved {
        from: String,
    },
    Deleted,
    /// Files another program changed, found by a scan (`paths` as the commit lists them).
    Synced {
        paths: Vec<PathChange>,
    },
}

/// One change to commit.
#[derive(Debug, Clone)]
pub struct Change {
    pub dir: PathBuf,
    pub path: String,
    pub kind: ChangeKind,
    pub title: String,
    pub permalink: Option<String>,
    batch: Duration,
    author: (String, String),
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

    /// The paths this change commits.
    fn paths(&self) -> Vec<PathChange> {
        match &self.kind {
            ChangeKind::Synced { paths } => paths.clone(),
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
}

enum Message {
    Change(Box<Change>),
    Flush(Sender<()>),
}

/// The committer of one process; its thread starts with the first change.
#[derive(Default)]
pub struct History {
    queue: Mutex<Option<(Sender<Message>, std::thread::JoinHandle<()>)>>,
}

impl History {
    /// Queues a change; never blocks on git.
    pub fn record(&self, change: Change) {
        let mut queue = self.queue.lock().unwrap_or_else(|e| e.into_inner());
        let (tx, _) = queue.get_or_insert_with(|| {
            let (tx, rx) = crossbeam_channel::unbounded();
            let thread = std::thread::Builder::new()
                .name("gitmem-history".into())
                .spawn(move || run(rx))
                .expect("spawning the history thread");
            (tx, thread)
        });
        let _ = tx.send(Message::Change(Box::new(change)));
    }

    /// Commits everything queued, and waits for it.
    pub fn flush(&self) {
        let tx = self
            .queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .map(|(tx, _)| tx.clone());
        if let Some(tx) = tx {
            let (done, wait) = crossbeam_channel::bounded(1);
            if tx.send(Message::Flush(done)).is_ok() {
                let _ = wait.recv();
            }
        }
    }
}

fn run(rx: Receiver<Message>) {
    let mut pending: Vec<Change> = Vec::new();
    let mut deadline: Option<Instant> = None;
    loop {
        let wait = deadline.map_or(Duration::from_secs(3600), |d| {
            d.saturating_duration_since(Instant::now())
        });
        match rx.recv_timeout(wait) {
            Ok(Message::Change(change)) => {
                if pending.is_empty() {
                    deadline = Some(Instant::now() + change.batch);
                }
                pending.push(*change);
            }
            Ok(Message::Flush(done)) => {
                commit_all(std::mem::take(&mut pending));
                deadline = None;
                let _ = done.send(());
            }
            Err(RecvTimeoutError::Timeout) => {
                commit_all(std::mem::take(&mut pending));
                deadline = None;
            }
            Err(RecvTimeoutError::Disconnected) => {
                commit_all(pending);
                return;
            }
        }
    }
}

/// Commits each project's changes, gitmem's own apart from other programs'; a failure is
/// logged, never returned: the files are safe on disk and the next commit takes them in.
fn commit_all(changes: Vec<Change>) {
    let mut groups: Vec<((PathBuf, bool), Vec<Change>)> = Vec::new();
    for change in changes {
        let key = (change.dir.clone(), change.is_synced());
        match groups.iter_mut().find(|(k, _)| *k == key) {
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
        let message = if synced {
            synced_message(&paths)
        } else {
            message(&dir, &changes)
        };
        if let Err(e) = git::commit(&dir, &paths, &message, (&author.0, &author.1)) {
            tracing::warn!("committing to {} failed: {e}", dir.display());
        }
    }
}

/// (type, verb) of one change; a written file is an addition unless HEAD has it.
fn verb(dir: &std::path::Path, change: &Change) -> (&'static str, &'static str) {
    match &change.kind {
        ChangeKind::Written if git::in_head(dir, &change.path) => ("fix", "update"),
        ChangeKind::Written => ("feat", "add"),
        ChangeKind::Moved { .. } => ("fix", "move"),
        ChangeKind::Deleted => ("chore", "delete"),
        ChangeKind::Synced { .. } => ("chore", "sync"),
    }
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

/// The Conventional Commits message of a batch.
fn message(dir: &std::path::Path, changes: &[Change]) -> String {
    let verbs: Vec<(&str, &str)> = changes.iter().map(|c| verb(dir, c)).collect();
    let line = |c: &Change, verb: &str| {
        let mut text = format!("{verb} {}", c.title);
        if let Some(permalink) = &c.permalink {
            text.push_str(&format!(" (permalink: {permalink})"));
        }
        text
    };
    if let [(kind, verb)] = verbs.as_slice() {
        let change = &changes[0];
        let mut body = String::new();
        if let Some(permalink) = &change.permalink {
            body.push_str(&format!("permalink: {permalink}\n"));
        }
        body.push_str(&format!("path: {}\n", change.path));
        if let ChangeKind::Moved { from } = &change.kind {
            body.push_str(&format!("from: {from}\n"));
        }
        return format!("{kind}(mem): {verb} {}\n\n{body}", change.title);
    }
    let same = verbs.iter().all(|v| *v == verbs[0]);
    let (kind, verb) = if same { verbs[0] } else { ("fix", "change") };
    let body: Vec<String> = changes
        .iter()
        .zip(&verbs)
        .map(|(c, (_, v))| format!("- {}", line(c, v)))
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
        crate::git::prepare(dir.path(), None).unwrap();
        std::fs::write(dir.path().join("Note.md"), "# Note\n").unwrap();
        std::fs::write(dir.path().join("Other.md"), "# Other\n").unwrap();
        let project = Project {
            name: "p".into(),
            permalink: "p".into(),
            path: dir.path().to_path_buf(),
            is_default: true,
            git: Some(GitSettings::default()),
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
