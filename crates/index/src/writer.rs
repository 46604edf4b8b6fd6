//! The writers. Every change to the graph tables is a message to one graph writer thread: it
//! applies whatever is queued in one transaction (group commit) and answers the callers. A
//! search indexer thread drains the search outbox into milli in the background; while one
//! milli transaction runs (and, under a stream of writes, until the search pace has passed or
//! a search waits for them), new writes accumulate and the next transaction takes them all, so
//! milli's per-transaction cost is paid per batch, never per note, and a caller never waits for
//! it. The indexer reports each commit back to the graph writer as a message, so the graph
//! tables still have one writer.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_channel::{Receiver, Sender};
use milli_core::heed::{Env, WithoutTls};

use super::documents::{Bodies, Handed};
use super::durability::{Deferred, SYNC_EVERY};
use super::graph::{GraphWriter, Tables};
use super::model::{OpOutcome, WriteOp};
use super::owner::Owner;
use super::{IndexError, OpError, Progress, SharedProgress};

/// Upper bound of notes re-indexed for search in one milli transaction. Part of milli's work
/// is per transaction and grows with the index (its word FST, prefix and facet tables), so a
/// bulk load gains from large batches; memory bounds them (docs/performance.md: a cold index
/// of 100,000 notes took 67–70 s with 10,000, 82 s with 5,000 and 96 s with 2,500, and 20,000
/// added anonymous memory without gaining).
pub(super) const SEARCH_BATCH: usize = 10_000;
/// Operations in one graph transaction: bounds the transaction's dirty pages.
const MAX_GRAPH_BATCH: usize = 5_000;
/// A graph commit of at least this many operations, or a search pass that starts with as many
/// notes in the outbox, is a bulk load's: its map pages are handed back (`resident`) while it
/// runs (and after a graph commit), instead of staying in the resident set.
const BULK_COMMIT: usize = 1_000;
/// Longest time search indexing waits for a busy graph writer.
const MAX_SEARCH_DEFERRAL: Duration = Duration::from_secs(10);
/// While writes keep coming, a search pass starts at most this long after the previous one
/// (`[search] refresh_ms`), so that each pass takes more notes: much of milli's work (its word
/// FST, prefix and facet tables) is per transaction. A search waiting for its own client's
/// writes ends the wait at once, so the pace delays only other clients' view.
pub const SEARCH_PACE: Duration = Duration::from_secs(1);

type Answer = Result<Vec<Result<OpOutcome, OpError>>, IndexError>;
type Reply = Sender<Answer>;

enum Message {
    Write { ops: Vec<WriteOp>, reply: Reply },
    Shutdown,
}

/// What wakes the search indexer.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kick {
    /// A graph commit may have put notes in the search outbox.
    Committed,
    /// A search waits for notes still in the outbox: index them without pacing.
    Demanded,
    Stop,
}

/// State the two threads share.
struct Shared {
    env: Env<WithoutTls>,
    tables: Tables,
    milli: milli_core::Index,
    /// Bodies of notes written since their last search commit.
    bodies: Bodies,
    progress: SharedProgress,
    /// Marks this writer's entries in the search outbox.
    owner: Owner,
}

#[derive(Clone)]
pub struct WriteHandle {
    tx: Sender<Message>,
    kick: Sender<Kick>,
    progress: SharedProgress,
    /// `SEARCH_PACE` or what the configuration chose, in milliseconds.
    pace_ms: Arc<AtomicU64>,
    threads: Arc<Mutex<Vec<JoinHandle<()>>>>,
}

pub(super) fn spawn(
    env: Env<WithoutTls>,
    tables: Tables,
    milli: milli_core::Index,
    owner: Owner,
) -> WriteHandle {
    let (tx, rx) = crossbeam_channel::unbounded();
    let (kick, kicked) = crossbeam_channel::unbounded::<Kick>();
    let progress: SharedProgress = Arc::new(Progress::default());
    let shared = Arc::new(Shared {
        env,
        tables,
        milli,
        bodies: Mutex::new(HashMap::new()),
        progress: progress.clone(),
        owner,
    });
    let handle = WriteHandle {
        tx: tx.clone(),
        kick: kick.clone(),
        progress: progress.clone(),
        pace_ms: Arc::new(AtomicU64::new(SEARCH_PACE.as_millis() as u64)),
        threads: Arc::new(Mutex::new(Vec::new())),
    };
    let graph_shared = shared.clone();
    let graph_kick = kick.clone();
    let graph = std::thread::Builder::new()
        .name("gitmem-graph-writer".into())
        .spawn(move || {
            let _stopped = StoppedOnExit(graph_shared.progress.clone());
            run_graph(&graph_shared, rx, &graph_kick);
        })
        .expect("spawning the graph writer thread");
    let indexer_handle = handle.clone();
    let search = std::thread::Builder::new()
        .name("gitmem-search-indexer".into())
        .spawn(move || {
            let _stopped = StoppedOnExit(shared.progress.clone());
            run_search(&shared, &kicked, &indexer_handle)
        })
        .expect("spawning the search indexer thread");
    handle
        .threads
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend([search, graph]);
    // Leftovers of an earlier process that stopped between its two commits.
    let _ = kick.send(Kick::Committed);
    handle
}

