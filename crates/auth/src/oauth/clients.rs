//! The clients of the authorization server: dynamic registration (RFC 7591), client ID
//! metadata documents fetched from the client's URL, the redirect URIs a client may use, and
//! the client authentication of the token and revocation endpoints.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{now, random_secret, OAuthError, OAuthErrorCode, OAuthServer, Stored};
use crate::issuer::{fetch_json, FetchError};
use crate::tokens::{digest, same_digest};

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
    pub(super) fn label(&self) -> String {
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

/// Registration is open to anyone (as MCP clients expect), so the list is bounded: beyond
/// this many clients, the oldest without a session are forgotten.
pub(super) const MAX_CLIENTS: usize = 500;

pub(super) fn forget_idle_clients(stored: &mut Stored) {
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

/// Why a client ID that is a URL names no usable client.
#[derive(Debug, thiserror::Error)]
pub enum ClientDocumentError {
    #[error("the client's metadata document: {0}")]
    Unreadable(#[from] FetchError),
    #[error("the metadata document at {url} names another client_id")]
    OtherClientId { url: String },
    #[error("the metadata document at {url} has no usable redirect_uris")]
    NoRedirectUris { url: String },
}

impl OAuthServer {
    /// Dynamic client registration (RFC 7591).
    pub fn register(
        &self,
        request: RegistrationRequest,
    ) -> std::result::Result<(Client, Option<String>), OAuthError> {
        let invalid_uri =
            |message: String| OAuthError::new(OAuthErrorCode::InvalidRedirectUri, message);
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
                OAuthErrorCode::InvalidClientMetadata,
                format!("token_endpoint_auth_method '{method}' is not supported"),
            ));
        }
        let grants = request.grant_types.clone().unwrap_or_default();
        if let Some(g) = grants
            .iter()
            .find(|g| !["authorization_code", "refresh_token"].contains(&g.as_str()))
        {
            return Err(OAuthError::new(
                OAuthErrorCode::InvalidClientMetadata,
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
                OAuthErrorCode::InvalidClientMetadata,
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
    pub(super) fn client(
        &self,
        client_id: &str,
    ) -> std::result::Result<Option<Client>, ClientDocumentError> {
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

    /// Authenticates the client at the token or revocation endpoint.
    pub(super) fn authenticate_client(
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
        let unknown = || {
            OAuthError::new(
                OAuthErrorCode::InvalidClient,
                "unknown client or wrong secret",
            )
        };
        let client = self
            .client(&client_id)
            .map_err(|e| OAuthError::new(OAuthErrorCode::InvalidClient, e.to_string()))?
            .ok_or_else(unknown)?;
        match (&client.secret_sha256, secret) {
            (None, _) => Ok(client),
            (Some(expected), Some(given)) if same_digest(expected, &digest(&given)) => Ok(client),
            (Some(_), _) => Err(unknown()),
        }
    }
}

/// Reads a client ID metadata document: JSON at the client_id's URL naming itself and its
/// redirect URIs.
fn fetch_client_document(url: &str) -> std::result::Result<Client, ClientDocumentError> {
    let document = fetch_json(url, 64 * 1024)?;
    if document["client_id"].as_str() != Some(url) {
        return Err(ClientDocumentError::OtherClientId { url: url.into() });
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
        return Err(ClientDocumentError::NoRedirectUris { url: url.into() });
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
pub(super) fn redirect_matches(registered: &str, given: &str) -> bool {
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
}
