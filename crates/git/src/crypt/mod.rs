//! age X25519 encryption of what a project's remote holds. The work tree and the local history
//! stay plaintext; what is pushed and fetched is an encrypted mirror of that history
//! (`mirror`), readable only with an identity of one of the recipients.

mod map;
pub mod mirror;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use sha2::{Digest, Sha256};

/// The algorithm name memory objects and answers report.
pub const ALGORITHM: &str = "age-x25519";

#[derive(Debug, thiserror::Error)]
pub enum CryptError {
    #[error("encryption is on but no recipients are set; add `age_recipients = [\"age1…\"]` under [crypto] (`gitmem crypto keygen` prints this device's)")]
    NoRecipients,
    #[error("'{recipient}' is not an age X25519 recipient ({reason}); recipients look like age1… (`gitmem crypto keygen` prints one)")]
    BadRecipient { recipient: String, reason: String },
    #[error("no age identity at {}: make one with `gitmem crypto keygen` (or `age-keygen -o FILE`), or point [crypto] identity_file at yours", .0.display())]
    NoIdentity(PathBuf),
    #[error("the age identity file {} cannot be used: {reason}", .path.display())]
    BadIdentity { path: PathBuf, reason: String },
    #[error("this device's identity ({recipient}) is not one of the recipients; it could not read back what it pushes, so add it to age_recipients")]
    NotARecipient { recipient: String },
    #[error("the remote's notes are encrypted to other keys: none of this device's identities in {} can read them; ask a key holder to add this device's recipient and turn encryption on again", .0.display())]
    CannotDecrypt(PathBuf),
    #[error("the remote is encrypted by gitmem; to read it, turn encryption on for this project with an identity of one of its recipients ([crypto] in config.toml, or memory_encrypt)")]
    RemoteEncrypted,
    #[error("the remote's branch '{0}' holds plaintext while encryption is on for this project; gitmem neither pulls nor overwrites it (turn encryption off with memory_decrypt, or point the project at another remote)")]
    RemotePlaintext(String),
    #[error("the remote's encrypted history is damaged: {0}")]
    Corrupt(String),
    #[error("{} already exists; gitmem never overwrites a key (choose another --out)", .0.display())]
    IdentityExists(PathBuf),
    #[error("{}: {source}", .path.display())]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The keys of one encrypted project: whom to encrypt for, and what this device decrypts with.
pub struct Keys {
    recipients: Vec<age::x25519::Recipient>,
    identities: Vec<age::x25519::Identity>,
    identity_file: PathBuf,
    kid: String,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Keys")
            .field("recipients", &self.recipients.len())
            .field("kid", &self.kid)
            .finish_non_exhaustive()
    }
}

impl Keys {
    /// Parses `recipients` and reads the identities in `identity_file`. A missing identity file
    /// is allowed here (a device may push without reading), and refused when decrypting; an
    /// identity that is not one of the recipients is refused, since its device could not read
    /// back its own pushes.
    pub fn load(recipients: &[String], identity_file: &Path) -> Result<Keys, CryptError> {
        let recipients = parse_recipients(recipients)?;
        let identities = match vault::fs::read_optional(identity_file) {
            Ok(Some(bytes)) => parse_identities(identity_file, &bytes)?,
            Ok(None) => Vec::new(),
            Err(source) => {
                return Err(CryptError::Io {
                    path: identity_file.to_path_buf(),
                    source,
                })
            }
        };
        let listed: Vec<String> = recipients.iter().map(|r| r.to_string()).collect();
        if let Some(stranger) = identities
            .iter()
            .map(|i| i.to_public().to_string())
            .find(|public| !listed.contains(public))
        {
            return Err(CryptError::NotARecipient {
                recipient: stranger,
            });
        }
        Ok(Keys {
            kid: key_id(&listed),
            recipients,
            identities,
            identity_file: identity_file.to_path_buf(),
        })
    }

    /// A short id of the recipient set, the `kid` memory objects report: the same set of
    /// recipients, in any order, has the same id.
    pub fn kid(&self) -> &str {
        &self.kid
    }

    /// True when this device holds an identity to read what is encrypted for the recipients.
    pub fn can_decrypt(&self) -> bool {
        !self.identities.is_empty()
    }

    fn encrypt(&self, plaintext: &[u8]) -> Result<Vec<u8>, CryptError> {
        let recipients = self.recipients.iter().map(|r| r as &dyn age::Recipient);
        let encryptor =
            age::Encryptor::with_recipients(recipients).map_err(|_| CryptError::NoRecipients)?;
        let mut out = Vec::with_capacity(plaintext.len() + 200);
        let io = |source| CryptError::Io {
            path: PathBuf::from("(memory)"),
            source,
        };
        let mut writer = encryptor.wrap_output(&mut out).map_err(io)?;
        writer.write_all(plaintext).map_err(io)?;
        writer.finish().map_err(io)?;
        Ok(out)
    }

    fn decrypt(&self, ciphertext: &[u8]) -> Result<Vec<u8>, CryptError> {
        if self.identities.is_empty() {
            return Err(CryptError::NoIdentity(self.identity_file.clone()));
        }
        let decryptor = age::Decryptor::new_buffered(ciphertext)
            .map_err(|e| CryptError::Corrupt(format!("not an age file: {e}")))?;
        let identities = self.identities.iter().map(|i| i as &dyn age::Identity);
        let mut reader = decryptor.decrypt(identities).map_err(|e| match e {
            age::DecryptError::NoMatchingKeys => {
                CryptError::CannotDecrypt(self.identity_file.clone())
            }
            other => CryptError::Corrupt(other.to_string()),
        })?;
        let mut plaintext = Vec::new();
        reader
            .read_to_end(&mut plaintext)
            .map_err(|e| CryptError::Corrupt(e.to_string()))?;
        Ok(plaintext)
    }
}

