//! `gitmem tool NAME --args JSON` runs the MCP code path from a shell.

mod common;

use common::mcp::{ready, Mcp};
use common::*;
use serde_json::json;

#[test]
fn tool_prints_what_an_mcp_client_sees() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let written = gitmem(
        root,
        &["tool", "write_note", "--args", r#"{"title": "Shell Note", "folder": "cli", "content": "- [fact] typed at a shell #cli"}"#],
    )
    .ok();
    assert!(
        written
            .stdout
            .starts_with("# Created note\nproject: main\nfile_path: cli/Shell Note.md"),
        "{}",
        written.stdout
    );

    let cli = gitmem(
        root,
        &[
            "tool",
            "search_notes",
            "--args",
            r#"{"query": "shell", "output_format": "json"}"#,
        ],
    )
    .ok()
    .json();
    let mut mcp = Mcp::start(root);
    let over_mcp = mcp
        .call(
            "search_notes",
            json!({"query": "shell", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(
        cli["results"][0]["permalink"],
        over_mcp["results"][0]["permalink"]
    );
    assert_eq!(cli["total"], over_mcp["total"]);

    let cases: &[(&[&str], &str)] = &[
        (&["tool", "no_such_tool"], "Unknown tool: 'no_such_tool'"),
        (
            &["tool", "write_note", "--args", "not json"],
            "--args is not valid JSON",
        ),
        (
            &["tool", "write_note", "--args", "[1]"],
            "--args must be a JSON object",
        ),
        (
            &["tool", "write_note", "--args", r#"{"title": "x"}"#],
            "missing field `content`",
        ),
        (
            &[
                "tool",
                "read_note",
                "--args",
                r#"{"identifier": "x", "page": 0}"#,
            ],
            "page must be >= 1, got 0",
        ),
        (
            &["tool", "search_notes", "--project", "nope", "--args", "{}"],
            "project 'nope' not found",
        ),
    ];
    for (args, message) in cases {
        let run = gitmem(root, args);
        assert_eq!(run.code, 1, "{args:?}");
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
    }
}

#[test]
fn without_a_default_project_recent_activity_looks_everywhere() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    gitmem(
        root,
        &[
            "project",
            "add",
            "work",
            root.join("work").to_str().unwrap(),
        ],
    )
    .ok();
    std::fs::write(root.join("projects/main/a.md"), "# A\n\nin main").unwrap();
    std::fs::write(root.join("work/b.md"), "# B\n\nin work").unwrap();
    let config = std::fs::read_to_string(root.join("config.toml")).unwrap();
    std::fs::write(
        root.join("config.toml"),
        config.replace("default_project = \"main\"", "default_project = \"\""),
    )
    .unwrap();

    let mut mcp = Mcp::start(root);
    ready(&mut mcp, SLOW);
    let summary = mcp.text("recent_activity", json!({}));
    assert!(
        summary.starts_with("## Recent Activity Summary (7d)"),
        "{summary}"
    );
    assert!(
        summary.contains("**Summary:** 2 active projects, 2 recent items"),
        "{summary}"
    );
    let rows = mcp
        .call("recent_activity", json!({"output_format": "json"}))
        .ok()
        .json();
    let mut projects: Vec<&str> = rows
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["project"].as_str().unwrap())
        .collect();
    projects.sort();
    assert_eq!(projects, ["main", "work"]);
    let needs_project = mcp.call(
        "write_note",
        json!({"title": "x", "directory": "d", "content": "x"}),
    );
    assert!(
        needs_project.is_error && needs_project.text.contains("No project specified"),
        "{}",
        needs_project.text
    );
}

#[test]
fn memory_urls_and_project_ids_route_to_their_project() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    gitmem(
        root,
        &[
            "project",
            "add",
            "research",
            root.join("research").to_str().unwrap(),
        ],
    )
    .ok();
    let mut mcp = Mcp::start(root);
    let projects = mcp
        .call("list_memory_projects", json!({"output_format": "json"}))
        .ok()
        .json();
    let research_id = projects["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "research")
        .unwrap()["external_id"]
        .as_str()
        .unwrap()
        .to_string();
    mcp.text("write_note", json!({"title": "R1", "directory": "notes", "content": "in research", "project_id": research_id}));
    assert!(root.join("research/notes/R1.md").exists());

    let read = mcp.text(
        "read_note",
        json!({"identifier": "memory://research/notes/r1"}),
    );
    assert!(read.contains("in research"), "{read}");
    mcp.text("edit_note", json!({"identifier": "memory://research/inbox/new", "operation": "append", "content": "routed"}));
    assert!(root.join("research/inbox/new.md").exists());
    assert!(
        !root.join("projects/main/research").exists(),
        "nothing lands in the default project"
    );
    let hits = mcp.call("search_notes", json!({"query": "(routed OR research) AND NOT nothing", "project_id": research_id, "output_format": "json"})).ok().json();
    assert_eq!(hits["total"], 2, "{hits}");
}
