//! Tools over single notes: write, read, view, edit, move, delete, read_content.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args;
use super::tools::{
    check_page, output_format, parse, service_error, tri, Format, ToolCtx, ToolReply,
};
use crate::note::edit::{self, EditRequest, Operation};
use crate::note::identifier::normalize_identifier;
use crate::render::notes as text;
use crate::service::notes::{self, Lookup, WriteNoteOutcome, WriteNoteRequest};
use crate::service::ServiceError;

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
    /// Project name (default: the default project)
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    /// Project external id (wins over `project`)
    #[serde(default, deserialize_with = "args::string")]
    pub project_id: Option<String>,
    /// Cloud workspace (accepted for compatibility; gitmem is local)
    #[serde(default, deserialize_with = "args::string")]
    pub workspace: Option<String>,
    /// Tags: a list, a comma-separated string or a JSON array string
    #[serde(default, deserialize_with = "args::string_list")]
    #[schemars(with = "Option<Vec<String>>")]
    pub tags: Option<Vec<String>>,
    /// Note type (snake_cased), default "note"
    #[serde(default, alias = "entity_type", deserialize_with = "args::string")]
    pub note_type: Option<String>,
    /// Extra front matter keys
    #[serde(default, deserialize_with = "args::object")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub metadata: Option<Map<String, Value>>,
    /// Replace an existing note with the same file name
    #[serde(default, deserialize_with = "args::boolean")]
    pub overwrite: Option<bool>,
    /// "text" (default) or "json"
    #[serde(default, deserialize_with = "args::string")]
    pub output_format: Option<String>,
}

pub fn write_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "write_note";
    let a: WriteNoteArgs = tri!(parse(TOOL, raw));
    let format = tri!(output_format(a.output_format.as_deref(), Format::Text));
    let project = tri!(ctx.project(TOOL, a.project.as_deref(), a.project_id.as_deref()));
    let request = WriteNoteRequest {
        title: a.title.clone(),
        content: a.content,
        directory: a.directory.clone(),
        tags: a.tags.map(|t| crate::note::parse_tags(&json!(t))),
        note_type: a.note_type,
        metadata: a.metadata,
        overwrite: a.overwrite,
    };
    match ctx.app.write_note(&project, &request) {
        Ok(WriteNoteOutcome::Written(w)) => match format {
            Format::Text => ToolReply::Text(text::written(&w, &project.name)),
            Format::Json => ToolReply::Json(json!({
                "title": w.title,
                "permalink": w.permalink,
                "file_path": w.file_path,
                "checksum": w.checksum,
                "action": if w.created { "created" } else { "updated" },
            })),
        },
        Ok(WriteNoteOutcome::Conflict {
            title, permalink, ..
        }) => match format {
            Format::Text => ToolReply::Text(text::conflict(&title, &permalink, &project.name)),
            Format::Json => ToolReply::Json(json!({
                "title": title, "permalink": permalink, "file_path": null, "checksum": null,
                "action": "conflict", "error": "NOTE_ALREADY_EXISTS",
            })),
        },
        Err(ServiceError::Security(message)) => match format {
            Format::Text => ToolReply::Text(text::guidance("Error", &message)),
            Format::Json => ToolReply::Json(json!({
                "title": a.title, "permalink": null, "file_path": null, "checksum": null,
                "action": "created", "error": "SECURITY_VALIDATION_ERROR",
            })),
        },
        Err(e) => service_error(TOOL, e),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadNoteArgs {
    /// Title, permalink, file path, memory:// URL or id
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project_id: Option<String>,
    /// Page of the fallback suggestions
    #[serde(default, alias = "page_number", deserialize_with = "args::int")]
    #[schemars(with = "Option<i64>")]
    pub page: Option<i64>,
    #[serde(
        default,
        alias = "limit",
        alias = "per_page",
        deserialize_with = "args::int"
    )]
    #[schemars(with = "Option<i64>")]
    pub page_size: Option<i64>,
    #[serde(default, deserialize_with = "args::string")]
    pub output_format: Option<String>,
    /// JSON mode: return the whole file, front matter included
    #[serde(default, deserialize_with = "args::boolean")]
    pub include_frontmatter: Option<bool>,
}

