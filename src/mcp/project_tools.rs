//! Project tools, canvas, sync_status and diagnostics.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args;
use super::state::ProjectSync;
use super::tools::{output_format, parse, service_error, tri, Format, ToolCtx, ToolReply};
use crate::service::ServiceError;

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListProjectsArgs {
    #[serde(default, deserialize_with = "args::string")]
    pub output_format: Option<String>,
}

pub fn list_memory_projects(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "list_memory_projects";
    let a: ListProjectsArgs = tri!(parse(TOOL, raw));
    let format = tri!(output_format(a.output_format.as_deref(), Format::Text));
    let mut projects = match ctx.app.projects(None) {
        Ok(p) => p,
        Err(e) => return service_error(TOOL, e),
    };
    projects.sort_by(|a, b| a.permalink.cmp(&b.permalink));
    if let Some(constrained) = &ctx.constrained {
        if format == Format::Text {
            return ToolReply::Text(format!(
                "Project: {constrained}\n\nNote: This MCP server is constrained to a single project.\nAll operations will automatically use this project."
            ));
        }
    }
    let default = ctx.app.project(None).ok().map(|p| p.name);
    match format {
        Format::Text => {
            let mut out = String::from("Available projects:\n");
            for p in &projects {
                out.push_str(&format!("- {} (local) [{}]\n", p.name, p.external_id()));
            }
            out.push_str(&format!(
                "\n{}\nNext: Ask which project to use for this session.\nExample: 'Which project should I use for this task?'\n\nSession reminder: Track the selected project for all subsequent operations in this conversation.\nThe user can say 'switch to [project]' to change projects.",
                "─".repeat(40)
            ));
            ToolReply::Text(out)
        }
        Format::Json => ToolReply::Json(json!({
            "projects": projects.iter().map(|p| json!({
                "name": p.name, "external_id": p.external_id(), "path": p.path, "local_path": p.path,
                "cloud_path": null, "source": "local", "is_default": p.is_default, "is_private": false,
                "display_name": null, "workspace_name": null, "workspace_type": null, "workspace_tenant_id": null,
                "workspace_slug": null, "workspace_is_default": false, "sync_supported": true, "sync_reason": null,
                "local_usage": "sync-supported", "qualified_name": null,
            })).collect::<Vec<_>>(),
            "default_project": default,
            "constrained_project": ctx.constrained,
        })),
    }
}

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
    pub workspace: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub output_format: Option<String>,
}

