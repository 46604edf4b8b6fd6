//! The markdown note model. Pure: text in, values out; no file system, no index.

pub mod chunk;
pub mod document;
pub mod edit;
pub mod entity;
pub mod filename;
pub mod frontmatter;
pub mod identifier;
pub mod import;
pub mod lines;
pub mod markdown;
pub mod memory;
pub mod memory_url;
pub mod merge;
pub mod parse;
pub mod permalink;
pub mod redact;
pub mod schema;
pub mod section;
pub mod supersede;

use chrono::{DateTime, FixedOffset, Local, NaiveDate, NaiveDateTime, TimeZone};
use serde_json::{Map, Value};

pub use parse::{Observation, Relation};

/// Everything the index needs to know about one markdown note.
#[derive(Debug, Clone, PartialEq)]
pub struct ParsedNote {
    pub title: String,
    /// As written (lists joined with `, `); filters compare its snake_case form.
    pub note_type: String,
    /// The front matter `permalink`, verbatim, when present.
    pub permalink: Option<String>,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub status: Option<String>,
    pub created: Option<DateTime<FixedOffset>>,
    pub modified: Option<DateTime<FixedOffset>>,
    /// Every front matter key, in file order.
    pub metadata: Map<String, Value>,
    /// Byte offset of the body in the text that was parsed.
    pub body_start: usize,
    pub observations: Vec<Observation>,
    pub relations: Vec<Relation>,
    /// Problems worth telling the user about; the note is still indexed.
    pub warnings: Vec<String>,
}

/// The file name without directory and extension.
pub fn file_stem(file_path: &str) -> &str {
    let name = file_path.rsplit('/').next().unwrap_or(file_path);
    match name.rfind('.') {
        Some(dot) if dot > 0 => &name[..dot],
        _ => name,
    }
}

/// The folder part of a project-relative path (`""` at the root).
pub fn parent_folder(file_path: &str) -> &str {
    file_path.rfind('/').map(|i| &file_path[..i]).unwrap_or("")
}

/// Where a note of a linked folder comes from (design 6): the `source` its scan recorded in
/// the note's metadata.
pub fn linked_source(metadata: &Map<String, Value>) -> Option<&Value> {
    metadata
        .get("source")
        .filter(|s| s["origin"] == "linked_folder")
}

/// Parses a note. `file_path` is project-relative with `/` separators.
pub fn parse_note(file_path: &str, text: &str) -> ParsedNote {
    let mut warnings = Vec::new();
    let block = frontmatter::locate(text);
    let (metadata, body_start) = match &block {
        Some(b) => match frontmatter::parse_yaml(&text[b.yaml.clone()]) {
            Ok(map) => (map, b.body_start),
            Err(e) => {
                warnings.push(format!("{e}; the note is indexed without its front matter"));
                (Map::new(), b.body_start)
            }
        },
        None => (Map::new(), if text.starts_with('\u{feff}') { 3 } else { 0 }),
    };
    let body = &text[body_start..];

    let title = metadata
        .get("title")
        .and_then(scalar_or_joined)
        .filter(|t| !t.is_empty() && t != "None")
        .unwrap_or_else(|| file_stem(file_path).to_string());
    let note_type = metadata
        .get("type")
        .and_then(scalar_or_joined)
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "note".to_string());
    let permalink = metadata
        .get("permalink")
        .and_then(scalar_or_joined)
        .filter(|p| !p.trim().is_empty());
    let tags = metadata.get("tags").map(parse_tags).unwrap_or_default();
    let aliases = metadata
        .get("aliases")
        .or_else(|| metadata.get("alias"))
        .map(string_list)
        .unwrap_or_default();
    let status = metadata.get("status").and_then(scalar_or_joined);
    let mut timestamp = |key: &str| -> Option<DateTime<FixedOffset>> {
        let value = metadata.get(key)?;
        let raw = scalar_or_joined(value)?;
        let parsed = parse_timestamp(&raw);
        if parsed.is_none() {
            warnings.push(format!(
                "front matter `{key}: {raw}` is not an ISO-8601 date or date-time; the file's time is used"
            ));
        }
        parsed
    };
    let created = timestamp("created");
    let modified = timestamp("modified");
    let (observations, relations) = parse::parse_body(body, parent_folder(file_path));
    ParsedNote {
        title,
        note_type,
        permalink,
        tags,
        aliases,
        status,
        created,
        modified,
        metadata,
        body_start,
        observations,
        relations,
        warnings,
    }
}

