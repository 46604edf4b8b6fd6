//! What only a running `gitmem serve` shows: the protocol (initialize, tools/list, prompts,
//! resources), how tool replies become MCP content, a stdout that carries nothing but JSON-RPC,
//! and the initial indexing in the background. Tool behaviour is tested in process, in
//! `tests/tools/`.
//!
//! Every test starts its own server on a fresh temporary root, whose default project is `main`
//! at `<root>/projects/main`.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::mcp::{ready, Mcp};
use crate::common::{assert_mentions, gitmem, SLOW};
use serde_json::{json, Value};
use tempfile::TempDir;

/// A server on a fresh root.
fn server() -> (TempDir, Mcp) {
    let dir = tempfile::tempdir().unwrap();
    let mcp = Mcp::start(dir.path());
    (dir, mcp)
}

fn main_dir(root: &Path) -> PathBuf {
    root.join("projects/main")
}

/// write_note that must succeed.
fn write(mcp: &mut Mcp, title: &str, directory: &str, content: &str) {
    mcp.call(
        "write_note",
        json!({"title": title, "directory": directory, "content": content}),
    )
    .ok();
}

/// A tool call with `output_format: "json"` that must succeed; its JSON.
fn jcall(mcp: &mut Mcp, tool: &str, mut args: Value) -> Value {
    args["output_format"] = json!("json");
    let reply = mcp.call(tool, args.clone());
    assert!(!reply.is_error, "{tool} {args}: {}", reply.text);
    reply.json()
}

fn total(v: &Value) -> u64 {
    v["total"]
        .as_u64()
        .unwrap_or_else(|| panic!("no total: {v}"))
}

/// Compat 13, item 1: the server introduces itself as Basic Memory.
#[test]
fn initialize_names_the_server_and_gives_instructions() {
    let (_dir, mcp) = server();
    assert_eq!(mcp.initialize["serverInfo"]["name"], "Basic Memory");
    assert!(mcp.initialize["instructions"]
        .as_str()
        .unwrap()
        .contains("recent_activity"));
}

