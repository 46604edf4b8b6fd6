//! The binary over a generated 300-note vault: counts, search, moves, byte stability.

use std::collections::BTreeSet;

use crate::common::*;
use serde_json::Value;

const NOTES: usize = 300;

/// Counts observations, relations and unresolved relations of a generated vault with plain line
/// rules, independently of gitmem's CommonMark parser.
fn expected_counts(vault: &std::path::Path) -> (usize, usize, usize) {
    let (mut observations, mut relations, mut unresolved) = (0, 0, 0);
    for (path, bytes) in snapshot(vault) {
        if path.extension().is_none_or(|e| e != "md") {
            continue;
        }
        let text = String::from_utf8(bytes).unwrap();
        let mut in_code = false;
        let mut section = "";
        let mut seen: BTreeSet<(String, String)> = BTreeSet::new();
        for line in text.lines() {
            if line.starts_with("```") {
                in_code = !in_code;
                continue;
            }
            if in_code {
                continue;
            }
            if let Some(heading) = line.strip_prefix("## ") {
                section = if heading == "Observations" {
                    "obs"
                } else if heading == "Relations" {
                    "rel"
                } else {
                    ""
                };
                continue;
            }
            if section == "obs" && line.starts_with("- [") {
                observations += 1;
                continue;
            }
            if section == "rel" && line.starts_with("- ") {
                let (kind, rest) = line[2..].split_once(' ').unwrap();
                let target = rest
                    .trim_start_matches("[[")
                    .trim_end_matches("]]")
                    .to_string();
                if seen.insert((kind.to_string(), target.clone()))
                    && target.starts_with("Missing Note")
                {
                    unresolved += 1;
                }
                continue;
            }
            let mut rest = line;
            while let Some(start) = rest.find("[[") {
                let end = rest[start..].find("]]").unwrap() + start;
                seen.insert(("links_to".into(), rest[start + 2..end].trim().to_string()));
                rest = &rest[end + 2..];
            }
        }
        relations += seen.len();
    }
    (observations, relations, unresolved)
}

#[test]
fn reindex_counts_searches_and_leaves_every_file_byte_identical() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    let root = dir.path().join("root");
    let generated = make_vault(&vault, NOTES);
    let before = snapshot(&vault);
    root_with_project(&root, &vault);

    let reindex = gitmem(&root, &["reindex", "--project", "vault"]).ok();
    assert!(
        reindex
            .stdout
            .contains(&format!("indexed {} files", generated.files())),
        "{}",
        reindex.stdout
    );

    let status = gitmem(&root, &["status", "--project", "vault", "--json"])
        .ok()
        .json();
    let p = &status["projects"][0];
    let (observations, relations, unresolved) = expected_counts(&vault);
    assert_eq!(p["notes"], NOTES);
    assert_eq!(p["observations"], observations);
    assert_eq!(p["relations"], relations);
    assert_eq!(p["unresolved_relations"], unresolved);
    assert_eq!(
        p["warnings"].as_array().unwrap().len(),
        0,
        "{}",
        p["warnings"]
    );
    assert!(status["index_bytes"].as_u64().unwrap() > 0);

    // Every generated note has a "## Observations" heading and most have several words in
    // common; the title of note 0 is unique.
    let note_0 = std::fs::read_dir(&vault)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.to_string_lossy().ends_with(" 0.md"))
        .expect("note 0 sits at the vault's root");
    let first_title = std::fs::read_to_string(note_0)
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix("# ").map(String::from))
        .unwrap();
    let response = search_json(&root, &first_title, &[]);
    assert_eq!(response["results"][0]["title"], first_title, "{response}");
    assert_eq!(response["results"][0]["type"], "entity");
    assert!(response["results"][0]["score"].as_f64().unwrap() <= 0.0);
    // The title's words are common: the rankings hold more than their window of notes.
    assert_eq!(response["total_is_exact"], false, "{response}");

    let observations_hits = search_json(&root, "memory", &["--page-size", "5"]);
    assert_eq!(observations_hits["results"].as_array().unwrap().len(), 5);
    assert_eq!(observations_hits["has_more"], true);

    assert_eq!(
        snapshot(&vault),
        before,
        "reindex and search must not write to user files"
    );
}

