//! gitmem's own OAuth 2.1 authorization server, for a self-hosted server with one owner, as
//! ChatGPT and Claude.ai connectors require: dynamic client registration (RFC 7591) and client
//! ID metadata documents, the authorization-code flow with PKCE S256 only, an approval step
//! where the owner proves who they are (a password set by `gitmem auth set-password`, or the
//! one-time code `gitmem serve` prints), short-lived access tokens, rotating refresh tokens,
//! revocation (RFC 7009), and tokens bound to this server's resource (RFC 8707).
//!
//! Nothing here speaks HTTP: `mcp::http` parses requests and renders these answers. Clients
//! and sessions live in `<root>/auth/oauth.json`; tokens are stored as SHA-256 hashes only.
//! Authorization codes live in memory for five minutes and are single-use.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use base64::Engine;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use super::auth::{digest, same_digest, same_secret, write_private, Grant};
use super::{Result, ServiceError};

/// An access token's life: short, since a refresh gets another.
pub const ACCESS_TTL_SECS: i64 = 3600;
/// A refresh token's life; each use replaces it.
pub const REFRESH_TTL_SECS: i64 = 30 * 24 * 3600;
/// An authorization code's life.
pub const CODE_TTL_SECS: i64 = 300;
/// `read` allows the tools that change nothing; `write` the others too.
pub const SCOPES: [&str; 2] = ["read", "write"];
/// Failed approvals accepted per minute before the page asks to wait.
const APPROVAL_FAILURES_PER_MINUTE: usize = 10;

/// An OAuth error response (RFC 6749 section 5.2).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuthError {
    pub error: &'static str,
    pub description: String,
}

impl OAuthError {
    fn new(error: &'static str, description: impl Into<String>) -> Self {
        OAuthError {
            error,
            description: description.into(),
        }
    }

    /// The HTTP status the error is answered with.
    pub fn status(&self) -> u16 {
        match self.error {
            "invalid_client" => 401,
            "server_error" => 500,
            _ => 400,
        }
    }

    pub fn body(&self) -> Value {
        json!({"error": self.error, "error_description": self.description})
    }
}

fn server_error(e: ServiceError) -> OAuthError {
    tracing::error!("oauth: {e}");
    OAuthError::new(
        "server_error",
        "the authorization server failed; see its log",
    )
}

/// A registered client (or one described by its client ID metadata document).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Client {
    pub client_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client_name: Option<String>,
    pub redirect_uris: Vec<String>,
    /// `none` (public client), `client_secret_post` or `client_secret_basic`.
    pub token_endpoint_auth_method: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_sha256: Option<String>,
    pub client_id_issued_at: i64,
}

impl Client {
    fn label(&self) -> String {
        self.client_name
            .clone()
            .unwrap_or_else(|| self.client_id.clone())
    }
}

/// A dynamic client registration request (RFC 7591); unknown fields are ignored.
#[derive(Debug, Clone, Default, Deserialize)]
pub struct RegistrationRequest {
    #[serde(default)]
    pub redirect_uris: Vec<String>,
    pub client_name: Option<String>,
    pub token_endpoint_auth_method: Option<String>,
    pub grant_types: Option<Vec<String>>,
    pub response_types: Option<Vec<String>>,
}

/// A validated authorization request, waiting for the owner's approval.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuthorizationRequest {
    pub client_id: String,
    pub client_label: String,
    pub redirect_uri: String,
    pub code_challenge: String,
    pub state: Option<String>,
    pub scope: String,
    pub resource: String,
}

impl AuthorizationRequest {
    /// The parameters that reproduce this request (the approval form posts them back).
    pub fn params(&self) -> Vec<(&'static str, String)> {
        let mut params = vec![
            ("response_type", "code".to_string()),
            ("client_id", self.client_id.clone()),
            ("redirect_uri", self.redirect_uri.clone()),
            ("code_challenge", self.code_challenge.clone()),
            ("code_challenge_method", "S256".to_string()),
            ("scope", self.scope.clone()),
            ("resource", self.resource.clone()),
        ];
        if let Some(state) = &self.state {
            params.push(("state", state.clone()));
        }
        params
    }
}

