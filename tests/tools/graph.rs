//! The official memory server's knowledge-graph tools, in process, on the examples of its
//! README (John_Smith, Anthropic, works_at): the same parameters and result shapes, and the
//! notes they become.

use mcp::tools::ToolReply;
use serde_json::{json, Value};

use crate::memory::refused;
use crate::{Harness, ReplyExt};

/// The structured content of a graph tool's reply; its text must be the same result,
/// pretty-printed (or the message of a delete).
trait GraphCall {
    fn graph(&self, tool: &str, args: Value) -> Value;
}

impl GraphCall for Harness {
    fn graph(&self, tool: &str, args: Value) -> Value {
        match self.call(tool, args.clone()).ok() {
            ToolReply::Structured { text, content } => {
                let shown = match content.as_object().map(|m| m.len()) {
                    Some(1) => content
                        .as_object()
                        .unwrap()
                        .values()
                        .next()
                        .unwrap()
                        .clone(),
                    _ => content.clone(),
                };
                let expected = match content.get("message") {
                    Some(message) => message.as_str().unwrap().to_string(),
                    None => serde_json::to_string_pretty(&shown).unwrap(),
                };
                assert_eq!(text, expected, "{tool} {args}");
                content
            }
            other => panic!("{tool} answered {other:?}"),
        }
    }
}

fn john_and_anthropic(h: &Harness) {
    h.graph("create_entities",
        json!({"entities": [
            {"name": "John_Smith", "entityType": "person", "observations": ["Speaks fluent Spanish"]},
            {"name": "Anthropic", "entityType": "organization", "observations": []},
        ]}),
    );
    h.graph("create_relations",
        json!({"relations": [{"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"}]}),
    );
}

#[test]
fn entities_are_notes_in_the_folder_of_their_type() {
    let h = Harness::new().serving_tools("basic,graph");
    let created = h.graph("create_entities",
        json!({"entities": [
            {"name": "John_Smith", "entityType": "person", "observations": ["Speaks fluent Spanish", "Speaks fluent Spanish"]},
            {"name": "Anthropic", "entityType": "organization", "observations": []},
        ]}),
    );
    assert_eq!(
        created,
        json!({"entities": [
            {"name": "John_Smith", "entityType": "person", "observations": ["Speaks fluent Spanish"]},
            {"name": "Anthropic", "entityType": "organization", "observations": []},
        ]})
    );
    let file = std::fs::read_to_string(h.main_dir().join("person/John_Smith.md")).unwrap();
    assert_eq!(
        file,
        "---\ntitle: John_Smith\ntype: person\npermalink: main/person/john-smith\n---\n\n# John_Smith\n- [note] Speaks fluent Spanish\n"
    );
    // Names that exist already are skipped, as upstream skips them.
    let again = h.graph("create_entities",
        json!({"entities": [{"name": "John_Smith", "entityType": "person", "observations": ["x"]}]}),
    );
    assert_eq!(again, json!({"entities": []}));
    // A Basic Memory client reads the same note.
    let read = h.text("read_note", json!({"identifier": "person/john-smith"}));
    assert!(read.contains("- [note] Speaks fluent Spanish"), "{read}");
}

#[test]
fn relations_and_observations_are_list_items_of_the_from_entity() {
    let h = Harness::new().serving_tools("basic,graph");
    john_and_anthropic(&h);
    let duplicate = h.graph(
        "create_relations",
        json!({"relations": [
            {"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"},
            {"from": "John_Smith", "to": "Madrid", "relationType": "lived in"},
        ]}),
    );
    assert_eq!(
        duplicate,
        json!({"relations": [{"from": "John_Smith", "to": "Madrid", "relationType": "lived in"}]})
    );
    let added = h.graph(
        "add_observations",
        json!({"observations": [{"entityName": "John_Smith", "contents": [
            "Speaks fluent Spanish", "Graduated in 2019", "Prefers morning meetings"
        ]}]}),
    );
    assert_eq!(
        added,
        json!({"results": [{"entityName": "John_Smith", "addedObservations": ["Graduated in 2019", "Prefers morning meetings"]}]})
    );
    let file = std::fs::read_to_string(h.main_dir().join("person/John_Smith.md")).unwrap();
    assert!(
        file.ends_with("# John_Smith\n- [note] Speaks fluent Spanish\n- works_at [[Anthropic]]\n- \"lived in\" [[Madrid]]\n- [note] Graduated in 2019\n- [note] Prefers morning meetings\n"),
        "{file}"
    );
    let whole = h.graph("read_graph", json!({}));
    assert_eq!(
        whole["relations"],
        json!([
            {"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"},
            {"from": "John_Smith", "to": "Madrid", "relationType": "lived in"},
        ])
    );
    // build_context, Basic Memory's graph walk, follows the same relation.
    let context = h.text(
        "build_context",
        json!({"url": "memory://person/john-smith"}),
    );
    assert!(context.contains("Anthropic"), "{context}");
}

