//! Encrypting what a versioned project's remote holds (`git::crypt`): making an age identity,
//! turning encryption on or off, and the keys every push and fetch of an encrypted project uses.
//! Turning it on or off rewrites the remote's branch in the other form, after a pull has
//! merged everything the remote had, so no device's pushed work is lost.

pub use git::crypt::ALGORITHM;

use std::path::{Path, PathBuf};

use super::error::HistoryError;
use super::scope::ProjectChoice;
use super::Result;
use crate::config::Project;
use crate::{Engine, Store};
use git::crypt::{self, CryptError};
use git::{self, GitError};

/// A new age identity: where it was written and its recipient.
#[derive(Debug, Clone)]
pub struct NewIdentity {
    pub path: PathBuf,
    pub recipient: String,
}

/// What turning encryption on or off did.
#[derive(Debug, Clone)]
pub struct CryptoChange {
    pub project: String,
    pub encrypted: bool,
    /// The recipient set's id (`encryption.kid` of memories), when encrypted.
    pub kid: Option<String>,
    pub recipients: usize,
    /// The remote now holds the project's history in the new form.
    pub pushed: bool,
    /// The remote's branch held the other form and was replaced.
    pub replaced: bool,
}

/// Writes a new age identity (owner-only, never over an existing file) to `out`, else to
/// `<root>/keys/age-identity.txt`.
pub(crate) fn crypto_keygen(store: &Store, out: Option<&Path>) -> Result<NewIdentity> {
    let path = out.map_or_else(|| store.config().default_identity_file(), Path::to_path_buf);
    let (text, recipient) = crypt::generate_identity(&super::now_text());
    vault::fs::create_private(&path, text.as_bytes()).map_err(|source| {
        if source.kind() == std::io::ErrorKind::AlreadyExists {
            GitError::from(CryptError::IdentityExists(path.clone()))
        } else {
            GitError::from(CryptError::Io {
                path: path.clone(),
                source,
            })
        }
    })?;
    Ok(NewIdentity { path, recipient })
}

/// Turns encryption on (`recipients`, when given, replace the configured ones). The keys
/// must work on this device first: recipients that parse, and an identity among them. A
/// project with a plaintext remote pulls it, then replaces its branch with the encrypted
/// mirror; one whose remote another device encrypted already just syncs.
pub(crate) fn crypto_enable(
    engine: &Engine,
    choice: &ProjectChoice,
    recipients: Option<Vec<String>>,
) -> Result<CryptoChange> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    let git = versioned(&project)?;
    let candidate = engine
        .store
        .config()
        .crypto_if_enabled(&project.name, recipients.as_deref());
    let keys = crate::encryption::load_keys(&candidate).map_err(GitError::from)?;
    if !keys.can_decrypt() {
        return Err(GitError::from(CryptError::NoIdentity(candidate.identity_file)).into());
    }
    let mut remote_encrypted = project.crypto.is_some();
    if git.remote.is_some() && !remote_encrypted {
        engine.history.flush();
        match crate::git::exchange::git_pull(&engine.store, &project) {
            Ok(_) => {}
            Err(e) if is_remote_encrypted(&e) => remote_encrypted = true,
            Err(e) => return Err(e),
        }
    }
    // Held before anything changes: a refused push must not leave encryption half on.
    if git.remote.is_some() {
        crate::git::secrets::hold_secrets(&engine.store, &project)?;
    }
    let project =
        engine
            .store
            .config_mut()
            .set_project_crypto(&project.name, true, recipients.as_deref())?;
    git::remote::guard_manual_push(&project.path, true)?;
    let mut change = CryptoChange {
        project: project.name.clone(),
        encrypted: true,
        kid: Some(keys.kid().to_string()),
        recipients: candidate
            .recipients
            .iter()
            .filter(|r| !r.trim().is_empty())
            .count(),
        pushed: false,
        replaced: false,
    };
    if git.remote.is_some() {
        if remote_encrypted {
            crate::git::exchange::git_pull(&engine.store, &project)?;
        }
        git::remote::push(&project.path, Some(&keys), !remote_encrypted)?;
        change.pushed = true;
        change.replaced = !remote_encrypted;
    }
    Ok(change)
}

/// Turns encryption off: pulls (decrypting) what the remote has, then replaces its branch
/// with the plaintext history.
pub(crate) fn crypto_disable(engine: &Engine, choice: &ProjectChoice) -> Result<CryptoChange> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    let git = versioned(&project)?;
    let was_encrypted = project.crypto.is_some();
    if git.remote.is_some() && was_encrypted {
        engine.history.flush();
        crate::git::exchange::git_pull(&engine.store, &project)?;
        // Every push of the encrypted history passed the secrets gate as it does now, so
        // only this device's commits since are new to it.
        crate::git::secrets::hold_secrets(&engine.store, &project)?;
    }
    let project = engine
        .store
        .config_mut()
        .set_project_crypto(&project.name, false, None)?;
    git::remote::guard_manual_push(&project.path, false)?;
    let mut change = CryptoChange {
        project: project.name.clone(),
        encrypted: false,
        kid: None,
        recipients: 0,
        pushed: false,
        replaced: false,
    };
    if git.remote.is_some() && was_encrypted {
        git::remote::push(&project.path, None, true)?;
        change.pushed = true;
        change.replaced = true;
    }
    Ok(change)
}

fn versioned(project: &Project) -> Result<crate::config::GitSettings> {
    Ok(project
        .git
        .clone()
        .ok_or_else(|| HistoryError::NotVersioned(project.name.clone()))?)
}

fn is_remote_encrypted(error: &super::ServiceError) -> bool {
    use super::error::UserError;
    matches!(
        error,
        super::ServiceError::User(UserError::Encryption(CryptError::RemoteEncrypted))
    )
}
