//! Git repositories of versioned projects, through libgit2 (the `git2` crate): open, create or
//! clone a project's work tree, commit a set of changed paths, read history, and exchange
//! commits with a remote. Knows nothing of notes, the index or MCP; `engine::history` decides
//! what to commit and when, and how two versions of a note merge.

pub mod crypt;
mod lock;
pub mod log;
pub mod outgoing;
pub mod remote;

use std::path::{Path, PathBuf};

use git2::{IndexAddOption, Oid, Repository, RepositoryInitOptions, Signature};

pub use lock::recover;

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
    #[error("no such version: '{0}' (use a commit id from note_history)")]
    UnknownRevision(String),
    #[error("the project has no remote; add one with `gitmem git init --project P --remote URL`")]
    NoRemote,
    #[error("the remote {url} failed: {message}")]
    Remote { url: String, message: String },
    #[error("the repository already has the remote origin = {0}; gitmem syncs through origin, so pass that URL as --remote, or change origin first (`git remote set-url origin URL`)")]
    OtherOrigin(String),
    #[error("the remote has no branch '{branch}' and gitmem cannot tell which of its branches ({remote}) to follow; choose one with `git branch --set-upstream-to=origin/NAME`")]
    NoBranchToFollow { branch: String, remote: String },
    #[error("the remote refused the push (it has commits this device has not pulled): {0}")]
    Rejected(String),
    #[error(transparent)]
    Crypt(#[from] crypt::CryptError),
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
/// or creates a repository; an existing or new one gets `remote` as `origin`. A directory
/// inside another work tree is refused: gitmem would commit into someone else's repository.
/// An `encrypted` project's remote holds ciphertext, so an empty directory only gets the
/// remote as `origin` (`Cloned`, unborn); the caller's first pull decrypts the history into it.
/// An unencrypted clone of an encrypted remote is undone and refused.
pub fn prepare(dir: &Path, remote: Option<&str>, encrypted: bool) -> Result<Prepared, GitError> {
    if dir.join(".git").exists() {
        let repo = Repository::open(dir)?;
        if let Some(url) = remote {
            remote::set_origin(&repo, url)?;
        }
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
    if let (Some(url), true, true) = (remote, empty, encrypted) {
        let repo = init(dir)?;
        remote::set_origin(&repo, url)?;
        return Ok(Prepared::Cloned);
    }
    if let (Some(url), true) = (remote, empty) {
        let cloned = git2::build::RepoBuilder::new()
            .fetch_options(remote::fetch_options())
            .clone(url, dir)
            .map_err(|e| GitError::Remote {
                url: remote::redact(url),
                message: e.message().to_string(),
            })?;
        let head = cloned.head().ok().and_then(|h| h.target());
        if let Some(head) = head {
            if crypt::mirror::is_mirror(&cloned, head)? {
                drop(cloned);
                empty_dir(dir)?;
                return Err(crypt::CryptError::RemoteEncrypted.into());
            }
        }
        return Ok(Prepared::Cloned);
    }
    let repo = init(dir)?;
    if let Some(url) = remote {
        remote::set_origin(&repo, url)?;
    }
    Ok(Prepared::Initialised)
}

fn init(dir: &Path) -> Result<Repository, GitError> {
    let mut options = RepositoryInitOptions::new();
    options.initial_head("main");
    Ok(Repository::init_opts(dir, &options)?)
}

/// Removes the repository `prepare` made in an empty folder whose first pull failed (before
/// it wrote anything), so the next attempt starts as from an empty folder.
pub fn discard_repository(dir: &Path) -> Result<(), GitError> {
    let git = dir.join(".git");
    vault::fs::remove_tree(&git).map_err(|source| GitError::Io { path: git, source })
}

/// Removes everything a refused clone put into `dir`, which was empty before it.
fn empty_dir(dir: &Path) -> Result<(), GitError> {
    let io = |source| GitError::Io {
        path: dir.to_path_buf(),
        source,
    };
    for entry in vault::fs::entries(dir).map_err(io)? {
        let removed = if entry.is_dir() {
            vault::fs::remove_tree(&entry)
        } else {
            vault::fs::delete_file(&entry)
        };
        removed.map_err(io)?;
    }
    Ok(())
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

/// Commits `paths` (relative to the work tree) on the current branch with `message`, as the
/// work tree holds them now (a path whose file is gone is removed), or does nothing when they
/// change nothing (the file was already committed as it is, or is ignored). The new tree is HEAD's
/// with only these paths changed, so whatever else the user staged stays staged and out of
/// gitmem's commit; the index follows for these paths, so `git status` stays clean.
pub fn commit(
    dir: &Path,
    paths: &[String],
    message: &str,
    author: (&str, &str),
) -> Result<Option<Oid>, GitError> {
    let _guard = lock::CommitGuard::take(dir)?;
    let repo = Repository::open(dir)?;
    let tree_id = updated_tree(&repo, dir, paths)?;
    commit_tree(&repo, tree_id, message, author, None)
}

/// HEAD's tree with `paths` as the work tree holds them now (a path changed several times in
/// a batch counts once; the file on disk decides), the index following them.
fn updated_tree(repo: &Repository, dir: &Path, paths: &[String]) -> Result<Oid, GitError> {
    let base = match repo.head().ok().and_then(|h| h.peel_to_commit().ok()) {
        Some(commit) => commit.tree()?,
        None => repo.find_tree(repo.treebuilder(None)?.write()?)?,
    };
    let mut index = repo.index()?;
    let mut update = git2::build::TreeUpdateBuilder::new();
    let mut paths: Vec<&str> = paths.iter().map(String::as_str).collect();
    paths.sort_unstable();
    paths.dedup();
    for path in paths {
        let path = Path::new(path);
        let file = dir.join(path);
        if file.is_file() {
            if repo.status_should_ignore(path).unwrap_or(false) {
                continue;
            }
            let blob = repo.blob_path(&file)?;
            update.upsert(path, blob, git2::FileMode::Blob);
            index.add_path(path)?;
        } else {
            // A note written and moved or deleted within one batch was never committed:
            // libgit2 refuses to remove what the tree does not hold.
            if base.get_path(path).is_ok() {
                update.remove(path);
            }
            if index.get_path(path, 0).is_some() {
                index.remove_path(path)?;
            }
        }
    }
    index.write()?;
    Ok(update.create_updated(repo, &base)?)
}

/// How a pull ended in the repository.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Merged {
    /// HEAD moved to the remote's commit.
    FastForward,
    /// A merge commit joins both histories.
    Commit(Oid),
}

/// Records the merge of `theirs` into HEAD once the work tree holds the merged files: `paths`
/// are every path the remote changed (and any conflict copies written beside them). HEAD
/// simply moves to `theirs` when it had nothing of its own.
pub fn finish_merge(
    dir: &Path,
    paths: &[String],
    theirs: Oid,
    message: &str,
    author: (&str, &str),
) -> Result<Merged, GitError> {
    let _guard = lock::CommitGuard::take(dir)?;
    let repo = Repository::open(dir)?;
    let tree_id = updated_tree(&repo, dir, paths)?;
    let head = repo.head().ok().and_then(|h| h.target());
    let behind = match head {
        None => true,
        Some(head) => head == theirs || repo.graph_descendant_of(theirs, head)?,
    };
    if behind && repo.find_commit(theirs)?.tree_id() == tree_id {
        let branch = remote::current_branch(&repo);
        repo.reference(
            &format!("refs/heads/{branch}"),
            theirs,
            true,
            "gitmem: pull (fast-forward)",
        )?;
        return Ok(Merged::FastForward);
    }
    let oid = commit_tree(&repo, tree_id, message, author, Some(theirs))?
        .ok_or_else(|| git2::Error::from_str("the merge produced no commit"))?;
    Ok(Merged::Commit(oid))
}

/// One path the remote changed since the common ancestor: its blob there and in the remote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RemoteChange {
    pub path: String,
    pub base: Option<Oid>,
    pub theirs: Option<Oid>,
}

/// What a fetched remote commit brings that HEAD has not merged yet: the paths it changed since
/// the common ancestor, and the repository to read their versions from.
pub struct Incoming {
    repo: Repository,
    pub changes: Vec<RemoteChange>,
}

impl Incoming {
    /// The bytes of one side of a change (None: absent on that side).
    pub fn read(&self, id: Option<Oid>) -> Result<Option<Vec<u8>>, GitError> {
        let Some(id) = id else {
            return Ok(None);
        };
        let blob = self.repo.find_blob(id)?;
        Ok(Some(blob.content().to_vec()))
    }
}

/// What `theirs` (a fetched remote commit) brings; None when HEAD already contains it.
pub fn incoming(dir: &Path, theirs: Oid) -> Result<Option<Incoming>, GitError> {
    let repo = Repository::open(dir)?;
    let head = repo.head().ok().and_then(|h| h.target());
    if let Some(head) = head {
        if head == theirs || repo.graph_descendant_of(head, theirs)? {
            return Ok(None);
        }
    }
    let base = match head {
        Some(head) => repo.merge_base(head, theirs).ok(),
        None => None,
    };
    let base_tree = match base {
        Some(base) => Some(repo.find_commit(base)?.tree()?),
        None => None,
    };
    let their_tree = repo.find_commit(theirs)?.tree()?;
    let diff = repo.diff_tree_to_tree(base_tree.as_ref(), Some(&their_tree), None)?;
    let changes = diff
        .deltas()
        .filter_map(|delta| {
            let path = delta
                .new_file()
                .path()
                .or_else(|| delta.old_file().path())?
                .to_string_lossy()
                .into_owned();
            let id = |f: git2::DiffFile| (!f.id().is_zero()).then(|| f.id());
            Some(RemoteChange {
                path,
                base: id(delta.old_file()),
                theirs: id(delta.new_file()),
            })
        })
        .collect();
    drop(diff);
    drop(base_tree);
    drop(their_tree);
    Ok(Some(Incoming { repo, changes }))
}

/// True when the repository has no commit yet (HEAD names a branch that does not exist).
pub fn is_unborn(dir: &Path) -> bool {
    Repository::open(dir).is_ok_and(|repo| repo.head().is_err())
}

/// The id git gives a blob of these bytes.
pub fn blob_id(bytes: &[u8]) -> Option<Oid> {
    Oid::hash_object(git2::ObjectType::Blob, bytes).ok()
}

/// The id of the blob the work-tree file `path` would have.
pub fn hash_file(path: &Path) -> Option<Oid> {
    Oid::hash_file(git2::ObjectType::Blob, path).ok()
}

/// Commits `tree_id` on HEAD (and `merged` as second parent), unless HEAD already has that
/// tree and nothing is merged.
fn commit_tree(
    repo: &Repository,
    tree_id: Oid,
    message: &str,
    author: (&str, &str),
    merged: Option<Oid>,
) -> Result<Option<Oid>, GitError> {
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    if merged.is_none() && parent.as_ref().is_some_and(|p| p.tree_id() == tree_id) {
        return Ok(None);
    }
    let tree = repo.find_tree(tree_id)?;
    let signature = Signature::now(author.0, author.1)?;
    let other = merged.map(|id| repo.find_commit(id)).transpose()?;
    let parents: Vec<&git2::Commit> = parent.iter().chain(other.iter()).collect();
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
) -> Result<Option<Oid>, GitError> {
    let _guard = lock::CommitGuard::take(dir)?;
    let repo = Repository::open(dir)?;
    let mut index = repo.index()?;
    index.add_all(["*"], IndexAddOption::DEFAULT, None)?;
    index.update_all(["*"], None)?;
    index.write()?;
    let tree_id = index.write_tree()?;
    commit_tree(&repo, tree_id, message, author, None)
}
