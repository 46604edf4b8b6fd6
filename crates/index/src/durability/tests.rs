use super::*;
use crate::tests::{assert_reopened_empty, holding, input, note_at};
use crate::Index;

fn markers(index_dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(index_dir.join(DIR))
        .map(|entries| {
            entries
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// What an operating-system crash leaves: the marker of a writer that had unsynced commits.
fn left_by_a_crash(index_dir: &Path, boot: &str) {
    std::fs::create_dir_all(index_dir.join(DIR)).unwrap();
    std::fs::write(index_dir.join(DIR).join(format!("{boot}.deadwriter")), "").unwrap();
}

fn graph_env(dir: &Path) -> Env<WithoutTls> {
    unsafe { crate::env_options(1 << 20).open(dir) }.unwrap()
}

#[test]
fn commits_stay_marked_until_they_are_synced() {
    let Some(boot) = boot_id() else { return };
    let dir = tempfile::tempdir().unwrap();
    let env = graph_env(dir.path());
    let mut unsynced = Deferred::start(&env, dir.path(), "writer", Duration::from_secs(3600));
    assert!(env.get_flags().unwrap() & EnvFlags::NO_SYNC.bits() != 0);
    assert_eq!(unsynced.due(), None, "nothing to sync before a commit");

    unsynced.before_commit().unwrap();
    env.write_txn().unwrap().commit().unwrap();
    unsynced.after_commit();
    assert_eq!(markers(dir.path()), [format!("{boot}.writer")]);
    assert!(unsynced.due().is_some());

    unsynced.sync();
    assert!(markers(dir.path()).is_empty());
    assert_eq!(unsynced.due(), None);
}

#[test]
fn a_commit_past_the_interval_is_synced_at_once() {
    if boot_id().is_none() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let env = graph_env(dir.path());
    let mut unsynced = Deferred::start(&env, dir.path(), "writer", Duration::ZERO);
    unsynced.before_commit().unwrap();
    env.write_txn().unwrap().commit().unwrap();
    unsynced.after_commit();
    assert!(markers(dir.path()).is_empty());
}

#[test]
fn markers_tell_a_torn_index_from_an_unflushed_one_and_leave_running_writers_alone() {
    let Some(boot) = boot_id() else { return };
    let dir = tempfile::tempdir().unwrap();
    let runs = |nonce: &str| nonce == "running";
    assert_eq!(inspect(dir.path(), runs), Markers::Clean, "no folder");
    std::fs::create_dir_all(dir.path().join(DIR)).unwrap();
    for name in ["another-boot.running", "no-dot"] {
        std::fs::write(dir.path().join(DIR).join(name), "").unwrap();
    }
    assert_eq!(inspect(dir.path(), runs), Markers::Clean);

    left_by_a_crash(dir.path(), &boot);
    let unflushed = dir.path().join(DIR).join(format!("{boot}.deadwriter"));
    assert_eq!(
        inspect(dir.path(), runs),
        Markers::Unflushed(vec![unflushed])
    );

    left_by_a_crash(dir.path(), "another-boot");
    assert_eq!(inspect(dir.path(), runs), Markers::Torn);
}

#[test]
fn an_index_left_unsynced_by_another_boot_is_rebuilt_from_the_files() {
    let (dir, index) = holding(vec![input("a.md", "A", "a", &[])]);
    index.close();
    assert!(markers(dir.path()).is_empty(), "a closed index is synced");
    left_by_a_crash(dir.path(), "another-boot");
    assert_reopened_empty(dir.path(), "a.md");
}

#[test]
fn an_index_left_unsynced_by_a_killed_process_is_synced_and_kept() {
    let Some(boot) = boot_id() else { return };
    let (dir, index) = holding(vec![input("a.md", "A", "a", &[])]);
    index.close();
    left_by_a_crash(dir.path(), &boot);

    let reopened = Index::open(dir.path()).unwrap();
    assert!(!reopened.rebuilt);
    assert_eq!(note_at(&reopened, "a.md").title, "A");
    assert!(markers(dir.path()).is_empty());
    reopened.close();
}