/// Marks the index stopped when a writer thread ends, by returning or by panicking, so that
/// whoever waits for its commits gets an error instead of waiting for ever.
struct StoppedOnExit(SharedProgress);

impl Drop for StoppedOnExit {
    fn drop(&mut self) {
        self.0.stopped();
    }
}

/// The answer to a queued write; `wait` blocks until the graph tables have it.
pub struct PendingWrite(Receiver<Answer>, SharedProgress);

impl PendingWrite {
    pub fn wait(self) -> Answer {
        let answer = self.0.recv().map_err(|_| IndexError::WriterGone)?;
        // The graph writer numbers a commit before it answers, so the number now is this
        // write's commit or a later one: the caller's searches wait for it at most one commit
        // longer than they must.
        super::horizon::wrote(self.1.graph_seq());
        answer
    }
}

impl WriteHandle {
    pub fn write(&self, ops: Vec<WriteOp>) -> Answer {
        self.queue(ops)?.wait()
    }

    /// Queues a write without waiting, so that bulk loads keep the writer's queue full and
    /// get large group commits.
    pub fn queue(&self, ops: Vec<WriteOp>) -> Result<PendingWrite, IndexError> {
        let (reply, answer) = crossbeam_channel::bounded(1);
        self.tx
            .send(Message::Write { ops, reply })
            .map_err(|_| IndexError::WriterGone)?;
        Ok(PendingWrite(answer, self.progress.clone()))
    }

    /// How long, at least, search passes are apart while writes keep coming.
    pub fn set_search_pace(&self, pace: Duration) {
        self.pace_ms
            .store(pace.as_millis() as u64, Ordering::Relaxed);
    }

    fn search_pace(&self) -> Duration {
        Duration::from_millis(self.pace_ms.load(Ordering::Relaxed))
    }

    pub fn wait_searchable(&self) -> Result<(), IndexError> {
        self.progress.wait_search(|| {
            let _ = self.kick.send(Kick::Demanded);
        })
    }

    pub(super) fn progress(&self) -> &Progress {
        &self.progress
    }

    /// How many notes lost their search text since the index was opened.
    pub fn lost_bodies(&self) -> usize {
        self.progress.lost_bodies.load(Ordering::SeqCst)
    }

    /// Finishes the search work of every acknowledged write, then stops both threads.
    pub fn shutdown(&self) {
        let _ = self.wait_searchable();
        let _ = self.kick.send(Kick::Stop);
        let _ = self.tx.send(Message::Shutdown);
        let threads: Vec<_> =
            std::mem::take(&mut *self.threads.lock().unwrap_or_else(|e| e.into_inner()));
        for thread in threads {
            let _ = thread.join();
        }
    }
}

type Batch = Vec<(Vec<WriteOp>, Reply)>;

fn run_graph(shared: &Shared, rx: Receiver<Message>, kick: &Sender<Kick>) {
    let mut commits: u64 = 0;
    let mut unsynced = Deferred::start(
        &shared.env,
        shared.owner.index_dir(),
        shared.owner.nonce(),
        SYNC_EVERY,
    );
    loop {
        let received = match unsynced.due() {
            Some(due) => rx.recv_deadline(due).map_err(|e| e.is_disconnected()),
            None => rx.recv().map_err(|_| true),
        };
        let first = match received {
            Ok(first) => first,
            Err(disconnected) => {
                unsynced.sync();
                if disconnected {
                    return;
                }
                continue;
            }
        };
        let mut batch: Batch = Vec::new();
        let mut batch_ops = 0;
        let mut stop = false;
        let mut next = Some(first);
        while let Some(message) = next.take() {
            match message {
                Message::Write { ops, reply } => {
                    batch_ops += ops.len();
                    batch.push((ops, reply));
                }
                Message::Shutdown => {
                    stop = true;
                    break;
                }
            }
            if batch_ops < MAX_GRAPH_BATCH {
                next = rx.try_recv().ok();
            }
        }
        if !batch.is_empty() {
            let started = Instant::now();
            let stamp = commits;
            commits += 1;
            let outcome = unsynced.before_commit().and_then(|()| {
                if batch_ops >= BULK_COMMIT {
                    super::resident::releasing_while(&[shared.env.path()], || {
                        apply_batch(shared, &mut batch, stamp)
                    })
                } else {
                    apply_batch(shared, &mut batch, stamp)
                }
            });
            tracing::debug!(
                ops = batch_ops,
                elapsed_ms = started.elapsed().as_millis() as u64,
                "graph commit"
            );
            // Numbered here, in commit order: a number taken by the sender could reach
            // this thread after a larger one, and the read barrier would then count a
            // commit as searchable before the search indexer had seen it.
            shared.progress.graph_applied(commits);
            match outcome {
                Ok(results) => {
                    for ((_, reply), result) in batch.into_iter().zip(results) {
                        let _ = reply.send(Ok(result));
                    }
                }
                Err(e) => {
                    tracing::error!("index write failed: {e}");
                    let failed = Arc::new(e);
                    for (_, reply) in batch {
                        let _ = reply.send(Err(IndexError::Batch(failed.clone())));
                    }
                }
            }
            let _ = kick.send(Kick::Committed);
            unsynced.after_commit();
            if batch_ops >= BULK_COMMIT {
                super::resident::release_map(shared.env.path());
            }
        }
        if stop {
            unsynced.sync();
            return;
        }
    }
}

