//! The authorization step: an authorization request checked against its client (PKCE S256,
//! scope, resource), the owner's approval with the password or the one-time code (a few wrong
//! attempts a minute at most), and the single-use code it yields.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::clients::redirect_matches;
use super::password::password_matches;
use super::{now, random_secret, OAuthError, OAuthErrorCode, OAuthServer, CODE_TTL_SECS, SCOPES};
use crate::tokens::{digest, same_secret};

/// Failed approvals accepted per minute before the page asks to wait.
const APPROVAL_FAILURES_PER_MINUTE: usize = 10;

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

pub(super) struct PendingCode {
    pub request: AuthorizationRequest,
    pub expires: i64,
}

/// A scope a client asked for that this server does not offer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown scope '{0}'; this server offers: {offered}", offered = SCOPES.join(", "))]
pub struct UnknownScope(pub String);

impl OAuthServer {
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
            Err(e) => return Err(AuthorizeError::Page(e.to_string())),
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
        let back = |error: OAuthErrorCode, description: &str| {
            let mut query = vec![
                ("error", error.as_str()),
                ("error_description", description),
            ];
            if let Some(state) = &state {
                query.push(("state", state));
            }
            query.push(("iss", &self.issuer));
            AuthorizeError::Redirect(with_query(redirect_uri, &query))
        };
        if get("response_type") != Some("code") {
            return Err(back(
                OAuthErrorCode::UnsupportedResponseType,
                "only response_type=code is supported",
            ));
        }
        let Some(challenge) = get("code_challenge") else {
            return Err(back(
                OAuthErrorCode::InvalidRequest,
                "PKCE is required: send code_challenge with code_challenge_method=S256",
            ));
        };
        if get("code_challenge_method") != Some("S256") {
            return Err(back(
                OAuthErrorCode::InvalidRequest,
                "only code_challenge_method=S256 is supported",
            ));
        }
        if challenge.len() != 43 {
            return Err(back(
                OAuthErrorCode::InvalidRequest,
                "code_challenge must be a base64url SHA-256 (43 characters)",
            ));
        }
        let scope = normalise_scope(get("scope"))
            .map_err(|e| back(OAuthErrorCode::InvalidScope, &e.to_string()))?;
        let resource = match get("resource") {
            None => self.resource.clone(),
            Some(r) if self.names_this_resource(r) => self.resource.clone(),
            Some(r) => {
                return Err(back(
                    OAuthErrorCode::InvalidTarget,
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
    pub(super) fn names_this_resource(&self, resource: &str) -> bool {
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
}

/// The scopes asked for, normalised; none means both.
pub(super) fn normalise_scope(asked: Option<&str>) -> std::result::Result<String, UnknownScope> {
    let asked: Vec<&str> = asked.unwrap_or("").split_whitespace().collect();
    if asked.is_empty() {
        return Ok(SCOPES.join(" "));
    }
    if let Some(unknown) = asked.iter().find(|s| !SCOPES.contains(s)) {
        return Err(UnknownScope(unknown.to_string()));
    }
    Ok(SCOPES
        .iter()
        .filter(|s| asked.contains(s))
        .copied()
        .collect::<Vec<_>>()
        .join(" "))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scopes_default_to_both_and_unknown_ones_are_refused() {
        assert_eq!(normalise_scope(None).unwrap(), "read write");
        assert_eq!(normalise_scope(Some("write read")).unwrap(), "read write");
        assert_eq!(normalise_scope(Some("read")).unwrap(), "read");
        assert_eq!(
            normalise_scope(Some("admin")).unwrap_err().to_string(),
            "unknown scope 'admin'; this server offers: read, write"
        );
    }
}
