//! Native file watching with our own debounce: raw notify events are filtered and coalesced
//! per root, and a root is reported once its events have been quiet for a short while (or
//! after a maximum delay while they keep coming).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

/// Quiet time before a burst of events is reported.
pub const QUIET: Duration = Duration::from_millis(150);
/// Longest delay of a report while events keep coming.
pub const MAX_DELAY: Duration = Duration::from_millis(500);

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
    !hidden && !junk
}

/// Watches `roots` (name, path) and calls `on_change(name)` after each debounced burst, until
/// the returned guard is dropped.
pub fn watch(
    roots: Vec<(String, PathBuf)>,
    on_change: impl Fn(&str) + Send + 'static,
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
            // root name -> (first event, last event)
            let mut pending: HashMap<String, (Instant, Instant)> = HashMap::new();
            loop {
                let timeout = pending
                    .values()
                    .map(|(first, last)| {
                        let due = (*last + QUIET).min(*first + MAX_DELAY);
                        due.saturating_duration_since(Instant::now())
                    })
                    .min()
                    .unwrap_or(Duration::from_secs(3600));
                match rx.recv_timeout(timeout) {
                    Ok(Ok(event)) => {
                        if matches!(event.kind, notify::EventKind::Access(_)) {
                            continue;
                        }
                        for path in &event.paths {
                            for (name, root) in &roots {
                                if path.starts_with(root) && interesting(root, path) {
                                    let now = Instant::now();
                                    pending
                                        .entry(name.clone())
                                        .and_modify(|e| e.1 = now)
                                        .or_insert((now, now));
                                }
                            }
                        }
                    }
                    Ok(Err(e)) => tracing::warn!("file watcher error: {e}"),
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    Err(mpsc::RecvTimeoutError::Disconnected) => return,
                }
                let now = Instant::now();
                let due: Vec<String> = pending
                    .iter()
                    .filter(|(_, (first, last))| now >= *last + QUIET || now >= *first + MAX_DELAY)
                    .map(|(name, _)| name.clone())
                    .collect();
                for name in due {
                    pending.remove(&name);
                    on_change(&name);
                }
            }
        })
        .map_err(notify::Error::io)?;
    Ok(WatchGuard {
        _watcher: Box::new(watcher),
        _thread: thread,
    })
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
            ("/elsewhere/a.md", false),
        ];
        for (path, expected) in cases {
            assert_eq!(interesting(root, Path::new(path)), expected, "{path}");
        }
    }

    #[test]
    fn a_burst_of_writes_is_reported_once() {
        let dir = tempfile::tempdir().unwrap();
        let (tx, rx) = mpsc::channel();
        let _guard = watch(vec![("p".into(), dir.path().to_path_buf())], move |name| {
            let _ = tx.send(name.to_string());
        })
        .unwrap();
        for i in 0..5 {
            std::fs::write(dir.path().join(format!("{i}.md")), "x").unwrap();
        }
        assert_eq!(rx.recv_timeout(Duration::from_secs(3)).unwrap(), "p");
        assert!(
            rx.recv_timeout(Duration::from_millis(400)).is_err(),
            "one report per burst"
        );
    }
}
