//! Memory records as the memory API keeps them (`content`, `id`, `version`, `title`, `type`,
//! `tags`, `score`, `ttl`, `created_at`, `updated_at`, `deleted_at`, `source`, `compat.basic_id`),
//! as JSON Lines or as one JSON array. Each record becomes one memory note; its fields go to
//! front matter as the memory API writes them, and fields it does not know are kept after
//! them, so nothing a record held is lost.

use chrono::DateTime;
use serde_json::{Map, Value};

use crate::memory::{parse_duration, title_from_content, MemorySource, KEYS};

use super::{
    finish, id_and_source, json_lines, located_drafts, located_elements, located_lines, stable_id,
    Draft, Parsed, RecordError, RecordProblem,
};

const SOURCE: &str = "jsonl";

/// Keys that become the draft's title, type, body or `compat`, not front matter of their own.
const CONSUMED: &[&str] = &["content", "title", "type", "basic_id"];

pub(super) fn parse(input: &str) -> Result<Parsed, Vec<RecordError>> {
    let mut errors = Vec::new();
    let records = if input.trim_start().starts_with('[') {
        located_elements(input)?
    } else {
        located_lines(input, &mut errors)
    };
    let drafts = located_drafts(&records, "record", |v| record(v, SOURCE), &mut errors);
    finish(
        drafts,
        errors,
        vec![("memories", records.len())],
        "memories",
    )
}

/// Each JSON line of `input` as a draft or as what is wrong with it, in line order (blank
/// lines skipped). `origin` is the `source` of a record that names none.
pub(super) fn each_line(input: &str, origin: &str) -> Vec<Result<Draft, RecordError>> {
    json_lines(input)
        .map(|line| {
            let (number, value) = line?;
            record(&value, origin)
                .map(|draft| Draft {
                    line: number,
                    ..draft
                })
                .map_err(|problem| RecordError::new(number, problem))
        })
        .collect()
}

/// One record as a draft. Its id, when it has none, is derived from its content and time
/// under this format's name whichever way it came in, so a record imported from a file and
/// sent again over HTTP is known as the same.
fn record(value: &Value, origin: &str) -> Result<Draft, RecordProblem> {
    let object = value.as_object().ok_or(RecordProblem::NotAnObject)?;
    let content = match field(object, "content") {
        Some(Value::String(s)) if !s.trim().is_empty() => s.as_str(),
        Some(Value::String(_)) => return Err(RecordProblem::Empty("content")),
        Some(_) => return Err(RecordProblem::NotAString("content")),
        None => return Err(RecordProblem::Missing("content")),
    };
    let created_at = time(object, "created_at")?;
    let id = match field(object, "id") {
        None => stable_id(SOURCE, content, created_at.unwrap_or("")),
        Some(Value::String(id)) if !id.trim().is_empty() => id.clone(),
        Some(_) => return Err(RecordProblem::NotANonEmptyString("id")),
    };
    let mut metadata = id_and_source(&id, origin);
    if let Some(source) = field(object, "source") {
        let source = MemorySource::parse(source).map_err(RecordProblem::Source)?;
        if let Some(source) = source.to_meta() {
            metadata.insert("source".into(), source);
        }
    }
    if let Some(version) = field(object, "version") {
        match version.as_u64() {
            Some(n) if n >= 1 => metadata.insert("version".into(), n.into()),
            _ => return Err(RecordProblem::Version(version.clone())),
        };
    }
    let tags = tags(field(object, "tags"))?;
    if !tags.is_empty() {
        metadata.insert("tags".into(), tags.into());
    }
    if let Some(score) = field(object, "score") {
        match score.as_f64() {
            Some(s) if (0.0..=1.0).contains(&s) => metadata.insert("score".into(), score.clone()),
            _ => return Err(RecordProblem::Score(score.clone())),
        };
    }
    if let Some(ttl) = string(object, "ttl")? {
        if parse_duration(ttl).is_none() {
            return Err(RecordProblem::Ttl(ttl.to_string()));
        }
        metadata.insert("ttl".into(), ttl.into());
    }
    for key in ["created_at", "updated_at", "deleted_at"] {
        if let Some(t) = time(object, key)? {
            metadata.insert(key.into(), t.into());
        }
    }
    let mut compat = match field(object, "compat") {
        None => Map::new(),
        Some(Value::Object(compat)) => compat.clone(),
        Some(_) => return Err(RecordProblem::KeyNotAnObject("compat")),
    };
    if let Some(basic_id) = string(object, "basic_id")? {
        compat.entry("basic_id").or_insert_with(|| basic_id.into());
    }
    if !compat.is_empty() {
        metadata.insert("compat".into(), compat.into());
    }
    for (key, value) in object {
        if !KEYS.contains(&key.as_str()) && !CONSUMED.contains(&key.as_str()) {
            metadata.insert(key.clone(), value.clone());
        }
    }
    let title = match non_blank(object, "title")? {
        Some(title) => title.to_string(),
        None => title_from_content(content),
    };
    Ok(Draft {
        id,
        folder: String::new(),
        file_stem: title.clone(),
        title,
        note_type: non_blank(object, "type")?.unwrap_or("memory").to_string(),
        metadata,
        body: format!("{}\n", content.trim_end()),
        line: 0,
    })
}

