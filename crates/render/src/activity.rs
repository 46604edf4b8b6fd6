//! recent_activity text (compat 2.9).

use serde_json::{json, Value};

use super::{iso_from_ms, Format, Rendered};
use engine::activity::{ActivityAnswer, ActivityItem, ActivityScope, Grouped};
use engine::search::RowKind;

/// An activity row as Basic Memory answers it; discovery names each row's project.
pub fn item_json(item: &ActivityItem, project: Option<&str>) -> Value {
    let mut v = json!({
        "type": item.kind.as_str(),
        "title": item.title,
        "permalink": item.permalink,
        "file_path": item.file_path,
        "created_at": iso_from_ms(item.created_ms),
    });
    if let Some(project) = project {
        v["project"] = json!(project);
    }
    if let Some(commit) = &item.commit {
        v["commit"] = json!(commit);
    }
    v
}

fn shorten(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        return s.to_string();
    }
    let cut: String = s.chars().take(max).collect();
    let cut = cut
        .rsplit_once(' ')
        .map(|(a, _)| a.to_string())
        .unwrap_or(cut);
    format!("{cut}...")
}

pub fn project_text(
    project: &str,
    project_id: &str,
    label: &str,
    items: &[ActivityItem],
    page: usize,
    has_more: bool,
    filtered: bool,
) -> String {
    let mut out = format!("## Recent Activity: {project} ({label})\n\n");
    if items.is_empty() {
        if page > 1 {
            out.push_str(&format!(
                "No recent activity was found on page {page} for '{project}' within {label}.\nTry page={} or return to page=1.",
                page - 1
            ));
        } else if filtered {
            out.push_str(&format!(
                "No recent activity matched the requested type filter in '{project}' within {label}.\nTry another type or omit `type` to see recent notes and documents."
            ));
        } else {
            out.push_str(&format!(
                "No recent activity in '{project}' within {label}.\n\nIf the user is just getting started and has no notes yet, briefly explain that gitmem keeps notes that persist across conversations and are shared between the user and their AI, then offer to save something useful from this conversation as their first note — wait for them to agree before writing:\n```\nwrite_note(project_id=\"{project_id}\", title=\"...\", content=\"...\", directory=\"notes\")\n```\nOtherwise, widen the window with recent_activity(project_id=\"{project_id}\", timeframe=\"30d\") or find a topic with search_notes(project_id=\"{project_id}\", query=\"...\")."
            ));
        }
        return out;
    }
    let of_kind =
        |kind: RowKind| -> Vec<&ActivityItem> { items.iter().filter(|i| i.kind == kind).collect() };
    let entities = of_kind(RowKind::Entity);
    let observations = of_kind(RowKind::Observation);
    let relations = of_kind(RowKind::Relation);
    if !entities.is_empty() {
        out.push_str(&format!(
            "**📄 Recent Notes & Documents ({}):**\n",
            entities.len()
        ));
        for e in &entities {
            let commit = e
                .commit
                .as_ref()
                .map(|c| format!(" [commit: {c}]"))
                .unwrap_or_default();
            if e.folder.is_empty() {
                out.push_str(&format!("  • {} [id: {}]{commit}\n", e.title, e.id));
            } else {
                out.push_str(&format!(
                    "  • {} ({}) [id: {}]{commit}\n",
                    e.title, e.folder, e.id
                ));
            }
        }
        out.push('\n');
    }
    if !observations.is_empty() {
        out.push_str(&format!(
            "**🔍 Recent Observations ({}):**\n",
            observations.len()
        ));
        let mut by_category: Vec<(String, Vec<&ActivityItem>)> = Vec::new();
        for o in observations.iter().take(10) {
            let category = o.category.clone().unwrap_or_default();
            match by_category.iter_mut().find(|(c, _)| *c == category) {
                Some((_, list)) => list.push(o),
                None => by_category.push((category, vec![o])),
            }
        }
        for (category, list) in by_category.iter().take(5) {
            out.push_str(&format!("  **{category}:** {} items\n", list.len()));
            for o in list.iter().take(2) {
                out.push_str(&format!(
                    "    - {}\n",
                    shorten(o.content.as_deref().unwrap_or(""), 80)
                ));
            }
        }
        out.push('\n');
    }
    if !relations.is_empty() {
        out.push_str(&format!(
            "**🔗 Recent Connections ({}):**\n",
            relations.len()
        ));
        for r in &relations {
            if let Some((kind, target, resolved)) = &r.relation {
                let target = if *resolved {
                    format!("[[{target}]]")
                } else {
                    "[Missing Link]".to_string()
                };
                out.push_str(&format!("  • [[{}]] → {kind} → {target}\n", r.title));
            }
        }
        out.push('\n');
    }
    if has_more {
        out.push_str(&format!(
            "**Activity Summary:** Showing {} items (page {page}). Use page={} to see more.",
            items.len(),
            page + 1
        ));
    } else {
        out.push_str(&format!(
            "**Activity Summary:** {} items found.",
            items.len()
        ));
    }
    out
}

