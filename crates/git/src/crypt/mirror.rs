//! The encrypted mirror of a plaintext history: what an encrypted project pushes and fetches.
//!
//! Each plaintext commit C has one mirror commit M(C), whose parents are the mirrors of C's
//! parents and whose tree holds:
//! - `GITMEM-ENCRYPTED`: a fixed plaintext note saying what this repository is;
//! - `commit`: C's raw commit object (its tree, parents, author, times and message), encrypted;
//! - `objects/<2 hex>/<38 hex>`: every tree and blob of C's snapshot, each encrypted on its own
//!   and named by its ciphertext's git id.
//!
//! Mirror commits carry a fixed author, time and message, so the remote learns nothing from
//! them. A device with an identity of one of the recipients decrypts the objects into its own
//! repository and gets C back bit for bit, same id included; from there the three-way merge of
//! plaintext histories works unchanged. Each mirror commit is complete by itself, so a
//! history can be read from any of its commits.

use std::collections::BTreeSet;

use git2::{ObjectType, Odb, Oid, Repository, Signature, Sort, Time, TreeWalkMode, TreeWalkResult};

use super::map::CipherMap;
use super::{CryptError, Keys};
use crate::GitError;

/// The one plaintext file of a mirror, which also tells gitmem a remote is encrypted.
pub const MARKER: &str = "GITMEM-ENCRYPTED";
const MARKER_TEXT: &str = "This repository is a gitmem encrypted mirror (age X25519).\nEvery file under objects/ is one git object of a project's history, encrypted to the project's recipients; only gitmem with one of their identities reads it.\n";
const COMMIT_ENTRY: &str = "commit";
const OBJECTS: &str = "objects";
const MESSAGE: &str = "gitmem encrypted history\n";
const PAYLOAD_PREFIX: &str = "gitmem-object-v1 ";
const FILE_MODE: i32 = 0o100644;
const TREE_MODE: i32 = 0o040000;

/// True when `commit` is a mirror commit (its tree has the marker).
pub fn is_mirror(repo: &Repository, commit: Oid) -> Result<bool, GitError> {
    let tree = repo.find_commit(commit)?.tree()?;
    let marked = tree.get_name(MARKER).is_some();
    Ok(marked)
}

/// The mirror of the plaintext history up to `tip`, made for every commit that has none yet
/// (`known`: plaintext commits whose whole ancestry is mirrored, which the walk skips).
pub fn export(repo: &Repository, keys: &Keys, tip: Oid, known: &[Oid]) -> Result<Oid, GitError> {
    let mut map = CipherMap::open(repo, keys.kid())?;
    let odb = repo.odb()?;
    let mut walk = repo.revwalk()?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)?;
    walk.push(tip)?;
    for &commit in known {
        if mirrored(repo, &map, commit) {
            walk.hide(commit)?;
        }
    }
    let result = (|| {
        for commit in walk {
            let commit = commit?;
            if !mirrored(repo, &map, commit) {
                let mirror = export_commit(repo, &odb, keys, &mut map, commit)?;
                map.insert(commit, mirror);
            }
        }
        map.cipher_of(tip)
            .ok_or_else(|| CryptError::Corrupt("the tip was not mirrored".into()).into())
    })();
    // What was encrypted stays recorded even when a later commit failed.
    map.save()?;
    result
}

fn mirrored(repo: &Repository, map: &CipherMap, commit: Oid) -> bool {
    map.cipher_of(commit)
        .is_some_and(|mirror| repo.find_commit(mirror).is_ok())
}

fn export_commit(
    repo: &Repository,
    odb: &Odb,
    keys: &Keys,
    map: &mut CipherMap,
    plain: Oid,
) -> Result<Oid, GitError> {
    let commit = repo.find_commit(plain)?;
    let tree = commit.tree()?;
    let mut snapshot: BTreeSet<Oid> = BTreeSet::from([tree.id()]);
    tree.walk(TreeWalkMode::PreOrder, |_, entry| {
        // Submodule entries name commits of other repositories: nothing to carry.
        if matches!(entry.kind(), Some(ObjectType::Tree | ObjectType::Blob)) {
            snapshot.insert(entry.id());
        }
        TreeWalkResult::Ok
    })?;
    let mut sealed: BTreeSet<Oid> = BTreeSet::new();
    for object in snapshot {
        let cipher = match map.cipher_of(object).filter(|c| odb.exists(*c)) {
            Some(cipher) => cipher,
            None => {
                let raw = odb.read(object)?;
                let cipher = repo.blob(&keys.encrypt(&payload(raw.kind(), raw.data()))?)?;
                map.insert(object, cipher);
                cipher
            }
        };
        sealed.insert(cipher);
    }
    let raw_commit = odb.read(plain)?;
    let commit_blob = repo.blob(&keys.encrypt(&payload(ObjectType::Commit, raw_commit.data()))?)?;
    let tree = mirror_tree(repo, commit_blob, &sealed)?;
    let parents = commit
        .parent_ids()
        .map(|parent| {
            let mirror = map
                .cipher_of(parent)
                .ok_or_else(|| CryptError::Corrupt(format!("parent {parent} has no mirror")))?;
            Ok(repo.find_commit(mirror)?)
        })
        .collect::<Result<Vec<_>, GitError>>()?;
    let signature = Signature::new("gitmem", "gitmem@localhost", &Time::new(0, 0))?;
    let parents: Vec<&git2::Commit> = parents.iter().collect();
    Ok(repo.commit(None, &signature, &signature, MESSAGE, &tree, &parents)?)
}

