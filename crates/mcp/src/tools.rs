//! The tool registry and its one dispatcher, which both the MCP server and
//! `gitmem tool NAME --args JSON` call. Each tool module declares, next to each handler, the
//! tool's `ToolSpec`: name, title, description, annotations, argument schema and handler.
//! `tools/list` and the dispatcher are both derived from [`specs`].
//!
//! A handler parses its arguments, makes one service call and renders the outcome. Three error
//! styles are kept apart as in Basic Memory (compat 1.4): input the schema or the service rejects
//! becomes an MCP error result (`isError: true`); situations an agent should read about are
//! rendered outcomes (markdown guidance, or an `error` code in the normal JSON shape).

use std::sync::Arc;

use rmcp::schemars::{self, JsonSchema};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use super::args::{FormatArgs, PageArgs, ProjectArgs};
pub use super::icons::Icon;
use super::{
    diagnostics_tools, graph_tools, history_tools, link_tools, memory_tools, note_tools,
    posix_tools, project_tools, query_tools, schema_tools,
};
use engine::auth::Grant;
use engine::error::PageError;
use engine::metrics::{CallClass, Refusal};
use engine::scope::ProjectChoice;
use engine::{App, ServiceError};
use render::{Format, Rendered};

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
            && (self.app.config().server.serves_posix_tools()
                || !posix_tools::NAMES.contains(&name))
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
            Profile::Basic => BASIC_TOOLS,
            Profile::Graph => graph_tools::TOOLS,
            Profile::Gitmem => memory_tools::TOOLS,
            Profile::Diagnostics => diagnostics_tools::TOOLS,
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