/// Discovery mode: activity across every project.
pub fn discovery_text(label: &str, per_project: &[(String, Vec<ActivityItem>)]) -> String {
    let mut out = format!("## Recent Activity Summary ({label})\n\n");
    let mut active: Vec<&(String, Vec<ActivityItem>)> = per_project
        .iter()
        .filter(|(_, items)| !items.is_empty())
        .collect();
    active.sort_by_key(|b| std::cmp::Reverse(b.1.len()));
    let total: usize = active.iter().map(|(_, i)| i.len()).sum();
    if let Some((name, items)) = active.first() {
        out.push_str(&format!(
            "**Most Active Project:** {name} ({} items)\n",
            items.len()
        ));
        if let Some(latest) = items.first() {
            out.push_str(&format!("- 🔧 **Latest:** {}\n", latest.title));
        }
        let mut folders: Vec<&str> = items
            .iter()
            .map(|i| i.folder.as_str())
            .filter(|f| !f.is_empty())
            .collect();
        folders.dedup();
        if !folders.is_empty() {
            out.push_str(&format!(
                "- 📋 **Focus areas:** {}\n",
                folders.into_iter().take(3).collect::<Vec<_>>().join(", ")
            ));
        }
        if active.len() > 1 {
            out.push_str("\n**Other Active Projects:**\n");
            for (name, items) in active.iter().skip(1) {
                out.push_str(&format!("- **{name}** ({} items)\n", items.len()));
            }
        }
        let key: Vec<&str> = active
            .iter()
            .flat_map(|(_, items)| items.iter())
            .map(|i| i.title.as_str())
            .filter(|t| {
                ["complete", "fix", "test", "spec"]
                    .iter()
                    .any(|k| t.to_lowercase().contains(k))
            })
            .take(5)
            .collect();
        if !key.is_empty() {
            out.push_str("\n**Key Developments:**\n");
            for t in key {
                out.push_str(&format!("- {t}\n"));
            }
        }
    } else {
        out.push_str(&format!(
            "No recent activity in any project within {label}.\n"
        ));
    }
    out.push_str(&format!(
        "\n**Summary:** {} active projects, {total} recent items\n",
        active.len()
    ));
    out.push_str(&format!("\n{}\n", "─".repeat(40)));
    if let Some((name, items)) = active.first() {
        out.push_str(&format!(
            "Suggested project: '{name}' (most active with {} items)\nAsk user: 'Should I use {name} for this task, or would you prefer a different project?'\n",
            items.len()
        ));
    }
    out.push_str("Session reminder: Remember their project choice throughout this conversation.");
    out
}

