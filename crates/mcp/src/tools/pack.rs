//! memory_context (`memory.context`): a task-focused context pack cut to a token budget, every
//! line citing its note. Served in the memory API's family; `gitmem context --task` is the
//! same pack at the shell.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::{self, ProjectArgs};
use super::common::{arguments, failed};
use super::{schema_of, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec};
use engine::error::QueryError;
use engine::pack::PackRequest;
use render;

pub const MEMORY_CONTEXT: ToolSpec = ToolSpec {
    name: "memory_context",
    title: "Context Pack",
    description: "A context pack for a task: durable facts (decisions, preferences, pinned or high-score notes), the notes a search for the task finds, and recent activity, each line citing its note as [permalink], cut at line boundaries to `token_budget` tokens (about four characters a token; default 4000, at most 16000). `sessions` keeps only notes whose `session_id` is one of them.",
    hints: Hints::READ_ONLY,
    schema: schema_of::<ContextArgs>,
    handler: memory_context,
    dotted: Some("memory.context"),
    icon: Icon::Search,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContextArgs {
    /// What the context is for, in a few words or a sentence
    #[serde(deserialize_with = "args::required_string")]
    pub task: String,
    /// Most tokens the pack may hold (default 4000, at most 16000)
    #[serde(default, deserialize_with = "args::int")]
    pub token_budget: Option<i64>,
    /// Add the notes changed in the last 7 days (default true)
    #[serde(default, deserialize_with = "args::boolean")]
    pub include_recent: Option<bool>,
    /// Only notes whose front matter `session_id` is one of these
    #[serde(default, deserialize_with = "args::string_list")]
    pub sessions: Option<Vec<String>>,
    /// Also cite notes a correction or a compaction superseded (hidden by default)
    #[serde(default, deserialize_with = "args::boolean")]
    pub include_superseded: Option<bool>,
    #[serde(flatten)]
    pub project: ProjectArgs,
}

impl ContextArgs {
    /// The service's request, or what is wrong with the arguments.
    pub fn request(self) -> Result<(ProjectArgs, PackRequest), QueryError> {
        let token_budget = match self.token_budget {
            Some(n) if n < 1 => return Err(QueryError::TokenBudgetBelowOne(n)),
            other => other.map(|n| n as usize),
        };
        let request = PackRequest {
            task: self.task,
            token_budget,
            include_recent: self.include_recent.unwrap_or(true),
            sessions: self.sessions.unwrap_or_default(),
            include_superseded: self.include_superseded.unwrap_or(false),
        };
        Ok((self.project, request))
    }
}

fn memory_context(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = MEMORY_CONTEXT.name;
    let a: ContextArgs = tri!(arguments(TOOL, raw));
    let (project, request) = match a.request() {
        Ok(parts) => parts,
        Err(e) => return failed(TOOL, e.into()),
    };
    match ctx.app.memory_context(&ctx.choice(&project), &request) {
        Ok(pack) => {
            let cited = pack
                .cited()
                .into_iter()
                .map(|(title, permalink)| (permalink, title))
                .collect();
            ToolReply::Structured {
                text: render::pack::text(&pack),
                content: render::pack::json(&pack),
            }
            .linking(cited)
        }
        Err(e) => failed(TOOL, e),
    }
}
