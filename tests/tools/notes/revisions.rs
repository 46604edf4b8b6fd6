//! Checksummed writes (Basic Memory 0.24): read_note names a note's revision by the SHA-256 of
//! its file, and write_note or edit_note given that `expected_checksum` change the note only
//! while it is still that revision. A refused write is an MCP error and leaves the file as it
//! was.

use std::fs;
use std::sync::{Arc, Barrier};

use serde_json::{json, Value};

use crate::{Harness, ReplyExt};

/// The SHA-256 of the note file's bytes as they are on disk.
fn file_checksum(h: &Harness, relative: &str) -> String {
    vault::file::sha256_hex(&fs::read(h.main_dir().join(relative)).unwrap())
}

fn checksum_of_read(h: &Harness, identifier: &str) -> String {
    let read = h.json("read_note", json!({"identifier": identifier}));
    read["checksum"].as_str().unwrap().to_string()
}

#[test]
fn read_note_and_write_note_name_the_revision_by_the_files_full_sha256() {
    let h = Harness::new();
    let written = h.json(
        "write_note",
        json!({"title": "Plan", "directory": "work", "content": "first draft"}),
    );
    let on_disk = file_checksum(&h, "work/Plan.md");
    assert_eq!(on_disk.len(), 64);
    assert_eq!(written["checksum"], on_disk, "{written}");
    assert_eq!(checksum_of_read(&h, "work/plan"), on_disk);
    let text = h.text(
        "write_note",
        json!({"title": "Plan", "directory": "work", "content": "second", "overwrite": true}),
    );
    assert!(
        text.contains(&format!("checksum: {}", file_checksum(&h, "work/Plan.md"))),
        "{text}"
    );
    let metadata = h.json(
        "read_note",
        json!({"identifier": "work/plan", "include_content": false}),
    );
    assert_eq!(metadata["checksum"], file_checksum(&h, "work/Plan.md"));
    assert_eq!(metadata["title"], "Plan");
    assert_eq!(metadata["file_path"], "work/Plan.md");
    assert!(metadata.get("content").is_none(), "{metadata}");
    assert!(metadata["updated_at"].as_str().unwrap().starts_with("20"));
    let text = h.text(
        "read_note",
        json!({"identifier": "work/plan", "include_content": false}),
    );
    assert!(text.starts_with("# Note metadata\ntitle: Plan\n"), "{text}");
    assert!(!text.contains("second"), "no body: {text}");
}

#[test]
fn write_note_replaces_only_the_revision_it_was_given() {
    let h = Harness::new();
    h.write("Plan", "work", "first draft");
    let read = checksum_of_read(&h, "work/plan");
    // Another agent writes in between.
    h.write_with("Plan", "work", "their version", json!({"overwrite": true}));
    let theirs = fs::read_to_string(h.main_dir().join("work/Plan.md")).unwrap();
    let args = json!({"title": "Plan", "directory": "work", "content": "my version",
        "overwrite": true, "expected_checksum": read});
    let refused = h.refused_json("write_note", args.clone());
    assert_eq!(refused["error"], "NOTE_REVISION_CONFLICT", "{refused}");
    assert_eq!(
        refused["currentChecksum"],
        file_checksum(&h, "work/Plan.md")
    );
    assert_eq!(refused["checksum"], Value::Null);
    assert_eq!(refused["file_path"], "work/Plan.md");
    let after = fs::read_to_string(h.main_dir().join("work/Plan.md")).unwrap();
    assert_eq!(after, theirs, "a refused write changes nothing");
    let mut text_args = args.clone();
    text_args["output_format"] = json!("text");
    let text = h.call("write_note", text_args).text();
    assert!(
        text.starts_with("# Error: Note revision conflict"),
        "{text}"
    );
    // Retried against the current revision (any case), it goes through.
    let current = refused["currentChecksum"].as_str().unwrap().to_uppercase();
    let mut retry = args;
    retry["expected_checksum"] = json!(current);
    let done = h.json("write_note", retry);
    assert_eq!(done["action"], "updated", "{done}");
    let after = fs::read_to_string(h.main_dir().join("work/Plan.md")).unwrap();
    assert!(after.contains("my version"), "{after}");
}

#[test]
fn a_checksum_asks_for_a_replacement_never_for_a_creation() {
    let h = Harness::new();
    let reply = h.call(
        "write_note",
        json!({"title": "New", "directory": "work", "content": "x", "expected_checksum": "ab"}),
    );
    assert!(reply.is_error());
    assert!(
        reply
            .text()
            .contains("expected_checksum requires overwrite=True"),
        "{}",
        reply.text()
    );
    // A revision expected where no note is: the note was deleted after it was read.
    let refused = h.refused_json(
        "write_note",
        json!({"title": "Gone", "directory": "work", "content": "x", "overwrite": true,
            "expected_checksum": "0".repeat(64)}),
    );
    assert_eq!(refused["error"], "NOTE_REVISION_CONFLICT");
    assert_eq!(refused["currentChecksum"], Value::Null);
    assert_eq!(refused["file_path"], Value::Null);
    assert!(
        !h.main_dir().join("work/Gone.md").exists(),
        "nothing created"
    );
}

