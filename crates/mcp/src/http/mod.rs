//! MCP over streamable HTTP (`gitmem serve --transport http`): the same tools, prompts and
//! resources as stdio at `/mcp`, for many clients at once, behind bearer tokens; `/healthz`
//! for probes, `/notes/<permalink>` for the links the ChatGPT tools return, `/ingest` for
//! memory records in bulk (`ingest`), and `/metrics` for Prometheus, also alone on a listener
//! of its own without a token (`--metrics-bind`).
//!
//! Every request but `/healthz` passes one guard (`guard`); the caller's grant rides in the
//! request's extensions, and rmcp hands the HTTP request parts to the handler, which narrows
//! the tools to what the grant allows. `oauth` serves the built-in authorization server.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{header, StatusCode};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::error::ServeError;
use super::server::{termination, GitmemServer, Running, Served};
use super::tools::ToolCtx;
use auth::issuer::ExternalIssuer;
use auth::oauth::OAuthServer;
use auth::{Grant, TokenStore};
use engine::read::ReadRefusal;
use engine::{App, Horizons, Outcome};
use guard::{allowed_hosts, allowed_origins, guard, refusal, Credentials};

mod guard;
mod ingest;
mod oauth;

/// The default `--bind`.
pub const DEFAULT_BIND: &str = "127.0.0.1:8177";
/// The default limit of a request body.
pub const DEFAULT_MAX_REQUEST_BYTES: usize = 16 * 1024 * 1024;
/// The default time limit of a request (a tool call has its own, shorter deadline).
pub const DEFAULT_REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

/// How `gitmem serve --transport http` was asked to run.
#[derive(Debug, Clone)]
pub struct HttpOptions {
    pub bind: String,
    pub served: Served,
    pub auth: AuthOptions,
    /// The base of the links the ChatGPT tools return (default: `http://<bound address>`).
    pub public_url: Option<String>,
    /// Host names accepted besides loopback, the bound address and the public URL's host.
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted besides the server's own.
    pub allowed_origins: Vec<String>,
    pub limits: Limits,
    /// Where to serve `/metrics` alone, without a token: an operator's private scrape address.
    pub metrics_bind: Option<String>,
}

/// How callers may prove who they are, besides the tokens of `gitmem token create`.
#[derive(Debug, Clone)]
pub struct AuthOptions {
    /// Tokens given on the command line, in a file or in `GITMEM_AUTH_TOKEN`: full access.
    pub tokens: Vec<String>,
    /// Serve the built-in OAuth authorization server (`--no-oauth` turns it off).
    pub oauth: bool,
    /// Delegate OAuth to this external OpenID provider instead (JWTs checked against its keys).
    pub oauth_issuer: Option<String>,
}

/// What one request may take: its body's size, its time, and a tool call's time within it.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub max_request_bytes: usize,
    pub request_timeout: Duration,
    pub call_deadline: Duration,
}

struct HttpState {
    app: Arc<App>,
    ctx: ToolCtx,
    credentials: Credentials,
    hosts: Vec<String>,
    origins: Vec<String>,
    limits: Limits,
    /// RFC 9728 metadata, when an authorization server (built in or external) is in use.
    resource_metadata: Option<serde_json::Value>,
    public_url: String,
    /// Read-your-writes of stateless clients, by token (shared with `/mcp`'s handlers).
    horizons: Arc<Horizons>,
}

/// Why a server may not start: said before anything is served.
fn check_exposure(bound: &SocketAddr, has_credential: bool) -> Result<(), ServeError> {
    if !bound.ip().is_loopback() && !has_credential {
        return Err(ServeError::Exposed(*bound));
    }
    Ok(())
}

