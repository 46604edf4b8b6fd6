//! The failures of the token store, the OAuth server and the external issuer, as a user meets
//! them: input they can fix (`is_user_error`), or the server failing.

use std::path::PathBuf;

use crate::issuer::IssuerError;

#[derive(Debug, thiserror::Error)]
pub enum AuthError {
    #[error("a token name must be a non-empty word without spaces, e.g. 'laptop' or 'chatgpt'")]
    TokenName,
    #[error("a token named '{0}' exists already; revoke it first or choose another name")]
    TokenExists(String),
    #[error("the password must have at least 8 characters")]
    PasswordTooShort,
    /// `--oauth-issuer` names no provider gitmem can use.
    #[error(transparent)]
    Issuer(#[from] IssuerError),
    #[error("{} is not a token file: {source}", .path.display())]
    TokenFile {
        path: PathBuf,
        source: serde_json::Error,
    },
    /// The authorization server's state (`auth/oauth.json`) does not parse.
    #[error("{} is not readable: {source}", .path.display())]
    OAuthState {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("encoding {what}: {source}")]
    Encode {
        what: &'static str,
        source: serde_json::Error,
    },
    #[error("hashing the password: {0}")]
    PasswordHash(argon2::password_hash::Error),
    #[error("no randomness available: {0}")]
    Randomness(#[source] getrandom::Error),
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
}

impl AuthError {
    /// True when the input was wrong (as opposed to a failure of gitmem or the disk).
    pub fn is_user_error(&self) -> bool {
        matches!(
            self,
            AuthError::TokenName
                | AuthError::TokenExists(_)
                | AuthError::PasswordTooShort
                | AuthError::Issuer(_)
        )
    }
}

pub type Result<T> = std::result::Result<T, AuthError>;
