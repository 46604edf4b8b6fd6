//! What makes a project versioned, and how gitmem's changes to its notes reach the commit
//! thread: `version_project` (`gitmem git init`), the changes of tools and of other programs
//! queued for commits, and the recovery of repositories a killed process left locked.

use crate::config::Project;
use crate::{error, Result};
use crate::{Engine, Store};

/// Clears what a gitmem process killed mid-commit left in versioned projects' repositories
/// (`git::recover`), so the next commit does not fail on a stale lock.
pub(crate) fn recover_repositories(store: &Store) {
    for project in crate::scope::projects(store, None).unwrap_or_default() {
        if project.git.is_none() {
            continue;
        }
        if let Err(e) = ::git::recover(&project.path) {
            tracing::warn!(
                "recovering the repository of '{}' failed: {e}",
                project.name
            );
        }
    }
}

/// Queues the commit of a change gitmem made to a versioned project's note (files under a
/// linked folder's mount live outside the repository and are not committed).
pub(crate) fn record_change(
    engine: &Engine,
    project: &Project,
    path: &str,
    kind: super::commits::ChangeKind,
    note: &index::NoteRecord,
) {
    let inside = crate::mounts::project_file(&engine.store, project, path)
        .is_ok_and(|file| file.starts_with(&project.path));
    if !inside {
        return;
    }
    if let Some(change) =
        super::commits::Change::of(project, path, kind, &note.title, note.permalink.as_deref())
    {
        engine.history.record(change);
    }
}

/// Queues the commit of files other programs changed in a versioned project.
pub(crate) fn record_external(engine: &Engine, project: &Project, changes: &[vault::scan::Change]) {
    use super::commits::PathChange;
    use vault::scan::Change as Found;
    let paths: Vec<PathChange> = changes
        .iter()
        .flat_map(|change| match change {
            Found::Created(path) | Found::Modified(path) => vec![PathChange {
                path: path.clone(),
                present: true,
            }],
            Found::Deleted(path) => vec![PathChange {
                path: path.clone(),
                present: false,
            }],
            Found::Moved { from, to } => vec![
                PathChange {
                    path: to.clone(),
                    present: true,
                },
                PathChange {
                    path: from.clone(),
                    present: false,
                },
            ],
            Found::Touched(_) => Vec::new(),
        })
        .collect();
    if let Some(change) = super::commits::Change::synced(project, paths) {
        engine.history.record(change);
    }
}

/// Makes a project versioned: uses its work tree, clones `remote` into it when it is
/// empty, or creates a repository (committing the notes it already holds).
pub(crate) fn version_project(
    store: &Store,
    name: &str,
    remote: Option<&str>,
) -> Result<(Project, ::git::Prepared)> {
    if let Some(url) = remote.filter(|url| ::git::remote::has_embedded_secret(url)) {
        return Err(error::HistoryError::SecretInRemote(::git::remote::redact(url)).into());
    }
    let project = crate::scope::project(store, Some(name))?;
    let prepared = ::git::prepare(&project.path, remote, project.crypto.is_some())?;
    // A repository of the user's that already has an `origin` syncs through it, as if
    // `--remote` had named it (one carrying a token is left out of config.toml).
    let origin = match remote {
        Some(_) => None,
        None => ::git::remote::origin_url(&project.path)
            .filter(|url| !::git::remote::has_embedded_secret(url)),
    };
    let project = store
        .config_mut()
        .set_project_git(name, remote.or(origin.as_deref()))?;
    // A clone on a branch the remote does not have (its default branch has another name,
    // or it was empty then) takes the remote's branch and history now.
    if prepared == ::git::Prepared::Cloned && ::git::is_unborn(&project.path) {
        if let Err(e) = crate::git::exchange::git_pull(store, &project) {
            // The folder was empty: leave it so, for the next attempt to clone into.
            if ::git::is_unborn(&project.path) {
                ::git::discard_repository(&project.path)?;
            }
            return Err(e);
        }
    }
    if prepared == ::git::Prepared::Initialised {
        let git = project.git.clone().unwrap_or_default();
        ::git::commit_all(
            &project.path,
            "chore(mem): start the history of this project",
            (&git.author_name, &git.author_email),
        )?;
    }
    Ok((project, prepared))
}