/// `gitmem serve --transport http`.
pub async fn serve_http(root: &std::path::Path, options: HttpOptions) -> Result<(), ServeError> {
    let store = TokenStore::at(root);
    let has_credential = !options.auth.tokens.is_empty()
        || !store.list()?.is_empty()
        || options.auth.oauth_issuer.is_some()
        || (options.auth.oauth && auth::oauth::has_owner_password(root));
    let listener = tokio::net::TcpListener::bind(&options.bind)
        .await
        .map_err(|source| ServeError::Listen {
            address: options.bind.clone(),
            purpose: "",
            source,
        })?;
    let bound = listener.local_addr()?;
    check_exposure(&bound, has_credential)?;
    let scrape_listener =
        match &options.metrics_bind {
            Some(address) => Some(tokio::net::TcpListener::bind(address).await.map_err(
                |source| ServeError::Listen {
                    address: address.clone(),
                    purpose: " for metrics",
                    source,
                },
            )?),
            None => None,
        };

    let one_time = if has_credential {
        None
    } else {
        Some(auth::new_token()?)
    };
    let public_url = options
        .public_url
        .clone()
        .unwrap_or_else(|| format!("http://{bound}"))
        .trim_end_matches('/')
        .to_string();
    let resource = format!("{public_url}/mcp");
    let issuer = match options.auth.oauth_issuer.clone() {
        Some(url) => {
            let audience = resource.clone();
            let found =
                tokio::task::spawn_blocking(move || ExternalIssuer::discover(&url, &audience))
                    .await??;
            Some(Arc::new(found))
        }
        None => None,
    };
    let oauth = if options.auth.oauth && issuer.is_none() {
        Some(Arc::new(OAuthServer::open(
            root,
            &public_url,
            one_time.clone(),
        )?))
    } else {
        None
    };
    let authorization_server = match (&oauth, &issuer) {
        (Some(oauth), _) => Some(oauth.issuer.clone()),
        (None, Some(issuer)) => Some(issuer.issuer.clone()),
        (None, None) => None,
    };
    let resource_metadata = authorization_server
        .map(|server| render::oauth::protected_resource_metadata(&resource, &server));
    let running = Running::start(root, &options.served, Some(public_url.clone())).await?;
    let state = Arc::new(HttpState {
        app: running.app.clone(),
        ctx: running.ctx.clone(),
        credentials: Credentials {
            tokens: options.auth.tokens.clone(),
            one_time: one_time.clone(),
            store,
            oauth,
            issuer,
        },
        hosts: allowed_hosts(&bound, &public_url, &options.allowed_hosts),
        origins: allowed_origins(&bound, &public_url, &options.allowed_origins),
        limits: options.limits,
        resource_metadata,
        public_url: public_url.clone(),
        horizons: Arc::default(),
    });

    let cancel = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .with_json_response(true)
        .with_cancellation_token(cancel.child_token())
        .with_max_request_body_bytes(options.limits.max_request_bytes)
        // The guard below checks Host and Origin for every route, /notes included.
        .disable_allowed_hosts()
        .disable_allowed_origins();
    let deadline = options.limits.call_deadline;
    let (ctx, notifier) = (running.ctx.clone(), running.notifier.clone());
    let horizons = state.horizons.clone();
    let mcp = StreamableHttpService::new(
        move || {
            Ok(GitmemServer::new(
                ctx.clone(),
                deadline,
                &notifier,
                horizons.clone(),
            ))
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = Router::new()
        .route("/notes/{*permalink}", get(note))
        .route("/metrics", get(metrics))
        .route("/ingest", post(ingest::ingest))
        .route_service("/mcp", mcp)
        .route(
            "/.well-known/oauth-protected-resource",
            get(oauth::protected_resource_metadata),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(oauth::protected_resource_metadata),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(oauth::authorization_server_metadata),
        )
        .route("/oauth/register", post(oauth::register))
        .route(
            "/oauth/authorize",
            get(oauth::authorize).post(oauth::approve),
        )
        .route("/oauth/token", post(oauth::token))
        .route("/oauth/revoke", post(oauth::revoke))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .route("/healthz", get(healthz))
        .with_state(state);

    if let Some(listener) = scrape_listener {
        // Printed before the MCP line, which tells a watcher the server is up.
        eprintln!(
            "gitmem: serving metrics without a token at http://{}/metrics",
            listener.local_addr()?
        );
        let scrape = Router::new()
            .route("/metrics", get(scrape))
            .with_state(running.app.clone());
        let stopped = cancel.clone();
        tokio::spawn(async move {
            let served = axum::serve(listener, scrape)
                .with_graceful_shutdown(stopped.cancelled_owned())
                .await;
            if let Err(e) = served {
                tracing::error!("the metrics listener stopped: {e}");
            }
        });
    }
    eprintln!("gitmem: serving MCP at http://{bound}/mcp");
    if let Some(code) = &one_time {
        eprintln!(
            "gitmem: no credential is configured; until this server stops, this one-time code approves OAuth sign-ins and works as a bearer token:\n  {code}\n\
             (`gitmem auth set-password` or `gitmem token create NAME` make lasting ones)"
        );
    }
    let stopping = cancel.clone();
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            let signal = termination().await;
            tracing::info!("{signal}: closing connections, then finishing acknowledged writes");
            // Open event streams end here; otherwise a graceful shutdown would wait for them.
            stopping.cancel();
        })
        .await?;
    cancel.cancel();
    running.finish().await
}

