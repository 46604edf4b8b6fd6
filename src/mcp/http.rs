//! MCP over streamable HTTP (`gitmem serve --transport http`): the same tools, prompts and
//! resources as stdio at `/mcp`, for many clients at once, behind bearer tokens; `/healthz`
//! for probes and `/notes/<permalink>` for the links the ChatGPT tools return.
//!
//! Every request but `/healthz` passes one guard, in this order: a request id, the `Host`
//! and `Origin` checks (DNS rebinding), the bearer token, and a time limit. The caller's
//! [`Grant`] rides in the request's extensions; rmcp hands the HTTP request parts to the
//! handler, which narrows the tools to what the grant allows.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Path as UrlPath, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::server::{termination, GitmemServer};
use super::tools::ToolCtx;
use crate::service::auth::{same_secret, Grant, TokenStore};
use crate::service::read::ReadRefusal;
use crate::service::{background, App, Outcome};

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
    pub constrained: Option<String>,
    pub dotted_names: bool,
    /// Tokens given on the command line, in a file or in `GITMEM_AUTH_TOKEN`: full access.
    pub tokens: Vec<String>,
    /// The base of the links the ChatGPT tools return (default: `http://<bound address>`).
    pub public_url: Option<String>,
    /// Host names accepted besides loopback, the bound address and the public URL's host.
    pub allowed_hosts: Vec<String>,
    /// Browser origins accepted besides the server's own.
    pub allowed_origins: Vec<String>,
    pub max_request_bytes: usize,
    pub request_timeout: Duration,
    pub call_deadline: Duration,
}

/// The credentials a request may present.
struct Credentials {
    tokens: Vec<String>,
    /// Printed at start when no other credential exists (loopback only).
    one_time: Option<String>,
    store: TokenStore,
}

impl Credentials {
    fn grant(&self, presented: &str) -> crate::service::Result<Option<Grant>> {
        // Every configured secret is compared, so the time taken does not say which matched.
        let given = self.tokens.iter().fold(false, |hit, t| hit | same_secret(presented, t));
        let once = self
            .one_time
            .as_deref()
            .is_some_and(|t| same_secret(presented, t));
        let stored = self.store.verify(presented)?;
        Ok(if given {
            Some(Grant::full("command-line token"))
        } else if once {
            Some(Grant::full("one-time token"))
        } else {
            stored
        })
    }
}

struct HttpState {
    app: Arc<App>,
    ctx: ToolCtx,
    credentials: Credentials,
    hosts: Vec<String>,
    origins: Vec<String>,
    request_timeout: Duration,
}

/// The id of one HTTP request, in its logs and its `x-request-id` header.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// Why a server may not start: said before anything is served.
fn check_exposure(bound: &SocketAddr, has_credential: bool) -> anyhow::Result<()> {
    if !bound.ip().is_loopback() && !has_credential {
        anyhow::bail!(
            "refusing to serve on {bound} without a credential: anyone who can reach this address could read and change every note. \
             Create a token first (`gitmem token create NAME`), or pass --auth-token / --auth-token-file / GITMEM_AUTH_TOKEN; \
             a one-time token is offered only on a loopback address"
        );
    }
    Ok(())
}

