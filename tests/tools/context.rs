//! recent_activity and build_context: what changed lately, and a note with its neighbourhood.

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::{write_test_note, Harness, ReplyExt};

/// Compat 13, item 14.
#[test]
fn recent_activity_lists_new_notes_in_text_and_json() {
    let h = Harness::new();
    write_test_note(&h);

    let activity = h.text("recent_activity", json!({}));
    assert!(
        activity.starts_with("## Recent Activity: main (7d)"),
        "{activity}"
    );
    assert!(
        activity.contains("  • Test Note (test) [id: "),
        "{activity}"
    );
    assert!(activity.contains("**Activity Summary:**"), "{activity}");
    let list = h
        .call("recent_activity", json!({"output_format": "json"}))
        .ok()
        .json();
    assert!(list
        .as_array()
        .unwrap()
        .iter()
        .all(|i| i["type"] == "entity" && i["created_at"].is_string()));
    let too_big = h.call("recent_activity", json!({"page_size": 500}));
    assert!(too_big.is_error() && too_big.text().contains("page_size must be <= 100, got 500"));
}

#[test]
fn recent_activity_filters_by_type_and_timeframe() {
    let h = Harness::new();
    h.write("Target", "a", "target body");
    h.write(
        "Source",
        "a",
        "- [fact] The sky is blue\n- depends_on [[Target]]",
    );

    let entities = h.json("recent_activity", json!({}));
    let rows = entities.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{entities}");
    for row in rows {
        assert_eq!(row["type"], "entity", "default is entities only: {row}");
        for key in ["title", "permalink", "file_path", "created_at"] {
            assert!(row[key].is_string(), "{key}: {row}");
        }
    }
    let observations = h.json("recent_activity", json!({"type": "observation"}));
    assert_eq!(observations[0]["type"], "observation", "{observations}");
    assert_eq!(observations[0]["title"], "Source");
    let relations = h.json("recent_activity", json!({"type": ["relation"]}));
    assert!(
        relations
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["type"] == "relation")
            && !relations.as_array().unwrap().is_empty(),
        "{relations}"
    );
    let mixed = h.json(
        "recent_activity",
        json!({"type": "observation, relation", "page_size": 50}),
    );
    let kinds: BTreeSet<&str> = mixed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, BTreeSet::from(["observation", "relation"]));
    let obs_text = h.text("recent_activity", json!({"type": "observation"}));
    assert!(obs_text.contains("Recent Observations"), "{obs_text}");
    let rel_text = h.text("recent_activity", json!({"type": "relation"}));
    assert!(rel_text.contains("Recent Connections"), "{rel_text}");

    let invalid = h.call("recent_activity", json!({"type": "widget"}));
    assert!(
        invalid.is_error() && invalid.text().contains("Invalid type"),
        "{}",
        invalid.text()
    );

    // (timeframe, label in the header, or the error)
    #[rustfmt::skip]
    let timeframes: Vec<(&str, Result<&str, &str>)> = vec![
        ("24h", Ok("1d")),
        ("1 week", Ok("7d")),
        ("1 week ago", Ok("7d")),
        ("yesterday", Ok("1d")),
        ("today", Ok("1d")),
        ("30d", Ok("30d")),
        ("2024-01-01", Err("Timeframe should be <= 1 year")),
        ("366d", Err("Timeframe should be <= 1 year")),
        ("next blue moon", Err("Could not parse timeframe")),
    ];
    for (timeframe, expected) in timeframes {
        let r = h.call("recent_activity", json!({"timeframe": timeframe}));
        match expected {
            Ok(label) => {
                assert!(!r.is_error(), "{timeframe}: {}", r.text());
                assert!(
                    r.text()
                        .starts_with(&format!("## Recent Activity: main ({label})")),
                    "{timeframe}: {}",
                    r.text()
                );
                assert!(
                    r.text().contains("• Source (a)"),
                    "{timeframe}: {}",
                    r.text()
                );
            }
            Err(message) => {
                assert!(r.is_error(), "{timeframe}: {}", r.text());
                assert!(r.text().contains(message), "{timeframe}: {}", r.text());
            }
        }
    }
}

