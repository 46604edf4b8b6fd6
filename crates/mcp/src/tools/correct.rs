//! correct_memory (`memory.correct`): a correction that supersedes a note or a memory. Served
//! in the memory API's family.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::{self, ProjectArgs};
use super::common::{arguments, failed};
use super::{schema_of, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec};
use engine::correct::CorrectionRequest;
use engine::Outcome;
use render::{self, Format};

pub const CORRECT_MEMORY: ToolSpec = ToolSpec {
    name: "correct_memory",
    title: "Correct Memory",
    description: "Correct a note or a memory that is wrong: writes the corrected content as a new note beside it (`supersedes`, `correction_reason`) and marks the old one `superseded_by`, keeping its text. Searches, context packs, build_context and the graph then hide the old note unless asked with include_superseded; read_note shows the whole chain. `identifier` is a memory id, permalink, title or path.",
    hints: Hints::WRITES,
    schema: schema_of::<CorrectArgs>,
    handler: correct_memory,
    dotted: Some("memory.correct"),
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CorrectArgs {
    /// The note or memory to correct: memory id, permalink, title or path
    #[serde(alias = "id", deserialize_with = "args::required_string")]
    pub identifier: String,
    /// The corrected content (markdown)
    #[serde(deserialize_with = "args::required_string")]
    pub content: String,
    /// What was wrong, in a sentence
    #[serde(deserialize_with = "args::required_string")]
    pub reason: String,
    /// The correction's title (default: a memory's first line, a note's old title marked
    /// "corrected" with the day)
    #[serde(default, deserialize_with = "args::string")]
    pub title: Option<String>,
    #[serde(flatten)]
    pub project: ProjectArgs,
}

fn correct_memory(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = CORRECT_MEMORY.name;
    let a: CorrectArgs = tri!(arguments(TOOL, raw));
    let request = CorrectionRequest {
        identifier: a.identifier,
        content: a.content,
        reason: a.reason,
        title: a.title,
    };
    match ctx.app.correct_memory(&ctx.choice(&a.project), &request) {
        Ok(Outcome::Done(corrected)) => {
            let cited = [&corrected.old, &corrected.new]
                .into_iter()
                .filter_map(|n| Some((n.permalink.clone()?, n.title.clone())))
                .collect();
            ToolReply::Structured {
                text: render::correct::text(&corrected),
                content: render::correct::json(&corrected),
            }
            .linking(cited)
        }
        Ok(Outcome::Refused(refusal)) => {
            let title = request.title.as_deref().unwrap_or_default();
            ToolReply::from(render::notes::write_note(
                title,
                &Outcome::Refused(refusal),
                Format::Text,
            ))
        }
        Err(e) => failed(TOOL, e),
    }
}
