//! The gitmem memory API in process: memories are notes in memories/ whose front matter keeps
//! the API's fields; soft-deleted and expired memories are hidden from every search.

use serde_json::{json, Value};

use crate::{Harness, ReplyExt};

fn refused(h: &Harness, tool: &str, args: Value, expected: &str) {
    let reply = h.call(tool, args.clone());
    assert!(reply.is_error(), "{tool} {args}: {}", reply.text());
    assert!(
        reply.text().contains(expected),
        "{tool} {args}: {}",
        reply.text()
    );
}

fn search_ids(h: &Harness, args: Value) -> Vec<String> {
    h.value("memory_search", args)["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn a_saved_memory_is_a_note_with_its_fields_in_front_matter() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let saved = h.value(
        "memory_save",
        json!({
            "content": "The user prefers dark mode in every editor",
            "type": "preference",
            "tags": ["ui", "editor"],
            "score": 0.8,
            "ttl": "P90D",
            "created_at": "2026-01-02T03:04:05Z",
            "compat": {"basic_id": "main/prefs/dark-mode"},
        }),
    );
    let id = saved["id"].as_str().unwrap();
    assert_eq!(saved["title"], "The user prefers dark mode in every editor");
    assert_eq!(
        saved["file_path"],
        "memories/The user prefers dark mode in every editor.md"
    );
    assert_eq!(saved["expires_at"], "2026-04-02T03:04:05Z");
    let file =
        std::fs::read_to_string(h.main_dir().join(saved["file_path"].as_str().unwrap())).unwrap();
    let expected = format!(
        "---\ntitle: The user prefers dark mode in every editor\ntype: preference\npermalink: main/memories/the-user-prefers-dark-mode-in-every-editor\nid: {id}\nsource: memory_save\ntags:\n- ui\n- editor\nscore: 0.8\nttl: P90D\ncreated_at: 2026-01-02T03:04:05Z\nupdated_at: 2026-01-02T03:04:05Z\ncompat:\n  basic_id: main/prefs/dark-mode\n---\n\nThe user prefers dark mode in every editor\n"
    );
    assert_eq!(file, expected);
    assert_eq!(h.value("memory_get", json!({"id": id})), saved);
    // The same content at the same time is the same memory.
    refused(
        &h,
        "memory_create",
        json!({"content": "The user prefers dark mode in every editor", "created_at": "2026-01-02T03:04:05Z"}),
        "exists already",
    );
    // memory_create is memory_save, and the dotted names are the same tools.
    let other = h.value(
        "memory_create",
        json!({"content": "Standup is at 9:30", "title": "Standup"}),
    );
    assert_eq!(
        h.value("memory.get", json!({"id": other["id"]}))["title"],
        "Standup"
    );
    assert_eq!(
        h.value(
            "memory_lookup_basic_id",
            json!({"basic_id": "main/prefs/dark-mode"})
        )["id"],
        id
    );
}

#[test]
fn an_update_patches_only_the_fields_given() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let saved = h.value("memory_save",
        json!({"content": "Lunch at noon", "title": "Lunch", "tags": "food", "score": 0.3, "source": "chat", "created_at": "2026-01-01T12:00:00Z"}),
    );
    let id = saved["id"].clone();
    let updated = h.value(
        "memory_update",
        json!({"id": id, "content": "Lunch at one", "score": null, "tags": ["food", "routine"]}),
    );
    assert_eq!(updated["content"], "Lunch at one\n");
    assert_eq!(updated["title"], "Lunch");
    assert_eq!(updated["score"], Value::Null);
    assert_eq!(updated["source"], "chat");
    assert_eq!(updated["tags"], json!(["food", "routine"]));
    assert_ne!(updated["updated_at"], saved["updated_at"]);
    refused(
        &h,
        "memory_update",
        json!({"id": id, "score": 2}),
        "between 0 and 1",
    );
    refused(
        &h,
        "memory_update",
        json!({"id": id, "ttl": "soon"}),
        "ISO 8601",
    );
    refused(
        &h,
        "memory_update",
        json!({"id": "nope", "content": "x"}),
        "no memory with id 'nope'",
    );
}