pub fn create_memory_project(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "create_memory_project";
    let a: CreateProjectArgs = tri!(parse(TOOL, raw));
    let format = tri!(output_format(a.output_format.as_deref(), Format::Text));
    if let Some(c) = &ctx.constrained {
        return match format {
            Format::Text => ToolReply::Text(format!(
                "# Error\n\nProject creation disabled - MCP server is constrained to project '{c}'.\nUse the CLI to create projects: `gitmem project add \"name\" \"path\"`"
            )),
            Format::Json => ToolReply::Json(json!({"name": a.project_name, "created": false, "error": "PROJECT_CONSTRAINED"})),
        };
    }
    let path = match a.project_path.strip_prefix("~/") {
        Some(rest) => dirs::home_dir().unwrap_or_default().join(rest),
        None => std::path::PathBuf::from(&a.project_path),
    };
    match ctx
        .app
        .create_project(&a.project_name, &path, a.set_default.unwrap_or(false))
    {
        Ok(created) => {
            let p = &created.project;
            let r = &created.indexing;
            ctx.state.set(&p.name, ProjectSync::Done);
            match format {
                Format::Text if !created.created => ToolReply::Text(format!(
                    "✓ Project already exists: {}\n\nProject Details:\n• Name: {}\n• External ID: {}\n• Path: {}\n\nThe project was re-indexed ({} files).",
                    p.name, p.name, p.external_id(), p.path.display(), r.scanned
                )),
                Format::Text => ToolReply::Text(format!(
                    "✓ Project '{}' added successfully\n\nProject Details:\n• Name: {}\n• External ID: {}\n• Path: {}\n{}\nIndexing:\n• State: completed\n• Files discovered: {}\n• Files enqueued: {}\n• Batches enqueued: 1\n• Orphans deleted: {}\n\nProject is now available for use in tool calls; indexing completed.\nUse '{}' as the project parameter in MCP tool calls.",
                    p.name, p.name, p.external_id(), p.path.display(),
                    if p.is_default { "• Set as default project\n" } else { "" },
                    r.scanned, r.created + r.modified, r.deleted, p.name
                )),
                Format::Json => ToolReply::Json(json!({
                    "name": p.name, "external_id": p.external_id(), "path": p.path, "is_default": p.is_default,
                    "created": created.created, "already_exists": !created.created,
                    "indexing": {"total_files": r.scanned, "enqueued_files": r.created + r.modified, "enqueued_batches": 1, "deleted_files": r.deleted, "state": "completed"},
                })),
            }
        }
        Err(e) => service_error(TOOL, e),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DeleteProjectArgs {
    #[serde(deserialize_with = "args::required_string")]
    pub project_name: String,
    /// Also delete the project's directory and all its files
    #[serde(default, deserialize_with = "args::boolean")]
    pub delete_notes: Option<bool>,
    #[serde(default, deserialize_with = "args::string")]
    pub workspace: Option<String>,
}

pub fn delete_project(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "delete_project";
    let a: DeleteProjectArgs = tri!(parse(TOOL, raw));
    if let Some(c) = &ctx.constrained {
        return ToolReply::Text(format!(
            "# Error\n\nProject deletion disabled - MCP server is constrained to project '{c}'.\nUse the CLI to delete projects: `gitmem project remove \"name\"`"
        ));
    }
    let all = ctx.app.projects(None).unwrap_or_default();
    let names: Vec<String> = all.iter().map(|p| p.name.clone()).collect();
    let Ok(project) = ctx.app.project(Some(&a.project_name)) else {
        return ToolReply::Error(format!(
            "Error calling tool '{TOOL}': Project '{}' not found. Available projects: {}",
            a.project_name,
            names.join(", ")
        ));
    };
    if project.is_default {
        let others: Vec<&String> = names.iter().filter(|n| **n != project.name).collect();
        let advice = if others.is_empty() {
            "This is the only project in your configuration.".to_string()
        } else {
            format!(
                "Set another project as default first. Available: {}",
                others
                    .iter()
                    .map(|s| s.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        };
        return ToolReply::Error(format!(
            "Error calling tool '{TOOL}': Cannot delete default project '{}'. {advice}",
            project.name
        ));
    }
    let delete_notes = a.delete_notes.unwrap_or(false);
    match ctx.app.remove_project(&project.name, delete_notes) {
        Ok(p) => {
            ctx.state.remove(&p.name);
            let files_line = if delete_notes {
                "The project directory and its note files were deleted."
            } else {
                "Note files remain on disk but the project is no longer tracked by gitmem.\nRe-add the project to access its content again."
            };
            ToolReply::Text(format!(
                "✓ Project '{}' removed successfully\n\nRemoved project details:\n• Name: {}\n• Path: {}\n{files_line}",
                p.name,
                p.name,
                p.path.display()
            ))
        }
        Err(e) => service_error(TOOL, e),
    }
}

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
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    #[serde(default, deserialize_with = "args::string")]
    pub project_id: Option<String>,
}

pub fn canvas(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "canvas";
    let a: CanvasArgs = tri!(parse(TOOL, raw));
    let project = tri!(ctx.project(TOOL, a.project.as_deref(), a.project_id.as_deref()));
    let name = if a.title.ends_with(".canvas") {
        a.title.clone()
    } else {
        format!("{}.canvas", a.title)
    };
    let dir = a.directory.trim().trim_matches('/');
    let path = if dir.is_empty() {
        name.clone()
    } else {
        format!("{dir}/{name}")
    };
    if crate::vault::path::validate_relative(&path).is_err() || name.contains('/') {
        return ToolReply::Text(format!("# Error\n\nCanvas path '{path}' is not allowed - paths must stay within project boundaries"));
    }
    let absolute = match ctx.app.project_file(&project, &path) {
        Ok(p) => p,
        Err(e) => return ToolReply::Text(format!("# Error\n\n{e}")),
    };
    let existed = absolute.exists();
    let body = json!({"nodes": a.nodes, "edges": a.edges});
    let mut text = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"  ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut text, formatter);
    if serde::Serialize::serialize(&body, &mut serializer).is_err() {
        return service_error(
            TOOL,
            ServiceError::Invalid("the canvas could not be serialised".into()),
        );
    }
    if let Err(e) = crate::vault::fs::atomic_write(&absolute, &text) {
        return service_error(TOOL, e.into());
    }
    if let Err(e) = ctx.app.index_written_file(&project, &path) {
        return service_error(TOOL, e);
    }
    let verb = if existed { "Updated" } else { "Created" };
    ToolReply::Text(format!(
        "# {verb}: {path}\n\nThe canvas is ready to open in Obsidian."
    ))
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SyncStatusArgs {
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
}

pub fn sync_status(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: SyncStatusArgs = tri!(parse("sync_status", raw));
    let projects = ctx.app.projects(None).unwrap_or_default();
    let states: Vec<(String, ProjectSync)> = projects
        .iter()
        .map(|p| (p.name.clone(), ctx.state.get(&p.name)))
        .collect();
    let ready = states
        .iter()
        .all(|(_, s)| matches!(s, ProjectSync::Done | ProjectSync::Failed(_)));
    let failed: Vec<_> = states
        .iter()
        .filter(|(_, s)| matches!(s, ProjectSync::Failed(_)))
        .collect();
    let mut out = String::from("# Basic Memory Sync Status\n\n");
    if ready {
        out.push_str("**Current Status**: All projects are indexed and watched\n**System Ready**: ✅ Yes\n\n");
        out.push_str("✅ **All sync operations completed**\n\n- File indexing: Complete\n- Knowledge graph: Ready\n- Search index: Ready\n\nYour knowledge base is ready for use!\n\n");
    } else {
        out.push_str("**Current Status**: Indexing in progress\n**System Ready**: 🔄 Processing\n\n🔄 **File synchronization in progress**\n\n**Currently Processing:**\n");
        for (name, state) in &states {
            if let ProjectSync::Running { done, total } = state {
                let pct = if *total == 0 { 0 } else { done * 100 / total };
                out.push_str(&format!(
                    "- **{name}**: indexing ({done}/{total}, {pct}%)\n"
                ));
            }
        }
        out.push('\n');
    }
    if !failed.is_empty() {
        out.push_str("❌ **Some projects failed to sync:**\n");
        for (name, state) in &failed {
            if let ProjectSync::Failed(e) = state {
                out.push_str(&format!("- **{name}**: {e}\n"));
            }
        }
        out.push('\n');
    }
    out.push_str("**All Projects Status:**\n");
    for (name, state) in &states {
        let line = match state {
            ProjectSync::Done => format!("- 👁️ **{name}**: Watching for changes"),
            ProjectSync::Running { done, total } => {
                format!("- 🔄 **{name}**: Sync in progress ({done}/{total})")
            }
            ProjectSync::Failed(e) => format!("- ❌ **{name}**: Sync error: {e}"),
            ProjectSync::Pending => format!("- ⏳ **{name}**: Pending sync"),
        };
        out.push_str(&line);
        out.push('\n');
    }
    if let Some(name) = a.project {
        if let Ok(p) = ctx.app.project(Some(&name)) {
            out.push_str(&format!(
                "\n**Active Project**: {}\n**Project Path**: {}\n",
                p.name,
                p.path.display()
            ));
        }
    }
    ToolReply::Text(out.trim_end().to_string())
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct DiagnosticsArgs {}

pub fn diagnostics(ctx: &ToolCtx, _raw: &Map<String, Value>) -> ToolReply {
    let config_path = crate::config::Config::config_path(&ctx.app.config().root);
    let config_text = std::fs::read_to_string(&config_path).unwrap_or_default();
    let status = ctx.app.status(None);
    let mut out = format!(
        "# Basic Memory Diagnostics\n\n## Version\n- gitmem: {}\n- API: MCP (rmcp)\n\n## System\n- Platform: {} {}\n- Architecture: {}\n\n## Configuration\n- Data root: {}\n- Config path: {}\n- Config exists: {}\n",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::OS,
        std::env::consts::FAMILY,
        std::env::consts::ARCH,
        ctx.app.config().root.display(),
        config_path.display(),
        if config_path.exists() { "True" } else { "False" },
    );
    if !config_text.is_empty() {
        out.push_str(&format!("\n```toml\n{}\n```\n", config_text.trim_end()));
    }
    out.push_str("\n## Index\n");
    match status {
        Ok(s) => {
            out.push_str(&format!(
                "- Index size: {:.1} MB\n",
                s.index_bytes as f64 / 1e6
            ));
            for p in s.projects {
                out.push_str(&format!(
                    "- {}: {} notes, {} other files, {} observations, {} relations ({} unresolved), {} warnings, last scan {}\n",
                    p.project, p.notes, p.files, p.observations, p.relations, p.unresolved_relations,
                    p.warnings.len(), p.last_scan.as_deref().unwrap_or("never")
                ));
            }
        }
        Err(e) => out.push_str(&format!("- unavailable: {e}\n")),
    }
    ToolReply::Text(out.trim_end().to_string())
}
