//! What loading or changing the configuration refuses.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {source}")]
    Read {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is not valid TOML: {message}")]
    Parse { path: PathBuf, message: String },
    #[error("cannot write {path}: {source}")]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("project '{0}' not found; known projects: {1}")]
    UnknownProject(String, String),
    #[error("project '{0}' already exists")]
    DuplicateProject(String),
    #[error("invalid project name '{0}': use at most 100 bytes of letters, digits, spaces, '-', '_' or '.', not starting with '.'")]
    BadName(String),
    #[error("project '{name}' at {path} overlaps project '{other}' at {other_path}: projects may not be nested")]
    Overlap {
        name: String,
        path: String,
        other: String,
        other_path: String,
    },
    #[error("a project at {0} would contain gitmem's own data directory; choose a folder inside or beside it")]
    ContainsRoot(String),
    #[error("cannot remove the default project '{0}'; make another project the default first (`gitmem project default NAME`)")]
    RemoveDefault(String),
    #[error("cannot create project directory {path}: {source}")]
    CreateDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{var} (from {from}) names no key of [{section}]; its keys are {known}")]
    UnknownOverride {
        var: String,
        from: String,
        section: String,
        known: String,
    },
    #[error("{var}='{value}' (from {from}) is not {expected}")]
    BadOverride {
        var: String,
        from: String,
        value: String,
        expected: &'static str,
    },
    #[error("{}, line {line}: {message}", .path.display())]
    DotEnv {
        path: PathBuf,
        line: usize,
        message: String,
    },
    #[error("{path}: {source}")]
    Redaction {
        path: PathBuf,
        source: note::redact::PatternError,
    },
}
