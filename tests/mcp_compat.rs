//! The 15 behaviours of compat section 13, over MCP stdio against the real binary. Where gitmem
//! deliberately differs from upstream (docs/compat.md), the test asserts gitmem's behaviour.

mod common;

use std::fs;

use common::mcp::Mcp;
use serde_json::json;

fn write_test_note(mcp: &mut Mcp) -> String {
    mcp.text(
        "write_note",
        json!({"title": "Test Note", "directory": "test", "content": "# Test\nThis is a test note", "tags": ["test", "documentation"]}),
    )
}

#[test]
fn item_01_fresh_root_has_main_as_default() {
    let dir = tempfile::tempdir().unwrap();
    let mut mcp = Mcp::start(dir.path());
    assert_eq!(mcp.initialize["serverInfo"]["name"], "Basic Memory");
    assert!(mcp.initialize["instructions"]
        .as_str()
        .unwrap()
        .contains("recent_activity"));
    let projects = mcp
        .call("list_memory_projects", json!({"output_format": "json"}))
        .ok()
        .json();
    assert_eq!(projects["projects"].as_array().unwrap().len(), 1);
    assert_eq!(projects["projects"][0]["name"], "main");
    assert_eq!(projects["projects"][0]["source"], "local");
    assert_eq!(projects["projects"][0]["is_default"], true);
    assert_eq!(projects["default_project"], "main");
    assert!(dir.path().join("projects/main").is_dir());
}

#[test]
fn items_02_to_05_write_overwrite_sanitise_read() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("projects/main");
    let mut mcp = Mcp::start(dir.path());

    // 2: file and permalink
    let created = write_test_note(&mut mcp);
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
    let again = write_test_note(&mut mcp);
    assert!(again.starts_with("# Error: Note already exists"), "{again}");
    assert_eq!(
        fs::read_to_string(main.join("test/Test Note.md")).unwrap(),
        expected_bytes
    );
    let twin = mcp.text(
        "write_note",
        json!({"title": "test-note", "directory": "test", "content": "x"}),
    );
    assert!(twin.starts_with("# Error: Note already exists"), "{twin}");
    let with_extra = expected_bytes.replace("tags:", "status: draft\ntags:");
    fs::write(main.join("test/Test Note.md"), &with_extra).unwrap();
    let updated = mcp.text(
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
    let coupon = mcp
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
        let refused = mcp.text(
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
            mcp.text("read_note", json!({"identifier": identifier})),
            file,
            "{identifier}"
        );
    }
    let missing = mcp.text("read_note", json!({"identifier": "zzz nothing"}));
    assert!(
        missing.starts_with("\n# Note Not Found in main: \"zzz nothing\""),
        "{missing}"
    );
}

