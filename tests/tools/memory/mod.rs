//! The gitmem memory API in process: memories are notes in memories/ whose front matter keeps
//! the API's fields; soft-deleted and expired memories are hidden from every search.

mod codes;
mod import;
mod ingest;

use mcp::tools::ToolReply;
use serde_json::{json, Value};

use crate::{Harness, ReplyExt};

pub(crate) fn refused(h: &Harness, tool: &str, args: Value, expected: &str) {
    let reply = h.call(tool, args.clone());
    assert!(reply.is_error(), "{tool} {args}: {}", reply.text());
    assert!(
        reply.text().contains(expected),
        "{tool} {args}: {}",
        reply.text()
    );
}

/// Saves a memory and answers its id.
fn saved_id(h: &Harness, memory: Value) -> String {
    h.value("memory_save", memory)["id"]
        .as_str()
        .unwrap()
        .to_string()
}

pub(crate) fn search_ids(h: &Harness, args: Value) -> Vec<String> {
    h.value("memory_search", args)["items"]
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
        "---\ntitle: The user prefers dark mode in every editor\ntype: preference\npermalink: main/memories/the-user-prefers-dark-mode-in-every-editor\nid: {id}\nversion: 1\nsource: memory_save\ntags:\n- ui\n- editor\nscore: 0.8\nttl: P90D\ncreated_at: 2026-01-02T03:04:05Z\nupdated_at: 2026-01-02T03:04:05Z\ncompat:\n  basic_id: main/prefs/dark-mode\n---\n\nThe user prefers dark mode in every editor\n"
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
    assert_eq!(updated["source"]["origin"], "chat");
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
        saved_id(
            &h,
            json!({"title": title, "content": format!("{title}: about the garden"), "type": kind,
                   "tags": tags, "score": score, "created_at": created}),
        )
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

/// The specification's error code a failed call carries in its structured content; its text
/// must be the same message.
fn error_code(h: &Harness, tool: &str, args: Value) -> String {
    match h.call(tool, args.clone()) {
        ToolReply::Failed { text, content } => {
            assert_eq!(content["error"]["message"], text, "{tool} {args}");
            content["error"]["code"].as_str().unwrap().to_string()
        }
        other => panic!("{tool} {args}: {other:?}"),
    }
}

#[test]
fn a_patch_changes_each_field_it_names_and_bumps_the_version() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let saved = h.value(
        "memory_save",
        json!({"content": "Lunch at noon", "title": "Lunch", "tags": ["food"], "type": "event",
               "score": 0.3, "ttl": "P30D", "created_at": "2026-01-01T12:00:00Z"}),
    );
    assert_eq!(saved["version"], 1);
    let id = saved["id"].clone();
    let cases = [
        (json!({"title": "Late lunch"}), "title", json!("Late lunch")),
        (
            json!({"content": "Lunch at one"}),
            "content",
            json!("Lunch at one\n"),
        ),
        (
            json!({"tags": ["food", "routine"]}),
            "tags",
            json!(["food", "routine"]),
        ),
        (json!({"type": "habit"}), "type", json!("habit")),
        (json!({"ttl": "P7D"}), "ttl", json!("P7D")),
        (json!({"ttl": null}), "ttl", Value::Null),
        (json!({"score": 0.9}), "score", json!(0.9)),
        (json!({"score": null}), "score", Value::Null),
    ];
    for (version, (patch, field, value)) in (2..).zip(cases) {
        let updated = h.value("memory_update", json!({"id": id, "patch": patch}));
        assert_eq!(updated[field], value, "{patch}");
        assert_eq!(updated["version"], version, "{patch}");
        assert_eq!(h.value("memory_get", json!({"id": id})), updated, "{patch}");
    }
    let file = std::fs::read_to_string(h.main_dir().join("memories/Lunch.md")).unwrap();
    assert!(file.contains("\nversion: 9\n"), "{file}");
    assert!(
        file.contains("title: Late lunch\n") && file.ends_with("\nLunch at one\n"),
        "{file}"
    );
}

#[test]
fn the_flat_form_still_updates_but_not_beside_a_patch_of_the_same_field() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let id = h.value(
        "memory_save",
        json!({"content": "Tea at four", "tags": "drinks"}),
    )["id"]
        .clone();
    let updated = h.value(
        "memory_update",
        json!({"id": id, "tags": ["drinks", "afternoon"], "patch": {"title": "Tea time"}}),
    );
    assert_eq!(updated["tags"], json!(["drinks", "afternoon"]));
    assert_eq!(updated["title"], "Tea time");
    assert_eq!(updated["version"], 2);
    refused(
        &h,
        "memory_update",
        json!({"id": id, "tags": ["a"], "patch": {"tags": ["b"]}}),
        "`tags` is given both in patch and at the top level; give it once, in patch",
    );
    assert_eq!(h.value("memory_get", json!({"id": id}))["version"], 2);
}

