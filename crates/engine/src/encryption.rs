//! Whether a project's git remote is encrypted, as the memory API reports it on every memory
//! (`encryption {algo, kid, encrypted}`).

use crate::config::{Crypto, Project};
use git::crypt::{self, CryptError, Keys};
use git::GitError;

/// How a project's memories travel to its git remote.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EncryptionInfo {
    /// The algorithm (`age-x25519`); `None` when nothing is encrypted.
    pub algo: Option<String>,
    /// The id of the recipient set the remote's history is encrypted to (`crypt::key_id`).
    pub kid: Option<String>,
    pub encrypted: bool,
}

/// Whether `project`'s remote holds only age ciphertext (`[crypto]` on for it), and for whom.
/// Read from config.toml alone: no key is loaded.
pub(crate) fn encryption_of(project: &Project) -> EncryptionInfo {
    match &project.crypto {
        Some(crypto) => EncryptionInfo {
            algo: Some(crypt::ALGORITHM.to_string()),
            kid: Some(crypt::key_id(&crypto.recipients)),
            encrypted: true,
        },
        None => EncryptionInfo::default(),
    }
}

/// The keys a project's pushes and fetches use; None when its remote is not encrypted.
pub(crate) fn keys_of(project: &Project) -> std::result::Result<Option<Keys>, GitError> {
    let Some(crypto) = &project.crypto else {
        return Ok(None);
    };
    Ok(Some(load_keys(crypto)?))
}

pub(crate) fn load_keys(crypto: &Crypto) -> std::result::Result<Keys, CryptError> {
    Keys::load(&crypto.recipients, &crypto.identity_file)
}
