//! read_note's line reads (Basic Memory 0.24): `start_line`/`end_line` number the whole file,
//! front matter included, and name the next range, so that an agent reads a long note in
//! pieces.

use serde_json::{json, Value};

use crate::{Harness, ReplyExt};

/// A note of 13 lines: 5 of front matter, a blank, a title line, a blank and 5 numbered lines.
fn thirteen_lines() -> Harness {
    let h = Harness::new();
    let body = "# Long\n\nline 1\nline 2\nline 3\nline 4\nline 5";
    h.write("Long", "docs", body);
    let text = std::fs::read_to_string(h.main_dir().join("docs/Long.md")).unwrap();
    assert_eq!(note::lines::document_lines(&text).len(), 13, "{text}");
    h
}

#[test]
fn line_reads_number_the_whole_file_and_name_the_next_range() {
    let h = thirteen_lines();
    let text = h.text(
        "read_note",
        json!({"identifier": "docs/long", "start_line": 1, "end_line": 3}),
    );
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("Lines 1-3 of 13 (document, including frontmatter); next: start_line=4, end_line=6")
    );
    assert_eq!(lines.next(), Some("1: ---"));
    assert!(
        lines.next().unwrap().starts_with("2: title: Long"),
        "{text}"
    );
    let json = h.json(
        "read_note",
        json!({"identifier": "docs/long", "start_line": 11}),
    );
    assert_eq!(json["content"], "line 3\nline 4\nline 5", "{json}");
    assert_eq!(
        (
            &json["start_line"],
            &json["end_line"],
            &json["total_lines"],
            &json["has_more"]
        ),
        (&json!(11), &json!(13), &json!(13), &json!(false))
    );
    assert_eq!(json["next_start_line"], Value::Null);
    assert_eq!(json["checksum"].as_str().unwrap().len(), 64);
    let end_only = h.json(
        "read_note",
        json!({"identifier": "docs/long", "end_line": 2}),
    );
    assert_eq!(end_only["start_line"], 1);
    assert_eq!(end_only["next_start_line"], 3);
    assert_eq!(end_only["next_end_line"], 4);
    let last = h.text(
        "read_note",
        json!({"identifier": "docs/long", "start_line": 13, "end_line": 99}),
    );
    assert_eq!(
        last,
        "Lines 13-13 of 13 (document, including frontmatter); EOF\n13: line 5"
    );
}

#[test]
fn bad_ranges_are_errors_that_say_why() {
    let h = thirteen_lines();
    for (args, message) in [
        (json!({"start_line": 0}), "start_line must be >= 1, got 0"),
        (
            json!({"start_line": 5, "end_line": 4}),
            "end_line must be >= start_line, got 4",
        ),
        (
            json!({"start_line": 14}),
            "start_line 14 is past the end of the document (13 lines)",
        ),
        (
            json!({"start_line": 1, "include_content": false}),
            "include_content=False cannot be combined with start_line/end_line",
        ),
    ] {
        let mut args = args;
        args["identifier"] = json!("docs/long");
        let reply = h.call("read_note", args.clone());
        assert!(reply.is_error(), "{args}: {}", reply.text());
        assert!(reply.text().contains(message), "{args}: {}", reply.text());
    }
    let missing = h
        .call(
            "read_note",
            json!({"identifier": "docs/nothing", "start_line": 1}),
        )
        .ok();
    assert!(
        missing.text().contains("Note Not Found"),
        "{}",
        missing.text()
    );
}
