//! Which ciphertext stands for which plaintext object, for one recipient set. age encrypts
//! with fresh randomness, so the same plaintext would give new ciphertext on every push; this
//! record keeps each object's first ciphertext (made here, or decrypted from the remote), so an
//! unchanged object is never encrypted again and a sync that changes nothing pushes nothing.

use std::collections::HashMap;
use std::path::PathBuf;

use git2::{Oid, Repository};

use super::CryptError;

pub struct CipherMap {
    path: PathBuf,
    forward: HashMap<Oid, Oid>,
    backward: HashMap<Oid, Oid>,
    added: Vec<(Oid, Oid)>,
}

impl CipherMap {
    /// The record of the recipient set `kid`, in the repository's git directory (never pushed).
    pub fn open(repo: &Repository, kid: &str) -> Result<CipherMap, CryptError> {
        let path = repo.path().join("gitmem-crypt").join(format!("{kid}.map"));
        let text = vault::fs::read_optional(&path)
            .map_err(|source| CryptError::Io {
                path: path.clone(),
                source,
            })?
            .unwrap_or_default();
        let mut map = CipherMap {
            path,
            forward: HashMap::new(),
            backward: HashMap::new(),
            added: Vec::new(),
        };
        // A line cut short by a crash is skipped: its object is encrypted again.
        for line in String::from_utf8_lossy(&text).lines() {
            let parsed = line
                .split_once(' ')
                .and_then(|(p, c)| Some((Oid::from_str(p).ok()?, Oid::from_str(c).ok()?)));
            if let Some((plain, cipher)) = parsed {
                map.forward.insert(plain, cipher);
                map.backward.insert(cipher, plain);
            }
        }
        Ok(map)
    }

    pub fn cipher_of(&self, plain: Oid) -> Option<Oid> {
        self.forward.get(&plain).copied()
    }

    pub fn plain_of(&self, cipher: Oid) -> Option<Oid> {
        self.backward.get(&cipher).copied()
    }

    /// Records a pair; the latest wins, so a history decrypted from the remote replaces what
    /// this device had made for the same commit.
    pub fn insert(&mut self, plain: Oid, cipher: Oid) {
        if self.forward.get(&plain) == Some(&cipher) {
            return;
        }
        self.forward.insert(plain, cipher);
        self.backward.insert(cipher, plain);
        self.added.push((plain, cipher));
    }

    pub fn save(&mut self) -> Result<(), CryptError> {
        if self.added.is_empty() {
            return Ok(());
        }
        let lines: String = self
            .added
            .iter()
            .map(|(plain, cipher)| format!("{plain} {cipher}\n"))
            .collect();
        vault::fs::append(&self.path, lines.as_bytes()).map_err(|source| CryptError::Io {
            path: self.path.clone(),
            source,
        })?;
        self.added.clear();
        Ok(())
    }
}
