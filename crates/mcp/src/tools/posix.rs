//! Basic Memory's POSIX-shaped read tools: `cat`, `grep`, `ls`, `find`, `tail`, `man`. All
//! read only, served unless `[server] posix_tools = false` (Basic Memory's
//! `enable_posix_tools`).

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::args::{self, PageArgs, ProjectArgs};
use super::{
    answer, array, object, parse, schema_of, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec,
};
use engine::posix::{CatRequest, FindRequest, GrepRequest};
use engine::read::Page;

/// A directory page of ls and find: Basic Memory's default and largest sizes.
const DEFAULT_PAGE_SIZE: i64 = 10;
const MAX_PAGE_SIZE: i64 = 200;

pub const CAT: ToolSpec = ToolSpec {
    name: "cat",
    title: "Cat",
    description: "Print a note's content, optionally sliced by line range (start_line/end_line, numbered over the whole file, front matter included: the numbers grep reports), by section (a heading, 'Parent/Heading' or 'Heading[1]'), or by an approximate token budget (max_tokens: cut at a line boundary, with truncated and continue_line). Accepts '<project>/path' identifiers.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<CatArgs>,
    handler: cat,
    dotted: None,
    icon: Icon::Notebook,
    output: Some(cat_output),
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct CatArgs {
    /// Note title, permalink, file path, memory:// URL, id or '<project>/path'
    #[serde(deserialize_with = "args::required_string")]
    pub identifier: String,
    /// First line to include (1-indexed, inclusive)
    #[serde(default, deserialize_with = "args::int")]
    pub start_line: Option<i64>,
    /// Last line to include (inclusive); default the last line
    #[serde(default, deserialize_with = "args::int")]
    pub end_line: Option<i64>,
    /// Heading to slice to: "Decisions", "Auth/Decisions" or "Decisions[1]"; not with lines
    #[serde(default, deserialize_with = "args::string")]
    pub section: Option<String>,
    /// Approximate token budget; longer content is cut at a line boundary
    #[serde(default, deserialize_with = "args::int")]
    pub max_tokens: Option<i64>,
    /// Include the front matter block in `content` (default true)
    #[serde(default, deserialize_with = "args::boolean")]
    pub include_frontmatter: Option<bool>,
    #[serde(flatten)]
    pub project: ProjectArgs,
}

fn cat(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: CatArgs = tri!(parse(CAT.name, raw));
    let request = CatRequest {
        identifier: a.identifier,
        start_line: a.start_line,
        end_line: a.end_line,
        section: a.section,
        max_tokens: a.max_tokens,
        include_frontmatter: a.include_frontmatter.unwrap_or(true),
    };
    let outcome = ctx.app.cat(&ctx.choice(&a.project), &request);
    answer(CAT.name, outcome, render::posix::cat)
}

fn cat_output(_: bool) -> Value {
    let integer = json!({"type": "integer"});
    object(json!({
        "title": {"type": "string"},
        "permalink": {"type": ["string", "null"]},
        "file_path": {"type": "string"},
        "content": {"type": "string"},
        "frontmatter": {"type": ["object", "null"]},
        "start_line": integer,
        "end_line": integer,
        "total_lines": integer,
        "section": {"type": "string"},
        "truncated": {"type": "boolean"},
        "continue_line": integer,
    }))
}

pub const GREP: ToolSpec = ToolSpec {
    name: "grep",
    title: "Grep",
    description: "Search note content in one project and return matching notes. Not a regex: `pattern` is matched as full-text keywords by default, and a pattern found in no note returns no results. `semantic=true` ranks by meaning instead (hybrid, when a model is installed). Add `context_lines` (0-10) to get case-insensitive matching lines with surrounding context and line numbers that `cat` accepts as start_line/end_line; `literal=true` scans every note file of the project rather than search candidates.",
    hints: Hints::SEARCHES,
    schema: schema_of::<GrepArgs>,
    handler: grep,
    dotted: None,
    icon: Icon::Search,
    output: Some(grep_output),
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GrepArgs {
    /// Text to search for
    #[serde(deserialize_with = "args::required_string")]
    pub pattern: String,
    /// Rank by meaning (hybrid search) instead of keywords; not with context_lines
    #[serde(default, deserialize_with = "args::boolean")]
    pub semantic: Option<bool>,
    /// Scan every note file for the pattern as a literal, case-insensitive substring (gitmem)
    #[serde(default, deserialize_with = "args::boolean")]
    pub literal: Option<bool>,
    /// Return matching lines with this many lines of context (0-10)
    #[serde(default, deserialize_with = "args::int")]
    pub context_lines: Option<i64>,
    /// Matching lines shown per note in line mode (1-100, default 10)
    #[serde(default, deserialize_with = "args::int")]
    pub max_matches: Option<i64>,
    #[serde(flatten)]
    pub page: PageArgs,
    #[serde(flatten)]
    pub project: ProjectArgs,
}

fn grep(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: GrepArgs = tri!(parse(GREP.name, raw));
    let (page, page_size) = tri!(a.page.checked(GREP.name, 10, None));
    let request = GrepRequest {
        pattern: a.pattern,
        semantic: a.semantic.unwrap_or(false),
        literal: a.literal.unwrap_or(false),
        context_lines: a.context_lines,
        max_matches: a.max_matches,
        page,
        page_size,
    };
    let outcome = ctx.app.grep(&ctx.choice(&a.project), &request);
    answer(GREP.name, outcome, render::posix::grep)
}

fn grep_output(_: bool) -> Value {
    object(json!({
        "results": array(json!({"type": "object"})),
        "current_page": {"type": "integer"},
        "page_size": {"type": "integer"},
        "total": {"type": "integer"},
        "has_more": {"type": "boolean"},
        "pagination_scope": {"type": "string"},
    }))
}

pub const LS: ToolSpec = ToolSpec {
    name: "ls",
    title: "Ls",
    description: "List one directory level. '/' lists projects; paths accept '<project>/path'.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<LsArgs>,
    handler: ls,
    dotted: None,
    icon: Icon::Folder,
    output: Some(listing_output),
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct LsArgs {
    /// Directory to list; '/' (the default) with no project lists the projects
    #[serde(default, deserialize_with = "args::string")]
    pub path: Option<String>,
    #[serde(flatten)]
    pub page: PageArgs,
    #[serde(flatten)]
    pub project: ProjectArgs,
}

fn ls(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: LsArgs = tri!(parse(LS.name, raw));
    let (page, page_size) = tri!(a
        .page
        .checked(LS.name, DEFAULT_PAGE_SIZE, Some(MAX_PAGE_SIZE)));
    let path = a.path.unwrap_or_else(|| "/".into());
    let outcome = ctx
        .app
        .ls(&ctx.choice(&a.project), &path, Page { page, page_size });
    answer(LS.name, outcome, render::posix::listing)
}

fn listing_output(_: bool) -> Value {
    object(json!({
        "nodes": array(json!({"type": "object"})),
        "page": {"type": "integer"},
        "page_size": {"type": "integer"},
        "total": {"type": "integer"},
        "has_more": {"type": "boolean"},
    }))
}

pub const FIND: ToolSpec = ToolSpec {
    name: "find",
    title: "Find",
    description: "Find files and folders under a path, recursively (depth 1-10, default 10), whose names match a glob (`name`, e.g. '*.md'); or, with `meta`, the notes under the path whose front matter passes every predicate ('status=active', 'confidence>0.6', 'priority in high,critical', 'tags has security,oauth', 'score between 0.3,0.8', 'owner=null'), as a search page; `fields` (with `meta`) narrows each row to the note's identity and those front matter fields. Paths accept '<project>/path'.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<FindArgs>,
    handler: find,
    dotted: None,
    icon: Icon::Folder,
    output: Some(find_output),
};

fn find_output(connector: bool) -> Value {
    let mut schema = listing_output(connector);
    for (key, kind) in [
        ("results", array(json!({"type": "object"}))),
        ("current_page", json!({"type": "integer"})),
    ] {
        schema["properties"][key] = kind;
    }
    schema
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct FindArgs {
    /// Directory to start from (default '/')
    #[serde(default, deserialize_with = "args::string")]
    pub path: Option<String>,
    /// Shell glob on entry names (`*`, `?`, `[abc]`)
    #[serde(default, deserialize_with = "args::string")]
    pub name: Option<String>,
    /// How many levels down (1-10, default 10)
    #[serde(default, deserialize_with = "args::int")]
    pub depth: Option<i64>,
    /// Front matter predicates, all of which must hold: "status=active", "confidence>0.6"
    /// (> >= < <=), "priority in high,critical", "tags has security,oauth" (all of them),
    /// "score between 0.3,0.8", "owner=null" (missing or null); values read as JSON scalars,
    /// quote one to keep it text. Not with `name` or `depth`
    #[serde(default, deserialize_with = "args::whole_string_list")]
    pub meta: Option<Vec<String>>,
    /// Front matter fields (dot paths) to return per note instead of its content; needs `meta`
    #[serde(default, deserialize_with = "args::whole_string_list")]
    pub fields: Option<Vec<String>>,
    #[serde(flatten)]
    pub page: PageArgs,
    #[serde(flatten)]
    pub project: ProjectArgs,
}

fn find(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: FindArgs = tri!(parse(FIND.name, raw));
    let (page, page_size) = tri!(a
        .page
        .checked(FIND.name, DEFAULT_PAGE_SIZE, Some(MAX_PAGE_SIZE)));
    let request = FindRequest {
        path: a.path.unwrap_or_else(|| "/".into()),
        name: a.name,
        depth: a.depth,
        page,
        page_size,
        meta: a.meta,
        fields: a.fields,
    };
    let outcome = ctx.app.find(&ctx.choice(&a.project), &request);
    answer(FIND.name, outcome, render::posix::listing)
}

pub const TAIL: ToolSpec = ToolSpec {
    name: "tail",
    title: "Tail",
    description: "Show recently changed notes, newest first: timeframe ('7d', 'yesterday', '2 days ago'), at most `lines` (1-100) rows.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<TailArgs>,
    handler: tail,
    dotted: None,
    icon: Icon::Search,
    output: Some(tail_output),
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct TailArgs {
    /// Time window, e.g. "7d" (the default), "yesterday", "2 days ago"
    #[serde(default, deserialize_with = "args::string")]
    pub timeframe: Option<String>,
    /// Most rows to return (1-100, default 10)
    #[serde(default, deserialize_with = "args::int")]
    pub lines: Option<i64>,
    #[serde(flatten)]
    pub project: ProjectArgs,
}

fn tail(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: TailArgs = tri!(parse(TAIL.name, raw));
    let timeframe = a.timeframe.as_deref().unwrap_or("7d");
    let outcome = ctx
        .app
        .tail(&ctx.choice(&a.project), timeframe, a.lines.unwrap_or(10));
    answer(TAIL.name, outcome, |items| render::posix::tail(items))
}

fn tail_output(_: bool) -> Value {
    object(json!({ "result": array(json!({"type": "object"})) }))
}

pub const MAN: ToolSpec = ToolSpec {
    name: "man",
    title: "Man",
    description: "Look up a manual page or search the manual. No arguments: the index. `page`: one page (e.g. 'grep', 'search-notes(3)'), else a note of the manual project. `query`: search the notes of type 'manpage' in the manual project ('manual', or `project`).",
    hints: Hints::READ_ONLY,
    schema: schema_of::<ManArgs>,
    handler: man,
    dotted: None,
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
pub struct ManArgs {
    /// Page reference, e.g. "grep" or "search-notes(3)"
    #[serde(default, deserialize_with = "args::string")]
    pub page: Option<String>,
    /// Search text over the manual project's manpage notes; not with `page`
    #[serde(default, deserialize_with = "args::string")]
    pub query: Option<String>,
    /// The manual project (default "manual"); bundled pages need none
    #[serde(flatten)]
    pub project: ProjectArgs,
}

fn man(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    let a: ManArgs = tri!(parse(MAN.name, raw));
    let outcome = ctx.app.man(
        &ctx.choice(&a.project),
        a.page.as_deref(),
        a.query.as_deref(),
    );
    let served = |tool: &str| ctx.serves_named(tool);
    answer(MAN.name, outcome, |manual| {
        render::posix::man(manual, &served)
    })
}