#[test]
fn tools_list_has_the_36_tools_with_annotations_and_object_schemas() {
    let (_dir, mut mcp) = server();
    let listed = mcp.request("tools/list", json!({}));
    let tools = listed["tools"].as_array().expect("tools/list has tools");

    // (name, readOnlyHint, destructiveHint) — compat 1.2, plus canvas (compat 10),
    // sync_status (compat 8.8), the history tools, the linked-folder tools (design 7) and
    // Basic Memory's POSIX and schema tools.
    let expected = [
        ("write_note", false, true),
        ("read_note", true, false),
        ("view_note", true, false),
        ("edit_note", false, true),
        ("move_note", false, false),
        ("delete_note", false, true),
        ("read_content", true, false),
        ("note_history", true, false),
        ("note_diff", true, false),
        ("restore_note", false, true),
        ("search_notes", true, false),
        ("recent_activity", true, false),
        ("build_context", true, false),
        ("list_directory", true, false),
        ("list_memory_projects", true, false),
        ("list_workspaces", true, false),
        ("create_memory_project", false, false),
        ("delete_project", false, true),
        ("canvas", false, false),
        ("sync_status", true, false),
        ("search", true, false),
        ("fetch", true, false),
        ("basic_memory_diagnostics", true, false),
        ("link_folder", false, false),
        ("unlink_folder", false, true),
        ("list_links", true, false),
        ("sync", false, false),
        ("cat", true, false),
        ("grep", true, false),
        ("ls", true, false),
        ("find", true, false),
        ("tail", true, false),
        ("man", true, false),
        ("schema_validate", true, false),
        ("schema_infer", true, false),
        ("schema_diff", true, false),
    ];
    let names: BTreeSet<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let wanted: BTreeSet<&str> = expected.iter().map(|e| e.0).collect();
    assert_eq!(names, wanted);
    assert_eq!(
        tools.len(),
        36,
        "no duplicates, no dotted names unless asked"
    );

    for (name, read_only, destructive) in expected {
        let tool = tools.iter().find(|t| t["name"] == name).unwrap();
        let a = &tool["annotations"];
        assert!(
            a["title"].as_str().is_some_and(|t| !t.is_empty()),
            "{name}: {a}"
        );
        assert_eq!(a["readOnlyHint"], read_only, "{name}: {a}");
        assert_eq!(a["destructiveHint"], destructive, "{name}: {a}");
        assert_eq!(a["openWorldHint"], false, "{name}: {a}");
        assert_eq!(tool["inputSchema"]["type"], "object", "{name}");
        assert!(
            tool["description"].as_str().is_some_and(|d| !d.is_empty()),
            "{name}"
        );
    }

    let titles = [
        ("write_note", "Write Note"),
        ("read_note", "Read Note"),
        ("search_notes", "Search Notes"),
        ("build_context", "Build Context"),
        ("search", "Search Knowledge Base"),
        ("fetch", "Fetch Document"),
        ("basic_memory_diagnostics", "Basic Memory Diagnostics"),
    ];
    for (name, title) in titles {
        let tool = tools.iter().find(|t| t["name"] == name).unwrap();
        assert_eq!(tool["annotations"]["title"], title, "{name}");
    }

    let write = tools.iter().find(|t| t["name"] == "write_note").unwrap();
    let required: BTreeSet<&str> = write["inputSchema"]["required"]
        .as_array()
        .expect("write_note has required parameters")
        .iter()
        .map(|r| r.as_str().unwrap())
        .collect();
    assert_eq!(required, BTreeSet::from(["title", "content", "directory"]));
    assert_eq!(write["annotations"]["idempotentHint"], false);
    let canvas = tools.iter().find(|t| t["name"] == "canvas").unwrap();
    assert_eq!(canvas["annotations"]["idempotentHint"], true);
}

/// `serve --tools` picks the tool families: the default is Basic Memory's; a graph or memory
/// API tool asked of it names the flag that serves it.
#[test]
fn tool_families_are_served_as_serve_tools_names_them() {
    let dir = tempfile::tempdir().unwrap();
    let mut default = Mcp::start(dir.path());
    let refused = default.call("create_entities", json!({"entities": []}));
    assert!(refused.is_error);
    assert_mentions(&refused.text, "gitmem serve --tools graph");
    let dotted = default.call("memory.save", json!({"content": "x"}));
    assert_mentions(&dotted.text, "gitmem serve --tools gitmem --dotted-names");
    drop(default);

    let mut all = Mcp::start_with(dir.path(), &["--tools", "all", "--dotted-names"]);
    let listed = all.request("tools/list", json!({}));
    let names: BTreeSet<&str> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for name in [
        "write_note",
        "read_graph",
        "memory_save",
        "memory.save",
        "memory.import.basic",
    ] {
        assert!(names.contains(name), "{name} missing from {names:?}");
    }
    let saved = all
        .call(
            "memory.save",
            json!({"content": "Served with every family"}),
        )
        .ok();
    assert_mentions(&saved.text, "\"id\"");
    drop(all);

    let bad = gitmem(dir.path(), &["serve", "--tools", "graph,memory"]);
    assert_ne!(bad.code, 0);
    assert_mentions(&bad.stderr, "unknown tool profile 'memory'");
}

