//! Claude.ai's data export: `conversations.json` (chats with their messages) or
//! `projects.json` (projects with their documents and prompt template); which one a file is
//! shows in its records. Notes are shaped as Basic Memory's Claude importers shape them
//! (same file names, headers and front matter keys), so a user moving over finds the notes
//! they know.

use chrono::{DateTime, NaiveDateTime, Utc};
use serde_json::{Map, Value};

use super::{
    array_elements, clean_title, convert, fenced, id_and_source, stable_id, title_case, Converted,
    Draft, Kind, Parsed, RecordError, RecordProblem,
};

const SOURCE: &str = "claude";

pub(super) fn parse(input: &str) -> Result<Parsed, Vec<RecordError>> {
    let elements = array_elements(input)?;
    let has = |key: &str| {
        elements
            .first()
            .is_some_and(|(_, first)| first.get(key).is_some())
    };
    if elements.is_empty() || has("chat_messages") {
        convert(&elements, &CHATS)
    } else if has("docs") {
        convert(&elements, &PROJECTS)
    } else {
        Err(vec![RecordError::new(1, RecordProblem::NotAClaudeExport)])
    }
}

const CHATS: Kind = Kind {
    one: "conversation",
    many: "conversations",
    parts: "messages",
    convert: conversation,
};

const PROJECTS: Kind = Kind {
    one: "project",
    many: "projects",
    parts: "documents",
    convert: project,
};

fn conversation(chat: &Map<String, Value>) -> Converted {
    let uuid = required(chat, "uuid")?;
    let created_raw = required(chat, "created_at")?;
    let created = time(created_raw).ok_or_else(|| not_a_time("created_at", created_raw))?;
    let name = match optional(chat, "name")?.map(str::trim) {
        Some(name) if !name.is_empty() => name.to_string(),
        _ => format!("Conversation {uuid}"),
    };
    let messages = array(chat, "chat_messages")?;
    let mut lines = vec![format!("# {name}\n")];
    for (i, message) in messages.iter().enumerate() {
        let message = message.as_object().ok_or(RecordProblem::PartNotAnObject {
            part: "message",
            number: i + 1,
        })?;
        lines.extend(message_lines(message).map_err(|e| e.within("message", i + 1))?);
    }
    let id = stable_id(SOURCE, uuid, created_raw);
    let mut metadata = id_and_source(&id, SOURCE);
    metadata.insert("created".into(), created_raw.into());
    if let Some(modified) = optional(chat, "updated_at")? {
        metadata.insert("modified".into(), modified.into());
    }
    let draft = Draft {
        id,
        folder: String::new(),
        file_stem: format!("{}-{}", created.format("%Y%m%d"), clean_title(&name)),
        title: name,
        note_type: "conversation".into(),
        metadata,
        body: lines.join("\n"),
        line: 0,
    };
    Ok((vec![draft], messages.len()))
}

/// A message as lines of the note: header, text, attachments, then the blank line that
/// separates it from the next.
fn message_lines(message: &Map<String, Value>) -> Result<Vec<String>, RecordProblem> {
    let sender = title_case(optional(message, "sender")?.unwrap_or("unknown"));
    let header = match optional(message, "created_at")? {
        Some(raw) => {
            let at = time(raw).ok_or_else(|| not_a_time("created_at", raw))?;
            format!("### {sender} ({})", at.format("%Y-%m-%d %H:%M:%S"))
        }
        None => format!("### {sender}"),
    };
    let text = message_text(message);
    let mut lines = vec![header];
    if !text.is_empty() {
        lines.push(text);
    }
    if let Some(Value::Array(attachments)) = message.get("attachments") {
        for attachment in attachments {
            let Some(file_name) = attachment.get("file_name").and_then(Value::as_str) else {
                continue;
            };
            lines.push(format!("\n**Attachment: {file_name}**"));
            if let Some(content) = attachment.get("extracted_content").and_then(Value::as_str) {
                lines.push(fenced("", content));
            }
        }
    }
    lines.push(String::new());
    Ok(lines)
}

/// Newer exports split a message into `content` items (text, tool use, ...) and may leave
/// `text` empty; older ones have only `text`.
fn message_text(message: &Map<String, Value>) -> String {
    let from_items: Vec<&str> = match message.get("content") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(|item| item.get("text").and_then(Value::as_str))
            .collect(),
        _ => Vec::new(),
    };
    if from_items.is_empty() {
        message
            .get("text")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    } else {
        from_items.join(" ")
    }
}

