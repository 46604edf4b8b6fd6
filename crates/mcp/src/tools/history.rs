//! Tools over a versioned project's history: note_history, note_diff, restore_note.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::{self, FormatArgs, ProjectArgs};
use super::{answer, parse, schema_of, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec};
use render::{self, Format};

pub const NOTE_HISTORY: ToolSpec = ToolSpec {
    name: "note_history",
    title: "Note History",
    description: "The commits that changed a note in a versioned project, newest first, following renames: commit, time, author and message. Also finds a deleted note by its path, title or permalink.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<NoteHistoryArgs>,
    handler: note_history,
    dotted: None,
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoteHistoryArgs {
    /// The note: permalink, title, path or memory:// URL
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    /// At most this many versions (default 20)
    #[serde(default, deserialize_with = "args::int")]
    pub limit: Option<i64>,
    #[serde(flatten)]
    pub project: ProjectArgs,
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn note_history(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: NoteHistoryArgs = tri!(parse(NOTE_HISTORY.name, raw));
    let format = tri!(a.format.format(Format::Text));
    let limit = a.limit.unwrap_or(20).max(1) as usize;
    let outcome = ctx
        .app
        .note_history(&ctx.choice(&a.project), &a.identifier, limit);
    answer(NOTE_HISTORY.name, outcome, |h| {
        render::history::note_history(h, format)
    })
}

pub const NOTE_DIFF: ToolSpec = ToolSpec {
    name: "note_diff",
    title: "Note Diff",
    description: "A unified diff of a note between two versions (commits from note_history), or between a version and the working file. Without `from` and `to`: its last change.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<NoteDiffArgs>,
    handler: note_diff,
    dotted: None,
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct NoteDiffArgs {
    /// The note: permalink, title, path or memory:// URL
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    /// The older version (a commit); default: the version before the last change
    #[serde(default, deserialize_with = "args::string")]
    pub from: Option<String>,
    /// The newer version (a commit); default: the working file
    #[serde(default, deserialize_with = "args::string")]
    pub to: Option<String>,
    #[serde(flatten)]
    pub project: ProjectArgs,
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn note_diff(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: NoteDiffArgs = tri!(parse(NOTE_DIFF.name, raw));
    let format = tri!(a.format.format(Format::Text));
    let outcome = ctx.app.note_diff(
        &ctx.choice(&a.project),
        &a.identifier,
        a.from.as_deref(),
        a.to.as_deref(),
    );
    answer(NOTE_DIFF.name, outcome, |d| {
        render::history::note_diff(d, format)
    })
}

pub const RESTORE_NOTE: ToolSpec = ToolSpec {
    name: "restore_note",
    title: "Restore Note",
    description: "Bring back a note as it was in an earlier version (a commit from note_history), or a deleted note. The restore is a new change; nothing in the history is lost.",
    hints: Hints::DESTRUCTIVE.idempotent(true),
    schema: schema_of::<RestoreNoteArgs>,
    handler: restore_note,
    dotted: None,
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct RestoreNoteArgs {
    /// The note: permalink, title, path or memory:// URL (a deleted note too)
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    /// The version to bring back: a commit from note_history
    #[serde(deserialize_with = "args::required_string")]
    pub version: String,
    #[serde(flatten)]
    pub project: ProjectArgs,
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn restore_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: RestoreNoteArgs = tri!(parse(RESTORE_NOTE.name, raw));
    let format = tri!(a.format.format(Format::Text));
    let outcome = ctx
        .app
        .restore_note(&ctx.choice(&a.project), &a.identifier, &a.version);
    answer(RESTORE_NOTE.name, outcome, |r| {
        render::history::restored(r, format)
    })
}
