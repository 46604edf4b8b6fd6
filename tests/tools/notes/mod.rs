//! The life of a note: write_note, read_note, view_note, edit_note, move_note, delete_note and
//! read_content, and how files written by other programs are indexed.

mod lines;
mod revisions;

use std::fs;

use serde_json::json;

use crate::{write_test_note, Harness, ReplyExt};

/// Compat 13, items 2 to 5.
#[test]
fn a_note_is_written_guarded_against_overwrites_sanitised_and_read_by_any_identifier() {
    let h = Harness::new();
    let main = h.main_dir();

    // 2: file and permalink
    let created = write_test_note(&h);
    assert!(created.starts_with("# Created note\n"), "{created}");
    assert!(created.contains("file_path: test/Test Note.md"));
    assert!(created.contains("permalink: main/test/test-note"));
    assert!(created.contains("## Tags\n- test, documentation"));
    assert!(created.ends_with("[Session: Using project 'main']"));
    let expected_bytes = "---\ntitle: Test Note\ntype: note\npermalink: main/test/test-note\ntags:\n- test\n- documentation\n---\n\n# Test\nThis is a test note";
    assert_eq!(
        fs::read_to_string(main.join("test/Test Note.md")).unwrap(),
        expected_bytes
    );

    // 3: overwrite guard, twins, overwrite keeping extra keys
    // A refusal is an error result (Basic Memory 0.24 raises it).
    let again = h.call(
        "write_note",
        json!({"title": "Test Note", "directory": "test", "content": "# Test\nThis is a test note", "tags": ["test", "documentation"]}),
    );
    assert!(again.is_error());
    let again = again.text();
    assert!(again.starts_with("# Error: Note already exists"), "{again}");
    assert_eq!(
        fs::read_to_string(main.join("test/Test Note.md")).unwrap(),
        expected_bytes
    );
    let twin = h
        .call(
            "write_note",
            json!({"title": "test-note", "directory": "test", "content": "x"}),
        )
        .text();
    assert!(twin.starts_with("# Error: Note already exists"), "{twin}");
    let with_extra = expected_bytes.replace("tags:", "status: draft\ntags:");
    fs::write(main.join("test/Test Note.md"), &with_extra).unwrap();
    let updated = h.text(
        "write_note",
        json!({"title": "Test Note", "directory": "test", "content": "# Test\nnew body", "overwrite": true}),
    );
    assert!(updated.starts_with("# Updated note"), "{updated}");
    assert!(updated.contains("permalink: main/test/test-note"));
    let text = fs::read_to_string(main.join("test/Test Note.md")).unwrap();
    assert!(
        text.contains("status: draft"),
        "extra keys survive an overwrite: {text}"
    );
    assert!(text.ends_with("# Test\nnew body"));

    // 4: title sanitisation and refused directories
    let coupon = h
        .call("write_note", json!({"title": "Coupon Enable/Disable: v2.0?", "directory": "/", "content": "x", "output_format": "json"}))
        .ok()
        .json();
    assert_eq!(coupon["file_path"], "Coupon Enable-Disable- v2.0.md");
    assert_eq!(coupon["permalink"], "main/coupon-enable-disable-v2.0");
    assert_eq!(coupon["action"], "created");
    let coupon_text = fs::read_to_string(main.join("Coupon Enable-Disable- v2.0.md")).unwrap();
    assert!(
        coupon_text.contains("title: 'Coupon Enable/Disable: v2.0?'"),
        "{coupon_text}"
    );
    for bad in ["../etc", "/notes"] {
        let refused = h.refused(
            "write_note",
            json!({"title": "x", "directory": bad, "content": "x"}),
        );
        assert!(
            refused.starts_with("# Error") && refused.contains("not allowed"),
            "{bad}: {refused}"
        );
    }

    // 5: read_note by every identifier form
    let file = fs::read_to_string(main.join("test/Test Note.md")).unwrap();
    for identifier in [
        "test/test-note",
        "main/test/test-note",
        "memory://test/test-note",
        "Test Note",
        "test note",
        "test/Test Note.md",
    ] {
        assert_eq!(
            h.text("read_note", json!({"identifier": identifier})),
            file,
            "{identifier}"
        );
    }
    let missing = h.text("read_note", json!({"identifier": "zzz nothing"}));
    assert!(
        missing.starts_with("\n# Note Not Found in main: \"zzz nothing\""),
        "{missing}"
    );
}

