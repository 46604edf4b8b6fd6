//! Memories that age (issue 26, parts 2 and 4): a decaying memory's relevance and the uses
//! that reinforce it, search's `boost`, memory_prune and memory_compact. Time is never slept
//! for: memories are written with old `created_at` / `updated_at`.

use chrono::{Duration, SecondsFormat, Utc};
use serde_json::{json, Value};

use crate::harness::Harness;
use crate::memory::search_ids;

/// An RFC 3339 time `days` ago.
fn days_ago(days: i64) -> String {
    (Utc::now() - Duration::days(days)).to_rfc3339_opts(SecondsFormat::Secs, true)
}

fn relevance(memory: &Value) -> f64 {
    memory["relevance"]
        .as_f64()
        .unwrap_or_else(|| panic!("no relevance: {memory}"))
}

fn assert_near(got: f64, expected: f64, what: &str) {
    assert!((got - expected).abs() < 0.01, "{what}: {got} != {expected}");
}

/// Saves a memory; answers its id.
fn save(h: &Harness, args: Value) -> String {
    h.value("memory_save", args)["id"]
        .as_str()
        .unwrap()
        .to_string()
}

#[test]
fn a_decaying_memory_answers_its_relevance_and_a_read_reinforces_it() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let id = save(
        &h,
        json!({"content": "Numbat sightings near the creek", "decay": "P7D", "created_at": days_ago(28)}),
    );
    let plain = save(&h, json!({"content": "Numbats eat termites"}));
    let file = h
        .main_dir()
        .join("memories/Numbat sightings near the creek.md");
    let before = std::fs::read(&file).unwrap();

    let first = h.value("memory_get", json!({"id": id}));
    assert_eq!(first["decay"], "P7D");
    assert_near(
        relevance(&first),
        1.0 / 16.0,
        "four half-lives after its update",
    );
    let second = h.value("memory_get", json!({"id": id}));
    assert_near(relevance(&second), 1.0, "the first read was a use");
    assert_eq!(
        std::fs::read(&file).unwrap(),
        before,
        "a use never rewrites the file"
    );

    let undecaying = h.value("memory_get", json!({"id": plain}));
    assert!(undecaying.get("relevance").is_none() && undecaying.get("decay").is_none());
    let refused = h.call("memory_save", json!({"content": "x", "decay": "weekly"}));
    assert!(
        refused.is_error() && refused.text().contains("decay"),
        "{}",
        refused.text()
    );
}

#[test]
fn a_search_that_finds_a_memory_and_a_read_of_its_note_are_uses() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let found = save(
        &h,
        json!({"content": "Bilby burrows are spiral", "decay": "P7D", "created_at": days_ago(28)}),
    );
    let read = save(
        &h,
        json!({"content": "Echidna spines are hollow", "decay": "P7D", "created_at": days_ago(28)}),
    );
    let page = h.json("search_notes", json!({"query": "bilby burrows"}));
    assert_eq!(crate::titles(&page), ["Bilby burrows are spiral"]);
    h.text(
        "read_note",
        json!({"identifier": "memories/Echidna spines are hollow"}),
    );
    for id in [found, read] {
        let memory = h.value("memory_get", json!({"id": id}));
        assert_near(relevance(&memory), 1.0, &id);
    }
}

#[test]
fn uses_survive_a_restart_and_a_reindex() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let id = save(
        &h,
        json!({"content": "Quoll dens in hollow logs", "decay": "P7D", "created_at": days_ago(28)}),
    );
    h.value("memory_get", json!({"id": id}));
    let h = h.reopen().serving_tools("basic,gitmem");
    let project = h.app().project(None).unwrap();
    h.app().rebuild_project(&project, &|_| {}).unwrap();
    let after = h.value("memory_get", json!({"id": id}));
    assert_near(relevance(&after), 1.0, "the use before the restart counts");
}

/// Two notes of the same length and title words with `extra` front matter each; the first
/// says "wombat" twice, so it ranks first by a little.
fn twins(first: &str, second: &str) -> Harness {
    let h = Harness::new();
    std::fs::create_dir_all(h.main_dir()).unwrap();
    let notes = [
        (
            "Wombat notes one",
            first,
            "Wombat burrows and wombat diets.",
        ),
        (
            "Wombat notes two",
            second,
            "Wombat burrows and possum diets.",
        ),
    ];
    for (name, extra, body) in notes {
        std::fs::write(
            h.main_dir().join(format!("{name}.md")),
            format!("---\ntitle: {name}\ntype: note\n{extra}\n---\n\n{body}\n"),
        )
        .unwrap();
    }
    h.sync();
    h
}

