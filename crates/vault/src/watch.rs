//! Native file watching with our own debounce: raw notify events are filtered and coalesced
//! per root, and a root is reported once its events have been quiet for a short while (or
//! after a maximum delay while they keep coming), with the paths they named.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

/// Quiet time before a burst of events is reported.
pub const QUIET: Duration = Duration::from_millis(150);
/// Longest delay of a report while events keep coming.
pub const MAX_DELAY: Duration = Duration::from_millis(500);
/// Past this many paths in one burst, a scan of the whole root is cheaper than one of each.
const MAX_PATHS: usize = 1_000;

/// What a burst of events under a root touched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Touched {
    /// These paths (relative, slash-separated): files, or folders with what is under them.
    Paths(BTreeSet<String>),
    /// Anything: the system dropped events, or named the root itself, or too many paths.
    Everything,
}

impl Touched {
    fn add(&mut self, path: Option<String>) {
        match (&mut *self, path) {
            (Touched::Paths(paths), Some(path)) if !path.is_empty() => {
                paths.insert(path);
                if paths.len() > MAX_PATHS {
                    *self = Touched::Everything;
                }
            }
            (Touched::Paths(_), _) => *self = Touched::Everything,
            (Touched::Everything, _) => {}
        }
    }
}

/// Editor droppings and hidden paths never trigger work.
fn interesting(root: &Path, path: &Path) -> bool {
    let Ok(rel) = path.strip_prefix(root) else {
        return false;
    };
    let hidden = rel
        .components()
        .any(|c| c.as_os_str().to_string_lossy().starts_with('.'));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let junk = name.ends_with(".tmp")
        || name.ends_with(".swp")
        || name.ends_with(".swx")
        || name.ends_with('~');
    // Events name a file that has no name yet (`O_TMPFILE`, as gitmem writes new notes)
    // `#<inode>`; the link that names it has an event of its own.
    let unnamed = name
        .strip_prefix('#')
        .is_some_and(|inode| !inode.is_empty() && inode.bytes().all(|b| b.is_ascii_digit()));
    !hidden && !junk && !unnamed
}

/// Watches `roots` (name, path) and calls `on_change(name)` after each debounced burst, until
/// the returned guard is dropped.
pub fn watch(
    roots: Vec<(String, PathBuf)>,
    on_change: impl Fn(&str, Touched) + Send + 'static,
) -> notify::Result<WatchGuard> {
    let (tx, rx) = mpsc::channel::<notify::Result<notify::Event>>();
    let mut watcher = notify::recommended_watcher(move |event| {
        let _ = tx.send(event);
    })?;
    for (name, root) in &roots {
        if let Err(e) = watcher.watch(root, RecursiveMode::Recursive) {
            tracing::warn!("cannot watch project '{name}' at {}: {e}", root.display());
        }
    }
    let thread = std::thread::Builder::new()
        .name("gitmem-watch".into())
        .spawn(move || {
            let mut bursts = Bursts::default();
            loop {
                let timeout = bursts
                    .wait(Instant::now())
                    .unwrap_or(Duration::from_secs(3600));
                match rx.recv_timeout(timeout) {
                    Ok(Ok(event)) => {
                        if matches!(event.kind, notify::EventKind::Access(_)) {
                            continue;
                        }
                        let now = Instant::now();
                        if event.need_rescan() {
                            for (name, _) in &roots {
                                bursts.event(name, None, now);
                            }
                        }
                        for path in &event.paths {
                            for (name, root) in &roots {
                                if path.starts_with(root) && interesting(root, path) {
                                    let rel = super::path::relative_slash_path(root, path);
                                    bursts.event(name, rel, now);
                                }
                            }
                        }
                    }
                    Ok(Err(e)) => tracing::warn!("file watcher error: {e}"),
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => return,
                }
                for (name, touched) in bursts.take_due(Instant::now()) {
                    on_change(&name, touched);
                }
            }
        })
        .map_err(notify::Error::io)?;
    Ok(WatchGuard {
        _watcher: Box::new(watcher),
        _thread: thread,
    })
}

#[derive(Default)]
struct Bursts {
    /// Per root: the burst's first and last event, and what its events named.
    pending: HashMap<String, (Instant, Instant, Touched)>,
}

impl Bursts {
    /// An event under `root` naming `path` (`None`: it cannot say what changed).
    fn event(&mut self, root: &str, path: Option<String>, now: Instant) {
        let (_, last, touched) = self
            .pending
            .entry(root.to_string())
            .or_insert_with(|| (now, now, Touched::Paths(BTreeSet::new())));
        *last = now;
        touched.add(path);
    }

    /// How long until the next burst is due; `None` while nothing is pending.
    fn wait(&self, now: Instant) -> Option<Duration> {
        self.pending
            .values()
            .map(|&(first, last, _)| Self::due(first, last).saturating_duration_since(now))
            .min()
    }

    /// The roots whose bursts are due at `now`, with what they touched; they start afresh.
    fn take_due(&mut self, now: Instant) -> Vec<(String, Touched)> {
        let mut due: Vec<String> = self
            .pending
            .iter()
            .filter(|(_, &(first, last, _))| now >= Self::due(first, last))
            .map(|(root, _)| root.clone())
            .collect();
        due.sort();
        due.into_iter()
            .filter_map(|root| {
                let (_, _, touched) = self.pending.remove(&root)?;
                Some((root, touched))
            })
            .collect()
    }

    fn due(first: Instant, last: Instant) -> Instant {
        (last + QUIET).min(first + MAX_DELAY)
    }
}

