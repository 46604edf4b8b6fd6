//! MCP resources (compat 3 and the note resources): the assistant guide, each project's info,
//! and every note as `memory://{project}/{permalink}` (listed page by page, read as markdown,
//! its template's arguments completed).

use serde_json::{json, Map, Value};

use super::tools::ToolCtx;
use engine::{Outcome, ServiceError};

pub const GUIDE: &str = include_str!("../../../templates/ai_assistant_guide.md");
pub const GUIDE_URI: &str = "memory://ai_assistant_guide";

/// Notes per page of `resources/list`.
pub const PAGE: usize = 100;
/// The template of a note's URI.
pub const NOTE_TEMPLATE: &str = "memory://{project}/{+permalink}";

/// Why a resource could not be listed or read.
#[derive(Debug, thiserror::Error)]
pub enum ResourceError {
    #[error("invalid cursor '{0}'")]
    Cursor(String),
    /// Not a resource, or not one this caller may read.
    #[error("Unknown resource: {0}")]
    Unknown(String),
    #[error(transparent)]
    Service(#[from] ServiceError),
}

/// The resource templates: a project's info, and a note.
pub fn templates() -> Value {
    json!([
        {
            "uriTemplate": "memory://{workspace}/{project}/info",
            "name": "project info",
            "title": "Project information",
            "description": "Get information and statistics about a project (use workspace 'local').",
            "mimeType": "application/json",
        },
        {
            "uriTemplate": NOTE_TEMPLATE,
            "name": "note",
            "title": "Note",
            "description": "A note's markdown, by its project and permalink (the permalink after the project's own prefix).",
            "mimeType": "text/markdown",
        },
    ])
}

/// One note as a resource (or a resource link).
pub fn note_resource(permalink: &str, title: &str) -> Value {
    json!({
        "uri": format!("memory://{permalink}"),
        "name": permalink,
        "title": title,
        "mimeType": "text/markdown",
    })
}

/// `resources/list`: the guide, then every visible project's notes, newest first, `PAGE` at a
/// time. The cursor is `<project index>:<offset>`.
pub fn list(
    ctx: &ToolCtx,
    cursor: Option<&str>,
) -> Result<(Vec<Value>, Option<String>), ResourceError> {
    let (mut project_index, mut offset) = match cursor {
        None => (0, 0),
        Some(cursor) => cursor
            .split_once(':')
            .and_then(|(p, o)| Some((p.parse().ok()?, o.parse().ok()?)))
            .ok_or_else(|| ResourceError::Cursor(cursor.to_string()))?,
    };
    let mut resources = Vec::new();
    if cursor.is_none() {
        resources.push(json!({
            "uri": GUIDE_URI,
            "name": "ai assistant guide",
            "title": "AI assistant guide",
            "description": "How an AI assistant works with gitmem: tools, note format, memory:// URLs",
            "mimeType": "text/markdown",
        }));
    }
    let projects = ctx.app.visible_projects(&ctx.choice_of(None))?;
    while let Some(project) = projects.get(project_index) {
        let wanted = PAGE - resources.len().min(PAGE);
        let (notes, more) = ctx.app.note_page(project, offset, wanted)?;
        resources.extend(notes.iter().filter_map(|n| {
            n.permalink
                .as_deref()
                .map(|permalink| note_resource(permalink, &n.title))
        }));
        if more {
            offset += notes.len();
            return Ok((resources, Some(format!("{project_index}:{offset}"))));
        }
        project_index += 1;
        offset = 0;
        if resources.len() >= PAGE && project_index < projects.len() {
            return Ok((resources, Some(format!("{project_index}:0"))));
        }
    }
    Ok((resources, None))
}

fn read_note(ctx: &ToolCtx, uri: &str) -> Result<(String, String), ResourceError> {
    match ctx.app.fetch_document(&ctx.choice_of(None), uri)? {
        Outcome::Done(file) => Ok(("text/markdown".into(), file.text)),
        Outcome::Refused(_) => Err(ResourceError::Unknown(uri.to_string())),
    }
}

/// `completion/complete`: project names for a `project` argument (of a prompt or a template),
/// and for a template's `permalink` the folders and notes that continue what was typed, within
/// the project already chosen.
pub fn complete(
    ctx: &ToolCtx,
    argument: &str,
    value: &str,
    resolved: &Map<String, Value>,
) -> Vec<String> {
    let choice = ctx.choice_of(None);
    let projects = ctx.app.visible_projects(&choice).unwrap_or_default();
    let lower = value.to_lowercase();
    match argument {
        "project" => projects
            .iter()
            .map(|p| p.name.clone())
            .filter(|name| name.to_lowercase().starts_with(&lower))
            .take(100)
            .collect(),
        "permalink" => {
            let named = resolved.get("project").and_then(Value::as_str);
            let Some(project) = projects
                .iter()
                .find(|p| Some(p.name.as_str()) == named || Some(p.permalink.as_str()) == named)
                .or_else(|| projects.iter().find(|p| p.is_default))
            else {
                return Vec::new();
            };
            let (notes, _) = ctx
                .app
                .note_page(project, 0, usize::MAX)
                .unwrap_or_default();
            let own_prefix = format!("{}/", project.permalink);
            let mut values: Vec<String> = Vec::new();
            for note in &notes {
                let Some(permalink) = note.permalink.as_deref() else {
                    continue;
                };
                let relative = permalink.strip_prefix(&own_prefix).unwrap_or(permalink);
                if !relative.to_lowercase().starts_with(&lower) {
                    continue;
                }
                // A folder below what was typed comes first as `folder/`, then its notes.
                let rest = &relative[value.len().min(relative.len())..];
                let candidate = match rest.find('/') {
                    Some(slash) => relative[..value.len() + slash + 1].to_string(),
                    None => relative.to_string(),
                };
                if !values.contains(&candidate) {
                    values.push(candidate);
                }
            }
            values.sort();
            values.truncate(100);
            values
        }
        _ => Vec::new(),
    }
}

/// Reads a resource: (mime type, text). `memory://{workspace}/{project}/info` is the project
/// summary of Basic Memory; any other `memory://` URL names a note.
pub fn read(ctx: &ToolCtx, uri: &str) -> Result<(String, String), ResourceError> {
    if uri == GUIDE_URI {
        return Ok(("text/markdown".into(), GUIDE.to_string()));
    }
    let path = uri
        .strip_prefix("memory://")
        .ok_or_else(|| ResourceError::Unknown(uri.to_string()))?;
    let parts: Vec<&str> = path.split('/').collect();
    let project_name = match parts.as_slice() {
        [_, project, "info"] if ctx.app.project(Some(project)).is_ok() => *project,
        [project, "info"] if ctx.app.project(Some(project)).is_ok() => *project,
        _ => return read_note(ctx, uri),
    };
    let project = ctx.app.project(Some(project_name))?;
    if !ctx.choice_of(None).allows(&project) {
        return Err(ResourceError::Unknown(uri.to_string()));
    }
    let stats = ctx.app.project_statistics(&project)?;
    let projects = ctx.app.visible_projects(&ctx.choice_of(None))?;
    let available: Map<String, Value> = projects
        .iter()
        .map(|p| (p.name.clone(), json!({"name": p.name, "path": p.path, "external_id": p.external_id(), "is_default": p.is_default})))
        .collect();
    let recent = ctx
        .app
        .notes_updated_since(&project, chrono::Utc::now() - chrono::Duration::days(30))?;
    let recently: Vec<Value> = recent
        .iter()
        .take(10)
        .map(|n| json!({"title": n.title, "permalink": n.permalink, "updated_at": render::iso_from_ms(n.updated_ms)}))
        .collect();
    let status = ctx.app.status(Some(&project.name))?;
    let info = json!({
        "project_name": project.name,
        "project_path": project.path,
        "available_projects": available,
        "default_project": ctx.app.project(None).ok().map(|p| p.name),
        "statistics": render::projects::statistics(&stats),
        "activity": {"recently_created": [], "recently_updated": recently, "monthly_growth": {}},
        "system": {
            "version": env!("CARGO_PKG_VERSION"),
            "database_path": ctx.app.config().index_dir(),
            "database_size": format!("{:.1} MB", status.index_bytes as f64 / 1e6),
            "watch_status": null,
            "timestamp": chrono::Utc::now().to_rfc3339(),
        },
        "embedding_status": null,
    });
    Ok((
        "application/json".into(),
        serde_json::to_string_pretty(&info).unwrap_or_default(),
    ))
}
