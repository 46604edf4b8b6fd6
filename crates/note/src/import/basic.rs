//! Basic Memory notes as memories (`memory_import_basic`): each note keeps its folder, title,
//! tags and times, its permalink becomes `compat.basic_id` (what `memory_lookup_basic_id`
//! finds), and its type is renamed by `map_types`. The notes come as files of a project
//! directory (`parse`) or as records of an export (`parse_export`): JSON, an array of notes or
//! an object holding one, or JSON Lines, one note a line.

use serde_json::{json, Map, Value};

use super::{
    finish, located_drafts, located_elements, located_lines, stable_id, Draft, Located, Parsed,
    RecordError, RecordProblem,
};
use crate::frontmatter;
use crate::memory::title_from_content;
use crate::permalink::generate_permalink;

/// The folder imported notes go under.
const FOLDER: &str = "memories";

/// The keys under which an exported object may hold its list of notes.
const LISTS: &[&str] = &["notes", "entities", "results", "items", "memories"];

/// Keys of a record that say where its text and front matter are, not front matter of their
/// own.
const CONSUMED: &[&str] = &[
    "content",
    "file_path",
    "path",
    "metadata",
    "frontmatter",
    "entity_metadata",
];

/// Keys of a record that Basic Memory derives from the note's text: the text itself is
/// imported, and they follow from it again.
const DERIVED: &[&str] = &["observations", "relations", "checksum", "content_type"];

/// Drafts of Basic Memory notes, given as (path relative to the project, text).
pub fn parse(files: &[(String, String)], map_types: &Map<String, Value>) -> Parsed {
    let mut parsed = Parsed {
        default_folder: FOLDER,
        ..Default::default()
    };
    let mut seen = std::collections::HashSet::new();
    for (path, text) in files {
        let meta = frontmatter::locate(text)
            .and_then(|block| frontmatter::parse_yaml(&text[block.yaml]).ok())
            .unwrap_or_default();
        let draft = draft(path, &meta, frontmatter::body(text), map_types);
        if seen.insert(draft.id.clone()) {
            parsed.drafts.push(draft);
        } else {
            parsed.duplicates += 1;
        }
    }
    parsed.counts = vec![("notes", files.len())];
    parsed
}

/// Drafts of an export of Basic Memory notes: with `lines`, JSON Lines (one note a line);
/// else one JSON array of notes, or an object holding it under one of [`LISTS`]. Every bad
/// line or record is reported, by its line (and, in a list, its position).
///
/// A note is an object: `content` (its text; front matter at its start is read as the
/// note's), `file_path` (or `path`: where it was in the project), `title`, `type` (or
/// `entity_type`, `note_type`), `permalink`, `tags`, `created`/`created_at`,
/// `modified`/`updated_at`, and `metadata` (or `frontmatter`, `entity_metadata`): more front
/// matter. Other keys are kept as front matter, but for those Basic Memory derives from the
/// text ([`DERIVED`]).
pub fn parse_export(
    input: &str,
    lines: bool,
    map_types: &Map<String, Value>,
) -> Result<Parsed, Vec<RecordError>> {
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    let mut errors = Vec::new();
    let records: Vec<Located> = if lines {
        located_lines(input, &mut errors)
    } else if input.trim_start().starts_with('[') {
        located_elements(input)?
    } else {
        listed_records(input)?
    };
    let drafts = located_drafts(
        &records,
        "note",
        |value| record(value, map_types),
        &mut errors,
    );
    finish(drafts, errors, vec![("notes", records.len())], FOLDER).map_err(|mut errors| {
        errors.sort_by_key(|e| e.line);
        errors
    })
}

/// The notes of an object holding them as a list. Their lines are not known (only an array
/// at the top is mapped line by line), so they are named by their position, at line 1.
fn listed_records(input: &str) -> Result<Vec<Located>, Vec<RecordError>> {
    let value: Value = serde_json::from_str(input)
        .map_err(|e| vec![RecordError::new(e.line().max(1), super::syntax_error(&e))])?;
    let list = value
        .as_object()
        .and_then(|object| LISTS.iter().find_map(|key| object.get(*key)?.as_array()))
        .ok_or_else(|| vec![RecordError::new(1, RecordProblem::NoNoteList)])?;
    Ok(list
        .iter()
        .enumerate()
        .map(|(i, value)| (1, Some(i + 1), value.clone()))
        .collect())
}