fn project(project: &Map<String, Value>) -> Converted {
    let uuid = required(project, "uuid")?;
    let name = required(project, "name")?;
    let created = optional(project, "created_at")?;
    let modified = optional(project, "updated_at")?;
    let docs = array(project, "docs")?;
    let folder = clean_title(name);
    // The keys every draft of a project carries after id and source.
    let common = |created: Option<&str>| {
        let mut metadata = Map::new();
        if let Some(created) = created {
            metadata.insert("created".into(), created.into());
        }
        if let Some(modified) = modified {
            metadata.insert("modified".into(), modified.into());
        }
        metadata.insert("project_name".into(), name.into());
        metadata.insert("project_uuid".into(), uuid.into());
        metadata
    };
    let mut drafts = Vec::new();
    for (i, doc) in docs.iter().enumerate() {
        let doc = doc.as_object().ok_or(RecordProblem::PartNotAnObject {
            part: "document",
            number: i + 1,
        })?;
        let in_doc = |e: RecordProblem| e.within("document", i + 1);
        let filename = required(doc, "filename").map_err(in_doc)?;
        let content = required(doc, "content").map_err(in_doc)?;
        let doc_uuid = optional(doc, "uuid").map_err(in_doc)?;
        let doc_created = optional(doc, "created_at").map_err(in_doc)?.or(created);
        let key = format!("{uuid}/{}", doc_uuid.unwrap_or(filename));
        let id = stable_id(SOURCE, &key, doc_created.unwrap_or(""));
        let mut metadata = id_and_source(&id, SOURCE);
        metadata.extend(common(doc_created));
        if let Some(doc_uuid) = doc_uuid {
            metadata.insert("doc_uuid".into(), doc_uuid.into());
        }
        drafts.push(Draft {
            id,
            folder: format!("{folder}/docs"),
            file_stem: clean_title(filename),
            title: filename.to_string(),
            note_type: "project_doc".into(),
            metadata,
            body: with_final_newline(content),
            line: 0,
        });
    }
    if let Some(template) = optional(project, "prompt_template")?.filter(|t| !t.trim().is_empty()) {
        let id = stable_id(
            SOURCE,
            &format!("{uuid}/prompt-template"),
            created.unwrap_or(""),
        );
        let mut metadata = id_and_source(&id, SOURCE);
        metadata.extend(common(created));
        let title = format!("Prompt Template: {name}");
        drafts.push(Draft {
            id,
            folder: folder.clone(),
            file_stem: "prompt-template".into(),
            body: with_final_newline(&format!("# {title}\n\n{template}")),
            title,
            note_type: "prompt_template".into(),
            metadata,
            line: 0,
        });
    }
    Ok((drafts, docs.len()))
}

fn with_final_newline(text: &str) -> String {
    if text.ends_with('\n') {
        text.to_string()
    } else {
        format!("{text}\n")
    }
}

fn array<'a>(
    object: &'a Map<String, Value>,
    key: &'static str,
) -> Result<&'a Vec<Value>, RecordProblem> {
    match object.get(key) {
        Some(Value::Array(items)) => Ok(items),
        None | Some(Value::Null) => Err(RecordProblem::Missing(key)),
        Some(_) => Err(RecordProblem::KeyNotAnArray(key)),
    }
}

fn required<'a>(
    object: &'a Map<String, Value>,
    key: &'static str,
) -> Result<&'a str, RecordProblem> {
    optional(object, key)?.ok_or(RecordProblem::Missing(key))
}

/// A string field; null counts as absent, any other non-string is an error.
fn optional<'a>(
    object: &'a Map<String, Value>,
    key: &'static str,
) -> Result<Option<&'a str>, RecordProblem> {
    match object.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(RecordProblem::NotAString(key)),
    }
}

/// An export time: RFC 3339 as Claude writes it, or without an offset (taken as UTC).
fn time(raw: &str) -> Option<DateTime<Utc>> {
    DateTime::parse_from_rfc3339(raw)
        .map(|t| t.with_timezone(&Utc))
        .ok()
        .or_else(|| {
            NaiveDateTime::parse_from_str(raw, "%Y-%m-%dT%H:%M:%S%.f")
                .ok()
                .map(|t| t.and_utc())
        })
}

