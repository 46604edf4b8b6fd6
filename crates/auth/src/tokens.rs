//! Who may call a server over HTTP: named bearer tokens kept hashed under the data root
//! (`<root>/auth/tokens.json`), and what each one may do (read only, one project).
//!
//! A token is 32 random bytes; only its SHA-256 is stored, so the file gives nothing away. A
//! slow password hash would add nothing against guessing 256 random bits. A presented token is
//! compared with every stored hash in constant time, so the time taken says nothing about how
//! close a guess came or which token it resembled.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::{AuthError, Result};
use vault::fs::FileVersion;

/// Every token starts with this, so a leaked one is recognisable (secret scanners, logs).
pub const TOKEN_PREFIX: &str = "gmt_";

/// What a caller may do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Grant {
    /// The token's name, for logs and messages (never the token itself).
    pub name: String,
    /// Only the tools that change nothing.
    pub read_only: bool,
    /// The projects it may use; empty means all.
    pub projects: Vec<String>,
}

impl Grant {
    /// Full access under `name` (a token given on the command line, a one-time token).
    pub fn full(name: &str) -> Self {
        Grant {
            name: name.to_string(),
            read_only: false,
            projects: Vec::new(),
        }
    }
}

/// A stored token, without its secret.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TokenRecord {
    pub name: String,
    /// SHA-256 of the token, hex.
    pub sha256: String,
    #[serde(default)]
    pub read_only: bool,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub projects: Vec<String>,
    pub created: String,
}

impl TokenRecord {
    pub fn grant(&self) -> Grant {
        Grant {
            name: self.name.clone(),
            read_only: self.read_only,
            projects: self.projects.clone(),
        }
    }
}

#[derive(Debug, Default, Serialize, Deserialize)]
struct TokenFile {
    tokens: Vec<TokenRecord>,
}

/// The tokens of a data root.
#[derive(Debug, Clone)]
pub struct TokenStore {
    path: PathBuf,
    /// The tokens `verify` last read, and the version of the file they came from: every request
    /// is verified, and only a changed file (a token created or revoked) is read again.
    verified: Arc<Mutex<Option<ReadTokens>>>,
}

/// The tokens read from one version of the token file.
type ReadTokens = (FileVersion, Arc<[TokenRecord]>);

/// A token made by [`TokenStore::create`]: the secret is shown once and never stored.
#[derive(Debug, Clone)]
pub struct CreatedToken {
    pub record: TokenRecord,
    pub token: String,
}

impl TokenStore {
    pub fn at(root: &Path) -> Self {
        TokenStore {
            path: root.join("auth").join("tokens.json"),
            verified: Arc::default(),
        }
    }

    /// The stored tokens, oldest first; none when the file does not exist yet.
    pub fn list(&self) -> Result<Vec<TokenRecord>> {
        let Some(bytes) = vault::fs::read_optional(&self.path)? else {
            return Ok(Vec::new());
        };
        let file: TokenFile =
            serde_json::from_slice(&bytes).map_err(|source| AuthError::TokenFile {
                path: self.path.clone(),
                source,
            })?;
        Ok(file.tokens)
    }

    /// Makes a token named `name` (names are unique), for `projects` only when any are given.
    pub fn create(&self, name: &str, read_only: bool, projects: &[String]) -> Result<CreatedToken> {
        let name = name.trim();
        if name.is_empty() || name.chars().any(|c| c.is_control() || c.is_whitespace()) {
            return Err(AuthError::TokenName);
        }
        let mut tokens = self.list()?;
        if tokens.iter().any(|t| t.name == name) {
            return Err(AuthError::TokenExists(name.to_string()));
        }
        let token = new_token()?;
        let record = TokenRecord {
            name: name.to_string(),
            sha256: digest(&token),
            read_only,
            projects: projects.to_vec(),
            created: crate::now_text(),
        };
        tokens.push(record.clone());
        self.save(tokens)?;
        Ok(CreatedToken { record, token })
    }

    /// Removes the token named `name`; false when there was none.
    pub fn revoke(&self, name: &str) -> Result<bool> {
        let mut tokens = self.list()?;
        let before = tokens.len();
        tokens.retain(|t| t.name != name);
        if tokens.len() == before {
            return Ok(false);
        }
        self.save(tokens)?;
        Ok(true)
    }

    /// The grant of a presented token, if it is one of the stored ones. Reads the file each
    /// time, so a token revoked from another process stops working at its next request.
    pub fn verify(&self, presented: &str) -> Result<Option<Grant>> {
        let presented = digest(presented);
        let mut found = None;
        for record in self.current()?.iter() {
            if same_digest(&record.sha256, &presented) {
                found = Some(record.grant());
            }
        }
        Ok(found)
    }

