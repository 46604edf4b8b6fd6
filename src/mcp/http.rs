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

use std::collections::HashMap;

use axum::extract::{Form, Path as UrlPath, Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use base64::Engine;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::server::{termination, GitmemServer, Running, Served};
use super::tools::ToolCtx;
use crate::service::auth::{same_secret, Grant, TokenStore};
use crate::service::issuer::ExternalIssuer;
use crate::service::oauth::{
    Approval, AuthorizationRequest, AuthorizeError, OAuthError, OAuthServer, RegistrationRequest,
};
use crate::service::read::ReadRefusal;
use crate::service::{App, Outcome};

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
    /// Serve the built-in OAuth authorization server (`--no-oauth` turns it off).
    pub oauth: bool,
    /// Delegate OAuth to this external OpenID provider instead (JWTs checked against its keys).
    pub oauth_issuer: Option<String>,
}

/// The credentials a request may present.
struct Credentials {
    tokens: Vec<String>,
    /// Printed at start when no other credential exists (loopback only).
    one_time: Option<String>,
    store: TokenStore,
    oauth: Option<Arc<OAuthServer>>,
    issuer: Option<Arc<ExternalIssuer>>,
}

impl Credentials {
    fn grant(&self, presented: &str) -> crate::service::Result<Option<Grant>> {
        // Every configured secret is compared, so the time taken does not say which matched.
        let given = self
            .tokens
            .iter()
            .fold(false, |hit, t| hit | same_secret(presented, t));
        let once = self
            .one_time
            .as_deref()
            .is_some_and(|t| same_secret(presented, t));
        let stored = self.store.verify(presented)?;
        let issued = self
            .oauth
            .as_ref()
            .and_then(|o| o.grant_for(presented))
            .or_else(|| {
                let issuer = self.issuer.as_ref()?;
                issuer
                    .check(presented)
                    .map_err(|why| tracing::info!("an issuer token was refused: {why}"))
                    .ok()
            });
        Ok(if given {
            Some(Grant::full("command-line token"))
        } else if once {
            Some(Grant::full("one-time token"))
        } else {
            stored.or(issued)
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
    max_request_bytes: usize,
    /// RFC 9728 metadata, when an authorization server (built in or external) is in use.
    resource_metadata: Option<serde_json::Value>,
    public_url: String,
}

/// The id of one HTTP request, in its logs and its `x-request-id` header.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// Why a server may not start: said before anything is served.
fn check_exposure(bound: &SocketAddr, has_credential: bool) -> anyhow::Result<()> {
    if !bound.ip().is_loopback() && !has_credential {
        anyhow::bail!(
            "refusing to serve on {bound} without a credential: anyone who can reach this address could read and change every note. \
             Create a token first (`gitmem token create NAME`), set the owner password for OAuth sign-ins (`gitmem auth set-password`), \
             or pass --auth-token / --auth-token-file / GITMEM_AUTH_TOKEN; a one-time code is offered only on a loopback address"
        );
    }
    Ok(())
}

/// `gitmem serve --transport http`.
pub async fn serve_http(root: &std::path::Path, options: HttpOptions) -> anyhow::Result<()> {
    let store = TokenStore::at(root);
    let has_credential = !options.tokens.is_empty()
        || !store.list()?.is_empty()
        || options.oauth_issuer.is_some()
        || (options.oauth && crate::service::oauth::has_owner_password(root));
    let listener = tokio::net::TcpListener::bind(&options.bind)
        .await
        .map_err(|e| anyhow::anyhow!("cannot listen on {}: {e}", options.bind))?;
    let bound = listener.local_addr()?;
    check_exposure(&bound, has_credential)?;

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
    let resource = format!("{public_url}/mcp");
    let issuer = match options.oauth_issuer.clone() {
        Some(url) => {
            let audience = resource.clone();
            let found =
                tokio::task::spawn_blocking(move || ExternalIssuer::discover(&url, &audience))
                    .await??;
            Some(Arc::new(found))
        }
        None => None,
    };
    let oauth = if options.oauth && issuer.is_none() {
        Some(Arc::new(OAuthServer::open(
            root,
            &public_url,
            one_time.clone(),
        )?))
    } else {
        None
    };
    let resource_metadata = match (&oauth, &issuer) {
        (Some(oauth), _) => Some(oauth.resource_metadata()),
        (None, Some(issuer)) => Some(json!({
            "resource": resource,
            "authorization_servers": [issuer.issuer],
            "bearer_methods_supported": ["header"],
            "scopes_supported": crate::service::oauth::SCOPES,
            "resource_name": "gitmem",
        })),
        (None, None) => None,
    };
    let running = Running::start(root, &options.served, Some(public_url.clone())).await?;
    let state = Arc::new(HttpState {
        app: running.app.clone(),
        ctx: running.ctx.clone(),
        credentials: Credentials {
            tokens: options.tokens.clone(),
            one_time: one_time.clone(),
            store,
            oauth,
            issuer,
        },
        hosts: allowed_hosts(&bound, &public_url, &options.allowed_hosts),
        origins: allowed_origins(&bound, &public_url, &options.allowed_origins),
        request_timeout: options.request_timeout,
        max_request_bytes: options.max_request_bytes,
        resource_metadata,
        public_url: public_url.clone(),
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
    let (ctx, notifier) = (running.ctx.clone(), running.notifier.clone());
    let mcp = StreamableHttpService::new(
        move || Ok(GitmemServer::new(ctx.clone(), deadline, &notifier)),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = Router::new()
        .route("/notes/{*permalink}", get(note))
        .route_service("/mcp", mcp)
        .route(
            "/.well-known/oauth-protected-resource",
            get(protected_resource_metadata),
        )
        .route(
            "/.well-known/oauth-protected-resource/mcp",
            get(protected_resource_metadata),
        )
        .route(
            "/.well-known/oauth-authorization-server",
            get(authorization_server_metadata),
        )
        .route("/oauth/register", post(register))
        .route("/oauth/authorize", get(authorize).post(approve))
        .route("/oauth/token", post(token))
        .route("/oauth/revoke", post(revoke))
        .layer(middleware::from_fn_with_state(state.clone(), guard))
        .route("/healthz", get(healthz))
        .with_state(state);

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
    origins.extend(
        extra
            .iter()
            .map(|o| o.trim_end_matches('/').to_ascii_lowercase()),
    );
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

/// A 401 that tells an OAuth client where to find the authorization server (RFC 9728).
fn unauthorized(state: &HttpState, description: &str) -> Response {
    let mut response = refusal(StatusCode::UNAUTHORIZED, "invalid_token", description);
    let mut challenge = "Bearer realm=\"gitmem\", error=\"invalid_token\"".to_string();
    if state.resource_metadata.is_some() {
        challenge.push_str(&format!(
            ", resource_metadata=\"{}/.well-known/oauth-protected-resource\"",
            state.public_url
        ));
    }
    if let Ok(value) = HeaderValue::from_str(&challenge) {
        response
            .headers_mut()
            .insert(header::WWW_AUTHENTICATE, value);
    }
    response
}

/// Paths anyone may call: OAuth discovery and the authorization server's own endpoints.
fn is_public(path: &str) -> bool {
    path.starts_with("/.well-known/") || path.starts_with("/oauth/")
}

async fn guard(State(state): State<Arc<HttpState>>, mut request: Request, next: Next) -> Response {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let started = Instant::now();
    let method = request.method().clone();
    let path = request.uri().path().to_string();
    let span = tracing::info_span!("request", id = %id, %method, %path);
    let _entered = span.enter();
    let mut response = match admit(&state, &request) {
        Err(response) => *response,
        Ok(grant) => {
            if let Some(grant) = grant {
                tracing::debug!(caller = %grant.name, "admitted");
                request.extensions_mut().insert(grant);
            }
            request.extensions_mut().insert(RequestId(id.clone()));
            let ends_session = request.method() == axum::http::Method::DELETE;
            let bounded = tokio::time::timeout(state.request_timeout, async {
                match bounded_body(request, state.max_request_bytes).await {
                    Ok(request) => next.run(request).await,
                    Err(response) => response,
                }
            });
            match bounded.await {
                // rmcp accepts a session's DELETE with 202; clients (the Python SDK among
                // them) expect the 200 or 204 of a completed deletion, which it is.
                Ok(response) if ends_session && response.status() == StatusCode::ACCEPTED => {
                    StatusCode::NO_CONTENT.into_response()
                }
                Ok(response) => response,
                Err(_) => refusal(
                    StatusCode::GATEWAY_TIMEOUT,
                    "timeout",
                    &format!("no answer within {} s", state.request_timeout.as_secs_f64()),
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

/// How much of an oversized body is still read, and thrown away, before the 413 goes out.
/// A socket closed with unread input is reset, and on the client's side the reset destroys the
/// answer it has not read yet: a client that sends its whole body before reading (most do)
/// would see a broken pipe instead of the 413. Past this bound the connection is closed
/// unread, as nginx's lingering close gives up.
const DRAIN_BYTES: u64 = 64 * 1024 * 1024;
const DRAIN_TIME: Duration = Duration::from_secs(10);

/// The request with its body read into memory, or a 413 once the body passes `limit` bytes
/// (declared or read). A client that waits for `100 Continue` is answered before it sends.
async fn bounded_body(request: Request, limit: usize) -> Result<Request, Response> {
    let too_large = || {
        let mut response = refusal(
            StatusCode::PAYLOAD_TOO_LARGE,
            "request_too_large",
            &format!("the request body exceeds {limit} bytes"),
        );
        response
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        response
    };
    let headers = request.headers();
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse::<u64>().ok());
    if let Some(declared) = declared.filter(|&n| n > limit as u64) {
        let waits_for_continue = headers
            .get(header::EXPECT)
            .is_some_and(|v| v.as_bytes().eq_ignore_ascii_case(b"100-continue"));
        if !waits_for_continue && declared <= DRAIN_BYTES {
            drain(request.into_body()).await;
        }
        return Err(too_large());
    }
    let (parts, mut body) = request.into_parts();
    let mut collected = Vec::new();
    while let Some(chunk) = next_chunk(&mut body).await {
        let Ok(chunk) = chunk else {
            return Err(refusal(
                StatusCode::BAD_REQUEST,
                "invalid_request",
                "the request body could not be read",
            ));
        };
        if collected.len() + chunk.len() > limit {
            drain(body).await;
            return Err(too_large());
        }
        collected.extend_from_slice(&chunk);
    }
    Ok(Request::from_parts(
        parts,
        axum::body::Body::from(collected),
    ))
}

/// Reads and drops what is left of a body, within [`DRAIN_BYTES`] and [`DRAIN_TIME`].
async fn drain(mut body: axum::body::Body) {
    let _ = tokio::time::timeout(DRAIN_TIME, async {
        let mut read = 0u64;
        while let Some(Ok(chunk)) = next_chunk(&mut body).await {
            read += chunk.len() as u64;
            if read > DRAIN_BYTES {
                break;
            }
        }
    })
    .await;
}

async fn next_chunk(body: &mut axum::body::Body) -> Option<Result<axum::body::Bytes, axum::Error>> {
    use axum::body::HttpBody;
    loop {
        let frame =
            std::future::poll_fn(|cx| std::pin::Pin::new(&mut *body).poll_frame(cx)).await?;
        match frame {
            Ok(frame) => {
                if let Ok(data) = frame.into_data() {
                    return Some(Ok(data));
                }
            }
            Err(e) => return Some(Err(e)),
        }
    }
}

/// The caller's grant (none on the public OAuth paths), or the response that turns the request
/// away.
fn admit(state: &HttpState, request: &Request) -> Result<Option<Grant>, Box<Response>> {
    let headers = request.headers();
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .or_else(|| request.uri().authority().map(|a| a.as_str()))
        .unwrap_or("");
    if !host_allowed(host, &state.hosts) {
        tracing::warn!(host, "refused: unknown Host");
        return Err(Box::new(refusal(
            StatusCode::FORBIDDEN,
            "forbidden_host",
            "this Host is not served; add it with --allow-host or --public-url",
        )));
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("").trim_end_matches('/');
        if !state.origins.iter().any(|o| o.eq_ignore_ascii_case(origin)) {
            tracing::warn!(origin, "refused: unknown Origin");
            return Err(Box::new(refusal(
                StatusCode::FORBIDDEN,
                "forbidden_origin",
                "requests from this Origin are not accepted; add it with --allow-origin",
            )));
        }
    }
    if is_public(request.uri().path()) {
        return Ok(None);
    }
    let Some(token) = bearer(headers) else {
        return Err(Box::new(unauthorized(
            state,
            "an Authorization: Bearer token is required",
        )));
    };
    let grant = match state.credentials.grant(token) {
        Ok(Some(grant)) => grant,
        Ok(None) => {
            return Err(Box::new(unauthorized(
                state,
                "the token is not valid (unknown, expired or revoked)",
            )))
        }
        Err(e) => {
            tracing::error!("reading the token store failed: {e}");
            return Err(Box::new(refusal(
                StatusCode::INTERNAL_SERVER_ERROR,
                "server_error",
                "the server could not check the token",
            )));
        }
    };
    if let Some(served) = &state.ctx.constrained {
        if !grant.projects.is_empty() && !grant.projects.contains(served) {
            let wanted = grant.projects.join(", ");
            return Err(Box::new(refusal(
                StatusCode::FORBIDDEN,
                "insufficient_scope",
                &format!("the token is for {wanted}; this server serves only '{served}'"),
            )));
        }
    }
    Ok(Some(grant))
}

fn oauth_of(state: &HttpState) -> Result<Arc<OAuthServer>, Box<Response>> {
    state.credentials.oauth.clone().ok_or_else(|| {
        Box::new(refusal(
            StatusCode::NOT_FOUND,
            "not_found",
            "this server runs without its OAuth authorization server (--no-oauth)",
        ))
    })
}

fn oauth_error(error: OAuthError) -> Response {
    let status = StatusCode::from_u16(error.status()).unwrap_or(StatusCode::BAD_REQUEST);
    (
        status,
        [(header::CACHE_CONTROL, "no-store")],
        Json(error.body()),
    )
        .into_response()
}

/// Client credentials from `Authorization: Basic` (client_secret_basic).
fn basic_credentials(headers: &HeaderMap) -> Option<(String, String)> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, encoded) = value.split_once(' ')?;
    if !scheme.eq_ignore_ascii_case("basic") {
        return None;
    }
    let decoded = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .ok()?;
    let text = String::from_utf8(decoded).ok()?;
    let (id, secret) = text.split_once(':')?;
    // Form encoding (RFC 6749 section 2.3.1): `+` is a space, a literal plus is `%2B`.
    let decode = |part: &str| crate::note::parse::percent_decode(&part.replace('+', " "));
    Some((decode(id), decode(secret)))
}

async fn protected_resource_metadata(State(state): State<Arc<HttpState>>) -> Response {
    match &state.resource_metadata {
        Some(metadata) => Json(metadata.clone()).into_response(),
        None => refusal(
            StatusCode::NOT_FOUND,
            "not_found",
            "this server runs without OAuth (--no-oauth)",
        ),
    }
}

async fn authorization_server_metadata(State(state): State<Arc<HttpState>>) -> Response {
    match oauth_of(&state) {
        Ok(oauth) => Json(oauth.metadata()).into_response(),
        Err(response) => *response,
    }
}

async fn register(State(state): State<Arc<HttpState>>, body: axum::body::Bytes) -> Response {
    let request: RegistrationRequest = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) => {
            return oauth_error(OAuthError {
                error: "invalid_client_metadata",
                description: format!("the registration is not valid JSON: {e}"),
            })
        }
    };
    let (client, secret) = match on_oauth(&state, move |oauth| oauth.register(request)).await {
        Ok(registered) => registered,
        Err(response) => return *response,
    };
    let mut answer = json!({
        "client_id": client.client_id,
        "client_id_issued_at": client.client_id_issued_at,
        "redirect_uris": client.redirect_uris,
        "token_endpoint_auth_method": client.token_endpoint_auth_method,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    });
    if let Some(name) = &client.client_name {
        answer["client_name"] = json!(name);
    }
    if let Some(secret) = secret {
        answer["client_secret"] = json!(secret);
        answer["client_secret_expires_at"] = json!(0);
    }
    (
        StatusCode::CREATED,
        [(header::CACHE_CONTROL, "no-store")],
        Json(answer),
    )
        .into_response()
}

fn html(status: StatusCode, page: String) -> Response {
    (
        status,
        [
            (header::CONTENT_TYPE, "text/html; charset=utf-8"),
            (header::CACHE_CONTROL, "no-store"),
            (header::X_FRAME_OPTIONS, "DENY"),
        ],
        page,
    )
        .into_response()
}

fn redirect(to: &str) -> Response {
    match HeaderValue::from_str(to) {
        Ok(location) => (
            StatusCode::FOUND,
            [
                (header::LOCATION, location),
                (header::CACHE_CONTROL, HeaderValue::from_static("no-store")),
            ],
        )
            .into_response(),
        Err(_) => html(
            StatusCode::BAD_REQUEST,
            crate::render::oauth::error_page("the redirect URI cannot be sent back"),
        ),
    }
}

/// Checks an authorization request; the page, redirect or error it leads to.
async fn checked_request(
    oauth: &Arc<OAuthServer>,
    params: HashMap<String, String>,
) -> Result<AuthorizationRequest, Box<Response>> {
    let oauth = oauth.clone();
    let checked = tokio::task::spawn_blocking(move || oauth.check_authorization(&params))
        .await
        .map_err(|e| {
            Box::new(html(
                StatusCode::INTERNAL_SERVER_ERROR,
                crate::render::oauth::error_page(&e.to_string()),
            ))
        })?;
    checked.map_err(|error| {
        Box::new(match error {
            AuthorizeError::Page(message) => html(
                StatusCode::BAD_REQUEST,
                crate::render::oauth::error_page(&message),
            ),
            AuthorizeError::Redirect(to) => redirect(&to),
        })
    })
}

/// `GET /oauth/authorize`: the approval page.
async fn authorize(
    State(state): State<Arc<HttpState>>,
    Query(params): Query<HashMap<String, String>>,
) -> Response {
    let oauth = match oauth_of(&state) {
        Ok(oauth) => oauth,
        Err(response) => return *response,
    };
    match checked_request(&oauth, params).await {
        Ok(request) => html(
            StatusCode::OK,
            crate::render::oauth::approval_page(&request, "/oauth/authorize", None),
        ),
        Err(response) => *response,
    }
}

/// `POST /oauth/authorize`: the owner's answer.
async fn approve(
    State(state): State<Arc<HttpState>>,
    Form(mut form): Form<HashMap<String, String>>,
) -> Response {
    let oauth = match oauth_of(&state) {
        Ok(oauth) => oauth,
        Err(response) => return *response,
    };
    let secret = form.remove("secret").unwrap_or_default();
    let approved = form.remove("decision").as_deref() == Some("approve");
    let request = match checked_request(&oauth, form).await {
        Ok(request) => request,
        Err(response) => return *response,
    };
    let asked = request.clone();
    match on_oauth(&state, move |oauth| {
        oauth.approve(&asked, approved, &secret)
    })
    .await
    {
        Ok(Approval::Redirect(to)) => redirect(&to),
        Ok(Approval::Retry(message)) => html(
            StatusCode::UNAUTHORIZED,
            crate::render::oauth::approval_page(&request, "/oauth/authorize", Some(&message)),
        ),
        Err(response) => *response,
    }
}

/// Runs `work` on the authorization server off the async threads; a failure is the OAuth
/// error response.
async fn on_oauth<T: Send + 'static>(
    state: &HttpState,
    work: impl FnOnce(&OAuthServer) -> Result<T, OAuthError> + Send + 'static,
) -> Result<T, Box<Response>> {
    let oauth = oauth_of(state)?;
    match tokio::task::spawn_blocking(move || work(&oauth)).await {
        Ok(Ok(answer)) => Ok(answer),
        Ok(Err(error)) => Err(Box::new(oauth_error(error))),
        Err(e) => Err(Box::new(oauth_error(OAuthError {
            error: "server_error",
            description: e.to_string(),
        }))),
    }
}

/// `POST /oauth/token`.
async fn token(
    State(state): State<Arc<HttpState>>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let basic = basic_credentials(&headers);
    match on_oauth(&state, move |oauth| oauth.token(&form, basic)).await {
        Ok(answer) => (
            StatusCode::OK,
            [
                (header::CACHE_CONTROL, "no-store"),
                (header::PRAGMA, "no-cache"),
            ],
            Json(answer),
        )
            .into_response(),
        Err(response) => *response,
    }
}

/// `POST /oauth/revoke` (RFC 7009): 200 whether or not the token was known.
async fn revoke(
    State(state): State<Arc<HttpState>>,
    headers: HeaderMap,
    Form(form): Form<HashMap<String, String>>,
) -> Response {
    let basic = basic_credentials(&headers);
    match on_oauth(&state, move |oauth| oauth.revoke(&form, basic)).await {
        Ok(()) => StatusCode::OK.into_response(),
        Err(response) => *response,
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
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_static("bearer  abc "),
        );
        assert_eq!(bearer(&headers), Some("abc"));
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Basic abc"));
        assert_eq!(bearer(&headers), None);
        headers.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer "));
        assert_eq!(bearer(&headers), None);
    }
}