/// Compat 13, item 13.
#[test]
fn build_context_renders_a_note_and_matches_wildcards_by_folder() {
    let h = Harness::new();
    write_test_note(&h);

    let ctx_text = h.text(
        "build_context",
        json!({"url": "memory://test/test-note", "output_format": "text"}),
    );
    assert!(ctx_text.starts_with("# Context: Test Note"), "{ctx_text}");
    assert!(
        ctx_text.ends_with("*1 primary, 0 related | depth=1 | project: main*"),
        "{ctx_text}"
    );
    let ctx = h
        .call("build_context", json!({"url": "memory://test/test-note"}))
        .ok()
        .json();
    assert_eq!(ctx["results"][0]["primary_result"]["type"], "entity");
    assert_eq!(ctx["metadata"]["uri"], "main/test/test-note");
    assert_eq!(ctx["has_more"], false);
    let too_long = h.call(
        "build_context",
        json!({"url": "memory://test/test-note", "timeframe": "2 years ago"}),
    );
    assert!(
        too_long.is_error() && too_long.text().contains("Timeframe should be <= 1 year"),
        "{}",
        too_long.text()
    );
    h.text(
        "write_note",
        json!({"title": "Other", "directory": "test-old", "content": "x"}),
    );
    let wildcard = h
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
}

