//! What a push would send: every version of a file that the commits not yet on the remote
//! add. A commit is outgoing when no remote-tracking branch of `origin` reaches it; a file
//! version is new in a commit when none of its parents holds the same blob at that path, so
//! a merge brings back nothing the remote already has.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use git2::{Oid, Repository, Tree};

use super::GitError;

/// One file version a push would send.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingBlob {
    pub path: String,
    pub blob: Oid,
    /// The first outgoing commit (newest first) that adds it.
    pub commit: Oid,
}

/// The file versions of the outgoing commits, and the repository to read them from.
pub struct Outgoing {
    repo: Repository,
    pub blobs: Vec<OutgoingBlob>,
}

impl Outgoing {
    /// A blob's bytes.
    pub fn read(&self, id: Oid) -> Result<Vec<u8>, GitError> {
        Ok(self.repo.find_blob(id)?.content().to_vec())
    }

    /// The bytes of the blob `id` names (hex), if the repository has it.
    pub fn read_named(&self, id: &str) -> Option<Vec<u8>> {
        let id = Oid::from_str(id).ok()?;
        self.read(id).ok()
    }
}

/// Where the outgoing commits would start if they were one: the commit of the followed remote
/// branch (None for a first push, when `origin` has no branch at all), or no base at all when
/// that commit is not in HEAD's history (a pull comes first).
fn squash_base(repo: &Repository, head: Oid) -> Result<Option<Option<Oid>>, GitError> {
    let branch = super::remote::current_branch(repo);
    let tracking = format!(
        "refs/remotes/origin/{}",
        super::remote::followed_branch(repo, &branch)
    );
    match repo.find_reference(&tracking).ok().and_then(|r| r.target()) {
        Some(base) if base == head || repo.graph_descendant_of(head, base)? => Ok(Some(Some(base))),
        Some(_) => Ok(None),
        None if repo
            .references_glob("refs/remotes/origin/*")?
            .next()
            .is_none() =>
        {
            Ok(Some(None))
        }
        None => Ok(None),
    }
}

/// What the push would send if the outgoing commits were one commit holding HEAD's tree: the
/// file versions HEAD holds that the followed remote branch does not. None when they cannot be
/// one (nothing outgoing, or the remote branch is not in HEAD's history).
pub fn outgoing_squashed(dir: &Path) -> Result<Option<Outgoing>, GitError> {
    let repo = Repository::open(dir)?;
    let Some(head) = repo.head().ok().and_then(|h| h.target()) else {
        return Ok(None);
    };
    let Some(base) = squash_base(&repo, head)? else {
        return Ok(None);
    };
    if base == Some(head) {
        return Ok(None);
    }
    let blobs = {
        let base_tree = base.map(|b| repo.find_commit(b)?.tree()).transpose()?;
        let tree = repo.find_commit(head)?.tree()?;
        added(&repo, base_tree.as_ref(), &tree)?
            .into_iter()
            .map(|(path, blob)| OutgoingBlob {
                path,
                blob,
                commit: head,
            })
            .collect()
    };
    Ok(Some(Outgoing { repo, blobs }))
}

/// Outgoing commits replaced by one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Squashed {
    /// How many commits the new one replaces.
    pub commits: usize,
    /// The ref that keeps the replaced commits on this device (never pushed).
    pub kept: String,
}

