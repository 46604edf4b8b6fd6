//! The tool registry and its one dispatcher, which both the MCP server and
//! `gitmem tool NAME --args JSON` call. Each tool module declares, next to each handler, the
//! tool's `ToolSpec`: name, title, description, annotations, argument schema and handler.
//! `tools/list` and the dispatcher are both derived from [`specs`].
//!
//! A handler parses its arguments, makes one service call and renders the outcome. Three error
//! styles are kept apart as in Basic Memory (compat 1.4): input the schema or the service rejects
//! becomes an MCP error result (`isError: true`); situations an agent should read about are
//! rendered outcomes (markdown guidance, or an `error` code in the normal JSON shape).

mod args;
mod common;
mod correct;
mod crypto;
mod decay;
mod graph;
mod graph_query;
mod history;
mod inspect;
mod links;
mod memory;
mod notes;
mod pack;
mod posix;
mod projects;
mod query;
mod reference;
mod registry;
mod schema;

pub(crate) use common::tri;
use common::{answer, array, list_of, object, parse, schema_of, service_error};
pub use reference::reference;

use std::sync::Arc;

use serde_json::{json, Map, Value};

pub use crate::icons::Icon;
use args::ProjectArgs;
use auth::Grant;
use engine::metrics::{CallClass, Refusal};
use engine::scope::ProjectChoice;
use engine::App;
use render::Rendered;

/// What a tool call returns, before it becomes MCP content.
#[derive(Debug, Clone, PartialEq)]
pub enum ToolReply {
    /// A text result.
    Text(String),
    /// A JSON result: compact JSON text plus structured content (lists wrapped in `result`).
    Json(Value),
    /// Text and structured content that differ: the official memory server's tools answer
    /// `{"entities": [...]}` as structured content and the bare list, pretty-printed, as text.
    Structured { text: String, content: Value },
    /// An MCP error result (`isError: true`).
    Error(String),
    /// An MCP error result with structured content: the memory API's
    /// `{"error": {"code", "message"}}`.
    Failed { text: String, content: Value },
    /// A reply followed by `resource_link` blocks to the notes it names (permalink, title).
    Linked(Box<ToolReply>, Vec<(String, String)>),
}

impl ToolReply {
    pub fn is_error(&self) -> bool {
        match self {
            ToolReply::Error(_) | ToolReply::Failed { .. } => true,
            ToolReply::Linked(reply, _) => reply.is_error(),
            _ => false,
        }
    }

    /// The memory API's refusal this reply carries, if it is one `/metrics` counts.
    pub fn refusal(&self) -> Option<Refusal> {
        let ToolReply::Failed { content, .. } = self else {
            return None;
        };
        render::memory::counted_refusal(content["error"]["code"].as_str()?)
    }

    /// The text a client sees.
    pub fn text(&self) -> String {
        match self {
            ToolReply::Text(t) | ToolReply::Error(t) => t.clone(),
            ToolReply::Structured { text, .. } | ToolReply::Failed { text, .. } => text.clone(),
            ToolReply::Json(v) => serde_json::to_string(v).unwrap_or_default(),
            ToolReply::Linked(reply, _) => reply.text(),
        }
    }

    /// The reply without its resource links.
    pub fn unlinked(self) -> ToolReply {
        match self {
            ToolReply::Linked(reply, _) => reply.unlinked(),
            other => other,
        }
    }

    /// This reply with links to `notes` (permalink, title), unless it is an error.
    pub fn linking(self, notes: Vec<(String, String)>) -> ToolReply {
        if self.is_error() || notes.is_empty() {
            return self;
        }
        ToolReply::Linked(Box::new(self), notes)
    }
}

/// A JSON result, for the tools whose every answer is JSON.
impl From<Value> for ToolReply {
    fn from(value: Value) -> Self {
        ToolReply::Json(value)
    }
}