fn not_a_time(key: &'static str, raw: &str) -> RecordProblem {
    RecordProblem::NotIso8601 {
        key,
        value: raw.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::tests::{bodies, conversations, placed, refused};

    const CONVERSATIONS_JSON: &str =
        include_str!("../../../../tests/fixtures/import/claude-conversations.json");
    const PROJECTS_JSON: &str =
        include_str!("../../../../tests/fixtures/import/claude-projects.json");

    #[test]
    fn each_chat_becomes_a_dated_conversation_note() {
        let parsed = parse(CONVERSATIONS_JSON).unwrap();
        assert_eq!(
            conversations(&parsed),
            [
                (
                    "20250114-Planning_the_search_rewrite",
                    "Planning the search rewrite",
                    2
                ),
                (
                    "20250203-Review_meeting_notes_Feb_3_",
                    "Review meeting notes (Feb 3)",
                    61
                ),
                (
                    "20250305-Conversation_0b7e4d1a_33c2_4f57_a1d8_9e6c2b4f8a10",
                    "Conversation 0b7e4d1a-33c2-4f57-a1d8-9e6c2b4f8a10",
                    97
                ),
            ]
        );
        assert_eq!(parsed.counts, [("conversations", 3), ("messages", 5)]);
        assert_eq!(parsed.duplicates, 0);
    }

    #[test]
    fn a_conversation_reads_as_headed_messages() {
        let parsed = parse(CONVERSATIONS_JSON).unwrap();
        assert_eq!(
            bodies(&parsed),
            [
                "# Planning the search rewrite\n\
                 \n\
                 ### Human (2025-01-14 09:30:12)\n\
                 How should we split indexing from querying?\n\
                 \n\
                 ### Assistant (2025-01-14 09:30:41)\n\
                 Keep a single writer thread that owns the index. Readers open snapshots and never block it.\n",
                "# Review meeting notes (Feb 3)\n\
                 \n\
                 ### Human (2025-02-03 16:05:00)\n\
                 Summarise the attached notes.\n\
                 \n\
                 **Attachment: notes.txt**\n\
                 ```\n\
                 - ship import by Friday\n\
                 - Bob owns the CLI\n\
                 ```\n\
                 \n\
                 ### Assistant (2025-02-03 16:05:09)\n\
                 Import ships Friday; Bob owns the CLI.\n",
                "# Conversation 0b7e4d1a-33c2-4f57-a1d8-9e6c2b4f8a10\n\
                 \n\
                 ### Human (2025-03-05 22:10:00)\n\
                 ping\n",
            ]
        );
    }

    #[test]
    fn a_conversation_keeps_its_uuid_and_times() {
        let draft = &parse(CONVERSATIONS_JSON).unwrap().drafts[0];
        assert_eq!(
            draft.id,
            stable_id(
                "claude",
                "5f1c2a7e-8b3d-4e6f-9a01-2b3c4d5e6f70",
                "2025-01-14T09:30:12.345678Z"
            )
        );
        let metadata = Value::Object(draft.metadata.clone());
        assert_eq!(
            metadata,
            serde_json::json!({
                "id": draft.id,
                "source": "claude",
                "created": "2025-01-14T09:30:12.345678Z",
                "modified": "2025-01-14T09:42:55.120000Z",
            })
        );
        let keys: Vec<&str> = draft.metadata.keys().map(String::as_str).collect();
        assert_eq!(keys, ["id", "source", "created", "modified"]);
    }

    #[test]
    fn each_project_document_becomes_a_note_beside_its_prompt_template() {
        let parsed = parse(PROJECTS_JSON).unwrap();
        assert_eq!(
            placed(&parsed),
            [
                (
                    "gitmem_launch/docs",
                    "launch_checklist_md",
                    "launch-checklist.md",
                    2
                ),
                ("gitmem_launch/docs", "Pricing_notes", "Pricing notes", 2),
                (
                    "gitmem_launch",
                    "prompt-template",
                    "Prompt Template: gitmem launch",
                    2
                ),
                ("Reading_list/docs", "papers_txt", "papers.txt", 28),
            ]
        );
        let types: Vec<&str> = parsed.drafts.iter().map(|d| d.note_type.as_str()).collect();
        assert_eq!(
            types,
            [
                "project_doc",
                "project_doc",
                "prompt_template",
                "project_doc"
            ]
        );
        assert_eq!(parsed.counts, [("projects", 2), ("documents", 3)]);
        assert_eq!(parsed.default_folder, "projects");
        let template = &parsed.drafts[2];
        assert_eq!(
            template.body,
            "# Prompt Template: gitmem launch\n\nYou are helping launch gitmem. Be concise.\n"
        );
        let doc = &parsed.drafts[0];
        assert_eq!(
            doc.body,
            "# Launch checklist\n\n- [ ] README\n- [ ] crates.io release\n"
        );
        assert_eq!(
            Value::Object(doc.metadata.clone()),
            serde_json::json!({
                "id": stable_id(
                    "claude",
                    "a3c9e0f2-5d41-4b8e-9f3a-7c2d1e0b9a84/d1f0c3b2-6a5e-4d7c-8b9a-0e1f2a3b4c5d",
                    "2025-02-10T11:00:00.000000Z"
                ),
                "source": "claude",
                "created": "2025-02-10T11:00:00.000000Z",
                "modified": "2025-02-20T08:15:00.000000Z",
                "project_name": "gitmem launch",
                "project_uuid": "a3c9e0f2-5d41-4b8e-9f3a-7c2d1e0b9a84",
                "doc_uuid": "d1f0c3b2-6a5e-4d7c-8b9a-0e1f2a3b4c5d",
            })
        );
        // A document without a uuid is known by its file name; it takes the project's time.
        let pricing = &parsed.drafts[1];
        assert_eq!(
            pricing.id,
            stable_id(
                "claude",
                "a3c9e0f2-5d41-4b8e-9f3a-7c2d1e0b9a84/Pricing notes",
                "2025-02-01T09:00:00.000000Z"
            )
        );
    }

    #[test]
    fn the_kind_of_export_shows_in_its_records() {
        let cases = [
            ("[]", Ok("0 drafts for conversations")),
            ("  [\n]\n", Ok("0 drafts for conversations")),
            (
                r#"[{"uuid":"u","name":"P","docs":[]}]"#,
                Ok("0 drafts for projects"),
            ),
            (
                r#"[{"uuid":"u","account":{}}]"#,
                Err("line 1: not a Claude export: expected conversations (with chat_messages) or projects (with docs)"),
            ),
            (
                r#"{"chat_messages":[]}"#,
                Err("line 1: expected a JSON array"),
            ),
        ];
        for (input, expected) in cases {
            let got = parse(input)
                .map(|p| format!("{} drafts for {}", p.drafts.len(), p.default_folder))
                .map_err(|e| e[0].to_string());
            assert_eq!(
                got.as_deref(),
                expected.map_err(|e| e.to_string()).as_deref(),
                "{input}"
            );
        }
    }

    #[test]
    fn every_bad_record_is_reported_where_it_starts() {
        let input = r#"[
  {"uuid": "a", "created_at": "2025-01-01T00:00:00Z", "chat_messages": []},
  {"uuid": "b", "chat_messages": []},
  {"uuid": "c", "created_at": "yesterday", "chat_messages": []},
  {"uuid": "d", "created_at": "2025-01-01T00:00:00Z", "chat_messages": {}},
  {"uuid": "e", "created_at": "2025-01-01T00:00:00Z",
   "chat_messages": [{"sender": "human", "created_at": 5}]},
  {"created_at": "2025-01-01T00:00:00Z", "chat_messages": []},
  "chat"
]"#;
        let errors = refused(parse(input));
        assert_eq!(
            errors,
            [
                "line 3: conversation 2: created_at is missing",
                "line 4: conversation 3: created_at 'yesterday' is not an ISO 8601 time",
                "line 5: conversation 4: chat_messages is not an array",
                "line 6: conversation 5: message 1: created_at is not a string",
                "line 8: conversation 6: uuid is missing",
                "line 9: conversation 7: is not a JSON object",
            ]
        );
    }

    #[test]
    fn a_chat_exported_twice_is_imported_once() {
        let chat = r#"{"uuid": "a", "name": "x", "created_at": "2025-01-01T00:00:00Z", "chat_messages": []}"#;
        let parsed = parse(&format!("[{chat},\n{chat}]")).unwrap();
        assert_eq!((parsed.drafts.len(), parsed.duplicates), (1, 1));
    }

    #[test]
    fn times_are_read_with_or_without_an_offset() {
        let cases = [
            ("2025-01-14T09:30:12.345678Z", Some("2025-01-14 09:30:12")),
            ("2025-01-14T11:30:12+02:00", Some("2025-01-14 09:30:12")),
            ("2025-01-14T09:30:12", Some("2025-01-14 09:30:12")),
            ("2025-01-14", None),
            ("soon", None),
        ];
        for (raw, expected) in cases {
            let got = time(raw).map(|t| t.format("%Y-%m-%d %H:%M:%S").to_string());
            assert_eq!(got.as_deref(), expected, "{raw}");
        }
    }
}
