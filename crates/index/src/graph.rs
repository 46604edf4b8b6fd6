//! Graph tables in LMDB (heed): notes and the ways to find them, links in both directions,
//! unresolved link targets, and the search outbox.
//!
//! Keys are `project \0 …` strings so that one prefix scan lists a project's entries.

mod resolve;

use milli_core::heed::types::{Bytes, Str, Unit};
use milli_core::heed::{Database, Env, RoTxn, RwTxn, WithoutTls};
use sha2::Digest;

use super::model::*;
use super::terms::TermTables;
use super::IndexError;
use note::identifier::lookup_key;
use note::{file_stem, permalink::generate_permalink};

pub const SCHEMA_VERSION: &str = "gitmem-graph-16";
const SEP: char = '\0';

/// Priorities of lookup keys, lowest first (compat 4.5: permalink, title, path, then names).
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug)]
#[repr(u8)]
pub enum KeyKind {
    Permalink = 0,
    Title = 1,
    Path = 2,
    PathWithoutExtension = 3,
    Alias = 4,
    FileName = 5,
}

#[derive(Clone)]
pub(crate) struct Tables {
    pub meta: Database<Str, Bytes>,
    pub notes: Database<Str, Bytes>,
    pub by_path: Database<Str, Str>,
    pub by_permalink: Database<Str, Str>,
    /// `project \0 key \0 id` -> `[kind, path length (u16 BE)]`
    pub keys: Database<Str, Bytes>,
    /// `project \0 to_id \0 from_id`
    pub incoming: Database<Str, Unit>,
    /// `project \0 key \0 from_id`
    pub unresolved: Database<Str, Unit>,
    /// `project \0 updated_ms (zero-padded) \0 id`
    pub activity: Database<Str, Unit>,
    /// `project \0 note type (snake-cased) \0 id`, markdown notes only: a write's schema check
    /// finds the project's schemas here, without the search index or its outbox.
    pub by_type: Database<Str, Unit>,
    /// Notes whose search documents are stale: `id` -> the writer that owes the search commit
    /// (`pid:nonce#batch`, see `owner`), so that two processes on one root never take each
    /// other's work.
    pub search_dirty: Database<Str, Str>,
    /// `id` -> observation and relation document counts (u32 BE each) and the checksum of the
    /// body currently in the search index.
    pub search_docs: Database<Str, Bytes>,
    /// Word statistics for body relevance (BM25).
    pub terms: TermTables,
    /// `id` -> when the note was last used and how often (`index::uses`).
    pub uses: super::uses::UseTable,
}

pub const TABLE_COUNT: u32 = 15;

impl Tables {
    pub fn create(env: &Env<WithoutTls>) -> Result<Self, IndexError> {
        let mut wtxn = env.write_txn()?;
        let meta = env.create_database(&mut wtxn, Some("meta"))?;
        let t = Tables {
            meta,
            notes: env.create_database(&mut wtxn, Some("notes"))?,
            by_path: env.create_database(&mut wtxn, Some("by_path"))?,
            by_permalink: env.create_database(&mut wtxn, Some("by_permalink"))?,
            keys: env.create_database(&mut wtxn, Some("keys"))?,
            incoming: env.create_database(&mut wtxn, Some("incoming"))?,
            unresolved: env.create_database(&mut wtxn, Some("unresolved"))?,
            activity: env.create_database(&mut wtxn, Some("activity"))?,
            by_type: env.create_database(&mut wtxn, Some("by_type"))?,
            search_dirty: env.create_database(&mut wtxn, Some("search_dirty"))?,
            search_docs: env.create_database(&mut wtxn, Some("search_docs"))?,
            uses: env.create_database(&mut wtxn, Some("uses"))?,
            terms: TermTables {
                postings: env
                    .database_options()
                    .types()
                    .name("postings")
                    .create(&mut wtxn)?,
                note_terms: env.create_database(&mut wtxn, Some("note_terms"))?,
                note_ids: env.create_database(&mut wtxn, Some("note_ids"))?,
                meta,
            },
        };
        wtxn.commit()?;
        Ok(t)
    }
}