/// One graph transaction for the whole batch. Operations check what they need before they
/// write, so an `Err` outcome has changed nothing. If the transaction fails as a whole, each
/// operation is tried again in a transaction of its own, so that one bad note (a key LMDB
/// refuses, say) fails alone instead of failing every write queued with it.
fn apply_batch(
    shared: &Shared,
    batch: &mut Batch,
    stamp: u64,
) -> Result<Vec<Vec<Result<OpOutcome, OpError>>>, IndexError> {
    let mut groups: Vec<&mut [WriteOp]> = batch
        .iter_mut()
        .map(|(ops, _)| ops.as_mut_slice())
        .collect();
    let total: usize = groups.iter().map(|ops| ops.len()).sum();
    match apply_together(shared, &mut groups, stamp) {
        Ok(results) => Ok(results),
        Err(e) if total > 1 => {
            tracing::warn!("a group commit failed ({e}); applying its writes one by one");
            let mut all = Vec::with_capacity(groups.len());
            for ops in groups {
                let mut results = Vec::with_capacity(ops.len());
                for op in ops.iter_mut() {
                    let single = apply_together(shared, &mut [std::slice::from_mut(op)], stamp);
                    results.push(
                        match single.map(|mut r| r.pop().and_then(|mut r| r.pop())) {
                            Ok(Some(result)) => result,
                            Ok(None) => Err(OpError::NoAnswer),
                            Err(e) => {
                                tracing::error!("index write failed: {e}");
                                Err(OpError::Refused(e))
                            }
                        },
                    );
                }
                all.push(results);
            }
            Ok(all)
        }
        Err(e) => Err(e),
    }
}

fn apply_together(
    shared: &Shared,
    batch: &mut [&mut [WriteOp]],
    stamp: u64,
) -> Result<Vec<Vec<Result<OpOutcome, OpError>>>, IndexError> {
    let mut wtxn = shared.env.write_txn()?;
    let mut graph = GraphWriter::new(&shared.tables, &shared.owner.name, stamp);
    let mut all = Vec::with_capacity(batch.len());
    // Where the bodies of changed notes are; they move to the indexer only once the whole
    // transaction succeeded, so a failed one can be retried with them.
    let mut changed: Vec<(usize, usize, String)> = Vec::new();
    for (b, ops) in batch.iter_mut().enumerate() {
        let mut results = Vec::with_capacity(ops.len());
        for (o, op) in ops.iter_mut().enumerate() {
            match graph.apply(&mut wtxn, op) {
                Ok(outcome) => {
                    if let (
                        WriteOp::Upsert(_),
                        OpOutcome::Upserted {
                            id, changed: true, ..
                        },
                    ) = (&*op, &outcome)
                    {
                        changed.push((b, o, id.clone()));
                    }
                    results.push(Ok(outcome));
                }
                Err(IndexError::NotFound(what)) => results.push(Err(OpError::NotFound(what))),
                Err(other) => return Err(other),
            }
        }
        all.push(results);
    }
    graph.finish(&mut wtxn)?;
    let bodies: Vec<(String, Handed)> = changed
        .into_iter()
        .filter_map(|(b, o, id)| match &mut batch[b][o] {
            WriteOp::Upsert(input) => Some((
                id,
                Handed {
                    stamp,
                    checksum: input.checksum.clone(),
                    text: std::mem::take(&mut input.search_text),
                },
            )),
            _ => None,
        })
        .collect();
    // Bodies go in before the commit is visible, so the indexer never sees an entry without
    // its body.
    shared
        .bodies
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .extend(bodies);
    wtxn.commit()?;
    Ok(all)
}