#[test]
fn an_unknown_or_misplaced_field_is_refused_by_name() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let id = h.value("memory_save", json!({"content": "Keep me as I am"}))["id"].clone();
    let cases = [
        (
            "memory_update",
            json!({"id": id, "patch": {"colour": "red"}}),
            "unknown field `colour` in patch; expected one of title, content, tags, type, ttl, decay, score",
        ),
        (
            "memory_update",
            json!({"id": id, "patch": {"source": "chat"}}),
            "unknown field `source` in patch; expected one of title, content, tags, type, ttl, decay, score",
        ),
        ("memory_update", json!({"id": id, "colour": "red"}), "unknown field `colour`; expected one of id, patch, title,"),
        ("memory_save", json!({"content": "x", "importance": 1}), "unknown field `importance`; expected one of content,"),
        (
            "memory_save",
            json!({"content": "x", "source": {"agnt": "claude"}}),
            "unknown field `agnt` in source; expected one of agent, session, origin, app",
        ),
        (
            "memory_save",
            json!({"content": "x", "compat": {"basicId": "a"}}),
            "unknown field `basicId` in compat; expected one of basic_id, aliases",
        ),
        (
            "memory_search",
            json!({"filters": {"kind": ["fact"]}}),
            "unknown field `kind` in filters; expected one of type, tags",
        ),
        (
            "memory_search",
            json!({"time_range": {"since": "2026-01-01T00:00:00Z"}}),
            "unknown field `since` in time_range; expected one of from, to",
        ),
        ("memory_delete", json!({"id": id, "force": true}), "unknown field `force`; expected one of id, hard, project, project_id"),
        ("memory_get", json!({"id": id, "version": 1}), "unknown field `version`; expected one of id, project, project_id"),
        ("memory_import_basic", json!({"path": "/tmp", "overwrite": true}), "unknown field `overwrite`;"),
    ];
    for (tool, args, expected) in cases {
        refused(&h, tool, args.clone(), expected);
        assert_eq!(error_code(&h, tool, args), "E_VALIDATION");
    }
    let memory = h.value("memory_get", json!({"id": id}));
    assert_eq!(memory["version"], 1, "nothing was changed");
    assert!(!h.main_dir().join("memories/x.md").exists());
}

#[test]
fn search_answers_items_and_total_filtered_by_type_tags_and_time() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let save = |title: &str, kind: &str, tags: Value, created: &str| {
        saved_id(
            &h,
            json!({"title": title, "content": format!("{title} in the garden"), "type": kind,
                   "tags": tags, "created_at": created}),
        )
    };
    let roses = save(
        "Roses",
        "fact",
        json!(["garden", "flowers"]),
        "2026-01-01T00:00:00Z",
    );
    let tulips = save(
        "Tulips",
        "preference",
        json!(["garden", "flowers"]),
        "2026-02-01T00:00:00Z",
    );
    let compost = save(
        "Compost",
        "preference",
        json!(["garden"]),
        "2026-03-01T00:00:00Z",
    );
    let ids = |v: &Value| -> Vec<String> {
        v["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect()
    };
    let cases = [
        (
            json!({"filters": {"type": ["preference"]}}),
            vec![compost.as_str(), tulips.as_str()],
        ),
        (
            json!({"query": "garden", "filters": {"type": ["preference"]}, "sort": "recency"}),
            vec![compost.as_str(), tulips.as_str()],
        ),
        (
            json!({"filters": {"tags": ["flowers"]}}),
            vec![tulips.as_str(), roses.as_str()],
        ),
        (
            json!({"filters": {"type": ["preference"], "tags": ["flowers"]}}),
            vec![tulips.as_str()],
        ),
        (json!({"type": "fact"}), vec![roses.as_str()]),
        (
            json!({"types": ["fact"], "tags": "flowers"}),
            vec![roses.as_str()],
        ),
        (
            json!({"time_range": {"from": "2026-01-15T00:00:00Z", "to": "2026-03-15T00:00:00Z"}}),
            vec![compost.as_str(), tulips.as_str()],
        ),
        (
            json!({"time_range": {"to": "2026-01-15T00:00:00Z"}}),
            vec![roses.as_str()],
        ),
    ];
    for (args, expected) in cases {
        let page = h.value("memory_search", args.clone());
        assert_eq!(ids(&page), expected, "{args}");
        assert_eq!(page["total"], expected.len(), "{args}");
    }
    let page = h.value(
        "memory_search",
        json!({"sort": "recency", "limit": 1, "offset": 1}),
    );
    assert_eq!(
        (ids(&page), &page["total"]),
        (vec![tulips.clone()], &json!(3))
    );
    let all = h.value("memory_search", json!({}));
    assert_eq!(
        (all["limit"].as_u64(), all["total"].as_u64()),
        (Some(50), Some(3))
    );
    refused(
        &h,
        "memory_search",
        json!({"type": "fact", "filters": {"type": ["preference"]}}),
        "`type` is given both in filters and at the top level",
    );
}

