//! Observation and relation rows of search_notes: found through their note's search document,
//! each matched by its own text (docs/search-quality.md, "Observation and relation rows").

use serde_json::{json, Value};

use crate::Harness;

const RUNBOOK: &str = "Restart the ingest workers when the queue stalls.\n\n## Observations\n- [fact] The queue lives in Redis #ops\n- [tip] Check the dead-letter list first\n- [fact] Workers restart themselves after a deploy\n\n## Relations\n- depends_on [[Redis]]\n- documented_in [[Ops Handbook]]";

/// (type, category or relation type, content or title) of each row of a search.
fn rows(found: &Value) -> Vec<(String, String, String)> {
    found["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results: {found}"))
        .iter()
        .map(|r| {
            let kind = r["type"].as_str().unwrap_or_default().to_string();
            let (label, text) = match kind.as_str() {
                "observation" => (&r["category"], &r["content"]),
                "relation" => (&r["relation_type"], &r["title"]),
                _ => (&r["type"], &r["title"]),
            };
            let string = |v: &Value| v.as_str().unwrap_or_default().to_string();
            (kind.clone(), string(label), string(text))
        })
        .collect()
}

fn observations(h: &Harness, args: Value) -> Vec<(String, String)> {
    let mut args = args;
    args["entity_types"] = json!(["observation"]);
    rows(&h.json("search_notes", args))
        .into_iter()
        .map(|(_, category, content)| (category, content))
        .collect()
}

#[test]
fn an_observation_is_found_by_its_own_words_not_by_its_notes_other_lines() {
    let h = Harness::with_notes(&[("Runbook", RUNBOOK), ("Redis", "An in-memory store.")]);
    let fact = (
        "fact".to_string(),
        "The queue lives in Redis #ops".to_string(),
    );
    let tip = (
        "tip".to_string(),
        "Check the dead-letter list first".to_string(),
    );
    let cases: Vec<(Value, Vec<(String, String)>)> = vec![
        // Every word of a strict query, in the observation itself.
        (json!({"query": "queue AND Redis"}), vec![fact.clone()]),
        // A question needs one word; the observation holding more comes first.
        (
            json!({"query": "where does the queue live in redis"}),
            vec![fact.clone()],
        ),
        // A typo of a word of five letters or more, and the start of the last word.
        (json!({"query": "Rdeis"}), vec![fact.clone()]),
        (json!({"query": "dead-let"}), vec![tip.clone()]),
        // The category is part of what the observation says.
        (json!({"query": "tip"}), vec![tip.clone()]),
        // Categories narrow the rows; a category no note has finds nothing.
        (
            json!({"query": "check", "categories": ["tip"]}),
            vec![tip.clone()],
        ),
        (json!({"query": "check", "categories": ["fact"]}), vec![]),
        (json!({"query": "check", "categories": ["nowhere"]}), vec![]),
        // Words of the note that no observation holds find no observation.
        (json!({"query": "ingest stalls"}), vec![]),
    ];
    for (args, expected) in cases {
        assert_eq!(observations(&h, args.clone()), expected, "{args}");
    }
    // Without a query, every observation of the category.
    let facts = observations(&h, json!({"categories": ["fact"]}));
    assert_eq!(facts.len(), 2, "{facts:?}");
    assert!(facts.iter().all(|(c, _)| c == "fact"), "{facts:?}");
}

#[test]
fn a_relation_is_found_by_its_notes_title_and_its_target_as_written() {
    let h = Harness::with_notes(&[("Runbook", RUNBOOK), ("Redis", "An in-memory store.")]);
    let relations = |query: &str| -> Vec<(String, String)> {
        let found = h.json(
            "search_notes",
            json!({"query": query, "entity_types": ["relation"]}),
        );
        rows(&found)
            .into_iter()
            .map(|(_, kind, title)| (kind, title))
            .collect()
    };
    assert_eq!(
        relations("handbook"),
        [(
            "documented_in".to_string(),
            "Runbook".to_string() // unresolved: upstream shows the source title alone
        )]
    );
    let both = relations("runbook");
    assert_eq!(both.len(), 2, "{both:?}");
    assert_eq!(
        relations("redis"),
        [("depends_on".to_string(), "Runbook -> Redis".to_string())]
    );
    // The note's body is not a relation's text.
    assert!(relations("ingest").is_empty());
}

#[test]
fn notes_and_their_parts_asked_together_come_back_fused_with_one_total() {
    let h = Harness::with_notes(&[("Runbook", RUNBOOK), ("Redis", "An in-memory store.")]);
    let found = h.json(
        "search_notes",
        json!({"query": "redis", "entity_types": ["entity", "observation", "relation"]}),
    );
    let kinds: std::collections::BTreeSet<String> =
        rows(&found).into_iter().map(|(kind, ..)| kind).collect();
    assert_eq!(
        kinds,
        ["entity", "observation", "relation"]
            .map(String::from)
            .into(),
        "{found}"
    );
    // Two notes say "redis", one observation and one relation hold it.
    assert_eq!(found["total"], 4, "{found}");
    assert_eq!(found["total_is_exact"], true, "{found}");
    // Pages cut the fused list.
    let second = h.json(
        "search_notes",
        json!({"query": "redis", "entity_types": ["entity", "observation", "relation"], "page": 2, "page_size": 3}),
    );
    assert_eq!(second["results"].as_array().unwrap().len(), 1, "{second}");
}

/// Basic Memory 0.24's rows say how long the content they show was, and whether the 4,000
/// characters shown are all of it.
#[test]
fn rows_give_the_content_length_and_whether_it_was_cut() {
    let h = Harness::new();
    let long = format!("kestrel {}", "word ".repeat(1200));
    h.write("Long Kestrel", "birds", &long);
    h.write("Short Kestrel", "birds", "kestrel in short");
    let found = h.json("search_notes", json!({"query": "kestrel"}));
    let results = found["results"].as_array().unwrap();
    let by_title: std::collections::HashMap<&str, &Value> = results
        .iter()
        .map(|r| (r["title"].as_str().unwrap(), r))
        .collect();
    let row = |title: &str| by_title[title].clone();
    let long_row = row("Long Kestrel");
    assert_eq!(long_row["content_truncated"], true, "{long_row}");
    assert!(long_row["content_length"].as_u64().unwrap() > 4000);
    assert_eq!(long_row["content"].as_str().unwrap().chars().count(), 4000);
    let short_row = row("Short Kestrel");
    assert_eq!(short_row["content_truncated"], false);
    assert_eq!(
        short_row["content_length"].as_u64().unwrap() as usize,
        short_row["content"].as_str().unwrap().chars().count()
    );
}
