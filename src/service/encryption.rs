//! Whether a project's git remote is encrypted, as the memory API reports it on every memory
//! (`encryption {algo, kid, encrypted}`).

use crate::config::Project;

/// How a project's memories travel to its git remote.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EncryptionInfo {
    /// The algorithm, e.g. `age`; `None` when nothing is encrypted.
    pub algo: Option<String>,
    /// Which key (recipient) the remote's files are encrypted to.
    pub kid: Option<String>,
    pub encrypted: bool,
}

/// Describes whether `project`'s remote is age-encrypted. Nothing is yet: files go to the
/// remote as they are on disk.
// wired by the crypto work
pub fn encryption_of(_project: &Project) -> EncryptionInfo {
    EncryptionInfo::default()
}