#[test]
fn a_renamed_file_keeps_its_id_permalink_and_links() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    let root = dir.path().join("root");
    make_vault(&vault, NOTES);
    root_with_project(&root, &vault);
    gitmem(&root, &["reindex"]).ok();
    let status_before = gitmem(&root, &["status", "--json"]).ok().json();

    let hit = search_json(&root, "Über Sync", &[])["results"][0].clone();
    let old_path = hit["file_path"].as_str().unwrap().to_string();
    let new_path = format!("archive/renamed {}", old_path.rsplit('/').next().unwrap());
    std::fs::create_dir_all(vault.join("archive")).unwrap();
    std::fs::rename(vault.join(&old_path), vault.join(&new_path)).unwrap();

    // `search` picks up the change before it answers.
    let after = search_json(&root, "Über Sync", &[]);
    let moved = after["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["external_id"] == hit["external_id"])
        .unwrap_or_else(|| panic!("the moved note keeps its id: {after}"));
    assert_eq!(moved["file_path"], new_path);
    assert_eq!(moved["permalink"], hit["permalink"]);
    let status_after = gitmem(&root, &["status", "--json"]).ok().json();
    for key in ["notes", "observations", "relations", "unresolved_relations"] {
        assert_eq!(
            status_after["projects"][0][key], status_before["projects"][0][key],
            "{key}"
        );
    }
}

#[test]
fn bench_generate_writes_the_same_vault_every_time_and_refuses_bad_counts() {
    let dir = tempfile::tempdir().unwrap();
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    let made = make_vault(&a, 40);
    make_vault(&b, 40);
    assert_eq!((made.notes, made.attachments), (40, 1));
    let strip = |root: &std::path::Path| -> Vec<(std::path::PathBuf, Vec<u8>)> {
        snapshot(root)
            .into_iter()
            .map(|(p, bytes)| (p.strip_prefix(root).unwrap().to_path_buf(), bytes))
            .collect()
    };
    assert_eq!(strip(&a), strip(&b));
    assert_eq!(strip(&a).len(), made.files());

    let bad = gitmem(dir.path(), &["bench", "generate", "c", "--notes", "many"]);
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(!dir.path().join("c").exists());
}

#[test]
fn inspect_shows_a_notes_index_view_and_the_rankings_behind_search_in_its_order() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    let root = dir.path().join("root");
    make_vault(&vault, 40);
    root_with_project(&root, &vault);
    gitmem(&root, &["reindex"]).ok();

    for query in ["memory", "project decision", "search index notes"] {
        let inspected = gitmem(&root, &["inspect", "query", query, "--json"])
            .ok()
            .json();
        let fused: Vec<&Value> = inspected["fused"]
            .as_array()
            .unwrap_or_else(|| panic!("{inspected}"))
            .iter()
            .map(|e| &e["title"])
            .collect();
        let searched = search_json(&root, query, &[]);
        let results: Vec<&Value> = searched["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| &r["title"])
            .collect();
        assert_eq!(fused, results, "{query}: inspect's fused order is search's");
        assert!(!fused.is_empty(), "{query}");
    }
    let text = gitmem(&root, &["inspect", "query", "memory"]).ok().stdout;
    assert_mentions(&text, "names (title, aliases, tags, permalink");
    assert_mentions(&text, "no vector ranking");
    assert_mentions(&text, "fused (lexical_only)");

    let first = search_json(&root, "memory", &[])["results"][0]["permalink"]
        .as_str()
        .unwrap()
        .to_string();
    let note = gitmem(&root, &["inspect", "note", &first, "--json"])
        .ok()
        .json();
    assert_eq!(note["permalink"], first.as_str(), "{note}");
    assert_eq!(note["fresh"], true);
    assert!(!note["passages"].as_array().unwrap().is_empty());
    let shown = gitmem(&root, &["inspect", "note", &first]).ok().stdout;
    assert_mentions(&shown, "Checksums (fresh)");
    assert_mentions(&shown, "Passages (");
}

#[test]
fn context_prints_a_cited_pack_within_its_budget() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    let root = dir.path().join("root");
    make_vault(&vault, 40);
    root_with_project(&root, &vault);

    let text = gitmem(
        &root,
        &[
            "context",
            "--task",
            "project decision",
            "--token-budget",
            "200",
        ],
    )
    .ok()
    .stdout;
    assert!(
        text.starts_with("# Context for: project decision\n"),
        "{text}"
    );
    assert!(text.trim_end().chars().count().div_ceil(4) <= 200, "{text}");
    assert!(text.lines().any(|l| l.starts_with("- [")), "{text}");
    let pack = gitmem(&root, &["context", "--task", "project decision", "--json"])
        .ok()
        .json();
    assert_eq!(pack["token_budget"], 4000);
    assert!(
        pack["sections"]["hits"]
            .as_array()
            .is_some_and(|h| !h.is_empty()),
        "{pack}"
    );
    let refused = gitmem(&root, &["context", "--task", "x", "--token-budget", "0"]);
    assert_eq!(refused.code, 1, "{}", refused.stderr);
}