/// Compat 1.3: a JSON reply is compact JSON text plus the same value as structured content,
/// lists wrapped in `result`; a text reply has no structured content.
#[test]
fn json_replies_carry_structured_content_and_text_replies_none() {
    let (_dir, mut mcp) = server();
    let elsewhere = tempfile::tempdir().unwrap();
    for n in ["a", "b", "c"] {
        write(
            &mut mcp,
            &format!("Fmt {n}"),
            "fmt",
            &format!("formatword {n}"),
        );
    }
    #[rustfmt::skip]
    let rows: Vec<(&str, Value)> = vec![
        ("write_note", json!({"title": "Fmt Json", "directory": "fmt", "content": "x"})),
        ("read_note", json!({"identifier": "fmt/fmt-a"})),
        ("edit_note", json!({"identifier": "fmt/fmt-a", "operation": "append", "content": "more"})),
        ("move_note", json!({"identifier": "fmt/fmt-b", "destination_path": "moved/Fmt b.md"})),
        ("delete_note", json!({"identifier": "fmt/fmt-c"})),
        ("search_notes", json!({"query": "formatword"})),
        ("list_directory", json!({})),
        ("list_memory_projects", json!({})),
        ("create_memory_project", json!({"project_name": "fmt-json", "project_path": elsewhere.path().to_str().unwrap()})),
    ];
    for (tool, mut args) in rows {
        args["output_format"] = json!("json");
        let reply = mcp.call(tool, args.clone()).ok();
        let v = reply.json();
        assert!(v.is_object(), "{tool}: {v}");
        assert_eq!(
            reply.text,
            serde_json::to_string(&v).unwrap(),
            "{tool}: compact JSON"
        );
        assert_eq!(
            reply.structured.as_ref(),
            Some(&v),
            "{tool}: structuredContent"
        );
    }
    let list_reply = mcp
        .call("recent_activity", json!({"output_format": "json"}))
        .ok();
    let list = list_reply.json();
    assert!(list.is_array(), "{list}");
    assert_eq!(
        list_reply.structured,
        Some(json!({"result": list})),
        "lists are wrapped in `result`"
    );
    assert_eq!(mcp.call("recent_activity", json!({})).ok().structured, None);
}

