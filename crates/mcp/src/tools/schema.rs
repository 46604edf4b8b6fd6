//! Basic Memory's schema tools (Picoschema): `schema_validate`, `schema_infer`,
//! `schema_diff`. All read only; text by default, JSON with `output_format: "json"`.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::{self, FormatArgs, ProjectArgs};
use super::{answer, parse, schema_of, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec};
use render::{self, Format};

/// schema_infer's least share of notes for an optional field, as upstream.
const DEFAULT_THRESHOLD: f64 = 0.25;

pub const SCHEMA_VALIDATE: ToolSpec = ToolSpec {
    name: "schema_validate",
    title: "Validate Schema",
    description: "Validate notes against their Picoschema definitions. `identifier`: one note; `note_type`: every note of that type; neither: every type that has a schema. A note's schema is its own `schema:` mapping, the schema note its `schema:` string names, or the schema note (`type: schema`) whose `entity` is the note's type; its fields are observation categories (`- [field] value`) and relation types (`- field [[Target]]`).",
    hints: Hints::READ_ONLY,
    schema: schema_of::<ValidateArgs>,
    handler: schema_validate,
    dotted: None,
    icon: Icon::Search,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ValidateArgs {
    /// Note type to validate every note of (e.g. "person")
    #[serde(default, deserialize_with = "args::string")]
    pub note_type: Option<String>,
    /// One note to validate (permalink, title or path); wins over note_type
    #[serde(default, deserialize_with = "args::string")]
    pub identifier: Option<String>,
    #[serde(flatten)]
    pub project: ProjectArgs,
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn schema_validate(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ValidateArgs = tri!(parse(SCHEMA_VALIDATE.name, raw));
    let format = tri!(a.format.format(Format::Text));
    let outcome = ctx.app.schema_validate(
        &ctx.choice(&a.project),
        a.note_type.as_deref(),
        a.identifier.as_deref(),
    );
    answer(SCHEMA_VALIDATE.name, outcome, |o| {
        render::schema::validate(o, format)
    })
}

pub const SCHEMA_INFER: ToolSpec = ToolSpec {
    name: "schema_infer",
    title: "Infer Schema",
    description: "Analyze existing notes and suggest a Picoschema definition: the observation categories and relation types of every note of `note_type`, by the share of notes holding them (95% and more: required; `threshold` (default 0.25) and more: optional; rarer: excluded), with a schema note's front matter ready to save.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<InferArgs>,
    handler: schema_infer,
    dotted: None,
    icon: Icon::Search,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct InferArgs {
    /// The note type to analyze (e.g. "person")
    #[serde(deserialize_with = "args::required_string")]
    pub note_type: String,
    /// Least share of notes (0-1) for an optional field; default 0.25
    #[serde(default, deserialize_with = "args::float")]
    pub threshold: Option<f64>,
    #[serde(flatten)]
    pub project: ProjectArgs,
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn schema_infer(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: InferArgs = tri!(parse(SCHEMA_INFER.name, raw));
    let format = tri!(a.format.format(Format::Text));
    let outcome = ctx.app.schema_infer(
        &ctx.choice(&a.project),
        &a.note_type,
        a.threshold.unwrap_or(DEFAULT_THRESHOLD),
    );
    answer(SCHEMA_INFER.name, outcome, |o| {
        render::schema::infer(&a.note_type, o, format)
    })
}

pub const SCHEMA_DIFF: ToolSpec = ToolSpec {
    name: "schema_diff",
    title: "Schema Diff",
    description: "Detect drift between a schema definition and actual note usage: fields common in the notes of `note_type` but not declared (25% and more), declared fields rare in them (under 10%), and fields declared single but used as arrays or the reverse.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<DiffArgs>,
    handler: schema_diff,
    dotted: None,
    icon: Icon::Search,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DiffArgs {
    /// The note type to check (e.g. "person")
    #[serde(deserialize_with = "args::required_string")]
    pub note_type: String,
    #[serde(flatten)]
    pub project: ProjectArgs,
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn schema_diff(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: DiffArgs = tri!(parse(SCHEMA_DIFF.name, raw));
    let format = tri!(a.format.format(Format::Text));
    let outcome = ctx.app.schema_diff(&ctx.choice(&a.project), &a.note_type);
    answer(SCHEMA_DIFF.name, outcome, |o| {
        render::schema::diff(&a.note_type, o, format)
    })
}
