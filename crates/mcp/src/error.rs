//! Why `gitmem serve` could not start or stopped: the server's own failures, apart from the
//! engine's (which a tool call answers). Each says what to do where the user can act.

use std::net::SocketAddr;

#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// Opening the root failed.
    #[error(transparent)]
    Engine(#[from] engine::ServiceError),
    /// The token store, the OAuth server or the external issuer failed, or `--oauth-issuer`
    /// names no provider gitmem can use.
    #[error(transparent)]
    Auth(#[from] auth::AuthError),
    /// `--project NAME` names no project of the root.
    #[error("No project found named: {0}")]
    UnknownProject(String),
    /// The address (of MCP, or of the metrics scrape) cannot be bound.
    #[error("cannot listen on {address}{purpose}: {source}")]
    Listen {
        address: String,
        /// Empty for the MCP address, " for metrics" for the scrape address.
        purpose: &'static str,
        source: std::io::Error,
    },
    /// A reachable address without any credential would expose every note.
    #[error(
        "refusing to serve on {0} without a credential: anyone who can reach this address could read and change every note. \
         Create a token first (`gitmem token create NAME`), set the owner password for OAuth sign-ins (`gitmem auth set-password`), \
         or pass --auth-token / --auth-token-file / GITMEM_AUTH_TOKEN; a one-time code is offered only on a loopback address"
    )]
    Exposed(SocketAddr),
    /// The MCP session over stdio could not start (boxed: it is large, and rare).
    #[error(transparent)]
    Initialize(#[from] Box<rmcp::service::ServerInitializeError>),
    /// A background task of the server panicked or was cancelled.
    #[error(transparent)]
    Task(#[from] tokio::task::JoinError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}
