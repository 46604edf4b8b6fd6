//! note_history, note_diff and restore_note in process, on a versioned default project.

use serde_json::json;

use crate::memory::refused;
use crate::{versioned, versioned_with, Harness, ReplyExt};

#[test]
fn a_note_s_versions_its_diff_and_a_restore() {
    let h = versioned();
    h.write("Plan", "work", "step one");
    // Reading the history commits what is queued, so the edit is a version of its own.
    h.json("note_history", json!({"identifier": "Plan"}));
    h.call(
        "edit_note",
        json!({"identifier": "work/plan", "operation": "append", "content": "step two"}),
    )
    .ok();

    let history = h.json("note_history", json!({"identifier": "Plan"}));
    let versions = history["versions"].as_array().unwrap();
    assert_eq!(versions.len(), 2, "{history}");
    assert_eq!(history["path"], "work/Plan.md");
    assert_eq!(history["exists"], true);
    assert!(versions[0]["message"]
        .as_str()
        .unwrap()
        .starts_with("fix(mem): update Plan"));
    assert_eq!(
        h.json("note_history", json!({"identifier": "Plan", "limit": 1}))["versions"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    let diff = h.text("note_diff", json!({"identifier": "work/plan"}));
    assert!(diff.contains("+step two"), "{diff}");

    let first = versions[1]["commit"].as_str().unwrap();
    let restored = h.json(
        "restore_note",
        json!({"identifier": "work/plan", "version": first}),
    );
    assert_eq!(restored["existed"], true, "{restored}");
    assert_eq!(restored["restored_from"], first);
    let read = h.text("read_note", json!({"identifier": "work/plan"}));
    assert!(
        read.contains("step one") && !read.contains("step two"),
        "{read}"
    );
    let after = h.json("note_history", json!({"identifier": "Plan"}));
    assert!(after["versions"][0]["message"]
        .as_str()
        .unwrap()
        .starts_with("fix(mem): restore Plan"));
}

#[test]
fn a_note_written_and_edited_within_one_batch_is_one_addition() {
    // A batch window no test run outlasts: both changes fall in it.
    let h = versioned_with(&["commit_batch_ms = 600000"]);
    h.write("Quick", "work", "first");
    h.call(
        "edit_note",
        json!({"identifier": "work/quick", "operation": "append", "content": "second"}),
    )
    .ok();
    let history = h.json("note_history", json!({"identifier": "Quick"}));
    let messages: Vec<&str> = history["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v["message"].as_str().unwrap())
        .collect();
    assert_eq!(messages, ["feat(mem): add Quick"], "{history}");
}

#[test]
fn history_tools_explain_what_they_cannot_do() {
    let h = versioned();
    h.write("Plan", "work", "step one");
    let start = h.json("note_history", json!({"identifier": "Plan"}))["versions"][0]["commit"]
        .as_str()
        .unwrap()
        .to_string();
    let plain = Harness::new();
    plain.write("Plain", "d", "x");
    let cases = [
        (
            &plain,
            "note_history",
            json!({"identifier": "d/plain"}),
            "is not versioned",
        ),
        (
            &h,
            "note_history",
            json!({"identifier": "nothing here"}),
            "no note 'nothing here'",
        ),
        (
            &h,
            "note_diff",
            json!({"identifier": "Plan", "from": "not-a-commit"}),
            "no such version: 'not-a-commit'",
        ),
        (&h, "restore_note", json!({"identifier": "Plan"}), "version"),
        (
            &h,
            "restore_note",
            json!({"identifier": "Plan", "version": format!("{start}~1")}),
            "did not exist in version",
        ),
    ];
    for (harness, tool, args, expected) in cases {
        refused(harness, tool, args, expected);
    }
}
