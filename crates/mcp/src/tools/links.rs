//! Linked-folder tools: link_folder, unlink_folder, list_links, sync.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args;
use super::{
    answer, list_of, object, parse, schema_of, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec,
};
use engine::git::exchange::Direction;
use engine::links::{LinkOptions, WatchChoice};
use render::{self, Rendered};

pub const LINK_FOLDER: ToolSpec = ToolSpec {
    name: "link_folder",
    title: "Link Folder",
    description: "Bind an external folder (an Obsidian vault) to a project: its notes appear under a mount folder of the project and become searchable, readable and editable; scans never write to it. Returns the link's metadata and the first scan's report.",
    hints: Hints::WRITES.idempotent(true),
    schema: schema_of::<LinkFolderArgs>,
    handler: link_folder,
    dotted: Some("project.link_folder"),
    icon: Icon::Link,
    output: Some(link),
};

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
    pub include: Option<Vec<String>>,
    /// Skip files matching these globs
    #[serde(default, deserialize_with = "args::string_list")]
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
    pub poll_interval_ms: Option<i64>,
    #[serde(
        default,
        rename = "jitterPct",
        alias = "jitter_pct",
        deserialize_with = "args::int"
    )]
    pub jitter_pct: Option<i64>,
    /// Folder of the project the notes appear under (default: the folder's name)
    #[serde(default, deserialize_with = "args::string")]
    pub mount: Option<String>,
}

fn link_folder(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = LINK_FOLDER.name;
    let a: LinkFolderArgs = tri!(parse(TOOL, raw));
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
        watch: WatchChoice {
            mode: a.watch_mode,
            poll_interval_ms: poll,
            jitter_pct: jitter,
        },
        mount: a.mount,
    };
    let linked = ctx
        .app
        .link_folder(&ctx.choice_of(a.project.as_deref()), &options);
    answer(TOOL, linked, |(link, report)| {
        Rendered::Json(render::links::linked(link, report))
    })
}

pub const UNLINK_FOLDER: ToolSpec = ToolSpec {
    name: "unlink_folder",
    title: "Unlink Folder",
    description: "Unbind a linked folder (or every folder of a project). Its files are not touched; its notes leave the index.",
    hints: Hints::DESTRUCTIVE,
    schema: schema_of::<UnlinkFolderArgs>,
    handler: unlink_folder,
    dotted: Some("project.unlink_folder"),
    icon: Icon::Link,
    output: Some(unlinked),
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct UnlinkFolderArgs {
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    /// The linked folder (as given, canonical, or its link id); omit to unlink every folder
    #[serde(default, deserialize_with = "args::string")]
    pub path: Option<String>,
}

fn unlink_folder(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: UnlinkFolderArgs = tri!(parse(UNLINK_FOLDER.name, raw));
    let removed = ctx
        .app
        .unlink_folder(&ctx.choice_of(a.project.as_deref()), a.path.as_deref());
    answer(UNLINK_FOLDER.name, removed, |removed| {
        Rendered::Json(render::links::unlinked(removed))
    })
}

pub const LIST_LINKS: ToolSpec = ToolSpec {
    name: "list_links",
    title: "List Links",
    description: "List linked folders with their status, counts, schedule and last scan.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<ListLinksArgs>,
    handler: list_links,
    dotted: Some("project.list_links"),
    icon: Icon::Link,
    output: Some(links),
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListLinksArgs {
    /// Only this project's links (default: every project)
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
}

fn list_links(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ListLinksArgs = tri!(parse(LIST_LINKS.name, raw));
    let links = ctx.app.list_links(&ctx.choice_of(a.project.as_deref()));
    answer(LIST_LINKS.name, links, |links| {
        Rendered::Json(render::links::links(links))
    })
}

pub const SYNC: ToolSpec = ToolSpec {
    name: "sync",
    title: "Sync",
    description: "With direction \"external\": rescan linked folders now and return one report per folder. With \"pull\", \"push\" or \"both\": exchange a versioned project's commits with its git remote (pulls merge three ways; conflicts keep both texts and are listed).",
    hints: Hints::WRITES.idempotent(true),
    schema: schema_of::<SyncArgs>,
    handler: sync,
    dotted: Some("memory.sync"),
    icon: Icon::Link,
    output: Some(reports),
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct SyncArgs {
    /// "external": rescan linked folders; "pull", "push" or "both": sync with the git remote
    #[serde(deserialize_with = "args::required_string")]
    pub direction: String,
    #[serde(default, deserialize_with = "args::string")]
    pub project: Option<String>,
    /// Only these linked folders (paths or link ids); default: all of the project's
    #[serde(default, deserialize_with = "args::string_list")]
    pub paths: Option<Vec<String>>,
}

fn sync(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = SYNC.name;
    let a: SyncArgs = tri!(parse(TOOL, raw));
    if let Some(direction) = Direction::parse(&a.direction) {
        let report = ctx
            .app
            .exchange(&ctx.choice_of(a.project.as_deref()), direction);
        return answer(TOOL, report, |report| {
            Rendered::Json(render::git::reports(report))
        });
    }
    if a.direction != "external" {
        return ToolReply::Error(format!(
            "Error calling tool '{TOOL}': direction '{}' is not supported; use \"external\" to rescan linked folders, or \"pull\", \"push\" or \"both\" to sync with the git remote",
            a.direction
        ));
    }
    let paths = a.paths.unwrap_or_default();
    let reports = ctx
        .app
        .rescan_links_of(&ctx.choice_of(a.project.as_deref()), &paths);
    answer(TOOL, reports, |reports| {
        Rendered::Json(render::links::reports(reports))
    })
}

fn link(_: bool) -> Value {
    object(json!({
        "project": {"type": "string"},
        "path": {"type": "string"},
        "displayPath": {"type": "string"},
        "linkId": {"type": "string"},
        "mount": {"type": "string"},
        "include": {"type": "array", "items": {"type": "string"}},
        "exclude": {"type": "array", "items": {"type": "string"}},
        "watch": {"type": "object"},
        "fileCount": {"type": "integer"},
        "report": {"type": "object"},
    }))
}

fn unlinked(_: bool) -> Value {
    list_of("unlinked")
}

fn links(_: bool) -> Value {
    list_of("links")
}

fn reports(_: bool) -> Value {
    list_of("reports")
}
