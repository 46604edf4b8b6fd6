//! The reranker `[search] reranker` chooses: loaded once, loaded again when its folder is
//! installed anew (by this process or another), and its state for `status`. A reranker that
//! cannot be loaded or run never fails a search: search answers in its fused order, the log
//! says why once, and status says it for as long as it lasts.

use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use super::models::{models_dir, RerankerChoice};
use crate::{Engine, Store};
use embed::CrossEncoder;

/// How many fused results are reranked when `[search] reranker_candidates` is unset: Basic
/// Memory's default. Each costs a forward pass: with a MiniLM-L6 cross-encoder on two busy
/// cores, 20 took 1.6-1.9 s a search (docs/search-quality.md).
pub(crate) const DEFAULT_CANDIDATES: usize = 20;

/// This process's reranker: the last one loaded, or why it could not be.
#[derive(Default)]
pub struct Reranking {
    loaded: Mutex<Option<Loaded>>,
    /// The last failure logged, so a broken reranker is logged once and not at every search.
    logged: Mutex<Option<String>>,
}

struct Loaded {
    name: String,
    /// When its folder's card was written: a reinstall writes it anew.
    stamp: Option<SystemTime>,
    outcome: std::result::Result<Arc<CrossEncoder>, String>,
}

/// What `gitmem status` and sync_status say about reranking.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RerankStatus {
    /// `[search] reranker` unset or `"none"`.
    Off,
    /// Hybrid and vector results are reranked, the first `candidates` of each.
    On { model: String, candidates: usize },
    /// The reranker works, but there is no hybrid or vector search to rerank: semantic
    /// search is off.
    Idle { model: String },
    /// `[search] reranker` names no installed model.
    NotInstalled { model: String, hub_id: bool },
    /// The reranker cannot be loaded or run.
    Broken { model: String, error: String },
}

/// Why a chosen reranker does not rerank.
enum Failure {
    NotInstalled { model: String, hub_id: bool },
    Broken { model: String, error: String },
}

impl From<Failure> for RerankStatus {
    fn from(failure: Failure) -> Self {
        match failure {
            Failure::NotInstalled { model, hub_id } => RerankStatus::NotInstalled { model, hub_id },
            Failure::Broken { model, error } => RerankStatus::Broken { model, error },
        }
    }
}

/// How many of the fused results the reranker reorders.
pub(crate) fn reranker_candidates(store: &Store) -> usize {
    store
        .config()
        .search
        .reranker_candidates
        .unwrap_or(DEFAULT_CANDIDATES)
}

/// The chosen reranker, loaded; why not when it is chosen and cannot be.
fn load_reranker(engine: &Engine) -> std::result::Result<Option<Arc<CrossEncoder>>, Failure> {
    let name = match crate::models::reranker_choice(&engine.store) {
        RerankerChoice::Off => return Ok(None),
        RerankerChoice::NotInstalled { wanted, hub_id } => {
            return Err(Failure::NotInstalled {
                model: wanted,
                hub_id,
            })
        }
        RerankerChoice::Installed(name) => name,
    };
    let dir = models_dir(&engine.store.config().root).join(&name);
    let stamp = vault::fs::modified(&dir.join("gitmem-model.json"));
    let mut loaded = engine
        .reranking
        .loaded
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let current = loaded
        .as_ref()
        .filter(|l| l.name == name && l.stamp == stamp);
    let outcome = match current {
        Some(l) => l.outcome.clone(),
        None => {
            let outcome = CrossEncoder::load(&dir, &name)
                .map(Arc::new)
                .map_err(|e| e.to_string());
            *loaded = Some(Loaded {
                name: name.clone(),
                stamp,
                outcome: outcome.clone(),
            });
            outcome
        }
    };
    outcome
        .map(Some)
        .map_err(|error| Failure::Broken { model: name, error })
}

/// The reranker to use, if one is chosen and works; why not is logged (once).
pub(super) fn reranker(engine: &Engine) -> Option<Arc<CrossEncoder>> {
    match load_reranker(engine) {
        Ok(reranker) => reranker,
        Err(Failure::NotInstalled { model, .. }) => {
            reranker_failed(engine, &format!("{model} is not installed"));
            None
        }
        Err(Failure::Broken { model, error }) => {
            reranker_failed(engine, &format!("{model} cannot be loaded: {error}"));
            None
        }
    }
}

/// Logs why the reranker did not rerank (`the reranker ...`), unless that was the last
/// thing logged.
pub(super) fn reranker_failed(engine: &Engine, why: &str) {
    let message = format!("reranking is off: the reranker {why}");
    let mut logged = engine
        .reranking
        .logged
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if logged.as_deref() != Some(message.as_str()) {
        tracing::warn!("{message}; search answers in its fused order");
        *logged = Some(message);
    }
}

pub(crate) fn reranker_status(engine: &Engine) -> RerankStatus {
    match load_reranker(engine) {
        Ok(None) => RerankStatus::Off,
        Ok(Some(reranker)) if crate::models::chosen_model(&engine.store).is_some() => {
            RerankStatus::On {
                model: reranker.name().to_string(),
                candidates: reranker_candidates(&engine.store),
            }
        }
        Ok(Some(reranker)) => RerankStatus::Idle {
            model: reranker.name().to_string(),
        },
        Err(failure) => failure.into(),
    }
}
