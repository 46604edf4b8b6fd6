//! Linked-folder tools: link_folder, unlink_folder, list_links, sync.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args;
use super::tools::{parse, service_error, tri, ToolCtx, ToolReply};
use crate::service::links::{link_json, LinkOptions};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct LinkFolderArgs {
    /// Project to bind the folder to (default: the default project)
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    /// The folder to link; symlinks are resolved
    #[serde(deserialize_with = "args::required_string")]
    pub path: String,
    /// Only files matching these globs (they also bring back dotfiles they name)
    #[serde(default, deserialize_with = "args::string_list")]
    #[schemars(with = "Option<Vec<String>>")]
    pub include: Option<Vec<String>>,
    /// Skip files matching these globs
    #[serde(default, deserialize_with = "args::string_list")]
    #[schemars(with = "Option<Vec<String>>")]
    pub exclude: Option<Vec<String>>,
    /// poll (default) or native
    #[serde(
        default,
        rename = "watchMode",
        alias = "watch_mode",
        deserialize_with = "args::string"
    )]
    pub watch_mode: Option<String>,
    #[serde(
        default,
        rename = "pollIntervalMs",
        alias = "poll_interval_ms",
        deserialize_with = "args::int"
    )]
    #[schemars(with = "Option<i64>")]
    pub poll_interval_ms: Option<i64>,
    #[serde(
        default,
        rename = "jitterPct",
        alias = "jitter_pct",
        deserialize_with = "args::int"
    )]
    #[schemars(with = "Option<i64>")]
    pub jitter_pct: Option<i64>,
    /// Folder of the project the notes appear under (default: the folder's name)
    #[serde(default, deserialize_with = "args::string")]
    pub mount: Option<String>,
}

pub fn link_folder(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "link_folder";
    let a: LinkFolderArgs = tri!(parse(TOOL, raw));
    let project = tri!(ctx.project(TOOL, a.project.as_deref(), None));
    let non_negative = |v: Option<i64>, what: &str| -> Result<Option<u64>, ToolReply> {
        match v {
            Some(n) if n < 0 => Err(ToolReply::Error(format!(
                "Error calling tool '{TOOL}': {what} must not be negative"
            ))),
            other => Ok(other.map(|n| n as u64)),
        }
    };
    let poll = tri!(non_negative(a.poll_interval_ms, "pollIntervalMs"));
    let jitter = match non_negative(a.jitter_pct, "jitterPct") {
        Ok(v) => v.map(|j| j.min(u64::from(u32::MAX)) as u32),
        Err(e) => return e,
    };
    let options = LinkOptions {
        path: a.path,
        include: a.include.unwrap_or_default(),
        exclude: a.exclude.unwrap_or_default(),
        watch_mode: a.watch_mode,
        poll_interval_ms: poll,
        jitter_pct: jitter,
        mount: a.mount,
    };
    match ctx.app.link_folder(&project, &options) {
        Ok((link, report)) => {
            ctx.state.links_changed();
            let mut v = link_json(&link);
            v["report"] = serde_json::to_value(&report).unwrap_or_default();
            ToolReply::Json(v)
        }
        Err(e) => service_error(TOOL, e),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct UnlinkFolderArgs {
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    /// The linked folder (as given, canonical, or its link id); omit to unlink every folder
    #[serde(default, deserialize_with = "args::string")]
    pub path: Option<String>,
}

pub fn unlink_folder(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "unlink_folder";
    let a: UnlinkFolderArgs = tri!(parse(TOOL, raw));
    let project = tri!(ctx.project(TOOL, a.project.as_deref(), None));
    match ctx.app.unlink_folder(&project, a.path.as_deref()) {
        Ok(removed) => {
            ctx.state.links_changed();
            ToolReply::Json(json!({"unlinked": removed.iter().map(link_json).collect::<Vec<_>>()}))
        }
        Err(e) => service_error(TOOL, e),
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListLinksArgs {
    /// Only this project's links (default: every project)
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
}

pub fn list_links(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "list_links";
    let a: ListLinksArgs = tri!(parse(TOOL, raw));
    let projects = match (&ctx.constrained, &a.project) {
        (Some(c), _) => ctx.app.projects(Some(c)),
        (None, p) => ctx.app.projects(p.as_deref()),
    };
    let projects = match projects {
        Ok(p) => p,
        Err(e) => return service_error(TOOL, e),
    };
    let mut links = Vec::new();
    for p in projects {
        match ctx.app.links(&p) {
            Ok(l) => links.extend(l.iter().map(link_json)),
            Err(e) => return service_error(TOOL, e),
        }
    }
    ToolReply::Json(json!({ "links": links }))
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SyncArgs {
    /// "external": rescan linked folders
    #[serde(deserialize_with = "args::required_string")]
    pub direction: String,
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    /// Only these linked folders (paths or link ids); default: all of the project's
    #[serde(default, deserialize_with = "args::string_list")]
    #[schemars(with = "Option<Vec<String>>")]
    pub paths: Option<Vec<String>>,
}

pub fn sync(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = "sync";
    let a: SyncArgs = tri!(parse(TOOL, raw));
    if a.direction != "external" {
        return ToolReply::Error(format!(
            "Error calling tool '{TOOL}': direction '{}' is not supported; use \"external\" to rescan linked folders",
            a.direction
        ));
    }
    let project = tri!(ctx.project(TOOL, a.project.as_deref(), None));
    let mut reports = Vec::new();
    let paths: Vec<Option<String>> = match a.paths {
        Some(p) if !p.is_empty() => p.into_iter().map(Some).collect(),
        _ => vec![None],
    };
    for path in paths {
        match ctx.app.rescan_links(&project, path.as_deref()) {
            Ok(r) => reports.extend(r),
            Err(e) => return service_error(TOOL, e),
        }
    }
    ToolReply::Json(json!({ "reports": reports }))
}
