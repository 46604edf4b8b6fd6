//! The single writer: every change to the index is a message to this thread. It applies
//! whatever is queued in one graph transaction (group commit), answers the callers, and then
//! brings the search index up to date in one milli transaction, deferring that while more
//! writes keep arriving so bulk loads pay milli's per-transaction cost only a few times.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use milli_core::heed::{Env, WithoutTls};

use super::graph::{GraphWriter, Tables};
use super::model::{OpOutcome, WriteOp};
use super::{IndexError, Progress, SharedProgress};

/// Upper bound of notes re-indexed for search in one milli transaction. Larger batches are
/// not faster (milli's per-transaction cost is small next to its per-document cost) but need
/// more memory.
const SEARCH_BATCH: usize = 2_500;
/// Operations in one graph transaction: bounds the transaction's dirty pages.
const MAX_GRAPH_BATCH: usize = 5_000;
/// Writes applied to the graph before search must catch up, even under continuous load.
const MAX_DEFERRED: usize = 20_000;

type Reply = Sender<Result<Vec<Result<OpOutcome, String>>, IndexError>>;

enum Message {
    Write {
        ops: Vec<WriteOp>,
        seq: u64,
        reply: Reply,
    },
    Shutdown,
}

#[derive(Clone)]
pub struct WriteHandle {
    tx: Sender<Message>,
    next_seq: Arc<AtomicU64>,
    progress: SharedProgress,
    thread: Arc<std::sync::Mutex<Option<JoinHandle<()>>>>,
}

pub(super) fn spawn(env: Env<WithoutTls>, tables: Tables, milli: milli_core::Index) -> WriteHandle {
    let (tx, rx) = crossbeam_channel::unbounded();
    let progress: SharedProgress = Arc::new(Progress::default());
    let thread_progress = progress.clone();
    let thread = std::thread::Builder::new()
        .name("gitmem-index-writer".into())
        .spawn(move || {
            let owner = format!("{}:{}", std::process::id(), uuid::Uuid::new_v4().simple());
            let mut writer = Writer {
                env,
                tables,
                milli,
                bodies: HashMap::new(),
                progress: thread_progress.clone(),
                owner,
            };
            writer.run(rx);
            thread_progress.stopped();
        })
        .expect("spawning the index writer thread");
    WriteHandle {
        tx,
        next_seq: Arc::new(AtomicU64::new(1)),
        progress,
        thread: Arc::new(std::sync::Mutex::new(Some(thread))),
    }
}

/// The answer to a queued write; `wait` blocks until the graph tables have it.
pub struct PendingWrite(Receiver<Result<Vec<Result<OpOutcome, String>>, IndexError>>);

impl PendingWrite {
    pub fn wait(self) -> Result<Vec<Result<OpOutcome, String>>, IndexError> {
        self.0.recv().map_err(|_| IndexError::WriterGone)?
    }
}

impl WriteHandle {
    pub fn write(&self, ops: Vec<WriteOp>) -> Result<Vec<Result<OpOutcome, String>>, IndexError> {
        self.queue(ops)?.wait()
    }

    /// Queues a write without waiting, so that bulk loads keep the writer's queue full and
    /// get large group commits.
    pub fn queue(&self, ops: Vec<WriteOp>) -> Result<PendingWrite, IndexError> {
        let (reply, answer) = crossbeam_channel::bounded(1);
        let seq = self.next_seq.fetch_add(1, Ordering::SeqCst);
        self.tx
            .send(Message::Write { ops, seq, reply })
            .map_err(|_| IndexError::WriterGone)?;
        Ok(PendingWrite(answer))
    }

    pub fn wait_searchable(&self) -> Result<(), IndexError> {
        self.progress.wait_search()
    }

    pub fn shutdown(&self) {
        let _ = self.tx.send(Message::Shutdown);
        if let Some(thread) = self.thread.lock().unwrap().take() {
            let _ = thread.join();
        }
    }
}

struct Writer {
    env: Env<WithoutTls>,
    tables: Tables,
    milli: milli_core::Index,
    /// Bodies of notes written since their last search commit, by note id.
    bodies: HashMap<String, String>,
    progress: SharedProgress,
    /// `pid:nonce`: marks this writer's entries in the search outbox.
    owner: String,
}