/// Notes waiting in the search outbox (0 when it cannot be read: the pass itself reports that).
fn outbox_len(shared: &Shared) -> u64 {
    let Ok(txn) = shared.env.read_txn() else {
        return 0;
    };
    shared.tables.search_dirty.len(&txn).unwrap_or(0)
}

/// Why the search indexer woke: whether a search waits for it, and whether to stop after this
/// pass. Several kicks may have piled up; one pass serves them all.
#[derive(Default)]
struct Wake {
    demanded: bool,
    stop: bool,
}

impl Wake {
    fn take(&mut self, kick: Kick) {
        match kick {
            Kick::Committed => {}
            Kick::Demanded => self.demanded = true,
            Kick::Stop => self.stop = true,
        }
    }

    /// Collects kicks until `due`, unless one of them asks for the pass now.
    fn pace(&mut self, kicked: &Receiver<Kick>, due: Instant) {
        while !self.demanded && !self.stop {
            match kicked.recv_deadline(due) {
                Ok(kick) => self.take(kick),
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => return,
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => self.stop = true,
            }
        }
    }
}

fn run_search(shared: &Shared, kicked: &Receiver<Kick>, writer: &WriteHandle) {
    // When the last pass that found notes started: under a stream of writes, the next one
    // waits for the pace after it.
    let mut last_busy_pass: Option<Instant> = None;
    loop {
        let mut wake = Wake::default();
        match kicked.recv() {
            Ok(kick) => wake.take(kick),
            Err(_) => return,
        }
        for kick in kicked.try_iter() {
            wake.take(kick);
        }
        if let Some(last) = last_busy_pass {
            wake.pace(kicked, last + writer.search_pace());
        }
        // During a bulk load the graph writer's queue is full: let it finish first, so that
        // milli sees large batches (cheaper per note) instead of competing for the two cores.
        let deferred_since = Instant::now();
        while !writer.tx.is_empty() && deferred_since.elapsed() < MAX_SEARCH_DEFERRAL {
            std::thread::sleep(Duration::from_millis(5));
        }
        let target = shared.progress.graph_seq();
        let started = Instant::now();
        release_free_memory();
        // The graph writer records a search commit while milli indexes the next batch, which
        // leaves that commit's notes alone: at most one record is in flight.
        let pass = || {
            let mut recording: Option<(PendingWrite, HashSet<String>)> = None;
            let recorded = |recording: &mut Option<(PendingWrite, HashSet<String>)>| {
                let Some((pending, _)) = recording.take() else {
                    return true;
                };
                let answer = pending.wait();
                if let Err(e) = &answer {
                    tracing::error!("recording a search commit failed: {e}");
                }
                answer.is_ok()
            };
            let none = HashSet::new();
            let mut notes = 0;
            loop {
                let skip = recording.as_ref().map_or(&none, |(_, ids)| ids);
                match super::documents::flush(
                    &shared.env,
                    &shared.tables,
                    &shared.milli,
                    &shared.bodies,
                    &shared.owner,
                    (SEARCH_BATCH, skip),
                ) {
                    Ok(Some(done)) => {
                        let full = done.entries.len() == SEARCH_BATCH;
                        notes += done.entries.len();
                        // Counted before the commit that takes the entries out of the outbox:
                        // a start-up repair that finds the outbox empty must also find it.
                        shared.progress.bodies_lost(done.stale.len());
                        if !recorded(&mut recording) {
                            break;
                        }
                        let ids = done.entries.iter().map(|(id, ..)| id.clone()).collect();
                        match writer.queue(vec![WriteOp::SearchDone(done)]) {
                            Ok(pending) => recording = Some((pending, ids)),
                            Err(e) => {
                                tracing::error!("recording a search commit failed: {e}");
                                break;
                            }
                        }
                        if !full {
                            break;
                        }
                        release_free_memory();
                    }
                    Ok(None) => break,
                    Err(e) => {
                        tracing::error!("search indexing failed (the files are unaffected; `gitmem reindex` rebuilds): {e}");
                        break;
                    }
                }
            }
            recorded(&mut recording);
            notes
        };
        // Only a bulk load's pass hands the maps' pages back: a pass of a few notes would start
        // a thread for nothing, and pages dropped under a server slow the searches after it.
        let notes = if outbox_len(shared) >= BULK_COMMIT as u64 {
            let maps = [shared.milli.path(), shared.env.path()];
            super::resident::releasing_while(&maps, pass)
        } else {
            pass()
        };
        last_busy_pass = (notes > 0).then_some(started);
        tracing::debug!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            "search caught up"
        );
        shared.progress.search_applied(target);
        if wake.stop {
            return;
        }
    }
}

/// Hands memory freed by the previous phase back to the OS. glibc keeps it in per-thread arenas
/// that milli's indexing threads cannot reuse, so a bulk load would otherwise hold the parse
/// phase's peak and the indexing phase's peak at once.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}