#[test]
fn edit_note_edits_only_the_revision_it_was_given() {
    let h = Harness::new();
    h.write("Log", "work", "line one");
    let read = checksum_of_read(&h, "work/log");
    h.call(
        "edit_note",
        json!({"identifier": "work/log", "operation": "append", "content": "their line"}),
    )
    .ok();
    let before = fs::read_to_string(h.main_dir().join("work/Log.md")).unwrap();
    let args = json!({"identifier": "work/log", "operation": "append", "content": "my line",
        "expected_checksum": read});
    let refused = h.refused_json("edit_note", args.clone());
    assert_eq!(refused["error"], "NOTE_REVISION_CONFLICT", "{refused}");
    assert_eq!(refused["currentChecksum"], file_checksum(&h, "work/Log.md"));
    assert_eq!(refused["title"], "Log");
    assert_eq!(
        fs::read_to_string(h.main_dir().join("work/Log.md")).unwrap(),
        before
    );
    let mut retry = args;
    retry["expected_checksum"] = refused["currentChecksum"].clone();
    let done = h.json("edit_note", retry);
    assert_eq!(done["checksum"], file_checksum(&h, "work/Log.md"));
    // append creates a missing note, but not one that was expected to exist.
    let refused = h.refused_json(
        "edit_note",
        json!({"identifier": "work/missing", "operation": "append", "content": "x",
            "expected_checksum": "0".repeat(64)}),
    );
    assert_eq!(refused["error"], "NOTE_REVISION_CONFLICT");
    assert_eq!(refused["currentChecksum"], Value::Null);
    assert!(!h.main_dir().join("work/missing.md").exists());
}

/// Two agents read the same revision and write at once: one replaces it, the other is told.
#[test]
fn of_two_writers_racing_on_one_revision_exactly_one_wins() {
    let h = Arc::new(Harness::new());
    h.write("Race", "work", "start");
    for round in 0..20 {
        let read = checksum_of_read(&h, "work/race");
        let barrier = Arc::new(Barrier::new(2));
        let writers: Vec<_> = ["left", "right"]
            .into_iter()
            .map(|who| {
                let (h, barrier, read) = (h.clone(), barrier.clone(), read.clone());
                std::thread::spawn(move || {
                    barrier.wait();
                    let content = format!("{who} {round}");
                    let reply = h.call(
                        "write_note",
                        json!({"title": "Race", "directory": "work", "content": content,
                            "overwrite": true, "expected_checksum": read, "output_format": "json"}),
                    );
                    (content, reply.is_error(), reply.text())
                })
            })
            .collect();
        let results: Vec<_> = writers.into_iter().map(|w| w.join().unwrap()).collect();
        let winners: Vec<_> = results.iter().filter(|(_, error, _)| !error).collect();
        assert_eq!(winners.len(), 1, "round {round}: {results:?}");
        for (_, error, text) in &results {
            if *error {
                assert!(text.contains("NOTE_REVISION_CONFLICT"), "{text}");
            }
        }
        let file = fs::read_to_string(h.main_dir().join("work/Race.md")).unwrap();
        assert!(
            file.contains(&winners[0].0),
            "the winner's text is the file: {file}"
        );
    }
}

/// Basic Memory 0.24 raises its write refusals: a client that reads a plain result as
/// success must not take a refused write for a done one.
#[test]
fn refused_writes_and_edits_are_error_results() {
    let h = Harness::new();
    h.write("Taken", "work", "body");
    let reply = h.call(
        "write_note",
        json!({"title": "Taken", "directory": "work", "content": "other"}),
    );
    assert!(reply.is_error());
    assert!(
        reply.text().starts_with("# Error: Note already exists"),
        "{}",
        reply.text()
    );
    let refused = h.refused_json(
        "write_note",
        json!({"title": "Taken", "directory": "work", "content": "other"}),
    );
    assert_eq!(refused["error"], "NOTE_ALREADY_EXISTS");
    assert_eq!(refused["file_path"], "work/Taken.md");
    let refused = h.refused_json(
        "edit_note",
        json!({"identifier": "work/taken", "operation": "find_replace", "find_text": "absent",
            "content": "x"}),
    );
    assert_eq!(refused["error"], "TEXT_NOT_FOUND", "{refused}");
    let reply = h.call(
        "write_note",
        json!({"title": "Out", "directory": "../outside", "content": "x"}),
    );
    assert!(reply.is_error(), "{}", reply.text());
}
