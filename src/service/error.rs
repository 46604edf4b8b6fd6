//! The errors of service calls, split as milli splits its own: `UserError` is input the caller
//! can fix and is answered with a message that says how; `InternalError` is gitmem or the disk
//! failing, and is logged with context where it is answered.

use std::fmt;

use crate::config::ConfigError;
use crate::index::{IndexError, OpError};

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
    /// The message says what is wrong and how to fix it.
    #[error("{0}")]
    Invalid(String),
    #[error(transparent)]
    OutsideProject(#[from] OutsideProject),
    #[error("no search criteria: give a query or at least one filter")]
    NoSearchCriteria,
    #[error("Invalid search_type '{0}'. Valid options: hybrid, permalink, semantic, text, title, vector")]
    InvalidSearchType(String),
    /// An unknown, duplicate, badly named or overlapping project.
    #[error(transparent)]
    Project(ConfigError),
    /// The call named no project and there is no default one.
    #[error("No project specified. Either set 'default_project' in config, or use 'project' argument.\nAvailable projects: {available:?}")]
    NoProjectSelected { available: Vec<String> },
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
    Scan(#[from] crate::vault::scan::ScanError),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// The index disagrees with what was just written.
    #[error("{0}")]
    Inconsistent(String),
    /// The embedding model failed to load or to run.
    #[error(transparent)]
    Embed(#[from] crate::index::embed::EmbedError),
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
    pub fn invalid(message: impl Into<String>) -> Self {
        ServiceError::User(UserError::Invalid(message.into()))
    }

    pub fn inconsistent(message: impl Into<String>) -> Self {
        ServiceError::Internal(InternalError::Inconsistent(message.into()))
    }

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
    pub fn io_kind(&self) -> Option<std::io::ErrorKind> {
        match self {
            ServiceError::Internal(InternalError::Io(e)) => Some(e.kind()),
            _ => None,
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

impl From<OutsideProject> for ServiceError {
    fn from(e: OutsideProject) -> Self {
        ServiceError::User(UserError::OutsideProject(e))
    }
}

impl From<IndexError> for ServiceError {
    fn from(e: IndexError) -> Self {
        ServiceError::Internal(e.into())
    }
}

impl From<OpError> for ServiceError {
    fn from(e: OpError) -> Self {
        ServiceError::Internal(e.into())
    }
}

impl From<crate::vault::scan::ScanError> for ServiceError {
    fn from(e: crate::vault::scan::ScanError) -> Self {
        ServiceError::Internal(e.into())
    }
}

impl From<std::io::Error> for ServiceError {
    fn from(e: std::io::Error) -> Self {
        ServiceError::Internal(e.into())
    }
}

impl From<milli_core::heed::Error> for ServiceError {
    fn from(e: milli_core::heed::Error) -> Self {
        ServiceError::Internal(InternalError::Index(e.into()))
    }
}

/// Naming a version that does not exist, syncing without a remote or nesting repositories is
/// the caller's to fix; anything else git reports is a failure of the server or its setup.
impl From<crate::git::GitError> for ServiceError {
    fn from(e: crate::git::GitError) -> Self {
        use crate::git::GitError;
        match e {
            GitError::NoRemote | GitError::UnknownRevision(_) | GitError::Nested(..) => {
                ServiceError::invalid(e.to_string())
            }
            other => ServiceError::inconsistent(other.to_string()),
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
        assert!(ServiceError::invalid("bad").is_user_error());
    }
}
