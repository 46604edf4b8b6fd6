//! gitmem's own OAuth 2.1 authorization server, for a self-hosted server with one owner, as
//! ChatGPT and Claude.ai connectors require: dynamic client registration (RFC 7591) and client
//! ID metadata documents (`clients`), the authorization-code flow with PKCE S256 only and an
//! approval step where the owner proves who they are (`authorize`, with the password of
//! `password` set by `gitmem auth set-password`, or the one-time code `gitmem serve` prints),
//! short-lived access tokens, rotating refresh tokens, revocation (RFC 7009), and tokens bound
//! to this server's resource (RFC 8707) (`tokens`).
//!
//! Nothing here speaks HTTP: `mcp::http` parses requests, and `render::oauth` renders these
//! answers. Clients and sessions live in `<root>/auth/oauth.json`; tokens are stored as
//! SHA-256 hashes only. Authorization codes live in memory for five minutes and are single-use.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use serde::{Deserialize, Serialize};

use crate::tokens::write_private;
use crate::{AuthError, Result};
use vault::fs::read_optional;

mod authorize;
mod clients;
mod password;
mod tokens;

pub use authorize::percent_encode;
pub use authorize::{Approval, AuthorizationRequest, AuthorizeError, UnknownScope};
pub use clients::{Client, ClientDocumentError, RegistrationRequest};
pub use password::{has_owner_password, set_owner_password};
pub use tokens::{s256_challenge, IssuedTokens};

/// An access token's life: short, since a refresh gets another.
pub const ACCESS_TTL_SECS: i64 = 3600;
/// A refresh token's life; each use replaces it.
pub const REFRESH_TTL_SECS: i64 = 30 * 24 * 3600;
/// An authorization code's life.
pub const CODE_TTL_SECS: i64 = 300;
/// `read` allows the tools that change nothing; `write` the others too.
pub const SCOPES: [&str; 2] = ["read", "write"];

/// The error codes of RFC 6749 (section 5.2) and RFC 7591 (section 3.2.2) this server answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum OAuthErrorCode {
    InvalidRequest,
    UnsupportedResponseType,
    InvalidClient,
    InvalidGrant,
    UnsupportedGrantType,
    InvalidScope,
    InvalidTarget,
    InvalidRedirectUri,
    InvalidClientMetadata,
    ServerError,
}

impl OAuthErrorCode {
    /// The code as the protocol spells it.
    pub fn as_str(self) -> &'static str {
        match self {
            OAuthErrorCode::InvalidRequest => "invalid_request",
            OAuthErrorCode::UnsupportedResponseType => "unsupported_response_type",
            OAuthErrorCode::InvalidClient => "invalid_client",
            OAuthErrorCode::InvalidGrant => "invalid_grant",
            OAuthErrorCode::UnsupportedGrantType => "unsupported_grant_type",
            OAuthErrorCode::InvalidScope => "invalid_scope",
            OAuthErrorCode::InvalidTarget => "invalid_target",
            OAuthErrorCode::InvalidRedirectUri => "invalid_redirect_uri",
            OAuthErrorCode::InvalidClientMetadata => "invalid_client_metadata",
            OAuthErrorCode::ServerError => "server_error",
        }
    }
}

/// An OAuth error answer: its code, and a description for the developer of the client.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{}: {description}", code.as_str())]
pub struct OAuthError {
    pub code: OAuthErrorCode,
    pub description: String,
}

impl OAuthError {
    pub fn new(code: OAuthErrorCode, description: impl Into<String>) -> Self {
        OAuthError {
            code,
            description: description.into(),
        }
    }
}

fn server_error(e: AuthError) -> OAuthError {
    tracing::error!("oauth: {e}");
    OAuthError::new(
        OAuthErrorCode::ServerError,
        "the authorization server failed; see its log",
    )
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    #[serde(default)]
    clients: Vec<Client>,
    #[serde(default)]
    sessions: Vec<tokens::Session>,
}

/// The authorization server of one running `gitmem serve --transport http`.
pub struct OAuthServer {
    dir: PathBuf,
    /// The issuer: the server's public base URL.
    pub issuer: String,
    /// The protected resource: `<issuer>/mcp`.
    pub resource: String,
    one_time: Option<String>,
    stored: Mutex<Stored>,
    codes: Mutex<HashMap<String, authorize::PendingCode>>,
    documents: Mutex<HashMap<String, Client>>,
    failures: Mutex<Vec<Instant>>,
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn random_secret(prefix: &str) -> std::result::Result<String, OAuthError> {
    crate::tokens::random_secret(prefix).map_err(server_error)
}

impl OAuthServer {
    /// The authorization server of `root`, for `issuer` (the public base URL). `one_time` is
    /// the code `gitmem serve` printed, accepted on the approval page besides the password.
    pub fn open(root: &Path, issuer: &str, one_time: Option<String>) -> Result<Self> {
        let dir = root.join("auth");
        let path = dir.join("oauth.json");
        let stored = match read_optional(&path)? {
            Some(bytes) => {
                serde_json::from_slice(&bytes).map_err(|source| AuthError::OAuthState {
                    path: path.clone(),
                    source,
                })?
            }
            None => Stored::default(),
        };
        let issuer = issuer.trim_end_matches('/').to_string();
        Ok(OAuthServer {
            dir,
            resource: format!("{issuer}/mcp"),
            issuer,
            one_time,
            stored: Mutex::new(stored),
            codes: Mutex::new(HashMap::new()),
            documents: Mutex::new(HashMap::new()),
            failures: Mutex::new(Vec::new()),
        })
    }

    fn root(&self) -> &Path {
        self.dir.parent().unwrap_or(&self.dir)
    }

    fn save(&self, stored: &mut Stored) -> std::result::Result<(), OAuthError> {
        let now = now();
        stored.sessions.retain(|s| s.refresh_expires > now);
        let bytes = serde_json::to_vec_pretty(&*stored).map_err(|source| {
            server_error(AuthError::Encode {
                what: "the authorization server's state",
                source,
            })
        })?;
        write_private(&self.dir.join("oauth.json"), &bytes).map_err(server_error)
    }
}
