//! Derived state: graph tables (heed) and full-text search (milli), both under `<root>/index`,
//! changed only by the single writer thread.
//!
//! Two LMDB environments live there, `graph/` and `search/`: milli opens its environment with
//! a fixed number of named databases and keeps it private, and heed refuses to open one
//! environment twice in a process, so the graph tables cannot share milli's. The writer commits
//! the graph first and records touched notes in a search outbox (`search_dirty`); the search
//! commit drains it. A crash between the two leaves the outbox full, and the next start drains
//! it, so the two never disagree for long and never silently.

pub mod documents;
mod durability;
pub mod graph;
pub mod horizon;
pub mod model;
pub mod names;
mod owner;
pub mod query;
mod resident;
mod snapshot;
pub mod terms;
pub mod uses;
pub mod vectors;
mod writer;

use std::path::{Path, PathBuf};
use std::sync::Arc;

use milli_core::heed::{self, EnvOpenOptions, RoTxn, WithoutTls};

use graph::Tables;
pub use model::*;
pub use snapshot::{Snapshot, Stamp};
pub use writer::{PendingWrite, WriteHandle};

#[derive(Debug, thiserror::Error)]
pub enum IndexError {
    #[error("index storage error: {0}")]
    Lmdb(#[from] heed::Error),
    #[error("search index error: {0}")]
    Search(#[from] milli_core::Error),
    #[error("search index error: {0}")]
    Threads(#[from] rayon::ThreadPoolBuildError),
    /// The group commit this write was part of failed; each write of it is answered with that.
    #[error("search index error: {0}")]
    Batch(#[source] Arc<IndexError>),
    /// The index was deleted to be made anew, and could not be opened even then.
    #[error("search index error: {0}")]
    Reopen(#[source] Box<OpenFailure>),
    #[error("index record is corrupt: {0}")]
    Corrupt(#[from] serde_json::Error),
    #[error("index record is corrupt: {0}")]
    Record(#[from] bincode::Error),
    #[error("index I/O error: {0}")]
    Io(#[from] std::io::Error),
    #[error("not in the index: {0}")]
    NotFound(String),
    #[error("the index writer has stopped")]
    WriterGone,
    #[error("the index has no note number left for body relevance; `gitmem reindex` renumbers")]
    NoteNumbersExhausted,
}

/// Why one operation of a write was not applied; the others of its batch were.
#[derive(Debug, thiserror::Error)]
pub enum OpError {
    #[error("not in the index: {0}")]
    NotFound(String),
    /// Applied alone after its batch failed, the operation got no answer.
    #[error("the index gave no answer for this change")]
    NoAnswer,
    /// Applied alone after its batch failed, the operation failed too.
    #[error("the index refused this change: {0}")]
    Refused(#[source] IndexError),
}

const GRAPH_MAP_SIZE: usize = 8 << 30;
const SEARCH_MAP_SIZE: usize = 32 << 30;

/// An open index: read access for anyone, writes through [`WriteHandle`].
#[derive(Clone)]
pub struct Index {
    pub(crate) env: heed::Env<WithoutTls>,
    pub(crate) tables: Tables,
    pub(crate) milli: milli_core::Index,
    /// Passage vectors for semantic search, kept by the embedding worker.
    pub vectors: vectors::VectorStore,
    /// The quick stage's vectors: notes still waiting for the chosen model's, embedded by a
    /// static model distilled from it (`engine::semantic::quick`).
    pub quick_vectors: vectors::VectorStore,
    writer: WriteHandle,
    /// Uses of notes not stored yet.
    uses: Arc<uses::UseLog>,
    dir: PathBuf,
    /// Set when an existing index was discarded (other schema, corrupt): every project must be
    /// read from its files again.
    pub rebuilt: bool,
}

impl Index {
    /// Opens (or creates) the index in `dir`. An index of another schema version, or one that
    /// cannot be opened, is deleted and created anew: it is derived from the files.
    pub fn open(dir: &Path) -> Result<Self, IndexError> {
        match Self::open_existing(dir) {
            Ok(index) => Ok(index),
            // Nothing wrong with the index itself: deleting it would help no one.
            Err(OpenFailure::Claim(e)) => Err(e),
            Err(reason) => {
                if dir.exists() {
                    tracing::warn!("rebuilding the index in {}: {reason}", dir.display());
                    std::fs::remove_dir_all(dir)?;
                }
                let mut index = Self::open_existing(dir).map_err(|e| match e {
                    OpenFailure::Error(e) => e,
                    other => IndexError::Reopen(Box::new(other)),
                })?;
                index.rebuilt = true;
                Ok(index)
            }
        }
    }

    fn open_existing(dir: &Path) -> Result<Self, OpenFailure> {
        let graph_dir = dir.join("graph");
        let search_dir = dir.join("search");
        std::fs::create_dir_all(&graph_dir).map_err(IndexError::from)?;
        std::fs::create_dir_all(&search_dir).map_err(IndexError::from)?;
        let markers = durability::inspect(dir, |nonce| owner::runs(dir, nonce));
        if markers == durability::Markers::Torn {
            return Err(OpenFailure::Torn);
        }

        let mut options = no_read_ahead(env_options(GRAPH_MAP_SIZE));
        options.max_dbs(graph::TABLE_COUNT);
        let env = unsafe { options.open(&graph_dir) }.map_err(IndexError::from)?;
        if let durability::Markers::Unflushed(markers) = markers {
            durability::clear(&env, markers)?;
        }
        let tables = Tables::create(&env)?;
        {
            let mut wtxn = env.write_txn().map_err(IndexError::from)?;
            match tables
                .meta
                .get(&wtxn, "schema_version")
                .map_err(IndexError::from)?
            {
                Some(v) if v == graph::SCHEMA_VERSION.as_bytes() => {}
                Some(other) => {
                    return Err(OpenFailure::Schema(
                        String::from_utf8_lossy(other).into_owned(),
                    ))
                }
                // No version and no notes: a fresh index, perhaps created a moment ago by
                // another process that has not written its version yet (deleting the files
                // under it once lost a `reindex` started beside a `status`).
                None if tables.notes.is_empty(&wtxn).map_err(IndexError::from)? => {
                    tables
                        .meta
                        .put(
                            &mut wtxn,
                            "schema_version",
                            graph::SCHEMA_VERSION.as_bytes(),
                        )
                        .map_err(IndexError::from)?;
                }
                None => return Err(OpenFailure::Schema("none".into())),
            }
            wtxn.commit().map_err(IndexError::from)?;
        }

        let milli = milli_core::Index::new(
            no_read_ahead(env_options(SEARCH_MAP_SIZE)),
            &search_dir,
            true,
        )
        .map_err(|e| OpenFailure::Error(e.into()))?;
        {
            let rtxn = milli.read_txn().map_err(IndexError::from)?;
            let configured = milli
                .primary_key(&rtxn)
                .map_err(IndexError::from)?
                .is_some();
            drop(rtxn);
            if !configured {
                let mut wtxn = milli.write_txn().map_err(IndexError::from)?;
                documents::configure(&milli, &mut wtxn)?;
                wtxn.commit().map_err(IndexError::from)?;
            }
        }
        let vectors = vectors::VectorStore::open(&dir.join("vectors"))?;
        let quick_vectors = vectors::VectorStore::open(&dir.join("vectors-quick"))?;
        let owner = owner::Owner::claim(dir).map_err(|e| OpenFailure::Claim(e.into()))?;
        let writer = writer::spawn(env.clone(), tables.clone(), milli.clone(), owner);
        Ok(Self {
            env,
            tables,
            milli,
            vectors,
            quick_vectors,
            writer,
            uses: Arc::default(),
            dir: dir.to_path_buf(),
            rebuilt: false,
        })
    }

    pub fn writer(&self) -> &WriteHandle {
        &self.writer
    }

    /// Applies `ops` in the next group commit and returns once the graph tables have them.
    pub fn write(&self, ops: Vec<WriteOp>) -> Result<Vec<Result<OpOutcome, OpError>>, IndexError> {
        self.writer.write(ops)
    }

    /// Waits until the writes acknowledged so far are visible to search (the read barrier):
    /// the current client's (`horizon`), or everyone's outside a client's scope.
    pub fn wait_searchable(&self) -> Result<(), IndexError> {
        self.writer.wait_searchable()
    }

    /// How many search commits this index has seen; with `wait_search_commit`, how a worker
    /// that follows the search index (embedding) sleeps until there is something new.
    pub fn search_seq(&self) -> u64 {
        self.writer.progress().search_seq()
    }

    /// How far search trails the graph: this process's graph commits it has not caught up
    /// with, and the notes in the search outbox of any process.
    pub fn search_lag(&self) -> Result<SearchLag, IndexError> {
        let progress = self.writer.progress();
        let txn = self.read_txn()?;
        Ok(SearchLag {
            commits: progress.graph_seq().saturating_sub(progress.search_seq()),
            outbox_notes: self.tables.search_dirty.len(&txn)?,
        })
    }

    /// Waits until the search index moves past `seen`, or `timeout`; `WriterGone` once the
    /// writer has stopped (nothing will move any more).
    pub fn wait_search_commit(
        &self,
        seen: u64,
        timeout: std::time::Duration,
    ) -> Result<(), IndexError> {
        self.writer.progress().wait_search_past(seen, timeout)
    }

    /// How the search documents of a project's notes compare with its graph records.
    pub fn search_drift(&self, project: &str) -> Result<SearchDrift, IndexError> {
        let txn = self.read_txn()?;
        let mut drift = SearchDrift::default();
        for (path, id) in self.tables.project_paths(&txn, project)? {
            if self.tables.search_dirty.get(&txn, &id)?.is_some() {
                drift.pending += 1;
                continue;
            }
            let Some(note) = self.tables.get_note(&txn, &id)? else {
                continue;
            };
            let indexed = self
                .tables
                .search_docs
                .get(&txn, &id)?
                .map(documents::indexed_checksum);
            if note.checksum.is_empty() {
                drift.text_lost.push(path);
            } else if indexed.as_deref() != Some(note.checksum.as_str()) {
                drift.not_searchable.push((path, id));
            }
        }
        Ok(drift)
    }

    /// Ids of a project's markdown notes of a type (snake-cased), from the graph: a note just
    /// written is among them before the search index has it.
    pub fn ids_of_type(&self, project: &str, note_type: &str) -> Result<Vec<String>, IndexError> {
        let txn = self.read_txn()?;
        self.tables.ids_of_type(&txn, project, note_type)
    }

    /// Search document entries whose note is gone from the graph.
    pub fn orphan_search_docs(&self) -> Result<Vec<String>, IndexError> {
        let txn = self.read_txn()?;
        let mut orphans = Vec::new();
        for item in self.tables.search_docs.iter(&txn)? {
            let (id, _) = item?;
            if self.tables.notes.get(&txn, id)?.is_none() {
                orphans.push(id.to_string());
            }
        }
        Ok(orphans)
    }

    /// Finishes what an earlier process left in the search outbox (it stopped between a graph
    /// commit and the search commit that follows) and returns how many notes lost their search
    /// text on the way: their checksums are cleared, so their files must be read again.
    pub fn recover(&self) -> Result<usize, IndexError> {
        let pending = {
            let txn = self.read_txn()?;
            !self.tables.search_dirty.is_empty(&txn)?
        };
        if pending {
            // An empty write is a graph commit whose search pass drains every entry this
            // process may take, its own and those of processes that are gone.
            self.write(Vec::new())?;
            self.wait_searchable()?;
        }
        Ok(self.writer.lost_bodies())
    }

    /// A number that changes with every commit of the graph, by any process: cheap to poll.
    pub fn graph_generation(&self) -> usize {
        self.env.info().last_txn_id
    }

    pub(crate) fn read_txn(&self) -> Result<RoTxn<'_, WithoutTls>, IndexError> {
        Ok(self.env.read_txn()?)
    }

    /// Runs a full-text query after the read barrier.
    pub fn search(&self, query: &query::Query) -> Result<query::Hits, IndexError> {
        self.wait_searchable()?;
        query::run(&self.milli, query)
    }

    /// Runs `read` on one snapshot of the search index, for the naming ranking: the documents
    /// `filter` passes, words in `fields`.
    pub fn naming<T, E: From<IndexError>>(
        &self,
        filter: Option<&str>,
        fields: &[String],
        read: impl FnOnce(&names::Naming) -> Result<T, E>,
    ) -> Result<T, E> {
        self.wait_searchable()?;
        names::read(&self.milli, filter, fields, read)
    }

    /// Search documents by their ids (with milli's internal ids), in the order given.
    pub fn search_documents_by_id(
        &self,
        ids: &[String],
    ) -> Result<Vec<Option<(u32, query::Document)>>, IndexError> {
        query::documents_by_external_id(&self.milli, ids)
    }

    /// The body the search index holds for a note (what full-text search sees).
    pub fn stored_body(&self, note_id: &str) -> Result<Option<String>, IndexError> {
        self.wait_searchable()?;
        let rtxn = self.milli.read_txn()?;
        documents::stored_body(&self.milli, &rtxn, note_id)
    }

    /// The checksum of the text the search index last indexed for a note; `None` when it holds
    /// nothing for it.
    fn indexed_checksum(&self, note_id: &str) -> Result<Option<String>, IndexError> {
        let txn = self.read_txn()?;
        Ok(self
            .tables
            .search_docs
            .get(&txn, note_id)?
            .map(documents::indexed_checksum))
    }

    /// The body the search index holds for a note and the checksum of the text it was indexed
    /// from, without waiting for writes in flight. The checksum is read first and is recorded
    /// only after the body is committed, so the body is never older than the checksum says (at
    /// worst newer, which costs a follower one needless redo, never a stale result). A follower
    /// of the search index (embedding) labels its work with this checksum: the graph's
    /// checksum of a note can run ahead of the search index.
    pub fn indexed_body(&self, note_id: &str) -> Result<Option<(String, String)>, IndexError> {
        let Some(checksum) = self.indexed_checksum(note_id)? else {
            return Ok(None);
        };
        let rtxn = self.milli.read_txn()?;
        Ok(documents::stored_body(&self.milli, &rtxn, note_id)?.map(|body| (checksum, body)))
    }

    /// A note's search document as the search index holds it, with the checksum of the text it
    /// was indexed from; `None` when the search index has nothing for the note. Waits for writes
    /// in flight.
    pub fn indexed_document(
        &self,
        note_id: &str,
    ) -> Result<Option<documents::IndexedNote>, IndexError> {
        self.wait_searchable()?;
        let Some(checksum) = self.indexed_checksum(note_id)? else {
            return Ok(None);
        };
        let mut docs =
            query::documents_by_external_id(&self.milli, &[documents::entity_doc_id(note_id)])?;
        Ok(Some(documents::IndexedNote {
            checksum: Some(checksum).filter(|c| !c.is_empty()),
            document: docs.pop().flatten().map(|(_, doc)| doc),
        }))
    }

    /// Bytes the index occupies on disk.
    pub fn disk_size(&self) -> u64 {
        vault::fs::tree_size(&self.dir)
    }

    /// Records that these notes were used (read or found) at `at_ms`. Cheap: the uses are
    /// stored by the graph writer with the next flush, at most every `uses::FLUSH_EVERY`.
    pub fn record_uses(&self, ids: &[String], at_ms: i64) {
        if let Some(due) = self.uses.record(ids, at_ms) {
            // Not waited for: the caller is answering a read or a search.
            if let Err(e) = self.writer.queue(vec![WriteOp::RecordUses(due)]) {
                tracing::warn!("recording uses of notes failed: {e}");
            }
        }
    }

    /// A note's uses: the stored ones and those gathered since.
    pub fn note_use(&self, id: &str) -> Result<Option<uses::NoteUse>, IndexError> {
        let txn = self.read_txn()?;
        let stored = uses::stored(&self.tables.uses, &txn, id)?;
        Ok(match (stored, self.uses.pending(id)) {
            (Some(a), Some(b)) => Some(a.merged(b)),
            (a, b) => a.or(b),
        })
    }

    /// Stores every gathered use now.
    pub fn flush_uses(&self) -> Result<(), IndexError> {
        let due = self.uses.take();
        if due.is_empty() {
            return Ok(());
        }
        for outcome in self.writer.write(vec![WriteOp::RecordUses(due)])? {
            if let Err(OpError::Refused(e)) = outcome {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Stores the gathered uses, then stops the writer after it has applied everything queued.
    pub fn close(self) {
        if let Err(e) = self.flush_uses() {
            tracing::warn!("storing uses of notes failed: {e}");
        }
        self.writer.shutdown();
    }
}

/// Read transactions one environment serves at once. LMDB's default (126) is below what a
/// server meets: up to 512 tool calls run at once (tokio's blocking threads), and a search
/// holds a read transaction on a second thread too. Past the limit a read fails
/// (`MDB_READERS_FULL`); each slot costs 64 bytes of the lock file.
pub(crate) const MAX_READERS: u32 = 4_096;

/// How every LMDB environment of the index is opened: its map size and [`MAX_READERS`].
pub(crate) fn env_options(map_size: usize) -> EnvOpenOptions<WithoutTls> {
    let mut options = EnvOpenOptions::new().read_txn_without_tls();
    options.map_size(map_size).max_readers(MAX_READERS);
    options
}

/// For the graph and milli maps: random B-tree reads gain nothing from the kernel's
/// read-ahead, which would only fill the process's resident set with neighbouring pages.
fn no_read_ahead(mut options: EnvOpenOptions<WithoutTls>) -> EnvOpenOptions<WithoutTls> {
    // SAFETY: NO_READ_AHEAD only changes how the map is advised; it has no safety conditions.
    unsafe {
        options.flags(heed::EnvFlags::NO_READ_AHEAD);
    }
    options
}

/// Why an existing index could not be opened as it is.
#[derive(Debug, thiserror::Error)]
pub enum OpenFailure {
    #[error("{0}")]
    Error(#[from] IndexError),
    #[error("schema version {0} is not the one this gitmem uses")]
    Schema(String),
    #[error("cannot take a writer's lock under the index: {0}")]
    Claim(IndexError),
    #[error("the machine stopped while the index had commits not yet on disk")]
    Torn,
}

/// Shared between the writer and readers: how far writes have been applied.
#[derive(Default)]
pub(crate) struct Progress {
    state: std::sync::Mutex<(u64, u64, bool)>,
    changed: std::sync::Condvar,
    /// Notes whose search text was lost (a process ended between its graph commit and its
    /// search commit) since this index was opened; their files must be read again.
    lost_bodies: std::sync::atomic::AtomicUsize,
}

impl Progress {
    fn graph_applied(&self, seq: u64) {
        let mut s = self.state.lock().unwrap();
        s.0 = s.0.max(seq);
        self.changed.notify_all();
    }

    fn search_applied(&self, seq: u64) {
        let mut s = self.state.lock().unwrap();
        s.1 = s.1.max(seq);
        self.changed.notify_all();
    }

    fn bodies_lost(&self, n: usize) {
        self.lost_bodies
            .fetch_add(n, std::sync::atomic::Ordering::SeqCst);
    }

    fn search_seq(&self) -> u64 {
        self.state.lock().unwrap().1
    }

    fn wait_search_past(&self, seen: u64, timeout: std::time::Duration) -> Result<(), IndexError> {
        let state = self.state.lock().unwrap();
        let (state, _) = self
            .changed
            .wait_timeout_while(state, timeout, |s| s.1 <= seen && !s.2)
            .unwrap();
        if state.2 {
            return Err(IndexError::WriterGone);
        }
        Ok(())
    }

    fn graph_seq(&self) -> u64 {
        self.state.lock().unwrap().0
    }

    fn stopped(&self) {
        // Also called while a writer thread unwinds: a poisoned lock must not abort.
        let mut s = self.state.lock().unwrap_or_else(|e| e.into_inner());
        s.2 = true;
        self.changed.notify_all();
    }

    /// Waits until search has the commits this thread's client wrote; `demand` is called once
    /// if it has to wait.
    fn wait_search(&self, demand: impl FnOnce()) -> Result<(), IndexError> {
        let mut s = self.state.lock().unwrap();
        let target = horizon::wanted(s.0);
        if s.1 < target {
            demand();
        }
        while s.1 < target {
            if s.2 {
                return Err(IndexError::WriterGone);
            }
            s = self.changed.wait(s).unwrap();
        }
        Ok(())
    }
}

pub(crate) type SharedProgress = Arc<Progress>;

/// How far search trails the graph (`Index::search_lag`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SearchLag {
    pub commits: u64,
    pub outbox_notes: u64,
}

/// Notes whose search documents do not match the graph.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct SearchDrift {
    /// (path, id) of notes with no search document for their current text.
    pub not_searchable: Vec<(String, String)>,
    /// Paths of notes whose text the index lost (their files must be read again).
    pub text_lost: Vec<String>,
    /// Notes waiting in the search outbox (being indexed now, or left by a stopped process).
    pub pending: usize,
}

#[cfg(test)]
mod tests;
