//! Reading a project's history: the versions of one file (following renames), a file's text at
//! a commit, and the newest commit behind each of a set of paths.

use std::collections::HashMap;
use std::path::Path;

use chrono::{DateTime, TimeZone, Utc};
use git2::{Commit, Oid, Repository, Revwalk};

use super::GitError;

/// One commit that changed a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Version {
    pub commit: String,
    pub time: DateTime<Utc>,
    pub author: String,
    pub email: String,
    /// The first line of the commit message.
    pub summary: String,
    /// The file's path in this commit (a rename changes it).
    pub path: String,
    /// The file's blob in this commit; None when this commit deleted the file.
    pub blob: Option<Oid>,
}

fn version(commit: &Commit, path: &str, blob: Option<Oid>) -> Version {
    let author = commit.author();
    Version {
        commit: commit.id().to_string(),
        time: Utc
            .timestamp_opt(commit.time().seconds(), 0)
            .single()
            .unwrap_or_default(),
        author: author.name().unwrap_or_default().to_string(),
        email: author.email().unwrap_or_default().to_string(),
        summary: commit.summary().unwrap_or_default().to_string(),
        path: path.to_string(),
        blob,
    }
}

fn entry_id(commit: &Commit, path: &str) -> Option<Oid> {
    let tree = commit.tree().ok()?;
    tree.get_path(Path::new(path)).ok().map(|e| e.id())
}

/// The path `path` had in the first parent of `commit`, found by rename detection; None when
/// the file was created by `commit`.
fn renamed_from(repo: &Repository, commit: &Commit, path: &str) -> Option<String> {
    let parent = commit.parent(0).ok()?;
    let mut diff = repo
        .diff_tree_to_tree(Some(&parent.tree().ok()?), Some(&commit.tree().ok()?), None)
        .ok()?;
    let mut find = git2::DiffFindOptions::new();
    find.renames(true);
    diff.find_similar(Some(&mut find)).ok()?;
    diff.deltas()
        .filter(|d| d.status() == git2::Delta::Renamed)
        .find(|d| d.new_file().path() == Some(Path::new(path)))
        .and_then(|d| {
            d.old_file()
                .path()
                .map(|p| p.to_string_lossy().into_owned())
        })
}

/// The commits reachable from HEAD, newest first; `None` in a repository with no commit yet.
fn newest_first(repo: &Repository) -> Result<Option<Revwalk<'_>>, GitError> {
    let mut walk = repo.revwalk()?;
    if walk.push_head().is_err() {
        return Ok(None);
    }
    walk.set_sorting(git2::Sort::TOPOLOGICAL | git2::Sort::TIME)?;
    Ok(Some(walk))
}

/// The commits that changed `path`, newest first, at most `limit`, following the file across
/// renames (as `git log --follow` does). A commit identical to one of its parents for the file
/// is skipped, so a merge only appears when it changed the file itself.
pub fn file_history(dir: &Path, path: &str, limit: usize) -> Result<Vec<Version>, GitError> {
    let repo = Repository::open(dir)?;
    let Some(walk) = newest_first(&repo)? else {
        return Ok(Vec::new());
    };
    let mut current = path.to_string();
    let mut versions = Vec::new();
    for oid in walk {
        if versions.len() >= limit {
            break;
        }
        let commit = repo.find_commit(oid?)?;
        let here = entry_id(&commit, &current);
        let parents: Vec<Option<Oid>> = commit.parents().map(|p| entry_id(&p, &current)).collect();
        if parents.is_empty() {
            if here.is_some() {
                versions.push(version(&commit, &current, here));
            }
            continue;
        }
        if parents.contains(&here) {
            continue;
        }
        match here {
            Some(_) => {
                versions.push(version(&commit, &current, here));
                if parents[0].is_none() {
                    if let Some(old) = renamed_from(&repo, &commit, &current) {
                        current = old;
                    }
                }
            }
            None => versions.push(version(&commit, &current, None)),
        }
    }
    Ok(versions)
}

/// Resolves a commit id, a prefix of one, or any revision git understands (`HEAD~2`).
pub fn resolve(repo: &Repository, rev: &str) -> Result<Oid, GitError> {
    let object = repo
        .revparse_single(rev)
        .map_err(|_| GitError::UnknownRevision(rev.to_string()))?;
    let commit = object
        .peel_to_commit()
        .map_err(|_| GitError::UnknownRevision(rev.to_string()))?;
    Ok(commit.id())
}

/// The text of `path` at revision `rev`, or None when the file is not in that commit.
pub fn file_at(dir: &Path, rev: &str, path: &str) -> Result<Option<Vec<u8>>, GitError> {
    let repo = Repository::open(dir)?;
    let commit = repo.find_commit(resolve(&repo, rev)?)?;
    let Some(id) = entry_id(&commit, path) else {
        return Ok(None);
    };
    let bytes = repo.find_blob(id)?.content().to_vec();
    Ok(Some(bytes))
}