/// The id of a recipient list as config.toml names it, without loading any key: what memory
/// objects report as `encryption.kid`.
pub fn key_id(recipients: &[String]) -> String {
    let mut sorted: Vec<&str> = recipients.iter().map(|r| r.trim()).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let digest = Sha256::digest(sorted.join("\n").as_bytes());
    hex::encode(&digest[..8])
}

fn parse_recipients(recipients: &[String]) -> Result<Vec<age::x25519::Recipient>, CryptError> {
    if recipients.iter().all(|r| r.trim().is_empty()) {
        return Err(CryptError::NoRecipients);
    }
    recipients
        .iter()
        .map(|r| r.trim())
        .filter(|r| !r.is_empty())
        .map(|r| {
            age::x25519::Recipient::from_str(r).map_err(|reason| CryptError::BadRecipient {
                recipient: r.to_string(),
                reason: reason.to_string(),
            })
        })
        .collect()
}

/// The X25519 identities of an identity file as `age-keygen` writes it: one
/// `AGE-SECRET-KEY-1…` per line, `#` comments and blank lines ignored.
fn parse_identities(path: &Path, bytes: &[u8]) -> Result<Vec<age::x25519::Identity>, CryptError> {
    let bad = |reason: String| CryptError::BadIdentity {
        path: path.to_path_buf(),
        reason,
    };
    let text = std::str::from_utf8(bytes).map_err(|_| bad("it is not UTF-8 text".into()))?;
    let identities = text
        .lines()
        .map(str::trim)
        .enumerate()
        .filter(|(_, line)| !line.is_empty() && !line.starts_with('#'))
        .map(|(n, line)| {
            age::x25519::Identity::from_str(line).map_err(|_| {
                bad(format!(
                    "line {} is not an age X25519 identity (AGE-SECRET-KEY-1…)",
                    n + 1
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    if identities.is_empty() {
        return Err(bad("it holds no identity".into()));
    }
    Ok(identities)
}

/// A new identity as `age-keygen` writes it, and its recipient.
pub fn generate_identity(now: &str) -> (String, String) {
    use age::secrecy::ExposeSecret;
    let identity = age::x25519::Identity::generate();
    let recipient = identity.to_public().to_string();
    let text = format!(
        "# created: {now}\n# public key: {recipient}\n{}\n",
        identity.to_string().expose_secret()
    );
    (text, recipient)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn identity_in(dir: &Path) -> (PathBuf, String) {
        let (text, recipient) = generate_identity("2026-11-26T00:00:00Z");
        let path = dir.join("id.txt");
        std::fs::write(&path, text).unwrap();
        (path, recipient)
    }

    #[test]
    fn what_one_recipient_encrypts_only_its_identity_reads() {
        let dir = tempfile::tempdir().unwrap();
        let (mine, me) = identity_in(dir.path());
        let other_dir = tempfile::tempdir().unwrap();
        let (theirs, them) = identity_in(other_dir.path());
        let both = Keys::load(&[me.clone(), them.clone()], &mine).unwrap();
        let sealed = both.encrypt(b"secret plan").unwrap();
        assert!(!sealed.windows(6).any(|w| w == b"secret"));
        assert_eq!(both.decrypt(&sealed).unwrap(), b"secret plan");
        let other = Keys::load(&[them.clone(), me.clone()], &theirs).unwrap();
        assert_eq!(other.decrypt(&sealed).unwrap(), b"secret plan");
        assert_eq!(
            other.kid(),
            both.kid(),
            "the order of recipients is not the key"
        );
        let only_them = Keys::load(std::slice::from_ref(&them), &theirs).unwrap();
        let not_for_me = only_them.encrypt(b"x").unwrap();
        assert!(matches!(
            both.decrypt(&not_for_me),
            Err(CryptError::CannotDecrypt(_))
        ));
    }

    #[test]
    fn bad_keys_are_refused_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let (mine, me) = identity_in(dir.path());
        let (_, stranger) = generate_identity("now");
        let cases: Vec<(&str, Vec<String>, &str)> = vec![
            ("no recipients", vec![], "no recipients"),
            ("blank recipients", vec![" ".into()], "no recipients"),
            (
                "not bech32",
                vec!["age1nope".into()],
                "not an age X25519 recipient",
            ),
            (
                "an identity as recipient",
                vec!["AGE-SECRET-KEY-1XYZ".into()],
                "not an age X25519 recipient",
            ),
            (
                "identity not a recipient",
                vec![stranger],
                "not one of the recipients",
            ),
        ];
        for (name, recipients, expected) in cases {
            let error = Keys::load(&recipients, &mine).unwrap_err();
            assert!(error.to_string().contains(expected), "{name}: {error}");
        }
        let garbage = dir.path().join("garbage.txt");
        std::fs::write(&garbage, "# comment\nnot a key\n").unwrap();
        let error = Keys::load(std::slice::from_ref(&me), &garbage).unwrap_err();
        assert!(error.to_string().contains("line 2"), "{error}");
        let absent = Keys::load(std::slice::from_ref(&me), &dir.path().join("none")).unwrap();
        let sealed = absent.encrypt(b"x").unwrap();
        assert!(matches!(
            absent.decrypt(&sealed),
            Err(CryptError::NoIdentity(_))
        ));
    }
}