/// Longest user text (a path, permalink, title, alias or link target) used as it is inside a
/// key. LMDB refuses keys over 511 bytes; a key holds a project name (at most 100 bytes), this
/// part, a note id and two separators.
const MAX_KEY_PART: usize = 300;
/// Marks a key part that stands for a longer text.
const HASHED: char = '\u{1}';

/// User text as a key part: itself when it is short and has no separator, else a prefix of it
/// and a hash of the whole, so that no user text can make LMDB refuse a write. The same text
/// always gives the same part, so lookups find what was stored.
fn key_part(text: &str) -> std::borrow::Cow<'_, str> {
    if text.len() <= MAX_KEY_PART && !text.contains(SEP) && !text.contains(HASHED) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut cut = text.len().min(MAX_KEY_PART / 2);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let prefix: String = text[..cut].chars().filter(|c| *c != SEP).collect();
    let digest = hex::encode(sha2::Sha256::digest(text.as_bytes()));
    std::borrow::Cow::Owned(format!("{prefix}{HASHED}{}", &digest[..32]))
}

pub fn key2(project: &str, a: &str) -> String {
    format!("{project}{SEP}{}", key_part(a))
}

pub fn key3(project: &str, a: &str, b: &str) -> String {
    format!("{project}{SEP}{}{SEP}{b}", key_part(a))
}

fn last_segment(key: &str) -> &str {
    key.rsplit(SEP).next().unwrap_or(key)
}

fn activity_key(project: &str, updated_ms: i64, id: &str) -> String {
    key3(project, &format!("{:020}", updated_ms.max(0)), id)
}

/// The (last update, note id) an activity key holds.
pub(crate) fn activity_entry(key: &str) -> Option<(i64, &str)> {
    let mut parts = key.splitn(3, SEP).skip(1);
    let updated_ms = parts.next()?.parse().ok()?;
    Some((updated_ms, parts.next()?))
}

impl Tables {
    pub fn get_note(&self, txn: &RoTxn, id: &str) -> Result<Option<NoteRecord>, IndexError> {
        match self.notes.get(txn, id)? {
            Some(bytes) => Ok(Some(NoteRecord::decode(bytes)?)),
            None => Ok(None),
        }
    }

    fn put_note(&self, txn: &mut RwTxn, note: &NoteRecord) -> Result<(), IndexError> {
        self.notes.put(txn, &note.id, &note.encode())?;
        Ok(())
    }

    pub fn id_by_path(
        &self,
        txn: &RoTxn,
        project: &str,
        path: &str,
    ) -> Result<Option<String>, IndexError> {
        Ok(self
            .by_path
            .get(txn, &key2(project, path))?
            .map(String::from))
    }

    pub fn id_by_permalink(
        &self,
        txn: &RoTxn,
        project: &str,
        permalink: &str,
    ) -> Result<Option<String>, IndexError> {
        Ok(self
            .by_permalink
            .get(txn, &key2(project, &permalink.to_lowercase()))?
            .map(String::from))
    }

    /// `base` if no note but `owner` has it, else the first free `base-1`, `base-2`, ...
    /// (compat 4.6). The graph writer decides a note's permalink with it inside the write
    /// transaction; a writer of a new file asks it first, on a read snapshot, for the
    /// permalink the file names.
    pub fn free_permalink(
        &self,
        txn: &RoTxn,
        project: &str,
        base: &str,
        owner: Option<&str>,
    ) -> Result<String, IndexError> {
        let free = |permalink: &str| -> Result<bool, IndexError> {
            Ok(self
                .id_by_permalink(txn, project, permalink)?
                .is_none_or(|id| Some(id.as_str()) == owner))
        };
        if free(base)? {
            return Ok(base.to_string());
        }
        for n in 1.. {
            let candidate = format!("{base}-{n}");
            if free(&candidate)? {
                return Ok(candidate);
            }
        }
        unreachable!("an unbounded suffix search always ends")
    }

    /// Notes registered under lookup `key`, best first: (kind, path length, id).
    pub fn ids_by_key(
        &self,
        txn: &RoTxn,
        project: &str,
        key: &str,
    ) -> Result<Vec<(u8, u16, String)>, IndexError> {
        let prefix = format!("{}{SEP}", key2(project, key));
        let mut out = Vec::new();
        for item in self.keys.prefix_iter(txn, &prefix)? {
            let (k, v) = item?;
            let kind = v.first().copied().unwrap_or(u8::MAX);
            let len = v
                .get(1..3)
                .map(|b| u16::from_be_bytes([b[0], b[1]]))
                .unwrap_or(u16::MAX);
            out.push((kind, len, last_segment(k).to_string()));
        }
        out.sort();
        Ok(out)
    }

