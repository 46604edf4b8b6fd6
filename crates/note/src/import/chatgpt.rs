//! ChatGPT's data export (`conversations.json`). A conversation is a tree of messages
//! (`mapping`), which branches where the user edited a message or regenerated an answer;
//! a note holds every branch, depth first, so no answer is lost. Notes are shaped as Basic
//! Memory's ChatGPT importer shapes them (file names, headers, front matter keys).

use std::collections::HashSet;

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::{
    array_elements, clean_title, convert, fenced, id_and_source, stable_id, title_case, Draft,
    Kind, Parsed, RecordError, RecordProblem,
};

const SOURCE: &str = "chatgpt";

/// The time of a conversation when neither it nor any of its messages has one: a fixed
/// day rather than now, so its id and file name are the same on every import.
const NO_TIME: f64 = 86_400.0;

const TIME_FORMAT: &str = "%Y-%m-%d %H:%M:%S";

/// A conversation is one record, holding one draft.
const CONVERSATION_TREES: Kind = Kind {
    one: "conversation",
    many: "conversations",
    parts: "messages",
    convert: |c| conversation(c).map(|(draft, messages)| (vec![draft], messages)),
};

pub(super) fn parse(input: &str) -> Result<Parsed, Vec<RecordError>> {
    convert(&array_elements(input)?, &CONVERSATION_TREES)
}

/// The draft of one conversation and how many messages it shows.
fn conversation(conversation: &Map<String, Value>) -> Result<(Draft, usize), RecordProblem> {
    let mapping = match conversation.get("mapping") {
        Some(Value::Object(mapping)) => mapping,
        None | Some(Value::Null) => return Err(RecordProblem::Missing("mapping")),
        Some(_) => return Err(RecordProblem::KeyNotAnObject("mapping")),
    };
    if let Some((id, _)) = mapping.iter().find(|(_, node)| !node.is_object()) {
        return Err(RecordProblem::MappingNode(id.clone()));
    }
    let title = conversation
        .get("title")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or("Untitled conversation");
    let seconds = |key: &str| conversation.get(key).and_then(Value::as_f64);
    let earliest_message = mapping
        .values()
        .filter_map(|node| node.get("message")?.get("create_time")?.as_f64())
        .reduce(f64::min);
    let created = seconds("create_time")
        .or(earliest_message)
        .or(seconds("update_time"))
        .unwrap_or(NO_TIME);
    let created = unix_time(created).ok_or(RecordProblem::OutOfRange("create_time"))?;
    let modified = match seconds("update_time") {
        Some(t) => unix_time(t).ok_or(RecordProblem::OutOfRange("update_time"))?,
        None => created,
    };
    // Older exports have only `id`, newer ones both; the title stands in when neither is.
    let key = ["id", "conversation_id"]
        .iter()
        .find_map(|k| conversation.get(*k).and_then(Value::as_str))
        .unwrap_or(title);
    let written_time = conversation
        .get("create_time")
        .filter(|t| t.is_number())
        .map(Value::to_string)
        .unwrap_or_default();
    let id = stable_id(SOURCE, key, &written_time);

    let mut body = format!("# {title}\n");
    let mut rendered = 0;
    for message in tree_order(mapping)? {
        if let Some(text) = render(message) {
            body.push_str(&format!("\n{text}\n"));
            rendered += 1;
        }
    }
    let mut metadata = id_and_source(&id, SOURCE);
    metadata.insert(
        "created".into(),
        created.format(TIME_FORMAT).to_string().into(),
    );
    metadata.insert(
        "modified".into(),
        modified.format(TIME_FORMAT).to_string().into(),
    );
    let draft = Draft {
        id,
        folder: String::new(),
        file_stem: format!("{}-{}", created.format("%Y%m%d"), clean_title(title)),
        title: title.to_string(),
        note_type: "conversation".into(),
        metadata,
        body,
        line: 0,
    };
    Ok((draft, rendered))
}

