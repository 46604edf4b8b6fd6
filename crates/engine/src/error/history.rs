//! What the history tools and git sync refuse. Git's own refusals that the user can fix (no
//! remote, an unknown version, a nested repository) are `UserError::Git`.

use serde::{Deserialize, Serialize};

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
    SecretsHeld(HeldPush),
}

/// Secret-shaped text in a file version a push would send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldSecret {
    pub path: String,
    /// The line (from 1) of the text; 0 when the file's name is what carries it.
    pub line: usize,
    pub kind: String,
    /// The commit that brings this version (short id).
    pub commit: String,
}

/// A push refused because of what it would send.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{}", held_message(.0))]
pub struct HeldPush(pub Vec<HeldSecret>);

impl std::fmt::Display for HeldSecret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.line {
            0 => write!(f, "{} (its name)", self.path)?,
            line => write!(f, "{} line {line}", self.path)?,
        }
        write!(f, ": {} (commit {})", self.kind, self.commit)
    }
}

fn held_message(held: &[HeldSecret]) -> String {
    let mut paths: Vec<&str> = held.iter().map(|h| h.path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    let listed: Vec<String> = held.iter().map(|h| format!("- {h}")).collect();
    let allow: Vec<String> = paths
        .iter()
        .map(|p| format!("--allow-secrets {p}"))
        .collect();
    format!(
        "the push is held: commits not on the remote yet carry secret-shaped text\n{}\nEdit it out of the file (or rename the file): the next push then sends the unpushed commits as one, without it. Or push it anyway with `gitmem sync push {}`",
        listed.join("\n"),
        allow.join(" ")
    )
}