fn mirror_tree<'r>(
    repo: &'r Repository,
    commit_blob: Oid,
    sealed: &BTreeSet<Oid>,
) -> Result<git2::Tree<'r>, GitError> {
    let mut objects = repo.treebuilder(None)?;
    let mut names: Vec<String> = sealed.iter().map(Oid::to_string).collect();
    names.sort_unstable();
    for shard in names.chunk_by(|a, b| a[..2] == b[..2]) {
        let mut builder = repo.treebuilder(None)?;
        for name in shard {
            builder.insert(&name[2..], Oid::from_str(name)?, FILE_MODE)?;
        }
        objects.insert(&shard[0][..2], builder.write()?, TREE_MODE)?;
    }
    let mut root = repo.treebuilder(None)?;
    root.insert(MARKER, repo.blob(MARKER_TEXT.as_bytes())?, FILE_MODE)?;
    root.insert(COMMIT_ENTRY, commit_blob, FILE_MODE)?;
    root.insert(OBJECTS, objects.write()?, TREE_MODE)?;
    Ok(repo.find_tree(root.write()?)?)
}

/// The plaintext history of the mirror up to `tip`, decrypted into this repository where it is
/// not already (`known`: mirror commits whose whole ancestry was decrypted, which the walk
/// skips). Answers the plaintext commit of `tip`.
pub fn import(repo: &Repository, keys: &Keys, tip: Oid, known: &[Oid]) -> Result<Oid, GitError> {
    let mut map = CipherMap::open(repo, keys.kid())?;
    let odb = repo.odb()?;
    let mut walk = repo.revwalk()?;
    walk.set_sorting(Sort::TOPOLOGICAL | Sort::REVERSE)?;
    walk.push(tip)?;
    for &mirror in known {
        if decrypted(repo, &map, mirror) {
            walk.hide(mirror)?;
        }
    }
    let result = (|| {
        for mirror in walk {
            let mirror = mirror?;
            if !decrypted(repo, &map, mirror) {
                let plain = import_commit(repo, &odb, keys, &mut map, mirror)?;
                map.insert(plain, mirror);
            }
        }
        map.plain_of(tip)
            .ok_or_else(|| CryptError::Corrupt("the tip was not decrypted".into()).into())
    })();
    map.save()?;
    result
}

fn decrypted(repo: &Repository, map: &CipherMap, mirror: Oid) -> bool {
    map.plain_of(mirror)
        .is_some_and(|plain| repo.find_commit(plain).is_ok())
}

fn import_commit(
    repo: &Repository,
    odb: &Odb,
    keys: &Keys,
    map: &mut CipherMap,
    mirror: Oid,
) -> Result<Oid, GitError> {
    let commit = repo.find_commit(mirror)?;
    let tree = commit.tree()?;
    let corrupt = |what: &str| GitError::from(CryptError::Corrupt(format!("{mirror}: {what}")));
    if tree.get_name(MARKER).is_none() {
        return Err(corrupt("a commit that is not gitmem's"));
    }
    let objects = tree
        .get_name(OBJECTS)
        .ok_or_else(|| corrupt("no objects"))?
        .to_object(repo)?
        .peel_to_tree()?;
    for shard in objects.iter() {
        let shard = shard.to_object(repo)?.peel_to_tree()?;
        for entry in shard.iter() {
            let cipher = entry.id();
            if map.plain_of(cipher).is_some_and(|plain| odb.exists(plain)) {
                continue;
            }
            let (kind, raw) = open(keys, &repo.find_blob(cipher)?)?;
            let plain = odb.write(kind, &raw)?;
            map.insert(plain, cipher);
        }
    }
    let entry = tree
        .get_name(COMMIT_ENTRY)
        .ok_or_else(|| corrupt("no commit"))?;
    let (kind, raw) = open(keys, &repo.find_blob(entry.id())?)?;
    if kind != ObjectType::Commit {
        return Err(corrupt("its commit entry is not a commit"));
    }
    let plain = odb.write(ObjectType::Commit, &raw)?;
    // The plaintext commit must stand where the mirror says: on the decrypted parents, with
    // its whole tree present.
    let decrypted = repo.find_commit(plain)?;
    let expected: Vec<Option<Oid>> = commit.parent_ids().map(|p| map.plain_of(p)).collect();
    let actual: Vec<Option<Oid>> = decrypted.parent_ids().map(Some).collect();
    if expected != actual || repo.find_tree(decrypted.tree_id()).is_err() {
        return Err(corrupt("its parents or tree do not match the mirror"));
    }
    Ok(plain)
}

fn payload(kind: ObjectType, data: &[u8]) -> Vec<u8> {
    let mut bytes = format!("{PAYLOAD_PREFIX}{}\n", kind.str()).into_bytes();
    bytes.extend_from_slice(data);
    bytes
}

fn open(keys: &Keys, blob: &git2::Blob) -> Result<(ObjectType, Vec<u8>), GitError> {
    let bytes = keys.decrypt(blob.content())?;
    let parsed = bytes
        .strip_prefix(PAYLOAD_PREFIX.as_bytes())
        .and_then(|rest| {
            let end = rest.iter().position(|&b| b == b'\n')?;
            let kind = ObjectType::from_str(std::str::from_utf8(&rest[..end]).ok()?)?;
            Some((kind, rest[end + 1..].to_vec()))
        })
        .filter(|(kind, _)| {
            matches!(
                kind,
                ObjectType::Blob | ObjectType::Tree | ObjectType::Commit
            )
        });
    parsed.ok_or_else(|| CryptError::Corrupt(format!("{}: not a gitmem object", blob.id())).into())
}
