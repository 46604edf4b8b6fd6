//! Read-your-writes. A client's horizon is the last graph commit one of its writes went into;
//! its searches wait until the search index has that commit, and no further, so a reader never
//! waits behind another client's burst of writes while a writer always finds what it wrote.
//!
//! A horizon applies to the calls run inside [`Horizon::scope`] on that thread: the service
//! does every write and every search of a call on the calling thread, so neither has to carry
//! it. Outside a scope (the CLI, the watcher, start-up work, tests) a search waits for every
//! acknowledged write, as a single-client process expects.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The graph commit one client has to see in search results (0: it has written nothing).
#[derive(Debug, Default)]
pub struct Horizon(AtomicU64);

thread_local! {
    static CURRENT: RefCell<Vec<Arc<Horizon>>> = const { RefCell::new(Vec::new()) };
}

impl Horizon {
    /// Runs `work` as a client known by this horizon alone.
    pub fn scope<R>(self: &Arc<Self>, work: impl FnOnce() -> R) -> R {
        scope(std::slice::from_ref(self), work)
    }

    pub fn commit(&self) -> u64 {
        self.0.load(Ordering::SeqCst)
    }
}

/// Runs `work` as a client known by several horizons (its connection and its token): its
/// writes move each of them, its searches wait for the furthest.
pub fn scope<R>(horizons: &[Arc<Horizon>], work: impl FnOnce() -> R) -> R {
    let outer = CURRENT.with(|c| c.replace(horizons.to_vec()));
    let _restore = Restore(outer);
    work()
}

/// The horizons of the current thread's client, for work it hands to another thread.
pub fn current() -> Vec<Arc<Horizon>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// Puts the enclosing scope back, also when `work` panics.
struct Restore(Vec<Arc<Horizon>>);

impl Drop for Restore {
    fn drop(&mut self) {
        let outer = std::mem::take(&mut self.0);
        CURRENT.with(|c| *c.borrow_mut() = outer);
    }
}

/// Records that a write of the current client is in graph commit `seq` (or an earlier one).
pub(super) fn wrote(seq: u64) {
    CURRENT.with(|c| {
        for horizon in c.borrow().iter() {
            horizon.0.fetch_max(seq, Ordering::SeqCst);
        }
    });
}

/// The graph commit a search on this thread must wait for: the current client's horizon, or
/// `everything` outside a scope.
pub(super) fn wanted(everything: u64) -> u64 {
    CURRENT.with(|c| {
        let horizons = c.borrow();
        if horizons.is_empty() {
            return everything;
        }
        horizons
            .iter()
            .map(|h| h.commit())
            .max()
            .unwrap_or(0)
            .min(everything)
    })
}

/// The horizons of credentials: a client is known by its token as well as by its connection,
/// so what it wrote with one request is found by the next, whichever way that one comes.
#[derive(Debug, Default)]
pub struct Horizons(Mutex<HashMap<String, Arc<Horizon>>>);

impl Horizons {
    pub fn of(&self, credential: &str) -> Arc<Horizon> {
        self.0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(credential.to_string())
            .or_default()
            .clone()
    }
}