/// Finds a note for reading: strict resolution, then an exact title among title-search hits.
fn find_for_read(
    ctx: &ToolCtx,
    project: &crate::config::Project,
    identifier: &str,
) -> Result<Option<crate::index::NoteRecord>, ServiceError> {
    match ctx.app.resolve(project, identifier)? {
        Lookup::Found(note) => return Ok(Some(*note)),
        Lookup::Ambiguous(mut notes) => return Ok(Some(notes.remove(0))),
        Lookup::NotFound => {}
    }
    let ident = normalize_identifier(identifier);
    let request = crate::service::search::SearchRequest {
        query: Some(ident.clone()),
        search_type: Some("title".into()),
        page_size: 100,
        ..Default::default()
    };
    if let Ok(found) = ctx.app.search(project, &request) {
        if let Some(hit) = found
            .results
            .iter()
            .find(|r| r.title.to_lowercase() == ident.to_lowercase())
        {
            return ctx.app.note_by_id(&hit.external_id);
        }
    }
    Ok(None)
}

fn identifier_safe(identifier: &str) -> bool {
    let ident = identifier
        .trim()
        .strip_prefix("memory://")
        .unwrap_or(identifier.trim());
    crate::vault::path::validate_relative(ident).is_ok()
}

pub fn read_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "read_note";
    let a: ReadNoteArgs = tri!(parse(TOOL, raw));
    let format = tri!(output_format(a.output_format.as_deref(), Format::Text));
    let (page, page_size) = tri!(check_page(TOOL, a.page, a.page_size, 10, None));
    let project = tri!(ctx.project_for_identifier(
        TOOL,
        &a.identifier,
        a.project.as_deref(),
        a.project_id.as_deref(),
    ));
    if !identifier_safe(&a.identifier) {
        let message = format!(
            "Identifier '{}' is not allowed - paths must stay within project boundaries",
            a.identifier
        );
        return match format {
            Format::Text => ToolReply::Text(text::guidance("Error", &message)),
            Format::Json => ToolReply::Json(json!({
                "title": null, "permalink": null, "file_path": null, "content": null, "frontmatter": null,
                "error": "SECURITY_VALIDATION_ERROR",
            })),
        };
    }
    let found = match find_for_read(ctx, &project, &a.identifier) {
        Ok(f) => f,
        Err(e) => return service_error(TOOL, e),
    };
    // A note whose file just vanished (renamed or deleted, the watcher not yet done) reads as
    // not found rather than as a server failure.
    let file = match found.map(|note| ctx.app.read_note_file(&project, &note)) {
        Some(Ok(f)) => Some(f),
        Some(Err(ServiceError::Io(e))) if e.kind() == std::io::ErrorKind::NotFound => None,
        Some(Err(e)) => return service_error(TOOL, e),
        None => None,
    };
    if let Some(file) = file {
        let note = file.note.clone();
        return match format {
            Format::Text => ToolReply::Text(file.text),
            Format::Json => {
                let (body, frontmatter) = notes::split_note_text(&file.text);
                let content = if a.include_frontmatter.unwrap_or(false) {
                    file.text.clone()
                } else {
                    body
                };
                let mut v = json!({
                    "title": note.title, "permalink": note.permalink, "file_path": note.path,
                    "content": content, "frontmatter": frontmatter,
                });
                if let Some(source) = note
                    .metadata
                    .get("source")
                    .filter(|s| s["origin"] == "linked_folder")
                {
                    v["source"] = source.clone();
                    v["tags"] = json!(note.tags);
                }
                ToolReply::Json(v)
            }
        };
    }
    let ident = normalize_identifier(&a.identifier);
    let related = ctx
        .app
        .search(
            &project,
            &crate::service::search::SearchRequest {
                query: Some(ident.clone()),
                page,
                page_size,
                ..Default::default()
            },
        )
        .map(|r| r.results)
        .unwrap_or_default();
    match format {
        Format::Json => {
            let mut v = json!({"title": null, "permalink": null, "file_path": null, "content": null, "frontmatter": null});
            if !related.is_empty() {
                v["related_results"] = related
                    .iter()
                    .map(|r| json!({"title": r.title, "permalink": r.permalink, "file_path": r.file_path}))
                    .collect();
            }
            ToolReply::Json(v)
        }
        Format::Text if related.is_empty() => {
            ToolReply::Text(text::read_not_found(&a.identifier, &project.name))
        }
        Format::Text => {
            let list: Vec<(String, Option<String>)> = related
                .into_iter()
                .map(|r| (r.title, r.permalink))
                .collect();
            ToolReply::Text(text::read_related(&a.identifier, &project.name, &list))
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ViewNoteArgs {
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project_id: Option<String>,
}

pub fn view_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ViewNoteArgs = tri!(parse("view_note", raw));
    let mut read_args = Map::new();
    read_args.insert("identifier".into(), json!(a.identifier));
    if let Some(p) = &a.project {
        read_args.insert("project".into(), json!(p));
    }
    if let Some(p) = &a.project_id {
        read_args.insert("project_id".into(), json!(p));
    }
    match read_note(ctx, &read_args) {
        ToolReply::Text(t) if t.contains("# Note Not Found") => ToolReply::Text(t),
        ToolReply::Text(t) => {
            let title = crate::note::frontmatter::locate(&t)
                .and_then(|b| crate::note::frontmatter::parse_yaml(&t[b.yaml]).ok())
                .and_then(|m| m.get("title").and_then(Value::as_str).map(String::from))
                .unwrap_or_else(|| normalize_identifier(&a.identifier));
            ToolReply::Text(text::view(&title, &t))
        }
        other => match other {
            ToolReply::Error(e) => ToolReply::Error(e.replace("'read_note'", "'view_note'")),
            other => other,
        },
    }
}

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
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub workspace: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project_id: Option<String>,
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
    #[schemars(with = "Option<i64>")]
    pub expected_replacements: Option<i64>,
    /// replace_section also replaces nested subsections (default true)
    #[serde(default, deserialize_with = "args::boolean")]
    pub replace_subsections: Option<bool>,
    /// Front matter keys to add or change
    #[serde(default, deserialize_with = "args::object")]
    #[schemars(with = "Option<Map<String, Value>>")]
    pub metadata: Option<Map<String, Value>>,
    #[serde(default, deserialize_with = "args::string")]
    pub output_format: Option<String>,
}