/// A scalar as a string (Python `str()` style), or a list joined with `, `.
fn scalar_or_joined(value: &Value) -> Option<String> {
    match value {
        Value::Null => None,
        Value::String(s) => Some(s.trim().to_string()),
        Value::Bool(true) => Some("True".into()),
        Value::Bool(false) => Some("False".into()),
        Value::Number(n) => Some(n.to_string()),
        Value::Array(items) => Some(
            items
                .iter()
                .filter_map(scalar_or_joined)
                .collect::<Vec<_>>()
                .join(", "),
        ),
        Value::Object(_) => Some(value.to_string()),
    }
}

fn string_list(value: &Value) -> Vec<String> {
    let all: Vec<String> = match value {
        Value::Array(items) => items.iter().filter_map(scalar_or_joined).collect(),
        other => scalar_or_joined(other).into_iter().collect(),
    };
    all.into_iter().filter(|s| !s.is_empty()).collect()
}

/// Tags as Basic Memory's `parse_tags` reads them (compat 4.3).
pub fn parse_tags(value: &Value) -> Vec<String> {
    let split = |s: &str| -> Vec<String> {
        s.split(',')
            .map(|t| t.trim().trim_start_matches('#').to_string())
            .filter(|t| !t.is_empty())
            .collect()
    };
    match value {
        Value::Null => Vec::new(),
        Value::Array(items) => items
            .iter()
            .filter_map(scalar_or_joined)
            .flat_map(|s| split(&s))
            .collect(),
        Value::String(s) => {
            let trimmed = s.trim();
            if trimmed.starts_with('[') && trimmed.ends_with(']') {
                if let Ok(Value::Array(items)) = serde_json::from_str::<Value>(trimmed) {
                    return parse_tags(&Value::Array(items));
                }
            }
            split(trimmed)
        }
        other => scalar_or_joined(other)
            .map(|s| split(&s))
            .unwrap_or_default(),
    }
}

