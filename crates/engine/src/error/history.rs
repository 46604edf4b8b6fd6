//! What the history tools and git sync refuse. Git's own refusals that the user can fix (no
//! remote, an unknown version, a nested repository) are `UserError::Git`.

#[derive(Debug, thiserror::Error)]
pub enum HistoryError {
    #[error("project '{0}' is not versioned, so it has no history; `gitmem git init --project {0}` versions it")]
    NoHistory(String),
    #[error(
        "project '{0}' is not versioned; `gitmem git init --project {0} --remote URL` versions it"
    )]
    NotVersioned(String),
    #[error("'{identifier}' names several notes ({paths}); name one by its path", paths = .paths.join(", "))]
    Ambiguous {
        identifier: String,
        paths: Vec<String>,
    },
    #[error(
        "{0} lives in a linked folder, outside the project's repository, so it has no history"
    )]
    LinkedFolder(String),
    #[error("no note '{identifier}' in project '{project}', now or in its history")]
    UnknownNote { identifier: String, project: String },
    #[error(
        "{path} did not exist in version {version}; note_history lists the versions that have it"
    )]
    NotInVersion { path: String, version: String },
    /// config.toml must not keep a secret; the URL is shown without it.
    #[error("the remote {0} carries a password or token, and config.toml must not keep one: give the URL without it and put the token in GITHUB_TOKEN (or GITMEM_GIT_TOKEN), a git credential helper or GIT_ASKPASS")]
    SecretInRemote(String),
    /// A push that would send secret-shaped text: files, lines, kinds and commits, never the
    /// values.
    #[error(transparent)]
    SecretsHeld(crate::secrets::HeldPush),
}