/// `gitmem serve --transport http`.
pub async fn serve_http(root: &std::path::Path, options: HttpOptions) -> anyhow::Result<()> {
    let store = TokenStore::at(root);
    let has_credential = !options.tokens.is_empty() || !store.list()?.is_empty();
    let listener = tokio::net::TcpListener::bind(&options.bind)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", options.bind))?;
    let bound = listener.local_addr()?;
    check_exposure(&bound, has_credential)?;

    let root = root.to_path_buf();
    let app = Arc::new(tokio::task::spawn_blocking(move || App::open(&root)).await??);
    if let Some(name) = &options.constrained {
        if app.project(Some(name)).is_err() {
            anyhow::bail!("No project found named: {name}");
        }
    }
    let one_time = if has_credential {
        None
    } else {
        Some(crate::service::auth::new_token()?)
    };
    let public_url = options
        .public_url
        .clone()
        .unwrap_or_else(|| format!("http://{bound}"))
        .trim_end_matches('/')
        .to_string();
    let ctx = ToolCtx {
        dotted_names: options.dotted_names || app.config().compat.dotted_names,
        public_url: Some(public_url.clone()),
        ..ToolCtx::new(app.clone(), options.constrained.clone())
    };
    let state = Arc::new(HttpState {
        app: app.clone(),
        ctx: ctx.clone(),
        credentials: Credentials {
            tokens: options.tokens.clone(),
            one_time: one_time.clone(),
            store,
        },
        hosts: allowed_hosts(&bound, &public_url, &options.allowed_hosts),
        origins: allowed_origins(&bound, &public_url, &options.allowed_origins),
        request_timeout: options.request_timeout,
    });

    let cancel = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_legacy_session_mode(true)
        .with_json_response(true)
        .with_cancellation_token(cancel.child_token())
        .with_max_request_body_bytes(options.max_request_bytes)
        // The guard below checks Host and Origin for every route, /notes included.
        .disable_allowed_hosts()
        .disable_allowed_origins();
    let deadline = options.call_deadline;
    let mcp = StreamableHttpService::new(
        move || Ok(GitmemServer::new(ctx.clone(), deadline)),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = Router::new()
        .route("/notes/{*permalink}", get(note))
        .route_service("/mcp", mcp)
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .route("/healthz", get(healthz))
        .with_state(state);

    let background = background::index_and_watch(app.clone(), options.constrained.clone());
    background::poll_links(app.clone(), options.constrained.clone());
    background::embed(app.clone());

    eprintln!("gitmem: serving MCP at http://{bound}/mcp");
    if let Some(token) = &one_time {
        eprintln!(
            "gitmem: no token is configured; until this server stops it accepts the one-time token\n  {token}\n\
             (`gitmem token create NAME` makes a lasting one)"
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
    tokio::task::spawn_blocking(move || app.shutdown()).await?;
    drop(background);
    Ok(())
}

fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    Some(authority.to_ascii_lowercase())
}

/// Hosts (`name` or `name:port`) a request may name: loopback, the bound address, the public
/// URL's host and the configured ones.
fn allowed_hosts(bound: &SocketAddr, public_url: &str, extra: &[String]) -> Vec<String> {
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "[::1]"]
        .iter()
        .map(|h| h.to_string())
        .collect();
    hosts.push(bound.to_string());
    hosts.extend(host_of(public_url));
    hosts.extend(extra.iter().map(|h| h.to_ascii_lowercase()));
    hosts
}

/// Origins a browser request may come from: the server's own and the configured ones.
fn allowed_origins(bound: &SocketAddr, public_url: &str, extra: &[String]) -> Vec<String> {
    let mut origins = vec![
        format!("http://{bound}"),
        format!("http://localhost:{}", bound.port()),
        format!("http://127.0.0.1:{}", bound.port()),
    ];
    origins.extend(host_of(public_url).map(|host| {
        let scheme = public_url.split_once("://").map_or("http", |(s, _)| s);
        format!("{scheme}://{host}")
    }));
    origins.extend(extra.iter().map(|o| o.trim_end_matches('/').to_ascii_lowercase()));
    origins
}

/// A host matches an entry with the same port, or an entry without a port.
fn host_allowed(host: &str, allowed: &[String]) -> bool {
    let host = host.to_ascii_lowercase();
    let name = match host.rsplit_once(':') {
        Some((name, port)) if port.chars().all(|c| c.is_ascii_digit()) && !name.ends_with(':') => {
            name
        }
        _ => host.as_str(),
    };
    allowed.iter().any(|a| *a == host || *a == name)
}

fn refusal(status: StatusCode, error: &str, description: &str) -> Response {
    (
        status,
        Json(json!({"error": error, "error_description": description})),
    )
        .into_response()
}

fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme
        .eq_ignore_ascii_case("bearer")
        .then(|| token.trim())
        .filter(|t| !t.is_empty())
}

fn unauthorized(description: &str) -> Response {
    let mut response = refusal(StatusCode::UNAUTHORIZED, "invalid_token", description);
    response.headers_mut().insert(
        header::WWW_AUTHENTICATE,
        HeaderValue::from_static("Bearer realm=\"gitmem\", error=\"invalid_token\""),
    );
    response
}

