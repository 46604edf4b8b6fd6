//! Basic Memory's wire shapes, as snapshots: the text and JSON a client reads from the main
//! tools, on one fixed scenario, compared with `tests/snapshots/*.txt`. A changed shape fails
//! with a diff; `GITMEM_BLESS=1 cargo test --release --test tools snapshots` rewrites the files
//! after a deliberate change. Times, dates and ids that differ from run to run are replaced by
//! placeholders first; everything else is compared byte for byte.

use std::path::Path;
use std::sync::LazyLock;

use regex::Regex;
use serde_json::{json, Value};

use crate::common::workspace_root;
use crate::harness::{Harness, ReplyExt};

/// The run-dependent parts of an answer, with what replaces them.
static VOLATILE: LazyLock<Vec<(Regex, &str)>> = LazyLock::new(|| {
    let patterns = [
        (
            r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?",
            "<time>",
        ),
        (r"\d{4}-\d{2}-\d{2}", "<date>"),
        (
            r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}",
            "<uuid>",
        ),
        (r"\b1\d{12}\b", "<ms>"),
        (r"-?\d+\.\d{3,}(e-?\d+)?", "<float>"),
    ]
    .map(|(pattern, placeholder)| (Regex::new(pattern).unwrap(), placeholder));
    // The root first: a path may hold digits that look like a number.
    std::iter::once((temporary_root(), "<root>"))
        .chain(patterns)
        .collect()
});

/// A temporary data root, wherever the system keeps temporary files.
fn temporary_root() -> Regex {
    let temp = std::env::temp_dir();
    let temp = temp.to_string_lossy();
    Regex::new(&format!(
        r#"{}/[^\s/"]+"#,
        regex::escape(temp.trim_end_matches('/'))
    ))
    .unwrap()
}

fn stable(text: &str) -> String {
    VOLATILE
        .iter()
        .fold(text.to_string(), |text, (pattern, placeholder)| {
            pattern.replace_all(&text, *placeholder).into_owned()
        })
}

/// Compares `actual` with the file at `path`, or writes it there under `GITMEM_BLESS=1`: the
/// check of every generated or recorded text of the tests (snapshots, docs/tools.md).
pub(crate) fn assert_file(path: &Path, actual: &str) {
    if std::env::var_os("GITMEM_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(path).unwrap_or_default();
    if expected != actual {
        panic!(
            "{} is not what the code makes now (rerun the test with GITMEM_BLESS=1 to rewrite it, \
             if the change is meant):\n{}",
            path.display(),
            diffy::create_patch(&expected, actual)
        );
    }
}

/// Compares `actual`, made stable, with the snapshot `name`.
fn assert_snapshot(name: &str, actual: &str) {
    let path = workspace_root()
        .join("tests/snapshots")
        .join(format!("{name}.txt"));
    assert_file(&path, &stable(actual));
}

fn pretty(value: &Value) -> String {
    serde_json::to_string_pretty(value).unwrap()
}

/// Three notes that link to each other, with observations, tags and a relation left
/// unresolved, written through write_note as a client writes them.
fn scenario() -> Harness {
    let h = Harness::new();
    h.write_with(
        "Linked folders",
        "concepts",
        "A linked folder is read in place.\n\n## Observations\n- [design] Files are never \
         rewritten behind the user #obsidian\n- [limit] Polled with jitter\n\n## Relations\n\
         - part_of [[Knowledge base]]\n- relates_to [[Checksums]]\n- inspired_by [[Obsidian]]\n",
        json!({"tags": ["links", "design"]}),
    );
    h.write(
        "Knowledge base",
        "concepts",
        "The notes of a project.\n\n## Observations\n- [fact] Markdown files with front matter\n\n\
         ## Relations\n- contains [[Linked folders]]\n",
    );
    h.write(
        "Checksums",
        "concepts",
        "Each file version is known by its checksum.\n\n- [fact] SHA-256 of the bytes\n",
    );
    h
}

#[test]
fn write_note_and_read_note_answer_basic_memorys_text() {
    let h = Harness::new();
    let written = h.text(
        "write_note",
        json!({"title": "Plan", "directory": "work", "content": "# Plan\n\n- [goal] Ship #q1\n\n- depends_on [[Budget]]\n", "tags": "a,b"}),
    );
    assert_snapshot("write_note_created", &written);
    let read = h.text("read_note", json!({"identifier": "work/plan"}));
    assert_snapshot("read_note", &read);
    let missing = h.text("read_note", json!({"identifier": "no such note"}));
    assert_snapshot("read_note_not_found", &missing);
}

#[test]
fn search_notes_answers_basic_memorys_json() {
    let h = scenario();
    let found = h.json("search_notes", json!({"query": "linked folder"}));
    assert_snapshot("search_notes_json", &pretty(&found));
    let text = h.text("search_notes", json!({"query": "checksum"}));
    assert_snapshot("search_notes_text", &text);
}

#[test]
fn build_context_answers_basic_memorys_graph_context() {
    let h = scenario();
    let context = h.json(
        "build_context",
        json!({"url": "memory://concepts/linked-folders", "depth": 1}),
    );
    assert_snapshot("build_context_json", &pretty(&context));
}

#[test]
fn listing_and_editing_answer_basic_memorys_text() {
    let h = scenario();
    let listing = h.text("list_directory", json!({"dir_name": "/concepts"}));
    assert_snapshot("list_directory", &listing);
    let edited = h.text(
        "edit_note",
        json!({"identifier": "concepts/checksums", "operation": "append", "content": "- [fact] Compared before every write\n"}),
    );
    assert_snapshot("edit_note_append", &edited);
    let projects = h.text("list_memory_projects", json!({}));
    assert_snapshot("list_memory_projects", &projects);
}

#[test]
fn the_official_memory_servers_graph_answers_keep_their_shape() {
    let h = scenario().serving_tools("all");
    let reply = h
        .call("open_nodes", json!({"names": ["Linked folders"]}))
        .ok();
    assert_snapshot("open_nodes", &reply.text());
}

#[test]
fn the_placeholders_cover_only_what_changes_between_runs() {
    assert_eq!(
        stable("created 2026-12-07T19:40:01.123Z, day 2026-12-07, id 0f8fad5b-d9cb-469f-a165-70867728950e, at 1765136401123 ms, score 0.123456, count 12, version 1.5"),
        "created <time>, day <date>, id <uuid>, at <ms> ms, score <float>, count 12, version 1.5"
    );
}