/// The messages of the tree, depth first from its root, children in order. Each node is
/// visited once, so a damaged export whose children point back up cannot loop. The root is
/// the node without a parent, or whose parent the export left out (a trimmed conversation).
fn tree_order(mapping: &Map<String, Value>) -> Result<Vec<&Map<String, Value>>, RecordProblem> {
    let Some(root) = mapping
        .iter()
        .find(|(_, node)| match node.get("parent") {
            Some(Value::String(parent)) => !mapping.contains_key(parent),
            _ => true,
        })
        .map(|(id, _)| id.as_str())
    else {
        return if mapping.is_empty() {
            Ok(Vec::new())
        } else {
            Err(RecordProblem::NoRoot)
        };
    };
    let mut messages = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![root];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        // A child the export left out of the mapping has nothing to show.
        let Some(node) = mapping.get(id) else {
            continue;
        };
        if let Some(Value::Object(message)) = node.get("message") {
            messages.push(message);
        }
        if let Some(Value::Array(children)) = node.get("children") {
            stack.extend(children.iter().rev().filter_map(Value::as_str));
        }
    }
    Ok(messages)
}

/// A message as its header and text; `None` for what the ChatGPT page does not show
/// either: hidden messages (system prompts, memory context), tool output, browsing
/// displays and empty messages.
fn render(message: &Map<String, Value>) -> Option<String> {
    let hidden = message
        .get("metadata")
        .and_then(|m| m.get("is_visually_hidden_from_conversation"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if hidden {
        return None;
    }
    let content = message.get("content")?;
    let text = match content.get("content_type")?.as_str()? {
        // multimodal_text is a text message with images among its parts; the images are
        // not in the export, but the words are.
        "text" | "multimodal_text" => content
            .get("parts")?
            .as_array()?
            .iter()
            .filter_map(Value::as_str)
            .filter(|part| !part.is_empty())
            .collect::<Vec<_>>()
            .join("\n"),
        "code" => {
            let code = content.get("text")?.as_str()?.trim_end();
            let language = match content.get("language").and_then(Value::as_str) {
                Some("unknown") | None => "",
                Some(language) => language,
            };
            if code.trim().is_empty() {
                return None;
            }
            fenced(language, code)
        }
        _ => return None,
    };
    let text = text.trim_end();
    if text.trim().is_empty() {
        return None;
    }
    let role = message
        .get("author")
        .and_then(|a| a.get("role"))
        .and_then(Value::as_str)
        .unwrap_or("unknown");
    let role = title_case(role);
    let header = match message
        .get("create_time")
        .and_then(Value::as_f64)
        .and_then(unix_time)
    {
        Some(at) => format!("### {role} ({})", at.format(TIME_FORMAT)),
        None => format!("### {role}"),
    };
    Some(format!("{header}\n{text}"))
}

/// Unix seconds with a fraction, as ChatGPT writes its times.
fn unix_time(seconds: f64) -> Option<DateTime<Utc>> {
    if !seconds.is_finite() {
        return None;
    }
    let whole = seconds.floor();
    let nanos = ((seconds - whole) * 1e9) as u32;
    DateTime::from_timestamp(whole as i64, nanos.min(999_999_999))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::tests::{bodies, conversations, refused};
    use serde_json::json;

    const CONVERSATIONS: &str =
        include_str!("../../../../tests/fixtures/import/chatgpt-conversations.json");
    const BAD: &str = include_str!("../../../../tests/fixtures/import/bad-chatgpt.json");

    #[test]
    fn each_conversation_becomes_a_dated_note() {
        let parsed = parse(CONVERSATIONS).unwrap();
        assert_eq!(
            conversations(&parsed),
            [
                ("20250114-Parsing_ISO_durations", "Parsing ISO durations", 2),
                (
                    "20250116-Untitled_conversation",
                    "Untitled conversation",
                    214
                ),
            ]
        );
        assert_eq!(parsed.counts, [("conversations", 2), ("messages", 6)]);
    }

    #[test]
    fn messages_follow_the_tree_depth_first_and_hidden_ones_stay_hidden() {
        let parsed = parse(CONVERSATIONS).unwrap();
        assert_eq!(
            bodies(&parsed),
            [
                "# Parsing ISO durations\n\
                 \n\
                 ### User (2025-01-14 10:00:01)\n\
                 How do I check that a TTL like P30D is valid?\n\
                 \n\
                 ### Assistant (2025-01-14 10:00:05)\n\
                 Parse it with a small state machine over the designators.\n\
                 \n\
                 ### Assistant (2025-01-14 10:00:06)\n\
                 ```python\n\
                 import re\n\
                 print(bool(re.fullmatch(r\"P(\\d+D)?\", \"P30D\")))\n\
                 ```\n\
                 \n\
                 ### Assistant (2025-01-14 10:00:30)\n\
                 A regular expression is enough for simple cases.\n",
                "# Untitled conversation\n\
                 \n\
                 ### User (2025-01-16 18:20:00)\n\
                 What is on this whiteboard?\n\
                 \n\
                 ### Assistant\n\
                 The import plan: parse, validate, then write.\n",
            ]
        );
    }

    #[test]
    fn ids_and_times_come_from_the_conversation() {
        let parsed = parse(CONVERSATIONS).unwrap();
        let cases = [
            (
                // Its own id and create_time as written.
                stable_id(
                    "chatgpt",
                    "67863f60-0a1c-8003-9b2e-3f4a5b6c7d8e",
                    "1736848800.5",
                ),
                ("2025-01-14 10:00:00", "2025-01-14 10:05:00"),
            ),
            (
                // Only conversation_id, and no create_time: the earliest message's time.
                stable_id("chatgpt", "6788c1d0-4e2f-8003-a1b2-c3d4e5f6a7b8", ""),
                ("2025-01-16 18:20:00", "2025-01-16 18:21:40"),
            ),
        ];
        for (draft, (id, (created, modified))) in parsed.drafts.iter().zip(cases) {
            assert_eq!(
                Value::Object(draft.metadata.clone()),
                json!({"id": id, "source": "chatgpt", "created": created, "modified": modified}),
            );
            assert_eq!(draft.id, id);
        }
    }

    #[test]
    fn a_conversation_without_times_takes_the_next_best() {
        let conversation = |times: Value| {
            let mut c = json!({"id": "c", "title": "t", "mapping": {
                "r": {"id": "r", "message": null, "parent": null, "children": ["m"]},
                "m": {"id": "m", "parent": "r", "children": [], "message": {
                    "author": {"role": "user"}, "create_time": 1737000000.0,
                    "content": {"content_type": "text", "parts": ["hi"]}}}
            }});
            c.as_object_mut()
                .unwrap()
                .extend(times.as_object().unwrap().clone());
            c
        };
        let no_messages = json!({"id": "c", "title": "t", "mapping": {}});
        let cases = [
            (
                conversation(json!({"create_time": 1736848800.0})),
                "2025-01-14 10:00:00",
            ),
            (
                conversation(json!({"create_time": null, "update_time": 1737100000.0})),
                "2025-01-16 04:00:00",
            ),
            (no_messages.clone(), "1970-01-02 00:00:00"),
            (
                {
                    let mut c = no_messages;
                    c["update_time"] = json!(1737100000.0);
                    c
                },
                "2025-01-17 07:46:40",
            ),
        ];
        for (input, created) in cases {
            let (draft, _) = conversation_of(&input);
            assert_eq!(draft.metadata["created"], created, "{input}");
        }
    }

    fn conversation_of(value: &Value) -> (Draft, usize) {
        conversation(value.as_object().unwrap()).unwrap()
    }

    /// Walks a tree holding the user's "a" and the assistant's "b", however `mapping` links
    /// them: each must be rendered once, in that order.
    fn assert_a_then_b(mapping: Value) {
        let value = json!({"id": "c", "title": "t", "create_time": 0.0, "mapping": mapping});
        let (draft, rendered) = conversation_of(&value);
        assert_eq!(draft.body, "# t\n\n### User\na\n\n### Assistant\nb\n");
        assert_eq!(rendered, 2);
    }

    fn text_message(role: &str, text: &str) -> Value {
        json!({"author": {"role": role}, "content": {"content_type": "text", "parts": [text]}})
    }

    #[test]
    fn a_tree_that_points_back_up_is_walked_once() {
        assert_a_then_b(json!({
            "r": {"id": "r", "message": null, "children": ["a"]},
            "a": {"id": "a", "parent": "r", "children": ["b", "gone"],
                  "message": text_message("user", "a")},
            "b": {"id": "b", "parent": "a", "children": ["a", "r"],
                  "message": text_message("assistant", "b")},
        }));
    }

    #[test]
    fn a_node_whose_parent_is_missing_is_the_root() {
        assert_a_then_b(json!({
            "b": {"id": "b", "parent": "a", "children": [],
                  "message": text_message("assistant", "b")},
            "a": {"id": "a", "parent": "gone", "children": ["b"],
                  "message": text_message("user", "a")},
        }));
    }

    #[test]
    fn only_what_the_page_shows_is_rendered() {
        let message = |content: Value, metadata: Value| json!({"author": {"role": "assistant"}, "create_time": null, "content": content, "metadata": metadata});
        let cases = [
            (
                message(
                    json!({"content_type": "text", "parts": ["a", "b"]}),
                    json!({}),
                ),
                Some("### Assistant\na\nb"),
            ),
            (
                message(
                    json!({"content_type": "text", "parts": ["", {"asset": 1}, "x  \n"]}),
                    json!({}),
                ),
                Some("### Assistant\nx"),
            ),
            (
                message(
                    json!({"content_type": "code", "language": "unknown", "text": "ls\n"}),
                    json!({}),
                ),
                Some("### Assistant\n```\nls\n```"),
            ),
            (
                message(
                    json!({"content_type": "text", "parts": ["x"]}),
                    json!({"is_visually_hidden_from_conversation": true}),
                ),
                None,
            ),
            (
                message(json!({"content_type": "text", "parts": [""]}), json!({})),
                None,
            ),
            (
                message(
                    json!({"content_type": "code", "language": "python", "text": " "}),
                    json!({}),
                ),
                None,
            ),
            (
                message(
                    json!({"content_type": "execution_output", "text": "True"}),
                    json!({}),
                ),
                None,
            ),
            (
                message(
                    json!({"content_type": "tether_browsing_display", "result": "..."}),
                    json!({}),
                ),
                None,
            ),
            (json!({"author": {"role": "user"}}), None),
        ];
        for (input, expected) in cases {
            assert_eq!(
                render(input.as_object().unwrap()).as_deref(),
                expected,
                "{input}"
            );
        }
    }

    #[test]
    fn every_bad_conversation_is_reported_where_it_starts() {
        let errors = refused(parse(BAD));
        assert_eq!(
            errors,
            ["line 46: conversation 2: mapping is not an object"]
        );
        let input = r#"[
  {"title": "a"},
  {"title": "b", "mapping": {"x": 1}},
  {"title": "c", "mapping": {"x": {"parent": "y"}, "y": {"parent": "x"}}},
  {"title": "d", "mapping": {}, "create_time": 1e300},
  7
]"#;
        let errors = refused(parse(input));
        assert_eq!(
            errors,
            [
                "line 2: conversation 1: mapping is missing",
                "line 3: conversation 2: mapping node 'x' is not an object",
                "line 4: conversation 3: mapping has no root (every node has a parent)",
                "line 5: conversation 4: create_time is out of range",
                "line 6: conversation 5: is not a JSON object",
            ]
        );
    }

    #[test]
    fn a_conversation_exported_twice_is_imported_once() {
        let c = r#"{"id": "c", "title": "t", "create_time": 1.0, "mapping": {}}"#;
        let parsed = parse(&format!("[{c}, {c}]")).unwrap();
        assert_eq!((parsed.drafts.len(), parsed.duplicates), (1, 1));
        assert_eq!(parsed.counts, [("conversations", 2), ("messages", 0)]);
    }
}
