//! Where a project's paths live: in the project's directory, or under a linked folder's mount
//! in that folder (links.json, read again only when it changes). Every file a workflow opens by
//! its project path is found here.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::SystemTime;

use crate::config::Project;
use crate::Store;
use crate::{OutsideProject, PathArg, Result};
use vault::links;
use vault::path::RelPath;

/// When a link was last modified, for the mount cache.
pub(crate) type MountCache =
    std::sync::Mutex<HashMap<String, (Option<SystemTime>, Vec<(String, PathBuf)>)>>;

/// A project's links.json.
pub(crate) fn registry(store: &Store, project: &Project) -> PathBuf {
    links::registry_path(&store.config().meta_dir(), &project.name)
}

/// The absolute path of a project-relative path, refusing anything that leaves the project
/// (or, under a linked folder's mount, the linked folder). It takes text because most
/// paths come from the index or are composed here; it parses them all the same, so a
/// stale or crafted one cannot lead out either.
pub(crate) fn project_file(store: &Store, project: &Project, relative: &str) -> Result<PathBuf> {
    let resolved = match mounted(store, project, relative) {
        Some((root, inner)) => RelPath::parse(&inner).and_then(|p| p.resolve_inside(&root)),
        None => RelPath::parse(relative).and_then(|p| p.resolve_inside(&project.path)),
    };
    resolved.map_err(|_| OutsideProject::new(PathArg::Path, relative).into())
}

/// (mount, folder) of every link of a project, cached until links.json changes.
pub(crate) fn mounts(store: &Store, project: &Project) -> Vec<(String, PathBuf)> {
    let path = registry(store, project);
    let mtime = vault::fs::modified(&path);
    let mut cache = store.mount_cache.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((cached_at, mounts)) = cache.get(&project.name) {
        if *cached_at == mtime {
            return mounts.clone();
        }
    }
    let mounts: Vec<(String, PathBuf)> = links::load(&path)
        .unwrap_or_default()
        .into_iter()
        .map(|l| (l.mount, l.resolved_path))
        .collect();
    cache.insert(project.name.clone(), (mtime, mounts.clone()));
    mounts
}

/// The linked folder a project-relative path falls in: (folder, path inside it).
pub(crate) fn mounted(
    store: &Store,
    project: &Project,
    relative: &str,
) -> Option<(PathBuf, String)> {
    mounts(store, project)
        .into_iter()
        .find_map(|(mount, root)| {
            if relative == mount {
                Some((root, String::new()))
            } else {
                relative
                    .strip_prefix(&format!("{mount}/"))
                    .map(|rest| (root, rest.to_string()))
            }
        })
}
