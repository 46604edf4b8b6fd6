//! Project tools, canvas, sync_status and diagnostics.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::{self, FormatArgs, ProjectArgs};
use super::{answer, parse, schema_of, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec};
use engine::canvas::CanvasRequest;
use render::{self, Format};

pub const LIST_MEMORY_PROJECTS: ToolSpec = ToolSpec {
    name: "list_memory_projects",
    title: "List Memory Projects",
    description: "List the projects (knowledge bases) this server knows.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<ListProjectsArgs>,
    handler: list_memory_projects,
    dotted: None,
    icon: Icon::Folder,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListProjectsArgs {
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn list_memory_projects(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ListProjectsArgs = tri!(parse(LIST_MEMORY_PROJECTS.name, raw));
    let format = tri!(a.format.format(Format::Text));
    let listing = ctx.app.list_projects(&ctx.choice_of(None));
    answer(LIST_MEMORY_PROJECTS.name, listing, |l| {
        render::projects::list_projects(l, format)
    })
}

pub const LIST_WORKSPACES: ToolSpec = ToolSpec {
    name: "list_workspaces",
    title: "List Workspaces",
    description: "List available workspaces (tenant_id, type, role, and name). gitmem is local: its one workspace is the personal one, which holds every project.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<ListProjectsArgs>,
    handler: list_workspaces,
    dotted: None,
    icon: Icon::Folder,
    output: None,
};

/// Basic Memory 0.24's workspace discovery, as a local server answers it: the personal
/// workspace Basic Memory shows when there are no cloud workspaces.
fn list_workspaces(_: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ListProjectsArgs = tri!(parse(LIST_WORKSPACES.name, raw));
    let format = tri!(a.format.format(Format::Text));
    render::projects::workspaces(format).into()
}

pub const CREATE_MEMORY_PROJECT: ToolSpec = ToolSpec {
    name: "create_memory_project",
    title: "Create Memory Project",
    description: "Register a directory as a new project and index it.",
    hints: Hints::WRITES,
    schema: schema_of::<CreateProjectArgs>,
    handler: create_memory_project,
    dotted: None,
    icon: Icon::Folder,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CreateProjectArgs {
    #[serde(deserialize_with = "args::required_string")]
    pub project_name: String,
    /// Directory of the project's notes (created if missing; `~` is expanded)
    #[serde(deserialize_with = "args::required_string")]
    pub project_path: String,
    #[serde(default, deserialize_with = "args::boolean")]
    pub set_default: Option<bool>,
    #[serde(default, deserialize_with = "args::string")]
    // Accepted so that Basic Memory's clients are not refused; gitmem has no workspaces.
    #[allow(dead_code)]
    pub workspace: Option<String>,
    #[serde(flatten)]
    pub format: FormatArgs,
}

fn create_memory_project(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: CreateProjectArgs = tri!(parse(CREATE_MEMORY_PROJECT.name, raw));
    let format = tri!(a.format.format(Format::Text));
    let outcome = ctx.app.create_project_from_tool(
        &ctx.choice_of(None),
        &a.project_name,
        &a.project_path,
        a.set_default.unwrap_or(false),
    );
    answer(CREATE_MEMORY_PROJECT.name, outcome, |o| {
        render::projects::create_project(&a.project_name, o, format)
    })
}

pub const DELETE_PROJECT: ToolSpec = ToolSpec {
    name: "delete_project",
    title: "Delete Project",
    description: "Unregister a project; its files stay unless delete_notes=true.",
    hints: Hints::DESTRUCTIVE,
    schema: schema_of::<DeleteProjectArgs>,
    handler: delete_project,
    dotted: None,
    icon: Icon::Folder,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeleteProjectArgs {
    #[serde(deserialize_with = "args::required_string")]
    pub project_name: String,
    /// Also delete the project's directory and all its files
    #[serde(default, deserialize_with = "args::boolean")]
    pub delete_notes: Option<bool>,
    #[serde(default, deserialize_with = "args::string")]
    // Accepted so that Basic Memory's clients are not refused; gitmem has no workspaces.
    #[allow(dead_code)]
    pub workspace: Option<String>,
}

fn delete_project(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: DeleteProjectArgs = tri!(parse(DELETE_PROJECT.name, raw));
    let delete_notes = a.delete_notes.unwrap_or(false);
    let outcome =
        ctx.app
            .delete_project_from_tool(&ctx.choice_of(None), &a.project_name, delete_notes);
    answer(DELETE_PROJECT.name, outcome, |o| {
        render::projects::delete_project(o, delete_notes)
    })
}

pub const CANVAS: ToolSpec = ToolSpec {
    name: "canvas",
    title: "Create Canvas",
    description: "Write a JSON Canvas (.canvas) file with nodes and edges, viewable in Obsidian.",
    hints: Hints::WRITES.idempotent(true),
    schema: schema_of::<CanvasArgs>,
    handler: canvas,
    dotted: None,
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CanvasArgs {
    /// JSON Canvas nodes: {"id","type":"file|text|link|group","x","y","width","height", ...}
    #[serde(deserialize_with = "args::object_list")]
    pub nodes: Vec<Value>,
    /// JSON Canvas edges: {"id","fromNode","toNode", ...}
    #[serde(deserialize_with = "args::object_list")]
    pub edges: Vec<Value>,
    /// File name; `.canvas` is appended unless present
    #[serde(deserialize_with = "args::required_string")]
    pub title: String,
    /// Folder inside the project
    #[serde(
        alias = "folder",
        alias = "dir",
        alias = "path",
        deserialize_with = "args::required_string"
    )]
    pub directory: String,
    #[serde(flatten)]
    pub project: ProjectArgs,
}

fn canvas(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: CanvasArgs = tri!(parse(CANVAS.name, raw));
    let request = CanvasRequest {
        nodes: a.nodes,
        edges: a.edges,
        title: a.title,
        directory: a.directory,
    };
    let outcome = ctx.app.canvas(&ctx.choice(&a.project), &request);
    answer(CANVAS.name, outcome, render::notes::canvas)
}

pub const SYNC_STATUS: ToolSpec = ToolSpec {
    name: "sync_status",
    title: "Sync Status",
    description: "Whether the initial indexing of the projects has finished.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<SyncStatusArgs>,
    handler: sync_status,
    dotted: None,
    icon: Icon::Folder,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SyncStatusArgs {
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
}

fn sync_status(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: SyncStatusArgs = tri!(parse(SYNC_STATUS.name, raw));
    let status = ctx.app.sync_status(a.project.as_deref());
    answer(SYNC_STATUS.name, status, render::projects::sync_status)
}

pub const DIAGNOSTICS: ToolSpec = ToolSpec {
    name: "basic_memory_diagnostics",
    title: "Basic Memory Diagnostics",
    description: "Report gitmem's version, configuration and index statistics.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<DiagnosticsArgs>,
    handler: diagnostics,
    dotted: None,
    icon: Icon::Folder,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DiagnosticsArgs {}

fn diagnostics(ctx: &ToolCtx, _raw: &Map<String, Value>) -> ToolReply {
    render::projects::diagnostics(&ctx.app.diagnostics()).into()
}