/// An output schema's object with these properties.
pub fn object(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

/// An output schema's array of these items.
pub fn array(items: Value) -> Value {
    json!({"type": "array", "items": items})
}

/// An object holding one list of objects under `key`.
pub fn list_of(key: &str) -> Value {
    object(json!({ key: array(json!({"type": "object"})) }))
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

const BASIC_TOOLS: &[ToolSpec] = &[
    note_tools::WRITE_NOTE,
    note_tools::READ_NOTE,
    note_tools::VIEW_NOTE,
    note_tools::EDIT_NOTE,
    note_tools::MOVE_NOTE,
    note_tools::DELETE_NOTE,
    note_tools::READ_CONTENT,
    history_tools::NOTE_HISTORY,
    history_tools::NOTE_DIFF,
    history_tools::RESTORE_NOTE,
    query_tools::SEARCH_NOTES,
    query_tools::RECENT_ACTIVITY,
    query_tools::BUILD_CONTEXT,
    query_tools::LIST_DIRECTORY,
    project_tools::LIST_MEMORY_PROJECTS,
    project_tools::CREATE_MEMORY_PROJECT,
    project_tools::DELETE_PROJECT,
    project_tools::CANVAS,
    project_tools::SYNC_STATUS,
    query_tools::SEARCH,
    query_tools::FETCH,
    project_tools::DIAGNOSTICS,
    link_tools::LINK_FOLDER,
    link_tools::UNLINK_FOLDER,
    link_tools::LIST_LINKS,
    link_tools::SYNC,
    posix_tools::CAT,
    posix_tools::GREP,
    posix_tools::LS,
    posix_tools::FIND,
    posix_tools::TAIL,
    posix_tools::MAN,
    schema_tools::SCHEMA_VALIDATE,
    schema_tools::SCHEMA_INFER,
    schema_tools::SCHEMA_DIFF,
];

/// The JSON schema of an argument struct, as `tools/list` shows it.
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
            let metrics = &ctx.app.metrics;
            metrics.tool_call(spec.hints.class(), started.elapsed(), reply.is_error());
            if let Some(refusal) = reply.refusal() {
                metrics.refused(refusal);
            }
            reply
        }
        None if ctx.profiles.serves_tool(name) && posix_tools::NAMES.contains(&name) => {
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

/// Parses a tool's arguments; a schema violation is an MCP error result naming the parameter.
/// The tools whose argument structs deny unknown fields (the memory API's, the graph tools')
/// refuse a field they do not know, naming it, where it is and what is known there.
pub fn parse<T: DeserializeOwned>(tool: &str, args: &Map<String, Value>) -> Result<T, ToolReply> {
    let value = Value::Object(args.clone());
    let error = match serde_path_to_error::deserialize::<_, T>(&value) {
        Ok(parsed) => return Ok(parsed),
        Err(e) => e,
    };
    if let Some(message) = unknown_field(tool, &error) {
        return Err(ToolReply::Error(format!(
            "Error calling tool '{tool}': {message}"
        )));
    }
    let error = error.into_inner().to_string();
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

/// serde's refusal of an unknown field, as `unknown field `x` in patch; expected one of a,
/// b`. A struct with flattened fields does not list what it expects, so the names come from
/// the tool's schema there.
fn unknown_field(
    tool: &str,
    error: &serde_path_to_error::Error<serde_json::Error>,
) -> Option<String> {
    let message = error.inner().to_string();
    let rest = message.strip_prefix("unknown field `")?;
    let (field, rest) = rest.split_once('`')?;
    let mut expected: Vec<String> = rest
        .split('`')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect();
    // The path ends with the field itself; where it was is the object around it.
    let path = error.path().to_string();
    let place = path
        .strip_suffix(field)
        .unwrap_or(&path)
        .trim_end_matches('.');
    let at_top = place.is_empty();
    if expected.is_empty() && at_top {
        let spec = specs().iter().find(|s| s.name == tool)?;
        expected = (spec.schema)()
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default();
    }
    let place = if at_top {
        String::new()
    } else {
        format!(" in {place}")
    };
    Some(format!(
        "unknown field `{field}`{place}; expected one of {}",
        expected.join(", ")
    ))
}

/// A service error as the MCP error result of `tool`. Failures of gitmem itself (not of the
/// caller's input) are logged with the tool's name first.
pub fn service_error(tool: &str, e: ServiceError) -> ToolReply {
    if !e.is_user_error() {
        tracing::error!("tool '{tool}' failed: {e}");
    }
    ToolReply::Error(format!("Error calling tool '{tool}': {e}"))
}

/// The reply of a service call: its rendered outcome, or an MCP error result.
pub fn answer<T, R: Into<ToolReply>>(
    tool: &str,
    result: engine::Result<T>,
    render: impl FnOnce(&T) -> R,
) -> ToolReply {
    match result {
        Ok(outcome) => render(&outcome).into(),
        Err(e) => service_error(tool, e),
    }
}

impl FormatArgs {
    /// The output format asked for, or `default`.
    pub fn format(&self, default: Format) -> Result<Format, ToolReply> {
        match self.output_format.as_deref().map(str::trim) {
            None | Some("") => Ok(default),
            Some("text") => Ok(Format::Text),
            Some("json") => Ok(Format::Json),
            Some(other) => Err(ToolReply::Error(format!(
                "output_format must be 'text' or 'json', got '{other}'"
            ))),
        }
    }
}

impl PageArgs {
    /// (page, page_size), with `default_size` and an optional largest size.
    pub fn checked(
        &self,
        tool: &str,
        default_size: i64,
        max: Option<i64>,
    ) -> Result<(usize, usize), ToolReply> {
        let page = self.page.unwrap_or(1);
        let size = self.page_size.unwrap_or(default_size);
        let invalid = |e: PageError| Err(service_error(tool, e.into()));
        if page < 1 {
            return invalid(PageError::PageBelowOne(page));
        }
        if size < 1 {
            return invalid(PageError::SizeBelowOne(size));
        }
        match max {
            Some(max) if size > max => invalid(PageError::SizeAboveMax { max, size }),
            _ => Ok((page as usize, size as usize)),
        }
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
