//! The four prompts (compat 3). Prompt texts live in `templates/`.

use chrono::Utc;
use serde_json::{json, Map, Value};

use super::tools::ToolCtx;
use engine::search::{SearchRequest, SearchResult};
use engine::timeframe::{parse_instant, Timeframe, TimeframeError};
use engine::ServiceError;
use render::{self, Format, Rendered};

const CONTINUE: &str = include_str!("../../../templates/prompt_continue_conversation.md");
const GETTING_STARTED: &str = include_str!("../../../templates/prompt_getting_started.md");
const RECENT: &str = include_str!("../../../templates/prompt_recent_activity.md");
const SEARCH: &str = include_str!("../../../templates/prompt_search_knowledge_base.md");

/// Why a prompt could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum PromptError {
    #[error("Unknown prompt '{0}'. Available prompts: continue_conversation, getting_started, recent_activity, search_knowledge_base")]
    Unknown(String),
    #[error("search_knowledge_base needs a 'query' argument")]
    NoQuery,
    #[error(transparent)]
    Timeframe(#[from] TimeframeError),
    #[error(transparent)]
    Service(#[from] ServiceError),
}

pub fn list() -> Value {
    json!([
        {
            "name": "continue_conversation",
            "description": "Continue a previous conversation: loads what the knowledge base holds on a topic, or recent activity",
            "arguments": [
                {"name": "topic", "description": "Topic or keyword to search for", "required": false},
                {"name": "timeframe", "description": "How far back to look for activity (e.g. '1d', '1 week')", "required": false},
            ],
        },
        {
            "name": "getting_started",
            "description": "Start a session: choose a project and see what is in it",
            "arguments": [{"name": "project", "description": "Project to start in", "required": false}],
        },
        {
            "name": "recent_activity",
            "description": "What changed recently in the knowledge base",
            "arguments": [
                {"name": "timeframe", "description": "How far back to look (default 7d)", "required": false},
                {"name": "project", "description": "Project (default: the default project)", "required": false},
            ],
        },
        {
            "name": "search_knowledge_base",
            "description": "Search the knowledge base and present the results",
            "arguments": [
                {"name": "query", "description": "What to search for", "required": true},
                {"name": "timeframe", "description": "Only results changed within this window", "required": false},
            ],
        },
    ])
}

fn fill(template: &str, values: &[(&str, &str)]) -> String {
    values.iter().fold(template.to_string(), |t, (k, v)| {
        t.replace(&format!("{{{{{k}}}}}"), v)
    })
}

/// Notes matching `query` (changed within `timeframe`, when given and valid).
fn search(ctx: &ToolCtx, query: &str, timeframe: Option<&str>) -> Vec<SearchResult> {
    let after_date = match timeframe.map(|t| parse_instant(t, Utc::now())) {
        Some(Ok(t)) => Some(t),
        Some(Err(_)) => return Vec::new(),
        None => None,
    };
    let request = SearchRequest {
        query: Some(query.to_string()),
        after_date,
        ..Default::default()
    };
    ctx.app
        .search_notes(&ctx.choice_of(None), false, &request)
        .map(|found| found.response.results)
        .unwrap_or_default()
}

/// recent_activity's text for a timeframe and a project (or the default, or every project).
fn activity(ctx: &ToolCtx, timeframe: &str, project: Option<&str>) -> Result<String, PromptError> {
    let tf = Timeframe::parse(timeframe, Utc::now())?;
    let answer = ctx.app.recent_activity_for(
        &ctx.choice_of(project),
        &[],
        tf.since(Utc::now()),
        1,
        10,
        None,
    )?;
    match render::activity::answer(&answer, &tf.label(), 1, false, Format::Text) {
        Rendered::Text(text) | Rendered::Refused(text) => Ok(text),
        Rendered::Json(v) => Ok(v.to_string()),
    }
}

fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n {
        s.to_string()
    } else {
        format!("{}...", s.chars().take(n).collect::<String>())
    }
}

/// Renders a prompt: (description, user message text), or an error for bad arguments.
pub fn render(
    ctx: &ToolCtx,
    name: &str,
    args: &Map<String, Value>,
) -> Result<(String, String), PromptError> {
    let arg = |k: &str| {
        args.get(k)
            .and_then(Value::as_str)
            .map(str::trim)
            .filter(|s| !s.is_empty())
    };
    match name {
        "continue_conversation" => {
            let timeframe = arg("timeframe");
            let (topic, context) = match arg("topic") {
                Some(topic) => {
                    let results = search(ctx, topic, timeframe);
                    let context = if results.is_empty() {
                        format!(
                            "No previous context found for '{topic}'.\n\nConsider capturing what you learn with `write_note(title=\"{topic}\", content=\"...\", directory=\"notes\")`."
                        )
                    } else {
                        let mut c = format!("## Previous Context for '{topic}'\n\nFound {} results related to '{topic}'.\n", results.len());
                        for r in &results {
                            let p = r.permalink.as_deref().unwrap_or("");
                            c.push_str(&format!(
                                "\n### {}\npermalink: {p}\nRead with: `read_note(\"{p}\")`\n\n{}\n",
                                r.title,
                                short(r.content.as_deref().unwrap_or(""), 300)
                            ));
                        }
                        c
                    };
                    (topic.to_string(), context)
                }
                None => {
                    let activity = activity(ctx, timeframe.unwrap_or("7d"), None)
                        .unwrap_or_else(|e| e.to_string());
                    ("recent activity".to_string(), activity)
                }
            };
            Ok((
                format!("Continue the conversation on {topic}"),
                fill(CONTINUE, &[("topic", &topic), ("context", &context)]),
            ))
        }
        "getting_started" => {
            let project = ctx.app.select_project(&ctx.choice_of(arg("project")))?;
            let activity =
                activity(ctx, "30d", Some(&project.name)).unwrap_or_else(|e| e.to_string());
            Ok((
                "Get started with gitmem".into(),
                fill(
                    GETTING_STARTED,
                    &[("project", &project.name), ("activity", &activity)],
                ),
            ))
        }
        "recent_activity" => {
            let timeframe = arg("timeframe").unwrap_or("7d");
            let activity = activity(ctx, timeframe, arg("project"))?;
            let label = arg("project").unwrap_or("all projects");
            Ok((
                "Recent activity".into(),
                fill(
                    RECENT,
                    &[
                        ("project", label),
                        ("timeframe", timeframe),
                        ("activity", &activity),
                    ],
                ),
            ))
        }
        "search_knowledge_base" => {
            let Some(query) = arg("query") else {
                return Err(PromptError::NoQuery);
            };
            let results = search(ctx, query, arg("timeframe"));
            let mut listing = format!("Found {} results:\n", results.len());
            for r in &results {
                listing.push_str(&format!(
                    "\n- **{}**\n  permalink: {}\n  {}\n",
                    r.title,
                    r.permalink.as_deref().unwrap_or(""),
                    short(r.content.as_deref().unwrap_or(""), 200)
                ));
            }
            Ok((
                format!("Search results for {query}"),
                fill(SEARCH, &[("query", query), ("results", &listing)]),
            ))
        }
        other => Err(PromptError::Unknown(other.to_string())),
    }
}
