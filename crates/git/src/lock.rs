//! Surviving a process killed in the middle of a commit. libgit2 writes objects first and
//! moves refs last, so an interrupted commit leaves no broken history, only lock files
//! (`index.lock`, `HEAD.lock`, a branch's `.lock`) that make every later commit fail.
//!
//! While gitmem changes a repository it holds an OS lock on `.git/gitmem.lock` and writes its
//! process id into it; the file is emptied when the change is done. A non-empty file whose OS
//! lock is free therefore means a gitmem process died mid-commit, and the git lock files are
//! its leftovers: they are removed. Lock files without that sign belong to someone else (the
//! user's own `git`) and are left alone.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

use super::GitError;

const MARKER: &str = "gitmem.lock";

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> GitError + '_ {
    move |source| GitError::Io {
        path: path.to_path_buf(),
        source,
    }
}

fn git_dir(dir: &Path) -> PathBuf {
    dir.join(".git")
}

/// Held while gitmem changes the repository at `dir`; other gitmem processes wait for it.
pub(super) struct CommitGuard {
    file: File,
}

impl CommitGuard {
    pub(super) fn take(dir: &Path) -> Result<CommitGuard, GitError> {
        let path = git_dir(dir).join(MARKER);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(io(&path))?;
        file.lock().map_err(io(&path))?;
        clear_leftovers(dir, &mut file)?;
        file.set_len(0).map_err(io(&path))?;
        file.rewind().map_err(io(&path))?;
        write!(file, "{}", std::process::id()).map_err(io(&path))?;
        file.sync_data().map_err(io(&path))?;
        Ok(CommitGuard { file })
    }
}

impl Drop for CommitGuard {
    fn drop(&mut self) {
        let _ = self.file.set_len(0);
        let _ = self.file.unlock();
    }
}

/// Removes the lock files of a gitmem process that died mid-commit, if `marker` (locked by
/// the caller) says one did.
fn clear_leftovers(dir: &Path, marker: &mut File) -> Result<(), GitError> {
    let mut holder = String::new();
    let _ = marker.read_to_string(&mut holder);
    if holder.trim().is_empty() {
        return Ok(());
    }
    let git = git_dir(dir);
    let mut stale = vec![git.join("index.lock"), git.join("HEAD.lock")];
    stale.push(git.join("packed-refs.lock"));
    for refs in ["refs/heads", "refs/remotes/origin"] {
        if let Ok(entries) = std::fs::read_dir(git.join(refs)) {
            stale.extend(
                entries
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "lock")),
            );
        }
    }
    for path in stale.into_iter().filter(|p| p.exists()) {
        tracing::warn!(
            "removing {} left by gitmem process {} that stopped mid-commit",
            path.display(),
            holder.trim()
        );
        std::fs::remove_file(&path).map_err(io(&path))?;
    }
    Ok(())
}

/// Start-up repair of a versioned project: clears what a gitmem process killed mid-commit
/// left behind, unless another gitmem process is committing right now.
pub fn recover(dir: &Path) -> Result<(), GitError> {
    let path = git_dir(dir).join(MARKER);
    if !path.exists() {
        return Ok(());
    }
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .open(&path)
        .map_err(io(&path))?;
    if file.try_lock().is_err() {
        return Ok(());
    }
    clear_leftovers(dir, &mut file)?;
    file.set_len(0).map_err(io(&path))?;
    let _ = file.unlock();
    Ok(())
}
