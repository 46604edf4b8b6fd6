//! build_context answers (compat 2.10): Basic Memory's `GraphContext` JSON, and its text.

use serde_json::{json, Value};

use super::iso_from_ms;
use engine::context::{ContextResult, GraphContext, Related};
use engine::NoteRow;
use note::lines::{estimated_tokens, TokenBudget, MAX_TOKEN_BUDGET};
use note::permalink::observation_permalink;

fn millis(time: chrono::DateTime<chrono::Utc>) -> String {
    time.to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn entity(note: &NoteRow, content: Option<&str>) -> Value {
    json!({
        "type": "entity",
        "external_id": note.id,
        "entity_id": note.id,
        "permalink": note.permalink,
        "title": note.title,
        "content": content,
        "file_path": note.path,
        "created_at": iso_from_ms(note.created_ms),
    })
}

fn observations(primary: &NoteRow) -> Vec<Value> {
    let permalink = primary.permalink.as_deref().unwrap_or("");
    primary
        .observations
        .iter()
        .enumerate()
        .map(|(i, obs)| {
            json!({
                "type": "observation",
                "observation_id": format!("{}-o{i}", primary.id),
                "entity_id": primary.id,
                "entity_external_id": primary.id,
                "title": primary.title,
                "file_path": primary.path,
                "permalink": observation_permalink(permalink, &obs.category, &obs.content),
                "category": obs.category,
                "content": obs.content,
                "created_at": iso_from_ms(primary.created_ms),
            })
        })
        .collect()
}

fn related(row: &Related) -> Value {
    let (from, i, to) = match row {
        Related::Note(note) => return entity(note, None),
        Related::Relation { from, index, to } => (from, *index, to.as_deref()),
    };
    let relation = &from.relations[i].relation;
    json!({
        "type": "relation",
        "relation_id": format!("{}-r{i}", from.id),
        "entity_id": null,
        "title": format!("{}: {}", relation.relation_type, to.map_or(relation.target.as_str(), |t| t.title.as_str())),
        "file_path": from.path,
        "permalink": "",
        "relation_type": relation.relation_type,
        "from_entity": from.title,
        "from_entity_id": from.id,
        "from_entity_external_id": from.id,
        "to_entity": to.map(|t| t.title.clone()),
        "to_name": relation.target,
        "to_entity_id": to.map(|t| t.id.clone()),
        "to_entity_external_id": to.map(|t| t.id.clone()),
        "created_at": iso_from_ms(from.created_ms),
    })
}

fn related_count(ctx: &GraphContext) -> usize {
    ctx.results.iter().map(|r| r.related.len()).sum()
}

/// The `GraphContext` JSON.
pub fn json(ctx: &GraphContext) -> Value {
    let results: Vec<Value> = ctx
        .results
        .iter()
        .map(|r| {
            json!({
                "primary_result": entity(&r.primary, Some(&r.content)),
                "observations": observations(&r.primary),
                "related_results": r.related.iter().map(related).collect::<Vec<_>>(),
            })
        })
        .collect();
    let primary_count = ctx.results.len();
    let related_count = related_count(ctx);
    let total_relations = ctx
        .results
        .iter()
        .flat_map(|r| &r.related)
        .filter(|row| matches!(row, Related::Relation { .. }))
        .count();
    let total_observations: usize = ctx
        .results
        .iter()
        .map(|r| r.primary.observations.len())
        .sum();
    json!({
        "results": results,
        "metadata": {
            "uri": ctx.uri,
            "types": null,
            "depth": ctx.depth,
            "timeframe": ctx.since.map(millis),
            "generated_at": millis(ctx.generated_at),
            "primary_count": primary_count,
            "related_count": related_count,
            "total_results": primary_count + related_count,
            "total_relations": total_relations,
            "total_observations": total_observations,
        },
        "page": ctx.page,
        "page_size": ctx.page_size,
        "has_more": ctx.has_more,
    })
}

fn block(result: &ContextResult) -> String {
    let note = &result.primary;
    let mut block = format!(
        "## {}\npermalink: {}\n\n{}\n",
        note.title,
        note.permalink.as_deref().unwrap_or(""),
        result.content.trim()
    );
    if !note.observations.is_empty() {
        block.push_str("\n### Observations\n");
        for o in &note.observations {
            block.push_str(&format!("- [{}] {}\n", o.category, o.content));
        }
    }
    if !result.relations.is_empty() {
        block.push_str("\n### Relations\n");
        for (kind, target) in &result.relations {
            block.push_str(&format!("- {kind} [[{target}]]\n"));
        }
    }
    let reached: Vec<&NoteRow> = result
        .related
        .iter()
        .filter_map(|row| match row {
            Related::Note(note) => Some(note),
            Related::Relation { .. } => None,
        })
        .collect();
    if !reached.is_empty() {
        block.push_str("\n### Related\n");
        for note in reached {
            block.push_str(&format!(
                "- [[{}]] ({})\n",
                note.title,
                note.permalink.as_deref().unwrap_or("")
            ));
        }
    }
    block.trim_end().to_string()
}

/// The answer in `format`, cut to `token_budget` tokens (as `note::lines` estimates them):
/// the context sheds related rows, then content lines, then primaries until its JSON fits
/// (`GraphContext::shed`); the text form is then cut at a line boundary. Either way the answer
/// says it was cut: `metadata.truncated` and `metadata.token_budget`, or a last line.
pub fn within_budget(
    mut ctx: GraphContext,
    project: &str,
    token_budget: usize,
    format: super::Format,
) -> super::Rendered {
    let token_budget = token_budget.min(MAX_TOKEN_BUDGET);
    let mut truncated = false;
    let value = loop {
        let value = json(&ctx);
        let tokens = estimated_tokens(&value.to_string());
        if tokens <= token_budget || !ctx.shed((tokens - token_budget) * 4) {
            break value;
        }
        truncated = true;
    };
    match format {
        super::Format::Json => {
            let mut value = value;
            value["metadata"]["token_budget"] = json!(token_budget);
            value["metadata"]["truncated"] = json!(truncated);
            super::Rendered::Json(value)
        }
        super::Format::Text => {
            let note = format!("*cut to the token budget of {token_budget} tokens*");
            let mut budget = TokenBudget::new(token_budget);
            budget.take(&note);
            let (kept, cut) = budget.take_lines(&text(&ctx, project));
            super::Rendered::Text(if cut || truncated {
                format!("{kept}{note}")
            } else {
                kept.trim_end().to_string()
            })
        }
    }
}

/// The text answer.
pub fn text(ctx: &GraphContext, project: &str) -> String {
    let uri = &ctx.uri;
    let title = match ctx.results.as_slice() {
        [] => return format!("No results found for '{uri}' in project '{project}'."),
        [only] => only.primary.title.as_str(),
        _ => uri,
    };
    let blocks: Vec<String> = ctx.results.iter().map(block).collect();
    format!(
        "# Context: {title}\n\n{}\n\n---\n*{} primary, {} related | depth={} | project: {project}*",
        blocks.join("\n\n---\n\n"),
        ctx.results.len(),
        related_count(ctx),
        ctx.depth
    )
}