#[test]
fn a_delete_answers_ok_and_a_hard_one_removes_the_file() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let saved = h.value("memory_save", json!({"content": "Forget me soon"}));
    let file = h.main_dir().join(saved["file_path"].as_str().unwrap());
    let soft = h.value("memory_delete", json!({"id": saved["id"]}));
    assert_eq!((&soft["ok"], &soft["mode"]), (&json!(true), &json!("soft")));
    assert!(file.exists());
    assert_eq!(h.value("memory_search", json!({}))["total"], 0);
    let hard = h.value("memory_delete", json!({"id": saved["id"], "hard": true}));
    assert_eq!(
        (&hard["ok"], &hard["mode"], &hard["id"]),
        (&json!(true), &json!("hard"), &saved["id"])
    );
    assert!(!file.exists());
}

#[test]
fn a_memory_carries_the_specifications_fields() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let source = json!({"agent": "claude", "session": "s-42", "origin": "chat", "app": "desktop"});
    let saved = h.value(
        "memory_save",
        json!({"content": "Prefers tea", "source": source, "compat": {"basic_id": "main/tea", "aliases": ["tea preference"]}}),
    );
    assert_eq!(saved["source"], source);
    assert_eq!(
        saved["encryption"],
        json!({"algo": null, "kid": null, "encrypted": false})
    );
    assert_eq!(
        saved["compat"],
        json!({"basic_id": "main/tea", "aliases": ["tea preference"]})
    );
    let file =
        std::fs::read_to_string(h.main_dir().join(saved["file_path"].as_str().unwrap())).unwrap();
    assert!(
        file.contains(
            "\nsource:\n  agent: claude\n  session: s-42\n  origin: chat\n  app: desktop\n"
        ),
        "{file}"
    );
    let again = h.reopen().serving_tools("basic,gitmem");
    assert_eq!(
        again.value("memory_get", json!({"id": saved["id"]}))["source"],
        source
    );
    let plain = again.value("memory_save", json!({"content": "No source given"}));
    assert_eq!(
        plain["source"],
        json!({"agent": null, "session": null, "origin": "memory_save", "app": null})
    );
    let changed = again.value(
        "memory_update",
        json!({"id": saved["id"], "source": "import"}),
    );
    assert_eq!(
        changed["source"],
        json!({"agent": null, "session": null, "origin": "import", "app": null})
    );
}

#[test]
fn limits_refuse_a_memory_too_large_and_writes_past_the_days_total() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("config.toml"),
        "[limits]\nmax_memory_size = 100\nmax_total_daily = 250\n",
    )
    .unwrap();
    let h = Harness::prepared(dir).serving_tools("basic,gitmem");
    let big = "x".repeat(101);
    refused(
        &h,
        "memory_save",
        json!({"content": big}),
        "content is 101 bytes; a memory may hold at most 100 bytes ([limits] max_memory_size",
    );
    assert_eq!(
        error_code(&h, "memory_save", json!({"content": big})),
        "E_VALIDATION"
    );
    let first = h.value("memory_save", json!({"content": "a".repeat(100)}));
    h.value(
        "memory_update",
        json!({"id": first["id"], "patch": {"content": "b".repeat(100)}}),
    );
    // Metadata changes write no content and count nothing.
    h.value(
        "memory_update",
        json!({"id": first["id"], "patch": {"title": "Renamed"}}),
    );
    refused(
        &h,
        "memory_update",
        json!({"id": first["id"], "patch": {"content": "c".repeat(100)}}),
        "past the daily limit of 250 ([limits] max_total_daily in config.toml); the count resets at ",
    );
    // The count survives a restart.
    let h = h.reopen().serving_tools("basic,gitmem");
    assert_eq!(
        error_code(&h, "memory_save", json!({"content": "d".repeat(51)})),
        "E_RATE_LIMIT"
    );
    h.value("memory_save", json!({"content": "e".repeat(50)}));
    assert!(h.main_dir().join("memories").read_dir().unwrap().count() == 2);
}