#[test]
fn view_note_asks_the_client_to_display_the_note_as_an_artifact() {
    let h = Harness::new();
    h.write("Viewed", "v", "viewed body");
    let file = fs::read_to_string(h.main_dir().join("v/Viewed.md")).unwrap();
    assert_eq!(
        h.text("view_note", json!({"identifier": "v/viewed"})),
        format!("Note retrieved: \"Viewed\"\n\nDisplay this note as a markdown artifact for the user.\n\nContent:\n---\n{file}\n---")
    );
    let missing = h.text("view_note", json!({"identifier": "zzz nothing"}));
    assert!(
        missing.starts_with("\n# Note Not Found in main: \"zzz nothing\""),
        "{missing}"
    );
    let refused = h.call("view_note", json!({}));
    assert!(
        refused.is_error() && refused.text().contains("'view_note'"),
        "errors name the tool called: {}",
        refused.text()
    );
}

/// Compat 13, item 11.
#[test]
fn edit_note_replaces_and_inserts_sections_and_creates_missing_notes() {
    let h = Harness::new();
    let main = h.main_dir();
    let doc = "# Doc\n\n## A\na\n\n### A1\nsub\n\n## B\nb";
    let reset = || {
        h.call(
            "write_note",
            json!({"title": "Doc", "directory": "e", "content": doc, "overwrite": true}),
        )
        .ok();
    };
    let body = || {
        let text = fs::read_to_string(main.join("e/Doc.md")).unwrap();
        text[text.find("# Doc").unwrap()..].to_string()
    };
    reset();
    let out = h.text("edit_note", json!({"identifier": "e/doc", "operation": "replace_section", "section": "## A", "content": "new"}));
    assert!(out.starts_with("# Edited note (replace_section)"), "{out}");
    assert!(out.contains("operation: Replaced content under section '## A'"));
    assert!(
        body().contains("## A\nnew\n## B") && !body().contains("### A1"),
        "{}",
        body()
    );

    reset();
    h.text("edit_note", json!({"identifier": "e/doc", "operation": "replace_section", "section": "## A", "content": "new", "replace_subsections": false}));
    assert!(body().contains("### A1"), "{}", body());

    // A missing heading is refused and nothing is appended (Basic Memory 0.24).
    reset();
    let before = body();
    let missing = h.refused("edit_note", json!({"identifier": "e/doc", "operation": "replace_section", "section": "## Missing", "content": "added"}));
    assert!(
        missing.starts_with("# Edit Failed - Section Not Found")
            && missing.contains("Use append with a heading and content to create a new section"),
        "{missing}"
    );
    assert_eq!(body(), before);

    reset();
    h.text("edit_note", json!({"identifier": "e/doc", "operation": "insert_after_section", "section": "B", "content": "after"}));
    assert!(body().contains("## B\nafter"), "{}", body());

    let wrong = h.call("edit_note", json!({"identifier": "e/doc", "operation": "find_replace", "find_text": "a", "content": "z", "expected_replacements": 3}));
    assert!(wrong.is_error());
    let wrong = wrong.text();
    assert!(
        wrong.starts_with("# Edit Failed - Wrong Replacement Count"),
        "{wrong}"
    );

    let created = h.text(
        "edit_note",
        json!({"identifier": "inbox/new-idea", "operation": "append", "content": "first line"}),
    );
    assert!(created.contains("fileCreated: true"), "{created}");
    assert!(fs::read_to_string(main.join("inbox/new-idea.md"))
        .unwrap()
        .contains("title: new-idea"));
    let json_created = h
        .call("edit_note", json!({"identifier": "inbox/other", "operation": "prepend", "content": "x", "output_format": "json"}))
        .ok()
        .json();
    assert_eq!(json_created["fileCreated"], true);

    let bogus = h.call(
        "edit_note",
        json!({"identifier": "e/doc", "operation": "bogus", "content": "x"}),
    );
    assert!(bogus.is_error());
}