impl From<Rendered> for ToolReply {
    fn from(rendered: Rendered) -> Self {
        match rendered {
            Rendered::Text(text) => ToolReply::Text(text),
            Rendered::Json(value) => ToolReply::Json(value),
            Rendered::Refused(text) => ToolReply::Error(text),
        }
    }
}

/// Everything a tool call can reach.
#[derive(Clone)]
pub struct ToolCtx {
    pub app: Arc<App>,
    /// `serve --project NAME`: every call uses this project.
    pub constrained: Option<String>,
    /// A token for several projects: calls may use only these.
    pub allowed: Option<Vec<String>>,
    /// Also serve the dotted names (`project.link_folder`, `memory.sync`, ...).
    pub dotted_names: bool,
    /// Raised when this call's answer is no longer wanted (cancelled, or past its deadline);
    /// long operations watch it.
    pub stop: Arc<std::sync::atomic::AtomicBool>,
    /// Over HTTP: the base of the links `search` and `fetch` return (`<base>/notes/<permalink>`),
    /// which also switches them to OpenAI's exact shapes.
    pub public_url: Option<String>,
    /// Only the tools that change nothing (a read-only token).
    pub read_only: bool,
    /// The families of tools served (`serve --tools`).
    pub profiles: Profiles,
    /// Neither read-only nor limited to some projects by its token: may turn a project's
    /// encryption on or off.
    pub admin: bool,
}

/// A token for other projects than the one the server serves.
#[derive(Debug, thiserror::Error)]
#[error("the token '{token}' is for {listed}; this server serves only '{served}'", listed = .projects.join(", "))]
pub struct GrantRefused {
    pub token: String,
    pub projects: Vec<String>,
    pub served: String,
}

impl ToolCtx {
    /// A context serving what `gitmem serve` serves by default: Basic Memory's family of tools,
    /// without the dotted names.
    pub fn new(app: Arc<App>, constrained: Option<String>) -> Self {
        Self {
            app,
            constrained,
            allowed: None,
            dotted_names: false,
            stop: Default::default(),
            public_url: None,
            read_only: false,
            profiles: Profiles::BASIC,
            admin: true,
        }
    }

    /// This context narrowed to what a caller's grant allows: its project, read only. Refused
    /// when the grant names another project than the server is constrained to.
    pub fn for_grant(&self, grant: Option<&Grant>) -> Result<ToolCtx, GrantRefused> {
        let Some(grant) = grant else {
            return Ok(self.clone());
        };
        let projects = &grant.projects;
        let (constrained, allowed) = match (&self.constrained, projects.as_slice()) {
            (Some(served), _) if !projects.is_empty() && !projects.contains(served) => {
                return Err(GrantRefused {
                    token: grant.name.clone(),
                    projects: projects.clone(),
                    served: served.clone(),
                })
            }
            (Some(served), _) => (Some(served.clone()), None),
            (None, []) => (None, self.allowed.clone()),
            (None, [one]) => (Some(one.clone()), None),
            (None, several) => (None, Some(several.to_vec())),
        };
        Ok(ToolCtx {
            constrained,
            allowed,
            read_only: self.read_only || grant.read_only,
            admin: self.admin && !grant.read_only && grant.projects.is_empty(),
            ..self.clone()
        })
    }

    /// The project a call names, with the server's constraint.
    pub fn choice(&self, args: &ProjectArgs) -> ProjectChoice {
        ProjectChoice {
            constrained: self.constrained.clone(),
            allowed: self.allowed.clone(),
            project: args.project.clone(),
            project_id: args.project_id.clone(),
        }
    }

    /// Whether this server serves the tool named `name`: its family is served, and it is not
    /// one of the POSIX tools `[server] posix_tools = false` hides.
    pub fn serves_named(&self, name: &str) -> bool {
        self.profiles.serves_tool(name)
            && (self.app.config().server.serves_posix_tools() || !registry::POSIX.contains(&name))
    }

