//! correct_memory: a correction supersedes a note or a memory. The old note is kept and
//! marked; searches, context packs, build_context and the graph hide it unless asked with
//! include_superseded; read_note shows the whole chain.

use mcp::tools::ToolReply;
use serde_json::{json, Value};

use crate::{Harness, ReplyExt};

/// A structured reply's content and text.
fn structured(reply: ToolReply) -> (Value, String) {
    match reply.ok() {
        ToolReply::Linked(reply, _) => structured(*reply),
        ToolReply::Structured { text, content } => (content, text),
        other => panic!("a structured reply: {other:?}"),
    }
}

fn correct(h: &Harness, args: Value) -> Value {
    structured(h.call("correct_memory", args)).0
}

fn found(h: &Harness, args: Value) -> Vec<String> {
    let answer = h.json("search_notes", args);
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["permalink"].as_str().unwrap().to_string())
        .collect()
}

fn released() -> Harness {
    let h = Harness::new().serving_tools("basic,gitmem,graph");
    h.write_with(
        "Release day",
        "decisions",
        "We cut releases on Tuesdays.",
        json!({"note_type": "decision", "tags": ["release"]}),
    );
    h
}

#[test]
fn a_corrected_note_is_kept_marked_and_hidden_until_asked_for() {
    let h = released();
    let old_file = h.main_dir().join("decisions/Release day.md");
    let before = std::fs::read_to_string(&old_file).unwrap();
    let answer = correct(
        &h,
        json!({"identifier": "main/decisions/release-day", "content": "We cut releases on Fridays.", "reason": "the day moved to Friday"}),
    );
    let new = answer["correction"]["permalink"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(
        answer["superseded"]["permalink"],
        "main/decisions/release-day"
    );
    assert_eq!(answer["reason"], "the day moved to Friday");
    assert!(
        new.starts_with("main/decisions/release-day-corrected-"),
        "{new}"
    );

    // The old file keeps its text and gains only the two keys.
    let after = std::fs::read_to_string(&old_file).unwrap();
    assert!(after.contains(&format!("superseded_by: {new}")), "{after}");
    assert!(after.contains("superseded_at: "), "{after}");
    assert_eq!(
        note::frontmatter::body(&after),
        note::frontmatter::body(&before)
    );
    // The correction keeps the folder, type and tags, and says what it supersedes and why.
    let new_note = h.value(
        "read_note",
        json!({"identifier": new, "output_format": "json", "include_frontmatter": true}),
    );
    let fm = &new_note["frontmatter"];
    assert_eq!(fm["type"], "decision");
    assert_eq!(fm["tags"], json!(["release"]));
    assert_eq!(fm["supersedes"], "main/decisions/release-day");
    assert_eq!(fm["correction_reason"], "the day moved to Friday");

    assert_eq!(
        found(&h, json!({"query": "releases"})),
        std::slice::from_ref(&new)
    );
    let mut both = found(&h, json!({"query": "releases", "include_superseded": true}));
    both.sort();
    assert_eq!(
        both,
        ["main/decisions/release-day".to_string(), new.clone()]
    );

    let context = h.json("build_context", json!({"url": "decisions/*"}));
    let primaries: Vec<&str> = context["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["primary_result"]["permalink"].as_str().unwrap())
        .collect();
    assert_eq!(primaries, [new.as_str()]);
    let context = h.json(
        "build_context",
        json!({"url": "decisions/*", "include_superseded": true}),
    );
    assert_eq!(context["results"].as_array().unwrap().len(), 2);

    let (pack, _) = structured(h.call("memory_context", json!({"task": "release day"})));
    assert!(
        !pack.to_string().contains("\"main/decisions/release-day\""),
        "{pack}"
    );
    assert!(pack.to_string().contains(&new), "{pack}");

    let (graph, _) = structured(h.call("read_graph", json!({})));
    let names: Vec<&str> = graph["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert!(!names.contains(&"Release day"), "{names:?}");
    let (graph, _) = structured(h.call("read_graph", json!({"include_superseded": true})));
    assert!(graph.to_string().contains("\"Release day\""), "{graph}");
    let nodes = |args: Value| -> usize {
        let (found, _) = structured(h.call("search_nodes", args));
        found["entities"].as_array().unwrap().len()
    };
    assert_eq!(nodes(json!({"query": "release day"})), 1);
    assert_eq!(
        nodes(json!({"query": "release day", "include_superseded": true})),
        2
    );
}

#[test]
fn read_note_shows_the_chain_from_any_of_its_notes() {
    let h = released();
    let first = correct(
        &h,
        json!({"identifier": "Release day", "content": "We cut releases on Fridays.", "reason": "moved to Friday"}),
    );
    let middle = first["correction"]["permalink"]
        .as_str()
        .unwrap()
        .to_string();
    let second = correct(
        &h,
        json!({"identifier": middle, "content": "We cut releases on Thursdays.", "reason": "moved again", "title": "Release day, final"}),
    );
    let last = second["correction"]["permalink"]
        .as_str()
        .unwrap()
        .to_string();
    assert_eq!(last, "main/decisions/release-day-final");

    let text = h.text(
        "read_note",
        json!({"identifier": "main/decisions/release-day"}),
    );
    let chain = text
        .split("Correction chain (oldest first):\n")
        .nth(1)
        .unwrap();
    let lines: Vec<&str> = chain.lines().collect();
    assert_eq!(lines.len(), 3, "{chain}");
    assert!(lines[0].starts_with("1. [[Release day]] (main/decisions/release-day), superseded "));
    assert!(lines[0].ends_with("<- this note (superseded: read the current one)"));
    assert!(lines[1].contains(&format!(
        "({middle}), correcting: moved to Friday, superseded "
    )));
    assert_eq!(
        lines[2],
        "3. [[Release day, final]] (main/decisions/release-day-final), correcting: moved again <- current"
    );

    let json = h.value(
        "read_note",
        json!({"identifier": last, "output_format": "json"}),
    );
    let chain = &json["correction_chain"];
    assert_eq!(chain["this"], 2);
    assert_eq!(chain["current"], last);
    assert_eq!(chain["notes"][0]["permalink"], "main/decisions/release-day");
    assert_eq!(chain["notes"][2]["reason"], "moved again");

    // A note outside any chain reads exactly as its file.
    h.write("Plain", "misc", "Nothing to correct.");
    let plain = h.text("read_note", json!({"identifier": "main/misc/plain"}));
    assert!(!plain.contains("Correction chain"));
    assert!(h
        .value(
            "read_note",
            json!({"identifier": "main/misc/plain", "output_format": "json"})
        )
        .get("correction_chain")
        .is_none());
}

#[test]
fn a_corrected_memory_is_succeeded_by_a_memory_of_its_kind() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let saved = h.value(
        "memory_save",
        json!({"content": "The user prefers light mode", "type": "preference", "tags": ["ui"], "score": 0.7}),
    );
    let id = saved["id"].as_str().unwrap().to_string();
    let answer = correct(
        &h,
        json!({"identifier": id, "content": "The user prefers dark mode", "reason": "they said so today"}),
    );
    let new_id = answer["correction"]["id"].as_str().unwrap().to_string();
    assert_ne!(new_id, id);
    let new = h.value("memory_get", json!({"id": new_id}));
    assert_eq!(new["type"], "preference");
    assert_eq!(new["tags"], json!(["ui"]));
    assert_eq!(new["score"], json!(0.7));
    assert_eq!(new["content"], "The user prefers dark mode\n");
    let old = h.value("memory_get", json!({"id": id}));
    assert_eq!(old["version"], 2, "marking it superseded is an update");

    let ids = |args: Value| -> Vec<String> {
        let page = h.value("memory_search", args);
        page["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(ids(json!({"query": "mode"})), std::slice::from_ref(&new_id));
    assert_eq!(
        ids(json!({"query": "mode", "include_superseded": true})).len(),
        2
    );

    // The old memory cannot be corrected twice: the answer names the one to correct.
    let again = h.call(
        "correct_memory",
        json!({"identifier": id, "content": "x", "reason": "y"}),
    );
    assert!(again.is_error());
    assert!(
        again.text().contains("corrected already"),
        "{}",
        again.text()
    );
    assert!(again.text().contains("supersedes it"), "{}", again.text());
}

#[test]
fn a_correction_refuses_what_it_cannot_do_and_writes_nothing() {
    let h = released();
    let cases = [
        (
            json!({"identifier": "no-such-note", "content": "x", "reason": "y"}),
            "no note or memory 'no-such-note' to correct",
        ),
        (
            json!({"identifier": "Release day", "content": "x", "reason": "  "}),
            "reason must not be empty",
        ),
        (
            json!({"identifier": "Release day", "content": " ", "reason": "y"}),
            "content must not be empty",
        ),
        (
            json!({"identifier": "Release day", "content": "x"}),
            "reason",
        ),
    ];
    for (args, expected) in cases {
        let reply = h.call("correct_memory", args.clone());
        assert!(reply.is_error(), "{args}");
        assert!(reply.text().contains(expected), "{args}: {}", reply.text());
    }
    let files = std::fs::read_dir(h.main_dir().join("decisions"))
        .unwrap()
        .count();
    assert_eq!(files, 1);
    assert!(
        !std::fs::read_to_string(h.main_dir().join("decisions/Release day.md"))
            .unwrap()
            .contains("superseded_by")
    );
}

/// The entity names of a graph answer.
fn entity_names(graph: &Value) -> Vec<String> {
    graph["entities"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| !e.is_null())
        .map(|e| e["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn every_graph_tool_hides_a_superseded_entity_unless_asked_and_says_why_a_name_is_refused() {
    let h = released();
    h.call(
        "create_entities",
        json!({"entities": [{"name": "Ops team", "entityType": "team", "observations": ["runs releases"]}]}),
    )
    .ok();
    h.call(
        "create_relations",
        json!({"relations": [{"from": "Ops team", "to": "Release day", "relationType": "owns"}]}),
    )
    .ok();
    let answer = correct(
        &h,
        json!({"identifier": "Release day", "content": "We cut releases on Fridays.", "reason": "moved"}),
    );
    let by = answer["correction"]["permalink"].as_str().unwrap();
    let old = "Release day".to_string();
    let with = |mut args: Value| {
        args["include_superseded"] = json!(true);
        args
    };

    // Tools that answer a graph: hidden by default, there when asked for.
    let graph_tools = [
        ("open_nodes", json!({"names": ["Release day", "Ops team"]})),
        ("get_neighbors", json!({"name": "Ops team"})),
        ("extract_subgraph", json!({"names": ["Ops team"]})),
        ("read_graph", json!({})),
        ("search_nodes", json!({"query": "release"})),
    ];
    for (tool, args) in graph_tools {
        let hidden = entity_names(&structured(h.call(tool, args.clone())).0);
        assert!(!hidden.contains(&old), "{tool}: {hidden:?}");
        let shown = entity_names(&structured(h.call(tool, with(args))).0);
        assert!(
            shown.contains(&old),
            "{tool} with include_superseded: {shown:?}"
        );
    }
    let batch = json!({"names": ["Release day", "Ops team"]});
    let (hidden, _) = structured(h.call("batch_get_entities", batch.clone()));
    assert!(hidden["entities"][0].is_null(), "{hidden}");
    assert_eq!(hidden["entities"][1]["name"], "Ops team");
    let (shown, _) = structured(h.call("batch_get_entities", with(batch)));
    assert_eq!(shown["entities"][0]["name"], "Release day", "{shown}");
    let exported = |args: Value| {
        let (export, _) = structured(h.call("export_graph", args));
        entity_names(&serde_json::from_str(export["export"].as_str().unwrap()).unwrap())
    };
    assert!(!exported(json!({})).contains(&old));
    assert!(exported(with(json!({}))).contains(&old));

    // Tools that need the entity a name means refuse a superseded one, naming its successor.
    let by_name = [
        ("describe_entity", json!({"name": "release day"})),
        ("get_neighbors", json!({"name": "Release day"})),
        (
            "find_path",
            json!({"from": "Ops team", "to": "Release day"}),
        ),
        (
            "find_all_paths",
            json!({"from": "Release day", "to": "Ops team"}),
        ),
    ];
    for (tool, args) in by_name {
        let refused = h.call(tool, args.clone());
        assert!(refused.is_error(), "{tool}");
        for needle in [by, "superseded", "include_superseded"] {
            assert!(
                refused.text().contains(needle),
                "{tool}: {}",
                refused.text()
            );
        }
        h.call(tool, with(args)).ok();
    }
    let (described, _) =
        structured(h.call("describe_entity", with(json!({"name": "Release day"}))));
    assert_eq!(described["neighbors"], json!(["Ops team"]), "{described}");
    let (path, _) = structured(h.call(
        "find_path",
        with(json!({"from": "Ops team", "to": "Release day"})),
    ));
    assert_eq!(path["path"], json!(["Ops team", "Release day"]));
    let unknown = h.call("describe_entity", json!({"name": "No such entity"}));
    assert!(!unknown.text().contains("superseded"), "{}", unknown.text());
}