#[test]
fn updating_or_soft_deleting_a_hand_written_note_edits_only_its_changed_keys() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let written = "---\n# my own notes\ntitle: 'Trip plan'\ntype: note\npermalink: main/trip-plan\nextra:   kept  # aligned by hand\nttl: P1D\n---\n\n# Trip plan\n\nPack light.\n";
    std::fs::write(h.main_dir().join("Trip plan.md"), written).unwrap();
    h.sync();
    h.value(
        "memory_update",
        json!({"id": "main/trip-plan", "ttl": null, "score": 0.5}),
    );
    let text = std::fs::read_to_string(h.main_dir().join("Trip plan.md")).unwrap();
    let kept = "---\n# my own notes\ntitle: 'Trip plan'\ntype: note\npermalink: main/trip-plan\nextra:   kept  # aligned by hand\n";
    assert!(text.starts_with(kept), "{text}");
    assert!(!text.contains("ttl:"), "{text}");
    assert!(text.contains("\nscore: 0.5\n"), "{text}");
    assert!(
        text.ends_with("---\n\n# Trip plan\n\nPack light.\n"),
        "{text}"
    );

    h.value("memory_delete", json!({"id": "main/trip-plan"}));
    let text = std::fs::read_to_string(h.main_dir().join("Trip plan.md")).unwrap();
    assert!(text.starts_with(kept), "{text}");
    assert!(text.contains("\ndeleted_at: "), "{text}");
}

#[test]
fn deleted_and_expired_memories_are_hidden_from_every_search() {
    let h = Harness::new().serving_tools("all");
    let kept = h.value(
        "memory_save",
        json!({"content": "Quokka facts: they smile", "title": "Quokka kept"}),
    );
    let gone = h.value(
        "memory_save",
        json!({"content": "Quokka facts: they hop", "title": "Quokka gone"}),
    );
    let expired = h.value("memory_save",
        json!({"content": "Quokka facts: they nap", "title": "Quokka expired", "ttl": "P1D", "created_at": "2020-01-01T00:00:00Z"}),
    );
    let living = h.value("memory_save",
        json!({"content": "Quokka facts: they eat leaves", "title": "Quokka living", "ttl": "P100Y"}),
    );
    let soft = h.value("memory_delete", json!({"id": gone["id"]}));
    assert_eq!(soft["mode"], "soft");
    assert!(soft["deleted_at"].is_string());

    let mut visible = search_ids(&h, json!({"query": "quokka"}));
    visible.sort();
    let mut expected = vec![
        kept["id"].as_str().unwrap().to_string(),
        living["id"].as_str().unwrap().to_string(),
    ];
    expected.sort();
    assert_eq!(visible, expected);
    let notes = h.json("search_notes", json!({"query": "quokka"}));
    let mut titles = crate::titles(&notes);
    titles.sort();
    assert_eq!(titles, ["Quokka kept", "Quokka living"]);
    let graph = h.call("search_nodes", json!({"query": "quokka"})).ok();
    assert!(!graph.text().contains("Quokka gone") && !graph.text().contains("Quokka expired"));
    for (tool, args) in [
        ("recent_activity", json!({"timeframe": "1d"})),
        ("build_context", json!({"url": "memory://main/memories/*"})),
    ] {
        let shown = h.text(tool, args);
        assert!(shown.contains("Quokka kept"), "{tool}: {shown}");
        assert!(
            !shown.contains("Quokka gone") && !shown.contains("Quokka expired"),
            "{tool}: {shown}"
        );
    }

    let with_deleted = search_ids(&h, json!({"query": "quokka", "include_deleted": true}));
    assert!(with_deleted.contains(&gone["id"].as_str().unwrap().to_string()));
    assert!(!with_deleted.contains(&expired["id"].as_str().unwrap().to_string()));
    assert_eq!(
        h.value("memory_get", json!({"id": expired["id"]}))["expired"],
        true
    );

    let restored = h.value(
        "memory_update",
        json!({"id": gone["id"], "deleted_at": null}),
    );
    assert_eq!(restored["deleted_at"], Value::Null);
    assert_eq!(
        search_ids(&h, json!({"query": "hop"})),
        [gone["id"].as_str().unwrap()]
    );

    let hard = h.value("memory_delete", json!({"id": gone["id"], "hard": true}));
    assert_eq!(hard["mode"], "hard");
    assert!(!h
        .main_dir()
        .join(gone["file_path"].as_str().unwrap())
        .exists());
    refused(
        &h,
        "memory_get",
        json!({"id": gone["id"]}),
        "no memory with id",
    );
}