    /// Every (path, id) of a project.
    pub fn project_paths(
        &self,
        txn: &RoTxn,
        project: &str,
    ) -> Result<Vec<(String, String)>, IndexError> {
        let prefix = format!("{project}{SEP}");
        let mut out = Vec::new();
        for item in self.by_path.prefix_iter(txn, &prefix)? {
            let (k, id) = item?;
            let part = &k[prefix.len()..];
            // A long path is kept hashed in the key; the note has it whole.
            let path = match part.contains(HASHED) {
                true => match self.get_note(txn, id)? {
                    Some(note) => note.path,
                    None => continue,
                },
                false => part.to_string(),
            };
            out.push((path, id.to_string()));
        }
        Ok(out)
    }

    pub fn project_state(
        &self,
        txn: &RoTxn,
        project: &str,
    ) -> Result<Option<ProjectState>, IndexError> {
        match self
            .meta
            .get(txn, &format!("project_state{SEP}{project}"))?
        {
            Some(bytes) => Ok(Some(serde_json::from_slice(bytes)?)),
            None => Ok(None),
        }
    }

    /// Ids of a project's markdown notes of `note_type` (snake-cased, as `normalize_note_type`
    /// gives it).
    pub fn ids_of_type(
        &self,
        txn: &RoTxn,
        project: &str,
        note_type: &str,
    ) -> Result<Vec<String>, IndexError> {
        ids_under(&self.by_type, txn, project, note_type)
    }

    /// Ids of notes that link to `id`.
    pub fn incoming_ids(
        &self,
        txn: &RoTxn,
        project: &str,
        id: &str,
    ) -> Result<Vec<String>, IndexError> {
        ids_under(&self.incoming, txn, project, id)
    }
}

/// The note ids that end the keys `project \0 part \0 id` of `table`.
fn ids_under(
    table: &Database<Str, Unit>,
    txn: &RoTxn,
    project: &str,
    part: &str,
) -> Result<Vec<String>, IndexError> {
    let prefix = format!("{}{SEP}", key2(project, part));
    let mut out = Vec::new();
    for item in table.prefix_iter(txn, &prefix)? {
        out.push(last_segment(item?.0).to_string());
    }
    Ok(out)
}

/// A markdown note's entry in `by_type`.
fn type_key(note: &NoteRecord) -> Option<String> {
    (note.kind == NoteKind::Markdown).then(|| {
        key3(
            &note.project,
            &note::permalink::normalize_note_type(&note.note_type),
            &note.id,
        )
    })
}

/// Lookup keys a note answers to.
fn note_keys(note: &NoteRecord) -> Vec<(String, KeyKind)> {
    let mut keys: Vec<(String, KeyKind)> = Vec::new();
    let mut add = |k: String, kind: KeyKind| {
        if !k.is_empty() && !keys.iter().any(|(e, ek)| *e == k && *ek <= kind) {
            keys.retain(|(e, _)| *e != k);
            keys.push((k, kind));
        }
    };
    if let Some(permalink) = &note.permalink {
        add(lookup_key(permalink), KeyKind::Permalink);
        if let Some((_, rest)) = permalink.split_once('/') {
            if permalink.starts_with(&format!("{}/", generate_permalink(&note.project, false))) {
                add(lookup_key(rest), KeyKind::Permalink);
            }
        }
    }
    add(lookup_key(&note.title), KeyKind::Title);
    add(lookup_key(&note.path), KeyKind::Path);
    if let Some(stripped) = note.path.strip_suffix(".md") {
        add(lookup_key(stripped), KeyKind::PathWithoutExtension);
    }
    for alias in &note.aliases {
        add(lookup_key(alias), KeyKind::Alias);
    }
    add(lookup_key(file_stem(&note.path)), KeyKind::FileName);
    keys
}