fn order(h: &Harness, boost: Option<Value>) -> Vec<String> {
    let mut args = json!({"query": "wombat burrows", "search_type": "text"});
    if let Some(boost) = boost {
        args["boost"] = boost;
    }
    crate::titles(&h.json("search_notes", args))
}

#[test]
fn without_a_boost_the_ranking_is_unchanged() {
    let h = twins(
        &format!("updated_at: {}", days_ago(400)),
        &format!("updated_at: {}", days_ago(1)),
    );
    let plain = order(&h, None);
    assert_eq!(plain.len(), 2);
    assert_eq!(order(&h, Some(json!([]))), plain);
    assert_eq!(
        h.json(
            "search_notes",
            json!({"query": "wombat burrows", "search_type": "text"})
        ),
        h.json(
            "search_notes",
            json!({"query": "wombat burrows", "search_type": "text", "boost": []})
        ),
        "byte for byte"
    );
    let refused = h.call("search_notes", json!({"query": "wombat", "boost": "fresh"}));
    assert!(refused.is_error() && refused.text().contains("Invalid boost"));
}

#[test]
fn a_boost_puts_the_newer_or_the_more_important_of_two_equal_notes_first() {
    // The first ranks first without a boost, so each boost must overturn that.
    let h = twins(
        &format!("updated_at: {}", days_ago(400)),
        &format!("updated_at: {}", days_ago(1)),
    );
    assert_eq!(order(&h, None), ["Wombat notes one", "Wombat notes two"]);
    assert_eq!(
        order(&h, Some(json!("recency"))),
        ["Wombat notes two", "Wombat notes one"]
    );
    let h = twins("score: 0.2", "score: 0.9");
    assert_eq!(order(&h, None), ["Wombat notes one", "Wombat notes two"]);
    assert_eq!(
        order(&h, Some(json!(["score"]))),
        ["Wombat notes two", "Wombat notes one"]
    );
    let h = twins(
        &format!("decay: P7D\nupdated_at: {}", days_ago(70)),
        &format!("decay: P7D\nscore: 0.5\nupdated_at: {}", days_ago(1)),
    );
    assert_eq!(
        order(&h, Some(json!(["score", "recency"]))),
        ["Wombat notes two", "Wombat notes one"],
        "a decayed memory's importance is its relevance"
    );
}

#[test]
fn prune_soft_deletes_decayed_memories_only_and_a_dry_run_changes_nothing() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let faded = |content: &str| {
        save(
            &h,
            json!({"content": content, "decay": "P7D", "created_at": days_ago(35)}),
        )
    };
    let read = faded("Platypus lay eggs");
    faded("Platypus sweat milk");
    save(
        &h,
        json!({"content": "Platypus hunt with electroreception", "decay": "P7D"}),
    );
    save(
        &h,
        json!({"content": "Platypus are monotremes", "created_at": days_ago(900)}),
    );
    let file = |name: &str| h.main_dir().join(format!("memories/{name}.md"));
    let dry = h.value("memory_prune", json!({"dry_run": true}));
    assert_eq!(dry["threshold"], 0.1);
    let pruned = dry["pruned"].as_array().unwrap();
    assert_eq!(pruned.len(), 2, "{dry}");
    assert_eq!(pruned[0]["action"], "would_soft_delete");
    let five_half_lives = pruned[0]["relevance"].as_f64().unwrap();
    assert_near(five_half_lives, 1.0 / 32.0, "five half-lives");
    assert_eq!(
        dry["kept"], 1,
        "the fresh one; the one without decay is never counted"
    );
    for name in ["Platypus lay eggs", "Platypus sweat milk"] {
        let text = std::fs::read_to_string(file(name)).unwrap();
        assert!(
            !text.contains("deleted_at"),
            "a dry run changes nothing: {text}"
        );
    }

    h.value("memory_get", json!({"id": read}));
    let done = h.value("memory_prune", json!({}));
    let taken: Vec<&str> = done["pruned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        taken,
        ["Platypus sweat milk"],
        "the read one is fresh again"
    );
    assert_eq!(done["pruned"][0]["action"], "soft_deleted");
    assert_eq!(done["kept"], 2);
    let text = std::fs::read_to_string(file("Platypus sweat milk")).unwrap();
    assert!(
        text.contains("deleted_at:"),
        "soft-deleted, file kept: {text}"
    );
    let found = h.value("memory_search", json!({"query": "platypus"}));
    assert_eq!(found["total"], 3, "searches hide it: {found}");

    let hard = h.value("memory_prune", json!({"hard": true}));
    assert_eq!(hard["pruned"][0]["action"], "deleted", "{hard}");
    assert!(!file("Platypus sweat milk").exists());
    assert!(file("Platypus lay eggs").exists() && file("Platypus are monotremes").exists());
    let refused = h.call("memory_prune", json!({"threshold": 2}));
    assert!(refused.is_error() && refused.text().contains("threshold"));
}