impl Writer {
    fn run(&mut self, rx: Receiver<Message>) {
        // Leftovers of an earlier process that stopped between its two commits.
        self.catch_up(0);
        let mut deferred = 0usize;
        let mut last_seq = 0u64;
        loop {
            let first = if deferred > 0 {
                match rx.try_recv() {
                    Ok(m) => m,
                    Err(crossbeam_channel::TryRecvError::Empty) => {
                        // The queue is empty: let search catch up, then wait for more.
                        self.catch_up(last_seq);
                        deferred = 0;
                        continue;
                    }
                    Err(crossbeam_channel::TryRecvError::Disconnected) => {
                        return self.catch_up(last_seq)
                    }
                }
            } else {
                match rx.recv() {
                    Ok(m) => m,
                    Err(_) => return,
                }
            };
            let mut batch: Batch = Vec::new();
            let mut batch_ops = 0;
            let mut stop = false;
            let mut next = Some(first);
            while let Some(message) = next.take() {
                match message {
                    Message::Write { ops, seq, reply } => {
                        batch_ops += ops.len();
                        batch.push((ops, seq, reply));
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
                let started = std::time::Instant::now();
                let outcome = self.apply_batch(&mut batch);
                tracing::debug!(
                    ops = batch_ops,
                    elapsed_ms = started.elapsed().as_millis() as u64,
                    "graph commit"
                );
                let max_seq = batch
                    .iter()
                    .map(|(_, seq, _)| *seq)
                    .max()
                    .unwrap_or(last_seq);
                self.progress.graph_applied(max_seq);
                match outcome {
                    Ok(results) => {
                        for ((_, _, reply), result) in batch.into_iter().zip(results) {
                            let _ = reply.send(Ok(result));
                        }
                    }
                    Err(e) => {
                        tracing::error!("index write failed: {e}");
                        let message = e.to_string();
                        for (_, _, reply) in batch {
                            let _ = reply.send(Err(IndexError::Search(message.clone())));
                        }
                    }
                }
                last_seq = max_seq;
                deferred += batch_ops;
            }
            if stop {
                return self.catch_up(last_seq);
            }
            if deferred >= MAX_DEFERRED {
                self.catch_up(last_seq);
                deferred = 0;
            }
        }
    }

    /// Brings search up to date and releases readers waiting for writes up to `seq`.
    fn catch_up(&mut self, seq: u64) {
        let started = std::time::Instant::now();
        release_free_memory();
        loop {
            match super::search::flush(
                &self.env,
                &self.tables,
                &self.milli,
                &mut self.bodies,
                &self.owner,
                SEARCH_BATCH,
            ) {
                Ok(n) if n == SEARCH_BATCH => release_free_memory(),
                Ok(_) => break,
                Err(e) => {
                    tracing::error!("search indexing failed (the files are unaffected; `gitmem reindex` rebuilds): {e}");
                    break;
                }
            }
        }
        tracing::debug!(
            elapsed_ms = started.elapsed().as_millis() as u64,
            "search caught up"
        );
        self.progress.search_applied(seq);
    }

    /// One graph transaction for the whole batch. Operations check what they need before they
    /// write, so an `Err` outcome has changed nothing; a storage error fails the whole batch.
    fn apply_batch(
        &mut self,
        batch: &mut Batch,
    ) -> Result<Vec<Vec<Result<OpOutcome, String>>>, IndexError> {
        let mut wtxn = self.env.write_txn()?;
        let mut graph = GraphWriter::new(&self.tables, &self.owner);
        let mut all = Vec::with_capacity(batch.len());
        let mut bodies = Vec::new();
        for (ops, _, _) in batch.iter_mut() {
            let mut results = Vec::with_capacity(ops.len());
            for op in ops.iter_mut() {
                match graph.apply(&mut wtxn, op) {
                    Ok(outcome) => {
                        if let (
                            WriteOp::Upsert(input),
                            OpOutcome::Upserted {
                                id, changed: true, ..
                            },
                        ) = (&mut *op, &outcome)
                        {
                            bodies.push((id.clone(), std::mem::take(&mut input.search_text)));
                        }
                        results.push(Ok(outcome));
                    }
                    Err(IndexError::NotFound(what)) => {
                        results.push(Err(format!("not in the index: {what}")))
                    }
                    Err(other) => return Err(other),
                }
            }
            all.push(results);
        }
        graph.finish(&mut wtxn)?;
        wtxn.commit()?;
        self.bodies.extend(bodies);
        Ok(all)
    }
}

type Batch = Vec<(Vec<WriteOp>, u64, Reply)>;

/// Hands memory freed by the previous phase back to the OS. glibc keeps it in per-thread arenas
/// that milli's indexing threads cannot reuse, so a bulk load would otherwise hold the parse
/// phase's peak and the indexing phase's peak at once.
fn release_free_memory() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    unsafe {
        libc::malloc_trim(0);
    }
}
