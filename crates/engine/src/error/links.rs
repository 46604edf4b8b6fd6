//! What linking, unlinking and rescanning a folder refuse, and the folders from outside that
//! gitmem will not read (a link's, or an import's).

use std::path::PathBuf;

use vault::links::RegistryError;
use vault::path::PathError;

#[derive(Debug, thiserror::Error)]
pub enum LinkError {
    /// links.json cannot be read, parsed or written.
    #[error(transparent)]
    Registry(#[from] RegistryError),
    #[error("{} is outside your home directory; set `allow_outside_home = true` under [storage.local] in config.toml to {to_do}", .folder.display())]
    OutsideHome { folder: PathBuf, to_do: String },
    #[error("{} overlaps gitmem's data root {}; choose a folder outside it", .folder.display(), .root.display())]
    OverlapsRoot { folder: PathBuf, root: PathBuf },
    #[error("{} is inside or around project '{project}' at {}; its notes are in gitmem already", .folder.display(), .project_path.display())]
    OverlapsProject {
        folder: PathBuf,
        project: String,
        project_path: PathBuf,
    },
    #[error("{} overlaps {} already linked to project '{project}' ({id})", .folder.display(), .linked.display())]
    OverlapsLink {
        folder: PathBuf,
        linked: PathBuf,
        project: String,
        id: String,
    },
    #[error("path must not be empty")]
    EmptyPath,
    #[error("cannot link {path}: {source}")]
    Unresolvable {
        path: String,
        source: std::io::Error,
    },
    #[error("cannot link {0}: it is not a directory")]
    NotADirectory(String),
    #[error("watch mode '{0}' is not poll or native")]
    WatchMode(String),
    #[error("poll interval {0} ms is too short; use at least 100 ms")]
    PollInterval(u64),
    #[error("jitter {0}% is more than 100%")]
    Jitter(u32),
    #[error("bad include/exclude pattern: {0}")]
    Pattern(#[source] globset::Error),
    /// A pattern kept in links.json that no longer compiles.
    #[error(transparent)]
    StoredPattern(globset::Error),
    #[error("the mount folder name is empty; pass --mount NAME")]
    EmptyMount,
    #[error(transparent)]
    Mount(PathError),
    #[error("mount '{mount}' is used by another link of project '{project}'; pass --mount NAME")]
    MountTaken { mount: String, project: String },
    #[error("project '{project}' already has '{mount}' in its folder; pass --mount NAME to mount the link elsewhere")]
    MountExists { project: String, mount: String },
    #[error("{path} is already linked at mount '{mount}'; unlink it first to change the mount")]
    MountChange { path: String, mount: String },
    #[error("{path} is not linked to project '{project}'")]
    NotLinked { path: String, project: String },
    #[error("project '{0}' has no linked folders")]
    NoLinks(String),
    #[error("no link {id} in project '{project}'")]
    UnknownLink { id: String, project: String },
}
