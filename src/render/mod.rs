//! Basic Memory's text and JSON renderings of service outcomes. Pure functions: a tool adapter
//! picks the format, calls the service once and hands the outcome here.

pub mod activity;
pub mod chatgpt;
pub mod context;
pub mod directory;
pub mod history;
pub mod import;
pub mod notes;
pub mod oauth;
pub mod projects;
pub mod relocate;
pub mod retrieval;
pub mod search;

use serde_json::Value;

/// The output format a tool was asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

/// A rendered answer: text, or JSON (which MCP carries as text plus structured content).
#[derive(Debug, Clone, PartialEq)]
pub enum Rendered {
    Text(String),
    Json(Value),
}

impl Rendered {
    /// The text form or the JSON form, whichever `format` asks for. Both are built lazily.
    pub fn either(
        format: Format,
        text: impl FnOnce() -> String,
        json: impl FnOnce() -> Value,
    ) -> Rendered {
        match format {
            Format::Text => Rendered::Text(text()),
            Format::Json => Rendered::Json(json()),
        }
    }
}