/// An ISO-8601 date or date-time; dates and naive times are read in the local time zone.
pub fn parse_timestamp(raw: &str) -> Option<DateTime<FixedOffset>> {
    let raw = raw.trim();
    if let Ok(dt) = DateTime::parse_from_rfc3339(raw) {
        return Some(dt);
    }
    let local = |naive: NaiveDateTime| {
        Local
            .from_local_datetime(&naive)
            .earliest()
            .map(|dt| dt.fixed_offset())
    };
    for format in [
        "%Y-%m-%dT%H:%M:%S%.f",
        "%Y-%m-%d %H:%M:%S%.f",
        "%Y-%m-%dT%H:%M",
        "%Y-%m-%d %H:%M",
    ] {
        if let Ok(naive) = NaiveDateTime::parse_from_str(raw, format) {
            return local(naive);
        }
    }
    for format in [
        "%Y-%m-%d %H:%M:%S%.f%:z",
        "%Y-%m-%dT%H:%M:%S%.f%z",
        "%Y-%m-%d %H:%M:%S%.f%z",
    ] {
        if let Ok(dt) = DateTime::parse_from_str(raw, format) {
            return Some(dt);
        }
    }
    NaiveDate::parse_from_str(raw, "%Y-%m-%d")
        .ok()
        .and_then(|d| local(d.and_hms_opt(0, 0, 0)?))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn titles_types_and_permalinks_from_front_matter() {
        let cases: &[(&str, &str, &str, &str, Option<&str>)] = &[
            (
                "n/File.md",
                "---\ntitle: Given\ntype: spec\npermalink: x/y\n---\n# H1",
                "Given",
                "spec",
                Some("x/y"),
            ),
            ("n/File.md", "# H1 is not the title\n", "File", "note", None),
            ("n/File.md", "---\ntitle:\n---\n", "File", "note", None),
            ("n/File.md", "---\ntitle: ''\n---\n", "File", "note", None),
            ("n/File.md", "---\ntitle: None\n---\n", "File", "note", None),
            (
                "n/File.md",
                "---\ntitle: [a, b]\ntype: [x, y]\n---\n",
                "a, b",
                "x, y",
                None,
            ),
            ("n/File.md", "---\ntitle: 42\n---\n", "42", "note", None),
            ("n/File.md", "---\ntitle: true\n---\n", "True", "note", None),
            (
                "n/File.md",
                "---\npermalink: '  '\n---\n",
                "File",
                "note",
                None,
            ),
            ("Version 2.0.0.md", "text", "Version 2.0.0", "note", None),
        ];
        for (path, text, title, note_type, permalink) in cases {
            let note = parse_note(path, text);
            assert_eq!(note.title, *title, "input {text:?}");
            assert_eq!(note.note_type, *note_type, "input {text:?}");
            assert_eq!(note.permalink.as_deref(), *permalink, "input {text:?}");
        }
    }

    #[test]
    fn tags_parse_like_basic_memory() {
        let cases = [
            (json!("search,design"), vec!["search", "design"]),
            (json!(["#a", "b,c"]), vec!["a", "b", "c"]),
            (json!("[\"x\",\"y\"]"), vec!["x", "y"]),
            (json!(null), vec![]),
            (json!(" #one , , two "), vec!["one", "two"]),
            (json!([null, "k"]), vec!["k"]),
            (json!(7), vec!["7"]),
        ];
        for (input, expected) in cases {
            assert_eq!(parse_tags(&input), expected, "input {input}");
        }
    }

    #[test]
    fn malformed_yaml_is_a_warning_not_a_failure() {
        let note = parse_note(
            "bad.md",
            "---\ntitle: [unclosed\n---\n- [fact] still parsed\n",
        );
        assert_eq!(note.title, "bad");
        assert_eq!(note.observations.len(), 1);
        assert_eq!(note.warnings.len(), 1);
        assert!(
            note.warnings[0].contains("not valid YAML"),
            "{:?}",
            note.warnings
        );
    }

    #[test]
    fn timestamps() {
        let ok = [
            "2024-01-01",
            "2024-01-01T10:00:00Z",
            "2024-01-01T10:00:00+02:00",
            "2024-01-01 10:00:00",
            "2024-01-01T10:00",
        ];
        for raw in ok {
            assert!(parse_timestamp(raw).is_some(), "{raw}");
        }
        assert_eq!(
            parse_timestamp("2024-01-01T10:00:00+02:00")
                .unwrap()
                .offset()
                .local_minus_utc(),
            7200
        );
        for raw in ["yesterday", "2024-13-01", ""] {
            assert!(parse_timestamp(raw).is_none(), "{raw}");
        }
        let note = parse_note("a.md", "---\ncreated: soon\n---\n");
        assert!(note.created.is_none());
        assert!(note.warnings[0].contains("created: soon"));
    }

    #[test]
    fn aliases_status_and_metadata() {
        let note = parse_note(
            "a.md",
            "---\ntitle: A\naliases: [\"First\", Second]\nstatus: draft\ncustom: {k: 1}\n---\nbody",
        );
        assert_eq!(note.aliases, ["First", "Second"]);
        assert_eq!(note.status.as_deref(), Some("draft"));
        let keys: Vec<_> = note.metadata.keys().map(String::as_str).collect();
        assert_eq!(keys, ["title", "aliases", "status", "custom"]);
        assert_eq!(&"---\ntitle: A\naliases: [\"First\", Second]\nstatus: draft\ncustom: {k: 1}\n---\nbody"[note.body_start..], "body");
        assert_eq!(
            parse_note("b.md", "---\nalias: One\n---\n").aliases,
            ["One"]
        );
    }

    #[test]
    fn bom_and_paths() {
        let note = parse_note("x/y/Z.md", "\u{feff}- [a] b");
        assert_eq!(note.body_start, 3);
        assert_eq!(note.observations.len(), 1);
        assert_eq!(file_stem("x/y/Z.md"), "Z");
        assert_eq!(file_stem(".hidden"), ".hidden");
        assert_eq!(parent_folder("x/y/Z.md"), "x/y");
        assert_eq!(parent_folder("Z.md"), "");
    }
}

