//! corporatepiyush/mcp-memory's graph tools, in process, on a small graph built with the
//! official tools: people who know each other and work at Acme, one of them alone.
//!
//! ```text
//! Alice -knows-> Bob -knows-> Carol      Dave
//!   |                           |
//!   +--works_at--> Acme <-works_at+      Alice -lives_in-> Paris (no entity)
//! ```

use mcp::tools::ToolReply;
use serde_json::{json, Value};

use crate::{Harness, ReplyExt};

/// The structured content of a reply that must succeed.
fn content(reply: ToolReply) -> Value {
    match reply.ok() {
        ToolReply::Structured { content, .. } => content,
        other => panic!("not structured: {other:?}"),
    }
}

/// The text of a reply that must fail.
fn refusal(reply: ToolReply) -> String {
    assert!(reply.is_error(), "{}", reply.text());
    reply.text()
}

fn relation(from: &str, relation_type: &str, to: &str) -> Value {
    json!({"from": from, "to": to, "relationType": relation_type})
}

fn names(graph: &Value) -> Vec<&str> {
    graph["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect()
}

fn people() -> Harness {
    let h = Harness::new().serving_tools("basic,graph");
    content(h.call(
        "create_entities",
        json!({"entities": [
            {"name": "Alice", "entityType": "person", "observations": ["Likes tea"]},
            {"name": "Bob", "entityType": "person", "observations": ["Plays chess"]},
            {"name": "Carol", "entityType": "person", "observations": []},
            {"name": "Dave", "entityType": "person", "observations": []},
            {"name": "Acme", "entityType": "organization", "observations": []},
        ]}),
    ));
    content(h.call(
        "create_relations",
        json!({"relations": [
            relation("Alice", "knows", "Bob"),
            relation("Alice", "works_at", "Acme"),
            relation("Alice", "lives_in", "Paris"),
            relation("Bob", "knows", "Carol"),
            relation("Carol", "works_at", "Acme"),
        ]}),
    ));
    h
}

#[test]
fn find_path_walks_relations_either_way_breadth_first() {
    let h = people();
    let found = content(h.call("find_path", json!({"from": "Alice", "to": "carol"})));
    assert_eq!(found, json!({"path": ["Alice", "Bob", "Carol"]}));
    // The text is that server's: the bare list, or null.
    assert_eq!(
        h.value("find_path", json!({"from": "Acme", "to": "Bob"})),
        json!(["Acme", "Alice", "Bob"]),
        "relations are followed against their direction too"
    );
    assert_eq!(
        content(h.call("find_path", json!({"from": "Alice", "to": "Dave"}))),
        json!({"path": null})
    );
    assert_eq!(
        h.text("find_path", json!({"from": "Alice", "to": "Dave"})),
        "null"
    );
    assert_eq!(
        content(h.call("find_path", json!({"from": "Bob", "to": "Bob"}))),
        json!({"path": ["Bob"]})
    );
    for (args, message) in [
        (
            json!({"from": "Nobody", "to": "Bob"}),
            "Source entity 'Nobody' not found",
        ),
        (
            json!({"from": "Bob", "to": "Paris"}),
            "Target entity 'Paris' not found",
        ),
    ] {
        let text = refusal(h.call("find_path", args));
        assert!(text.contains(message), "{text}");
    }
}

#[test]
fn find_all_paths_lists_simple_paths_shortest_first_within_its_bounds() {
    let h = people();
    let all = |args: Value| content(h.call("find_all_paths", args))["paths"].clone();
    assert_eq!(
        all(json!({"from": "Alice", "to": "Carol"})),
        json!([["Alice", "Bob", "Carol"], ["Alice", "Acme", "Carol"]])
    );
    assert_eq!(
        all(json!({"from": "Alice", "to": "Carol", "maxPaths": 1})),
        json!([["Alice", "Bob", "Carol"]])
    );
    assert_eq!(
        all(json!({"from": "Alice", "to": "Carol", "maxDepth": 1})),
        json!([]),
        "no path of one hop"
    );
    assert_eq!(all(json!({"from": "Alice", "to": "Dave"})), json!([]));
    assert_eq!(
        h.value(
            "find_all_paths",
            json!({"from": "Bob", "to": "Acme", "maxDepth": 2})
        ),
        json!([["Bob", "Carol", "Acme"], ["Bob", "Alice", "Acme"]])
    );
}

#[test]
fn get_neighbors_follows_a_direction_a_type_and_a_depth() {
    let h = people();
    let out = content(h.call(
        "get_neighbors",
        json!({"name": "Alice", "direction": "out"}),
    ));
    assert_eq!(
        names(&out),
        ["Acme", "Alice", "Bob"],
        "entities only: Paris is none"
    );
    assert_eq!(
        out["relations"],
        json!([
            relation("Alice", "knows", "Bob"),
            relation("Alice", "works_at", "Acme")
        ])
    );
    let incoming = content(h.call(
        "get_neighbors",
        json!({"name": "Acme", "direction": "INCOMING"}),
    ));
    assert_eq!(names(&incoming), ["Acme", "Alice", "Carol"]);
    let none_out = content(h.call("get_neighbors", json!({"name": "Acme", "direction": "out"})));
    assert_eq!(
        none_out,
        json!({"entities": [
        {"name": "Acme", "entityType": "organization", "observations": []}
    ], "relations": []})
    );
    let known = content(h.call(
        "get_neighbors",
        json!({"name": "Alice", "relationType": "knows", "depth": 2}),
    ));
    assert_eq!(names(&known), ["Alice", "Bob", "Carol"]);
    assert_eq!(
        known["relations"],
        json!([
            relation("Alice", "knows", "Bob"),
            relation("Bob", "knows", "Carol")
        ])
    );
    let both = content(h.call("get_neighbors", json!({"name": "Bob"})));
    assert_eq!(
        names(&both),
        ["Alice", "Bob", "Carol"],
        "both ways, one hop by default"
    );
    let text = refusal(h.call("get_neighbors", json!({"name": "Bob", "depth": 17})));
    assert!(text.contains("depth too large (max 16)"), "{text}");
    let text = refusal(h.call("get_neighbors", json!({"name": "Bob", "direction": "up"})));
    assert!(text.contains("direction"), "{text}");
}

#[test]
fn extract_subgraph_grows_from_its_seeds_and_keeps_the_relations_among_them() {
    let h = people();
    let around_bob = content(h.call("extract_subgraph", json!({"names": ["Bob"]})));
    assert_eq!(names(&around_bob), ["Alice", "Bob", "Carol"]);
    assert_eq!(
        around_bob["relations"],
        json!([
            relation("Alice", "knows", "Bob"),
            relation("Bob", "knows", "Carol")
        ])
    );
    let seeds = content(h.call(
        "extract_subgraph",
        json!({"names": ["Alice", "Acme", "Nobody"], "depth": 0}),
    ));
    assert_eq!(
        names(&seeds),
        ["Acme", "Alice"],
        "a name that is no entity is skipped"
    );
    assert_eq!(
        seeds["relations"],
        json!([relation("Alice", "works_at", "Acme")])
    );
    let alone = content(h.call("extract_subgraph", json!({"names": ["Dave"], "depth": 16})));
    assert_eq!(names(&alone), ["Dave"]);
    let text = refusal(h.call("extract_subgraph", json!({"names": ["Dave"], "depth": 17})));
    assert!(text.contains("depth too large (max 16)"), "{text}");
}

#[test]
fn describe_entity_brings_relations_neighbors_and_degree() {
    let h = people();
    let alice = json!({
        "name": "Alice",
        "entityType": "person",
        "observations": ["Likes tea"],
        "relations": [
            relation("Alice", "knows", "Bob"),
            relation("Alice", "works_at", "Acme"),
            relation("Alice", "lives_in", "Paris"),
        ],
        "neighbors": ["Bob", "Acme", "Paris"],
        "degree": 3,
    });
    assert_eq!(
        content(h.call("describe_entity", json!({"name": "alice"}))),
        alice
    );
    assert_eq!(h.value("describe_entity", json!({"name": "Alice"})), alice);
    let text = refusal(h.call("describe_entity", json!({"name": "Nobody"})));
    assert!(text.contains("Nobody not found"), "{text}");
}

#[test]
fn stats_and_type_lists_count_the_graph() {
    let h = people();
    assert_eq!(
        content(h.call("graph_stats", json!({}))),
        json!({"entities": 5, "relations": 5, "observations": 2})
    );
    assert_eq!(
        content(h.call("list_entity_types", json!({}))),
        json!({"types": [{"type": "person", "count": 4}, {"type": "organization", "count": 1}]})
    );
    assert_eq!(
        h.value("list_relation_types", json!({})),
        json!([
            {"type": "knows", "count": 2},
            {"type": "works_at", "count": 2},
            {"type": "lives_in", "count": 1},
        ])
    );
}

#[test]
fn search_relations_filters_by_each_end_and_type() {
    let h = people();
    let found = |args: Value| content(h.call("search_relations", args))["relations"].clone();
    assert_eq!(found(json!({})).as_array().unwrap().len(), 5);
    assert_eq!(
        found(json!({"relationType": "works_at"})),
        json!([
            relation("Alice", "works_at", "Acme"),
            relation("Carol", "works_at", "Acme")
        ])
    );
    assert_eq!(
        found(json!({"from": "carol", "to": "Acme", "relationType": ""})),
        json!([relation("Carol", "works_at", "Acme")])
    );
    assert_eq!(
        found(json!({"to": "Paris"})),
        json!([relation("Alice", "lives_in", "Paris")])
    );
    assert_eq!(found(json!({"from": "Nobody"})), json!([]));
}

#[test]
fn export_graph_writes_json_mermaid_and_dot() {
    let h = people();
    let whole = content(h.call("read_graph", json!({})));
    let json_export = content(h.call("export_graph", json!({})));
    assert_eq!(json_export["format"], "json");
    let parsed: Value = serde_json::from_str(json_export["export"].as_str().unwrap()).unwrap();
    assert_eq!(parsed, whole);
    assert_eq!(h.value("export_graph", json!({"format": "json"})), whole);

    // Ids in the graph's order (Acme, Alice, Bob, Carol, Dave), then Paris, which is no
    // entity.
    let mermaid = h.text("export_graph", json!({"format": "mermaid"}));
    let lines: Vec<&str> = mermaid.lines().collect();
    assert_eq!(lines[0], "graph LR");
    for line in [
        "    n0[\"Acme\"]",
        "    n5[\"Paris\"]",
        "    n1 -->|\"knows\"| n2",
        "    n1 -->|\"lives_in\"| n5",
        "    n3 -->|\"works_at\"| n0",
    ] {
        assert!(lines.contains(&line), "{line} in\n{mermaid}");
    }
    assert_eq!(lines.len(), 1 + 6 + 5);

    let dot = h.text("export_graph", json!({"format": "dot"}));
    assert!(dot.starts_with("digraph knowledge_graph {\n"), "{dot}");
    assert!(dot.ends_with("}\n"), "{dot}");
    for line in [
        "    n1 [label=\"Alice\"];",
        "    n2 -> n3 [label=\"knows\"];",
    ] {
        assert!(dot.lines().any(|l| l == line), "{line} in\n{dot}");
    }
    let text = refusal(h.call("export_graph", json!({"format": "svg"})));
    assert!(text.contains("format"), "{text}");
}

#[test]
fn read_graph_and_search_nodes_page_by_type_and_offset() {
    let h = people();
    let page = content(h.call("read_graph", json!({"entityType": "person", "limit": 2})));
    assert_eq!(names(&page), ["Alice", "Bob"]);
    assert_eq!(
        page["relations"],
        json!([relation("Alice", "knows", "Bob")]),
        "only relations with both ends in the page"
    );
    let next = content(h.call(
        "read_graph",
        json!({"entityType": "person", "offset": 2, "limit": 2}),
    ));
    assert_eq!(names(&next), ["Carol", "Dave"]);
    assert_eq!(next["relations"], json!([]));
    assert_eq!(
        names(&content(h.call("read_graph", json!({"offset": 4})))),
        ["Dave"]
    );
    // Without paging, the official shape: every entity and relation.
    let whole = content(h.call("read_graph", json!({})));
    assert_eq!(whole["relations"].as_array().unwrap().len(), 5);

    let found = content(h.call(
        "search_nodes",
        json!({"query": "person", "offset": 1, "limit": 1}),
    ));
    assert_eq!(names(&found), ["Bob"]);
    assert_eq!(
        found["relations"],
        json!([
            relation("Alice", "knows", "Bob"),
            relation("Bob", "knows", "Carol")
        ]),
        "the relations that start or end at the page's entities"
    );
    let typed = content(h.call(
        "search_nodes",
        json!({"query": "a", "entityType": "organization"}),
    ));
    assert_eq!(names(&typed), ["Acme"]);
    let all = content(h.call("search_nodes", json!({"query": "a"})));
    assert_eq!(
        names(&all),
        ["Acme", "Alice", "Bob", "Carol", "Dave"],
        "Bob plays chess"
    );
}

#[test]
fn upsert_entities_creates_the_new_and_adds_to_the_existing() {
    let h = people();
    let upserted = content(h.call(
        "upsert_entities",
        json!({"entities": [
            {"name": "Alice", "entityType": "robot", "observations": ["Likes tea", "Runs"]},
            {"name": "Eve", "entityType": "person", "observations": ["New here"]},
        ]}),
    ));
    let expected = json!({"results": [
        {"name": "Alice", "entityType": "person", "observations": ["Likes tea", "Runs"]},
        {"name": "Eve", "entityType": "person", "observations": ["New here"]},
    ]});
    assert_eq!(upserted, expected, "an existing entity keeps its type");
    assert!(h.main_dir().join("person/Eve.md").exists());
    assert!(!h.main_dir().join("robot").exists());
    let again = h.value(
        "upsert_entities",
        json!({"entities": [
            {"name": "Alice", "entityType": "robot", "observations": ["Likes tea", "Runs"]},
            {"name": "Eve", "entityType": "person", "observations": ["New here"]},
        ]}),
    );
    assert_eq!(again, expected, "idempotent");
    let alice = std::fs::read_to_string(h.main_dir().join("person/Alice.md")).unwrap();
    assert_eq!(alice.matches("- [note] Runs").count(), 1, "{alice}");
}

#[test]
fn merge_entities_moves_everything_to_the_target_and_repoints_links() {
    let h = people();
    content(h.call(
        "create_entities",
        json!({"entities": [
            {"name": "Robert", "entityType": "person", "observations": ["Plays chess", "Owns a cat"]},
        ]}),
    ));
    content(h.call(
        "create_relations",
        json!({"relations": [relation("Robert", "friend_of", "Bob")]}),
    ));
    h.call(
        "edit_note",
        json!({"identifier": "Bob", "operation": "append", "content": "\nBob prefers mornings."}),
    )
    .ok();
    h.write(
        "Meeting",
        "notes",
        "Met [[Bob|him]] at [[Bob#Work]], not `[[Bob]]`.",
    );

    let merged = content(h.call(
        "merge_entities",
        json!({"source": "Bob", "target": "robert"}),
    ));
    assert_eq!(
        merged,
        json!({"name": "Robert", "entityType": "person", "observations": ["Plays chess", "Owns a cat"]})
    );
    assert!(
        !h.main_dir().join("person/Bob.md").exists(),
        "the source's note is deleted"
    );
    let robert = std::fs::read_to_string(h.main_dir().join("person/Robert.md")).unwrap();
    assert!(
        robert.ends_with("- [note] Owns a cat\n- knows [[Carol]]\n\n## Merged from Bob\n\nBob prefers mornings.\n"),
        "the relation to itself went, the rest of Bob's note came: {robert}"
    );
    let alice = std::fs::read_to_string(h.main_dir().join("person/Alice.md")).unwrap();
    assert!(
        alice.contains("- knows [[Robert]]") && !alice.contains("[[Bob]]"),
        "{alice}"
    );
    let meeting = std::fs::read_to_string(h.main_dir().join("notes/Meeting.md")).unwrap();
    assert!(
        meeting.contains("Met [[Robert|him]] at [[Robert#Work]], not `[[Bob]]`."),
        "{meeting}"
    );

    let around = content(h.call("describe_entity", json!({"name": "Robert"})));
    assert_eq!(
        around["relations"],
        json!([
            relation("Meeting", "links_to", "Robert"),
            relation("Alice", "knows", "Robert"),
            relation("Robert", "knows", "Carol"),
        ])
    );
    assert_eq!(
        content(h.call("batch_get_entities", json!({"names": ["Bob"]}))),
        json!({"entities": [null]})
    );
    let text = refusal(h.call(
        "merge_entities",
        json!({"source": "Bob", "target": "Robert"}),
    ));
    assert!(text.contains("Source entity 'Bob' not found"), "{text}");
    let text = refusal(h.call(
        "merge_entities",
        json!({"source": "Carol", "target": "Zed"}),
    ));
    assert!(text.contains("Target entity 'Zed' not found"), "{text}");
    assert!(
        h.main_dir().join("person/Carol.md").exists(),
        "a refused merge changes nothing"
    );
}

#[test]
fn batch_get_entities_answers_each_name_in_order_with_null_for_the_missing() {
    let h = people();
    let alice = json!({"name": "Alice", "entityType": "person", "observations": ["Likes tea"]});
    let carol = json!({"name": "Carol", "entityType": "person", "observations": []});
    assert_eq!(
        content(h.call(
            "batch_get_entities",
            json!({"names": ["Alice", "Nobody", "carol"]})
        )),
        json!({"entities": [alice, null, carol]})
    );
    assert_eq!(
        h.value("batch_get_entities", json!({"names": ["Nobody"]})),
        json!([null])
    );
    let text = refusal(h.call(
        "batch_get_entities",
        json!({"names": ["Alice"], "limit": 1}),
    ));
    assert!(text.contains("unknown field `limit`"), "{text}");
}