/// Compat 13, item 15.
#[test]
fn a_moved_note_keeps_its_permalink_and_is_deleted_once() {
    let h = Harness::new();
    let main = h.main_dir();
    write_test_note(&h);

    let moved = h.text(
        "move_note",
        json!({"identifier": "Test Note", "destination_path": "archive/Test Note.md"}),
    );
    assert!(moved.starts_with("✅ Note moved successfully"), "{moved}");
    assert!(main.join("archive/Test Note.md").exists() && !main.join("test/Test Note.md").exists());
    let no_ext = h.text(
        "move_note",
        json!({"identifier": "main/test/test-note", "destination_path": "archive/x"}),
    );
    assert!(
        no_ext.starts_with("# Move Failed - File Extension Required"),
        "{no_ext}"
    );
    let listing = h.text("list_directory", json!({}));
    assert!(listing.contains("📁 archive"), "{listing}");
    assert!(listing.contains("Total: "), "{listing}");
    assert_eq!(
        h.text("delete_note", json!({"identifier": "main/test/test-note"})),
        "true"
    );
    assert!(!main.join("archive/Test Note.md").exists());
    assert_eq!(
        h.text("delete_note", json!({"identifier": "main/test/test-note"})),
        "false"
    );
    let refused = h.call("delete_project", json!({"project_name": "main"}));
    assert!(
        refused.is_error()
            && refused
                .text()
                .contains("Cannot delete default project 'main'"),
        "{}",
        refused.text()
    );
}

#[test]
fn read_content_returns_text_images_and_resource_not_found() {
    let h = Harness::new();
    let main = h.main_dir();
    h.write("Doc", "docs", "# Doc\nbody");
    let text = h
        .call("read_content", json!({"path": "docs/Doc.md"}))
        .ok()
        .json();
    assert_eq!(text["type"], "text", "{text}");
    assert_eq!(
        text["text"],
        fs::read_to_string(main.join("docs/Doc.md")).unwrap()
    );
    assert!(
        text["content_type"]
            .as_str()
            .unwrap()
            .starts_with("text/markdown"),
        "{text}"
    );
    // By permalink too.
    let by_permalink = h
        .call("read_content", json!({"path": "main/docs/doc"}))
        .ok()
        .json();
    assert_eq!(by_permalink["text"], text["text"]);

    fs::create_dir_all(main.join("img")).unwrap();
    image::RgbImage::new(50, 40)
        .save(main.join("img/pic.png"))
        .unwrap();
    let img = h
        .call("read_content", json!({"path": "img/pic.png"}))
        .ok()
        .json();
    assert_eq!(img["type"], "image", "{img}");
    assert_eq!(img["source"]["type"], "base64");
    assert_eq!(img["source"]["media_type"], "image/jpeg");
    let data = img["source"]["data"].as_str().unwrap();
    assert!(
        data.starts_with("/9j/"),
        "base64 of a JPEG starts with /9j/: {}",
        &data[..20.min(data.len())]
    );

    let missing = h.call("read_content", json!({"path": "nothing/here.md"}));
    assert!(missing.is_error(), "{}", missing.text());
    assert!(
        missing.text().contains("Resource not found"),
        "{}",
        missing.text()
    );
}