#[test]
fn compact_folds_old_low_value_memories_into_one_summary_and_deletes_nothing() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let old = days_ago(90);
    let a = save(
        &h,
        json!({"content": "Dingo tracks by the dam\nseen twice", "score": 0.2, "created_at": old}),
    );
    let b = save(
        &h,
        json!({"content": "Dingo howl at dusk", "score": 0.3, "created_at": old}),
    );
    let kept = [
        json!({"content": "Dingo pups in spring", "score": 0.2}),
        json!({"content": "Dingo are protected", "score": 0.9, "created_at": old}),
        json!({"content": "Dingo fence decision", "type": "decision", "score": 0.1, "created_at": old}),
    ];
    for args in kept {
        save(&h, args);
    }
    std::fs::write(
        h.main_dir().join("memories/Pinned dingo.md"),
        format!("---\ntitle: Pinned dingo\npinned: true\nscore: 0.1\nupdated_at: {old}\n---\n\nDingo pinned\n"),
    )
    .unwrap();
    h.sync();
    let files = || walkdir(&h.main_dir());

    let dry = h.value(
        "memory_compact",
        json!({"older_than": "P30D", "dry_run": true}),
    );
    assert!(dry["summary"].is_null());
    let titles: Vec<&str> = dry["folded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        ["Dingo howl at dusk", "Dingo tracks by the dam"],
        "{dry}"
    );
    let before = files();

    let done = h.value("memory_compact", json!({"older_than": "30d"}));
    let summary = done["summary"]["permalink"].as_str().unwrap().to_string();
    let path = done["summary"]["file_path"].as_str().unwrap();
    assert!(
        path.starts_with("compacted/") && path.ends_with("-summary.md"),
        "{path}"
    );
    let after = files();
    assert_eq!(
        after.len(),
        before.len() + 1,
        "one summary written, nothing deleted"
    );
    let text = std::fs::read_to_string(h.main_dir().join(path)).unwrap();
    for folded in done["folded"].as_array().unwrap() {
        let line = format!(
            "- [[{}]] {}: ",
            folded["permalink"].as_str().unwrap(),
            folded["title"].as_str().unwrap()
        );
        assert!(text.contains(&line), "{line} in {text}");
    }
    assert!(
        text.contains("Dingo tracks by the dam: Dingo tracks by the dam\n"),
        "{text}"
    );
    assert!(text.contains("supersedes:"), "{text}");
    for id in [&a, &b] {
        let memory = h.value("memory_get", json!({"id": id}));
        assert!(
            memory["tags"]
                .as_array()
                .unwrap()
                .contains(&json!("compacted")),
            "{memory}"
        );
    }
    let original =
        std::fs::read_to_string(h.main_dir().join("memories/Dingo howl at dusk.md")).unwrap();
    assert!(
        original.contains(&format!("superseded_by: {summary}")),
        "{original}"
    );

    // The originals are hidden as superseded; asked for, they are found beside the summary.
    let found = |args: Value| search_ids(&h, args);
    let hidden = found(json!({"query": "dingo howl"}));
    assert!(!hidden.contains(&a) && !hidden.contains(&b), "{hidden:?}");
    let shown = found(json!({"query": "dingo howl", "include_superseded": true}));
    assert!(shown.contains(&b), "{shown:?}");
    let notes = h.json("search_notes", json!({"query": "howl"}));
    let permalinks: Vec<&str> = notes["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["permalink"].as_str().unwrap())
        .collect();
    assert_eq!(permalinks, [summary.as_str()], "{notes}");

    let again = h.value("memory_compact", json!({"older_than": "P30D"}));
    assert!(
        again["folded"].as_array().unwrap().is_empty(),
        "folded once: {again}"
    );
    let refused = h.call("memory_compact", json!({"older_than": "a while"}));
    assert!(refused.is_error() && refused.text().contains("older_than"));
}

/// Every file under `dir`, relative.
fn walkdir(dir: &std::path::Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                out.push(path.strip_prefix(dir).unwrap().display().to_string());
            }
        }
    }
    out.sort();
    out
}