    /// The choice of a tool that takes only `project`.
    pub fn choice_of(&self, project: Option<&str>) -> ProjectChoice {
        ProjectChoice {
            constrained: self.constrained.clone(),
            allowed: self.allowed.clone(),
            ..ProjectChoice::named(project)
        }
    }
}

/// A family of tools, served when `serve --tools` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Basic Memory's tools and gitmem's own (links, history, sync): the default.
    Basic,
    /// The official memory server's knowledge-graph tools.
    Graph,
    /// The gitmem memory API (`memory_save`, ...).
    Gitmem,
    /// Looking inside the index: `inspect_note`, `inspect_query`.
    Diagnostics,
}

impl Profile {
    const ALL: [Profile; 4] = [
        Profile::Basic,
        Profile::Graph,
        Profile::Gitmem,
        Profile::Diagnostics,
    ];

    fn name(self) -> &'static str {
        match self {
            Profile::Basic => "basic",
            Profile::Graph => "graph",
            Profile::Gitmem => "gitmem",
            Profile::Diagnostics => "diagnostics",
        }
    }

    fn tools(self) -> &'static [ToolSpec] {
        match self {
            Profile::Basic => registry::BASIC,
            Profile::Graph => registry::GRAPH,
            Profile::Gitmem => registry::GITMEM,
            Profile::Diagnostics => registry::DIAGNOSTICS,
        }
    }

    /// The family a tool belongs to.
    fn of(tool: &str) -> Option<Profile> {
        Profile::ALL
            .into_iter()
            .find(|p| p.tools().iter().any(|t| t.name == tool))
    }

    fn bit(self) -> u8 {
        1 << self as u8
    }
}

/// The set of families a server serves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profiles(u8);

/// A `serve --tools` list that names no family, or one that does not exist.
#[derive(Debug, thiserror::Error)]
pub enum ProfilesError {
    #[error("unknown tool profile '{0}'; use basic, graph, gitmem, diagnostics or all (comma-separated)")]
    Unknown(String),
    #[error("no tool profile named; use basic, graph, gitmem, diagnostics or all")]
    None,
}

impl Profiles {
    pub const BASIC: Profiles = Profiles(1);
    pub const ALL: Profiles = Profiles(0b1111);

    /// `basic`, `graph`, `gitmem`, `diagnostics` or `all`, comma-separated.
    pub fn parse(list: &str) -> Result<Profiles, ProfilesError> {
        let mut bits = 0;
        for name in list.split(',').map(str::trim).filter(|n| !n.is_empty()) {
            bits |= match name {
                "all" => Profiles::ALL.0,
                _ => match Profile::ALL.iter().find(|p| p.name() == name) {
                    Some(profile) => profile.bit(),
                    None => return Err(ProfilesError::Unknown(name.to_string())),
                },
            };
        }
        if bits == 0 {
            return Err(ProfilesError::None);
        }
        Ok(Profiles(bits))
    }

    pub fn serves(self, profile: Profile) -> bool {
        self.0 & profile.bit() != 0
    }

    /// Whether the tool named `name` belongs to a served family.
    pub fn serves_tool(self, name: &str) -> bool {
        Profile::of(name).is_some_and(|p| self.serves(p))
    }
}

/// MCP tool annotations, and whether a read-only tool runs a query (how `/metrics` tells
/// searches from reads).
#[derive(Debug, Clone, Copy)]
pub struct Hints {
    pub read_only: bool,
    pub destructive: bool,
    pub idempotent: Option<bool>,
    pub searches: bool,
}

impl Hints {
    pub const READ_ONLY: Hints = Hints {
        read_only: true,
        destructive: false,
        idempotent: None,
        searches: false,
    };
    pub const SEARCHES: Hints = Hints {
        searches: true,
        ..Hints::READ_ONLY
    };
    pub const WRITES: Hints = Hints {
        read_only: false,
        destructive: false,
        idempotent: None,
        searches: false,
    };
    pub const DESTRUCTIVE: Hints = Hints {
        read_only: false,
        destructive: true,
        idempotent: None,
        searches: false,
    };