#[test]
fn search_filters_sorts_and_pages() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let save = |title: &str, kind: &str, tags: Value, score: f64, created: &str| {
        h.value(
            "memory_save",
            json!({"title": title, "content": format!("{title}: about the garden"), "type": kind,
                   "tags": tags, "score": score, "created_at": created}),
        )["id"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let roses = save(
        "Roses",
        "fact",
        json!(["garden", "flowers"]),
        0.2,
        "2026-01-01T00:00:00Z",
    );
    let tulips = save(
        "Tulips",
        "fact",
        json!(["garden"]),
        0.9,
        "2026-02-01T00:00:00Z",
    );
    let compost = save(
        "Compost",
        "howto",
        json!(["garden"]),
        0.5,
        "2026-03-01T00:00:00Z",
    );

    assert_eq!(search_ids(&h, json!({"type": "howto"})), [compost.as_str()]);
    assert_eq!(
        search_ids(&h, json!({"tags": ["flowers"]})),
        [roses.as_str()]
    );
    assert_eq!(
        search_ids(&h, json!({"query": "garden", "sort": "score"})),
        [tulips.as_str(), compost.as_str(), roses.as_str()]
    );
    assert_eq!(
        search_ids(&h, json!({"sort": "recency", "limit": 2, "offset": 1})),
        [tulips.as_str(), roses.as_str()],
        "updated_at follows created_at for new memories"
    );
    assert_eq!(
        search_ids(
            &h,
            json!({"time_range": {"from": "2026-01-15T00:00:00Z", "to": "2026-02-15T00:00:00Z"}})
        ),
        [tulips.as_str()]
    );
    let page = h.value("memory_search", json!({"query": "garden", "limit": 1}));
    assert_eq!(
        (page["total"].as_u64(), page["limit"].as_u64()),
        (Some(3), Some(1))
    );

    refused(
        &h,
        "memory_search",
        json!({"sort": "loudest"}),
        "relevance, recency or score",
    );
    refused(
        &h,
        "memory_search",
        json!({"limit": 0}),
        "between 1 and 100",
    );
    refused(
        &h,
        "memory_search",
        json!({"limit": 101}),
        "between 1 and 100",
    );
    refused(&h, "memory_search", json!({"offset": -1}), "must be >= 0");
    refused(
        &h,
        "memory_search",
        json!({"time_range": {"from": "yesterday"}}),
        "time_range.from",
    );
}

#[test]
fn bad_memories_are_refused() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let cases = [
        (json!({}), "content"),
        (json!({"content": "  "}), "content must not be empty"),
        (json!({"content": "x", "score": -0.1}), "between 0 and 1"),
        (
            json!({"content": "x", "ttl": "30 days"}),
            "ISO 8601 duration",
        ),
        (
            json!({"content": "x", "created_at": "last week"}),
            "RFC 3339",
        ),
        (json!({"content": "x", "id": " "}), "id must not be empty"),
    ];
    for (args, expected) in cases {
        refused(&h, "memory_save", args, expected);
    }
    assert!(
        !h.main_dir().join("memories").exists(),
        "nothing was written"
    );
    refused(
        &h,
        "memory_delete",
        json!({"id": "missing"}),
        "no memory with id",
    );
    refused(
        &h,
        "memory_lookup_basic_id",
        json!({"basic_id": "main/none"}),
        "no memory has",
    );
}

#[test]
fn a_basic_memory_project_is_imported_once_with_its_ids_kept() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    std::fs::create_dir_all(&root).unwrap();
    // Imports read only under the home directory unless the config says otherwise, and a test
    // cannot move HOME for the whole process.
    std::fs::write(
        root.join("config.toml"),
        "[storage.local]\nallow_outside_home = true\n",
    )
    .unwrap();
    let h = Harness::open(&root).serving_tools("basic,gitmem");
    let basic = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(basic.path().join("guides")).unwrap();
    std::fs::write(
        basic.path().join("guides/Coffee Brewing.md"),
        "---\ntitle: Coffee Brewing\ntype: note\npermalink: main/guides/coffee-brewing\ntags:\n- coffee\n---\n\n# Coffee Brewing\n- [method] Pour over\n",
    )
    .unwrap();
    std::fs::write(basic.path().join("Plain.md"), "no front matter\n").unwrap();
    std::fs::create_dir_all(basic.path().join(".basic-memory")).unwrap();
    std::fs::write(basic.path().join(".basic-memory/skip.md"), "hidden\n").unwrap();
    let path = basic.path().to_string_lossy().to_string();

    let dry = h.value(
        "memory_import_basic",
        json!({"path": path, "dry_run": true, "map_types": {"note": "fact"}}),
    );
    assert_eq!(dry["dry_run"], true);
    assert_eq!(dry["counts"], json!([["notes", 2]]));
    assert!(!h.main_dir().join("memories").exists());

    let done = h.value(
        "memory.import.basic",
        json!({"path": path, "map_types": {"note": "fact"}}),
    );
    assert_eq!(
        done["created"],
        json!(["memories/Plain.md", "memories/guides/Coffee Brewing.md"])
    );
    let coffee = h.value(
        "memory_lookup_basic_id",
        json!({"basicId": "main/guides/coffee-brewing"}),
    );
    assert_eq!(coffee["type"], "fact");
    assert_eq!(coffee["tags"], json!(["coffee"]));
    assert_eq!(coffee["source"], "basic-memory");
    assert_eq!(
        h.value("memory_lookup_basic_id", json!({"basic_id": "plain"}))["title"],
        "Plain"
    );

    let again = h.value("memory_import_basic", json!({"path": path}));
    assert_eq!(
        (
            again["created"].as_array().unwrap().len(),
            again["deduplicated"].as_u64()
        ),
        (0, Some(2))
    );
    refused(
        &h,
        "memory_import_basic",
        json!({"path": "/no/such/dir"}),
        "is not a directory",
    );
    refused(
        &Harness::new().serving_tools("basic,gitmem"),
        "memory_import_basic",
        json!({"path": path}),
        "is outside your home directory",
    );
}