#[test]
fn prompts_and_resources_are_served() {
    let (_dir, mut mcp) = server();
    write(&mut mcp, "Prompt Note", "p", "promptword");
    let listed = mcp.request("prompts/list", json!({}));
    let names: BTreeSet<&str> = listed["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(
        names,
        BTreeSet::from([
            "continue_conversation",
            "getting_started",
            "recent_activity",
            "search_knowledge_base"
        ])
    );
    // (prompt, arguments, text the message contains)
    #[rustfmt::skip]
    let rows: Vec<(&str, Value, &str)> = vec![
        ("continue_conversation", json!({}), "Prompt Note"),
        ("continue_conversation", json!({"topic": "promptword"}), "Prompt Note"),
        ("getting_started", json!({}), "main"),
        ("recent_activity", json!({}), "Prompt Note"),
        ("recent_activity", json!({"timeframe": "1 week"}), "Prompt Note"),
        ("search_knowledge_base", json!({"query": "promptword"}), "Prompt Note"),
    ];
    for (name, args, text) in rows {
        let got = mcp.request("prompts/get", json!({"name": name, "arguments": args}));
        assert!(got.get("error").is_none(), "{name}: {got}");
        let messages = got["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 1, "{name}: {got}");
        assert_eq!(messages[0]["role"], "user");
        assert_eq!(messages[0]["content"]["type"], "text");
        let body = messages[0]["content"]["text"].as_str().unwrap();
        assert!(body.contains(text), "{name} {args}: {body}");
    }
    let no_query = mcp.request(
        "prompts/get",
        json!({"name": "search_knowledge_base", "arguments": {}}),
    );
    assert!(no_query.get("error").is_some(), "{no_query}");
    let unknown = mcp.request("prompts/get", json!({"name": "no_such_prompt"}));
    assert!(unknown.get("error").is_some(), "{unknown}");

    let resources = mcp.request("resources/list", json!({}));
    assert!(
        resources["resources"]
            .as_array()
            .unwrap()
            .iter()
            .any(|r| r["uri"] == "memory://ai_assistant_guide"),
        "{resources}"
    );
    let guide = mcp.request(
        "resources/read",
        json!({"uri": "memory://ai_assistant_guide"}),
    );
    assert_eq!(guide["contents"][0]["mimeType"], "text/markdown", "{guide}");
    assert!(
        guide["contents"][0]["text"]
            .as_str()
            .unwrap()
            .starts_with('#'),
        "{guide}"
    );

    let templates = mcp.request("resources/templates/list", json!({}));
    assert!(
        templates["resourceTemplates"]
            .as_array()
            .unwrap()
            .iter()
            .any(|t| t["uriTemplate"] == "memory://{workspace}/{project}/info"),
        "{templates}"
    );
    let info = mcp.request("resources/read", json!({"uri": "memory://local/main/info"}));
    let info_json: Value =
        serde_json::from_str(info["contents"][0]["text"].as_str().unwrap()).unwrap();
    assert_eq!(info_json["project_name"], "main");
    assert!(info_json["statistics"].is_object(), "{info_json}");
    assert_eq!(info_json["statistics"]["total_entities"], 1, "{info_json}");
    let unknown_resource =
        mcp.request("resources/read", json!({"uri": "memory://local/nope/info"}));
    assert!(
        unknown_resource.get("error").is_some(),
        "{unknown_resource}"
    );
}

#[test]
fn notes_are_resources_linked_from_results_and_completed() {
    let (_dir, mut mcp) = server();
    assert_eq!(mcp.initialize["serverInfo"]["title"], "gitmem");
    assert!(mcp.initialize["serverInfo"]["icons"][0]["src"]
        .as_str()
        .unwrap()
        .starts_with("data:image/svg+xml"));
    assert!(mcp.initialize["capabilities"]["completions"].is_object());
    let tools = mcp.request("tools/list", json!({}));
    for tool in tools["tools"].as_array().unwrap() {
        assert!(
            tool["icons"][0]["src"]
                .as_str()
                .unwrap_or("")
                .starts_with("data:image/svg+xml"),
            "{tool}"
        );
    }
    write(&mut mcp, "Alpha", "a", "alphaword about the first letter");
    write(&mut mcp, "Beta", "a/b", "betaword below alpha");
    for n in 0..105 {
        write(&mut mcp, &format!("Filler {n}"), "filler", "padding");
    }

    // Listed page by page: the guide, then every note with a permalink.
    let mut uris = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let params = match &cursor {
            Some(c) => json!({"cursor": c}),
            None => json!({}),
        };
        let page = mcp.request("resources/list", params);
        pages += 1;
        for r in page["resources"].as_array().unwrap() {
            uris.push(r["uri"].as_str().unwrap().to_string());
        }
        match page["nextCursor"].as_str() {
            Some(next) => cursor = Some(next.to_string()),
            None => break,
        }
    }
    assert_eq!(pages, 2, "{uris:?}");
    assert_eq!(uris.len(), 1 + 107, "the guide and every note, once");
    assert!(uris.contains(&"memory://main/a/alpha".to_string()));

    let note = mcp.request("resources/read", json!({"uri": "memory://main/a/b/beta"}));
    assert_eq!(note["contents"][0]["mimeType"], "text/markdown");
    assert!(note["contents"][0]["text"]
        .as_str()
        .unwrap()
        .contains("betaword"));
    let templates = mcp.request("resources/templates/list", json!({}));
    assert!(templates["resourceTemplates"]
        .as_array()
        .unwrap()
        .iter()
        .any(|t| t["uriTemplate"] == "memory://{project}/{+permalink}"));

    // search_notes and build_context link the notes they name.
    let found = mcp.request(
        "tools/call",
        json!({"name": "search_notes", "arguments": {"query": "alphaword"}}),
    );
    let content = found["content"].as_array().unwrap();
    assert_eq!(content[0]["type"], "text", "the text stays first: {found}");
    assert_eq!(content[1]["type"], "resource_link", "{found}");
    assert_eq!(content[1]["uri"], "memory://main/a/alpha");
    assert_eq!(content[1]["title"], "Alpha");
    let context = mcp.request(
        "tools/call",
        json!({"name": "build_context", "arguments": {"url": "memory://main/a/b/beta"}}),
    );
    assert!(context["content"]
        .as_array()
        .unwrap()
        .iter()
        .any(|c| c["type"] == "resource_link" && c["uri"] == "memory://main/a/b/beta"));

    // Completions: project names, then folders and notes below what was typed.
    let complete = |mcp: &mut Mcp, argument: Value, context: Value| -> Vec<String> {
        let answer = mcp.request(
            "completion/complete",
            json!({"ref": {"type": "ref/resource", "uri": "memory://{project}/{+permalink}"},
                   "argument": argument, "context": context}),
        );
        answer["completion"]["values"]
            .as_array()
            .unwrap_or_else(|| panic!("{answer}"))
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect()
    };
    assert_eq!(
        complete(
            &mut mcp,
            json!({"name": "project", "value": "m"}),
            json!({})
        ),
        ["main"]
    );
    assert_eq!(
        complete(
            &mut mcp,
            json!({"name": "permalink", "value": "a/"}),
            json!({"arguments": {"project": "main"}})
        ),
        ["a/alpha", "a/b/"]
    );
}