/// The full id of revision `rev`.
pub fn resolve_in(dir: &Path, rev: &str) -> Result<String, GitError> {
    let repo = Repository::open(dir)?;
    Ok(resolve(&repo, rev)?.to_string())
}

/// For each of `paths`, the newest commit among the last `depth` that changed it. Paths not
/// changed in that window are absent.
pub fn latest_commits(
    dir: &Path,
    paths: &[&str],
    depth: usize,
) -> Result<HashMap<String, Version>, GitError> {
    let mut found = HashMap::new();
    let repo = Repository::open(dir)?;
    let Some(walk) = newest_first(&repo)? else {
        return Ok(found);
    };
    for oid in walk.take(depth) {
        if found.len() == paths.len() {
            break;
        }
        let commit = repo.find_commit(oid?)?;
        let parents: Vec<Commit> = commit.parents().collect();
        for path in paths {
            if found.contains_key(*path) {
                continue;
            }
            let here = entry_id(&commit, path);
            let changed = if parents.is_empty() {
                here.is_some()
            } else {
                !parents.iter().any(|p| entry_id(p, path) == here)
            };
            if changed {
                found.insert(path.to_string(), version(&commit, path, here));
            }
        }
    }
    Ok(found)
}

/// A note a commit message names: gitmem's messages carry each note's title, permalink and
/// path, which is how a deleted note is found again by the names it had.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Named {
    pub title: String,
    pub permalink: Option<String>,
    pub path: String,
}

/// Reads the notes gitmem's commit message names: a single change's subject and
/// `permalink:`/`path:` lines, or a batch's `- <verb> <title> (permalink: P; path: F)` lines.
pub fn named_in_message(message: &str) -> Vec<Named> {
    let mut lines = message.lines();
    let subject = lines.next().unwrap_or_default();
    let body: Vec<&str> = lines.collect();
    let field = |name: &str| {
        body.iter()
            .find_map(|l| l.strip_prefix(name).map(|v| v.trim().to_string()))
    };
    if let Some(path) = field("path:") {
        let title = subject
            .split_once("): ")
            .and_then(|(_, rest)| rest.split_once(' '))
            .map(|(_, title)| title.to_string())
            .unwrap_or_default();
        return vec![Named {
            title,
            permalink: field("permalink:"),
            path,
        }];
    }
    body.iter()
        .filter_map(|line| {
            let item = line.strip_prefix("- ")?;
            let (head, details) = item.rsplit_once(" (")?;
            let details = details.strip_suffix(')')?;
            let (_, title) = head.split_once(' ')?;
            let mut permalink = None;
            let mut path = None;
            for part in details.split("; ") {
                if let Some(v) = part.strip_prefix("permalink: ") {
                    permalink = Some(v.to_string());
                } else if let Some(v) = part.strip_prefix("path: ") {
                    path = Some(v.to_string());
                }
            }
            Some(Named {
                title: title.to_string(),
                permalink,
                path: path?,
            })
        })
        .collect()
}

/// The path of the newest note, among the last `depth` commits, whose commit message names it
/// by `matches` (for a note that no longer exists).
pub fn find_named(
    dir: &Path,
    depth: usize,
    matches: impl Fn(&Named) -> bool,
) -> Result<Option<String>, GitError> {
    let repo = Repository::open(dir)?;
    let Some(walk) = newest_first(&repo)? else {
        return Ok(None);
    };
    for oid in walk.take(depth) {
        let commit = repo.find_commit(oid?)?;
        let message = commit.message().unwrap_or_default();
        if let Some(named) = named_in_message(message).into_iter().find(&matches) {
            return Ok(Some(named.path));
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commit_messages_name_their_notes() {
        let single = "chore(mem): delete Weekly Plan\n\npermalink: notes/weekly-plan\npath: plans/Weekly Plan.md\n";
        assert_eq!(
            named_in_message(single),
            vec![Named {
                title: "Weekly Plan".into(),
                permalink: Some("notes/weekly-plan".into()),
                path: "plans/Weekly Plan.md".into(),
            }]
        );
        let batch = "chore(mem): delete 2 notes\n\n- delete A (permalink: p/a; path: A.md)\n- delete B (x) (path: d/B.md)\n";
        assert_eq!(
            named_in_message(batch),
            vec![
                Named {
                    title: "A".into(),
                    permalink: Some("p/a".into()),
                    path: "A.md".into(),
                },
                Named {
                    title: "B (x)".into(),
                    permalink: None,
                    path: "d/B.md".into(),
                },
            ]
        );
        assert!(named_in_message("Merge branch 'x'\n\nsome text").is_empty());
    }
}
