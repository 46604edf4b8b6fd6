//! Tools over single notes: write, read, view, edit, move, delete, read_content.

use std::borrow::Cow;

use rmcp::schemars::{self, json_schema, JsonSchema, Schema, SchemaGenerator};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::{self, FormatArgs, PageArgs, ProjectArgs};
use super::{
    answer, object, parse, schema_of, service_error, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec,
};
use engine::edit::EditNoteRequest;
use engine::error::NoteError;
use engine::read::Page;
use engine::relocate::{DeleteNoteRequest, MoveNoteRequest};
use engine::write::WriteNoteRequest;
use note::edit::Operation;
use render::{self, Format};

pub const WRITE_NOTE: ToolSpec = ToolSpec {
    name: "write_note",
    title: "Write Note",
    description: "Create or update a markdown note. The note is written as a file with front matter (title, type, permalink, tags); bullets like `- [category] fact #tag` become observations and `- relation_type [[Target]]` become relations. Refuses to replace an existing note unless overwrite=true.",
    hints: Hints::DESTRUCTIVE.idempotent(false),
    schema: schema_of::<WriteNoteArgs>,
    handler: write_note,
    dotted: None,
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct WriteNoteArgs {
    /// The note's title (also its file name, sanitised)
    #[serde(deserialize_with = "args::required_string")]
    pub title: String,
    /// Markdown body; may start with its own front matter
    #[serde(deserialize_with = "args::required_string")]
    pub content: String,
    /// Folder inside the project ("/" or "" for the root)
    #[serde(
        alias = "folder",
        alias = "dir",
        alias = "path",
        deserialize_with = "args::required_string"
    )]
    pub directory: String,
    #[serde(flatten)]
    pub project: ProjectArgs,
    /// Cloud workspace (accepted for compatibility; gitmem is local)
    #[serde(default, deserialize_with = "args::string")]
    // Accepted so that Basic Memory's clients are not refused; gitmem has no workspaces.
    #[allow(dead_code)]
    pub workspace: Option<String>,
    /// Tags: a list, a comma-separated string or a JSON array string
    #[serde(default, deserialize_with = "args::string_list")]
    pub tags: Option<Vec<String>>,
    /// Note type (snake_cased), default "note"
    #[serde(default, alias = "entity_type", deserialize_with = "args::string")]
    pub note_type: Option<String>,
    /// Extra front matter keys
    #[serde(default, deserialize_with = "args::object")]
    pub metadata: Option<Map<String, Value>>,
    /// Replace an existing note with the same file name
    #[serde(default, deserialize_with = "args::boolean")]
    pub overwrite: Option<bool>,
    /// With overwrite=true: replace only if the note is still the revision whose `checksum`
    /// you read (read_note); else NOTE_REVISION_CONFLICT and the current checksum
    #[serde(default, deserialize_with = "args::string")]
    pub expected_checksum: Option<String>,
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn write_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: WriteNoteArgs = tri!(parse(WRITE_NOTE.name, raw));
    let format = tri!(a.format.format(Format::Text));
    let request = WriteNoteRequest {
        title: a.title,
        content: a.content,
        directory: a.directory,
        tags: a.tags,
        note_type: a.note_type,
        metadata: a.metadata,
        overwrite: a.overwrite,
        expected_checksum: a.expected_checksum,
    };
    let outcome = ctx.app.write_note(&ctx.choice(&a.project), &request);
    answer(WRITE_NOTE.name, outcome, |o| {
        render::notes::write_note(&request.title, o, format)
    })
}

