//! `gitmem model`: the embedding models and rerankers, what was embedded with them, and the
//! reranker's state as status tells it.

use serde_json::{json, Value};

use super::{Format, Output, Stream};
use embed::ModelKind;
use engine::hub::ModelFetch;
use engine::models::ModelInfo;
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
    Output::line(&format!(
        "nothing to fetch; {}",
        super::status::semantic_line(semantic)
    ))
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
