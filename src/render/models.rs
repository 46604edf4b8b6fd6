//! `gitmem model`: the embedding models and what was embedded with them.

use serde_json::json;

use super::{Format, Output};
use crate::service::models::ModelInfo;

fn megabytes(m: &ModelInfo) -> f64 {
    m.bytes as f64 / 1e6
}

/// A model installed from a folder, a file or the hub.
pub fn installed(m: &ModelInfo) -> Output {
    Output::line(&format!(
        "installed model '{}' ({} dimensions, {:.1} MB) at {}; it is the default",
        m.name,
        m.dimensions,
        megabytes(m),
        m.path.display()
    ))
}

/// A static model distilled from another.
pub fn distilled(m: &ModelInfo) -> Output {
    Output::line(&format!(
        "installed model '{}' ({} dimensions, {:.1} MB, {}); it is the default",
        m.name,
        m.dimensions,
        megabytes(m),
        m.source
    ))
}

pub fn used(m: &ModelInfo) -> Output {
    Output::line(&format!("model '{}' is the default", m.name))
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

/// Notes embedded by a command; nothing when there were none (or no model).
pub fn embedded(notes: usize) -> Output {
    if notes == 0 {
        return Output::default();
    }
    Output::line(&format!("embedded {notes} notes for semantic search"))
}
