//! Who may finish an entry of the search outbox. Each writer holds an OS lock on a file named
//! after it under `<index>/owners/` for as long as it runs, and marks its outbox entries with
//! that name; an entry whose owner's file is missing or not locked belongs to a writer that is
//! gone and is anyone's to finish. A process id alone cannot tell: after a reboot, or once ids
//! wrap, a dead writer's id names some other, living process, and its entries would wait for
//! ever.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

const DIR: &str = "owners";

/// This writer's claim: the lock is held until the value is dropped.
pub(super) struct Owner {
    /// `pid:nonce`; the pid is there for people reading the outbox.
    pub name: String,
    index_dir: PathBuf,
    path: PathBuf,
    _lock: File,
}

impl Owner {
    /// Claims a new name under `index_dir`, and clears the files of writers that are gone.
    pub fn claim(index_dir: &Path) -> std::io::Result<Owner> {
        let dir = index_dir.join(DIR);
        std::fs::create_dir_all(&dir)?;
        sweep(&dir);
        loop {
            let nonce = uuid::Uuid::new_v4().simple().to_string();
            let path = dir.join(&nonce);
            let file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&path)?;
            file.lock()?;
            // A sweep between the creation and the lock sees an unlocked file and removes it;
            // a name whose file is gone would read as dead, so claim another.
            if same_file(&file, &path) {
                return Ok(Owner {
                    name: format!("{}:{nonce}", std::process::id()),
                    index_dir: index_dir.to_path_buf(),
                    path,
                    _lock: file,
                });
            }
        }
    }
}

impl Owner {
    /// The part of the name that tells this writer from every other, past or present.
    pub fn nonce(&self) -> &str {
        self.name.split_once(':').map_or("", |(_, nonce)| nonce)
    }

    pub fn index_dir(&self) -> &Path {
        &self.index_dir
    }

    /// Whether this writer may finish an outbox entry of `owner`: its own, or a gone writer's.
    pub fn may_take(&self, owner: &str) -> bool {
        owner == self.name || !alive(&self.index_dir, owner)
    }
}

impl Drop for Owner {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Whether the writer named `owner` still runs. A file that cannot be examined counts as
/// alive: its entries then wait rather than being taken from a writer that may still need them.
fn alive(index_dir: &Path, owner: &str) -> bool {
    owner
        .split_once(':')
        .is_some_and(|(_, nonce)| runs(index_dir, nonce))
}

/// Whether the writer whose name ends in `nonce` still runs.
pub(super) fn runs(index_dir: &Path, nonce: &str) -> bool {
    let path = index_dir.join(DIR).join(nonce);
    match File::open(&path) {
        Ok(file) => !take_if_free(&file, &path),
        Err(e) => e.kind() != std::io::ErrorKind::NotFound,
    }
}

/// Removes the file of a writer that is gone (its lock free); whether it was.
fn take_if_free(file: &File, path: &Path) -> bool {
    match file.try_lock() {
        Ok(()) => {
            // Removed while locked, so a writer that has just created it (and not yet locked
            // it) finds it gone and claims another name.
            let _ = std::fs::remove_file(path);
            true
        }
        Err(_) => false,
    }
}

/// Clears the files of writers that are gone, so that killed processes leave nothing behind.
fn sweep(dir: &Path) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if let Ok(file) = File::open(&path) {
            take_if_free(&file, &path);
        }
    }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), std::fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_file: &File, path: &Path) -> bool {
    path.exists()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_writer_is_alive_while_its_claim_is_held_and_gone_after() {
        let dir = tempfile::tempdir().unwrap();
        let owner = Owner::claim(dir.path()).unwrap();
        let name = owner.name.clone();
        assert!(alive(dir.path(), &name), "a running writer");
        drop(owner);
        assert!(!alive(dir.path(), &name), "a writer that stopped");
    }

    /// What a killed writer leaves: its file, unlocked.
    fn left_by_a_killed_writer(index_dir: &Path, nonce: &str) -> PathBuf {
        let owners = index_dir.join(DIR);
        std::fs::create_dir_all(&owners).unwrap();
        std::fs::write(owners.join(nonce), "").unwrap();
        owners.join(nonce)
    }

    #[test]
    fn a_dead_writers_name_is_dead_even_when_its_pid_lives() {
        let dir = tempfile::tempdir().unwrap();
        let file = left_by_a_killed_writer(dir.path(), "deadbeef");
        // Pid 1 always runs.
        assert!(!alive(dir.path(), "1:deadbeef"));
        assert!(!file.exists(), "its file is cleared");
        assert!(!alive(dir.path(), "1:unknown"), "a writer with no file");
        assert!(!alive(dir.path(), "garbage"));
    }

    #[test]
    fn a_claim_clears_the_files_of_writers_that_are_gone() {
        let dir = tempfile::tempdir().unwrap();
        let killed = left_by_a_killed_writer(dir.path(), "killed");
        let living = Owner::claim(dir.path()).unwrap();
        let _second = Owner::claim(dir.path()).unwrap();
        assert!(!killed.exists());
        assert!(
            alive(dir.path(), &living.name),
            "a claim of this process is not swept by another"
        );
    }
}