/// Why an authorization request cannot go on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthorizeError {
    /// The client or its redirect URI is unknown: tell the person at the browser, never
    /// redirect (RFC 6749 section 4.1.2.1).
    Page(String),
    /// Anything else goes back to the client at this URL.
    Redirect(String),
}

/// The answer to the owner's approval form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Approval {
    /// Send the browser here (the code, or `access_denied`).
    Redirect(String),
    /// Show the form again with this message.
    Retry(String),
}

struct PendingCode {
    request: AuthorizationRequest,
    expires: i64,
}

/// One grant: a client's access to this server, from an approval until it is revoked or its
/// refresh token expires.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Session {
    client_id: String,
    client_label: String,
    scope: String,
    resource: String,
    refresh_sha256: String,
    refresh_expires: i64,
    /// Refresh tokens this session has replaced: one presented again means it was stolen,
    /// and the whole session ends (OAuth 2.1 section 4.3.1).
    #[serde(default)]
    retired_refresh: Vec<String>,
    access_sha256: String,
    access_expires: i64,
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct Stored {
    #[serde(default)]
    clients: Vec<Client>,
    #[serde(default)]
    sessions: Vec<Session>,
}

/// Registration is open to anyone (as MCP clients expect), so the list is bounded: beyond
/// this many clients, the oldest without a session are forgotten.
const MAX_CLIENTS: usize = 500;

fn forget_idle_clients(stored: &mut Stored) {
    while stored.clients.len() > MAX_CLIENTS {
        let sessions = &stored.sessions;
        let Some(idle) = stored
            .clients
            .iter()
            .position(|c| !sessions.iter().any(|s| s.client_id == c.client_id))
        else {
            return;
        };
        stored.clients.remove(idle);
    }
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
    codes: Mutex<HashMap<String, PendingCode>>,
    documents: Mutex<HashMap<String, Client>>,
    failures: Mutex<Vec<Instant>>,
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn random_secret(prefix: &str) -> std::result::Result<String, OAuthError> {
    super::auth::random_secret(prefix).map_err(server_error)
}

/// The owner's password hash, in `<root>/auth/owner-password` (a PHC string).
fn password_file(root: &Path) -> PathBuf {
    root.join("auth").join("owner-password")
}

/// True when an owner password is set under `root`.
pub fn has_owner_password(root: &Path) -> bool {
    password_file(root).is_file()
}

/// Sets the owner's password (Argon2id); at least 8 characters.
pub fn set_owner_password(root: &Path, password: &str) -> Result<()> {
    if password.chars().count() < 8 {
        return Err(ServiceError::invalid(
            "the password must have at least 8 characters",
        ));
    }
    let mut salt = [0u8; 16];
    getrandom::getrandom(&mut salt)
        .map_err(|e| ServiceError::inconsistent(format!("no randomness available: {e}")))?;
    let salt = SaltString::encode_b64(&salt)
        .map_err(|e| ServiceError::inconsistent(format!("salt: {e}")))?;
    let hash = Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map_err(|e| ServiceError::inconsistent(format!("hashing the password: {e}")))?
        .to_string();
    write_private(&password_file(root), hash.as_bytes())
}

fn password_matches(root: &Path, password: &str) -> bool {
    let Ok(stored) = std::fs::read_to_string(password_file(root)) else {
        return false;
    };
    PasswordHash::new(stored.trim()).is_ok_and(|hash| {
        Argon2::default()
            .verify_password(password.as_bytes(), &hash)
            .is_ok()
    })
}

/// True for `http://localhost`, `http://127.0.0.1` and `http://[::1]`, any port.
fn is_loopback_http(uri: &str) -> bool {
    let Some(rest) = uri.strip_prefix("http://") else {
        return false;
    };
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host = match authority.rsplit_once(':') {
        Some((host, port)) if port.chars().all(|c| c.is_ascii_digit()) => host,
        _ => authority,
    };
    matches!(host, "localhost" | "127.0.0.1" | "[::1]")
}

/// A redirect URI a client may register: https, loopback http (native apps, RFC 8252), or a
/// private-use scheme; never a fragment.
fn redirect_uri_allowed(uri: &str) -> bool {
    let Some((scheme, rest)) = uri.split_once(':') else {
        return false;
    };
    !rest.is_empty()
        && !uri.contains('#')
        && match scheme.to_ascii_lowercase().as_str() {
            "https" => rest.starts_with("//") && rest.len() > 2,
            "http" => is_loopback_http(uri),
            "javascript" | "data" | "file" | "vbscript" => false,
            other => other
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)),
        }
}

