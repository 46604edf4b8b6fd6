//! Models fetched from a Hugging Face hub or a mirror of one: which files, from where, one
//! fetch at a time per data root, and the fetch's state in `models/fetch.json`, which
//! `status` reads in any process. What a fetch brings lands in a staging folder and replaces
//! nothing until it loads (`install_model`), so an interrupted or bad fetch leaves the
//! previous state working.

use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::{models_dir, ModelChoice, ModelInfo};
use crate::error::{DownloadError, ModelError, ServiceError, UserError};
use crate::{Engine, Store};
use vault;

/// Where models come from when neither `[search] hub` nor `HF_ENDPOINT` says otherwise.
pub(crate) const DEFAULT_HUB: &str = "https://huggingface.co";

/// The model semantic search uses unless told otherwise: Basic Memory's default, so a user who
/// switches finds what they found before.
pub(crate) const DEFAULT_MODEL: &str = "BAAI/bge-small-en-v1.5";

/// Fetched first; a model without them is refused.
const REQUIRED: &[&str] = &["config.json", "tokenizer.json"];
/// The weights, in order of preference: the first the hub has is fetched, the others not.
const WEIGHTS: &[&str] = &["model.safetensors", "pytorch_model.bin"];
/// Pooling, length and prompts; a model without them gets the usual defaults.
const OPTIONAL: &[&str] = &[
    "1_Pooling/config.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
    "modules.json",
];

const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// A hub that sends nothing for this long is given up on.
const READ_TIMEOUT: Duration = Duration::from_secs(60);
/// How often a running fetch rewrites its state file.
const STATE_EVERY: Duration = Duration::from_millis(500);

/// How far the fetch of one file has come.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Download {
    pub file: String,
    pub done: u64,
    /// The file's size, when the hub says it.
    pub total: Option<u64>,
}

/// What `models/fetch.json` records: a fetch under way, or the last one that failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub(crate) enum FetchState {
    Fetching {
        model: String,
        hub: String,
        progress: Option<Download>,
    },
    Failed {
        model: String,
        hub: String,
        error: String,
    },
}

impl FetchState {
    /// The model fetched or tried.
    pub fn model(&self) -> &str {
        match self {
            FetchState::Fetching { model, .. } | FetchState::Failed { model, .. } => model,
        }
    }
}

/// What a fetch did.
#[derive(Debug, Clone)]
pub enum ModelFetch {
    /// The chosen model is installed, or semantic search is off.
    NotNeeded,
    /// Another process of this data root is fetching it.
    Busy {
        model: String,
    },
    Fetched(ModelInfo),
    /// It failed; search stays lexical and the next start tries again.
    Failed {
        model: String,
        error: String,
    },
}

fn state_file(root: &Path) -> PathBuf {
    models_dir(root).join("fetch.json")
}

fn lock_file(root: &Path) -> PathBuf {
    models_dir(root).join("fetch.lock")
}

/// `HF_HUB_OFFLINE`, as the Hugging Face tools read it: set to a true value, nothing is
/// fetched.
fn offline_by_environment() -> bool {
    std::env::var("HF_HUB_OFFLINE").is_ok_and(|v| {
        matches!(
            v.trim().to_ascii_lowercase().as_str(),
            "1" | "true" | "yes" | "on"
        )
    })
}

/// Whether `source` names a hub model (`org/name`) rather than a file or folder.
pub(super) fn is_hub_id(source: &str) -> bool {
    let mut parts = source.split('/');
    let (Some(org), Some(name), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let part_ok = |p: &str| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    };
    part_ok(org) && part_ok(name) && !Path::new(source).exists()
}

/// Fetches the files of `model_id` from `hub` into `into`, telling `on_progress` as bytes
/// arrive.
pub(super) fn download(
    hub: &str,
    model_id: &str,
    into: &Path,
    on_progress: &dyn Fn(&Download),
) -> std::result::Result<(), DownloadError> {
    if offline_by_environment() {
        return Err(DownloadError::Offline);
    }
    let agent = ureq::AgentBuilder::new()
        .timeout_connect(CONNECT_TIMEOUT)
        .timeout_read(READ_TIMEOUT)
        .build();
    let token = std::env::var("HF_TOKEN")
        .ok()
        .filter(|t| !t.trim().is_empty());
    let fetch = |file: &str| {
        let url = format!(
            "{}/{model_id}/resolve/main/{file}",
            hub.trim_end_matches('/')
        );
        fetch_file(
            &agent,
            token.as_deref(),
            &url,
            &into.join(file),
            &|done, total| {
                on_progress(&Download {
                    file: file.to_string(),
                    done,
                    total,
                })
            },
        )
    };
    for file in REQUIRED {
        if !fetch(file)? {
            return Err(DownloadError::Missing(file.to_string()));
        }
    }
    let mut has_weights = false;
    for file in WEIGHTS {
        if fetch(file)? {
            has_weights = true;
            break;
        }
    }
    if !has_weights {
        return Err(DownloadError::Missing(WEIGHTS.join(" or ")));
    }
    for file in OPTIONAL {
        fetch(file)?;
    }
    Ok(())
}