#[test]
fn items_06_and_07_observations_and_relations() {
    let dir = tempfile::tempdir().unwrap();
    let mut mcp = Mcp::start(dir.path());
    let body = "- [tech] Uses SQLite FTS5 #search #db (fast enough)\n- plain bullet with #tag\n- [x] done task\n- [00:00:11] Speaker: hi\n\n> [!info] callout\n\n- implements [[Search UI]]\n- depends_on [[DB Schema]] (storage)\n- \"based on\" [[Prior Art]]\n- Added [[A]] to [[B]]\n\nSee also [[C]].";
    mcp.text(
        "write_note",
        json!({"title": "Parsing", "directory": "p", "content": body}),
    );
    let ctx = mcp
        .call(
            "build_context",
            json!({"url": "memory://p/parsing", "output_format": "json"}),
        )
        .ok()
        .json();
    let obs: Vec<(String, String)> = ctx["results"][0]["observations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["category"].as_str().unwrap().to_string(),
                o["content"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        obs,
        vec![
            ("tech".into(), "Uses SQLite FTS5 #search #db".into()),
            ("note".into(), "plain bullet with #tag".into())
        ]
    );
    let rows = mcp
        .call(
            "search_notes",
            json!({"query": "SQLite", "entity_types": ["observation"], "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(
        rows["results"][0]["title"],
        "tech: Uses SQLite FTS5 #search #db..."
    );

    let rels = mcp
        .call("search_notes", json!({"query": "Parsing", "entity_types": ["relation"], "page_size": 20, "output_format": "json"}))
        .ok()
        .json();
    let mut found: Vec<(String, Option<String>)> = rels["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["relation_type"].as_str().unwrap().to_string(),
                r["to_entity"].as_str().map(String::from),
            )
        })
        .collect();
    found.sort();
    let mut kinds: Vec<&str> = found.iter().map(|(k, _)| k.as_str()).collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            "based on",
            "depends_on",
            "implements",
            "links_to",
            "links_to",
            "links_to"
        ]
    );
    assert!(
        found.iter().all(|(_, to)| to.is_none()),
        "all unresolved: {found:?}"
    );

    // Creating "Search UI" resolves `implements`.
    mcp.text(
        "write_note",
        json!({"title": "Search UI", "directory": "specs", "content": "ui"}),
    );
    let rels = mcp
        .call("search_notes", json!({"query": "Parsing", "entity_types": ["relation"], "page_size": 20, "output_format": "json"}))
        .ok()
        .json();
    let implements = rels["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["relation_type"] == "implements")
        .unwrap();
    assert_eq!(implements["to_entity"], "main/specs/search-ui");
    assert_eq!(implements["title"], "Parsing -> Search UI");
}