    /// The stored tokens as of now, read again only when the file changed.
    fn current(&self) -> Result<Arc<[TokenRecord]>> {
        let version = vault::fs::version(&self.path)?;
        let mut verified = self.verified.lock().unwrap_or_else(|e| e.into_inner());
        let Some(version) = version else {
            *verified = None;
            return Ok(Arc::from([]));
        };
        if let Some((seen, tokens)) = verified.as_ref() {
            if *seen == version {
                return Ok(tokens.clone());
            }
        }
        let tokens: Arc<[TokenRecord]> = self.list()?.into();
        *verified = Some((version, tokens.clone()));
        Ok(tokens)
    }

    fn save(&self, tokens: Vec<TokenRecord>) -> Result<()> {
        let text = serde_json::to_vec_pretty(&TokenFile { tokens })
            .expect("a token file always serialises");
        write_private(&self.path, &text)
    }
}

/// True when `presented` equals `expected`, in time that does not depend on where they differ.
pub fn same_secret(presented: &str, expected: &str) -> bool {
    same_digest(&digest(presented), &digest(expected))
}

/// Two digests compared in constant time.
pub(crate) fn same_digest(a: &str, b: &str) -> bool {
    a.as_bytes().ct_eq(b.as_bytes()).into()
}

/// A fresh token: the prefix and 32 random bytes, base64url.
pub fn new_token() -> Result<String> {
    random_secret(TOKEN_PREFIX)
}

/// `prefix` and 32 random bytes, base64url: a token, code or client secret.
pub(crate) fn random_secret(prefix: &str) -> Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::getrandom(&mut bytes).map_err(AuthError::Randomness)?;
    Ok(format!(
        "{prefix}{}",
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    ))
}

/// SHA-256 of a secret, hex: what is stored of a random token.
pub(crate) fn digest(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// Writes a file under `<root>/auth/` atomically, readable by the owner only.
pub(crate) fn write_private(path: &Path, bytes: &[u8]) -> Result<()> {
    Ok(vault::fs::write_private(path, bytes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_created_token_verifies_until_it_is_revoked() {
        let root = tempfile::tempdir().unwrap();
        let store = TokenStore::at(root.path());
        let made = store
            .create("laptop", true, &["work".to_string(), "home".to_string()])
            .unwrap();
        assert!(made.token.starts_with(TOKEN_PREFIX));
        let stored = std::fs::read_to_string(root.path().join("auth/tokens.json")).unwrap();
        assert!(!stored.contains(&made.token), "the secret is never stored");
        assert_eq!(
            store.verify(&made.token).unwrap(),
            Some(Grant {
                name: "laptop".into(),
                read_only: true,
                projects: vec!["work".into(), "home".into()],
            })
        );
        assert_eq!(store.verify("gmt_wrong").unwrap(), None);
        assert!(store.revoke("laptop").unwrap());
        assert!(!store.revoke("laptop").unwrap());
        assert_eq!(store.verify(&made.token).unwrap(), None);
    }

    /// A running server keeps its store; `gitmem token` changes the file with a store of its
    /// own, which the server sees at its next request.
    #[test]
    fn a_server_sees_tokens_another_process_creates_and_revokes() {
        let root = tempfile::tempdir().unwrap();
        let (server, cli) = (TokenStore::at(root.path()), TokenStore::at(root.path()));
        assert_eq!(server.verify("gmt_none").unwrap(), None, "no file yet");
        let first = cli.create("laptop", false, &[]).unwrap();
        assert!(server.verify(&first.token).unwrap().is_some());
        let second = cli.create("phone", false, &[]).unwrap();
        assert!(server.verify(&second.token).unwrap().is_some());
        assert!(cli.revoke("laptop").unwrap());
        assert_eq!(server.verify(&first.token).unwrap(), None);
        assert!(server.verify(&second.token).unwrap().is_some());
        std::fs::remove_file(root.path().join("auth/tokens.json")).unwrap();
        assert_eq!(server.verify(&second.token).unwrap(), None);
    }

    #[test]
    fn names_are_unique_words() {
        let root = tempfile::tempdir().unwrap();
        let store = TokenStore::at(root.path());
        store.create("a", false, &[]).unwrap();
        for bad in ["a", "", "  ", "two words"] {
            let err = store.create(bad, false, &[]).unwrap_err();
            assert!(err.is_user_error(), "{bad:?}: {err}");
        }
        assert_ne!(new_token().unwrap(), new_token().unwrap());
    }

    #[test]
    fn secrets_compare_whole() {
        assert!(same_secret("abc", "abc"));
        assert!(!same_secret("abc", "abd"));
        assert!(!same_secret("abc", "abcd"));
    }
}
