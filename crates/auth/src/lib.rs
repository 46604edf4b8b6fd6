//! Who may call a server over HTTP, and how they prove it: named bearer tokens kept hashed under
//! the data root (`tokens`), gitmem's own OAuth 2.1 authorization server (`oauth`), and an
//! external OpenID provider's tokens (`issuer`). Each answers with a `Grant`: what the caller
//! may do. Knows nothing of notes, the index or HTTP; `mcp::http` speaks the protocol.

pub mod error;
pub mod issuer;
pub mod oauth;
pub mod tokens;

pub use error::{AuthError, Result};
pub use tokens::{
    new_token, same_secret, CreatedToken, Grant, TokenRecord, TokenStore, TOKEN_PREFIX,
};

/// Now, as the token and OAuth files record times.
fn now_text() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Secs, true)
}