#[derive(JsonSchema)]
#[schemars(rename_all = "snake_case")]
#[allow(dead_code)]
enum EditOperation {
    Append,
    Prepend,
    FindReplace,
    ReplaceSection,
    InsertBeforeSection,
    InsertAfterSection,
}

fn edit_failed(format: Format, title: &str, body: &str, code: &str, identifier: &str) -> ToolReply {
    match format {
        Format::Text => ToolReply::Text(text::guidance(title, body)),
        Format::Json => ToolReply::Json(json!({
            "title": null, "permalink": null, "file_path": null, "checksum": null,
            "operation": null, "fileCreated": false, "error": code, "identifier": identifier,
        })),
    }
}

pub fn edit_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "edit_note";
    let a: EditNoteArgs = tri!(parse(TOOL, raw));
    let format = tri!(output_format(a.output_format.as_deref(), Format::Text));
    let Some(operation) = Operation::parse(&a.operation) else {
        return ToolReply::Error(format!(
            "Error calling tool '{TOOL}': Invalid operation '{}'. Must be one of: {}",
            a.operation,
            Operation::ALL.join(", ")
        ));
    };
    if operation == Operation::FindReplace
        && a.find_text.as_deref().is_none_or(|t| t.trim().is_empty())
    {
        return ToolReply::Error(format!("Error calling tool '{TOOL}': find_text parameter is required for find_replace operation"));
    }
    if matches!(
        operation,
        Operation::ReplaceSection | Operation::InsertBeforeSection | Operation::InsertAfterSection
    ) && a.section.as_deref().is_none_or(|s| s.trim().is_empty())
    {
        return ToolReply::Error(format!(
            "Error calling tool '{TOOL}': section parameter is required for {} operation",
            operation.name()
        ));
    }
    if let Some(meta) = &a.metadata {
        let nulls: Vec<&str> = meta
            .iter()
            .filter(|(_, v)| v.is_null())
            .map(|(k, _)| k.as_str())
            .collect();
        if !nulls.is_empty() {
            return ToolReply::Error(format!(
                "Error calling tool '{TOOL}': metadata values cannot be null (key deletion is not supported): {}",
                nulls.join(", ")
            ));
        }
    }
    let expected = a.expected_replacements.unwrap_or(1);
    if expected < 1 {
        return ToolReply::Error(format!(
            "Error calling tool '{TOOL}': expected_replacements must be >= 1, got {expected}"
        ));
    }
    let project = tri!(ctx.project_for_identifier(
        TOOL,
        &a.identifier,
        a.project.as_deref(),
        a.project_id.as_deref(),
    ));
    if !identifier_safe(&a.identifier) {
        return edit_failed(
            format,
            "Edit Failed - Security Validation Error",
            &format!(
                "Identifier '{}' is not allowed - paths must stay within project boundaries",
                a.identifier
            ),
            "SECURITY_VALIDATION_ERROR",
            &a.identifier,
        );
    }
    let request = EditRequest {
        operation,
        content: &a.content,
        section: a.section.as_deref(),
        find_text: a.find_text.as_deref(),
        expected_replacements: expected as usize,
        replace_subsections: a.replace_subsections.unwrap_or(true),
    };
    let summary = edit::summary(&request);
    let found = match ctx.app.resolve(&project, &a.identifier) {
        Ok(Lookup::Found(note)) => Some(*note),
        Ok(Lookup::Ambiguous(notes)) => {
            let list: Vec<String> = notes
                .iter()
                .map(|n| {
                    format!(
                        "{} (permalink: {})",
                        n.path,
                        n.permalink.as_deref().unwrap_or("")
                    )
                })
                .collect();
            return edit_failed(
                format,
                "Edit Failed - Ambiguous Identifier",
                &format!(
                    "Ambiguous identifier '{}' matches {} notes: {}. Pass an exact permalink or external_id to disambiguate.",
                    a.identifier,
                    notes.len(),
                    list.join("; ")
                ),
                "AMBIGUOUS_IDENTIFIER",
                &a.identifier,
            );
        }
        Ok(Lookup::NotFound) => match ctx.app.index_file_if_present(&project, &a.identifier) {
            Ok(found) => found,
            Err(e) => return service_error(TOOL, e),
        },
        Err(e) => return service_error(TOOL, e),
    };
    let Some(note) = found else {
        if !matches!(operation, Operation::Append | Operation::Prepend) {
            return edit_failed(
                format,
                "Edit Failed - Note Not Found",
                &format!(
                    "The note '{}' could not be found in project '{}'.\n\nCheck the identifier with `search_notes(query=\"{}\")`, or use operation \"append\" to create it.",
                    a.identifier,
                    project.name,
                    normalize_identifier(&a.identifier)
                ),
                "ENTITY_RESOLUTION_FAILED",
                &a.identifier,
            );
        }
        let path_part = a
            .identifier
            .trim()
            .strip_prefix("memory://")
            .unwrap_or(a.identifier.trim());
        let first = path_part.split('/').next().unwrap_or("");
        if a.identifier.trim().starts_with("memory://")
            && path_part.contains('/')
            && ctx.app.project(Some(first)).is_err()
            && first != project.permalink
        {
            return edit_failed(
                format,
                "Edit Failed - Unresolved Project Route",
                &format!("'{first}' in '{}' is not a project, and edit_note does not create notes in an unknown project.", a.identifier),
                "UNRESOLVED_PROJECT_ROUTE",
                &a.identifier,
            );
        }
        let stripped = path_part
            .strip_prefix(&format!("{}/", project.permalink))
            .unwrap_or(path_part);
        let (dir, title) = notes::split_identifier_path(stripped);
        let path = crate::note::filename::note_file_path(&dir, &title, false);
        let include = ctx.app.config().compat.permalinks_include_project;
        let permalink = crate::note::permalink::note_permalink(&project.name, &path, include);
        let body_text = notes::new_note_text(
            &title,
            &permalink,
            &a.metadata.clone().unwrap_or_default(),
            &a.content,
        );
        return match ctx.app.create_note_file(&project, &path, &body_text) {
            Ok(w) => {
                let created_summary =
                    format!("Created note with {} lines", a.content.split('\n').count());
                match format {
                    Format::Text => ToolReply::Text(text::edited(
                        &w,
                        &project.name,
                        operation.name(),
                        &created_summary,
                        true,
                    )),
                    Format::Json => ToolReply::Json(json!({
                        "title": w.title, "permalink": w.permalink, "file_path": w.file_path,
                        "checksum": w.checksum, "operation": operation.name(), "fileCreated": true,
                    })),
                }
            }
            Err(e) => service_error(TOOL, e),
        };
    };
    let file = match ctx.app.read_note_file(&project, &note) {
        Ok(f) => f,
        Err(e) => return service_error(TOOL, e),
    };
    let metadata_only = matches!(operation, Operation::Append | Operation::Prepend)
        && a.content.is_empty()
        && a.metadata.is_some();
    let edited = if metadata_only {
        Ok(file.text.clone())
    } else {
        edit::apply(&file.text, &request)
    };
    let edited = match edited {
        Ok(t) => t,
        Err(e) => {
            let (title, code) = match &e {
                edit::EditError::TextNotFound(_) => {
                    ("Edit Failed - Text Not Found", "TEXT_NOT_FOUND")
                }
                edit::EditError::WrongCount { .. } => (
                    "Edit Failed - Wrong Replacement Count",
                    "WRONG_REPLACEMENT_COUNT",
                ),
                edit::EditError::DuplicateSection(_) => (
                    "Edit Failed - Duplicate Section Headers",
                    "DUPLICATE_SECTION",
                ),
                edit::EditError::SectionNotFound(_) => {
                    ("Edit Failed - Section Not Found", "SECTION_NOT_FOUND")
                }
                _ => ("Edit Failed", "EDIT_FAILED"),
            };
            let advice = match &e {
                edit::EditError::WrongCount { found, .. } => format!(
                    "\n\nRead the note first, then either set expected_replacements={found} or give a more specific find_text."
                ),
                edit::EditError::TextNotFound(_) => "\n\nRead the note first and copy the exact text to replace.".to_string(),
                _ => String::new(),
            };
            return edit_failed(
                format,
                title,
                &format!("Error editing note '{}': {e}{advice}", a.identifier),
                code,
                &a.identifier,
            );
        }
    };
    let mut new_text = match &a.metadata {
        Some(meta) => edit::merge_metadata(&edited, meta),
        None => edited,
    };
    new_text = notes::follow_h1(&file.text, &new_text, &note.title);
    match ctx.app.replace_note_text(&project, &note, &new_text) {
        Ok(w) => match format {
            Format::Text => ToolReply::Text(text::edited(
                &w,
                &project.name,
                operation.name(),
                &summary,
                false,
            )),
            Format::Json => ToolReply::Json(json!({
                "title": w.title, "permalink": w.permalink, "file_path": w.file_path,
                "checksum": w.checksum, "operation": operation.name(), "fileCreated": false,
            })),
        },
        Err(e) => service_error(TOOL, e),
    }
}

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
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project_id: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub output_format: Option<String>,
}

