//! An external OpenID provider as the authorization server (`--oauth-issuer URL`): its access
//! tokens are JWTs, checked here against the provider's published keys (JWKS) with ring, which
//! the TLS stack already brings. RS256 and ES256 are accepted; the token must come from the
//! issuer, name this server's resource in its audience, and be within its lifetime.
//!
//! Scopes: `write` (or `gitmem:write`) in the token's `scope` or `scp` allows every tool;
//! without it the token may call only the read-only tools.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use base64::Engine;
use ring::signature::{self, RsaPublicKeyComponents, UnparsedPublicKey};
use serde_json::Value;

use crate::{Grant, Result};

/// Clock difference tolerated on `exp` and `nbf`.
const LEEWAY_SECS: i64 = 60;
/// An unknown key id fetches the keys again at most this often.
const REFETCH_EVERY: Duration = Duration::from_secs(60);

/// The provider and what its tokens must say.
pub struct ExternalIssuer {
    pub issuer: String,
    /// The audience a token must carry: this server's resource (`<public URL>/mcp`).
    pub audience: String,
    jwks_uri: String,
    keys: Mutex<(Vec<Value>, Instant)>,
}

/// Why a JSON document could not be fetched.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("cannot read {url}: {source}")]
    Request {
        url: String,
        source: Box<ureq::Error>,
    },
    #[error("cannot read {url}: {source}")]
    Read { url: String, source: std::io::Error },
    #[error("{url} did not answer JSON: {source}")]
    NotJson {
        url: String,
        source: serde_json::Error,
    },
}

/// Why `--oauth-issuer` names no provider gitmem can use: the server does not start.
#[derive(Debug, thiserror::Error)]
pub enum IssuerError {
    #[error(transparent)]
    Unreadable(#[from] FetchError),
    #[error("the OAuth issuer {issuer} publishes no discovery document (.well-known/openid-configuration)")]
    NoDiscovery { issuer: String },
    #[error("the discovery document of {issuer} names another issuer: {named}")]
    OtherIssuer { issuer: String, named: Value },
    #[error("the issuer {issuer} publishes no jwks_uri")]
    NoKeys { issuer: String },
}

/// Why a JWT access token is refused (logged, never shown to the caller).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TokenRefusal {
    #[error("not a JWT")]
    NotJwt,
    #[error("unreadable {0}")]
    Unreadable(&'static str),
    #[error("signed with an unknown key")]
    UnknownKey,
    #[error("the key has no '{0}'")]
    KeyField(&'static str),
    #[error("algorithm {alg} with a {kty:?} key is not accepted (RS256, ES256)")]
    Algorithm { alg: String, kty: Option<String> },
    #[error("bad signature")]
    BadSignature,
    #[error("issued by {issued_by}, not {issuer}")]
    OtherIssuer { issued_by: Value, issuer: String },
    #[error("meant for {audiences:?}, not {audience}")]
    OtherAudience {
        audiences: Vec<String>,
        audience: String,
    },
    #[error("expired (or no exp)")]
    Expired,
    #[error("not valid yet")]
    NotYetValid,
}

/// A JSON document at `url` (at most `max_bytes`, no redirects followed: a document must be
/// where its issuer or client says it is).
pub(crate) fn fetch_json(url: &str, max_bytes: u64) -> std::result::Result<Value, FetchError> {
    let agent = ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(10))
        .redirects(0)
        .build();
    let response = agent
        .get(url)
        .set("Accept", "application/json")
        .call()
        .map_err(|e| FetchError::Request {
            url: url.into(),
            source: Box::new(e),
        })?;
    let mut text = String::new();
    std::io::Read::read_to_string(
        &mut std::io::Read::take(response.into_reader(), max_bytes),
        &mut text,
    )
    .map_err(|source| FetchError::Read {
        url: url.into(),
        source,
    })?;
    serde_json::from_str(&text).map_err(|source| FetchError::NotJson {
        url: url.into(),
        source,
    })
}

fn get_json(url: &str) -> std::result::Result<Value, IssuerError> {
    Ok(fetch_json(url, 1024 * 1024)?)
}

fn b64(part: &str) -> Option<Vec<u8>> {
    base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(part.trim_end_matches('='))
        .ok()
}

impl ExternalIssuer {
    /// Reads the provider's discovery document and keys; a provider that cannot be read
    /// stops the server from starting rather than refusing every request later.
    pub fn discover(issuer: &str, audience: &str) -> Result<Self> {
        Ok(Self::discovered(issuer, audience)?)
    }

    fn discovered(issuer: &str, audience: &str) -> std::result::Result<Self, IssuerError> {
        let issuer = issuer.trim_end_matches('/').to_string();
        let discovery = [
            "/.well-known/openid-configuration",
            "/.well-known/oauth-authorization-server",
        ]
        .iter()
        .find_map(|path| get_json(&format!("{issuer}{path}")).ok())
        .ok_or_else(|| IssuerError::NoDiscovery {
            issuer: issuer.clone(),
        })?;
        if discovery["issuer"]
            .as_str()
            .map(|i| i.trim_end_matches('/'))
            != Some(&issuer)
        {
            return Err(IssuerError::OtherIssuer {
                issuer,
                named: discovery["issuer"].clone(),
            });
        }
        let jwks_uri = discovery["jwks_uri"]
            .as_str()
            .ok_or_else(|| IssuerError::NoKeys {
                issuer: issuer.clone(),
            })?
            .to_string();
        let keys = Self::fetch_keys(&jwks_uri)?;
        Ok(ExternalIssuer {
            issuer,
            audience: audience.to_string(),
            jwks_uri,
            keys: Mutex::new((keys, Instant::now())),
        })
    }