/// One item as a line of the grouped text; discovery names the item's project.
fn item_line(item: &ActivityItem, project: Option<&str>) -> String {
    let what = match item.kind {
        RowKind::Entity if item.folder.is_empty() => format!("{} [id: {}]", item.title, item.id),
        RowKind::Entity => format!("{} ({}) [id: {}]", item.title, item.folder, item.id),
        RowKind::Observation => format!(
            "[{}] {} ({})",
            item.category.as_deref().unwrap_or(""),
            shorten(item.content.as_deref().unwrap_or(""), 80),
            item.title
        ),
        RowKind::Relation => match &item.relation {
            Some((kind, target, true)) => format!("[[{}]] → {kind} → [[{target}]]", item.title),
            Some((kind, _, false)) => format!("[[{}]] → {kind} → [Missing Link]", item.title),
            None => item.title.clone(),
        },
    };
    let commit = item
        .commit
        .as_ref()
        .map(|c| format!(" [commit: {c}]"))
        .unwrap_or_default();
    let project = project
        .map(|p| format!(" [project: {p}]"))
        .unwrap_or_default();
    format!("  • {what}{commit}{project}\n")
}

/// The grouped answer as text: a section per group, its items as lines.
fn grouped_text(scope: &ActivityScope, grouped: &Grouped, label: &str, page: usize) -> String {
    let by = grouped.by.as_str();
    let mut out = match scope {
        ActivityScope::Project { project, .. } => {
            format!("## Recent Activity: {} ({label}) by {by}\n\n", project.name)
        }
        ActivityScope::Discovery(_) => format!("## Recent Activity Summary ({label}) by {by}\n\n"),
    };
    let items: Vec<_> = scope.items().collect();
    for group in &grouped.groups {
        out.push_str(&format!("### {} ({})\n", group.key, group.items.len()));
        for &i in &group.items {
            let (project, item) = items[i];
            out.push_str(&item_line(item, project));
        }
        out.push('\n');
    }
    let more = match scope {
        ActivityScope::Project { activity, .. } if activity.has_more => {
            format!(" Use page={} to see more.", page + 1)
        }
        _ => String::new(),
    };
    out.push_str(&format!(
        "**Activity Summary:** {} items in {} groups.{more}",
        items.len(),
        grouped.groups.len()
    ));
    out
}

/// The grouped answer as JSON: `{group_by, groups: [{key, count, items}]}` (and `has_more` for
/// one project's page).
fn grouped_json(scope: &ActivityScope, grouped: &Grouped) -> Value {
    let items: Vec<_> = scope.items().collect();
    let groups: Vec<Value> = grouped
        .groups
        .iter()
        .map(|group| {
            json!({
                "key": group.key,
                "count": group.items.len(),
                "items": group.items.iter().map(|&i| item_json(items[i].1, items[i].0)).collect::<Vec<_>>(),
            })
        })
        .collect();
    let mut v = json!({"group_by": grouped.by.as_str(), "groups": groups});
    if let ActivityScope::Project { activity, .. } = scope {
        v["has_more"] = json!(activity.has_more);
    }
    v
}

/// recent_activity's answer. `label` names the timeframe; `filtered` is true when the call
/// asked for particular types. Grouped, an empty answer says what the ungrouped one says.
pub fn answer(
    answer: &ActivityAnswer,
    label: &str,
    page: usize,
    filtered: bool,
    format: Format,
) -> Rendered {
    let scope = &answer.scope;
    if let Some(grouped) = &answer.grouped {
        if format == Format::Json || scope.items().next().is_some() {
            return Rendered::either(
                format,
                || grouped_text(scope, grouped, label, page),
                || grouped_json(scope, grouped),
            );
        }
    }
    match scope {
        ActivityScope::Project { project, activity } => Rendered::either(
            format,
            || {
                project_text(
                    &project.name,
                    &project.external_id(),
                    label,
                    &activity.items,
                    page,
                    activity.has_more,
                    filtered,
                )
            },
            || Value::Array(activity.items.iter().map(|i| item_json(i, None)).collect()),
        ),
        ActivityScope::Discovery(per_project) => Rendered::either(
            format,
            || discovery_text(label, per_project),
            || {
                Value::Array(
                    scope
                        .items()
                        .map(|(name, item)| item_json(item, name))
                        .collect(),
                )
            },
        ),
    }
}