#[test]
fn search_and_open_return_entities_with_the_relations_that_touch_them() {
    let h = Harness::new().serving_tools("basic,graph");
    john_and_anthropic(&h);
    h.write(
        "Ideas",
        "notes",
        "- [idea] Ask John_Smith about Spanish classes #learning",
    );
    let found = h.graph("search_nodes", json!({"query": "SPANISH"}));
    let names: Vec<&str> = found["entities"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["Ideas", "John_Smith"]);
    assert_eq!(
        found["entities"][0]["observations"],
        json!(["[idea] Ask John_Smith about Spanish classes #learning"])
    );
    assert_eq!(
        found["relations"],
        json!([{"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"}])
    );
    assert_eq!(
        h.graph("search_nodes", json!({"query": "organization"}))["entities"][0]["name"],
        "Anthropic"
    );
    let opened = h.graph("open_nodes", json!({"names": ["Anthropic", "Nobody"]}));
    assert_eq!(
        opened,
        json!({
            "entities": [{"name": "Anthropic", "entityType": "organization", "observations": []}],
            "relations": [{"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"}],
        })
    );
}

#[test]
fn deletes_remove_lines_and_notes_and_report_what_is_not_there() {
    let h = Harness::new().serving_tools("basic,graph");
    john_and_anthropic(&h);
    let done = h.graph(
        "delete_observations",
        json!({"deletions": [
            {"entityName": "John_Smith", "observations": ["Speaks fluent Spanish", "never said"]},
            {"entityName": "Nobody", "observations": ["x"]},
        ]}),
    );
    assert_eq!(
        done,
        json!({"success": true, "message": "Deleted 1 of 3 observations. Entities not found: Nobody"})
    );
    h.graph("create_relations",
        json!({"relations": [{"from": "Anthropic", "to": "John_Smith", "relationType": "employs"}]}),
    );
    let employs = json!({"from": "Anthropic", "to": "John_Smith", "relationType": "employs"});
    assert_eq!(
        h.graph("delete_relations", json!({"relations": [employs]}))["message"],
        "Relations deleted successfully"
    );
    assert_eq!(
        h.graph("delete_relations", json!({"relations": [employs]}))["message"],
        "Deleted 0 of 1 relations. The rest matched nothing."
    );
    let anthropic =
        std::fs::read_to_string(h.main_dir().join("organization/Anthropic.md")).unwrap();
    assert!(!anthropic.contains("employs"), "{anthropic}");
    // Deleting an entity deletes its note and the relations other notes hold to it.
    assert_eq!(
        h.graph(
            "delete_entities",
            json!({"entityNames": ["Anthropic", "Nobody"]}),
        )["message"],
        "Deleted 1 of 2 entities. Not found: Nobody"
    );
    assert!(!h.main_dir().join("organization/Anthropic.md").exists());
    assert_eq!(
        h.graph("read_graph", json!({})),
        json!({
            "entities": [{"name": "John_Smith", "entityType": "person", "observations": []}],
            "relations": [],
        })
    );
}

