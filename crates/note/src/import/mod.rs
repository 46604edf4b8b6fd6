//! Exports of other tools as note drafts: the official MCP memory server's knowledge graph
//! (`memory_json`), Claude.ai's and ChatGPT's data exports (`claude`, `chatgpt`) and gitmem
//! memory records (`records`).
//!
//! This layer only reads. Where a draft is written, what its file is called once sanitised,
//! its `title`/`type`/`permalink` front matter and whether the project holds it already are
//! decided where drafts are written, so a whole input can be converted (and every bad record
//! in it reported) before anything touches the project.

pub mod basic;
mod chatgpt;
mod claude;
mod memory_json;
mod records;

use std::collections::HashSet;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

/// Which export a file is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    /// The official `@modelcontextprotocol/server-memory` JSONL file.
    MemoryJson,
    /// Claude.ai's `conversations.json` or `projects.json`.
    Claude,
    /// ChatGPT's `conversations.json`.
    ChatGpt,
    /// gitmem memory records, as JSON Lines or one JSON array.
    Records,
}

impl Source {
    pub const ALL: [Source; 4] = [
        Source::MemoryJson,
        Source::Claude,
        Source::ChatGpt,
        Source::Records,
    ];

    /// The source a user's name means (see [`Source::name`]).
    pub fn named(name: &str) -> Option<Source> {
        Source::ALL.into_iter().find(|source| source.name() == name)
    }

    /// The name users type (`gitmem import NAME`) and drafts record as their `source`.
    pub fn name(self) -> &'static str {
        match self {
            Source::MemoryJson => "memory-json",
            Source::Claude => "claude",
            Source::ChatGpt => "chatgpt",
            Source::Records => "jsonl",
        }
    }
}

/// One note to write.
#[derive(Debug, Clone, PartialEq)]
pub struct Draft {
    /// Stable id: the same record imported again gets the same id (see [`stable_id`]).
    pub id: String,
    /// Folder under the import folder, '/'-separated, "" = the import folder itself.
    pub folder: String,
    /// File name without `.md`, as the format names it (the writer sanitises it further).
    pub file_stem: String,
    pub title: String,
    pub note_type: String,
    /// Front matter keys after title/type/permalink, in order; always `id` then `source`.
    pub metadata: Map<String, Value>,
    pub body: String,
    /// 1-based line of the input where its record starts.
    pub line: usize,
}

/// A whole input, converted.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Parsed {
    pub drafts: Vec<Draft>,
    /// Records that repeated an earlier record (dropped; counted as deduplicated).
    pub duplicates: usize,
    /// What the input held, for the report: ("conversations", 3), ("messages", 17), ...
    pub counts: Vec<(&'static str, usize)>,
    /// The folder drafts go under when the user names none. It belongs to the input rather
    /// than the [`Source`] because one Claude source holds either conversations
    /// (`conversations`) or projects (`projects`). Memory-json entities use "" because their
    /// drafts sit in `<entityType>/` folders already.
    pub default_folder: &'static str,
}

/// A record that cannot be imported, with where it is.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("line {line}: {problem}")]
pub struct RecordError {
    /// 1-based line where the record starts (for a JSON syntax error: where parsing stopped).
    pub line: usize,
    pub problem: RecordProblem,
}

impl RecordError {
    fn new(line: usize, problem: RecordProblem) -> Self {
        RecordError { line, problem }
    }
}

