//! An independent client over stdio: the official MCP Python SDK plays the official memory
//! server's README examples against `serve --tools graph` (`tests/clients/mcp_graph_client.py`),
//! and a Basic Memory client then reads the same knowledge as notes; it walks, exports, upserts
//! and merges with corporatepiyush/mcp-memory's graph tools (`mcp_graph_query_client.py`); it
//! also makes the gitmem specification's calls against `serve --tools gitmem`
//! (`tests/clients/mcp_memory_client.py`), and sees memories decay, get pruned and compacted
//! (`mcp_decay_client.py`).

use std::process::Command;

use crate::common::python::python;
use crate::common::{assert_mentions, gitmem};
use serde_json::{json, Value};

/// Runs a client of `tests/clients/` against a server on `root`; its JSON summary.
fn run_client(client: &str, root: &std::path::Path) -> Value {
    let script = crate::common::workspace_root()
        .join("tests/clients")
        .join(client);
    let output = Command::new(python())
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_gitmem"))
        .arg(root)
        .env_remove("GITMEM_ROOT")
        .env("HF_HUB_OFFLINE", "1")
        .output()
        .expect("running the Python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python client failed:\n{stdout}\n{stderr}"
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

#[test]
fn a_client_of_the_official_memory_server_works_unchanged_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let summary = run_client("mcp_graph_client.py", root);

    assert_eq!(
        summary["tools"],
        json!([
            "add_observations",
            "batch_get_entities",
            "create_entities",
            "create_relations",
            "delete_entities",
            "delete_observations",
            "delete_relations",
            "describe_entity",
            "export_graph",
            "extract_subgraph",
            "find_all_paths",
            "find_path",
            "get_neighbors",
            "graph_stats",
            "list_entity_types",
            "list_relation_types",
            "merge_entities",
            "open_nodes",
            "read_graph",
            "search_nodes",
            "search_relations",
            "upsert_entities"
        ]),
        "--tools graph serves the graph tools only"
    );
    let steps = summary["steps"].as_array().unwrap();
    for step in steps {
        assert_eq!(step["error"], false, "{step}");
    }
    let structured = |i: usize| &steps[i]["structured"];
    let john = json!({
        "name": "John_Smith",
        "entityType": "person",
        "observations": ["Speaks fluent Spanish", "Graduated in 2019", "Prefers morning meetings"],
    });
    let works_at = json!({"from": "John_Smith", "to": "Anthropic", "relationType": "works_at"});
    assert_eq!(structured(1), &json!({"relations": [works_at]}));
    assert_eq!(
        structured(2),
        &json!({"results": [{
            "entityName": "John_Smith",
            "addedObservations": ["Graduated in 2019", "Prefers morning meetings"],
        }]})
    );
    assert_eq!(
        structured(3),
        &json!({"entities": [john], "relations": [works_at]}),
        "search_nodes is case-insensitive and brings the relations of what it found"
    );
    assert_eq!(structured(4)["relations"], json!([works_at]));
    assert_eq!(structured(5)["entities"].as_array().unwrap().len(), 2);
    assert_eq!(
        structured(6),
        &json!({"success": true, "message": "Observations deleted successfully"})
    );
    assert_eq!(steps[6]["text"], "Observations deleted successfully");
    assert_eq!(
        structured(9),
        &json!({
            "entities": [{
                "name": "John_Smith",
                "entityType": "person",
                "observations": ["Speaks fluent Spanish", "Graduated in 2019"],
            }],
            "relations": [],
        })
    );

    // The same knowledge, as a Basic Memory client sees it.
    assert!(!root
        .join("projects/main/organization/Anthropic.md")
        .exists());
    let note = gitmem(
        root,
        &[
            "tool",
            "read_note",
            "--args",
            r#"{"identifier": "John_Smith"}"#,
        ],
    )
    .ok();
    assert_mentions(&note.stdout, "type: person");
    assert_mentions(&note.stdout, "- [note] Graduated in 2019");
    assert!(
        !note.stdout.contains("works_at") && !note.stdout.contains("morning"),
        "{}",
        note.stdout
    );
}

#[test]
fn a_client_of_the_whole_graph_tools_walks_exports_and_merges_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let summary = run_client("mcp_graph_query_client.py", root);
    let tools = summary["tools"].as_object().unwrap();
    assert_eq!(tools.len(), 22, "the official nine and thirteen more");
    for (name, read_only) in [
        ("find_path", true),
        ("export_graph", true),
        ("merge_entities", false),
        ("upsert_entities", false),
    ] {
        assert_eq!(tools[name]["readOnly"], read_only, "{name}");
    }
    let steps = summary["steps"].as_array().unwrap();
    for step in steps {
        assert_eq!(step["error"], false, "{step}");
    }
    let structured = |i: usize| &steps[i]["structured"];
    let knows = json!({"from": "Alice", "to": "Bob", "relationType": "knows"});
    let works_at = json!({"from": "Bob", "to": "Acme", "relationType": "works_at"});
    assert_eq!(structured(2), &json!({"path": ["Alice", "Bob", "Acme"]}));
    assert_eq!(structured(3), &json!({"path": null}));
    assert_eq!(steps[3]["text"], "null");
    assert_eq!(structured(4), &json!({"paths": [["Alice", "Bob", "Acme"]]}));
    assert_eq!(structured(5)["relations"], json!([works_at]));
    assert_eq!(structured(6)["relations"], json!([knows, works_at]));
    assert_eq!(
        (&structured(7)["neighbors"], &structured(7)["degree"]),
        (&json!(["Alice", "Acme"]), &json!(2))
    );
    assert_eq!(
        structured(8),
        &json!({"entities": 4, "relations": 2, "observations": 2})
    );
    assert_eq!(
        structured(9),
        &json!({"types": [{"type": "person", "count": 3}, {"type": "organization", "count": 1}]})
    );
    assert_eq!(structured(11), &json!({"relations": [works_at]}));
    assert_eq!(structured(12)["relations"], json!([knows]));
    assert_eq!(structured(13)["entities"][0]["name"], "Alice");
    assert!(
        steps[14]["text"]
            .as_str()
            .unwrap()
            .starts_with("graph LR\n"),
        "{}",
        steps[14]
    );
    assert_eq!(structured(14)["export"], steps[14]["text"]);
    assert!(steps[15]["text"]
        .as_str()
        .unwrap()
        .starts_with("digraph knowledge_graph {\n"));
    assert_eq!(
        structured(16),
        &json!({"results": [{"name": "Alice", "entityType": "person", "observations": ["Likes tea", "Runs"]}]})
    );
    let robert = json!({"name": "Robert", "entityType": "person", "observations": ["Plays chess"]});
    assert_eq!(structured(17), &robert);
    assert_eq!(structured(18), &json!({"entities": [robert, null]}));
    assert_eq!(
        structured(19),
        &json!({"relations": [{"from": "Alice", "to": "Robert", "relationType": "knows"}]})
    );
    let alice = std::fs::read_to_string(root.join("projects/main/person/Alice.md")).unwrap();
    assert!(alice.contains("- knows [[Robert]]"), "{alice}");
    assert!(!root.join("projects/main/person/Bob.md").exists());
}

