//! `gitmem model`: the embedding models and what was embedded with them.

use serde_json::json;

use super::{Format, Output, Stream};
use crate::service::hub::ModelFetch;
use crate::service::models::ModelInfo;
use crate::service::oneshot::ModelChanged;
use crate::service::semantic::SemanticStatus;

fn megabytes(m: &ModelInfo) -> f64 {
    m.bytes as f64 / 1e6
}

/// A model installed from a folder, a file or the hub, and the notes embedded with it.
pub fn installed(changed: &ModelChanged) -> Output {
    let m = &changed.model;
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
        if m.is_default {
            "; semantic search is off until another model is chosen"
        } else {
            ""
        }
    ))
}

pub fn models(models: &[ModelInfo], format: Format) -> Output {
    Output::either(
        format,
        || {
            if models.is_empty() {
                return "no model installed; search is lexical (gitmem model install SOURCE)\n"
                    .to_string();
            }
            models
                .iter()
                .map(|m| {
                    format!(
                        "{}{}\t{} dimensions\t{:.1} MB\t{}\n",
                        m.name,
                        if m.is_default { " (default)" } else { "" },
                        m.dimensions,
                        megabytes(m),
                        m.source
                    )
                })
                .collect()
        },
        || json!(models),
    )
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