/// Compat 13, items 8 to 10.
#[test]
fn files_written_by_other_programs_are_indexed_without_being_rewritten() {
    let h = Harness::new();
    let main = h.main_dir();
    let files = [
        ("docs/My Feature.md", "main/docs/my-feature"),
        ("specs/API (v2).md", "main/specs/api-v2"),
        ("Version 2.0.0.md", "main/version-2.0.0"),
        ("test/Über File.md", "main/test/uber-file"),
        ("中文/测试文档.md", "main/中文/测试文档"),
        (
            "papers/Jürgen's Findings.md",
            "main/papers/jurgens-findings",
        ),
    ];
    for (path, _) in files {
        fs::create_dir_all(main.join(path).parent().unwrap()).unwrap();
        fs::write(main.join(path), "slug test\n").unwrap();
    }
    fs::create_dir_all(main.join("ext")).unwrap();
    fs::write(
        main.join("ext/plain-note.md"),
        "# Plain Note\n\nNo frontmatter here.\n",
    )
    .unwrap();
    fs::write(
        main.join("ext/bad.md"),
        "---\ntitle: [broken\n---\nmalformed yaml body\n",
    )
    .unwrap();
    h.sync();
    for (path, permalink) in files {
        let read = h
            .call(
                "read_note",
                json!({"identifier": permalink, "output_format": "json"}),
            )
            .ok()
            .json();
        assert_eq!(read["file_path"], path, "{permalink}");
    }
    // 9: gitmem never adds front matter; the permalink lives in the index.
    assert_eq!(
        fs::read_to_string(main.join("ext/plain-note.md")).unwrap(),
        "# Plain Note\n\nNo frontmatter here.\n"
    );
    let plain = h
        .call(
            "read_note",
            json!({"identifier": "main/ext/plain-note", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(plain["title"], "plain-note");
    // Malformed YAML: indexed from its body (upstream skips the file).
    let bad = h
        .call(
            "search_notes",
            json!({"query": "malformed", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(bad["results"][0]["file_path"], "ext/bad.md");

    // 10: a duplicate permalink gets -1 in the index; a rename keeps id and permalink.
    h.text(
        "write_note",
        json!({"title": "Test Note", "directory": "test", "content": "x"}),
    );
    fs::write(
        main.join("ext/dup.md"),
        "---\npermalink: main/test/test-note\n---\nduplicate\n",
    )
    .unwrap();
    h.sync();
    assert_eq!(
        h.json("read_note", json!({"identifier": "main/test/test-note-1"}))["file_path"],
        "ext/dup.md"
    );
    assert_eq!(
        fs::read_to_string(main.join("ext/dup.md")).unwrap(),
        "---\npermalink: main/test/test-note\n---\nduplicate\n"
    );
    let before = h
        .call(
            "search_notes",
            json!({"query": "frontmatter", "output_format": "json"}),
        )
        .ok()
        .json();
    fs::rename(main.join("ext/plain-note.md"), main.join("ext/moved.md")).unwrap();
    h.sync();
    assert_eq!(
        h.json("read_note", json!({"identifier": "main/ext/plain-note"}))["file_path"],
        "ext/moved.md"
    );
    let after = h
        .call(
            "search_notes",
            json!({"query": "frontmatter", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(
        after["results"][0]["external_id"],
        before["results"][0]["external_id"]
    );
}

/// Basic Memory 0.24: edit_note's `metadata.type` changes the note's type, snake-cased as
/// write_note's `note_type`; title and permalink stay as they are.
#[test]
fn edit_note_metadata_type_changes_the_notes_type() {
    let h = Harness::new();
    h.write("Kickoff", "meetings", "agenda");
    h.call(
        "edit_note",
        json!({"identifier": "meetings/kickoff", "operation": "append", "content": "",
            "metadata": {"type": "Meeting Notes", "title": "Other", "permalink": "x/y"}}),
    )
    .ok();
    let read = h.json("read_note", json!({"identifier": "meetings/kickoff"}));
    assert_eq!(read["frontmatter"]["type"], "meeting_notes", "{read}");
    assert_eq!(read["frontmatter"]["title"], "Kickoff");
    assert_eq!(read["permalink"], "main/meetings/kickoff");
    let found = h.json(
        "search_notes",
        json!({"query": "", "note_types": ["meeting_notes"]}),
    );
    assert_eq!(found["results"][0]["title"], "Kickoff", "{found}");
    let refused = h.call(
        "edit_note",
        json!({"identifier": "meetings/kickoff", "operation": "append", "content": "x",
            "metadata": {"type": 3}}),
    );
    assert!(refused.is_error());
    assert!(
        refused.text().contains("metadata type must be a string"),
        "{}",
        refused.text()
    );
}