pub const READ_NOTE: ToolSpec = ToolSpec {
    name: "read_note",
    title: "Read Note",
    description: "Read a note by title, permalink, file path, memory:// URL or id. Returns the file's exact text; when nothing matches, suggests related notes.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<ReadNoteArgs>,
    handler: read_note,
    dotted: None,
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadNoteArgs {
    /// Title, permalink, file path, memory:// URL or id
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    #[serde(flatten)]
    pub project: ProjectArgs,
    /// Page of the fallback suggestions
    #[serde(flatten)]
    pub page: PageArgs,
    #[serde(flatten)]
    pub format: FormatArgs,
    /// JSON mode: return the whole file, front matter included
    #[serde(default, deserialize_with = "args::boolean")]
    pub include_frontmatter: Option<bool>,
    /// First line to read (1-based, inclusive), counted over the whole file with its front
    /// matter; 1 when only end_line is given
    #[serde(default, deserialize_with = "args::int")]
    pub start_line: Option<i64>,
    /// Last line to read (inclusive); the end of the note when omitted
    #[serde(default, deserialize_with = "args::int")]
    pub end_line: Option<i64>,
    /// false: only the note's title, permalink, file_path, checksum and updated_at, to
    /// refresh the checksum expected_checksum takes (default true)
    #[serde(default, deserialize_with = "args::boolean")]
    pub include_content: Option<bool>,
}

fn read_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = READ_NOTE.name;
    let a: ReadNoteArgs = tri!(parse(TOOL, raw));
    let format = tri!(a.format.format(Format::Text));
    let (page, page_size) = tri!(a.page.checked(TOOL, 10, Some(100)));
    let suggestions = Page { page, page_size };
    let choice = ctx.choice(&a.project);
    let lines = a.start_line.is_some() || a.end_line.is_some();
    let content = a.include_content.unwrap_or(true);
    if lines && !content {
        return service_error(TOOL, NoteError::LinesWithoutContent.into());
    }
    if lines {
        let outcome = ctx
            .app
            .read_note_lines(&choice, &a.identifier, a.start_line, a.end_line);
        return answer(TOOL, outcome, |o| render::notes::read_note_lines(o, format));
    }
    let outcome = ctx.app.read_note(&choice, &a.identifier, suggestions);
    answer(TOOL, outcome, |o| match content {
        true => render::notes::read_note(o, format, a.include_frontmatter.unwrap_or(false)),
        false => render::notes::read_note_metadata(o, format),
    })
}

pub const VIEW_NOTE: ToolSpec = ToolSpec {
    name: "view_note",
    title: "View Note",
    description: "Read a note and ask the client to display it as a markdown artifact.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<ViewNoteArgs>,
    handler: view_note,
    dotted: None,
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ViewNoteArgs {
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    #[serde(flatten)]
    pub project: ProjectArgs,
}

fn view_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ViewNoteArgs = tri!(parse(VIEW_NOTE.name, raw));
    let outcome = ctx.app.view_note(&ctx.choice(&a.project), &a.identifier);
    answer(VIEW_NOTE.name, outcome, render::notes::view_note)
}

pub const EDIT_NOTE: ToolSpec = ToolSpec {
    name: "edit_note",
    title: "Edit Note",
    description: "Edit a note in place: append, prepend, find_replace (with expected_replacements), replace_section, insert_before_section or insert_after_section; optionally merge metadata into its front matter. append/prepend create the note when it does not exist.",
    hints: Hints::DESTRUCTIVE,
    schema: schema_of::<EditNoteArgs>,
    handler: edit_note,
    dotted: None,
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditNoteArgs {
    /// Title, permalink, file path or memory:// URL of the note
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    /// append, prepend, find_replace, replace_section, insert_before_section, insert_after_section
    #[serde(deserialize_with = "args::required_string")]
    #[schemars(with = "EditOperation")]
    pub operation: String,
    /// The new content (or the replacement text for find_replace)
    #[serde(
        alias = "new_content",
        alias = "replacement",
        alias = "replace_with",
        deserialize_with = "args::required_string"
    )]
    pub content: String,
    #[serde(flatten)]
    pub project: ProjectArgs,
    #[serde(default, deserialize_with = "args::string")]
    // Accepted so that Basic Memory's clients are not refused; gitmem has no workspaces.
    #[allow(dead_code)]
    pub workspace: Option<String>,
    /// Section heading, e.g. "## Notes"
    #[serde(
        default,
        alias = "section_heading",
        alias = "heading",
        deserialize_with = "args::string"
    )]
    pub section: Option<String>,
    /// Text to find (find_replace)
    #[serde(
        default,
        alias = "find",
        alias = "old_text",
        alias = "old_content",
        alias = "search",
        deserialize_with = "args::string"
    )]
    pub find_text: Option<String>,
    /// How many occurrences find_replace must find (default 1)
    #[serde(default, deserialize_with = "args::int")]
    pub expected_replacements: Option<i64>,
    /// replace_section also replaces nested subsections (default true)
    #[serde(default, deserialize_with = "args::boolean")]
    pub replace_subsections: Option<bool>,
    /// Front matter keys to add or change
    #[serde(default, deserialize_with = "args::object")]
    pub metadata: Option<Map<String, Value>>,
    /// Edit only if the note is still the revision whose `checksum` you read (read_note);
    /// else NOTE_REVISION_CONFLICT and the current checksum
    #[serde(default, deserialize_with = "args::string")]
    pub expected_checksum: Option<String>,
    #[serde(flatten)]
    pub format: FormatArgs,
}

/// The operation names, for the schema only: the argument is parsed leniently as a string, and
/// the names are the ones `note::edit::Operation` takes.
struct EditOperation;

impl JsonSchema for EditOperation {
    fn schema_name() -> Cow<'static, str> {
        "EditOperation".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({
            "description": "The operation names, for the schema only: the argument is parsed leniently as a string.",
            "type": "string",
            "enum": Operation::ALL,
        })
    }
}