#[test]
fn bad_graph_input_is_refused_and_writes_nothing() {
    let h = Harness::new().serving_tools("basic,graph");
    john_and_anthropic(&h);
    let cases = [
        ("create_entities", json!({}), "entities"),
        ("create_entities", json!({"entities": "John"}), "entities"),
        (
            "create_entities",
            json!({"entities": [{"name": " ", "entityType": "person", "observations": []}]}),
            "name must not be empty",
        ),
        (
            "create_relations",
            json!({"relations": [{"from": "Ghost", "to": "Anthropic", "relationType": "haunts"}]}),
            "Entity with name Ghost not found",
        ),
        (
            "add_observations",
            json!({"observations": [
                {"entityName": "John_Smith", "contents": ["written?"]},
                {"entityName": "Ghost", "contents": ["boo"]},
            ]}),
            "Entity with name Ghost not found",
        ),
        (
            "create_entities",
            json!({"entities": [
                {"name": "Written first?", "entityType": "person", "observations": []},
                {"name": "..", "entityType": "person", "observations": []},
            ]}),
            "entities[1]: the name '..' makes no file name",
        ),
        (
            // `John:Smith` would be written to John-Smith.md, beside John_Smith.md: fine; but
            // `John/Smith` and `John:Smith` in one batch would share a file.
            "create_entities",
            json!({"entities": [
                {"name": "John/Smith", "entityType": "person", "observations": []},
                {"name": "John:Smith", "entityType": "person", "observations": []},
            ]}),
            "entities[1]: 'John:Smith' would be written to person/John-Smith.md, which holds another note",
        ),
        (
            "create_relations",
            json!({"relations": [{"from": "John_Smith", "to": "C#", "relationType": "uses"}]}),
            "relations[0]: to 'C#' cannot be the target of a [[link]]",
        ),
        ("search_nodes", json!({}), "query"),
        ("open_nodes", json!({"names": 3}), "names"),
    ];
    for (tool, args, expected) in cases {
        refused(&h, tool, args, expected);
    }
    let john = std::fs::read_to_string(h.main_dir().join("person/John_Smith.md")).unwrap();
    assert!(!john.contains("written?"), "{john}");
    for never in ["person/Written first.md", "person/John-Smith.md"] {
        assert!(!h.main_dir().join(never).exists(), "{never}");
    }
}

#[test]
fn a_field_the_graph_tools_do_not_know_is_refused_by_name() {
    let h = Harness::new().serving_tools("basic,graph");
    john_and_anthropic(&h);
    let cases = [
        (
            "create_entities",
            json!({"entities": [{"name": "Bob", "entityTyp": "person", "entityType": "person", "observations": []}]}),
            "unknown field `entityTyp` in entities[0]; expected one of name, entityType, observations",
        ),
        (
            "create_relations",
            json!({"relations": [{"from": "John_Smith", "to": "Anthropic", "relationType": "likes", "weight": 2}]}),
            "unknown field `weight` in relations[0]; expected one of from, to, relationType",
        ),
        (
            "add_observations",
            json!({"observations": [{"entityName": "John_Smith", "contents": ["x"], "observations": ["y"]}]}),
            "unknown field `observations` in observations[0]; expected one of entityName, contents",
        ),
        (
            "delete_entities",
            json!({"entityNames": ["Anthropic"], "cascade": true}),
            "unknown field `cascade`; expected one of entityNames, project, project_id",
        ),
        (
            "read_graph",
            json!({"depth": 2}),
            "unknown field `depth`; expected one of entityType, offset, limit, include_superseded, project, project_id",
        ),
        (
            "search_nodes",
            json!({"query": "john", "depth": 5}),
            "unknown field `depth`; expected one of query, entityType, offset, limit, include_superseded, project, project_id",
        ),
    ];
    for (tool, args, expected) in cases {
        refused(&h, tool, args, expected);
    }
    assert!(!h.main_dir().join("person/Bob.md").exists());
    let john = std::fs::read_to_string(h.main_dir().join("person/John_Smith.md")).unwrap();
    assert!(
        !john.contains("likes") && !john.contains("- [note] x"),
        "{john}"
    );
    // The project may be named as by every other tool.
    h.graph("read_graph", json!({"project": "main"}));
    h.graph(
        "open_nodes",
        json!({"names": ["Anthropic"], "project_id": "main"}),
    );
}
