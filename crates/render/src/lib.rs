//! Basic Memory's text and JSON renderings of service outcomes, and what the `gitmem` commands
//! print. Pure functions: an adapter picks the format, calls the service once and hands the
//! outcome here.

pub mod activity;
pub mod auth;
pub mod chatgpt;
pub mod context;
pub mod correct;
pub mod crypto;
pub mod decay;
pub mod directory;
pub mod git;
pub mod graph;
pub mod graph_export;
pub mod history;
pub mod import;
pub mod inspect;
pub mod links;
pub mod memory;
pub mod metrics;
pub mod models;
pub mod notes;
pub mod oauth;
pub mod pack;
pub mod posix;
pub mod projects;
pub mod relocate;
pub mod retrieval;
pub mod schema;
pub mod search;
pub mod status;

use note::redact::Redactions;
use serde_json::{json, Value};

/// A time in ISO 8601, UTC with milliseconds: the form every JSON answer gives times in.
pub fn iso_from_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

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
    /// A refusal: what was asked was not done. Over MCP an error result (`isError`) whose
    /// text is the guidance, or the JSON payload as text, as Basic Memory 0.24 raises them:
    /// a client that reads a plain result as success must not take it for one.
    Refused(String),
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

    /// A refusal in `format`: the guidance text, or the JSON payload as compact text.
    pub fn refusal(
        format: Format,
        text: impl FnOnce() -> String,
        json: impl FnOnce() -> Value,
    ) -> Rendered {
        Rendered::Refused(match format {
            Format::Text => text(),
            Format::Json => json().to_string(),
        })
    }
}

impl From<Rendered> for Output {
    /// A tool's answer as a command prints it: the text without trailing blank lines, or the
    /// JSON pretty-printed, on stdout.
    fn from(rendered: Rendered) -> Output {
        match rendered {
            Rendered::Text(text) => Output::out(format!("{}\n", text.trim_end())),
            Rendered::Json(value) => Output::json(&value),
            Rendered::Refused(text) => Output::err(format!("{}\n", text.trim_end())),
        }
    }
}

/// Where a piece of a command's output goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// What a command prints, piece by piece in the order it is written: results on stdout,
/// warnings and notes on stderr, each beside the result it belongs to.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Output {
    pub pieces: Vec<(Stream, String)>,
}

impl Output {
    /// `text` on stdout, as it is (lines end in their own newlines).
    pub fn out(text: impl Into<String>) -> Output {
        let mut output = Output::default();
        output.push(Stream::Stdout, text);
        output
    }

    /// `text` and a newline on stdout.
    pub fn line(text: &str) -> Output {
        Output::out(format!("{text}\n"))
    }

    /// `text` on stderr: a warning or a note beside the results.
    pub fn err(text: impl Into<String>) -> Output {
        let mut output = Output::default();
        output.push(Stream::Stderr, text);
        output
    }

    /// `value` pretty-printed on stdout.
    pub fn json(value: &Value) -> Output {
        let text = serde_json::to_string_pretty(value).expect("a JSON value always serialises");
        Output::out(format!("{text}\n"))
    }

    /// `text`, or `value` pretty-printed, as `format` asks.
    pub fn either(
        format: Format,
        text: impl FnOnce() -> String,
        json: impl FnOnce() -> Value,
    ) -> Output {
        match format {
            Format::Text => Output::out(text()),
            Format::Json => Output::json(&json()),
        }
    }

    /// A listing: as text a line per item, or `none` (which says what to do about it) when
    /// there is nothing to list; as JSON, `json`.
    pub fn listing<T>(
        format: Format,
        items: &[T],
        none: &str,
        line: impl Fn(&T) -> String,
        json: impl FnOnce() -> Value,
    ) -> Output {
        let text = || {
            if items.is_empty() {
                none.to_string()
            } else {
                items.iter().map(line).collect()
            }
        };
        Output::either(format, text, json)
    }

    pub fn push(&mut self, stream: Stream, text: impl Into<String>) {
        let text = text.into();
        if !text.is_empty() {
            self.pieces.push((stream, text));
        }
    }

    pub fn append(&mut self, other: Output) {
        self.pieces.extend(other.pieces);
    }
}

/// Adds `redacted: [{kind, count}]` to a JSON answer when a value was replaced.
pub fn with_redacted(mut answer: Value, redacted: &Redactions) -> Value {
    if let (false, Some(object)) = (redacted.is_empty(), answer.as_object_mut()) {
        let kinds: Vec<Value> = redacted
            .kinds()
            .iter()
            .map(|(kind, count)| json!({"kind": kind, "count": count}))
            .collect();
        object.insert("redacted".into(), Value::Array(kinds));
    }
    answer
}
