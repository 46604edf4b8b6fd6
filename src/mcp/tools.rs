//! The tool surface: names, descriptions, annotations, input schemas, and one dispatcher that
//! both the MCP server and `gitmem tool NAME --args JSON` call.
//!
//! Three error styles are kept apart as in Basic Memory (compat 1.4): input the schema or the
//! service rejects becomes an MCP error result (`isError: true`); situations an agent should
//! read about become markdown guidance (`# Error …`, `# Move Failed …`); JSON-mode calls carry
//! an `error` code in the normal JSON shape.

use std::sync::Arc;

use rmcp::schemars::{self, JsonSchema};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use super::state::ServerState;
use crate::config::Project;
use crate::service::{App, ServiceError};

/// Unwraps a `Result<T, ToolReply>`, returning the reply from the tool on `Err`.
macro_rules! tri {
    ($result:expr) => {
        match $result {
            Ok(value) => value,
            Err(reply) => return reply,
        }
    };
}
pub(crate) use tri;

/// What a tool call returns, before it becomes MCP content.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolReply {
    /// A text result.
    Text(String),
    /// A JSON result: compact JSON text plus structured content (lists wrapped in `result`).
    Json(Value),
    /// An MCP error result (`isError: true`).
    Error(String),
}

impl ToolReply {
    pub fn is_error(&self) -> bool {
        matches!(self, ToolReply::Error(_))
    }

    /// The text a client sees.
    pub fn text(&self) -> String {
        match self {
            ToolReply::Text(t) | ToolReply::Error(t) => t.clone(),
            ToolReply::Json(v) => serde_json::to_string(v).unwrap_or_default(),
        }
    }
}

/// Everything a tool call can reach.
#[derive(Clone)]
pub struct ToolCtx {
    pub app: Arc<App>,
    pub state: Arc<ServerState>,
    /// `serve --project NAME`: every call uses this project.
    pub constrained: Option<String>,
    /// Also serve the dotted names (`project.link_folder`, `memory.sync`, ...).
    pub dotted_names: bool,
}

/// Dotted names served with `--dotted-names`, and the tool each one is.
pub const DOTTED_NAMES: &[(&str, &str)] = &[
    ("project.link_folder", "link_folder"),
    ("project.unlink_folder", "unlink_folder"),
    ("project.list_links", "list_links"),
    ("memory.sync", "sync"),
];

/// A tool's static description.
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: Option<bool>,
    pub schema: fn() -> Map<String, Value>,
}

pub fn schema_of<T: JsonSchema>() -> Map<String, Value> {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = serde_json::to_value(schema).unwrap_or_else(|_| json!({"type": "object"}));
    if let Some(map) = value.as_object_mut() {
        map.remove("$schema");
        map.remove("title");
        map.entry("type").or_insert(json!("object"));
        map.entry("properties").or_insert(json!({}));
    }
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Output format of tools that have one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Text,
    Json,
}

pub fn output_format(raw: Option<&str>, default: Format) -> Result<Format, ToolReply> {
    match raw.map(str::trim) {
        None | Some("") => Ok(default),
        Some("text") => Ok(Format::Text),
        Some("json") => Ok(Format::Json),
        Some(other) => Err(ToolReply::Error(format!(
            "output_format must be 'text' or 'json', got '{other}'"
        ))),
    }
}

/// Parses a tool's arguments; a schema violation is an MCP error result naming the parameter.
pub fn parse<T: DeserializeOwned>(tool: &str, args: &Map<String, Value>) -> Result<T, ToolReply> {
    let error = match serde_json::from_value::<T>(Value::Object(args.clone())) {
        Ok(parsed) => return Ok(parsed),
        Err(e) => e.to_string(),
    };
    if error.starts_with("missing field") {
        return Err(ToolReply::Error(format!(
            "Error calling tool '{tool}': invalid arguments: {error}"
        )));
    }
    // serde does not say which field a custom coercion rejected: the culprit is the argument
    // whose removal changes the error.
    let culprit = args.keys().find(|key| {
        let mut without = args.clone();
        without.remove(*key);
        match serde_json::from_value::<T>(Value::Object(without)) {
            Ok(_) => true,
            Err(e) => e.to_string() != error,
        }
    });
    Err(ToolReply::Error(match culprit {
        Some(key) => format!("Error calling tool '{tool}': invalid argument '{key}': {error}"),
        None => format!("Error calling tool '{tool}': invalid arguments: {error}"),
    }))
}