    fn fetch_keys(jwks_uri: &str) -> std::result::Result<Vec<Value>, IssuerError> {
        let set = get_json(jwks_uri)?;
        Ok(set["keys"].as_array().cloned().unwrap_or_default())
    }

    /// The key named `kid` (or the only key when the token names none), fetching the keys
    /// again when it is unknown (the provider rotated them).
    fn key(&self, kid: Option<&str>) -> Option<Value> {
        let find = |keys: &[Value]| {
            keys.iter()
                .find(|k| match kid {
                    Some(kid) => k["kid"].as_str() == Some(kid),
                    None => keys.len() == 1,
                })
                .cloned()
        };
        let mut cached = self.keys.lock().expect("jwks");
        if let Some(key) = find(&cached.0) {
            return Some(key);
        }
        if cached.1.elapsed() < REFETCH_EVERY {
            return None;
        }
        match Self::fetch_keys(&self.jwks_uri) {
            Ok(keys) => *cached = (keys, Instant::now()),
            Err(e) => tracing::warn!("refreshing the issuer's keys failed: {e}"),
        }
        find(&cached.0)
    }

    /// The grant of a JWT access token, or why it is refused (for the log).
    pub fn check(&self, token: &str) -> std::result::Result<Grant, TokenRefusal> {
        let mut parts = token.split('.');
        let (Some(head), Some(body), Some(sig), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenRefusal::NotJwt);
        };
        let header: Value = b64(head)
            .and_then(|h| serde_json::from_slice(&h).ok())
            .ok_or(TokenRefusal::Unreadable("header"))?;
        let claims: Value = b64(body)
            .and_then(|c| serde_json::from_slice(&c).ok())
            .ok_or(TokenRefusal::Unreadable("claims"))?;
        let signature = b64(sig).ok_or(TokenRefusal::Unreadable("signature"))?;
        let key = self
            .key(header["kid"].as_str())
            .ok_or(TokenRefusal::UnknownKey)?;
        let signed = format!("{head}.{body}");
        verify(
            header["alg"].as_str().unwrap_or(""),
            &key,
            signed.as_bytes(),
            &signature,
        )?;
        let now = chrono::Utc::now().timestamp();
        if claims["iss"].as_str().map(|i| i.trim_end_matches('/')) != Some(&self.issuer) {
            return Err(TokenRefusal::OtherIssuer {
                issued_by: claims["iss"].clone(),
                issuer: self.issuer.clone(),
            });
        }
        let audiences: Vec<&str> = match &claims["aud"] {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !audiences
            .iter()
            .any(|a| a.trim_end_matches('/') == self.audience)
        {
            return Err(TokenRefusal::OtherAudience {
                audiences: audiences.into_iter().map(String::from).collect(),
                audience: self.audience.clone(),
            });
        }
        match claims["exp"].as_i64() {
            Some(exp) if exp + LEEWAY_SECS > now => {}
            _ => return Err(TokenRefusal::Expired),
        }
        if claims["nbf"]
            .as_i64()
            .is_some_and(|nbf| nbf - LEEWAY_SECS > now)
        {
            return Err(TokenRefusal::NotYetValid);
        }
        let scopes: Vec<String> = match (&claims["scope"], &claims["scp"]) {
            (Value::String(s), _) | (_, Value::String(s)) => {
                s.split_whitespace().map(String::from).collect()
            }
            (_, Value::Array(list)) => list
                .iter()
                .filter_map(|s| s.as_str().map(String::from))
                .collect(),
            _ => Vec::new(),
        };
        let writes = scopes.iter().any(|s| s == "write" || s == "gitmem:write");
        let subject = claims["sub"].as_str().unwrap_or("unknown subject");
        Ok(Grant {
            name: format!("issuer:{subject}"),
            read_only: !writes,
            projects: Vec::new(),
        })
    }
}

/// Checks a JWS signature with a JWK: RS256 (RSA n, e) or ES256 (P-256 x, y; r || s).
fn verify(
    alg: &str,
    key: &Value,
    signed: &[u8],
    sig: &[u8],
) -> std::result::Result<(), TokenRefusal> {
    let field = |name: &'static str| {
        key[name]
            .as_str()
            .and_then(b64)
            .ok_or(TokenRefusal::KeyField(name))
    };
    let checked = match (alg, key["kty"].as_str()) {
        ("RS256", Some("RSA")) => RsaPublicKeyComponents {
            n: field("n")?,
            e: field("e")?,
        }
        .verify(&signature::RSA_PKCS1_2048_8192_SHA256, signed, sig),
        ("ES256", Some("EC")) if key["crv"].as_str() == Some("P-256") => {
            let mut point = vec![4u8];
            point.extend(field("x")?);
            point.extend(field("y")?);
            UnparsedPublicKey::new(&signature::ECDSA_P256_SHA256_FIXED, point).verify(signed, sig)
        }
        (alg, kty) => {
            return Err(TokenRefusal::Algorithm {
                alg: alg.into(),
                kty: kty.map(String::from),
            })
        }
    };
    checked.map_err(|_| TokenRefusal::BadSignature)
}
