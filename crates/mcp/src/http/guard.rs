//! The guard every request but `/healthz` passes, in this order: a request id and a log line,
//! the `Host` and `Origin` checks (DNS rebinding), the bearer token turned into a [`Grant`], a
//! bound on the body, and a time limit. The grant rides in the request's extensions.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;
use tracing::Instrument;

use super::HttpState;
use crate::server::RequestId;
use auth::issuer::ExternalIssuer;
use auth::oauth::OAuthServer;
use auth::{same_secret, Grant, TokenStore};

/// The credentials a request may present.
pub(super) struct Credentials {
    pub tokens: Vec<String>,
    /// Printed at start when no other credential exists (loopback only).
    pub one_time: Option<String>,
    pub store: TokenStore,
    pub oauth: Option<Arc<OAuthServer>>,
    pub issuer: Option<Arc<ExternalIssuer>>,
}

impl Credentials {
    fn grant(&self, presented: &str) -> auth::Result<Option<Grant>> {
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

fn host_of(url: &str) -> Option<String> {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    let authority = rest.split(['/', '?', '#']).next()?;
    Some(authority.to_ascii_lowercase())
}

/// Hosts (`name` or `name:port`) a request may name: loopback, the bound address, the public
/// URL's host and the configured ones.
pub(super) fn allowed_hosts(bound: &SocketAddr, public_url: &str, extra: &[String]) -> Vec<String> {
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
pub(super) fn allowed_origins(
    bound: &SocketAddr,
    public_url: &str,
    extra: &[String],
) -> Vec<String> {
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

pub(super) fn refusal(status: StatusCode, error: &str, description: &str) -> Response {
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

pub(super) async fn guard(
    State(state): State<Arc<HttpState>>,
    request: Request,
    next: Next,
) -> Response {
    let id = uuid::Uuid::new_v4().simple().to_string();
    let span = tracing::info_span!(
        "request",
        id = %id,
        method = %request.method(),
        path = %request.uri().path()
    );
    // The span goes with the future, never entered across an await: a guard held over an
    // await stays on the thread while other requests run there, and each of their log lines
    // then carried every such span before it (the request log once cost a fifth of the CPU
    // of a server under 16 writers).
    answer(state, request, next, id).instrument(span).await
}

async fn answer(state: Arc<HttpState>, mut request: Request, next: Next, id: String) -> Response {
    let started = Instant::now();
    let path = request.uri().path().to_string();
    let mut response = match admit(&state, &request) {
        Err(response) => *response,
        Ok(grant) => {
            if let Some(grant) = grant {
                tracing::debug!(caller = %grant.name, "admitted");
                request.extensions_mut().insert(grant);
            }
            request.extensions_mut().insert(RequestId(id.clone()));
            let ends_session = request.method() == axum::http::Method::DELETE;
            let bounded = tokio::time::timeout(state.limits.request_timeout, async {
                match bounded_body(request, state.limits.max_request_bytes).await {
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
                    &format!(
                        "no answer within {} s",
                        state.limits.request_timeout.as_secs_f64()
                    ),
                ),
            }
        }
    };
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert("x-request-id", value);
    }
    let elapsed = started.elapsed();
    state.app.metrics().request(route(&path), elapsed);
    tracing::info!(
        status = response.status().as_u16(),
        ms = elapsed.as_secs_f64() * 1000.0,
        "answered"
    );
    response
}

/// The route a path belongs to, as `/metrics` names it: a fixed set, so a client cannot make
/// a new series with every path it sends.
fn route(path: &str) -> &'static str {
    match path {
        "/mcp" => "mcp",
        "/ingest" => "ingest",
        "/metrics" => "metrics",
        _ if path.starts_with("/notes/") => "notes",
        _ if is_public(path) => "oauth",
        _ => "other",
    }
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
    fn requests_are_timed_by_a_fixed_set_of_routes() {
        for (path, expected) in [
            ("/mcp", "mcp"),
            ("/ingest", "ingest"),
            ("/metrics", "metrics"),
            ("/notes/main/a-note", "notes"),
            ("/oauth/token", "oauth"),
            ("/.well-known/oauth-protected-resource", "oauth"),
            ("/mcp/extra", "other"),
            ("/a-path-no-one-serves", "other"),
        ] {
            assert_eq!(route(path), expected, "{path}");
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
