//! Basic Memory notes as memories (`memory_import_basic`): each note keeps its folder, title,
//! tags and times, its permalink becomes `compat.basic_id` (what `memory_lookup_basic_id`
//! finds), and its type is renamed by `map_types`.

use serde_json::{json, Map, Value};

use super::{stable_id, Draft, Parsed};
use crate::note::frontmatter;
use crate::note::permalink::generate_permalink;

/// Drafts of Basic Memory notes, given as (path relative to the project, text).
pub fn parse(files: &[(String, String)], map_types: &Map<String, Value>) -> Parsed {
    let mut parsed = Parsed {
        default_folder: "memories",
        ..Default::default()
    };
    let mut seen = std::collections::HashSet::new();
    for (path, text) in files {
        let draft = draft(path, text, map_types);
        if seen.insert(draft.id.clone()) {
            parsed.drafts.push(draft);
        } else {
            parsed.duplicates += 1;
        }
    }
    parsed.counts = vec![("notes", files.len())];
    parsed
}

fn draft(path: &str, text: &str, map_types: &Map<String, Value>) -> Draft {
    let meta = frontmatter::locate(text)
        .and_then(|block| frontmatter::parse_yaml(&text[block.yaml]).ok())
        .unwrap_or_default();
    let text_of = |key: &str| meta.get(key).and_then(Value::as_str).map(String::from);
    let stem = crate::note::file_stem(path).to_string();
    let folder = crate::note::parent_folder(path).to_string();
    let basic_id = text_of("permalink")
        .unwrap_or_else(|| generate_permalink(path.strip_suffix(".md").unwrap_or(path), false));
    let note_type = text_of("type").unwrap_or_else(|| "note".into());
    let note_type = map_types
        .get(&note_type)
        .and_then(Value::as_str)
        .map(String::from)
        .unwrap_or(note_type);
    let created = text_of("created_at").or_else(|| text_of("created"));
    let id = stable_id("basic-memory", &basic_id, created.as_deref().unwrap_or(""));
    let mut metadata = Map::new();
    metadata.insert("id".into(), json!(id));
    metadata.insert("source".into(), json!("basic-memory"));
    if let Some(tags) = meta.get("tags") {
        metadata.insert("tags".into(), tags.clone());
    }
    if let Some(created) = created {
        metadata.insert("created_at".into(), json!(created));
    }
    if let Some(modified) = text_of("updated_at").or_else(|| text_of("modified")) {
        metadata.insert("updated_at".into(), json!(modified));
    }
    metadata.insert("compat".into(), json!({ "basic_id": basic_id }));
    for (key, value) in &meta {
        let taken = matches!(
            key.as_str(),
            "title" | "type" | "permalink" | "tags" | "created" | "modified" | "id" | "source"
        ) || metadata.contains_key(key);
        if !taken {
            metadata.insert(key.clone(), value.clone());
        }
    }
    Draft {
        id,
        folder,
        title: text_of("title").unwrap_or_else(|| stem.clone()),
        file_stem: stem,
        note_type,
        metadata: crate::note::memory::ordered(metadata),
        body: frontmatter::body(text).trim_start_matches('\n').to_string(),
        line: 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_basic_memory_note_keeps_its_names_and_maps_its_type() {
        let text = "---\ntitle: Coffee Brewing\ntype: note\npermalink: main/guides/coffee-brewing\ntags:\n- coffee\ncreated: 2025-01-02T03:04:05\nstatus: draft\n---\n\n# Coffee Brewing\n- [method] Pour over\n";
        let map = json!({"note": "fact"});
        let parsed = parse(
            &[("guides/Coffee Brewing.md".into(), text.into())],
            map.as_object().unwrap(),
        );
        let draft = &parsed.drafts[0];
        assert_eq!(
            (
                draft.folder.as_str(),
                draft.file_stem.as_str(),
                draft.title.as_str()
            ),
            ("guides", "Coffee Brewing", "Coffee Brewing")
        );
        assert_eq!(draft.note_type, "fact");
        assert_eq!(draft.body, "# Coffee Brewing\n- [method] Pour over\n");
        let keys: Vec<&str> = draft.metadata.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            ["id", "source", "tags", "created_at", "compat", "status"]
        );
        assert_eq!(
            draft.metadata["compat"]["basic_id"],
            json!("main/guides/coffee-brewing")
        );
        let again = parse(&[("elsewhere/Renamed.md".into(), text.into())], &Map::new());
        assert_eq!(again.drafts[0].id, draft.id, "the id follows the permalink");
    }

    #[test]
    fn a_note_without_front_matter_is_named_by_its_path() {
        let parsed = parse(
            &[("Plain Note.md".into(), "just text\n".into())],
            &Map::new(),
        );
        let draft = &parsed.drafts[0];
        assert_eq!(draft.title, "Plain Note");
        assert_eq!(draft.note_type, "note");
        assert_eq!(draft.metadata["compat"]["basic_id"], json!("plain-note"));
    }
}
