//! Git repositories of versioned projects, through libgit2 (the `git2` crate): open, create or
//! clone a project's work tree, and commit a set of changed paths. Knows nothing of notes,
//! the index or MCP; `service::history` decides what to commit and when.

use std::path::{Path, PathBuf};

use git2::{IndexAddOption, Repository, RepositoryInitOptions, Signature};

#[derive(Debug, thiserror::Error)]
pub enum GitError {
    #[error("git: {0}")]
    Git(#[from] git2::Error),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0} is inside the git work tree of {1}; a versioned project must be the root of its own repository")]
    Nested(PathBuf, PathBuf),
}

/// What became of a project's directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Prepared {
    /// It already was the root of a work tree, used as it is.
    Existing,
    /// A new repository was created in it.
    Initialised,
    /// It was empty, and the remote's history was cloned into it.
    Cloned,
}

/// Makes `dir` a git work tree: uses an existing one, clones `remote` into an empty directory,
/// or creates a repository (with `remote` as `origin`). A directory inside another work tree
/// is refused: gitmem would commit into someone else's repository.
pub fn prepare(dir: &Path, remote: Option<&str>) -> Result<Prepared, GitError> {
    if dir.join(".git").exists() {
        Repository::open(dir)?;
        return Ok(Prepared::Existing);
    }
    if let Ok(outer) = Repository::discover(dir) {
        if let Some(root) = outer.workdir() {
            return Err(GitError::Nested(dir.to_path_buf(), root.to_path_buf()));
        }
    }
    let empty = std::fs::read_dir(dir)
        .map_err(|source| GitError::Io {
            path: dir.to_path_buf(),
            source,
        })?
        .next()
        .is_none();
    if let (Some(url), true) = (remote, empty) {
        git2::build::RepoBuilder::new().clone(url, dir)?;
        return Ok(Prepared::Cloned);
    }
    let mut options = RepositoryInitOptions::new();
    options.initial_head("main");
    let repo = Repository::init_opts(dir, &options)?;
    if let Some(url) = remote {
        repo.remote("origin", url)?;
    }
    Ok(Prepared::Initialised)
}

/// One path to commit, relative to the work tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathChange {
    pub path: String,
    /// False when the file is gone.
    pub present: bool,
}

/// True when `path` (relative) is in the HEAD commit.
pub fn in_head(dir: &Path, path: &str) -> bool {
    let Ok(repo) = Repository::open(dir) else {
        return false;
    };
    let tree = match repo.head().and_then(|h| h.peel_to_tree()) {
        Ok(tree) => tree,
        Err(_) => return false,
    };
    tree.get_path(Path::new(path)).is_ok()
}

/// Commits `changes` on the current branch with `message`, or does nothing when they change
/// nothing (the file was already committed as it is, or is ignored). The new tree is HEAD's
/// with only these paths changed, so whatever else the user staged stays staged and out of
/// gitmem's commit; the index follows for these paths, so `git status` stays clean.
pub fn commit(
    dir: &Path,
    changes: &[PathChange],
    message: &str,
    author: (&str, &str),
) -> Result<Option<git2::Oid>, GitError> {
    let repo = Repository::open(dir)?;
    let mut index = repo.index()?;
    let mut update = git2::build::TreeUpdateBuilder::new();
    for change in changes {
        let path = Path::new(&change.path);
        let file = dir.join(path);
        if change.present && file.is_file() {
            if repo.status_should_ignore(path).unwrap_or(false) {
                continue;
            }
            let blob = repo.blob_path(&file)?;
            update.upsert(path, blob, git2::FileMode::Blob);
            index.add_path(path)?;
        } else {
            update.remove(path);
            if index.get_path(path, 0).is_some() {
                index.remove_path(path)?;
            }
        }
    }
    index.write()?;
    let base = match repo.head().ok().and_then(|h| h.peel_to_commit().ok()) {
        Some(commit) => commit.tree()?,
        None => repo.find_tree(repo.treebuilder(None)?.write()?)?,
    };
    let tree_id = update.create_updated(&repo, &base)?;
    if tree_id == base.id() {
        return Ok(None);
    }
    commit_tree(&repo, tree_id, message, author)
}

/// Commits `tree_id` on HEAD, unless HEAD already has that tree.
fn commit_tree(
    repo: &Repository,
    tree_id: git2::Oid,
    message: &str,
    author: (&str, &str),
) -> Result<Option<git2::Oid>, GitError> {
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    if parent.as_ref().is_some_and(|p| p.tree_id() == tree_id) {
        return Ok(None);
    }
    let tree = repo.find_tree(tree_id)?;
    let signature = Signature::now(author.0, author.1)?;
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    let oid = repo.commit(
        Some("HEAD"),
        &signature,
        &signature,
        message,
        &tree,
        &parents,
    )?;
    Ok(Some(oid))
}

/// Stages everything the work tree holds (what `.gitignore` allows) and commits it: the
/// first commit of a project made versioned with notes already in it.
pub fn commit_all(
    dir: &Path,
    message: &str,
    author: (&str, &str),
) -> Result<Option<git2::Oid>, GitError> {
    let repo = Repository::open(dir)?;
    let mut index = repo.index()?;
    index.add_all(["*"], IndexAddOption::DEFAULT, None)?;
    index.update_all(["*"], None)?;
    index.write()?;
    let tree_id = index.write_tree()?;
    commit_tree(&repo, tree_id, message, author)
}
