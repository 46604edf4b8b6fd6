//! build_context text (compat 2.10).

use crate::service::context::GraphContext;

pub fn text(ctx: &GraphContext, project: &str) -> String {
    let meta = &ctx.json["metadata"];
    let uri = meta["uri"].as_str().unwrap_or_default();
    if ctx.primaries.is_empty() {
        return format!("No results found for '{uri}' in project '{project}'.");
    }
    let title = if ctx.primaries.len() == 1 {
        ctx.primaries[0].note.title.as_str()
    } else {
        uri
    };
    let mut blocks = Vec::new();
    for (i, p) in ctx.primaries.iter().enumerate() {
        let mut block = format!(
            "## {}\npermalink: {}\n\n{}\n",
            p.note.title,
            p.note.permalink.as_deref().unwrap_or(""),
            p.content.trim()
        );
        if !p.note.observations.is_empty() {
            block.push_str("\n### Observations\n");
            for o in &p.note.observations {
                block.push_str(&format!("- [{}] {}\n", o.category, o.content));
            }
        }
        if !p.relations.is_empty() {
            block.push_str("\n### Relations\n");
            for (kind, target) in &p.relations {
                block.push_str(&format!("- {kind} [[{target}]]\n"));
            }
        }
        let related = ctx.json["results"][i]["related_results"]
            .as_array()
            .map(|r| r.len())
            .unwrap_or(0);
        if related > 0 && !p.related.is_empty() {
            block.push_str("\n### Related\n");
            for (t, permalink) in &p.related {
                block.push_str(&format!(
                    "- [[{t}]] ({})\n",
                    permalink.as_deref().unwrap_or("")
                ));
            }
        }
        blocks.push(block.trim_end().to_string());
    }
    format!(
        "# Context: {title}\n\n{}\n\n---\n*{} primary, {} related | depth={} | project: {project}*",
        blocks.join("\n\n---\n\n"),
        meta["primary_count"],
        meta["related_count"],
        meta["depth"]
    )
}
