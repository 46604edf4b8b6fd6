//! The diagnostics family: inspect_note (a note as the index sees it) and inspect_query (each
//! ranking search_notes fuses, and its fused order, which must be search_notes' own).

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::common::model;
use crate::{titles, Harness};

/// A root serving Basic Memory's tools and the diagnostics family.
fn diagnosing(notes: &[(&str, &str)]) -> Harness {
    Harness::with_notes(notes).serving_tools("basic,diagnostics")
}

const RUNBOOK: &str = "Restart the ingest workers when the queue stalls.\n\n## Observations\n- [fact] The queue lives in Redis #ops\n- [tip] Check the dead-letter list first\n\n## Relations\n- depends_on [[Redis]]\n\n## Escalation\nPage the on-call engineer after ten minutes.";

/// Titles of a list of ranked entries.
fn entry_titles(entries: &Value) -> Vec<String> {
    entries
        .as_array()
        .unwrap_or_else(|| panic!("not a list of entries: {entries}"))
        .iter()
        .map(|e| e["title"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn sha256(text: &str) -> String {
    hex::encode(Sha256::digest(text.as_bytes()))
}

#[test]
fn inspect_note_shows_search_documents_passages_and_checksums_and_goes_stale_on_an_edit() {
    let h = diagnosing(&[("Runbook", RUNBOOK), ("Redis", "An in-memory store.")]);
    let v = h.value("inspect_note", json!({"identifier": "runbook"}));
    assert_eq!(v["title"], "Runbook", "{v}");
    assert_eq!(v["file_path"], "Runbook.md");
    assert_eq!(v["permalink"], "main/runbook");
    let checksums = &v["checksums"];
    assert_eq!(checksums["file"], checksums["graph"], "{checksums}");
    assert_eq!(checksums["search_index"], checksums["graph"], "{checksums}");
    assert_eq!(v["fresh"], true);

    // One document: the note's observations and relations are found through it, and the
    // observations' categories filter it.
    let docs = v["search_documents"].as_array().unwrap();
    assert_eq!(docs.len(), 1, "{docs:?}");
    assert_eq!(docs[0]["title"], "Runbook");
    let headings = docs[0]["headings"].to_string();
    assert!(headings.contains("Escalation"), "{headings}");
    assert!(docs[0]["content"]
        .as_str()
        .unwrap()
        .contains("The queue lives in Redis"));
    assert_eq!(docs[0]["category"], json!(["fact", "tip"]));
    assert!(docs[0].get("relation_type").is_none(), "{docs:?}");

    let passages = v["passages"].as_array().unwrap();
    assert!(passages.len() >= 2, "cut by heading: {passages:?}");
    for p in passages {
        let text = p["text"].as_str().unwrap();
        assert!(text.starts_with("Runbook"), "a passage carries its title");
        assert_eq!(p["checksum"], sha256(text), "the checksum is the text's");
        assert_eq!(p["has_vector"], false, "no model, no vectors");
    }
    assert!(passages.iter().any(|p| p["heading"] == "Escalation"));
    assert_eq!(v["vectors"]["model"], Value::Null);
    assert_eq!(v["vectors"]["current"], false);

    let file = h.main_dir().join("Runbook.md");
    let mut text = std::fs::read_to_string(&file).unwrap();
    text.push_str("\nAlso drain the retry topic.\n");
    std::fs::write(&file, text).unwrap();
    let stale = h.value("inspect_note", json!({"identifier": "Runbook"}));
    assert_eq!(stale["fresh"], false, "{stale}");
    assert_ne!(stale["checksums"]["file"], stale["checksums"]["graph"]);
    assert_eq!(
        stale["checksums"]["graph"], checksums["graph"],
        "the index still holds the old text"
    );
    h.sync();
    let synced = h.value("inspect_note", json!({"identifier": "Runbook"}));
    assert_eq!(synced["fresh"], true, "{synced}");
    assert_eq!(synced["checksums"]["file"], stale["checksums"]["file"]);

    let missing = h.value("inspect_note", json!({"identifier": "No such note"}));
    assert_eq!(missing["error"], "NOT_FOUND", "{missing}");
}

/// Notes where what a note is named and what it says disagree, so the two lexical rankings
/// differ and their fusion decides.
const GARDEN: &[(&str, &str)] = &[
    ("Tomato seedlings", "Sow indoors in March; harden off before planting out."),
    (
        "Greenhouse log",
        "The tomato plants by the door wilt in the afternoon; the tomato leaves curl. Tomato watering twice a day helps.",
    ),
    ("Compost", "Turn the heap monthly; add tomato stems last."),
    ("Bird feeder", "Refill with sunflower seed on Sundays."),
];

#[test]
fn inspect_query_gives_each_ranking_and_the_fused_order_search_notes_gives() {
    let h = diagnosing(GARDEN);
    for query in [
        "tomato",
        "tomato seedlings watering",
        "how do I water tomato plants",
    ] {
        let v = h.value("inspect_query", json!({"query": query}));
        assert_eq!(v["ranked"], true, "{v}");
        assert_eq!(v["mode"], "text");
        let rankings = &v["rankings"];
        assert!(!entry_titles(&rankings["names"]).is_empty(), "{rankings}");
        assert!(!entry_titles(&rankings["body"]).is_empty(), "{rankings}");
        assert!(
            rankings["vector"]["absent"]
                .as_str()
                .unwrap()
                .contains("no embedding model"),
            "{rankings}"
        );
        assert_eq!(v["fusion"]["kind"], "lexical_only");
        for entry in rankings["body"].as_array().unwrap() {
            assert!(
                entry["score"].as_f64().unwrap() > 0.0,
                "BM25 scores: {entry}"
            );
        }
        let searched = h.json("search_notes", json!({"query": query}));
        assert_eq!(
            entry_titles(&v["fused"]),
            titles(&searched),
            "{query}: the fused order is search_notes' order"
        );
        assert_eq!(entry_titles(&v["fused"]), entry_titles(&v["results"]));
    }
    let named = h.value("inspect_query", json!({"query": "tomato seedlings"}));
    assert_eq!(
        entry_titles(&named["rankings"]["names"])[0],
        "Tomato seedlings"
    );
    let said = h.value("inspect_query", json!({"query": "tomato watering"}));
    assert_eq!(entry_titles(&said["rankings"]["body"])[0], "Greenhouse log");

    let short = h.value("inspect_query", json!({"query": "tomato", "limit": 2}));
    assert_eq!(short["fused"].as_array().unwrap().len(), 2);
    let boolean = h.value("inspect_query", json!({"query": "tomato OR sunflower"}));
    assert_eq!(boolean["ranked"], false, "{boolean}");
    assert!(!titles(&boolean).is_empty());
    let text = h.call("inspect_query", json!({"query": "tomato", "limit": 0}));
    assert!(text.is_error(), "{}", text.text());
}

#[test]
fn the_diagnostics_family_is_served_only_when_asked_and_basic_memorys_stays_basic() {
    let basic = Harness::with_notes(GARDEN);
    let refused = basic.call("inspect_note", json!({"identifier": "Compost"}));
    assert!(refused.is_error());
    assert!(
        refused.text().contains("--tools diagnostics"),
        "{}",
        refused.text()
    );
    assert!(!basic.call("basic_memory_diagnostics", json!({})).is_error());
    let all = Harness::with_notes(GARDEN).serving_tools("all");
    let dotted = all.value("diagnostics.inspect_note", json!({"identifier": "Compost"}));
    assert_eq!(dotted["title"], "Compost");
}

/// Notes that share no content word with the question asked of them.
const MEANINGS: &[(&str, &str)] = &[
    (
        "Bicycle care",
        "Oil the chain every few hundred kilometres and wipe off the excess, so that the gears shift smoothly and nothing rattles or squeals.",
    ),
    (
        "Pasta dinner",
        "Boil salted water, cook the spaghetti until al dente, then toss it with garlic, olive oil and parmesan.",
    ),
];

#[test]
fn with_a_model_inspect_shows_the_vector_ranking_and_which_model_embedded_each_passage() {
    let h = diagnosing(MEANINGS);
    h.app()
        .install_model(model::source().to_str().unwrap(), Some("mini"), &|_| {})
        .expect("installing the test model");
    h.app().embed_pending(&|_| {}).expect("embedding the notes");

    let note = h.value("inspect_note", json!({"identifier": "Bicycle care"}));
    let vectors = &note["vectors"];
    assert_eq!(vectors["model"], "mini", "{vectors}");
    assert_eq!(vectors["dimensions"], 384);
    assert_eq!(vectors["current"], true);
    assert!(vectors["embedded_at"].is_string(), "{vectors}");
    assert_eq!(
        note["checksums"]["vectors"],
        note["checksums"]["search_index"]
    );
    for p in note["passages"].as_array().unwrap() {
        assert_eq!(p["has_vector"], true, "{p}");
    }

    let question = "my cycle makes a squeaky noise when I ride";
    let v = h.value("inspect_query", json!({"query": question}));
    assert_eq!(v["mode"], "hybrid", "{v}");
    assert_eq!(entry_titles(&v["rankings"]["vector"])[0], "Bicycle care");
    assert_eq!(v["fusion"]["kind"], "rrf");
    assert!(v["fusion"]["vector_weight"].as_f64().is_some(), "{v}");
    let searched = h.json("search_notes", json!({"query": question}));
    assert_eq!(entry_titles(&v["fused"]), titles(&searched));
}