/// The single place that changes graph tables. Runs inside the writer's transaction.
pub(crate) struct GraphWriter<'t> {
    pub tables: &'t Tables,
    /// This writer's identity in the search outbox.
    owner: &'t str,
    /// Distinguishes this batch's outbox marks from earlier ones.
    stamp: u64,
    /// Notes whose relations must be resolved again after this batch.
    pending_relink: resolve::PendingRelinks,
}

impl<'t> GraphWriter<'t> {
    pub fn new(tables: &'t Tables, owner: &'t str, stamp: u64) -> Self {
        Self {
            tables,
            owner,
            stamp,
            pending_relink: Default::default(),
        }
    }

    fn mark_dirty(&self, txn: &mut RwTxn, id: &str, _project: &str) -> Result<(), IndexError> {
        self.tables
            .search_dirty
            .put(txn, id, &format!("{}#{}", self.owner, self.stamp))?;
        Ok(())
    }

    pub fn apply(&mut self, txn: &mut RwTxn, op: &WriteOp) -> Result<OpOutcome, IndexError> {
        match op {
            WriteOp::Upsert(input) => self.upsert(txn, input),
            WriteOp::Move { project, from, to } => self.move_note(txn, project, from, to),
            WriteOp::Touch {
                project,
                path,
                size,
                mtime_ns,
            } => {
                if let Some(id) = self.tables.id_by_path(txn, project, path)? {
                    if let Some(mut note) = self.tables.get_note(txn, &id)? {
                        note.size = *size;
                        note.mtime_ns = *mtime_ns;
                        self.tables.put_note(txn, &note)?;
                    }
                }
                Ok(OpOutcome::Done)
            }
            WriteOp::Delete { project, path } => {
                let id = self.tables.id_by_path(txn, project, path)?;
                if let Some(id) = &id {
                    self.delete_note(txn, id)?;
                }
                Ok(OpOutcome::Deleted { id })
            }
            WriteOp::DeleteProject { project } => {
                for (_, id) in self.tables.project_paths(txn, project)? {
                    self.delete_note(txn, &id)?;
                }
                let prefix = format!("{project}{SEP}");
                let mut stale = Vec::new();
                for item in self.tables.unresolved.prefix_iter(txn, &prefix)? {
                    stale.push(item?.0.to_string());
                }
                for k in stale {
                    self.tables.unresolved.delete(txn, &k)?;
                }
                self.tables
                    .meta
                    .delete(txn, &format!("project_state{SEP}{project}"))?;
                Ok(OpOutcome::Done)
            }
            WriteOp::RefreshSearch { project } => {
                for (_, id) in self.tables.project_paths(txn, project)? {
                    self.mark_dirty(txn, &id, project)?;
                }
                Ok(OpOutcome::Done)
            }
            WriteOp::RefreshSearchOf { ids } => {
                for id in ids {
                    self.mark_dirty(txn, id, "")?;
                }
                Ok(OpOutcome::Done)
            }
            WriteOp::SearchDone(done) => {
                self.tables.terms.record(txn, &done.terms)?;
                for (id, token, state) in &done.entries {
                    if self.tables.search_dirty.get(txn, id)? == Some(token.as_str()) {
                        self.tables.search_dirty.delete(txn, id)?;
                    }
                    match state {
                        Some(bytes) => self.tables.search_docs.put(txn, id, bytes)?,
                        None => {
                            self.tables.search_docs.delete(txn, id)?;
                        }
                    }
                }
                // Only if the note still has the text that was lost: a newer write carries
                // its own body to the next pass.
                for (id, checksum) in &done.stale {
                    if let Some(mut note) = self
                        .tables
                        .get_note(txn, id)?
                        .filter(|note| note.checksum == *checksum)
                    {
                        tracing::debug!(path = %note.path, "the search text of this note was lost; the next scan reads it again");
                        note.checksum.clear();
                        self.tables.put_note(txn, &note)?;
                    }
                }
                Ok(OpOutcome::Done)
            }
            WriteOp::RecordUses(uses) => {
                super::uses::add(&self.tables.uses, txn, uses)?;
                Ok(OpOutcome::Done)
            }
            WriteOp::SetProjectState { project, state } => {
                self.tables.meta.put(
                    txn,
                    &format!("project_state{SEP}{project}"),
                    &serde_json::to_vec(state)?,
                )?;
                Ok(OpOutcome::Done)
            }
        }
    }