fn edit_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: EditNoteArgs = tri!(parse(EDIT_NOTE.name, raw));
    let format = tri!(a.format.format(Format::Text));
    let request = EditNoteRequest {
        identifier: a.identifier,
        operation: a.operation,
        content: a.content,
        section: a.section,
        find_text: a.find_text,
        expected_replacements: a.expected_replacements,
        replace_subsections: a.replace_subsections,
        metadata: a.metadata,
        expected_checksum: a.expected_checksum,
    };
    let outcome = ctx.app.edit_note(&ctx.choice(&a.project), &request);
    answer(EDIT_NOTE.name, outcome, |o| {
        render::notes::edit_note(o, format)
    })
}

pub const MOVE_NOTE: ToolSpec = ToolSpec {
    name: "move_note",
    title: "Move Note",
    description: "Move a note (or, with is_directory=true, a folder) to a new path or folder within the project. The note keeps its permalink and links.",
    hints: Hints::WRITES,
    schema: schema_of::<MoveNoteArgs>,
    handler: move_note,
    dotted: None,
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct MoveNoteArgs {
    /// The note (or folder, with is_directory) to move
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    /// New project-relative path, with the file extension (e.g. "archive/Note.md")
    #[serde(
        default,
        alias = "dest_path",
        alias = "new_path",
        alias = "to",
        alias = "destination",
        deserialize_with = "args::string"
    )]
    pub destination_path: Option<String>,
    /// Folder to move a single note into, keeping its file name
    #[serde(
        default,
        alias = "dest_folder",
        alias = "to_folder",
        deserialize_with = "args::string"
    )]
    pub destination_folder: Option<String>,
    #[serde(default, alias = "is_dir", deserialize_with = "args::boolean")]
    pub is_directory: Option<bool>,
    #[serde(flatten)]
    pub project: ProjectArgs,
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn move_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: MoveNoteArgs = tri!(parse(MOVE_NOTE.name, raw));
    let format = tri!(a.format.format(Format::Text));
    let request = MoveNoteRequest {
        identifier: a.identifier,
        destination_path: a.destination_path,
        destination_folder: a.destination_folder,
        is_directory: a.is_directory.unwrap_or(false),
    };
    let outcome = ctx.app.move_note(&ctx.choice(&a.project), &request);
    answer(MOVE_NOTE.name, outcome, |o| {
        render::relocate::move_note(&request.identifier, o, format)
    })
}

pub const DELETE_NOTE: ToolSpec = ToolSpec {
    name: "delete_note",
    title: "Delete Note",
    description: "Delete a note (or, with is_directory=true, every note in a folder). Returns true when something was deleted.",
    hints: Hints::DESTRUCTIVE,
    schema: schema_of::<DeleteNoteArgs>,
    handler: delete_note,
    dotted: None,
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeleteNoteArgs {
    /// The note (or folder, with is_directory) to delete
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    #[serde(default, alias = "is_dir", deserialize_with = "args::boolean")]
    pub is_directory: Option<bool>,
    #[serde(flatten)]
    pub project: ProjectArgs,
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn delete_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: DeleteNoteArgs = tri!(parse(DELETE_NOTE.name, raw));
    let format = tri!(a.format.format(Format::Text));
    let request = DeleteNoteRequest {
        identifier: a.identifier,
        is_directory: a.is_directory.unwrap_or(false),
    };
    let outcome = ctx.app.delete_note(&ctx.choice(&a.project), &request);
    answer(DELETE_NOTE.name, outcome, |o| {
        render::relocate::delete_note(o, format)
    })
}

pub const READ_CONTENT: ToolSpec = ToolSpec {
    name: "read_content",
    title: "Read Content",
    description: "Read a file's raw content: text as text, images re-encoded as JPEG (base64), other files as base64.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<ReadContentArgs>,
    handler: read_content,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(content),
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadContentArgs {
    /// File path, permalink, title or memory:// URL
    #[serde(
        alias = "file_path",
        alias = "filepath",
        alias = "file",
        deserialize_with = "args::required_string"
    )]
    pub path: String,
    #[serde(flatten)]
    pub project: ProjectArgs,
}

fn read_content(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ReadContentArgs = tri!(parse(READ_CONTENT.name, raw));
    let outcome = ctx.app.read_content(&ctx.choice(&a.project), &a.path);
    answer(READ_CONTENT.name, outcome, render::notes::read_content)
}

fn content(_: bool) -> Value {
    object(serde_json::json!({
        "type": {"type": "string", "enum": ["text", "image", "document", "error"]},
        "text": {"type": "string"},
        "content_type": {"type": "string"},
        "encoding": {"type": "string"},
        "source": {"type": "object"},
        "error": {"type": "string"},
    }))
}