#[test]
fn a_basic_memory_import_never_reads_gitmems_own_folders() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let side = dir.path().join("side");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::create_dir_all(&side).unwrap();
    std::fs::write(
        root.join("config.toml"),
        format!(
            "[storage.local]\nallow_outside_home = true\n\n[projects.main]\npath = \"projects/main\"\n\n[projects.side]\npath = {:?}\n",
            side.to_string_lossy()
        ),
    )
    .unwrap();
    std::fs::write(side.join("Secret.md"), "# Secret\n\nside only\n").unwrap();
    // A caller confined to `main` must not read `side` by importing its folder.
    let h = Harness::constrained(&root, "main").serving_tools("basic,gitmem");
    let cases = [
        (side.clone(), "its notes are in gitmem already"),
        (dir.path().to_path_buf(), "overlaps gitmem's data root"),
        (root.join("projects/main"), "overlaps gitmem's data root"),
    ];
    for (path, expected) in cases {
        refused(
            &h,
            "memory_import_basic",
            json!({"path": path.to_string_lossy()}),
            expected,
        );
    }
    assert!(!root.join("projects/main/memories").exists());
}

#[test]
fn a_memory_is_never_written_where_it_would_be_lost() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let broken = "---\ntitle: Broken\ntags: [a, b\nimportant: keep me\n---\n\nBody text\n";
    std::fs::create_dir_all(h.main_dir().join("notes")).unwrap();
    std::fs::write(h.main_dir().join("notes/Broken.md"), broken).unwrap();
    h.sync();
    refused(
        &h,
        "memory_update",
        json!({"id": "main/notes/broken", "score": 0.3}),
        "is not valid YAML",
    );
    assert_eq!(
        std::fs::read_to_string(h.main_dir().join("notes/Broken.md")).unwrap(),
        broken
    );

    // A title that makes no file name still makes a visible file, found again by its id.
    for title in ["---", "..", ".hidden"] {
        let saved = h.value(
            "memory_save",
            json!({"content": format!("titled {title}"), "title": title}),
        );
        let path = saved["file_path"].as_str().unwrap();
        assert!(
            !path.trim_start_matches("memories/").starts_with(['.', ' ']),
            "{path}"
        );
        assert_eq!(
            h.value("memory_get", json!({"id": saved["id"]}))["title"],
            title
        );
    }
}

#[test]
fn a_memory_whose_front_matter_is_broken_is_not_overwritten() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let saved = h.value(
        "memory_save",
        json!({"content": "Keep every key", "title": "Kept", "score": 0.5}),
    );
    let file = h.main_dir().join(saved["file_path"].as_str().unwrap());
    let broken = std::fs::read_to_string(&file)
        .unwrap()
        .replace("score: 0.5", "score: [0.5");
    std::fs::write(&file, &broken).unwrap();
    h.sync();
    for (tool, args) in [
        (
            "write_note",
            json!({"title": "Kept", "directory": "memories", "content": "new", "overwrite": true}),
        ),
        // Front matter that does not parse has no id: the note is known by its permalink.
        (
            "memory_update",
            json!({"id": "main/memories/kept", "content": "new"}),
        ),
    ] {
        refused(&h, tool, args, "is not valid YAML");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), broken, "{tool}");
    }
}