#[test]
fn subscribers_hear_of_changed_notes_and_everyone_of_new_ones() {
    let (dir, mut mcp) = server();
    assert_eq!(
        mcp.initialize["capabilities"]["resources"]["subscribe"],
        true
    );
    assert_eq!(
        mcp.initialize["capabilities"]["resources"]["listChanged"],
        true
    );
    write(&mut mcp, "Watched", "w", "first version");
    let uri = "memory://main/w/watched";
    let subscribed = mcp.request("resources/subscribe", json!({"uri": uri}));
    assert!(subscribed.get("error").is_none(), "{subscribed}");
    mcp.notifications.clear();

    // Changed on disk by another program: the watcher indexes it, the subscriber hears of it.
    // The notifier compares update stamps, which come from the file's mtime: one that a fast
    // rewrite could leave in the same millisecond is set apart explicitly.
    let path = main_dir(dir.path()).join("w/Watched.md");
    std::fs::write(
        &path,
        "---\ntitle: Watched\npermalink: main/w/watched\n---\nsecond version\n",
    )
    .unwrap();
    fs::File::options()
        .write(true)
        .open(&path)
        .unwrap()
        .set_modified(std::time::SystemTime::now() + Duration::from_secs(2))
        .unwrap();
    let updated = mcp.wait_notification(
        "notifications/resources/updated",
        |p| p["uri"] == uri,
        Duration::from_secs(60),
    );
    assert!(
        updated.is_some(),
        "no update for {uri}: {:?}",
        mcp.notifications
    );

    write(&mut mcp, "Newcomer", "w", "a new note");
    let listed = mcp.wait_notification(
        "notifications/resources/list_changed",
        |_| true,
        Duration::from_secs(60),
    );
    assert!(listed.is_some(), "{:?}", mcp.notifications);

    let unsubscribed = mcp.request("resources/unsubscribe", json!({"uri": uri}));
    assert!(unsubscribed.get("error").is_none(), "{unsubscribed}");
}