/// Keeps a watch running.
pub struct WatchGuard {
    _watcher: Box<dyn Watcher + Send>,
    _thread: std::thread::JoinHandle<()>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_and_editor_files_are_ignored() {
        let root = Path::new("/r");
        let cases = [
            ("/r/a.md", true),
            ("/r/sub/b.md", true),
            ("/r/.git/index", false),
            ("/r/.a.md.swp", false),
            ("/r/a.md~", false),
            ("/r/x.tmp", false),
            ("/r/.obsidian/workspace.json", false),
            ("/r/sub/#10043426", false),
            ("/r/#tag.md", true),
            ("/r/#", true),
            ("/elsewhere/a.md", false),
        ];
        for (path, expected) in cases {
            assert_eq!(interesting(root, Path::new(path)), expected, "{path}");
        }
    }

    /// Milliseconds on a test's clock, and a root.
    type Timed<'a> = Vec<(u64, &'a str)>;

    /// Runs the watcher's loop on a clock of milliseconds: events arrive at their times, and
    /// between them the loop sleeps as long as `wait` says. The reports, with their times.
    fn reports(events: &[(u64, &str)]) -> Vec<(u64, String)> {
        let start = Instant::now();
        let at = |ms: u64| start + Duration::from_millis(ms);
        let mut bursts = Bursts::default();
        let mut reported = Vec::new();
        let mut events = events.iter().peekable();
        let mut now = 0;
        loop {
            let wake = bursts
                .wait(at(now))
                .map(|wait| now + wait.as_millis() as u64);
            match (events.peek(), wake) {
                (Some(&&(time, root)), wake) if wake.is_none_or(|wake| time <= wake) => {
                    now = time;
                    bursts.event(root, Some(format!("{now}.md")), at(now));
                    events.next();
                }
                (_, Some(wake)) => now = wake,
                (_, None) => return reported,
            }
            for (root, _) in bursts.take_due(at(now)) {
                reported.push((now, root));
            }
        }
    }

    #[test]
    fn a_root_is_reported_once_its_events_go_quiet_or_at_most_after_the_longest_delay() {
        // (events: milliseconds and root, reports: milliseconds and root)
        #[rustfmt::skip]
        let cases: Vec<(Timed, Timed)> = vec![
            (vec![(0, "p")], vec![(150, "p")]),
            // A burst is one report, 150 ms after its last event.
            (vec![(0, "p"), (1, "p"), (2, "p"), (3, "p"), (4, "p")], vec![(154, "p")]),
            // Events 200 ms apart are two bursts.
            (vec![(0, "p"), (200, "p")], vec![(150, "p"), (350, "p")]),
            // Events that never go quiet are reported every 500 ms.
            (
                (0..=9).map(|i| (i * 100, "p")).collect(),
                vec![(500, "p"), (1050, "p")],
            ),
            // Each root has its own burst.
            (vec![(0, "p"), (100, "q"), (120, "p")], vec![(250, "q"), (270, "p")]),
        ];
        for (events, expected) in cases {
            let expected: Vec<(u64, String)> = expected
                .into_iter()
                .map(|(t, r)| (t, r.to_string()))
                .collect();
            assert_eq!(reports(&events), expected, "{events:?}");
        }
    }

    #[test]
    fn a_burst_names_its_paths_until_it_cannot_or_names_too_many() {
        let start = Instant::now();
        let paths = |names: &[&str]| Touched::Paths(names.iter().map(|n| n.to_string()).collect());
        #[rustfmt::skip]
        let cases: Vec<(Vec<Option<String>>, Touched)> = vec![
            (vec![Some("a.md".into())], paths(&["a.md"])),
            (vec![Some("a.md".into()), Some("b/c.md".into()), Some("a.md".into())], paths(&["a.md", "b/c.md"])),
            // The root itself, or an event that cannot say (dropped events): everything.
            (vec![Some("a.md".into()), Some(String::new())], Touched::Everything),
            (vec![None, Some("a.md".into())], Touched::Everything),
            ((0..=MAX_PATHS).map(|i| Some(format!("{i}.md"))).collect(), Touched::Everything),
        ];
        for (events, expected) in cases {
            let mut bursts = Bursts::default();
            for path in &events {
                bursts.event("p", path.clone(), start);
            }
            let due = bursts.take_due(start + MAX_DELAY);
            assert_eq!(due, vec![("p".to_string(), expected)], "{events:?}");
        }
    }

    #[test]
    fn a_write_under_a_watched_root_is_reported_with_its_path_alone() {
        // Another program's plain write, and gitmem's own atomic one (an unnamed file linked
        // into place, or a temp file renamed over an existing one).
        let writers: [fn(&Path); 3] = [
            |path| std::fs::write(path, "x").unwrap(),
            |path| crate::fs::atomic_write(path, b"new").unwrap(),
            |path| crate::fs::atomic_write(path, b"replaced").unwrap(),
        ];
        let dir = tempfile::tempdir().unwrap();
        let (tx, rx) = mpsc::channel();
        let _guard = watch(
            vec![("p".into(), dir.path().to_path_buf())],
            move |name, touched| {
                let _ = tx.send((name.to_string(), touched));
            },
        )
        .unwrap();
        let names = ["a.md", "b.md", "b.md"];
        for (write, name) in writers.into_iter().zip(names) {
            write(&dir.path().join(name));
            let (root, touched) = rx.recv_timeout(Duration::from_secs(60)).unwrap();
            assert_eq!(root, "p");
            assert_eq!(touched, Touched::Paths([name.to_string()].into()), "{name}");
        }
    }
}