#[test]
fn items_08_to_10_files_on_disk_are_indexed_without_being_rewritten() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("projects/main");
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
    let mut mcp = Mcp::start(dir.path());
    assert!(common::mcp::eventually(
        std::time::Duration::from_secs(10),
        || {
            mcp.text("sync_status", json!({}))
                .contains("Your knowledge base is ready for use!")
        }
    ));
    for (path, permalink) in files {
        let read = mcp
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
    let plain = mcp
        .call(
            "read_note",
            json!({"identifier": "main/ext/plain-note", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(plain["title"], "plain-note");
    // Malformed YAML: indexed from its body (upstream skips the file).
    let bad = mcp
        .call(
            "search_notes",
            json!({"query": "malformed", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(bad["results"][0]["file_path"], "ext/bad.md");

    // 10: a duplicate permalink gets -1 in the index; a rename keeps id and permalink.
    mcp.text(
        "write_note",
        json!({"title": "Test Note", "directory": "test", "content": "x"}),
    );
    fs::write(
        main.join("ext/dup.md"),
        "---\npermalink: main/test/test-note\n---\nduplicate\n",
    )
    .unwrap();
    assert!(common::mcp::eventually(
        std::time::Duration::from_secs(5),
        || {
            mcp.call(
                "read_note",
                json!({"identifier": "main/test/test-note-1", "output_format": "json"}),
            )
            .json()["file_path"]
                == "ext/dup.md"
        }
    ));
    assert_eq!(
        fs::read_to_string(main.join("ext/dup.md")).unwrap(),
        "---\npermalink: main/test/test-note\n---\nduplicate\n"
    );
    let before = mcp
        .call(
            "search_notes",
            json!({"query": "frontmatter", "output_format": "json"}),
        )
        .ok()
        .json();
    fs::rename(main.join("ext/plain-note.md"), main.join("ext/moved.md")).unwrap();
    assert!(common::mcp::eventually(
        std::time::Duration::from_secs(5),
        || {
            mcp.call(
                "read_note",
                json!({"identifier": "main/ext/plain-note", "output_format": "json"}),
            )
            .json()["file_path"]
                == "ext/moved.md"
        }
    ));
    let after = mcp
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

#[test]
fn item_11_edit_note_operations() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("projects/main");
    let mut mcp = Mcp::start(dir.path());
    let doc = "# Doc\n\n## A\na\n\n### A1\nsub\n\n## B\nb";
    let reset = |mcp: &mut Mcp| {
        mcp.call(
            "write_note",
            json!({"title": "Doc", "directory": "e", "content": doc, "overwrite": true}),
        )
        .ok();
    };
    let body = || {
        let text = fs::read_to_string(main.join("e/Doc.md")).unwrap();
        text[text.find("# Doc").unwrap()..].to_string()
    };
    reset(&mut mcp);
    let out = mcp.text("edit_note", json!({"identifier": "e/doc", "operation": "replace_section", "section": "## A", "content": "new"}));
    assert!(out.starts_with("# Edited note (replace_section)"), "{out}");
    assert!(out.contains("operation: Replaced content under section '## A'"));
    assert!(
        body().contains("## A\nnew\n## B") && !body().contains("### A1"),
        "{}",
        body()
    );

    reset(&mut mcp);
    mcp.text("edit_note", json!({"identifier": "e/doc", "operation": "replace_section", "section": "## A", "content": "new", "replace_subsections": false}));
    assert!(body().contains("### A1"), "{}", body());

    reset(&mut mcp);
    mcp.text("edit_note", json!({"identifier": "e/doc", "operation": "replace_section", "section": "## Missing", "content": "added"}));
    assert!(body().ends_with("\n\n## Missing\nadded"), "{:?}", body());

    reset(&mut mcp);
    mcp.text("edit_note", json!({"identifier": "e/doc", "operation": "insert_after_section", "section": "B", "content": "after"}));
    assert!(body().contains("## B\nafter"), "{}", body());

    let wrong = mcp.text("edit_note", json!({"identifier": "e/doc", "operation": "find_replace", "find_text": "a", "content": "z", "expected_replacements": 3}));
    assert!(
        wrong.starts_with("# Edit Failed - Wrong Replacement Count"),
        "{wrong}"
    );

    let created = mcp.text(
        "edit_note",
        json!({"identifier": "inbox/new-idea", "operation": "append", "content": "first line"}),
    );
    assert!(created.contains("fileCreated: true"), "{created}");
    assert!(fs::read_to_string(main.join("inbox/new-idea.md"))
        .unwrap()
        .contains("title: new-idea"));
    let json_created = mcp
        .call("edit_note", json!({"identifier": "inbox/other", "operation": "prepend", "content": "x", "output_format": "json"}))
        .ok()
        .json();
    assert_eq!(json_created["fileCreated"], true);

    let bogus = mcp.call(
        "edit_note",
        json!({"identifier": "e/doc", "operation": "bogus", "content": "x"}),
    );
    assert!(bogus.is_error);
}

#[test]
fn items_12_to_15_search_context_activity_move_delete() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("projects/main");
    let mut mcp = Mcp::start(dir.path());
    write_test_note(&mut mcp);

    // 12: search
    let text = mcp.text("search_notes", json!({"query": "search"}));
    assert!(
        text.starts_with("No results found for 'search' in project 'main'"),
        "{text}"
    );
    let text = mcp.text("search_notes", json!({"query": "test"}));
    assert!(
        text.starts_with("# Search Results: test\n*project: main*"),
        "{text}"
    );
    let json = mcp
        .call(
            "search_notes",
            json!({"query": "test", "output_format": "json"}),
        )
        .ok()
        .json();
    let first = &json["results"][0];
    assert_eq!(first["type"], "entity");
    assert!(first["score"].as_f64().unwrap() <= 0.0);
    assert_eq!(first["permalink"], "main/test/test-note");
    assert_eq!(first["file_path"], "test/Test Note.md");
    assert!(first["external_id"].is_string());
    assert_eq!(json["total_is_exact"], true);
    assert!(mcp
        .text("search_notes", json!({}))
        .starts_with("# No Search Criteria"));
    let by_permalink = mcp
        .call(
            "search_notes",
            json!({"query": "main/test/*", "search_type": "permalink", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(by_permalink["total"], 1);
    // gitmem also accepts the pattern without the project prefix (upstream finds nothing).
    let short = mcp
        .call(
            "search_notes",
            json!({"query": "test/*", "search_type": "permalink", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(short["total"], 1);
    let tagged = mcp
        .call(
            "search_notes",
            json!({"tags": "test", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(tagged["total"], 1);
    let failed = mcp.text(
        "search_notes",
        json!({"query": "x", "search_type": "bogus"}),
    );
    assert!(
        failed.starts_with("# Search Failed")
            && failed.contains("Valid options: hybrid, permalink, semantic, text, title, vector"),
        "{failed}"
    );

    // 13: build_context
    let ctx_text = mcp.text(
        "build_context",
        json!({"url": "memory://test/test-note", "output_format": "text"}),
    );
    assert!(ctx_text.starts_with("# Context: Test Note"), "{ctx_text}");
    assert!(
        ctx_text.ends_with("*1 primary, 0 related | depth=1 | project: main*"),
        "{ctx_text}"
    );
    let ctx = mcp
        .call("build_context", json!({"url": "memory://test/test-note"}))
        .ok()
        .json();
    assert_eq!(ctx["results"][0]["primary_result"]["type"], "entity");
    assert_eq!(ctx["metadata"]["uri"], "main/test/test-note");
    assert_eq!(ctx["has_more"], false);
    let too_long = mcp.call(
        "build_context",
        json!({"url": "memory://test/test-note", "timeframe": "2 years ago"}),
    );
    assert!(
        too_long.is_error && too_long.text.contains("Timeframe should be <= 1 year"),
        "{}",
        too_long.text
    );
    mcp.text(
        "write_note",
        json!({"title": "Other", "directory": "test-old", "content": "x"}),
    );
    let wildcard = mcp
        .call("build_context", json!({"url": "memory://test/*"}))
        .ok()
        .json();
    let primaries: Vec<&str> = wildcard["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["primary_result"]["permalink"].as_str().unwrap())
        .collect();
    assert_eq!(
        primaries,
        ["main/test/test-note"],
        "test/* does not match test-old/"
    );

    // 14: recent_activity
    let activity = mcp.text("recent_activity", json!({}));
    assert!(
        activity.starts_with("## Recent Activity: main (7d)"),
        "{activity}"
    );
    assert!(
        activity.contains("  • Test Note (test) [id: "),
        "{activity}"
    );
    assert!(activity.contains("**Activity Summary:**"), "{activity}");
    let list = mcp
        .call("recent_activity", json!({"output_format": "json"}))
        .ok()
        .json();
    assert!(list
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["type"] == "entity" && i["created_at"].is_string()));
    let too_big = mcp.call("recent_activity", json!({"page_size": 500}));
    assert!(too_big.is_error && too_big.text.contains("page_size must be <= 100, got 500"));

    // 15: move, list_directory, delete, delete_project
    let moved = mcp.text(
        "move_note",
        json!({"identifier": "Test Note", "destination_path": "archive/Test Note.md"}),
    );
    assert!(moved.starts_with("✅ Note moved successfully"), "{moved}");
    assert!(main.join("archive/Test Note.md").exists() && !main.join("test/Test Note.md").exists());
    let no_ext = mcp.text(
        "move_note",
        json!({"identifier": "main/test/test-note", "destination_path": "archive/x"}),
    );
    assert!(
        no_ext.starts_with("# Move Failed - File Extension Required"),
        "{no_ext}"
    );
    let listing = mcp.text("list_directory", json!({}));
    assert!(listing.contains("📁 archive"), "{listing}");
    assert!(listing.contains("Total: "), "{listing}");
    assert_eq!(
        mcp.text("delete_note", json!({"identifier": "main/test/test-note"})),
        "true"
    );
    assert!(!main.join("archive/Test Note.md").exists());
    assert_eq!(
        mcp.text("delete_note", json!({"identifier": "main/test/test-note"})),
        "false"
    );
    let refused = mcp.call("delete_project", json!({"project_name": "main"}));
    assert!(
        refused.is_error
            && refused
                .text
                .contains("Cannot delete default project 'main'"),
        "{}",
        refused.text
    );
}