    fn new_id(&self, txn: &RoTxn, project: &str, path: &str) -> Result<String, IndexError> {
        // Derived from where the note was first seen, so rebuilding an index from the same files
        // gives the same ids; a random one when that id is already used by a moved note.
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(format!("{project}{SEP}{path}").as_bytes());
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest[..16]);
        let derived = uuid::Uuid::new_v8(bytes).to_string();
        if self.tables.notes.get(txn, &derived)?.is_none() {
            Ok(derived)
        } else {
            Ok(uuid::Uuid::new_v4().to_string())
        }
    }

    fn choose_permalink(
        &self,
        txn: &RoTxn,
        input: &NoteInput,
        id: &str,
        current: Option<&str>,
    ) -> Result<Option<String>, IndexError> {
        if let Some(requested) = &input.requested_permalink {
            let owner = self
                .tables
                .id_by_permalink(txn, &input.project, requested)?;
            if owner.is_none_or(|owner| owner == id) {
                return Ok(Some(requested.clone()));
            }
        }
        if let Some(current) = current {
            return Ok(Some(current.to_string()));
        }
        // A permalink the file asks for but another note owns gets a suffix (compat 4.6).
        let Some(base) = input
            .requested_permalink
            .clone()
            .or_else(|| input.generated_permalink.clone())
        else {
            return Ok(None);
        };
        let free = self
            .tables
            .free_permalink(txn, &input.project, &base, Some(id))?;
        Ok(Some(free))
    }

    fn upsert(&mut self, txn: &mut RwTxn, input: &NoteInput) -> Result<OpOutcome, IndexError> {
        let existing_id = self.tables.id_by_path(txn, &input.project, &input.path)?;
        let existing = match &existing_id {
            Some(id) => self.tables.get_note(txn, id)?,
            None => None,
        };
        if let Some(old) = &existing {
            if old.checksum == input.checksum && old.kind == input.kind {
                // Same bytes: a second scanner (another process) got here first.
                return Ok(OpOutcome::Upserted {
                    id: old.id.clone(),
                    permalink: old.permalink.clone(),
                    created: false,
                    changed: false,
                });
            }
        }
        let id = match &existing_id {
            Some(id) => id.clone(),
            None => self.new_id(txn, &input.project, &input.path)?,
        };
        let current_permalink = existing.as_ref().and_then(|n| n.permalink.clone());
        let permalink = if input.kind == NoteKind::Markdown {
            self.choose_permalink(txn, input, &id, current_permalink.as_deref())?
        } else {
            None
        };
        if let Some(old) = &existing {
            self.unregister(txn, old)?;
            self.unlink(txn, old)?;
        }
        let note = NoteRecord {
            id: id.clone(),
            project: input.project.clone(),
            path: input.path.clone(),
            permalink: permalink.clone(),
            kind: input.kind,
            title: input.title.clone(),
            note_type: input.note_type.clone(),
            content_type: input.content_type.clone(),
            tags: input.tags.clone(),
            aliases: input.aliases.clone(),
            status: input.status.clone(),
            metadata: input.metadata.clone(),
            created_ms: existing
                .as_ref()
                .map(|n| n.created_ms)
                .filter(|_| input.metadata.get("created").is_none())
                .unwrap_or(input.created_ms),
            updated_ms: input.updated_ms,
            checksum: input.checksum.clone(),
            size: input.size,
            mtime_ns: input.mtime_ns,
            observations: input.observations.clone(),
            relations: input
                .relations
                .iter()
                .map(|r| StoredRelation {
                    relation: r.clone(),
                    to_id: None,
                })
                .collect(),
            warnings: input.warnings.clone(),
        };
        self.register(txn, &note)?;
        self.tables.put_note(txn, &note)?;
        self.pending_relink.written(&id);
        self.mark_dirty(txn, &id, &note.project)?;
        Ok(OpOutcome::Upserted {
            id,
            permalink,
            created: existing.is_none(),
            changed: true,
        })
    }

    fn move_note(
        &mut self,
        txn: &mut RwTxn,
        project: &str,
        from: &str,
        to: &str,
    ) -> Result<OpOutcome, IndexError> {
        let Some(id) = self.tables.id_by_path(txn, project, from)? else {
            // Another scanner (a second process, or a tool that moved the file) got here first.
            if let Some(id) = self.tables.id_by_path(txn, project, to)? {
                return Ok(OpOutcome::Moved { id });
            }
            return Err(IndexError::NotFound(format!("{project}/{from}")));
        };
        if let Some(other) = self.tables.id_by_path(txn, project, to)? {
            if other != id {
                self.delete_note(txn, &other)?;
            }
        }
        let Some(mut note) = self.tables.get_note(txn, &id)? else {
            return Err(IndexError::NotFound(id));
        };
        self.unregister(txn, &note)?;
        note.path = to.to_string();
        if note.metadata.get("title").is_none() && note.kind == NoteKind::Markdown {
            note.title = file_stem(to).to_string();
        }
        if note.kind == NoteKind::File {
            note.title = to.rsplit('/').next().unwrap_or(to).to_string();
        }
        self.register(txn, &note)?;
        self.tables.put_note(txn, &note)?;
        self.mark_dirty(txn, &id, project)?;
        Ok(OpOutcome::Moved { id })
    }

    fn delete_note(&mut self, txn: &mut RwTxn, id: &str) -> Result<(), IndexError> {
        let Some(note) = self.tables.get_note(txn, id)? else {
            return Ok(());
        };
        let sources = self.tables.incoming_ids(txn, &note.project, id)?;
        self.unregister(txn, &note)?;
        self.unlink(txn, &note)?;
        self.tables.notes.delete(txn, id)?;
        self.mark_dirty(txn, id, &note.project)?;
        for source in sources {
            if source != id {
                self.pending_relink.target_gone(source);
            }
        }
        self.pending_relink.forget(id);
        Ok(())
    }

    /// Adds the ways to find a note: path, permalink, lookup keys, activity.
    fn register(&mut self, txn: &mut RwTxn, note: &NoteRecord) -> Result<(), IndexError> {
        let p = &note.project;
        self.tables
            .by_path
            .put(txn, &key2(p, &note.path), &note.id)?;
        if let Some(permalink) = &note.permalink {
            self.tables
                .by_permalink
                .put(txn, &key2(p, &permalink.to_lowercase()), &note.id)?;
        }
        let len = u16::try_from(note.path.len())
            .unwrap_or(u16::MAX)
            .to_be_bytes();
        for (key, kind) in note_keys(note) {
            self.tables
                .keys
                .put(txn, &key3(p, &key, &note.id), &[kind as u8, len[0], len[1]])?;
            // Links that were waiting for a note like this one can now resolve.
            let prefix = format!("{}{SEP}", key2(p, &key));
            for item in self.tables.unresolved.prefix_iter(txn, &prefix)? {
                let waiting = last_segment(item?.0).to_string();
                self.pending_relink.arrived(waiting, &key);
            }
        }
        self.tables
            .activity
            .put(txn, &activity_key(p, note.updated_ms, &note.id), &())?;
        if let Some(key) = type_key(note) {
            self.tables.by_type.put(txn, &key, &())?;
        }
        Ok(())
    }

    fn unregister(&mut self, txn: &mut RwTxn, note: &NoteRecord) -> Result<(), IndexError> {
        let p = &note.project;
        let path_key = key2(p, &note.path);
        if self.tables.by_path.get(txn, &path_key)? == Some(note.id.as_str()) {
            self.tables.by_path.delete(txn, &path_key)?;
        }
        if let Some(permalink) = &note.permalink {
            let k = key2(p, &permalink.to_lowercase());
            if self.tables.by_permalink.get(txn, &k)? == Some(note.id.as_str()) {
                self.tables.by_permalink.delete(txn, &k)?;
            }
        }
        for (key, _) in note_keys(note) {
            self.tables.keys.delete(txn, &key3(p, &key, &note.id))?;
        }
        self.tables
            .activity
            .delete(txn, &activity_key(p, note.updated_ms, &note.id))?;
        if let Some(key) = type_key(note) {
            self.tables.by_type.delete(txn, &key)?;
        }
        Ok(())
    }
}