fn move_failed(format: Format, title: &str, body: &str, code: &str, source: &str) -> ToolReply {
    match format {
        Format::Text => ToolReply::Text(text::guidance(title, body)),
        Format::Json => ToolReply::Json(json!({
            "moved": false, "title": null, "permalink": null, "file_path": null,
            "source": source, "destination": null, "error": code,
        })),
    }
}

fn extension(path: &str) -> Option<String> {
    let name = path.rsplit('/').next().unwrap_or(path);
    name.rfind('.')
        .filter(|i| *i > 0)
        .map(|i| name[i + 1..].to_lowercase())
}

pub fn move_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "move_note";
    let a: MoveNoteArgs = tri!(parse(TOOL, raw));
    let format = tri!(output_format(a.output_format.as_deref(), Format::Text));
    let dest_path = a.destination_path.clone().filter(|p| !p.trim().is_empty());
    let dest_folder = a.destination_folder.clone();
    let is_dir = a.is_directory.unwrap_or(false);
    let src = a.identifier.clone();
    if dest_path.is_some() && dest_folder.is_some() {
        return move_failed(
            format,
            "Move Failed - Invalid Parameters",
            "Cannot specify both destination_path and destination_folder. Use one or the other.",
            "MUTUALLY_EXCLUSIVE_PARAMS",
            &src,
        );
    }
    if dest_path.is_none() && dest_folder.is_none() {
        return move_failed(
            format,
            "Move Failed - Missing Destination",
            "Either destination_path or destination_folder must be provided.",
            "MISSING_DESTINATION",
            &src,
        );
    }
    if is_dir && dest_folder.is_some() {
        return move_failed(
            format,
            "Move Failed - Invalid Parameters",
            "destination_folder is only supported for single-file moves, not directory moves.",
            "DESTINATION_FOLDER_NOT_FOR_DIRECTORIES",
            &src,
        );
    }
    let requested = dest_path
        .clone()
        .or(dest_folder.clone())
        .unwrap_or_default();
    if crate::vault::path::validate_relative(requested.trim()).is_err() {
        return move_failed(
            format,
            "Move Failed - Security Validation Error",
            &format!("Destination '{requested}' is not allowed - paths must stay within project boundaries"),
            "SECURITY_VALIDATION_ERROR",
            &src,
        );
    }
    let project = tri!(ctx.project_for_identifier(
        TOOL,
        &a.identifier,
        a.project.as_deref(),
        a.project_id.as_deref(),
    ));
    if let Some(first) = requested.split('/').next() {
        if requested.contains('/') {
            if let Ok(other) = ctx.app.project(Some(first)) {
                if other.name != project.name {
                    return move_failed(format, "Move Failed - Cross-Project Move Not Supported", &format!("'{first}' is another project; move_note moves notes within project '{}' only.", project.name), "CROSS_PROJECT_MOVE_NOT_SUPPORTED", &src);
                }
            }
        }
    }
    if is_dir {
        let folder = normalize_identifier(&src).trim_matches('/').to_string();
        let dest = requested.trim().trim_matches('/').to_string();
        if !identifier_safe(&folder) {
            return move_failed(
                format,
                "Move Failed - Security Validation Error",
                &format!(
                    "Identifier '{src}' is not allowed - paths must stay within project boundaries"
                ),
                "SECURITY_VALIDATION_ERROR",
                &src,
            );
        }
        let notes = match ctx.app.notes_under(&project, &folder) {
            Ok(n) => n,
            Err(e) => return service_error(TOOL, e),
        };
        if notes.is_empty() {
            return move_failed(
                format,
                "Directory Move Failed - No Files Found",
                &format!("No files found in directory `{folder}`."),
                "NO_FILES_FOUND",
                &src,
            );
        }
        let (mut ok, mut failed) = (Vec::new(), Vec::new());
        for note in &notes {
            let target = format!("{dest}{}", &note.path[folder.len()..]);
            match ctx.app.move_note_file(&project, note, &target) {
                Ok(_) => ok.push(format!("{} → {target}", note.path)),
                Err(e) => failed.push(format!("{}: {e}", note.path)),
            }
        }
        return match format {
            Format::Text => ToolReply::Text(text::directory_summary(
                "Directory Moved Successfully",
                ("Successfully moved", "Moved Files"),
                &[("Source", folder.clone()), ("Destination", dest.clone())],
                notes.len(),
                &ok,
                &failed,
                &project.name,
            )),
            Format::Json => ToolReply::Json(json!({
                "moved": failed.is_empty(), "title": null, "permalink": null, "file_path": null,
                "source": folder, "destination": dest, "is_directory": true, "total_files": notes.len(),
                "successful_moves": ok.len(), "failed_moves": failed.len(),
            })),
        };
    }
    let note = match ctx.app.resolve(&project, &src) {
        Ok(Lookup::Found(n)) => *n,
        Ok(Lookup::Ambiguous(mut n)) => n.remove(0),
        Ok(Lookup::NotFound) => {
            let ident = normalize_identifier(&src);
            return move_failed(
                format,
                "Move Failed - Note Not Found",
                &format!(
                    "Could not find a note matching '{src}'.\n\nTry:\n- `{}`\n- `{}`\n- `search_notes(query=\"{ident}\")` to find the exact identifier",
                    crate::render::notes::capitalize(&ident),
                    crate::note::permalink::generate_permalink(&ident, false)
                ),
                "ENTITY_RESOLUTION_FAILED",
                &src,
            );
        }
        Err(e) => return service_error(TOOL, e),
    };
    let destination = match (&dest_path, &dest_folder) {
        (Some(p), _) => p.trim().trim_start_matches('/').to_string(),
        (None, Some(folder)) => {
            let name = note.path.rsplit('/').next().unwrap_or(&note.path);
            let folder = folder.trim().trim_matches('/');
            if folder.is_empty() {
                name.to_string()
            } else {
                format!("{folder}/{name}")
            }
        }
        (None, None) => unreachable!("checked above"),
    };
    if destination == note.path {
        return move_failed(
            format,
            "Move Failed - Destination Same As Source",
            &format!("'{destination}' is where the note already is."),
            "DESTINATION_SAME_AS_SOURCE",
            &src,
        );
    }
    match (extension(&destination), extension(&note.path)) {
        (None, _) => {
            return move_failed(format, "Move Failed - File Extension Required", &format!("The destination '{destination}' needs a file extension, e.g. '{destination}.md'."), "FILE_EXTENSION_REQUIRED", &src);
        }
        (Some(d), Some(s)) if d != s => {
            return move_failed(
                format,
                "Move Failed - File Extension Mismatch",
                &format!("The destination extension '.{d}' does not match the note's '.{s}'."),
                "FILE_EXTENSION_MISMATCH",
                &src,
            );
        }
        _ => {}
    }
    let exists = ctx
        .app
        .project_file(&project, &destination)
        .map(|p| p.exists())
        .unwrap_or(false);
    if exists {
        return move_failed(
            format,
            "Move Failed - Destination Already Exists",
            &format!("A file already exists at '{destination}'; move_note never overwrites."),
            "DESTINATION_EXISTS",
            &src,
        );
    }
    match ctx.app.move_note_file(&project, &note, &destination) {
        Ok(moved) => match format {
            Format::Text => ToolReply::Text(text::moved(
                &note.title,
                &moved.path,
                moved.permalink.as_deref().unwrap_or(""),
                &project.name,
            )),
            Format::Json => ToolReply::Json(json!({
                "moved": true, "title": moved.title, "permalink": moved.permalink, "file_path": moved.path,
                "source": src, "destination": destination,
            })),
        },
        Err(e) => service_error(TOOL, e),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeleteNoteArgs {
    /// The note (or folder, with is_directory) to delete
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    #[serde(default, alias = "is_dir", deserialize_with = "args::boolean")]
    pub is_directory: Option<bool>,
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project_id: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub output_format: Option<String>,
}

pub fn delete_note(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "delete_note";
    let a: DeleteNoteArgs = tri!(parse(TOOL, raw));
    let format = tri!(output_format(a.output_format.as_deref(), Format::Text));
    let project = tri!(ctx.project_for_identifier(
        TOOL,
        &a.identifier,
        a.project.as_deref(),
        a.project_id.as_deref(),
    ));
    let failed = |title: &str, message: String, code: &str| match format {
        Format::Text => ToolReply::Text(text::guidance(title, &message)),
        Format::Json => ToolReply::Json(json!({
            "deleted": false, "title": null, "permalink": null, "file_path": null, "error": code,
        })),
    };
    if !identifier_safe(&a.identifier) {
        return failed(
            "Delete Failed - Security Validation Error",
            format!(
                "Identifier '{}' is not allowed - paths must stay within project boundaries",
                a.identifier
            ),
            "SECURITY_VALIDATION_ERROR",
        );
    }
    if a.is_directory.unwrap_or(false) {
        let raw_folder = normalize_identifier(&a.identifier);
        let folder = raw_folder
            .strip_prefix(&format!("{}/", project.permalink))
            .unwrap_or(&raw_folder)
            .trim_matches('/')
            .to_string();
        let notes = match ctx.app.notes_under(&project, &folder) {
            Ok(n) => n,
            Err(e) => return service_error(TOOL, e),
        };
        if notes.is_empty() {
            return match format {
                Format::Text => ToolReply::Text(format!(
                    "# Directory Delete Failed - No Files Found\n\nNo files found for directory `{folder}`.\nTotal files: 0.\n\n<!-- Project: {} -->",
                    project.name
                )),
                Format::Json => ToolReply::Json(json!({
                    "deleted": false, "is_directory": true, "identifier": folder, "total_files": 0,
                    "successful_deletes": 0, "failed_deletes": 0, "deleted_files": [], "errors": [],
                    "error": "NO_FILES_FOUND",
                })),
            };
        }
        let (mut ok, mut failed) = (Vec::new(), Vec::new());
        for note in &notes {
            match ctx.app.delete_note_file(&project, note) {
                Ok(()) => ok.push(note.path.clone()),
                Err(e) => failed.push(format!("{}: {e}", note.path)),
            }
        }
        return match format {
            Format::Text => ToolReply::Text(text::directory_summary(
                "Directory Deleted Successfully",
                ("Successfully deleted", "Deleted Files"),
                &[("Directory", folder.clone())],
                notes.len(),
                &ok,
                &failed,
                &project.name,
            )),
            Format::Json => ToolReply::Json(json!({
                "deleted": failed.is_empty(), "is_directory": true, "identifier": folder,
                "total_files": notes.len(), "successful_deletes": ok.len(), "failed_deletes": failed.len(),
                "deleted_files": ok, "errors": failed,
            })),
        };
    }
    let note = match ctx.app.resolve(&project, &a.identifier) {
        Ok(Lookup::Found(n)) => Some(*n),
        Ok(Lookup::Ambiguous(_)) => {
            return failed(
                "Delete Failed - Ambiguous Identifier",
                format!(
                    "'{}' matches several notes. Pass an exact permalink or external_id.",
                    a.identifier
                ),
                "AMBIGUOUS_IDENTIFIER",
            )
        }
        Ok(Lookup::NotFound) => None,
        Err(e) => return service_error(TOOL, e),
    };
    let Some(note) = note else {
        return match format {
            Format::Text => ToolReply::Text("false".into()),
            Format::Json => ToolReply::Json(
                json!({"deleted": false, "title": null, "permalink": null, "file_path": null}),
            ),
        };
    };
    match ctx.app.delete_note_file(&project, &note) {
        Ok(()) => match format {
            Format::Text => ToolReply::Text("true".into()),
            Format::Json => ToolReply::Json(
                json!({"deleted": true, "title": note.title, "permalink": note.permalink, "file_path": note.path}),
            ),
        },
        Err(e) => failed(
            "Delete Failed",
            format!("Error deleting note '{}': {e}", a.identifier),
            "DELETE_FAILED",
        ),
    }
}

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
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project_id: Option<String>,
}