/// A service error as the MCP error result of `tool`.
pub fn service_error(tool: &str, e: ServiceError) -> ToolReply {
    ToolReply::Error(format!("Error calling tool '{tool}': {e}"))
}

pub fn check_page(
    tool: &str,
    page: Option<i64>,
    page_size: Option<i64>,
    default_size: i64,
    max: Option<i64>,
) -> Result<(usize, usize), ToolReply> {
    let page = page.unwrap_or(1);
    let size = page_size.unwrap_or(default_size);
    if page < 1 {
        return Err(ToolReply::Error(format!(
            "Error calling tool '{tool}': page must be >= 1, got {page}"
        )));
    }
    if size < 1 {
        return Err(ToolReply::Error(format!(
            "Error calling tool '{tool}': page_size must be >= 1, got {size}"
        )));
    }
    if let Some(max) = max {
        if size > max {
            return Err(ToolReply::Error(format!(
                "Error calling tool '{tool}': page_size must be <= {max}, got {size}"
            )));
        }
    }
    Ok((page as usize, size as usize))
}

impl ToolCtx {
    /// A context with fresh server state, as `gitmem tool` and the in-process test harness use.
    pub fn new(app: Arc<App>, constrained: Option<String>) -> Self {
        Self {
            app,
            state: Arc::new(ServerState::default()),
            constrained,
            dotted_names: true,
        }
    }

    /// The project a call works in (compat 1.6): the constrained one, else `project_id`, else
    /// `project`, else the default.
    pub fn project(
        &self,
        tool: &str,
        project: Option<&str>,
        project_id: Option<&str>,
    ) -> Result<Project, ToolReply> {
        if let Some(constrained) = &self.constrained {
            return self
                .app
                .project(Some(constrained))
                .map_err(|e| service_error(tool, e));
        }
        let named = project_id
            .filter(|s| !s.trim().is_empty())
            .or(project.filter(|s| !s.trim().is_empty()));
        match named {
            Some(name) => self.app.project(Some(name)).map_err(|e| service_error(tool, e)),
            None => self.app.project(None).map_err(|_| {
                let names: Vec<String> = self.app.projects(None).unwrap_or_default().into_iter().map(|p| p.name).collect();
                ToolReply::Error(format!(
                    "Error calling tool '{tool}': No project specified. Either set 'default_project' in config, or use 'project' argument.\nAvailable projects: {names:?}"
                ))
            }),
        }
    }

    /// The project of a note identifier: a `memory://` URL whose first segment names a project
    /// routes there (compat 5.2); anything else uses [`Self::project`].
    pub fn project_for_identifier(
        &self,
        tool: &str,
        identifier: &str,
        project: Option<&str>,
        project_id: Option<&str>,
    ) -> Result<Project, ToolReply> {
        match identifier.trim().strip_prefix("memory://") {
            Some(path) => self.project_for_url(tool, path, project, project_id),
            None => self.project(tool, project, project_id),
        }
    }

    /// A project named by the first segment of a memory URL, when no project was given.
    pub fn project_for_url(
        &self,
        tool: &str,
        path: &str,
        project: Option<&str>,
        project_id: Option<&str>,
    ) -> Result<Project, ToolReply> {
        if let Some(constrained) = &self.constrained {
            let first = path.split('/').next().unwrap_or("");
            let constrained_project = self
                .app
                .project(Some(constrained))
                .map_err(|e| service_error(tool, e))?;
            if let Ok(other) = self.app.project(Some(first)) {
                if other.name != constrained_project.name {
                    return Err(ToolReply::Error(format!(
                        "Error calling tool '{tool}': Project is constrained to '{}', cannot use '{}'.",
                        constrained_project.name, other.name
                    )));
                }
            }
            return Ok(constrained_project);
        }
        if project.is_none() && project_id.is_none() {
            let first = path.split('/').next().unwrap_or("");
            if let Some(p) = self
                .app
                .projects(None)
                .unwrap_or_default()
                .into_iter()
                .find(|p| p.permalink == crate::note::permalink::generate_permalink(first, false))
            {
                return Ok(p);
            }
        }
        self.project(tool, project, project_id)
    }
}

