//! memory_context's answer: the pack as text, each line citing its note, and the same
//! sections as structured content.

use serde_json::{json, Value};

use engine::pack::ContextPack;

/// The pack as the model reads it: what the budget was measured on.
pub fn text(pack: &ContextPack) -> String {
    let mut lines = vec![ContextPack::title_line(&pack.task)];
    for (section, entries) in &pack.sections {
        lines.push(String::new());
        lines.push(section.heading().to_string());
        lines.extend(entries.iter().map(|e| e.line()));
    }
    if pack.sections.is_empty() {
        lines.push(String::new());
        lines.push(format!(
            "Nothing in project '{}' matches this task yet.",
            pack.project
        ));
    }
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

/// The structured content: each section's entries with their citation and resource URI.
pub fn json(pack: &ContextPack) -> Value {
    let mut sections = serde_json::Map::new();
    for (section, entries) in &pack.sections {
        let rows: Vec<Value> = entries
            .iter()
            .map(|e| {
                json!({
                    "permalink": e.permalink,
                    "title": e.title,
                    "text": e.text,
                    "uri": format!("memory://{}", e.permalink),
                })
            })
            .collect();
        sections.insert(section.key().to_string(), Value::Array(rows));
    }
    json!({
        "task": pack.task,
        "project": pack.project,
        "token_budget": pack.token_budget,
        "tokens": pack.tokens,
        "truncated": pack.truncated,
        "sections": sections,
    })
}