/// A field that is there; exports write absent fields as null.
fn field<'a>(object: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    object.get(key).filter(|v| !v.is_null())
}

fn string<'a>(
    object: &'a Map<String, Value>,
    key: &'static str,
) -> Result<Option<&'a str>, RecordProblem> {
    match field(object, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(RecordProblem::NotAString(key)),
    }
}

/// A string field, trimmed; a blank one counts as absent.
fn non_blank<'a>(
    object: &'a Map<String, Value>,
    key: &'static str,
) -> Result<Option<&'a str>, RecordProblem> {
    Ok(string(object, key)?
        .map(str::trim)
        .filter(|s| !s.is_empty()))
}

/// A time field as written, once it is known to be RFC 3339 (what the memory API writes).
fn time<'a>(
    object: &'a Map<String, Value>,
    key: &'static str,
) -> Result<Option<&'a str>, RecordProblem> {
    match string(object, key)? {
        Some(raw) if DateTime::parse_from_rfc3339(raw).is_err() => Err(RecordProblem::NotRfc3339 {
            key,
            value: raw.to_string(),
        }),
        found => Ok(found),
    }
}

/// Tags as a list, from a list of strings or from one comma-separated string.
fn tags(value: Option<&Value>) -> Result<Vec<String>, RecordProblem> {
    let raw: Vec<&str> = match value {
        None => Vec::new(),
        Some(Value::String(s)) => s.split(',').collect(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().ok_or(RecordProblem::Tags))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(RecordProblem::Tags),
    };
    Ok(raw
        .into_iter()
        .map(str::trim)
        .filter(|tag| !tag.is_empty())
        .map(String::from)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::tests::refused;
    use serde_json::json;

    const MEMORIES: &str = include_str!("../../../../tests/fixtures/import/memories.jsonl");
    const BAD: &str = include_str!("../../../../tests/fixtures/import/bad-memories.jsonl");

    #[test]
    fn each_record_becomes_a_memory_note() {
        let parsed = parse(MEMORIES).unwrap();
        let placed: Vec<(&str, &str, &str, &str, usize)> = parsed
            .drafts
            .iter()
            .map(|d| {
                (
                    d.id.as_str(),
                    d.folder.as_str(),
                    d.file_stem.as_str(),
                    d.note_type.as_str(),
                    d.line,
                )
            })
            .collect();
        let derived = stable_id(
            "jsonl",
            "Decided to keep the index writer single-threaded, because milli takes a global write lock and parallel writers would only contend for it.\nRevisit if imports get slow.",
            "2025-02-20T16:45:00Z",
        );
        assert_eq!(
            placed,
            [
                ("mem-001", "", "Editor theme", "preference", 1),
                (
                    "mem-002",
                    "",
                    "Standup moves to 9:30 this week only",
                    "memory",
                    2
                ),
                (
                    "mem-003",
                    "",
                    "The old API token was rotated; the previous one is void",
                    "memory",
                    4
                ),
                (
                    "mem-004",
                    "",
                    "Coffee: 15 g per 250 ml, water at 94 °C",
                    "fact",
                    5
                ),
                (
                    derived.as_str(),
                    "",
                    "Decided to keep the index writer single-threaded, because…",
                    "memory",
                    6
                ),
            ]
        );
        assert_eq!(parsed.duplicates, 1, "mem-001 is repeated on line 7");
        assert_eq!(parsed.counts, [("memories", 6)]);
        assert_eq!(parsed.default_folder, "memories");
        assert_eq!(parsed.drafts[4].body, "Decided to keep the index writer single-threaded, because milli takes a global write lock and parallel writers would only contend for it.\nRevisit if imports get slow.\n");
    }

    #[test]
    fn fields_become_front_matter_in_the_memory_order() {
        let parsed = parse(MEMORIES).unwrap();
        let derived = parsed.drafts[4].id.clone();
        let cases = [
            json!({"id": "mem-001", "source": "memory_save", "tags": ["ui", "editor"], "score": 0.9,
                   "created_at": "2025-02-01T08:00:00Z", "updated_at": "2025-02-03T12:30:00Z"}),
            json!({"id": "mem-002", "source": "jsonl", "tags": ["meetings", "schedule"], "ttl": "P7D",
                   "created_at": "2025-02-10T09:00:00+01:00"}),
            json!({"id": "mem-003", "source": "jsonl", "created_at": "2025-01-05T10:00:00Z",
                   "updated_at": "2025-03-01T00:00:00Z", "deleted_at": "2025-03-01T00:00:00Z"}),
            // An unknown key is kept after the memory keys; a null one is as good as absent.
            json!({"id": "mem-004", "source": "jsonl", "created_at": "2025-01-20T07:45:00Z",
                   "compat": {"basic_id": "main/guides/coffee-brewing"}, "project_ref": "kitchen"}),
            json!({"id": derived, "source": "jsonl", "created_at": "2025-02-20T16:45:00Z"}),
        ];
        for (draft, expected) in parsed.drafts.iter().zip(cases) {
            let keys: Vec<&String> = draft.metadata.keys().collect();
            let expected_keys: Vec<&String> = expected.as_object().unwrap().keys().collect();
            assert_eq!(keys, expected_keys, "{}", draft.id);
            assert_eq!(Value::Object(draft.metadata.clone()), expected);
        }
    }

    #[test]
    fn a_json_array_reads_as_its_lines_would() {
        let lines: Vec<Value> = MEMORIES
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let array = serde_json::to_string_pretty(&lines).unwrap();
        let from_array = parse(&array).unwrap();
        let from_lines = parse(MEMORIES).unwrap();
        let strip = |p: &Parsed| -> Vec<Draft> {
            p.drafts
                .iter()
                .map(|d| Draft {
                    line: 0,
                    ..d.clone()
                })
                .collect()
        };
        assert_eq!(strip(&from_array), strip(&from_lines));
        assert_eq!(from_array.duplicates, 1);
        let lines: Vec<usize> = from_array.drafts.iter().map(|d| d.line).collect();
        assert_eq!(lines, [2, 16, 23, 30, 41]);
    }

    #[test]
    fn every_bad_record_is_reported() {
        let errors = refused(parse(BAD));
        assert_eq!(errors, ["line 2: content is missing"]);
        let array = "[\n  {\"content\": \"ok\"},\n  {\"content\": \"x\", \"score\": 2}, {\"title\": \"t\"}\n]";
        let errors = refused(parse(array));
        assert_eq!(
            errors,
            [
                "line 3: record 2: score 2 is not a number from 0 to 1",
                "line 3: record 3: content is missing",
            ]
        );
    }

    #[test]
    fn each_line_is_judged_on_its_own() {
        let input = "{\"content\": \"first\"}\n\nnot json\n{\"content\": \"x\", \"score\": 2}\n{\"content\": \"y\", \"source\": \"cli\"}\n";
        let judged: Vec<Result<(usize, Value), String>> = each_line(input, "ingest")
            .into_iter()
            .map(|r| {
                r.map(|d| (d.line, d.metadata["source"].clone()))
                    .map_err(|e| e.to_string())
            })
            .collect();
        assert_eq!(
            judged,
            [
                Ok((1, json!("ingest"))),
                Err("line 3: not valid JSON: expected ident at column 2".to_string()),
                Err("line 4: score 2 is not a number from 0 to 1".to_string()),
                Ok((5, json!("cli"))),
            ]
        );
    }

    #[test]
    fn fields_are_validated_as_the_memory_api_validates_them() {
        let cases = [
            (json!({"content": "  "}), "content is empty"),
            (json!({"content": 5}), "content is not a string"),
            (
                json!({"content": "x", "id": ""}),
                "id is not a non-empty string",
            ),
            (
                json!({"content": "x", "id": 7}),
                "id is not a non-empty string",
            ),
            (
                json!({"content": "x", "score": 1.5}),
                "score 1.5 is not a number from 0 to 1",
            ),
            (
                json!({"content": "x", "score": -0.1}),
                "score -0.1 is not a number from 0 to 1",
            ),
            (
                json!({"content": "x", "score": "high"}),
                "score \"high\" is not a number from 0 to 1",
            ),
            (
                json!({"content": "x", "ttl": "30 days"}),
                "ttl '30 days' is not an ISO 8601 duration (like P30D or PT12H)",
            ),
            (json!({"content": "x", "ttl": 30}), "ttl is not a string"),
            (
                json!({"content": "x", "created_at": "2025-02-01"}),
                "created_at '2025-02-01' is not an RFC 3339 time",
            ),
            (
                json!({"content": "x", "deleted_at": "yesterday"}),
                "deleted_at 'yesterday' is not an RFC 3339 time",
            ),
            (
                json!({"content": "x", "tags": [1]}),
                "tags is not a list of strings or a comma-separated string",
            ),
            (
                json!({"content": "x", "compat": "main/x"}),
                "compat is not an object",
            ),
            (
                json!({"content": "x", "type": ["fact"]}),
                "type is not a string",
            ),
            (json!("x"), "expected a JSON object"),
            (
                json!({"content": "x", "version": 0}),
                "version 0 is not a whole number from 1",
            ),
            (
                json!({"content": "x", "source": {"agnt": "a"}}),
                "unknown field `agnt`, expected one of `agent`, `session`, `origin`, `app`",
            ),
            (
                json!({"content": "x", "source": 3}),
                "source is not a string or an object of agent, session, origin, app",
            ),
        ];
        for (input, message) in cases {
            assert_eq!(
                record(&input, SOURCE).map_err(|e| e.to_string()),
                Err(message.to_string()),
                "{input}"
            );
        }
    }

    #[test]
    fn optional_fields_take_their_defaults() {
        let cases = [
            (json!({"content": "x", "score": 0}), "score", Some(json!(0))),
            (json!({"content": "x", "score": 1}), "score", Some(json!(1))),
            (
                json!({"content": "x", "tags": " a, ,b "}),
                "tags",
                Some(json!(["a", "b"])),
            ),
            (json!({"content": "x", "tags": []}), "tags", None),
            (
                json!({"content": "x", "basic_id": "notes/x"}),
                "compat",
                Some(json!({"basic_id": "notes/x"})),
            ),
            (
                json!({"content": "x", "basic_id": "old", "compat": {"basic_id": "new", "v": 1}}),
                "compat",
                Some(json!({"basic_id": "new", "v": 1})),
            ),
            (
                json!({"content": "x", "source": " "}),
                "source",
                Some(json!("jsonl")),
            ),
            (
                json!({"content": "x", "deleted_at": null}),
                "deleted_at",
                None,
            ),
            (json!({"content": "x"}), "created_at", None),
            (
                json!({"content": "x", "version": 4}),
                "version",
                Some(json!(4)),
            ),
            (
                json!({"content": "x", "source": {"agent": "claude", "origin": "chat"}}),
                "source",
                Some(json!({"agent": "claude", "origin": "chat"})),
            ),
            (
                json!({"content": "x", "source": {"origin": "chat"}}),
                "source",
                Some(json!("chat")),
            ),
        ];
        for (input, key, value) in cases {
            let draft = record(&input, SOURCE).unwrap();
            assert_eq!(draft.metadata.get(key), value.as_ref(), "{input}");
        }
        let draft = record(
            &json!({"content": "# Heading\nbody  \n\n", "title": " ", "type": ""}),
            SOURCE,
        )
        .unwrap();
        assert_eq!(
            (
                draft.title.as_str(),
                draft.note_type.as_str(),
                draft.body.as_str()
            ),
            ("Heading", "memory", "# Heading\nbody\n")
        );
    }
}
