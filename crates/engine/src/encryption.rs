//! Whether a project's git remote is encrypted, as the memory API reports it on every memory
//! (`encryption {algo, kid, encrypted}`).

use crate::config::Project;
use git::crypt;

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
