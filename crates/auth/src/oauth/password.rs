//! The owner's password: what the approval page asks for when no one-time code is given.
//! Stored as an Argon2id PHC string, readable by the owner only.

use std::path::{Path, PathBuf};

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;

use crate::tokens::write_private;
use crate::{AuthError, Result};
use vault::fs::read_optional;

/// The owner's password hash, in `<root>/auth/owner-password` (a PHC string).
fn password_file(root: &Path) -> PathBuf {
    root.join("auth").join("owner-password")
}

/// True when an owner password is set under `root`.
pub fn has_owner_password(root: &Path) -> bool {
    password_file(root).is_file()
}

/// Sets the owner's password (Argon2id); at least 8 characters.
pub fn set_owner_password(root: &Path, password: &str) -> Result<()> {
    if password.chars().count() < 8 {
        return Err(AuthError::PasswordTooShort);
    }
    let mut salt = [0u8; 16];
    getrandom::getrandom(&mut salt).map_err(AuthError::Randomness)?;
    let salt = SaltString::encode_b64(&salt).map_err(AuthError::PasswordHash)?;
    let hash = Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map_err(AuthError::PasswordHash)?
        .to_string();
    write_private(&password_file(root), hash.as_bytes())
}

pub(super) fn password_matches(root: &Path, password: &str) -> bool {
    let Ok(Some(stored)) = read_optional(&password_file(root)) else {
        return false;
    };
    let stored = String::from_utf8_lossy(&stored);
    PasswordHash::new(stored.trim()).is_ok_and(|hash| {
        Argon2::default()
            .verify_password(password.as_bytes(), &hash)
            .is_ok()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_password_is_stored_hashed_and_checked() {
        let root = tempfile::tempdir().unwrap();
        assert!(!has_owner_password(root.path()));
        assert!(set_owner_password(root.path(), "short").is_err());
        set_owner_password(root.path(), "correct horse").unwrap();
        let stored = std::fs::read_to_string(password_file(root.path())).unwrap();
        assert!(stored.starts_with("$argon2id$"), "{stored}");
        assert!(password_matches(root.path(), "correct horse"));
        assert!(!password_matches(root.path(), "wrong horse"));
    }
}