#[test]
fn tools_that_always_answer_json_declare_their_output_schema() {
    let (_dir, mut mcp) = server();
    write(&mut mcp, "Schema Note", "s", "schemaword");
    let listed = mcp.request("tools/list", json!({}));
    let schemas: BTreeMap<String, Value> = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|t| t.get("outputSchema").is_some())
        .map(|t| {
            (
                t["name"].as_str().unwrap().to_string(),
                t["outputSchema"].clone(),
            )
        })
        .collect();
    assert_eq!(
        schemas.keys().map(String::as_str).collect::<Vec<_>>(),
        [
            "cat",
            "fetch",
            "find",
            "grep",
            "link_folder",
            "list_links",
            "ls",
            "read_content",
            "search",
            "sync",
            "tail",
            "unlink_folder"
        ]
    );
    // Each answer's structured content is an object whose keys the schema names.
    for (tool, args) in [
        ("read_content", json!({"path": "s/Schema Note.md"})),
        ("list_links", json!({})),
        ("search", json!({"query": "schemaword"})),
        ("fetch", json!({"id": "main/s/schema-note"})),
        ("cat", json!({"identifier": "Schema Note", "max_tokens": 1})),
        ("grep", json!({"pattern": "schemaword", "context_lines": 0})),
        ("ls", json!({"path": "/"})),
        ("find", json!({"name": "*.md"})),
        ("tail", json!({})),
    ] {
        let result = mcp.request("tools/call", json!({"name": tool, "arguments": args}));
        assert_ne!(result["isError"], true, "{tool}: {result}");
        let structured = result["structuredContent"]
            .as_object()
            .unwrap_or_else(|| panic!("{tool}: no structured content: {result}"));
        let properties = schemas[tool]["properties"].as_object().unwrap();
        for key in structured.keys() {
            assert!(
                properties.contains_key(key),
                "{tool}: '{key}' is not in its schema"
            );
        }
    }
}

/// Readiness is the end of a server's background indexing of the files already on disk.
#[test]
fn sync_status_and_diagnostics_report_readiness_and_version() {
    let dir = tempfile::tempdir().unwrap();
    let main = main_dir(dir.path());
    fs::create_dir_all(&main).unwrap();
    for i in 0..50 {
        fs::write(main.join(format!("n{i}.md")), format!("note {i}")).unwrap();
    }
    let mut mcp = Mcp::start(dir.path());
    ready(&mut mcp, SLOW);
    let status = mcp.text("sync_status", json!({"project": "main"}));
    assert!(status.starts_with("# Basic Memory Sync Status"), "{status}");
    assert!(status.contains("**System Ready**: ✅ Yes"), "{status}");
    assert!(
        status.contains("- 👁️ **main**: Watching for changes"),
        "{status}"
    );
    assert!(status.contains("**Active Project**: main"), "{status}");
    let all = jcall(
        &mut mcp,
        "search_notes",
        json!({"query": "note", "page_size": 100}),
    );
    assert_eq!(total(&all), 50, "everything is indexed once ready");

    let diagnostics = mcp.text("basic_memory_diagnostics", json!({}));
    assert!(
        diagnostics.starts_with("# Basic Memory Diagnostics"),
        "{diagnostics}"
    );
    assert!(
        diagnostics.contains(&format!("gitmem: {}", env!("CARGO_PKG_VERSION"))),
        "{diagnostics}"
    );
    assert_eq!(
        mcp.initialize["serverInfo"]["version"],
        env!("CARGO_PKG_VERSION")
    );
}