    /// The class a call of the tool is counted in.
    pub fn class(self) -> CallClass {
        match (self.read_only, self.searches) {
            (false, _) => CallClass::Write,
            (true, true) => CallClass::Search,
            (true, false) => CallClass::Read,
        }
    }

    pub const fn idempotent(self, idempotent: bool) -> Hints {
        Hints {
            idempotent: Some(idempotent),
            ..self
        }
    }
}

pub type Handler = fn(&ToolCtx, &Map<String, Value>) -> ToolReply;

/// The schema of a tool's structured content; `connector` is the HTTP transport, where
/// `search` and `fetch` answer in OpenAI's shapes.
pub type OutputSchema = fn(connector: bool) -> Value;

/// A tool: what `tools/list` shows, and the function that serves it.
#[derive(Clone, Copy)]
pub struct ToolSpec {
    pub name: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub hints: Hints,
    pub schema: fn() -> Map<String, Value>,
    pub handler: Handler,
    /// The name it is also served under with `--dotted-names` (`project.link_folder`, ...).
    pub dotted: Option<&'static str>,
    pub icon: Icon,
    /// Only for the tools whose every answer is JSON. Tools with `output_format` answer text by
    /// default, and a declared schema obliges structured content in every answer: it would send
    /// each text answer twice (the note, the context, the search page), which an agent pays
    /// for in tokens. They carry structured content when JSON is asked for, and no schema.
    pub output: Option<OutputSchema>,
}

impl ToolSpec {
    /// Whether `name` calls this tool: its own name, or its dotted one where those are served.
    fn answers_to(&self, name: &str, dotted_names: bool) -> bool {
        self.name == name || (dotted_names && self.dotted == Some(name))
    }
}

/// Every tool of every family, in the order `tools/list` shows them.
pub fn specs() -> &'static [ToolSpec] {
    static SPECS: std::sync::LazyLock<Vec<ToolSpec>> = std::sync::LazyLock::new(|| {
        Profile::ALL
            .iter()
            .flat_map(|p| p.tools().iter().copied())
            .collect()
    });
    &SPECS
}

/// Runs one tool call; every tool is synchronous over files and LMDB.
pub fn call(ctx: &ToolCtx, name: &str, args: &Map<String, Value>) -> ToolReply {
    let named = specs()
        .iter()
        .find(|spec| spec.answers_to(name, ctx.dotted_names));
    let name = named.map_or(name, |spec| spec.name);
    let family = specs()
        .iter()
        .find(|spec| spec.answers_to(name, true))
        .and_then(|spec| Profile::of(spec.name));
    let served = |spec: &&ToolSpec| ctx.serves_named(spec.name);
    match named.filter(served) {
        Some(spec) if ctx.read_only && !spec.hints.read_only => ToolReply::Error(format!(
            "Error calling tool '{name}': this connection is read-only (its token may call only the tools that change nothing: {})",
            specs()
                .iter()
                .filter(served)
                .filter(|s| s.hints.read_only)
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        )),
        Some(spec) => {
            let started = std::time::Instant::now();
            let reply = (spec.handler)(ctx, args);
            let metrics = ctx.app.metrics();
            metrics.tool_call(spec.hints.class(), started.elapsed(), reply.is_error());
            if let Some(refusal) = reply.refusal() {
                metrics.refused(refusal);
            }
            reply
        }
        None if ctx.profiles.serves_tool(name) && registry::POSIX.contains(&name) => {
            ToolReply::Error(format!(
                "Error calling tool '{name}': this server hides the POSIX tools ([server] posix_tools = false in config.toml)"
            ))
        }
        None if family.is_some() => ToolReply::Error(format!(
            "Error calling tool '{name}': this server does not serve it; start it with `gitmem serve --tools {}{}` (or `--tools all`)",
            family.map_or("all", Profile::name),
            if name.contains('.') { " --dotted-names" } else { "" }
        )),
        None => ToolReply::Error(format!(
            "Unknown tool: '{name}'. Available tools: {}",
            specs()
                .iter()
                .filter(served)
                .map(|s| s.name)
                .collect::<Vec<_>>()
                .join(", ")
        )),
    }
}

