//! Tokens: the token endpoint's two grants (an authorization code with its PKCE verifier, a
//! refresh token, rotated at each use: a replaced one presented again ends its session),
//! revocation (RFC 7009), and the grant an access token carries to the MCP endpoint.

use std::collections::HashMap;

use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::authorize::normalise_scope;
use super::clients::Client;
use super::{
    now, random_secret, OAuthError, OAuthErrorCode, OAuthServer, ACCESS_TTL_SECS, REFRESH_TTL_SECS,
};
use crate::tokens::{digest, same_digest, Grant};

/// What the token endpoint hands out: a fresh access token and the refresh token that
/// replaces the one presented.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IssuedTokens {
    pub access_token: String,
    pub refresh_token: String,
    pub expires_in: i64,
    pub scope: String,
}

/// One grant: a client's access to this server, from an approval until it is revoked or its
/// refresh token expires.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub(super) struct Session {
    pub(super) client_id: String,
    pub(super) client_label: String,
    pub(super) scope: String,
    pub(super) resource: String,
    refresh_sha256: String,
    pub(super) refresh_expires: i64,
    /// Refresh tokens this session has replaced: one presented again means it was stolen,
    /// and the whole session ends (OAuth 2.1 section 4.3.1).
    #[serde(default)]
    pub(super) retired_refresh: Vec<String>,
    access_sha256: String,
    pub(super) access_expires: i64,
}

impl OAuthServer {
    /// The token endpoint: `authorization_code` and `refresh_token` grants.
    pub fn token(
        &self,
        form: &HashMap<String, String>,
        basic: Option<(String, String)>,
    ) -> std::result::Result<IssuedTokens, OAuthError> {
        let client = self.authenticate_client(form, basic)?;
        let get = |k: &str| form.get(k).map(String::as_str).filter(|v| !v.is_empty());
        if let Some(resource) = get("resource") {
            if !self.names_this_resource(resource) {
                return Err(OAuthError::new(
                    OAuthErrorCode::InvalidTarget,
                    format!("this server issues tokens for {} only", self.resource),
                ));
            }
        }
        match get("grant_type") {
            Some("authorization_code") => {
                let code = get("code").ok_or_else(|| {
                    OAuthError::new(OAuthErrorCode::InvalidRequest, "code is required")
                })?;
                let verifier = get("code_verifier").ok_or_else(|| {
                    OAuthError::new(
                        OAuthErrorCode::InvalidRequest,
                        "code_verifier is required (PKCE)",
                    )
                })?;
                let pending = self.codes.lock().expect("codes").remove(&digest(code));
                let invalid = || {
                    OAuthError::new(
                        OAuthErrorCode::InvalidGrant,
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
                        OAuthErrorCode::InvalidGrant,
                        "redirect_uri differs from the authorization request's",
                    ));
                }
                if !same_digest(&s256_challenge(verifier), &request.code_challenge) {
                    return Err(OAuthError::new(
                        OAuthErrorCode::InvalidGrant,
                        "the code_verifier does not match the code_challenge",
                    ));
                }
                self.open_session(&client, &request.scope, &request.resource)
            }
            Some("refresh_token") => {
                let presented = get("refresh_token").ok_or_else(|| {
                    OAuthError::new(OAuthErrorCode::InvalidRequest, "refresh_token is required")
                })?;
                self.rotate(&client, &digest(presented), get("scope"))
            }
            Some(other) => Err(OAuthError::new(
                OAuthErrorCode::UnsupportedGrantType,
                format!("grant_type '{other}' is not supported"),
            )),
            None => Err(OAuthError::new(
                OAuthErrorCode::InvalidRequest,
                "grant_type is required",
            )),
        }
    }

    fn issue(session: &mut Session) -> std::result::Result<IssuedTokens, OAuthError> {
        let access = random_secret("gma_")?;
        let refresh = random_secret("gmr_")?;
        let now = now();
        session.access_sha256 = digest(&access);
        session.access_expires = now + ACCESS_TTL_SECS;
        session.refresh_sha256 = digest(&refresh);
        session.refresh_expires = now + REFRESH_TTL_SECS;
        Ok(IssuedTokens {
            access_token: access,
            refresh_token: refresh,
            expires_in: ACCESS_TTL_SECS,
            scope: session.scope.clone(),
        })
    }

    pub(super) fn open_session(
        &self,
        client: &Client,
        scope: &str,
        resource: &str,
    ) -> std::result::Result<IssuedTokens, OAuthError> {
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
    ) -> std::result::Result<IssuedTokens, OAuthError> {
        let mut stored = self.stored.lock().expect("oauth state");
        let now = now();
        let invalid = || {
            OAuthError::new(
                OAuthErrorCode::InvalidGrant,
                "the refresh token is not valid",
            )
        };
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
            let asked = normalise_scope(Some(asked))
                .map_err(|e| OAuthError::new(OAuthErrorCode::InvalidScope, e.to_string()))?;
            if asked
                .split(' ')
                .any(|s| !session.scope.split(' ').any(|g| g == s))
            {
                return Err(OAuthError::new(
                    OAuthErrorCode::InvalidScope,
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
            .ok_or_else(|| OAuthError::new(OAuthErrorCode::InvalidRequest, "token is required"))?;
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

/// `BASE64URL(SHA256(verifier))`, the S256 code challenge (RFC 7636).
pub fn s256_challenge(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_s256_challenge_is_rfc_7636s_example() {
        assert_eq!(
            s256_challenge("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }
}