#[test]
fn a_client_of_the_gitmem_specification_gets_its_shapes_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let summary = run_client("mcp_memory_client.py", dir.path());
    let calls = summary["calls"].as_array().unwrap();
    let call = |i: usize| {
        let call = &calls[i];
        assert_eq!(call["error"], i == 5, "{call}");
        &call["structured"]
    };
    let saved = call(0);
    let source = json!({"agent": "claude", "session": "s-1", "origin": "chat", "app": "desktop"});
    assert_eq!((&saved["source"], &saved["version"]), (&source, &json!(1)));
    let updated = call(1);
    assert_eq!(
        (&updated["tags"], &updated["score"], &updated["version"]),
        (&json!(["ui", "editor"]), &json!(0.9), &json!(2)),
        "the patch was applied"
    );
    let found = call(2);
    assert_eq!(found["total"], 1);
    assert_eq!(found["items"][0]["id"], saved["id"]);
    assert_eq!(found["items"][0]["source"], source);
    assert_eq!(
        (&call(3)["items"], &call(3)["total"]),
        (&json!([]), &json!(0))
    );
    assert_eq!(call(4)["ok"], true);
    let error = &call(5)["error"];
    assert_eq!(error["code"], "E_NOT_FOUND");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("no memory with id 'no-such-memory'"),
        "{error}"
    );
    assert_eq!(calls[5]["text"], error["message"]);

    // A context pack: the decision is a durable fact, cited, with a link to open it.
    let pack = call(7);
    let decision = call(6)["permalink"].as_str().unwrap().to_string();
    assert_eq!(
        pack["sections"]["facts"][0]["permalink"], decision,
        "{pack}"
    );
    let text = calls[7]["text"].as_str().unwrap();
    assert_mentions(text, &format!("- [{decision}] "));
    assert!(text.chars().count().div_ceil(4) <= 300, "{text}");
    assert_eq!(calls[7]["links"], json!([format!("memory://{decision}")]));

    // A correction supersedes the decision: searches find only the correction unless asked.
    let corrected = call(8);
    assert_eq!(corrected["superseded"]["permalink"], decision.as_str());
    let correction = corrected["correction"]["id"].clone();
    assert_eq!(corrected["reason"], "the release day moved");
    let ids = |i: usize| -> Vec<Value> {
        let mut ids: Vec<Value> = call(i)["items"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].clone())
            .collect();
        ids.sort_by_key(|v| v.to_string());
        ids
    };
    assert_eq!(ids(9), std::slice::from_ref(&correction));
    let mut both = vec![correction, call(6)["id"].clone()];
    both.sort_by_key(|v| v.to_string());
    assert_eq!(ids(10), both);
}