async fn guard(State(state): State<Arc<HttpState>>, mut request: Request, next: Next) -> Response {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let span = tracing::info_span!("request", id = %id, %method, %path);
    let _entered = span.enter();
    let mut response = match admit(&state, &request) {
        Err(response) => response,
        Ok(grant) => {
            tracing::debug!(caller = %grant.name, "admitted");
            request.extensions_mut().insert(grant);
            request.extensions_mut().insert(RequestId(id.clone()));
            match tokio::time::timeout(state.request_timeout, next.run(request)).await {
                Ok(response) => response,
                Err(_) => refusal(
                    StatusCode::GATEWAY_TIMEOUT,
                    "timeout",
                    &format!(
                        "no answer within {} s",
                        state.request_timeout.as_secs_f64()
                    ),
                ),
            }
        }
    };
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert("x-request-id", value);
    }
    tracing::info!(
        status = response.status().as_u16(),
        ms = started.elapsed().as_secs_f64() * 1000.0,
        "answered"
    );
    response
}

/// The caller's grant, or the response that turns the request away.
fn admit(state: &HttpState, request: &Request) -> Result<Grant, Response> {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()))
        .unwrap_or("");
    if !host_allowed(host, &state.hosts) {
        tracing::warn!(host, "refused: unknown Host");
        return Err(refusal(
            StatusCode::FORBIDDEN,
            "forbidden_host",
            "this Host is not served; add it with --allow-host or --public-url",
        ));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("").trim_end_matches('/');
        if !state.origins.iter().any(|o| o.eq_ignore_ascii_case(origin)) {
            tracing::warn!(origin, "refused: unknown Origin");
            return Err(refusal(
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                "requests from this Origin are not accepted; add it with --allow-origin",
            ));
        }
    }
    let Some(token) = bearer(headers) else {
        return Err(unauthorized(
            "an Authorization: Bearer token is required",
        ));
    };
    let grant = match state.credentials.grant(token) {
        Ok(Some(grant)) => grant,
        Ok(None) => return Err(unauthorized("the token is not valid (unknown or revoked)")),
        Err(e) => {
            tracing::error!("reading the token store failed: {e}");
            return Err(refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "the server could not check the token",
            ));
        }
    };
    if let (Some(served), Some(wanted)) = (&state.ctx.constrained, &grant.project) {
        if served != wanted {
            return Err(refusal(
                StatusCode::FORBIDDEN,
                "insufficient_scope",
                &format!("the token is for project '{wanted}'; this server serves only '{served}'"),
            ));
        }
    }
    Ok(grant)
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
    let ctx = match state.ctx.for_caller(grant.as_ref()) {
        Ok(ctx) => ctx,
        Err(message) => return refusal(StatusCode::FORBIDDEN, "insufficient_scope", &message),
    };
    let app = state.app.clone();
    let choice = ctx.choice_of(None);
    let read = tokio::task::spawn_blocking(move || app.fetch_document(&choice, &permalink)).await;
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
    fn hosts_match_with_or_without_their_port() {
        let bound: SocketAddr = "0.0.0.0:8177".parse().unwrap();
        let allowed = allowed_hosts(&bound, "https://notes.example.com", &["Mem.Lan".into()]);
        for (host, ok) in [
            ("localhost:8177", true),
            ("127.0.0.1", true),
            ("[::1]:8177", true),
            ("notes.example.com", true),
            ("mem.lan:9000", true),
            ("0.0.0.0:8177", true),
            ("evil.example.com", false),
            ("localhost.evil.com:8177", false),
            ("", false),
        ] {
            assert_eq!(host_allowed(host, &allowed), ok, "{host}");
        }
    }

    #[test]
    fn the_public_url_adds_its_origin() {
        let bound: SocketAddr = "127.0.0.1:9000".parse().unwrap();
        let origins = allowed_origins(&bound, "https://notes.example.com/", &[]);
        assert!(origins.contains(&"https://notes.example.com".to_string()));
        assert!(origins.contains(&"http://localhost:9000".to_string()));
        assert!(!origins.contains(&"https://evil.example.com".to_string()));
    }

    #[test]
    fn only_loopback_may_start_without_a_credential() {
        let open: SocketAddr = "0.0.0.0:8177".parse().unwrap();
        let local: SocketAddr = "127.0.0.1:8177".parse().unwrap();
        assert!(check_exposure(&open, false).is_err());
        assert!(check_exposure(&open, true).is_ok());
        assert!(check_exposure(&local, false).is_ok());
    }

    #[test]
    fn bearer_tokens_are_read_from_the_authorization_header() {
        let mut headers = HeaderMap::new();
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("bearer  abc "));
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&headers), None);
    }
}
