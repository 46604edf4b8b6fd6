//! What an import writes is indexed by the import itself: each export's notes are found by
//! search at once, with no sync (no watcher runs in process).

use std::path::Path;

use gitmem::import::Source;
use gitmem::service::import::ImportOptions;
use gitmem::service::scope::ProjectChoice;
use serde_json::json;

use crate::Harness;

#[test]
fn imported_notes_are_found_by_search_without_a_sync() {
    let cases = [
        (
            Source::MemoryJson,
            "memory.jsonl",
            "speaks German",
            "Alice Smith",
        ),
        (
            Source::Claude,
            "claude-conversations.json",
            "split indexing from querying",
            "Planning the search rewrite",
        ),
        (
            Source::Claude,
            "claude-projects.json",
            "teams pay per seat",
            "Pricing notes",
        ),
        (
            Source::ChatGpt,
            "chatgpt-conversations.json",
            "TTL valid",
            "Parsing ISO durations",
        ),
        (
            Source::Records,
            "memories.jsonl",
            "dark mode",
            "Editor theme",
        ),
    ];
    for (source, fixture, words, title) in cases {
        let h = Harness::new();
        let file = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/import")
            .join(fixture);
        let report = h
            .app()
            .import_file(
                &ProjectChoice::named(None),
                source,
                &file,
                &ImportOptions::default(),
                &|_, _| {},
            )
            .unwrap();
        assert!(!report.created.is_empty(), "{fixture}");
        let found = h.json("search_notes", json!({"query": words}));
        let titles: Vec<&str> = found["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["title"].as_str())
            .collect();
        assert!(
            titles.contains(&title),
            "{fixture}: {words:?} found {titles:?}"
        );
    }
}