/// What is wrong with a record (or with the whole input, reported at its first line). A key
/// is the record's field as the export names it.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RecordProblem {
    /// serde_json's message, without the line the record error already gives.
    #[error("not valid JSON: {message} at column {column}")]
    Syntax { message: String, column: usize },
    #[error("expected a JSON array")]
    NotAnArray,
    #[error("expected a JSON object")]
    NotAnObject,
    #[error("expected a JSON array of notes, or an object with one under notes, entities, results, items or memories")]
    NoNoteList,
    #[error(
        "not a Claude export: expected conversations (with chat_messages) or projects (with docs)"
    )]
    NotAClaudeExport,
    /// An element of the export's array, named by the [`RecordProblem::In`] around it.
    #[error("is not a JSON object")]
    ElementNotAnObject,
    #[error("{part} {number} is not a JSON object")]
    PartNotAnObject { part: &'static str, number: usize },
    /// The problem of a record's `number`th (from 1) `part`: "conversation 3: ...".
    #[error("{part} {number}: {problem}")]
    In {
        part: &'static str,
        number: usize,
        problem: Box<RecordProblem>,
    },
    #[error("{0} is missing")]
    Missing(&'static str),
    #[error("{0} is empty")]
    Empty(&'static str),
    #[error("{0} is not a string")]
    NotAString(&'static str),
    #[error("{0} is not a non-empty string")]
    NotANonEmptyString(&'static str),
    #[error("{0} is not an array")]
    KeyNotAnArray(&'static str),
    #[error("{0} is not an object")]
    KeyNotAnObject(&'static str),
    #[error("{key} '{value}' is not an RFC 3339 time")]
    NotRfc3339 { key: &'static str, value: String },
    #[error("{key} '{value}' is not an ISO 8601 time")]
    NotIso8601 { key: &'static str, value: String },
    #[error("{0} is out of range")]
    OutOfRange(&'static str),
    #[error("score {0} is not a number from 0 to 1")]
    Score(Value),
    #[error("ttl '{0}' is not an ISO 8601 duration (like P30D or PT12H)")]
    Ttl(String),
    #[error("tags is not a list of strings or a comma-separated string")]
    Tags,
    #[error("version {0} is not a whole number from 1")]
    Version(Value),
    #[error(transparent)]
    Source(crate::memory::SourceError),
    #[error("mapping node '{0}' is not an object")]
    MappingNode(String),
    #[error("mapping has no root (every node has a parent)")]
    NoRoot,
    #[error("record type {0} is not a string")]
    TypeNotAString(Value),
    #[error("unknown record type '{0}' (expected entity or relation)")]
    UnknownType(String),
    #[error("entity has no name")]
    Unnamed,
    #[error("observation {0} is not a string")]
    Observation(usize),
    #[error("relation has no {keys}", keys = .0.join(", "))]
    RelationLacks(Vec<&'static str>),
}

impl RecordProblem {
    /// This problem as the problem of a record's `number`th `part`.
    fn within(self, part: &'static str, number: usize) -> Self {
        RecordProblem::In {
            part,
            number,
            problem: Box::new(self),
        }
    }
}

/// Converts the whole input, or reports every bad record in it (in line order): an import
/// either takes everything or nothing, so the user fixes all problems in one go.
pub fn parse(source: Source, input: &str) -> Result<Parsed, Vec<RecordError>> {
    // Files saved by Windows editors start with a byte order mark, which JSON refuses.
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    let parsed = match source {
        Source::MemoryJson => memory_json::parse(input),
        Source::Claude => claude::parse(input),
        Source::ChatGpt => chatgpt::parse(input),
        Source::Records => records::parse(input),
    };
    parsed.map_err(|mut errors| {
        errors.sort_by_key(|e| e.line);
        errors
    })
}

/// gitmem memory records as JSON Lines, each line judged on its own (`POST /ingest`): the
/// draft of each good line and what is wrong with each bad one, in line order; blank lines
/// are skipped. `origin` is the `source` of a record that names none.
pub fn record_lines(input: &str, origin: &str) -> Vec<Result<Draft, RecordError>> {
    let input = input.strip_prefix('\u{feff}').unwrap_or(input);
    records::each_line(input, origin)
}

/// A UUID (version 8) made of the first 16 bytes of SHA-256 over `source \n key \n time`.
/// `key` is the record's own id where the format has one, else its content; `time` is its
/// creation time as written ("" when none). Ids derived this way must never change: they
/// are how a second import of the same export recognises what it imported before.
pub fn stable_id(source: &str, key: &str, time: &str) -> String {
    let digest = Sha256::new()
        .chain_update(source)
        .chain_update("\n")
        .chain_update(key)
        .chain_update("\n")
        .chain_update(time)
        .finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Uuid::new_v8(bytes).to_string()
}

/// A file stem made of a title the way Basic Memory's importers make it, so notes imported
/// by either tool get the same names: punctuation runs become `_`, other non-word
/// characters go, at most 100 characters, `untitled` when nothing is left.
fn clean_title(title: &str) -> String {
    let separator = |c: char| c.is_whitespace() || "-,.:/\\[]()".contains(c);
    let mut out = String::new();
    let mut in_run = false;
    for c in title.chars() {
        if separator(c) {
            if !in_run {
                out.push('_');
            }
            in_run = true;
        } else {
            in_run = false;
            if c.is_alphanumeric() || c == '_' {
                out.push(c);
            }
        }
    }
    let out: String = out.chars().take(100).collect();
    if out.is_empty() {
        "untitled".into()
    } else {
        out
    }
}

/// `human` → `Human`, for message headers.
fn title_case(word: &str) -> String {
    let mut chars = word.chars();
    match chars.next() {
        Some(first) => first
            .to_uppercase()
            .chain(chars.flat_map(char::to_lowercase))
            .collect(),
        None => String::new(),
    }
}

/// `text` in a fenced code block whose fence is longer than any backtick run inside it, so
/// exported code that itself holds ``` cannot end the block early.
fn fenced(info: &str, text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{info}\n{text}\n{fence}")
}

/// What one record of a JSON array export holds: its drafts and how many parts (messages,
/// documents) it had.
type Converted = Result<(Vec<Draft>, usize), RecordProblem>;

/// One kind of record of a JSON array export (Claude's chats or projects, ChatGPT's
/// conversations).
struct Kind {
    /// A record, as errors name it.
    one: &'static str,
    /// The records, as counted; also the folder their drafts go under by default.
    many: &'static str,
    /// What a record holds, as counted.
    parts: &'static str,
    convert: fn(&Map<String, Value>) -> Converted,
}

/// Converts every record, reporting each bad one as `line N: <kind> <index>: <problem>`.
fn convert(elements: &[(usize, Value)], kind: &Kind) -> Result<Parsed, Vec<RecordError>> {
    let mut drafts = Vec::new();
    let mut parts = 0;
    let mut errors = Vec::new();
    for (i, (line, value)) in elements.iter().enumerate() {
        let converted = value
            .as_object()
            .ok_or(RecordProblem::ElementNotAnObject)
            .and_then(kind.convert);
        match converted {
            Ok((mut made, n)) => {
                for draft in &mut made {
                    draft.line = *line;
                }
                drafts.append(&mut made);
                parts += n;
            }
            Err(problem) => errors.push(RecordError::new(*line, problem.within(kind.one, i + 1))),
        }
    }
    finish(
        drafts,
        errors,
        vec![(kind.many, elements.len()), (kind.parts, parts)],
        kind.many,
    )
}

/// The end of every parser: every error if there was one, else the drafts, each id once
/// (a draft whose id an earlier draft has is dropped and counted as a duplicate).
fn finish(
    drafts: Vec<Draft>,
    errors: Vec<RecordError>,
    counts: Vec<(&'static str, usize)>,
    default_folder: &'static str,
) -> Result<Parsed, Vec<RecordError>> {
    if !errors.is_empty() {
        return Err(errors);
    }
    let mut seen = HashSet::new();
    let total = drafts.len();
    let drafts: Vec<Draft> = drafts
        .into_iter()
        .filter(|d| seen.insert(d.id.clone()))
        .collect();
    Ok(Parsed {
        duplicates: total - drafts.len(),
        drafts,
        counts,
        default_folder,
    })
}

/// The metadata every draft starts with.
/// A record of an export: its line, its position when it is an element of a list (errors
/// then name it, since several may start on one line), and its value.
type Located = (usize, Option<usize>, Value);

/// The records of JSON Lines, each at its line; a line that is not JSON is an error.
fn located_lines(input: &str, errors: &mut Vec<RecordError>) -> Vec<Located> {
    json_lines(input)
        .filter_map(|record| record.map_err(|e| errors.push(e)).ok())
        .map(|(line, value)| (line, None, value))
        .collect()
}

/// The elements of a top-level JSON array, each at the line it starts on.
fn located_elements(input: &str) -> Result<Vec<Located>, Vec<RecordError>> {
    Ok(array_elements(input)?
        .into_iter()
        .enumerate()
        .map(|(i, (line, value))| (line, Some(i + 1), value))
        .collect())
}

/// The drafts of located records (line, position in a list, value), each converted by
/// `convert`; a record that does not convert is an error at its line, naming it by its
/// position (`<what> <n>`) where several share a line.
fn located_drafts(
    records: &[Located],
    what: &'static str,
    convert: impl Fn(&Value) -> Result<Draft, RecordProblem>,
    errors: &mut Vec<RecordError>,
) -> Vec<Draft> {
    let mut drafts = Vec::new();
    for (line, position, value) in records {
        match convert(value) {
            Ok(mut draft) => {
                draft.line = *line;
                drafts.push(draft);
            }
            Err(problem) => {
                let problem = match position {
                    Some(n) => problem.within(what, *n),
                    None => problem,
                };
                errors.push(RecordError::new(*line, problem));
            }
        }
    }
    drafts
}

fn id_and_source(id: &str, source: &str) -> Map<String, Value> {
    let mut metadata = Map::new();
    metadata.insert("id".into(), Value::String(id.into()));
    metadata.insert("source".into(), Value::String(source.into()));
    metadata
}

/// serde_json's message for a syntax error, with the column but without its line, which
/// the caller reports as the record's line.
fn syntax_error(e: &serde_json::Error) -> RecordProblem {
    let full = e.to_string();
    let position = format!(" at line {} column {}", e.line(), e.column());
    RecordProblem::Syntax {
        message: full.strip_suffix(&position).unwrap_or(&full).to_string(),
        column: e.column(),
    }
}

/// The records of a JSON Lines input with their line numbers; blank lines are skipped.
fn json_lines(input: &str) -> impl Iterator<Item = Result<(usize, Value), RecordError>> + '_ {
    input
        .lines()
        .enumerate()
        .filter(|(_, text)| !text.trim().is_empty())
        .map(|(i, text)| {
            serde_json::from_str(text)
                .map(|value| (i + 1, value))
                .map_err(|e| RecordError::new(i + 1, syntax_error(&e)))
        })
}

/// The elements of an input that must be one JSON array, each with the line it starts on.
fn array_elements(input: &str) -> Result<Vec<(usize, Value)>, Vec<RecordError>> {
    let value: Value = serde_json::from_str(input)
        .map_err(|e| vec![RecordError::new(e.line().max(1), syntax_error(&e))])?;
    let Value::Array(items) = value else {
        return Err(vec![RecordError::new(1, RecordProblem::NotAnArray)]);
    };
    let lines = element_lines(input);
    Ok(items
        .into_iter()
        .enumerate()
        .map(|(i, item)| (lines.get(i).copied().unwrap_or(1), item))
        .collect())
}

/// The line each element of a well-formed top-level JSON array starts on. serde_json's
/// values forget where they were, and an error in the 300th conversation should say where
/// to look.
fn element_lines(input: &str) -> Vec<usize> {
    let mut lines = Vec::new();
    let mut line = 1;
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    let mut expecting = false;
    // Every character that matters is ASCII, and no byte of a multi-byte UTF-8 character is.
    for &b in input.as_bytes() {
        if b == b'\n' {
            line += 1;
        }
        if in_string {
            match b {
                _ if escaped => escaped = false,
                b'\\' => escaped = true,
                b'"' => in_string = false,
                _ => {}
            }
            continue;
        }
        if b.is_ascii_whitespace() {
            continue;
        }
        if depth == 1 && expecting && b != b']' {
            lines.push(line);
            expecting = false;
        }
        match b {
            b'"' => in_string = true,
            b'[' | b'{' => {
                depth += 1;
                expecting = depth == 1;
            }
            b']' | b'}' => depth = depth.saturating_sub(1),
            b',' if depth == 1 => expecting = true,
            _ => {}
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where each draft goes, for the tables of the parsers' tests: (folder, file stem, title,
    /// line).
    pub(super) fn placed(parsed: &Parsed) -> Vec<(&str, &str, &str, usize)> {
        parsed
            .drafts
            .iter()
            .map(|d| {
                (
                    d.folder.as_str(),
                    d.file_stem.as_str(),
                    d.title.as_str(),
                    d.line,
                )
            })
            .collect()
    }

    /// What a conversation export becomes, checked to be notes of type `conversation` at the
    /// top of the `conversations` folder: (file stem, title, line) each.
    pub(super) fn conversations(parsed: &Parsed) -> Vec<(&str, &str, usize)> {
        assert_eq!(parsed.default_folder, "conversations");
        parsed
            .drafts
            .iter()
            .map(|d| {
                assert_eq!(
                    (d.folder.as_str(), d.note_type.as_str()),
                    ("", "conversation")
                );
                (d.file_stem.as_str(), d.title.as_str(), d.line)
            })
            .collect()
    }

    /// Each draft's body, in order.
    pub(super) fn bodies(parsed: &Parsed) -> Vec<&str> {
        parsed.drafts.iter().map(|d| d.body.as_str()).collect()
    }

    /// The problems a parser reports for input it refuses, as its messages read.
    pub(super) fn refused(parsed: Result<Parsed, Vec<RecordError>>) -> Vec<String> {
        let errors = parsed.unwrap_err();
        errors.iter().map(ToString::to_string).collect()
    }

    #[test]
    fn stable_ids_are_fixed_forever() {
        // Computed independently (Python: sha256, first 16 bytes, version 8 and RFC 4122
        // variant bits); a change here would make every re-import create duplicates.
        let cases = [
            (
                (
                    "claude",
                    "5f1c2a7e-8b3d-4e6f-9a01-2b3c4d5e6f70",
                    "2025-01-14T09:30:12.345678Z",
                ),
                "c8963f9b-b2ff-83cc-b3dd-6856ff2ed54f",
            ),
            (
                ("memory-json", "person/Alice Smith", ""),
                "2ed1fcef-ea9f-80c7-8286-03e9eb18b10a",
            ),
        ];
        for ((source, key, time), id) in cases {
            assert_eq!(stable_id(source, key, time), id, "{source} {key}");
        }
    }

    #[test]
    fn each_part_of_a_stable_id_changes_it() {
        let base = stable_id("claude", "k", "t");
        for other in [
            stable_id("chatgpt", "k", "t"),
            stable_id("claude", "k2", "t"),
            stable_id("claude", "k", "t2"),
            // The separator keeps parts from running into each other.
            stable_id("claude", "k\nt", ""),
        ] {
            assert_ne!(base, other);
        }
    }

    #[test]
    fn titles_clean_as_basic_memory_cleans_them() {
        let long = "a".repeat(150);
        let cases = [
            ("Planning the search rewrite", "Planning_the_search_rewrite"),
            ("Q&A: what's next? (v2.0)", "QA_whats_next_v2_0_"),
            ("a - b , c", "a_b_c"),
            ("path/to\\file [draft]", "path_to_file_draft_"),
            ("Café ünïcode 日本語", "Café_ünïcode_日本語"),
            ("snake_case_kept", "snake_case_kept"),
            ("", "untitled"),
            ("?!*", "untitled"),
            (long.as_str(), &long[..100]),
        ];
        for (title, clean) in cases {
            assert_eq!(clean_title(title), clean, "{title:?}");
        }
    }

    #[test]
    fn fences_outgrow_the_backticks_they_hold() {
        let cases = [
            ("python", "print(1)", "```python\nprint(1)\n```"),
            ("", "x = `y`", "```\nx = `y`\n```"),
            ("md", "```\ncode\n```", "````md\n```\ncode\n```\n````"),
        ];
        for (info, text, block) in cases {
            assert_eq!(fenced(info, text), block);
        }
    }

    #[test]
    fn array_elements_are_found_on_their_lines() {
        let cases: [(&str, &[usize]); 6] = [
            ("[]", &[]),
            ("[1, 2,\n3]", &[1, 1, 2]),
            (
                "[\n  {\"a\": [1, {\"b\": 2}]},\n  {\"c\": \"]},{\"}\n]",
                &[2, 3],
            ),
            // Escaped quotes and backslashes do not end a string early.
            ("[\n\"say \\\"[\\\"\",\n\"x\\\\\",\n  null\n]", &[2, 3, 4]),
            ("[\n\n  [1,\n2],\n  \"\u{e9}\\n\"\n]", &[3, 5]),
            ("  [ {} ,{}\n,{}]", &[1, 1, 2]),
        ];
        for (input, lines) in cases {
            assert_eq!(element_lines(input), lines, "{input:?}");
        }
    }

    #[test]
    fn a_document_that_is_not_an_array_fails_where_it_fails() {
        let cases = [
            ("{\"a\": 1}", 1, "expected a JSON array"),
            (
                "[\n{\"a\": 1},\n{\"a\" 2}\n]",
                3,
                "not valid JSON: expected `:` at column 6",
            ),
            (
                "",
                1,
                "not valid JSON: EOF while parsing a value at column 0",
            ),
        ];
        for (input, line, message) in cases {
            let errors = array_elements(input).unwrap_err();
            let found: Vec<(usize, String)> = errors
                .iter()
                .map(|e| (e.line, e.problem.to_string()))
                .collect();
            assert_eq!(found, [(line, message.to_string())], "{input:?}");
        }
    }

    #[test]
    fn errors_name_their_line_and_come_in_line_order() {
        let error = RecordError::new(
            3,
            RecordProblem::Syntax {
                message: "expected value".into(),
                column: 1,
            },
        );
        assert_eq!(
            error.to_string(),
            "line 3: not valid JSON: expected value at column 1"
        );
        let input = "{\"type\":\"relation\",\"from\":\"a\"}\n\nnot json\n";
        let lines: Vec<usize> = parse(Source::MemoryJson, input)
            .unwrap_err()
            .iter()
            .map(|e| e.line)
            .collect();
        assert_eq!(lines, [1, 3]);
    }

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_input() {
        let parsed = parse(Source::Records, "\u{feff}{\"content\": \"x\"}\n").unwrap();
        assert_eq!(parsed.drafts.len(), 1);
    }
}