/// One note of an export.
fn record(value: &Value, map_types: &Map<String, Value>) -> Result<Draft, RecordProblem> {
    let object = value.as_object().ok_or(RecordProblem::NotAnObject)?;
    let present = |key: &str| object.get(key).filter(|v| !v.is_null());
    let content = match present("content") {
        None => "",
        Some(Value::String(s)) => s.as_str(),
        Some(_) => return Err(RecordProblem::NotAString("content")),
    };
    let mut meta = frontmatter::locate(content)
        .and_then(|block| frontmatter::parse_yaml(&content[block.yaml]).ok())
        .unwrap_or_default();
    let body = frontmatter::body(content);
    for key in ["metadata", "frontmatter", "entity_metadata"] {
        match present(key) {
            None => {}
            Some(Value::Object(more)) => meta.extend(more.clone()),
            Some(_) => return Err(RecordProblem::KeyNotAnObject(key)),
        }
    }
    for (key, value) in object {
        let key = match key.as_str() {
            "entity_type" | "note_type" => "type",
            other => other,
        };
        if !value.is_null() && !CONSUMED.contains(&key) && !DERIVED.contains(&key) {
            meta.insert(key.to_string(), value.clone());
        }
    }
    for key in ["title", "type", "permalink"] {
        if meta.get(key).is_some_and(|v| !v.is_string()) {
            return Err(RecordProblem::NotAString(key));
        }
    }
    let path = match present("file_path").or_else(|| present("path")) {
        Some(Value::String(path)) if !path.trim().is_empty() => {
            let path = path.trim().trim_start_matches('/');
            if path.ends_with(".md") {
                path.to_string()
            } else {
                format!("{path}.md")
            }
        }
        Some(_) => return Err(RecordProblem::NotANonEmptyString("file_path")),
        None => {
            let title = match meta.get("title").and_then(Value::as_str).map(str::trim) {
                Some(title) if !title.is_empty() => title.to_string(),
                _ => title_from_content(body),
            };
            if title.is_empty() {
                return Err(RecordProblem::Missing("content"));
            }
            // A title names a file, not folders.
            format!("{}.md", title.replace('/', " "))
        }
    };
    Ok(draft(&path, &meta, body, map_types))
}

fn draft(
    path: &str,
    meta: &Map<String, Value>,
    body: &str,
    map_types: &Map<String, Value>,
) -> Draft {
    let text_of = |key: &str| meta.get(key).and_then(Value::as_str).map(String::from);
    let stem = crate::file_stem(path).to_string();
    let folder = crate::parent_folder(path).to_string();
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
    for (key, value) in meta {
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
        metadata: crate::memory::ordered(metadata),
        body: body.trim_start_matches('\n').to_string(),
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
    fn an_exported_note_is_the_note_its_file_would_be() {
        let text = "---\ntitle: Coffee Brewing\ntype: note\npermalink: main/guides/coffee-brewing\ntags:\n- coffee\ncreated: 2025-01-02T03:04:05\nstatus: draft\n---\n\n# Coffee Brewing\n- [method] Pour over\n";
        let from_file = parse(
            &[("guides/Coffee Brewing.md".into(), text.into())],
            &Map::new(),
        );
        let records = [
            json!({"file_path": "guides/Coffee Brewing.md", "content": text, "checksum": "abc", "observations": []}),
            json!({"file_path": "guides/Coffee Brewing", "title": "Coffee Brewing", "entity_type": "note",
                   "permalink": "main/guides/coffee-brewing", "tags": ["coffee"], "created": "2025-01-02T03:04:05",
                   "metadata": {"status": "draft"}, "content": "\n# Coffee Brewing\n- [method] Pour over\n"}),
        ];
        for record in records {
            let line = serde_json::to_string(&record).unwrap();
            let parsed = parse_export(&line, true, &Map::new()).unwrap();
            assert_eq!(parsed.drafts, from_file.drafts, "{record}");
        }
    }

    #[test]
    fn an_export_is_an_array_an_object_with_a_list_or_lines() {
        let notes = [
            json!({"title": "One", "content": "first"}),
            json!({"content": "Second note\nbody"}),
        ];
        let array = serde_json::to_string_pretty(&notes).unwrap();
        let object = json!({"notes": notes}).to_string();
        let lines = notes
            .iter()
            .map(Value::to_string)
            .collect::<Vec<_>>()
            .join("\n\n");
        for (input, as_lines) in [(array, false), (object, false), (lines, true)] {
            let parsed = parse_export(&input, as_lines, &Map::new()).unwrap();
            let titles: Vec<(&str, &str)> = parsed
                .drafts
                .iter()
                .map(|d| (d.title.as_str(), d.file_stem.as_str()))
                .collect();
            assert_eq!(
                titles,
                [("One", "One"), ("Second note", "Second note")],
                "{input}"
            );
            assert_eq!(parsed.counts, [("notes", 2)]);
        }
    }

    #[test]
    fn every_bad_line_or_note_of_an_export_is_reported() {
        let cases: [(&str, bool, &[&str]); 5] = [
            (
                "{\"title\": \"ok\"}\nnot json\n{\"content\": 5}\n[1]\n{}\n",
                true,
                &[
                    "line 2: not valid JSON: expected ident at column 2",
                    "line 3: content is not a string",
                    "line 4: expected a JSON object",
                    "line 5: content is missing",
                ],
            ),
            (
                "[\n{\"title\": \"ok\"},\n{\"title\": 1}\n]",
                false,
                &["line 3: note 2: title is not a string"],
            ),
            (
                "{\"notes\": [{\"title\": \"ok\"}, {\"file_path\": 3}]}",
                false,
                &["line 1: note 2: file_path is not a non-empty string"],
            ),
            (
                "{\"pages\": []}",
                false,
                &["line 1: expected a JSON array of notes, or an object with one under notes, entities, results, items or memories"],
            ),
            (
                "{\"title\": \"x\", \"metadata\": []}",
                true,
                &["line 1: metadata is not an object"],
            ),
        ];
        for (input, lines, expected) in cases {
            let errors = crate::import::tests::refused(parse_export(input, lines, &Map::new()));
            assert_eq!(errors, expected, "{input}");
        }
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
