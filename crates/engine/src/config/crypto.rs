//! `[crypto]` and `[projects.NAME.crypto]`: which projects' remotes are age-encrypted, to
//! whom, and with which identity this device reads them.

use std::path::{Path, PathBuf};

use serde::Deserialize;

use super::resolve_path;

/// The age identity under `<root>/keys/` that encrypted projects read with by default.
pub(super) fn default_identity_file(root: &Path) -> PathBuf {
    root.join("keys").join("age-identity.txt")
}

/// `[crypto]` and `[projects.NAME.crypto]`: age encryption of what a project's remote holds.
/// A misspelt key is an error, never an encryption silently left off.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Default)]
#[serde(default, deny_unknown_fields)]
pub struct CryptoSection {
    pub enabled: Option<bool>,
    pub age_recipients: Option<Vec<String>>,
    pub identity_file: Option<String>,
}

/// The encryption in force for a project: whom its remote's history is encrypted to, and the
/// identity this device reads it with.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Crypto {
    pub recipients: Vec<String>,
    pub identity_file: PathBuf,
}

impl CryptoSection {
    /// The project's section over the root's `[crypto]`: None when encryption is off.
    pub(super) fn resolve(&self, global: &CryptoSection, root: &Path) -> Option<Crypto> {
        if !self.enabled.or(global.enabled).unwrap_or(false) {
            return None;
        }
        let identity = self
            .identity_file
            .as_ref()
            .or(global.identity_file.as_ref());
        Some(Crypto {
            recipients: (self.age_recipients.as_ref())
                .or(global.age_recipients.as_ref())
                .cloned()
                .unwrap_or_default(),
            identity_file: identity.map_or_else(
                || default_identity_file(root),
                |path| resolve_path(root, path),
            ),
        })
    }
}