/// One file; false when the hub has no such file.
fn fetch_file(
    agent: &ureq::Agent,
    token: Option<&str>,
    url: &str,
    to: &Path,
    on_bytes: &dyn Fn(u64, Option<u64>),
) -> std::result::Result<bool, DownloadError> {
    let mut request = agent.get(url);
    if let Some(token) = token {
        request = request.set("Authorization", &format!("Bearer {token}"));
    }
    let response = match request.call() {
        Ok(response) => response,
        Err(ureq::Error::Status(404, _)) => return Ok(false),
        Err(ureq::Error::Status(code, _)) => {
            return Err(DownloadError::Refused {
                url: url.to_string(),
                code,
            })
        }
        Err(ureq::Error::Transport(e)) => {
            return Err(DownloadError::Unreachable {
                message: e.to_string(),
            })
        }
    };
    let total = response
        .header("Content-Length")
        .and_then(|v| v.parse::<u64>().ok());
    let mut body = response.into_reader();
    let received =
        vault::fs::write_stream(to, &mut body, &|done| on_bytes(done, total)).map_err(|e| {
            DownloadError::Interrupted {
                url: url.to_string(),
                source: e,
            }
        })?;
    match total {
        Some(expected) if expected != received => Err(DownloadError::Truncated {
            url: url.to_string(),
            received,
            expected,
        }),
        _ => Ok(true),
    }
}

/// The hub models are fetched from: `[search] hub`, else `HF_ENDPOINT`, else the
/// Hugging Face hub.
pub(crate) fn hub(store: &Store) -> String {
    store
        .config()
        .search
        .hub
        .clone()
        .or_else(|| std::env::var("HF_ENDPOINT").ok())
        .filter(|h| !h.trim().is_empty())
        .unwrap_or_else(|| DEFAULT_HUB.to_string())
}

/// The state of this data root's model fetch, as any process sees it; a fetch whose
/// process is gone counts as none, and so does the state of another model than `model`
/// (one the configuration chose before).
pub(crate) fn fetch_state(store: &Store, model: &str) -> Option<FetchState> {
    let root = &store.config().root;
    let text = vault::fs::read_text(&state_file(root)).ok()?;
    let state: FetchState = serde_json::from_str(&text).ok()?;
    if state.model() != model {
        return None;
    }
    if matches!(state, FetchState::Fetching { .. }) {
        // The fetching process holds the lock for as long as it runs.
        let alive = matches!(vault::fs::try_lock(&lock_file(root)), Ok(None));
        return alive.then_some(state);
    }
    Some(state)
}

/// Fetches and installs the chosen model when it is a hub model not installed yet: the
/// start of `serve`, `reindex` and `search` calls this (in the background), and
/// `gitmem model fetch`. Failures are recorded for `status` and returned, never raised:
/// search stays lexical, and the next start tries again.
pub(crate) fn fetch_model(engine: &Engine, on_progress: &dyn Fn(&Download)) -> ModelFetch {
    let ModelChoice::ToFetch(model) = crate::models::model_choice(&engine.store) else {
        return ModelFetch::NotNeeded;
    };
    let root = engine.store.config().root.clone();
    let hub = hub(&engine.store);
    let failed = |error: String| {
        let state = FetchState::Failed {
            model: model.clone(),
            hub: hub.clone(),
            error: error.clone(),
        };
        record_fetch(&engine.store, &state);
        ModelFetch::Failed {
            model: model.clone(),
            error,
        }
    };
    if let Err(e) = vault::fs::make_dirs(&models_dir(&root)) {
        return failed(e.to_string());
    }
    let _lock = match vault::fs::try_lock(&lock_file(&root)) {
        Ok(Some(lock)) => lock,
        Ok(None) => return ModelFetch::Busy { model },
        Err(e) => return failed(e.to_string()),
    };
    // Another process may have finished the same fetch while this one waited to start.
    if !matches!(
        crate::models::model_choice(&engine.store),
        ModelChoice::ToFetch(_)
    ) {
        return ModelFetch::NotNeeded;
    }
    let fetching = |progress: Option<Download>| FetchState::Fetching {
        model: model.clone(),
        hub: hub.clone(),
        progress,
    };
    record_fetch(&engine.store, &fetching(None));
    let last_written = Cell::new(Instant::now());
    let installed = crate::models::install_model(engine, &model, None, &|download| {
        on_progress(download);
        if last_written.get().elapsed() >= STATE_EVERY {
            record_fetch(&engine.store, &fetching(Some(download.clone())));
            last_written.set(Instant::now());
        }
    });
    match installed {
        Ok(info) => {
            if let Err(e) = vault::fs::delete_file(&state_file(&root)) {
                tracing::warn!("cannot remove the finished fetch's state file: {e}");
            }
            ModelFetch::Fetched(info)
        }
        // Status says what to do about it; the download's own words are the reason.
        Err(ServiceError::User(UserError::Model(ModelError::Download { source, .. }))) => {
            failed(source.to_string())
        }
        Err(e) => failed(e.to_string()),
    }
}

fn record_fetch(store: &Store, state: &FetchState) {
    let path = state_file(&store.config().root);
    let bytes = serde_json::to_vec(state).expect("a fetch state always serialises");
    if let Err(e) = vault::fs::atomic_write(&path, &bytes) {
        tracing::warn!(
            "cannot record the model fetch's state in {}: {e}",
            path.display()
        );
    }
}

/// Starts `gitmem model fetch` as a process of its own, which outlives this one, when the
/// chosen model is still to be fetched and no other process is fetching it: a one-shot
/// `gitmem search` answers at once and leaves the fetch running. `exe` is the gitmem
/// binary. Returns the model being fetched.
pub(crate) fn fetch_model_in_background(store: &Store, exe: &Path) -> Option<String> {
    let ModelChoice::ToFetch(model) = crate::models::model_choice(store) else {
        return None;
    };
    if offline_by_environment() {
        return None;
    }
    let root = &store.config().root;
    if matches!(
        fetch_state(store, &model),
        Some(FetchState::Fetching { .. })
    ) {
        return Some(model);
    }
    let started = std::process::Command::new(exe)
        .arg("--root")
        .arg(root)
        .args(["model", "fetch"])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match started {
        Ok(_) => Some(model),
        Err(e) => {
            tracing::warn!("cannot start fetching {model} in the background: {e}");
            None
        }
    }
}