/// Runs a blocking tool body; every tool is synchronous over files and LMDB.
pub fn call(ctx: &ToolCtx, name: &str, args: &Map<String, Value>) -> ToolReply {
    let name = match DOTTED_NAMES.iter().find(|(dotted, _)| *dotted == name) {
        Some((_, plain)) if ctx.dotted_names => plain,
        _ => name,
    };
    match name {
        "link_folder" => super::link_tools::link_folder(ctx, args),
        "unlink_folder" => super::link_tools::unlink_folder(ctx, args),
        "list_links" => super::link_tools::list_links(ctx, args),
        "sync" => super::link_tools::sync(ctx, args),
        "write_note" => super::note_tools::write_note(ctx, args),
        "read_note" => super::note_tools::read_note(ctx, args),
        "view_note" => super::note_tools::view_note(ctx, args),
        "edit_note" => super::note_tools::edit_note(ctx, args),
        "move_note" => super::note_tools::move_note(ctx, args),
        "delete_note" => super::note_tools::delete_note(ctx, args),
        "read_content" => super::note_tools::read_content(ctx, args),
        "search_notes" => super::query_tools::search_notes(ctx, args),
        "recent_activity" => super::query_tools::recent_activity(ctx, args),
        "build_context" => super::query_tools::build_context(ctx, args),
        "list_directory" => super::query_tools::list_directory(ctx, args),
        "search" => super::query_tools::chatgpt_search(ctx, args),
        "fetch" => super::query_tools::chatgpt_fetch(ctx, args),
        "list_memory_projects" => super::project_tools::list_memory_projects(ctx, args),
        "create_memory_project" => super::project_tools::create_memory_project(ctx, args),
        "delete_project" => super::project_tools::delete_project(ctx, args),
        "canvas" => super::project_tools::canvas(ctx, args),
        "sync_status" => super::project_tools::sync_status(ctx, args),
        "basic_memory_diagnostics" => super::project_tools::diagnostics(ctx, args),
        unknown => ToolReply::Error(format!(
            "Unknown tool: '{unknown}'. Available tools: {}",
            specs()
                .iter()
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

macro_rules! spec {
    ($name:literal, $title:literal, $ro:expr, $destructive:expr, $idem:expr, $params:ty, $desc:expr) => {
        ToolSpec {
            name: $name,
            title: $title,
            description: $desc,
            read_only: $ro,
            destructive: $destructive,
            idempotent: $idem,
            schema: schema_of::<$params>,
        }
    };
}

/// Every tool, in the order `tools/list` shows them.
pub fn specs() -> Vec<ToolSpec> {
    use super::link_tools::*;
    use super::note_tools::*;
    use super::project_tools::*;
    use super::query_tools::*;
    vec![
        spec!("write_note", "Write Note", false, true, Some(false), WriteNoteArgs,
            "Create or update a markdown note. The note is written as a file with front matter (title, type, permalink, tags); bullets like `- [category] fact #tag` become observations and `- relation_type [[Target]]` become relations. Refuses to replace an existing note unless overwrite=true."),
        spec!("read_note", "Read Note", true, false, None, ReadNoteArgs,
            "Read a note by title, permalink, file path, memory:// URL or id. Returns the file's exact text; when nothing matches, suggests related notes."),
        spec!("view_note", "View Note", true, false, None, ViewNoteArgs,
            "Read a note and ask the client to display it as a markdown artifact."),
        spec!("edit_note", "Edit Note", false, true, None, EditNoteArgs,
            "Edit a note in place: append, prepend, find_replace (with expected_replacements), replace_section, insert_before_section or insert_after_section; optionally merge metadata into its front matter. append/prepend create the note when it does not exist."),
        spec!("move_note", "Move Note", false, false, None, MoveNoteArgs,
            "Move a note (or, with is_directory=true, a folder) to a new path or folder within the project. The note keeps its permalink and links."),
        spec!("delete_note", "Delete Note", false, true, None, DeleteNoteArgs,
            "Delete a note (or, with is_directory=true, every note in a folder). Returns true when something was deleted."),
        spec!("read_content", "Read Content", true, false, None, ReadContentArgs,
            "Read a file's raw content: text as text, images re-encoded as JPEG (base64), other files as base64."),
        spec!("search_notes", "Search Notes", true, false, None, SearchNotesArgs,
            "Full-text search over notes, observations and relations, with filters (note_types, entity_types, categories, tags, status, after_date, metadata_filters), `tag:` shorthand, AND/OR/NOT, permalink patterns and pagination."),
        spec!("recent_activity", "Recent Activity", true, false, None, RecentActivityArgs,
            "What changed recently in a project (or across projects when none is chosen): notes, observations or relations within a timeframe such as '7d', '2 weeks' or 'yesterday'."),
        spec!("build_context", "Build Context", true, false, None, BuildContextArgs,
            "Load a note (memory:// URL, permalink or `folder/*` pattern) with its observations and the notes linked to it, up to `depth` links away."),
        spec!("list_directory", "List Directory", true, false, None, ListDirectoryArgs,
            "List folders and files of a project, with depth, a name glob, sorting and paging."),
        spec!("list_memory_projects", "List Memory Projects", true, false, None, ListProjectsArgs,
            "List the projects (knowledge bases) this server knows."),
        spec!("create_memory_project", "Create Memory Project", false, false, None, CreateProjectArgs,
            "Register a directory as a new project and index it."),
        spec!("delete_project", "Delete Project", false, true, None, DeleteProjectArgs,
            "Unregister a project; its files stay unless delete_notes=true."),
        spec!("canvas", "Create Canvas", false, false, Some(true), CanvasArgs,
            "Write a JSON Canvas (.canvas) file with nodes and edges, viewable in Obsidian."),
        spec!("sync_status", "Sync Status", true, false, None, SyncStatusArgs,
            "Whether the initial indexing of the projects has finished."),
        spec!("search", "Search Knowledge Base", true, false, None, ChatGptSearchArgs,
            "Search the knowledge base (ChatGPT connector format): returns ids, titles and urls."),
        spec!("fetch", "Fetch Document", true, false, None, ChatGptFetchArgs,
            "Fetch a document by the id `search` returned (ChatGPT connector format)."),
        spec!("basic_memory_diagnostics", "Basic Memory Diagnostics", true, false, None, DiagnosticsArgs,
            "Report gitmem's version, configuration and index statistics."),
        spec!("link_folder", "Link Folder", false, false, Some(true), LinkFolderArgs,
            "Bind an external folder (an Obsidian vault) to a project: its notes appear under a mount folder of the project and become searchable, readable and editable; scans never write to it. Returns the link's metadata and the first scan's report."),
        spec!("unlink_folder", "Unlink Folder", false, true, None, UnlinkFolderArgs,
            "Unbind a linked folder (or every folder of a project). Its files are not touched; its notes leave the index."),
        spec!("list_links", "List Links", true, false, None, ListLinksArgs,
            "List linked folders with their status, counts, schedule and last scan."),
        spec!("sync", "Sync", false, false, Some(true), SyncArgs,
            "With direction \"external\": rescan linked folders now and return one report per folder."),
    ]
}

/// The tool list including dotted aliases when they are served.
pub fn tool_list_for(dotted_names: bool) -> Vec<rmcp::model::Tool> {
    let mut tools = tool_list();
    if dotted_names {
        for (dotted, plain) in DOTTED_NAMES {
            if let Some(mut alias) = tools.iter().find(|t| t.name == *plain).cloned() {
                alias.name = (*dotted).into();
                tools.push(alias);
            }
        }
    }
    tools
}

/// The tool definitions as MCP `Tool` objects.
pub fn tool_list() -> Vec<rmcp::model::Tool> {
    specs()
        .into_iter()
        .filter_map(|s| {
            let mut annotations = json!({
                "title": s.title,
                "readOnlyHint": s.read_only,
                "destructiveHint": s.destructive,
                "openWorldHint": false,
            });
            if let Some(idempotent) = s.idempotent {
                annotations["idempotentHint"] = json!(idempotent);
            }
            serde_json::from_value(json!({
                "name": s.name,
                "title": s.title,
                "description": s.description,
                "inputSchema": (s.schema)(),
                "annotations": annotations,
            }))
            .ok()
        })
        .collect()
}