/// Replaces the outgoing commits by one commit holding HEAD's tree, on top of the followed
/// remote branch (see [`outgoing_squashed`]), so versions that only the replaced commits hold
/// are never sent. The work tree and the index are untouched (the tree is HEAD's), and the
/// replaced commits stay on this device under `refs/gitmem/unsquashed/`.
pub fn squash_outgoing(
    dir: &Path,
    message: &str,
    author: (&str, &str),
) -> Result<Option<Squashed>, GitError> {
    let _guard = super::lock::CommitGuard::take(dir)?;
    let repo = Repository::open(dir)?;
    let Some(head) = repo.head().ok().and_then(|h| h.target()) else {
        return Ok(None);
    };
    let Some(base) = squash_base(&repo, head)? else {
        return Ok(None);
    };
    let mut walk = repo.revwalk()?;
    walk.push(head)?;
    walk.hide_glob("refs/remotes/origin/*")?;
    let commits = walk.count();
    if commits < 2 {
        return Ok(None);
    }
    let kept = format!(
        "refs/gitmem/unsquashed/{}",
        chrono::Utc::now().format("%Y%m%dT%H%M%S%.3fZ")
    );
    repo.reference(&kept, head, false, "gitmem: kept before squashing")?;
    let tree = repo.find_commit(head)?.tree()?;
    let parent = base.map(|b| repo.find_commit(b)).transpose()?;
    let signature = git2::Signature::now(author.0, author.1)?;
    let squashed = repo.commit(
        None,
        &signature,
        &signature,
        message,
        &tree,
        &parent.iter().collect::<Vec<_>>(),
    )?;
    let branch = format!("refs/heads/{}", super::remote::current_branch(&repo));
    repo.reference(&branch, squashed, true, "gitmem: squash before push")?;
    Ok(Some(Squashed { commits, kept }))
}

/// The file versions HEAD's commits would bring to `origin` (none for a repository without
/// commits).
pub fn outgoing(dir: &Path) -> Result<Outgoing, GitError> {
    let repo = Repository::open(dir)?;
    let mut blobs = Vec::new();
    let head = repo.head().ok().and_then(|h| h.target());
    if let Some(head) = head {
        let mut walk = repo.revwalk()?;
        walk.push(head)?;
        walk.hide_glob("refs/remotes/origin/*")?;
        let mut seen: HashSet<(String, Oid)> = HashSet::new();
        for id in walk {
            let commit = repo.find_commit(id?)?;
            let tree = commit.tree()?;
            let parents: Vec<Tree> = commit
                .parents()
                .map(|p| p.tree())
                .collect::<Result<_, _>>()?;
            for (path, blob) in added(&repo, parents.first(), &tree)? {
                let in_a_parent = parents.iter().skip(1).any(|parent| {
                    parent
                        .get_path(Path::new(&path))
                        .is_ok_and(|entry| entry.id() == blob)
                });
                if !in_a_parent && seen.insert((path.clone(), blob)) {
                    blobs.push(OutgoingBlob {
                        path,
                        blob,
                        commit: commit.id(),
                    });
                }
            }
        }
    }
    Ok(Outgoing { repo, blobs })
}

/// The (path, blob) of every file `tree` adds or changes against `parent`.
fn added(
    repo: &Repository,
    parent: Option<&Tree>,
    tree: &Tree,
) -> Result<Vec<(String, Oid)>, GitError> {
    let diff = repo.diff_tree_to_tree(parent, Some(tree), None)?;
    Ok(diff
        .deltas()
        .filter(|delta| {
            matches!(
                delta.status(),
                git2::Delta::Added
                    | git2::Delta::Modified
                    | git2::Delta::Renamed
                    | git2::Delta::Copied
                    | git2::Delta::Typechange
            )
        })
        .filter_map(|delta| {
            let file = delta.new_file();
            let path = file.path()?.to_string_lossy().into_owned();
            // Submodules and symlinks carry no file content of the project.
            let content = matches!(
                file.mode(),
                git2::FileMode::Blob | git2::FileMode::BlobExecutable
            );
            (content && !file.id().is_zero()).then(|| (path, file.id()))
        })
        .collect())
}

/// A file of gitmem's own beside the repository's data (`.git/<name>`), for what it keeps
/// about a repository and never commits.
pub fn state_file(dir: &Path, name: &str) -> Result<PathBuf, GitError> {
    Ok(Repository::open(dir)?.path().join(name))
}
