//! The single writer: every change to the index is a message to this thread. It applies
//! whatever is queued in one graph transaction (group commit), answers the callers, and then
//! brings the search index up to date in one milli transaction, deferring that while more
//! writes keep arriving so bulk loads pay milli's per-transaction cost only a few times.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::thread::JoinHandle;

use crossbeam_channel::{Receiver, Sender};
use milli_core::heed::{Env, WithoutTls};

use super::graph::{GraphWriter, Tables};
use super::model::{OpOutcome, WriteOp};
use super::{IndexError, Progress, SharedProgress};

/// Upper bound of notes re-indexed for search in one milli transaction.
const SEARCH_BATCH: usize = 20_000;
/// Writes applied to the graph before search must catch up, even under continuous load.
const MAX_DEFERRED: usize = 20_000;

type Reply = Sender<Result<Vec<Result<OpOutcome, String>>, IndexError>>;

enum Message {
    Write { ops: Vec<WriteOp>, seq: u64, reply: Reply },
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
            run(env, tables, milli, rx, &thread_progress);
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

impl WriteHandle {
    pub fn write(&self, ops: Vec<WriteOp>) -> Result<Vec<Result<OpOutcome, String>>, IndexError> {
        let (reply, answer) = crossbeam_channel::bounded(1);
        let seq = self.next_seq.fetch_add(1, Ordering::SeqCst);
        self.tx
            .send(Message::Write { ops, seq, reply })
            .map_err(|_| IndexError::WriterGone)?;
        answer.recv().map_err(|_| IndexError::WriterGone)?
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

fn run(env: Env<WithoutTls>, tables: Tables, milli: milli_core::Index, rx: Receiver<Message>, progress: &Progress) {
    // Leftovers of an earlier process that stopped between its two commits.
    if let Err(e) = drain_search(&env, &tables, &milli) {
        tracing::error!("search index catch-up failed: {e}");
    }
    let mut deferred = 0usize;
    let mut last_seq = 0u64;
    loop {
        let first = if deferred > 0 {
            match rx.try_recv() {
                Ok(m) => Some(m),
                Err(crossbeam_channel::TryRecvError::Empty) => None,
                Err(crossbeam_channel::TryRecvError::Disconnected) => return finish(&env, &tables, &milli, progress, last_seq),
            }
        } else {
            match rx.recv() {
                Ok(m) => Some(m),
                Err(_) => return,
            }
        };
        let Some(first) = first else {
            // The queue is empty: let search catch up, then wait for more.
            catch_up(&env, &tables, &milli, progress, last_seq);
            deferred = 0;
            continue;
        };
        let mut batch = Vec::new();
        let mut stop = false;
        for message in std::iter::once(first).chain(rx.try_iter()) {
            match message {
                Message::Write { ops, seq, reply } => batch.push((ops, seq, reply)),
                Message::Shutdown => {
                    stop = true;
                    break;
                }
            }
        }
        if !batch.is_empty() {
            let written: usize = batch.iter().map(|(ops, _, _)| ops.len()).sum();
            let outcome = apply_batch(&env, &tables, &batch);
            let max_seq = batch.iter().map(|(_, seq, _)| *seq).max().unwrap_or(last_seq);
            match outcome {
                Ok(results) => {
                    progress.graph_applied(max_seq);
                    for ((_, _, reply), result) in batch.into_iter().zip(results) {
                        let _ = reply.send(Ok(result));
                    }
                }
                Err(e) => {
                    tracing::error!("index write failed: {e}");
                    progress.graph_applied(max_seq);
                    let message = e.to_string();
                    for (_, _, reply) in batch {
                        let _ = reply.send(Err(IndexError::Search(message.clone())));
                    }
                }
            }
            last_seq = max_seq;
            deferred += written;
        }
        if stop {
            return finish(&env, &tables, &milli, progress, last_seq);
        }
        if deferred >= MAX_DEFERRED || rx.is_empty() {
            catch_up(&env, &tables, &milli, progress, last_seq);
            deferred = 0;
        }
    }
}

fn finish(env: &Env<WithoutTls>, tables: &Tables, milli: &milli_core::Index, progress: &Progress, seq: u64) {
    catch_up(env, tables, milli, progress, seq);
}

fn catch_up(env: &Env<WithoutTls>, tables: &Tables, milli: &milli_core::Index, progress: &Progress, seq: u64) {
    if let Err(e) = drain_search(env, tables, milli) {
        tracing::error!("search indexing failed (the files are unaffected; `gitmem reindex` rebuilds): {e}");
    }
    progress.search_applied(seq);
}

fn drain_search(env: &Env<WithoutTls>, tables: &Tables, milli: &milli_core::Index) -> Result<(), IndexError> {
    while super::search::flush(env, tables, milli, SEARCH_BATCH)? == SEARCH_BATCH {}
    Ok(())
}

type Batch = Vec<(Vec<WriteOp>, u64, Reply)>;

/// One graph transaction for the whole batch; each message in a nested transaction so that a
/// failing message does not undo the others.
fn apply_batch(env: &Env<WithoutTls>, tables: &Tables, batch: &Batch) -> Result<Vec<Vec<Result<OpOutcome, String>>>, IndexError> {
    let mut wtxn = env.write_txn()?;
    let mut all = Vec::with_capacity(batch.len());
    let mut graph = GraphWriter::new(tables);
    for (ops, _, _) in batch {
        let mut nested = env.nested_write_txn(&mut wtxn)?;
        let mut results = Vec::with_capacity(ops.len());
        let mut failed = false;
        for op in ops {
            match graph.apply(&mut nested, op) {
                Ok(outcome) => results.push(Ok(outcome)),
                Err(e) => {
                    results.push(Err(e.to_string()));
                    failed = true;
                }
            }
        }
        if failed && results.iter().any(|r| matches!(r, Err(m) if m.starts_with("index storage error"))) {
            nested.abort();
        } else {
            nested.commit()?;
        }
        all.push(results);
    }
    graph.finish(&mut wtxn)?;
    wtxn.commit()?;
    Ok(all)
}