#[test]
fn build_context_follows_links_caps_related_and_pages_wildcards() {
    let h = Harness::new();
    h.write("Start", "chain", "- leads_to [[Middle]]");
    h.write("Middle", "chain", "- leads_to [[End]]");
    h.write("End", "chain", "the end");
    let related_titles = |ctx: &Value| -> BTreeSet<String> {
        ctx["results"][0]["related_results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["type"] == "entity")
            .map(|r| r["title"].as_str().unwrap().to_string())
            .collect()
    };
    let depth1 = h
        .call("build_context", json!({"url": "memory://chain/start"}))
        .ok()
        .json();
    assert_eq!(
        related_titles(&depth1),
        BTreeSet::from(["Middle".to_string()])
    );
    let depth2 = h
        .call(
            "build_context",
            json!({"url": "memory://chain/start", "depth": 2}),
        )
        .ok()
        .json();
    assert_eq!(
        related_titles(&depth2),
        BTreeSet::from(["Middle".to_string(), "End".to_string()]),
        "End is two links away"
    );
    assert_eq!(depth2["metadata"]["depth"], 2);
    let text = h.text(
        "build_context",
        json!({"url": "memory://chain/start", "depth": 2, "output_format": "text"}),
    );
    assert!(text.starts_with("# Context: Start"), "{text}");
    assert!(text.ends_with("| depth=2 | project: main*"), "{text}");

    // max_related caps the related items of each primary note.
    let hub_body: String = (1..=6)
        .map(|i| format!("- links [[Spoke {i}]]\n"))
        .collect();
    h.write("Hub", "hub", &hub_body);
    for i in 1..=6 {
        h.write(&format!("Spoke {i}"), "hub", "spoke");
    }
    let capped = h
        .call(
            "build_context",
            json!({"url": "memory://hub/hub", "max_related": 3}),
        )
        .ok()
        .json();
    let n = capped["results"][0]["related_results"]
        .as_array()
        .unwrap()
        .len();
    assert!((1..=3).contains(&n), "max_related=3 gave {n}: {capped}");
    let uncapped = h
        .call(
            "build_context",
            json!({"url": "memory://hub/hub", "max_related": 50}),
        )
        .ok()
        .json();
    assert!(
        uncapped["results"][0]["related_results"]
            .as_array()
            .unwrap()
            .len()
            > 3
    );

    // A folder wildcard pages its primary notes.
    let page1 = h
        .call(
            "build_context",
            json!({"url": "memory://chain/*", "page_size": 2}),
        )
        .ok()
        .json();
    assert_eq!(page1["results"].as_array().unwrap().len(), 2, "{page1}");
    assert_eq!(
        (
            page1["page"].clone(),
            page1["page_size"].clone(),
            page1["has_more"].clone()
        ),
        (json!(1), json!(2), json!(true))
    );
    let page2 = h
        .call(
            "build_context",
            json!({"url": "memory://chain/*", "page_size": 2, "page": 2}),
        )
        .ok()
        .json();
    assert_eq!(page2["results"].as_array().unwrap().len(), 1, "{page2}");
    assert_eq!(page2["has_more"], false);
    let primaries: BTreeSet<String> = page1["results"]
        .as_array()
        .unwrap()
        .iter()
        .chain(page2["results"].as_array().unwrap())
        .map(|r| r["primary_result"]["title"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        primaries,
        BTreeSet::from(["Start".into(), "Middle".into(), "End".into()])
    );

    let missing = h.call(
        "build_context",
        json!({"url": "memory://chain/nothing", "output_format": "text"}),
    );
    assert!(
        !missing.is_error() && missing.text().starts_with("No results found for"),
        "{}",
        missing.text()
    );
}

#[test]
fn without_a_default_project_recent_activity_looks_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let work = root.join("work");
    std::fs::create_dir_all(root.join("projects/main")).unwrap();
    std::fs::create_dir_all(&work).unwrap();
    std::fs::write(root.join("projects/main/a.md"), "# A\n\nin main").unwrap();
    std::fs::write(work.join("b.md"), "# B\n\nin work").unwrap();
    // `default_project = ""`: no default project.
    let config = format!(
        "default_project = \"\"\n\n[projects.main]\npath = \"projects/main\"\n\n[projects.work]\npath = \"{}\"\n",
        work.display()
    );
    std::fs::write(root.join("config.toml"), config).unwrap();
    let h = Harness::prepared(dir);
    h.sync();

    let summary = h.text("recent_activity", json!({}));
    assert!(
        summary.starts_with("## Recent Activity Summary (7d)"),
        "{summary}"
    );
    assert!(
        summary.contains("**Summary:** 2 active projects, 2 recent items"),
        "{summary}"
    );
    let rows = h.json("recent_activity", json!({}));
    let mut projects: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["project"].as_str().unwrap())
        .collect();
    projects.sort();
    assert_eq!(projects, ["main", "work"]);
    let needs_project = h.call(
        "write_note",
        json!({"title": "x", "directory": "d", "content": "x"}),
    );
    assert!(
        needs_project.is_error() && needs_project.text().contains("No project specified"),
        "{}",
        needs_project.text()
    );
}

#[test]
fn a_reindex_of_more_files_than_one_parse_batch_links_early_and_late_notes_both_ways() {
    // More files than a sync parses at a time (5,000): the first file and the last are parsed,
    // and written, in different batches.
    let h = Harness::new();
    let dir = h.main_dir().join("chain");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("Aardvark.md"),
        "# Aardvark\n\n- leads_to [[Zebra]]\n",
    )
    .unwrap();
    for i in 0..5_100 {
        let text = format!("# Filler {i}\n\nwombat\n");
        std::fs::write(dir.join(format!("Filler {i:05}.md")), text).unwrap();
    }
    std::fs::write(dir.join("Zebra.md"), "# Zebra\n\n- leads_to [[Aardvark]]\n").unwrap();
    let project = h.app().project(None).unwrap();
    let report = h.app().rebuild_project(&project, &|_| {}).unwrap();
    assert_eq!(report.created, 5_102);
    for (from, to) in [("aardvark", "Zebra"), ("zebra", "Aardvark")] {
        let url = format!("memory://chain/{from}");
        let ctx = h.call("build_context", json!({ "url": url })).ok().json();
        let related: Vec<&str> = ctx["results"][0]["related_results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["type"] == "entity")
            .map(|r| r["title"].as_str().unwrap())
            .collect();
        assert_eq!(related, [to], "{from} links to {to}");
    }
}
