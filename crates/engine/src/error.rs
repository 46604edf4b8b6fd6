//! The errors of service calls, split as milli splits its own: `UserError` is input the caller
//! can fix and is answered with a message that says how; `InternalError` is gitmem or the disk
//! failing, and is logged with context where it is answered. Each failure is one variant with
//! its message written on it; the areas with many failures have an enum of their own, in the
//! submodules, which `UserError` wraps.

mod history;
mod import;
mod links;
mod memory;
mod models;
mod posix;
mod request;

use std::fmt;
use std::path::PathBuf;

pub use history::{HeldPush, HeldSecret, HistoryError};
pub use import::ImportError;
pub use links::LinkError;
pub use memory::{GraphError, MemoryError};
pub use models::{DownloadError, ModelError};
pub use posix::PosixError;
pub use request::{EditInputError, NoteError, PageError, QueryError};

use crate::config::ConfigError;
use git::crypt::CryptError;
use git::GitError;
use index::{IndexError, OpError, OpOutcome};

#[derive(Debug, thiserror::Error)]
pub enum ServiceError {
    #[error(transparent)]
    User(#[from] UserError),
    #[error(transparent)]
    Internal(#[from] InternalError),
}

/// Input the caller can fix.
#[derive(Debug, thiserror::Error)]
pub enum UserError {
    #[error(transparent)]
    OutsideProject(#[from] OutsideProject),
    /// An unknown, duplicate, badly named or overlapping project.
    #[error(transparent)]
    Project(ConfigError),
    /// A bad token name, a short password, an unusable `--oauth-issuer`.
    #[error(transparent)]
    Auth(auth::AuthError),
    /// The call named no project and there is no default one.
    #[error("No project specified. Either set 'default_project' in config, or use 'project' argument.\nAvailable projects: {available:?}")]
    NoProjectSelected { available: Vec<String> },
    /// A caller limited to some projects (a token's) named another.
    #[error("this connection may use only the projects {projects}; '{project}' is not one of them (name one with `project`)", projects = .allowed.join(", "))]
    ProjectNotAllowed {
        allowed: Vec<String>,
        project: String,
    },
    /// A memory:// URL named another project than `serve --project` serves.
    #[error("Project is constrained to '{constrained}', cannot use '{requested}'.")]
    ProjectConstrained {
        constrained: String,
        requested: String,
    },
    #[error("Project '{name}' not found. Available projects: {projects}", projects = .available.join(", "))]
    UnknownProjectToDelete {
        name: String,
        available: Vec<String>,
    },
    /// `others`: the other projects, one of which could become the default.
    #[error("Cannot delete default project '{name}'. {advice}", advice = default_advice(.others))]
    DeleteDefaultProject { name: String, others: Vec<String> },
    #[error("the vault {} is not a directory", .0.display())]
    VaultNotAFolder(PathBuf),
    /// Only git's refusals the user can fix: no remote, an unknown version, a nested repository,
    /// another `origin`, a remote branch to choose.
    #[error(transparent)]
    Git(GitError),
    /// Keys that do not work, or a remote in the other form than the project's encryption.
    #[error(transparent)]
    Encryption(CryptError),
    #[error(transparent)]
    Page(#[from] PageError),
    #[error(transparent)]
    Query(#[from] QueryError),
    #[error(transparent)]
    Edit(#[from] EditInputError),
    #[error(transparent)]
    Note(#[from] NoteError),
    #[error(transparent)]
    Memory(#[from] MemoryError),
    #[error(transparent)]
    Graph(#[from] GraphError),
    #[error(transparent)]
    Import(#[from] ImportError),
    #[error(transparent)]
    Link(#[from] LinkError),
    #[error(transparent)]
    History(#[from] HistoryError),
    #[error(transparent)]
    Model(#[from] ModelError),
    #[error(transparent)]
    Posix(#[from] PosixError),
}

fn default_advice(others: &[String]) -> String {
    if others.is_empty() {
        "This is the only project in your configuration.".to_string()
    } else {
        format!(
            "Set another project as default first. Available: {}",
            others.join(", ")
        )
    }
}

/// gitmem or the disk failed.
#[derive(Debug, thiserror::Error)]
pub enum InternalError {
    #[error(transparent)]
    Config(ConfigError),
    #[error(transparent)]
    Index(#[from] IndexError),
    /// The index refused one operation of a write.
    #[error(transparent)]
    IndexWrite(#[from] OpError),
    #[error(transparent)]
    Scan(#[from] vault::scan::ScanError),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The index lost a note gitmem had just written.
    #[error("{0} vanished from the index")]
    Vanished(String),
    /// The index answered a write of this file with something else than the note.
    #[error("{0} was not indexed")]
    NotIndexed(String),
    #[error("the index answered an import with {0:?}")]
    UnexpectedAnswer(OpOutcome),
    #[error("encoding {what}: {source}")]
    Encode {
        what: &'static str,
        source: serde_json::Error,
    },
    /// The token store or the OAuth server failed.
    #[error(transparent)]
    Auth(auth::AuthError),
    /// The embedding model failed to load or to run.
    #[error(transparent)]
    Embed(#[from] embed::EmbedError),
    /// A repository, or a remote, failed.
    #[error(transparent)]
    Git(GitError),
    /// Another program kept changing a file while gitmem wrote to it.
    #[error("{0} kept changing while gitmem wrote to it")]
    KeptChanging(String),
    #[error("{0} kept changing while the pull merged it; pull again")]
    KeptChangingInPull(String),
    #[error("{0} panicked")]
    Panicked(&'static str),
}

/// Which argument named a path outside the project.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PathArg {
    Identifier,
    Path,
    Directory,
    Destination,
    Canvas,
}

impl fmt::Display for PathArg {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PathArg::Identifier => "Identifier",
            PathArg::Path => "Path",
            PathArg::Directory => "Directory path",
            PathArg::Destination => "Destination",
            PathArg::Canvas => "Canvas path",
        })
    }
}

/// A path-like argument that would leave the project: `..`, an absolute path, `~`, a drive
/// letter, or a symlink out. The one message every tool gives for it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{what} '{value}' is not allowed - paths must stay within project boundaries")]
pub struct OutsideProject {
    pub what: PathArg,
    pub value: String,
}

impl OutsideProject {
    pub fn new(what: PathArg, value: impl Into<String>) -> Self {
        Self {
            what,
            value: value.into(),
        }
    }
}

impl ServiceError {
    /// True when the input was wrong (as opposed to a failure of gitmem or the disk).
    pub fn is_user_error(&self) -> bool {
        matches!(self, ServiceError::User(_))
    }

    /// True when the call's project could not be chosen, whatever the call was about.
    pub fn is_project_choice(&self) -> bool {
        matches!(
            self,
            ServiceError::User(UserError::Project(_) | UserError::NoProjectSelected { .. })
        )
    }

    /// The I/O error underneath, if that is what failed.
    pub(crate) fn io_kind(&self) -> Option<std::io::ErrorKind> {
        match self {
            ServiceError::Internal(InternalError::Io(e)) => Some(e.kind()),
            _ => None,
        }
    }
}

/// `?` turns the errors of each kind into service errors.
macro_rules! service_error_from {
    ($kind:ident: $($error:ty),+) => {$(
        impl From<$error> for ServiceError {
            fn from(e: $error) -> Self {
                ServiceError::$kind(e.into())
            }
        }
    )+};
}

service_error_from!(User: OutsideProject, PageError, QueryError, EditInputError, NoteError,
    MemoryError, GraphError, ImportError, LinkError, HistoryError, ModelError, PosixError);
service_error_from!(Internal: IndexError, OpError, vault::scan::ScanError,
    std::io::Error, embed::EmbedError);

/// A bad token name, a short password or an unusable issuer is the caller's to fix; a token or
/// OAuth file that cannot be read or written is the server failing.
impl From<auth::AuthError> for ServiceError {
    fn from(e: auth::AuthError) -> Self {
        if e.is_user_error() {
            ServiceError::User(UserError::Auth(e))
        } else {
            ServiceError::Internal(InternalError::Auth(e))
        }
    }
}

impl From<ConfigError> for ServiceError {
    fn from(e: ConfigError) -> Self {
        match e {
            ConfigError::UnknownProject(..)
            | ConfigError::DuplicateProject(_)
            | ConfigError::BadName(_)
            | ConfigError::Overlap { .. }
            | ConfigError::ContainsRoot(_)
            | ConfigError::RemoveDefault(_) => ServiceError::User(UserError::Project(e)),
            other => ServiceError::Internal(InternalError::Config(other)),
        }
    }
}

/// Naming a version that does not exist, syncing without a remote, nesting repositories, naming
/// a remote other than the repository's `origin` or one whose branch cannot be told is the
/// caller's to fix; anything else git reports (a remote that cannot be reached or refuses
/// the credentials included) is a failure of the server or its setup, and is logged.
impl From<GitError> for ServiceError {
    fn from(e: GitError) -> Self {
        match e {
            GitError::NoRemote
            | GitError::UnknownRevision(_)
            | GitError::Nested(..)
            | GitError::OtherOrigin(_)
            | GitError::NoBranchToFollow { .. } => ServiceError::User(UserError::Git(e)),
            GitError::Crypt(e) if !matches!(e, CryptError::Io { .. }) => {
                ServiceError::User(UserError::Encryption(e))
            }
            other => ServiceError::Internal(InternalError::Git(other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_path_refusal_has_the_same_shape() {
        for (what, label) in [
            (PathArg::Identifier, "Identifier"),
            (PathArg::Path, "Path"),
            (PathArg::Directory, "Directory path"),
            (PathArg::Destination, "Destination"),
            (PathArg::Canvas, "Canvas path"),
        ] {
            assert_eq!(
                OutsideProject::new(what, "../x").to_string(),
                format!(
                    "{label} '../x' is not allowed - paths must stay within project boundaries"
                )
            );
        }
    }

    #[test]
    fn project_mistakes_are_user_errors_and_disk_failures_are_not() {
        let unknown: ServiceError = ConfigError::UnknownProject("x".into(), "main".into()).into();
        assert!(unknown.is_user_error());
        let io: ServiceError = std::io::Error::other("disk on fire").into();
        assert!(!io.is_user_error());
        assert_eq!(io.io_kind(), Some(std::io::ErrorKind::Other));
        assert!(ServiceError::from(PageError::PageBelowOne(0)).is_user_error());
    }

    #[test]
    fn git_refusals_the_user_can_fix_are_user_errors() {
        assert!(ServiceError::from(GitError::NoRemote).is_user_error());
        let failed = ServiceError::from(GitError::Remote {
            url: "https://example.com/x.git".into(),
            message: "unreachable".into(),
        });
        assert!(!failed.is_user_error());
        assert!(matches!(
            failed,
            ServiceError::Internal(InternalError::Git(GitError::Remote { .. }))
        ));
    }
}