#[cfg(test)]
mod canonical_example {
    use super::*;

    /// The canonical note of compat 4.10.
    const COFFEE: &str = "---\ntitle: Coffee Brewing Methods\ntype: note\npermalink: main/coffee-brewing-methods\ntags:\n- coffee\n- brewing\n---\n\n# Coffee Brewing Methods\n\n## Observations\n- [method] Pour over provides more flavor clarity than French press\n- [technique] Water temperature at 205°F extracts optimal compounds #brewing\n- [preference] Ethiopian beans work well with lighter roasts (personal experience)\n\n## Relations\n- relates_to [[Coffee Bean Origins]]\n- requires [[Proper Grinding Technique]]\n- \"contrasts with\" [[Tea Brewing Methods]]\n";

    #[test]
    fn parses_completely() {
        let note = parse_note("Coffee Brewing Methods.md", COFFEE);
        assert_eq!(note.title, "Coffee Brewing Methods");
        assert_eq!(
            note.permalink.as_deref(),
            Some("main/coffee-brewing-methods")
        );
        assert_eq!(note.tags, ["coffee", "brewing"]);
        let obs: Vec<_> = note
            .observations
            .iter()
            .map(|o| (o.category.as_str(), o.tags.clone(), o.context.as_deref()))
            .collect();
        assert_eq!(
            obs,
            vec![
                ("method", vec![], None),
                ("technique", vec!["brewing".to_string()], None),
                ("preference", vec![], Some("personal experience")),
            ]
        );
        let rels: Vec<_> = note
            .relations
            .iter()
            .map(|r| (r.relation_type.as_str(), r.target.as_str()))
            .collect();
        assert_eq!(
            rels,
            vec![
                ("relates_to", "Coffee Bean Origins"),
                ("requires", "Proper Grinding Technique"),
                ("contrasts with", "Tea Brewing Methods"),
            ]
        );
        assert!(note.warnings.is_empty());
    }

    /// Arbitrary input never panics, and editing one key keeps the body's bytes.
    #[test]
    fn random_inputs_never_panic_and_edits_keep_the_body() {
        let alphabet: Vec<&str> = vec![
            "---", "\n", "\r\n", " ", "-", "[", "]", "(", ")", "#", "`", "```", ">", "*", ":", "'",
            "\"", "|", "title: x", "tags:", "- a", "[[", "]]", "é", "日本", "\u{feff}", "\t", "\0",
            "[x]", "!", "%", "\\",
        ];
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3000 {
            let len = (next() % 40) as usize;
            let text: String = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let note = parse_note("n/x.md", &text);
            assert!(note.body_start <= text.len());
            let edited = frontmatter::set_key(&text, "permalink", &serde_json::json!("main/x"));
            let body = frontmatter::body(&text);
            assert!(edited.ends_with(body), "body bytes changed for {text:?}");
            let original_ok = frontmatter::locate(&text)
                .is_none_or(|b| frontmatter::parse_yaml(&text[b.yaml]).is_ok());
            if original_ok {
                let block =
                    frontmatter::locate(&edited).expect("an edit leaves a front matter block");
                let map = frontmatter::parse_yaml(&edited[block.yaml])
                    .unwrap_or_else(|e| panic!("{e} after editing {text:?}"));
                assert_eq!(
                    map.get("permalink"),
                    Some(&serde_json::json!("main/x")),
                    "{text:?} -> {edited:?}"
                );
            }
        }
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_markdown_parses_without_panic(text in any::<String>(), path in "[a-z/]{1,20}\\.md") {
            let _ = parse_note(&path, &text);
        }

        #[test]
        fn markdown_made_of_note_syntax_parses_without_panic(
            parts in proptest::collection::vec(
                "(---\n|# [a-z]{0,5}\n|- \\[[a-z]{0,4}\\] [a-z ]{0,8}\n|- [a-z_]{1,6} \\[\\[[a-z|#]{0,8}\\]\\]\n|```\n|\\[\\[|\\]\\]|!\\[\\[|`|[a-z ]{0,6}|\n)",
                0..40,
            ),
        ) {
            let text = parts.concat();
            let _ = parse_note("n.md", &text);
        }
    }
}
