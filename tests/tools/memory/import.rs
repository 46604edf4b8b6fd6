//! memory_import_basic in process: a Basic Memory project directory, or an export of its
//! notes as JSON or JSON Lines, becomes memories, once.

use serde_json::json;

use crate::memory::refused;
use crate::Harness;

/// A harness whose imports may read outside the home directory: a test cannot move HOME for
/// the whole process. The root lives in `dir`.
fn importing(dir: &std::path::Path) -> Harness {
    let root = dir.join("root");
    std::fs::create_dir_all(&root).unwrap();
    std::fs::write(
        root.join("config.toml"),
        "[storage.local]\nallow_outside_home = true\n",
    )
    .unwrap();
    Harness::open(&root).serving_tools("basic,gitmem")
}

#[test]
fn a_basic_memory_project_is_imported_once_with_its_ids_kept() {
    let dir = tempfile::tempdir().unwrap();
    let h = importing(dir.path());
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
    assert_eq!(coffee["source"]["origin"], "basic-memory");
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
        "is neither a directory nor a .json or .jsonl file",
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
fn an_export_of_basic_memory_notes_is_imported_from_json_or_json_lines() {
    let coffee = json!({
        "title": "Coffee Brewing", "type": "note", "permalink": "main/guides/coffee-brewing",
        "file_path": "guides/Coffee Brewing.md", "tags": ["coffee"],
        "content": "# Coffee Brewing\n- [method] Pour over\n",
        "observations": [{"category": "method", "content": "Pour over"}],
    });
    let tea = json!({"title": "Tea", "entity_type": "howto", "content": "Steep three minutes"});
    let cases = [
        ("export.json", json!([coffee, tea]).to_string()),
        ("wrapped.json", json!({"notes": [coffee, tea]}).to_string()),
        ("export.jsonl", format!("{coffee}\n\n{tea}\n")),
    ];
    for (name, text) in cases {
        let dir = tempfile::tempdir().unwrap();
        let h = importing(dir.path());
        let file = dir.path().join(name);
        std::fs::write(&file, text).unwrap();
        let path = file.to_string_lossy().to_string();
        let done = h.value(
            "memory_import_basic",
            json!({"path": path, "map_types": {"note": "fact"}}),
        );
        assert_eq!(
            done["created"],
            json!(["memories/guides/Coffee Brewing.md", "memories/Tea.md"]),
            "{name}"
        );
        let found = h.value(
            "memory_lookup_basic_id",
            json!({"basic_id": "main/guides/coffee-brewing"}),
        );
        assert_eq!(
            (&found["type"], &found["tags"], &found["content"]),
            (
                &json!("fact"),
                &json!(["coffee"]),
                &json!("# Coffee Brewing\n- [method] Pour over\n")
            ),
            "{name}"
        );
        let tea = h.value("memory_get", json!({"id": "main/memories/tea"}));
        assert_eq!(tea["type"], "howto", "{name}: {tea}");
        let again = h.value("memory_import_basic", json!({"path": path}));
        assert_eq!(
            again["deduplicated"], 2,
            "{name}: importing again adds nothing"
        );
    }
}

#[test]
fn every_bad_line_of_an_export_is_reported_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let h = importing(dir.path());
    let file = dir.path().join("export.jsonl");
    std::fs::write(
        &file,
        "{\"title\": \"Fine\", \"content\": \"ok\"}\n{\"title\": \"Broken\",\n{\"content\": 7}\n",
    )
    .unwrap();
    let reply = h.call(
        "memory_import_basic",
        json!({"path": file.to_string_lossy()}),
    );
    assert!(reply.is_error(), "{}", reply.text());
    let text = reply.text();
    for expected in [
        "2 invalid record(s); nothing was imported",
        "line 2: not valid JSON",
        "line 3: content is not a string",
    ] {
        assert!(text.contains(expected), "{text}");
    }
    assert!(!h.main_dir().join("memories").exists());
    let other = dir.path().join("notes.txt");
    std::fs::write(&other, "plain text").unwrap();
    refused(
        &h,
        "memory_import_basic",
        json!({"path": other.to_string_lossy()}),
        "is neither a directory nor a .json or .jsonl file",
    );
}