/// The tool list of a context: the served families, only the read-only tools for a read-only
/// caller, and the dotted aliases when they are served.
pub fn tool_list_for(ctx: &ToolCtx) -> Vec<rmcp::model::Tool> {
    let listed: Vec<&ToolSpec> = specs()
        .iter()
        .filter(|s| ctx.serves_named(s.name))
        .filter(|s| !ctx.read_only || s.hints.read_only)
        .collect();
    let connector = ctx.public_url.is_some();
    let mut tools: Vec<rmcp::model::Tool> = listed
        .iter()
        .filter_map(|s| definition(s, s.name, connector))
        .collect();
    if ctx.dotted_names {
        tools.extend(
            listed
                .iter()
                .filter_map(|s| definition(s, s.dotted?, connector)),
        );
    }
    tools
}

/// A tool's MCP definition under `name`.
fn definition(s: &ToolSpec, name: &str, connector: bool) -> Option<rmcp::model::Tool> {
    let mut annotations = json!({
        "title": s.title,
        "readOnlyHint": s.hints.read_only,
        "destructiveHint": s.hints.destructive,
        "openWorldHint": false,
    });
    if let Some(idempotent) = s.hints.idempotent {
        annotations["idempotentHint"] = json!(idempotent);
    }
    let mut tool = json!({
        "name": name,
        "title": s.title,
        "description": s.description,
        "inputSchema": (s.schema)(),
        "annotations": annotations,
        "icons": s.icon.list(),
    });
    if let Some(output) = s.output {
        tool["outputSchema"] = output(connector);
    }
    serde_json::from_value(tool).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_profiles_parse_as_serve_takes_them() {
        let cases: [(&str, Result<&[Profile], &str>); 8] = [
            ("basic", Ok(&[Profile::Basic])),
            ("graph", Ok(&[Profile::Graph])),
            ("diagnostics", Ok(&[Profile::Diagnostics])),
            ("basic, gitmem", Ok(&[Profile::Basic, Profile::Gitmem])),
            ("all", Ok(&Profile::ALL)),
            ("graph,all", Ok(&Profile::ALL)),
            ("basic,memory", Err("unknown tool profile 'memory'")),
            (" , ", Err("no tool profile named")),
        ];
        for (list, expected) in cases {
            match (Profiles::parse(list), expected) {
                (Ok(profiles), Ok(served)) => {
                    for profile in Profile::ALL {
                        assert_eq!(
                            profiles.serves(profile),
                            served.contains(&profile),
                            "{list}"
                        );
                    }
                }
                (Err(error), Err(needle)) => {
                    assert!(error.to_string().contains(needle), "{list}: {error}")
                }
                (got, _) => panic!("{list}: {got:?}"),
            }
        }
    }

    #[test]
    fn every_tool_belongs_to_one_profile_and_the_default_serves_basic_memorys() {
        for spec in specs() {
            let families = Profile::ALL
                .iter()
                .filter(|p| p.tools().iter().any(|t| t.name == spec.name))
                .count();
            assert_eq!(families, 1, "{}", spec.name);
        }
        assert!(Profiles::BASIC.serves_tool("write_note"));
        assert!(!Profiles::BASIC.serves_tool("create_entities"));
        assert!(!Profiles::BASIC.serves_tool("memory_save"));
        assert!(Profiles::ALL.serves_tool("memory_save"));
        assert!(Profiles::BASIC.serves_tool("basic_memory_diagnostics"));
        assert!(!Profiles::BASIC.serves_tool("inspect_query"));
        assert!(Profiles::ALL.serves_tool("inspect_note"));
    }
}