/// Issue 26 over stdio (`mcp_timeline_client.py`): recent_activity grouped by session and by
/// type, search_notes diversified, and Chinese searched in both scripts.
#[test]
fn a_client_groups_activity_diversifies_search_and_searches_chinese_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let summary = run_client("mcp_timeline_client.py", dir.path());
    let steps = summary["steps"].as_array().unwrap();
    for step in steps {
        assert_eq!(step["error"], false, "{step}");
    }
    let json = |i: usize| -> Value {
        match &steps[i]["structured"] {
            Value::Null => serde_json::from_str(steps[i]["text"].as_str().unwrap()).unwrap(),
            v => v.clone(),
        }
    };
    let keys = |v: &Value| -> Vec<String> {
        v["groups"]
            .as_array()
            .unwrap()
            .iter()
            .map(|g| format!("{}:{}", g["key"].as_str().unwrap(), g["count"]))
            .collect()
    };
    // The notes were written in order, so the newest group is the last one's.
    assert_eq!(
        keys(&json(0)),
        ["(none):8", "s-1:2", "s-2:1"],
        "{}",
        json(0)
    );
    let by_type = steps[1]["text"].as_str().unwrap();
    assert_mentions(by_type, "by type\n\n### note (8)\n");
    assert_mentions(by_type, "\n### meeting (2)\n");
    let titles = |v: Value| -> Vec<String> {
        v["results"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r["title"].as_str().unwrap().to_string())
            .collect()
    };
    let distinct = "Kafka consumer rebalance with static membership".to_string();
    assert!(!titles(json(2)).contains(&distinct), "{}", json(2));
    assert!(titles(json(3)).contains(&distinct), "{}", json(3));
    assert_eq!(titles(json(4))[0], "周会纪要");
    assert_eq!(
        titles(json(5))[0],
        "讀書筆記",
        "simplified finds traditional"
    );
}

