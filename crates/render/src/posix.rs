//! The answers of the POSIX-shaped read tools, in the shapes and key names of Basic Memory's
//! `posix_tools.py`. A call that routed through a project segment (`research/notes`) gets its
//! paths back with that segment, so that they can be passed to the next call as they are.

use serde_json::{json, Map, Value};

use super::activity::item_json;
use super::directory::node_json;
use super::search::response_json;
use super::Rendered;
use engine::activity::ActivityItem;
use engine::posix::man::{ManPage, Manual};
use engine::posix::{Catted, GrepRow, Grepped, Listed};
use engine::search::SearchResponse;

/// `value` with the project segment the caller wrote in front again: `/notes` -> `/p/notes`,
/// `notes/a.md` -> `p/notes/a.md`.
fn requalified(value: &str, prefix: &str) -> String {
    match value.strip_prefix('/') {
        Some("") => format!("/{prefix}"),
        Some(rest) => format!("/{prefix}/{rest}"),
        None if value.is_empty() => prefix.to_string(),
        None => format!("{prefix}/{value}"),
    }
}

/// Requalifies the string at `key` of `v`, when there is one.
fn requalify_key(v: &mut Value, key: &str, prefix: Option<&str>) {
    let Some(prefix) = prefix else { return };
    if let Some(path) = v.get(key).and_then(Value::as_str) {
        v[key] = json!(requalified(path, prefix));
    }
}

/// cat: read_note's JSON, and the slice's coordinates when part of the note was chosen.
pub fn cat(catted: &Catted) -> Value {
    let note = &catted.file.note;
    let mut v = json!({
        "title": note.title,
        "permalink": note.permalink,
        "file_path": note.path,
        "content": catted.content,
        "frontmatter": catted.frontmatter,
    });
    requalify_key(&mut v, "file_path", catted.prefix.as_deref());
    if let Some(slice) = catted.slice {
        v["start_line"] = json!(slice.start_line);
        v["end_line"] = json!(slice.end_line);
        v["total_lines"] = json!(slice.total_lines);
    }
    if let Some(section) = &catted.section {
        v["section"] = json!(section);
    }
    if let Some(line) = catted.continue_line {
        v["truncated"] = json!(true);
        v["continue_line"] = json!(line);
    }
    v
}

fn grep_row(row: &GrepRow) -> Value {
    let scan = &row.scan;
    json!({
        "title": row.note.title,
        "permalink": row.note.permalink,
        "file_path": row.note.path,
        "external_id": row.note.id,
        "match_count": scan.match_count,
        "total_lines": scan.total_lines,
        "windows": scan.windows.iter().map(|w| json!({
            "start_line": w.start_line,
            "end_line": w.end_line,
            "match_lines": w.match_lines,
            "content": w.content,
        })).collect::<Vec<_>>(),
        "next_match_line": scan.next_match_line,
    })
}

/// grep: the search response, or its candidates' matching lines.
pub fn grep(grepped: &Grepped) -> Value {
    match grepped {
        Grepped::Search(response) => response_json(response),
        Grepped::Lines {
            rows,
            page,
            page_size,
            total,
            has_more,
            literal,
        } => json!({
            "results": rows.iter().map(grep_row).collect::<Vec<_>>(),
            "current_page": page,
            "page_size": page_size,
            "total": total,
            "has_more": has_more,
            "pagination_scope": if *literal { "literal_matches" } else { "search_candidates" },
        }),
    }
}

/// ls and find: Basic Memory's `DirectoryListResponse`.
pub fn listing(listed: &Listed) -> Value {
    match listed {
        Listed::Projects {
            projects,
            page,
            total,
            has_more,
        } => json!({
            "nodes": projects.iter().map(|p| json!({
                "name": p.name,
                "directory_path": format!("/{}", p.permalink),
                "permalink": p.permalink,
                "type": "directory",
                "children": [],
            })).collect::<Vec<_>>(),
            "page": page.page,
            "page_size": page.page_size,
            "total": total,
            "has_more": has_more,
        }),
        Listed::Directory {
            listing,
            request,
            prefix,
        } => {
            let nodes: Vec<Value> = listing
                .nodes
                .iter()
                .map(|node| {
                    let mut v = node_json(node);
                    requalify_key(&mut v, "directory_path", prefix.as_deref());
                    requalify_key(&mut v, "file_path", prefix.as_deref());
                    v
                })
                .collect();
            json!({
                "nodes": nodes,
                "page": request.page,
                "page_size": request.page_size,
                "total": listing.total,
                "has_more": listing.has_more,
            })
        }
        Listed::Found {
            response,
            fields,
            prefix,
        } => found(response, fields.as_deref(), prefix.as_deref()),
    }
}

/// The keys of a row `find` projects with `fields`: how to name, read and link the note, and
/// when it changed; no body.
const PROJECTED_ROW_KEYS: [&str; 5] = [
    "title",
    "permalink",
    "file_path",
    "external_id",
    "updated_at",
];

/// find with `meta`: the search response, its rows narrowed to the note's identity and the
/// fields asked for when there are fields.
fn found(
    response: &SearchResponse,
    fields: Option<&[Map<String, Value>]>,
    prefix: Option<&str>,
) -> Value {
    let mut v = response_json(response);
    if let Some(Value::Array(rows)) = v.get_mut("results") {
        for (i, row) in rows.iter_mut().enumerate() {
            requalify_key(row, "file_path", prefix);
            if let (Some(fields), Value::Object(map)) = (fields, &mut *row) {
                map.retain(|key, _| PROJECTED_ROW_KEYS.contains(&key.as_str()));
                let projected = fields.get(i).cloned().unwrap_or_default();
                map.insert("fields".into(), Value::Object(projected));
            }
        }
    }
    v
}

/// tail: recent_activity's rows, newest first.
pub fn tail(items: &[ActivityItem]) -> Value {
    Value::Array(items.iter().map(|item| item_json(item, None)).collect())
}

/// The index of the bundled pages; a page whose tool this server does not serve says so, so
/// that an agent does not call it.
fn index(pages: &[ManPage], served: &dyn Fn(&str) -> bool) -> String {
    let mut out = String::from("# gitmem manual\n\nRead a page with `man {\"page\": \"NAME\"}`; search the manual project with `man {\"query\": \"...\"}`.\n\n");
    for section in [1, 3] {
        out.push_str(match section {
            1 => "## Commands (1)\n\n",
            _ => "\n## Note tools (3)\n\n",
        });
        for page in pages.iter().filter(|p| p.section == section) {
            let missing = if served(page.tool) {
                ""
            } else {
                " (not served here)"
            };
            out.push_str(&format!(
                "- {}({}) — {}{missing}\n",
                page.name, page.section, page.summary
            ));
        }
    }
    out
}

/// man: markdown for the index and pages, the search response for a query.
pub fn man(manual: &Manual, served: &dyn Fn(&str) -> bool) -> Rendered {
    match manual {
        Manual::Index(pages) => Rendered::Text(index(pages, served)),
        Manual::Bundled(page) => Rendered::Text(page.text.to_string()),
        Manual::Note(file) => Rendered::Text(file.text.clone()),
        Manual::Search(response) => Rendered::Json(response_json(response)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requalified_paths_keep_their_slash_shape() {
        assert_eq!(requalified("/", "p"), "/p");
        assert_eq!(requalified("/notes", "p"), "/p/notes");
        assert_eq!(requalified("notes/a.md", "p"), "p/notes/a.md");
        assert_eq!(requalified("", "p"), "p");
    }
}