pub fn read_content(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "read_content";
    let a: ReadContentArgs = tri!(parse(TOOL, raw));
    let project = tri!(ctx.project_for_identifier(
        TOOL,
        &a.path,
        a.project.as_deref(),
        a.project_id.as_deref(),
    ));
    if !identifier_safe(&a.path) {
        return ToolReply::Json(json!({
            "type": "error",
            "error": format!("Path '{}' is not allowed - paths must stay within project boundaries", a.path),
        }));
    }
    let ident = normalize_identifier(&a.path);
    let note = match ctx.app.note_by_path(&project, &ident) {
        Ok(Some(n)) => Some(n),
        Ok(None) => match ctx.app.resolve(&project, &a.path) {
            Ok(Lookup::Found(n)) => Some(*n),
            Ok(Lookup::Ambiguous(mut n)) => Some(n.remove(0)),
            Ok(Lookup::NotFound) => None,
            Err(e) => return service_error(TOOL, e),
        },
        Err(e) => return service_error(TOOL, e),
    };
    let (path, content_type) = match &note {
        Some(n) => (n.path.clone(), n.content_type.clone()),
        None => (
            ident.clone(),
            crate::service::ingest::content_type(&ident).to_string(),
        ),
    };
    let file = match ctx.app.project_file(&project, &path) {
        Ok(f) => f,
        Err(_) => {
            return ToolReply::Json(json!({
                "type": "error",
                "error": format!("Path '{}' is not allowed - paths must stay within project boundaries", a.path),
            }))
        }
    };
    match std::fs::read(&file) {
        Ok(bytes) => ToolReply::Json(crate::service::content::read_content_payload(
            &bytes,
            &content_type,
        )),
        Err(_) => service_error(
            TOOL,
            ServiceError::Invalid(format!("Resource not found: {path}")),
        ),
    }
}