#[test]
fn a_client_sees_memories_decay_get_pruned_and_compacted_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let summary = run_client("mcp_decay_client.py", dir.path());
    let calls = summary["calls"].as_array().unwrap();
    for call in calls {
        assert_eq!(call["error"], false, "{call}");
    }
    let answer = |i: usize| &calls[i]["structured"];
    let relevance = |i: usize| answer(i)["relevance"].as_f64().unwrap();
    assert!(
        (relevance(3) - 1.0 / 32.0).abs() < 0.01,
        "five half-lives: {}",
        answer(3)
    );
    assert!(
        relevance(4) > 0.99,
        "the first read reinforced it: {}",
        answer(4)
    );
    let titles = |i: usize, list: &str| -> Vec<String> {
        answer(i)[list]
            .as_array()
            .unwrap_or_else(|| panic!("{}", answer(i)))
            .iter()
            .map(|n| n["title"].as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(titles(5, "pruned"), ["Kookaburra nest in tree hollows"]);
    assert_eq!(answer(5)["pruned"][0]["action"], "would_soft_delete");
    assert_eq!(titles(6, "pruned"), ["Kookaburra nest in tree hollows"]);
    assert_eq!(answer(6)["pruned"][0]["action"], "soft_deleted");
    assert_eq!(titles(7, "folded"), ["Kookaburra are kingfishers"]);
    assert!(answer(7)["summary"].is_null());
    let summary_path = answer(8)["summary"]["file_path"].as_str().unwrap();
    let text =
        std::fs::read_to_string(dir.path().join("projects/main").join(summary_path)).unwrap();
    assert_mentions(
        &text,
        "Kookaburra are kingfishers: Kookaburra are kingfishers",
    );
    assert!(dir
        .path()
        .join("projects/main/memories/Kookaburra are kingfishers.md")
        .exists());
    let entities = |i: usize| -> Vec<&str> {
        answer(i)["entities"]
            .as_array()
            .unwrap_or_else(|| panic!("{}", answer(i)))
            .iter()
            .map(|e| e["name"].as_str().unwrap())
            .collect()
    };
    assert!(entities(9).is_empty(), "folded, so hidden: {}", answer(9));
    assert_eq!(entities(10), ["Kookaburra are kingfishers"]);
}

/// Basic Memory 0.24's checksummed writes and raised refusals, as its clients see them over
/// stdio: `isError` on every refusal, the revision conflict's payload, line and metadata reads.
#[test]
fn a_basic_memory_0_24_client_writes_by_revision_and_sees_refusals_as_errors() {
    let dir = tempfile::tempdir().unwrap();
    let s = run_client("mcp_revision_client.py", dir.path());
    let step = |name: &str| {
        (
            s[name]["error"].as_bool().unwrap(),
            s[name]["text"].as_str().unwrap().to_string(),
        )
    };
    let first = s["first_checksum"].as_str().unwrap();
    assert_eq!(first.len(), 64, "{s}");
    assert_eq!(s["read_checksum_is_the_writes"], true, "{s}");
    let (error, replaced) = step("replace");
    assert!(!error, "{replaced}");
    let current: Value = serde_json::from_str(&replaced).unwrap();
    let (error, stale) = step("stale");
    assert!(error, "a stale revision is an error result: {stale}");
    let stale: Value = serde_json::from_str(&stale).unwrap();
    assert_eq!(stale["error"], "NOTE_REVISION_CONFLICT");
    assert_eq!(stale["currentChecksum"], current["checksum"]);
    let (error, exists) = step("exists");
    assert!(
        error && exists.starts_with("# Error: Note already exists"),
        "{exists}"
    );
    let (error, absent) = step("absent_text");
    assert!(error && absent.contains("Text Not Found"), "{absent}");
    let (error, lines) = step("lines");
    assert!(!error);
    for needle in ["Lines 1-2 of", "1: ---", "2: title: Plan"] {
        assert_mentions(&lines, needle);
    }
    let (error, metadata) = step("metadata");
    assert!(!error);
    let metadata: Value = serde_json::from_str(&metadata).unwrap();
    assert_eq!(metadata["checksum"], current["checksum"]);
    assert!(metadata.get("content").is_none(), "{metadata}");
}