/// Loopback redirect URIs match on any port (RFC 8252 section 7.3); others exactly.
fn redirect_matches(registered: &str, given: &str) -> bool {
    if registered == given {
        return true;
    }
    let without_port = |uri: &str| -> Option<String> {
        let rest = uri.strip_prefix("http://")?;
        let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
        let host = authority.rsplit_once(':').map_or(authority, |(h, _)| h);
        Some(format!("http://{host}{path}"))
    };
    is_loopback_http(registered)
        && is_loopback_http(given)
        && without_port(registered) == without_port(given)
}

fn with_query(uri: &str, params: &[(&str, &str)]) -> String {
    let mut url = uri.to_string();
    let mut separator = if uri.contains('?') { '&' } else { '?' };
    for (key, value) in params {
        url.push(separator);
        url.push_str(key);
        url.push('=');
        url.push_str(&percent_encode(value));
        separator = '&';
    }
    url
}

/// Percent-encodes everything but RFC 3986's unreserved characters.
pub fn percent_encode(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    for byte in value.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~".contains(&byte) {
            out.push(byte as char);
        } else {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// `BASE64URL(SHA256(verifier))`, the S256 code challenge (RFC 7636).
pub fn s256_challenge(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

/// The scopes asked for, normalised; none means both.
fn normalise_scope(asked: Option<&str>) -> std::result::Result<String, String> {
    let asked: Vec<&str> = asked.unwrap_or("").split_whitespace().collect();
    if asked.is_empty() {
        return Ok(SCOPES.join(" "));
    }
    if let Some(unknown) = asked.iter().find(|s| !SCOPES.contains(s)) {
        return Err(format!(
            "unknown scope '{unknown}'; this server offers: {}",
            SCOPES.join(", ")
        ));
    }
    Ok(SCOPES
        .iter()
        .filter(|s| asked.contains(s))
        .copied()
        .collect::<Vec<_>>()
        .join(" "))
}

impl OAuthServer {
    /// The authorization server of `root`, for `issuer` (the public base URL). `one_time` is
    /// the code `gitmem serve` printed, accepted on the approval page besides the password.
    pub fn open(root: &Path, issuer: &str, one_time: Option<String>) -> Result<Self> {
        let dir = root.join("auth");
        let path = dir.join("oauth.json");
        let stored = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| {
                ServiceError::inconsistent(format!("{} is not readable: {e}", path.display()))
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Stored::default(),
            Err(e) => return Err(e.into()),
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
        let bytes = serde_json::to_vec_pretty(&*stored)
            .map_err(|e| server_error(ServiceError::inconsistent(e.to_string())))?;
        write_private(&self.dir.join("oauth.json"), &bytes).map_err(server_error)
    }

    /// RFC 8414 metadata.
    pub fn metadata(&self) -> Value {
        json!({
            "issuer": self.issuer,
            "authorization_endpoint": format!("{}/oauth/authorize", self.issuer),
            "token_endpoint": format!("{}/oauth/token", self.issuer),
            "registration_endpoint": format!("{}/oauth/register", self.issuer),
            "revocation_endpoint": format!("{}/oauth/revoke", self.issuer),
            "response_types_supported": ["code"],
            "response_modes_supported": ["query"],
            "grant_types_supported": ["authorization_code", "refresh_token"],
            "code_challenge_methods_supported": ["S256"],
            "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
            "revocation_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
            "scopes_supported": SCOPES,
            "client_id_metadata_document_supported": true,
            "authorization_response_iss_parameter_supported": true,
        })
    }

    /// RFC 9728 protected resource metadata.
    pub fn resource_metadata(&self) -> Value {
        json!({
            "resource": self.resource,
            "authorization_servers": [self.issuer],
            "bearer_methods_supported": ["header"],
            "scopes_supported": SCOPES,
            "resource_name": "gitmem",
        })
    }

    /// Dynamic client registration (RFC 7591).
    pub fn register(
        &self,
        request: RegistrationRequest,
    ) -> std::result::Result<(Client, Option<String>), OAuthError> {
        let invalid_uri = |message: String| OAuthError::new("invalid_redirect_uri", message);
        if request.redirect_uris.is_empty() {
            return Err(invalid_uri("redirect_uris is required".into()));
        }
        if let Some(bad) = request
            .redirect_uris
            .iter()
            .find(|u| !redirect_uri_allowed(u))
        {
            return Err(invalid_uri(format!(
                "redirect URI '{bad}' is not allowed: use https, http on a loopback address, or an app's own scheme, without a fragment"
            )));
        }
        let method = request
            .token_endpoint_auth_method
            .clone()
            .unwrap_or_else(|| "client_secret_basic".to_string());
        if !["none", "client_secret_post", "client_secret_basic"].contains(&method.as_str()) {
            return Err(OAuthError::new(
                "invalid_client_metadata",
                format!("token_endpoint_auth_method '{method}' is not supported"),
            ));
        }
        let grants = request.grant_types.clone().unwrap_or_default();
        if let Some(g) = grants
            .iter()
            .find(|g| !["authorization_code", "refresh_token"].contains(&g.as_str()))
        {
            return Err(OAuthError::new(
                "invalid_client_metadata",
                format!("grant type '{g}' is not supported"),
            ));
        }
        if let Some(r) = request
            .response_types
            .iter()
            .flatten()
            .find(|r| *r != "code")
        {
            return Err(OAuthError::new(
                "invalid_client_metadata",
                format!("response type '{r}' is not supported"),
            ));
        }
        let secret = (method != "none")
            .then(|| random_secret("gmcs_"))
            .transpose()?;
        let client = Client {
            client_id: uuid::Uuid::new_v4().to_string(),
            client_name: request.client_name.filter(|n| !n.trim().is_empty()),
            redirect_uris: request.redirect_uris,
            token_endpoint_auth_method: method,
            secret_sha256: secret.as_deref().map(digest),
            client_id_issued_at: now(),
        };
        let mut stored = self.stored.lock().expect("oauth state");
        stored.clients.push(client.clone());
        forget_idle_clients(&mut stored);
        self.save(&mut stored)?;
        Ok((client, secret))
    }

    /// A client by id: registered, or described by the metadata document its URL serves.
    fn client(&self, client_id: &str) -> std::result::Result<Option<Client>, String> {
        if let Some(found) = self
            .stored
            .lock()
            .expect("oauth state")
            .clients
            .iter()
            .find(|c| c.client_id == client_id)
        {
            return Ok(Some(found.clone()));
        }
        // Metadata documents are https; plain http on loopback only for a server that is itself
        // plain http on loopback (development), so a public server never fetches from its own
        // machine's other services.
        let is_url = client_id.starts_with("https://")
            || (is_loopback_http(client_id) && is_loopback_http(&self.issuer));
        if !is_url {
            return Ok(None);
        }
        if let Some(cached) = self.documents.lock().expect("documents").get(client_id) {
            return Ok(Some(cached.clone()));
        }
        let client = fetch_client_document(client_id)?;
        self.documents
            .lock()
            .expect("documents")
            .insert(client_id.to_string(), client.clone());
        Ok(Some(client))
    }

    /// Validates an authorization request's parameters.
    pub fn check_authorization(
        &self,
        params: &HashMap<String, String>,
    ) -> std::result::Result<AuthorizationRequest, AuthorizeError> {
        let get = |k: &str| params.get(k).map(String::as_str).filter(|v| !v.is_empty());
        let client_id = get("client_id")
            .ok_or_else(|| AuthorizeError::Page("the request names no client_id".into()))?;
        let client = match self.client(client_id) {
            Ok(Some(client)) => client,
            Ok(None) => {
                return Err(AuthorizeError::Page(format!(
                    "the client '{client_id}' is not registered with this server"
                )))
            }
            Err(message) => return Err(AuthorizeError::Page(message)),
        };
        let redirect_uri = match get("redirect_uri") {
            Some(uri)
                if client
                    .redirect_uris
                    .iter()
                    .any(|r| redirect_matches(r, uri)) =>
            {
                uri
            }
            None if client.redirect_uris.len() == 1 => client.redirect_uris[0].as_str(),
            Some(uri) => {
                return Err(AuthorizeError::Page(format!(
                    "the redirect URI '{uri}' is not one the client registered"
                )))
            }
            None => {
                return Err(AuthorizeError::Page(
                    "the request names no redirect_uri".into(),
                ))
            }
        };
        let state = get("state").map(String::from);
        let back = |error: &str, description: &str| {
            let mut query = vec![("error", error), ("error_description", description)];
            if let Some(state) = &state {
                query.push(("state", state));
            }
            query.push(("iss", &self.issuer));
            AuthorizeError::Redirect(with_query(redirect_uri, &query))
        };
        if get("response_type") != Some("code") {
            return Err(back(
                "unsupported_response_type",
                "only response_type=code is supported",
            ));
        }
        let Some(challenge) = get("code_challenge") else {
            return Err(back(
                "invalid_request",
                "PKCE is required: send code_challenge with code_challenge_method=S256",
            ));
        };
        if get("code_challenge_method") != Some("S256") {
            return Err(back(
                "invalid_request",
                "only code_challenge_method=S256 is supported",
            ));
        }
        if challenge.len() != 43 {
            return Err(back(
                "invalid_request",
                "code_challenge must be a base64url SHA-256 (43 characters)",
            ));
        }
        let scope = normalise_scope(get("scope")).map_err(|m| back("invalid_scope", &m))?;
        let resource = match get("resource") {
            None => self.resource.clone(),
            Some(r) if self.names_this_resource(r) => self.resource.clone(),
            Some(r) => {
                return Err(back(
                    "invalid_target",
                    &format!(
                        "this server issues tokens for {} only, not {r}",
                        self.resource
                    ),
                ))
            }
        };
        Ok(AuthorizationRequest {
            client_id: client.client_id.clone(),
            client_label: client.label(),
            redirect_uri: redirect_uri.to_string(),
            code_challenge: challenge.to_string(),
            state,
            scope,
            resource,
        })
    }

    /// The resource parameter may name the MCP endpoint or the server's base URL.
    fn names_this_resource(&self, resource: &str) -> bool {
        let resource = resource.trim_end_matches('/');
        resource == self.resource || resource == self.issuer
    }

    /// The owner's answer on the approval page: `approve` with a secret, or a refusal.
    pub fn approve(
        &self,
        request: &AuthorizationRequest,
        approve: bool,
        secret: &str,
    ) -> std::result::Result<Approval, OAuthError> {
        let back = |params: Vec<(&str, &str)>| {
            let mut params = params;
            if let Some(state) = &request.state {
                params.push(("state", state));
            }
            params.push(("iss", &self.issuer));
            Approval::Redirect(with_query(&request.redirect_uri, &params))
        };
        if !approve {
            return Ok(back(vec![
                ("error", "access_denied"),
                ("error_description", "the owner declined"),
            ]));
        }
        {
            let mut failures = self.failures.lock().expect("failures");
            failures.retain(|t| t.elapsed() < Duration::from_secs(60));
            if failures.len() >= APPROVAL_FAILURES_PER_MINUTE {
                return Ok(Approval::Retry(
                    "Too many wrong attempts: wait a minute and try again.".into(),
                ));
            }
        }
        let by_code = self
            .one_time
            .as_deref()
            .is_some_and(|code| same_secret(secret, code));
        if !by_code && !password_matches(self.root(), secret) {
            self.failures.lock().expect("failures").push(Instant::now());
            tracing::warn!(client = %request.client_label, "oauth: a wrong password or code on the approval page");
            return Ok(Approval::Retry(
                "That is not the owner password or this run's one-time code.".into(),
            ));
        }
        let code = random_secret("gmc_")?;
        self.codes.lock().expect("codes").insert(
            digest(&code),
            PendingCode {
                request: request.clone(),
                expires: now() + CODE_TTL_SECS,
            },
        );
        tracing::info!(client = %request.client_label, scope = %request.scope, "oauth: access approved");
        Ok(back(vec![("code", &code)]))
    }

    /// Authenticates the client at the token or revocation endpoint.
    fn authenticate_client(
        &self,
        form: &HashMap<String, String>,
        basic: Option<(String, String)>,
    ) -> std::result::Result<Client, OAuthError> {
        let (client_id, secret) = match basic {
            Some((id, secret)) => (id, Some(secret)),
            None => (
                form.get("client_id").cloned().unwrap_or_default(),
                form.get("client_secret").cloned(),
            ),
        };
        let unknown = || OAuthError::new("invalid_client", "unknown client or wrong secret");
        let client = self
            .client(&client_id)
            .map_err(|m| OAuthError::new("invalid_client", m))?
            .ok_or_else(unknown)?;
        match (&client.secret_sha256, secret) {
            (None, _) => Ok(client),
            (Some(expected), Some(given)) if same_digest(expected, &digest(&given)) => Ok(client),
            (Some(_), _) => Err(unknown()),
        }
    }

    /// The token endpoint: `authorization_code` and `refresh_token` grants.
    pub fn token(
        &self,
        form: &HashMap<String, String>,
        basic: Option<(String, String)>,
    ) -> std::result::Result<Value, OAuthError> {
        let client = self.authenticate_client(form, basic)?;
        let get = |k: &str| form.get(k).map(String::as_str).filter(|v| !v.is_empty());
        if let Some(resource) = get("resource") {
            if !self.names_this_resource(resource) {
                return Err(OAuthError::new(
                    "invalid_target",
                    format!("this server issues tokens for {} only", self.resource),
                ));
            }
        }
        match get("grant_type") {
            Some("authorization_code") => {
                let code = get("code")
                    .ok_or_else(|| OAuthError::new("invalid_request", "code is required"))?;
                let verifier = get("code_verifier").ok_or_else(|| {
                    OAuthError::new("invalid_request", "code_verifier is required (PKCE)")
                })?;
                let pending = self.codes.lock().expect("codes").remove(&digest(code));
                let invalid = || {
                    OAuthError::new(
                        "invalid_grant",
                        "the code is unknown, used or expired, or was issued to another client",
                    )
                };
                let pending = pending.ok_or_else(invalid)?;
                let request = pending.request;
                if pending.expires < now() || request.client_id != client.client_id {
                    return Err(invalid());
                }
                if get("redirect_uri").is_some_and(|r| r != request.redirect_uri) {
                    return Err(OAuthError::new(
                        "invalid_grant",
                        "redirect_uri differs from the authorization request's",
                    ));
                }
                if !same_digest(&s256_challenge(verifier), &request.code_challenge) {
                    return Err(OAuthError::new(
                        "invalid_grant",
                        "the code_verifier does not match the code_challenge",
                    ));
                }
                self.open_session(&client, &request.scope, &request.resource)
            }
            Some("refresh_token") => {
                let presented = get("refresh_token").ok_or_else(|| {
                    OAuthError::new("invalid_request", "refresh_token is required")
                })?;
                self.rotate(&client, &digest(presented), get("scope"))
            }
            Some(other) => Err(OAuthError::new(
                "unsupported_grant_type",
                format!("grant_type '{other}' is not supported"),
            )),
            None => Err(OAuthError::new("invalid_request", "grant_type is required")),
        }
    }

    fn issue(session: &mut Session) -> std::result::Result<Value, OAuthError> {
        let access = random_secret("gma_")?;
        let refresh = random_secret("gmr_")?;
        let now = now();
        session.access_sha256 = digest(&access);
        session.access_expires = now + ACCESS_TTL_SECS;
        session.refresh_sha256 = digest(&refresh);
        session.refresh_expires = now + REFRESH_TTL_SECS;
        Ok(json!({
            "access_token": access,
            "token_type": "Bearer",
            "expires_in": ACCESS_TTL_SECS,
            "refresh_token": refresh,
            "scope": session.scope,
        }))
    }

    fn open_session(
        &self,
        client: &Client,
        scope: &str,
        resource: &str,
    ) -> std::result::Result<Value, OAuthError> {
        let mut session = Session {
            client_id: client.client_id.clone(),
            client_label: client.label(),
            scope: scope.to_string(),
            resource: resource.to_string(),
            refresh_sha256: String::new(),
            refresh_expires: 0,
            retired_refresh: Vec::new(),
            access_sha256: String::new(),
            access_expires: 0,
        };
        let answer = Self::issue(&mut session)?;
        let mut stored = self.stored.lock().expect("oauth state");
        stored.sessions.push(session);
        self.save(&mut stored)?;
        Ok(answer)
    }

    fn rotate(
        &self,
        client: &Client,
        presented: &str,
        scope: Option<&str>,
    ) -> std::result::Result<Value, OAuthError> {
        let mut stored = self.stored.lock().expect("oauth state");
        let now = now();
        let invalid = || OAuthError::new("invalid_grant", "the refresh token is not valid");
        if let Some(stolen) = stored
            .sessions
            .iter()
            .position(|s| s.retired_refresh.iter().any(|r| same_digest(r, presented)))
        {
            let session = stored.sessions.remove(stolen);
            tracing::warn!(client = %session.client_label, "oauth: a replaced refresh token came back; the session is revoked");
            self.save(&mut stored)?;
            return Err(invalid());
        }
        let Some(session) = stored
            .sessions
            .iter_mut()
            .find(|s| same_digest(&s.refresh_sha256, presented))
        else {
            return Err(invalid());
        };
        if session.refresh_expires < now || session.client_id != client.client_id {
            return Err(invalid());
        }
        if let Some(asked) = scope {
            let asked =
                normalise_scope(Some(asked)).map_err(|m| OAuthError::new("invalid_scope", m))?;
            if asked
                .split(' ')
                .any(|s| !session.scope.split(' ').any(|g| g == s))
            {
                return Err(OAuthError::new(
                    "invalid_scope",
                    "a refresh cannot widen the scope",
                ));
            }
            session.scope = asked;
        }
        let old = session.refresh_sha256.clone();
        session.retired_refresh.push(old);
        let answer = Self::issue(session)?;
        self.save(&mut stored)?;
        Ok(answer)
    }

    /// Revocation (RFC 7009): an access or refresh token ends its whole session. Unknown
    /// tokens are not an error.
    pub fn revoke(
        &self,
        form: &HashMap<String, String>,
        basic: Option<(String, String)>,
    ) -> std::result::Result<(), OAuthError> {
        let client = self.authenticate_client(form, basic)?;
        let token = form
            .get("token")
            .filter(|t| !t.is_empty())
            .ok_or_else(|| OAuthError::new("invalid_request", "token is required"))?;
        let presented = digest(token);
        let mut stored = self.stored.lock().expect("oauth state");
        let before = stored.sessions.len();
        stored.sessions.retain(|s| {
            let same = same_digest(&s.access_sha256, &presented)
                || same_digest(&s.refresh_sha256, &presented);
            !(same && s.client_id == client.client_id)
        });
        if stored.sessions.len() != before {
            tracing::info!(client = %client.label(), "oauth: session revoked");
            self.save(&mut stored)?;
        }
        Ok(())
    }

    /// The grant of a presented access token: valid, unexpired, and issued for this resource.
    pub fn grant_for(&self, token: &str) -> Option<Grant> {
        let presented = digest(token);
        let now = now();
        let stored = self.stored.lock().expect("oauth state");
        let session = stored
            .sessions
            .iter()
            .find(|s| same_digest(&s.access_sha256, &presented))?;
        (session.access_expires > now && session.resource == self.resource).then(|| Grant {
            name: format!("oauth:{}", session.client_label),
            read_only: !session.scope.split(' ').any(|s| s == "write"),
            projects: Vec::new(),
        })
    }
}

/// Reads a client ID metadata document: JSON at the client_id's URL naming itself and its
/// redirect URIs.
fn fetch_client_document(url: &str) -> std::result::Result<Client, String> {
    let document = super::issuer::fetch_json(url, 64 * 1024)
        .map_err(|e| format!("the client's metadata document: {e}"))?;
    if document["client_id"].as_str() != Some(url) {
        return Err(format!(
            "the metadata document at {url} names another client_id"
        ));
    }
    let redirect_uris: Vec<String> = document["redirect_uris"]
        .as_array()
        .map(|uris| {
            uris.iter()
                .filter_map(|u| u.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    if redirect_uris.is_empty() || !redirect_uris.iter().all(|u| redirect_uri_allowed(u)) {
        return Err(format!(
            "the metadata document at {url} has no usable redirect_uris"
        ));
    }
    Ok(Client {
        client_id: url.to_string(),
        client_name: document["client_name"].as_str().map(String::from),
        redirect_uris,
        token_endpoint_auth_method: "none".to_string(),
        secret_sha256: None,
        client_id_issued_at: now(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redirect_uris_are_https_loopback_or_an_app_scheme() {
        for (uri, ok) in [
            (
                "https://chatgpt.com/connector_platform_oauth_redirect",
                true,
            ),
            ("http://localhost:3000/callback", true),
            ("http://127.0.0.1/cb", true),
            ("cursor://anysphere.cursor-mcp/oauth/callback", true),
            ("http://evil.example.com/cb", false),
            ("https://example.com/cb#frag", false),
            ("javascript:alert(1)", false),
            ("https:", false),
            ("no-scheme", false),
        ] {
            assert_eq!(redirect_uri_allowed(uri), ok, "{uri}");
        }
    }

    #[test]
    fn loopback_redirects_match_on_any_port() {
        assert!(redirect_matches(
            "http://127.0.0.1:1234/cb",
            "http://127.0.0.1:5678/cb"
        ));
        assert!(!redirect_matches(
            "http://127.0.0.1:1234/cb",
            "http://127.0.0.1:5678/other"
        ));
        assert!(!redirect_matches(
            "https://a.example/cb",
            "https://a.example/cb2"
        ));
    }

    #[test]
    fn scopes_default_to_both_and_unknown_ones_are_refused() {
        assert_eq!(normalise_scope(None).unwrap(), "read write");
        assert_eq!(normalise_scope(Some("write read")).unwrap(), "read write");
        assert_eq!(normalise_scope(Some("read")).unwrap(), "read");
        assert!(normalise_scope(Some("admin")).is_err());
    }

    #[test]
    fn registrations_are_bounded_and_clients_in_use_are_kept() {
        let root = tempfile::tempdir().unwrap();
        let server = OAuthServer::open(root.path(), "https://mem.example", None).unwrap();
        let register = || {
            server
                .register(RegistrationRequest {
                    redirect_uris: vec!["https://app.example/cb".into()],
                    token_endpoint_auth_method: Some("none".into()),
                    ..Default::default()
                })
                .unwrap()
                .0
        };
        let first = register();
        server
            .open_session(&first, "read", &server.resource)
            .unwrap();
        for _ in 0..MAX_CLIENTS + 10 {
            register();
        }
        let stored = server.stored.lock().unwrap();
        assert_eq!(stored.clients.len(), MAX_CLIENTS);
        assert!(stored
            .clients
            .iter()
            .any(|c| c.client_id == first.client_id));
    }

    #[test]
    fn the_s256_challenge_is_rfc_7636s_example() {
        assert_eq!(
            s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn the_owner_password_is_stored_hashed_and_checked() {
        let root = tempfile::tempdir().unwrap();
        assert!(!has_owner_password(root.path()));
        assert!(set_owner_password(root.path(), "short").is_err());
        set_owner_password(root.path(), "correct horse").unwrap();
        let stored = std::fs::read_to_string(password_file(root.path())).unwrap();
        assert!(stored.starts_with("$argon2id$"), "{stored}");
        assert!(password_matches(root.path(), "correct horse"));
        assert!(!password_matches(root.path(), "wrong horse"));
    }
}