/// The tool context a request's grant gives, or the 403 for a grant this server refuses.
fn context_for(state: &HttpState, grant: Option<&Grant>) -> Result<ToolCtx, Box<Response>> {
    state.ctx.for_grant(grant).map_err(|refused| {
        Box::new(refusal(
            StatusCode::FORBIDDEN,
            "insufficient_scope",
            &refused.to_string(),
        ))
    })
}

/// `GET /metrics` behind the guard: any valid token may read it.
async fn metrics(State(state): State<Arc<HttpState>>) -> Response {
    scrape(State(state.app.clone())).await
}

/// The counters and gauges in Prometheus' text format.
async fn scrape(State(app): State<Arc<App>>) -> Response {
    let report = tokio::task::spawn_blocking(move || app.metrics_report()).await;
    match report {
        Ok(Ok(report)) => (
            [(header::CONTENT_TYPE, render::metrics::CONTENT_TYPE)],
            render::metrics::prometheus(&report),
        )
            .into_response(),
        Ok(Err(e)) => {
            tracing::error!("reading the metrics failed: {e}");
            refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "the metrics could not be read",
            )
        }
        Err(e) => {
            tracing::error!("reading the metrics panicked: {e}");
            refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "the metrics could not be read",
            )
        }
    }
}

async fn healthz() -> Json<serde_json::Value> {
    Json(json!({"ok": true, "storage": "local"}))
}

/// `GET /notes/<permalink>`: a note's markdown, where the ChatGPT tools' links point.
async fn note(
    State(state): State<Arc<HttpState>>,
    UrlPath(permalink): UrlPath<String>,
    request: Request,
) -> Response {
    let grant = request.extensions().get::<Grant>().cloned();
    let ctx = match context_for(&state, grant.as_ref()) {
        Ok(ctx) => ctx,
        Err(refused) => return *refused,
    };
    let app = state.app.clone();
    let choice = ctx.choice_of(None);
    let horizon = state
        .horizons
        .of(grant.as_ref().map(|g| g.name.as_str()).unwrap_or_default());
    let read = tokio::task::spawn_blocking(move || {
        horizon.scope(|| app.fetch_document(&choice, &permalink))
    })
    .await;
    match read {
        Ok(Ok(Outcome::Done(file))) => (
            [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
            file.text,
        )
            .into_response(),
        Ok(Ok(Outcome::Refused(ReadRefusal::NotFound { identifier, .. }))) => refusal(
            StatusCode::NOT_FOUND,
            "not_found",
            &format!("no note '{identifier}'"),
        ),
        Ok(Ok(Outcome::Refused(ReadRefusal::OutsideProject(o)))) => {
            refusal(StatusCode::BAD_REQUEST, "invalid_path", &o.to_string())
        }
        Ok(Err(e)) if e.is_user_error() => {
            refusal(StatusCode::BAD_REQUEST, "invalid_request", &e.to_string())
        }
        Ok(Err(e)) => {
            tracing::error!("reading a note failed: {e}");
            refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "the note could not be read",
            )
        }
        Err(e) => {
            tracing::error!("reading a note panicked: {e}");
            refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "the note could not be read",
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_may_start_without_a_credential() {
        let open: SocketAddr = "0.0.0.0:8177".parse().unwrap();
        let local: SocketAddr = "127.0.0.1:8177".parse().unwrap();
        assert!(check_exposure(&open, false).is_err());
        assert!(check_exposure(&open, true).is_ok());
        assert!(check_exposure(&local, false).is_ok());
    }
}