#[test]
fn every_tool_answers_over_a_stdout_that_carries_only_json_rpc() {
    // The test client panics on any stdout line that is not JSON; a final request after every
    // tool ran proves every earlier line was JSON-RPC.
    let (dir, mut mcp) = server();
    let elsewhere = tempfile::tempdir().unwrap();
    ready(&mut mcp, SLOW);
    let calls: Vec<(&str, Value)> = vec![
        (
            "write_note",
            json!({"title": "Tour", "directory": "tour", "content": "- [fact] tourword\n- visits [[Stop]]"}),
        ),
        (
            "write_note",
            json!({"title": "Stop", "directory": "tour", "content": "stop"}),
        ),
        ("read_note", json!({"identifier": "tour/tour"})),
        ("view_note", json!({"identifier": "tour/tour"})),
        (
            "edit_note",
            json!({"identifier": "tour/tour", "operation": "append", "content": "more"}),
        ),
        ("search_notes", json!({"query": "tourword"})),
        ("recent_activity", json!({})),
        (
            "build_context",
            json!({"url": "memory://tour/tour", "output_format": "text"}),
        ),
        ("list_directory", json!({"depth": 2})),
        ("read_content", json!({"path": "tour/Tour.md"})),
        (
            "canvas",
            json!({"nodes": [], "edges": [], "title": "tour", "directory": "tour"}),
        ),
        (
            "move_note",
            json!({"identifier": "tour/stop", "destination_folder": "moved"}),
        ),
        ("delete_note", json!({"identifier": "moved/Stop.md"})),
        ("list_memory_projects", json!({})),
        (
            "create_memory_project",
            json!({"project_name": "tour2", "project_path": elsewhere.path().to_str().unwrap()}),
        ),
        ("delete_project", json!({"project_name": "tour2"})),
        ("sync_status", json!({})),
        ("search", json!({"query": "tourword"})),
        ("fetch", json!({"id": "main/tour/tour"})),
        ("basic_memory_diagnostics", json!({})),
    ];
    let mut seen = BTreeSet::new();
    for (tool, args) in calls {
        let r = mcp.call(tool, args.clone());
        assert!(!r.is_error, "{tool} {args}: {}", r.text);
        assert!(!r.text.is_empty(), "{tool}");
        seen.insert(tool);
    }
    assert_eq!(seen.len(), 19, "every tool ran");
    for (method, params) in [
        ("tools/list", json!({})),
        ("prompts/list", json!({})),
        ("resources/list", json!({})),
        ("resources/templates/list", json!({})),
        ("ping", json!({})),
    ] {
        let r = mcp.request(method, params);
        assert!(r.get("error").is_none(), "{method}: {r}");
    }
    // Errors too travel as JSON-RPC.
    mcp.call("no_such_tool", json!({}));
    mcp.request("prompts/get", json!({"name": "search_knowledge_base"}));
    mcp.call("read_note", json!({"identifier": "tour/tour", "page": 0}));
    let last = mcp.text("read_note", json!({"identifier": "tour/tour"}));
    assert!(last.contains("tourword\n- visits [[Stop]]\nmore"), "{last}");
    assert!(main_dir(dir.path()).join("tour/tour.canvas").exists());
}

#[test]
fn an_oversize_request_gets_a_json_rpc_error_and_the_next_one_is_served() {
    let dir = tempfile::tempdir().unwrap();
    let limit = Path::new("20000");
    let mut mcp = Mcp::start_env(dir.path(), &[], &[("GITMEM_MAX_REQUEST_BYTES", limit)]);
    let big = "x".repeat(50_000);
    let refused = mcp.request(
        "tools/call",
        json!({"name": "write_note", "arguments": {"title": "Big", "directory": "b", "content": big}}),
    );
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("more than the limit of 20000"),
        "{refused}"
    );
    let small = mcp.text(
        "write_note",
        json!({"title": "Small", "directory": "b", "content": "fine"}),
    );
    assert!(small.starts_with("# Created note"), "{small}");
    assert!(!dir.path().join("projects/main/b/Big.md").exists());
}

#[test]
fn a_note_of_17_mb_is_written_and_answered_over_stdio() {
    let dir = tempfile::tempdir().unwrap();
    let mut mcp = Mcp::start(dir.path());
    // Over the 16 MiB line rmcp takes by default, under the 32 MiB a note may hold.
    let line = "- [fact] a long note of many observations, one after another\n";
    let content = line.repeat(17 * 1024 * 1024 / line.len() + 1);
    assert!(content.len() > 17 * 1024 * 1024);
    let answer = mcp.text(
        "write_note",
        json!({"title": "Big", "directory": "b", "content": content}),
    );
    assert!(answer.starts_with("# Created note"), "{answer}");
    let written = std::fs::metadata(main_dir(dir.path()).join("b/Big.md")).unwrap();
    assert!(written.len() > content.len() as u64);
}
