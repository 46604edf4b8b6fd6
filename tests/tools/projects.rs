//! Projects (list, create, default, delete, a server constrained to one, routing by
//! `memory://` URL and project id), canvas files, and what sync_status and diagnostics report.

use std::fs;

use serde_json::json;

use crate::{total, Harness, ReplyExt};

/// Compat 13, item 1.
#[test]
fn a_fresh_root_has_main_as_its_only_and_default_project() {
    let h = Harness::new();
    let projects = h.json("list_memory_projects", json!({}));
    assert_eq!(projects["projects"].as_array().unwrap().len(), 1);
    assert_eq!(projects["projects"][0]["name"], "main");
    assert_eq!(projects["projects"][0]["source"], "local");
    assert_eq!(projects["projects"][0]["is_default"], true);
    assert_eq!(projects["default_project"], "main");
    assert!(h.root().join("projects/main").is_dir());
}

#[test]
fn projects_are_created_indexed_defaulted_and_deleted() {
    let h = Harness::new();
    let elsewhere = tempfile::tempdir().unwrap();
    let research = elsewhere.path().join("research");
    fs::create_dir_all(&research).unwrap();
    fs::write(research.join("pre.md"), "# Pre\n\nprewritten quokka\n").unwrap();

    let created = h.text(
        "create_memory_project",
        json!({"project_name": "research", "project_path": research.to_str().unwrap()}),
    );
    assert!(
        created.starts_with("✓ Project 'research' added successfully"),
        "{created}"
    );
    assert!(created.contains("• Files discovered: 1"), "{created}");
    // Indexed at once: the file written before is searchable in the new project.
    let found = h.json(
        "search_notes",
        json!({"query": "quokka", "project": "research"}),
    );
    assert_eq!(found["results"][0]["file_path"], "pre.md", "{found}");
    assert_eq!(
        total(&h.json("search_notes", json!({"query": "quokka"}))),
        0,
        "main is still the default"
    );
    h.write_with(
        "In Research",
        "r",
        "researchword",
        json!({"project": "research"}),
    );
    assert!(research.join("r/In Research.md").exists());

    let again = h.text(
        "create_memory_project",
        json!({"project_name": "research", "project_path": research.to_str().unwrap()}),
    );
    assert!(again.contains("already exists"), "{again}");
    let again_json = h.json(
        "create_memory_project",
        json!({"project_name": "research", "project_path": research.to_str().unwrap()}),
    );
    assert_eq!(
        (
            again_json["created"].clone(),
            again_json["already_exists"].clone()
        ),
        (json!(false), json!(true))
    );

    let second = elsewhere.path().join("second");
    let made = h.json("create_memory_project",
        json!({"project_name": "second", "project_path": second.to_str().unwrap(), "set_default": true}),
    );
    assert_eq!(made["is_default"], true, "{made}");
    assert_eq!(made["indexing"]["state"], "completed");
    assert!(second.is_dir());
    let listed = h.json("list_memory_projects", json!({}));
    let names: Vec<&str> = listed["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["main", "research", "second"], "sorted by permalink");
    assert_eq!(listed["default_project"], "second");
    // The new default receives notes written without a project.
    h.write("Defaulted", "d", "x");
    assert!(second.join("d/Defaulted.md").exists());

    let refused = h.call("delete_project", json!({"project_name": "second"}));
    assert!(
        refused.is_error()
            && refused
                .text()
                .contains("Cannot delete default project 'second'"),
        "{}",
        refused.text()
    );
    let removed = h.text(
        "delete_project",
        json!({"project_name": "research", "delete_notes": true}),
    );
    assert!(
        removed.starts_with("✓ Project 'research' removed successfully"),
        "{removed}"
    );
    assert!(
        !research.exists(),
        "delete_notes=true removes the directory"
    );
    let gone = h.call(
        "search_notes",
        json!({"query": "quokka", "project": "research"}),
    );
    assert!(
        gone.is_error() && gone.text().contains("not found"),
        "{}",
        gone.text()
    );
    let kept = h.text("delete_project", json!({"project_name": "main"}));
    assert!(kept.contains("removed successfully"), "{kept}");
    let listed = h.json("list_memory_projects", json!({}));
    assert_eq!(listed["projects"].as_array().unwrap().len(), 1, "{listed}");
    assert!(h.main_dir().is_dir(), "files stay without delete_notes");
}

#[test]
fn a_server_constrained_to_a_project_uses_it_for_every_call() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("config.toml"),
        "default_project = \"main\"\n\n[projects.main]\npath = \"projects/main\"\n\n[projects.work]\npath = \"projects/work\"\n",
    )
    .unwrap();
    let h = Harness::constrained(dir.path(), "work");
    let work = dir.path().join("projects/work");

    h.write("Unnamed", "n", "written without a project");
    h.write_with(
        "Named",
        "n",
        "written naming main",
        json!({"project": "main"}),
    );
    assert!(work.join("n/Unnamed.md").exists() && work.join("n/Named.md").exists());
    assert!(!h.main_dir().join("n").exists(), "main receives nothing");

    let listed = h.text("list_memory_projects", json!({}));
    assert!(
        listed.starts_with(
            "Project: work\n\nNote: This MCP server is constrained to a single project."
        ),
        "{listed}"
    );
    assert_eq!(
        h.json("list_memory_projects", json!({}))["constrained_project"],
        "work"
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let create = h.text(
        "create_memory_project",
        json!({"project_name": "more", "project_path": elsewhere.path().to_str().unwrap()}),
    );
    assert!(
        create.starts_with("# Error\n\nProject creation disabled"),
        "{create}"
    );
    let delete = h.text("delete_project", json!({"project_name": "main"}));
    assert!(
        delete.starts_with("# Error\n\nProject deletion disabled"),
        "{delete}"
    );
    let other = h.call(
        "read_note",
        json!({"identifier": "memory://main/n/unnamed"}),
    );
    assert!(
        other.is_error()
            && other
                .text()
                .contains("Project is constrained to 'work', cannot use 'main'."),
        "{}",
        other.text()
    );
}

#[test]
fn canvas_writes_two_space_json_and_reads_back_as_json_text() {
    let h = Harness::new();
    let main = h.main_dir();
    let nodes = r#"[{"id": "n1", "type": "text", "text": "Hello", "x": 0, "y": 0, "width": 200, "height": 100}, {"id": "n2", "type": "file", "file": "docs/Doc.md", "x": 300, "y": 0, "width": 200, "height": 100}]"#;
    let edges = r#"[{"id": "e1", "fromNode": "n1", "toNode": "n2"}]"#;
    let created = h.text(
        "canvas",
        json!({"nodes": nodes, "edges": edges, "title": "My Canvas", "directory": "diagrams"}),
    );
    assert_eq!(
        created,
        "# Created: diagrams/My Canvas.canvas\n\nThe canvas is ready to open in Obsidian."
    );
    let expected = r#"{
  "nodes": [
    {
      "id": "n1",
      "type": "text",
      "text": "Hello",
      "x": 0,
      "y": 0,
      "width": 200,
      "height": 100
    },
    {
      "id": "n2",
      "type": "file",
      "file": "docs/Doc.md",
      "x": 300,
      "y": 0,
      "width": 200,
      "height": 100
    }
  ],
  "edges": [
    {
      "id": "e1",
      "fromNode": "n1",
      "toNode": "n2"
    }
  ]
}"#;
    assert_eq!(
        fs::read_to_string(main.join("diagrams/My Canvas.canvas")).unwrap(),
        expected
    );

    let updated = h.text(
        "canvas",
        json!({"nodes": [], "edges": [], "title": "My Canvas.canvas", "folder": "diagrams"}),
    );
    assert!(
        updated.starts_with("# Updated: diagrams/My Canvas.canvas"),
        "{updated}"
    );
    assert_eq!(
        fs::read_to_string(main.join("diagrams/My Canvas.canvas")).unwrap(),
        "{\n  \"nodes\": [],\n  \"edges\": []\n}"
    );

    let content = h
        .call("read_content", json!({"path": "diagrams/My Canvas.canvas"}))
        .ok()
        .json();
    assert_eq!(content["type"], "text", "{content}");
    assert!(
        content["content_type"]
            .as_str()
            .unwrap()
            .starts_with("application/json"),
        "{content}"
    );
    assert_eq!(content["text"], "{\n  \"nodes\": [],\n  \"edges\": []\n}");
    let bad = h.call(
        "canvas",
        json!({"nodes": "not json", "edges": [], "title": "x", "directory": "d"}),
    );
    assert!(bad.is_error(), "{}", bad.text());
}

#[test]
fn sync_status_names_the_active_project_and_its_path() {
    let h = Harness::new();
    let status = h.text("sync_status", json!({"project": "main"}));
    assert!(status.starts_with("# Basic Memory Sync Status"), "{status}");
    assert!(status.contains("**Active Project**: main"), "{status}");
    let path = h.main_dir().canonicalize().unwrap();
    assert!(
        status.contains(&format!("**Project Path**: {}", path.display())),
        "{status}"
    );
}

#[test]
fn diagnostics_report_the_version_the_root_and_what_the_index_holds() {
    let h = Harness::new();
    h.write("Counted", "d", "- [fact] one observation");
    let diagnostics = h.text("basic_memory_diagnostics", json!({}));
    assert!(
        diagnostics.starts_with("# Basic Memory Diagnostics"),
        "{diagnostics}"
    );
    assert!(
        diagnostics.contains(&format!("gitmem: {}", env!("CARGO_PKG_VERSION"))),
        "{diagnostics}"
    );
    let root = h.root().canonicalize().unwrap();
    assert!(
        diagnostics.contains(&format!("- Data root: {}", root.display())),
        "{diagnostics}"
    );
    assert!(
        diagnostics.contains("- main: 1 notes, 0 other files, 1 observations"),
        "{diagnostics}"
    );
}

#[test]
fn memory_urls_and_project_ids_route_to_their_project() {
    let h = Harness::new();
    let research = h.root().join("research");
    h.app().add_project("research", &research, false).unwrap();
    let projects = h.json("list_memory_projects", json!({}));
    let research_id = projects["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "research")
        .unwrap()["external_id"]
        .as_str()
        .unwrap()
        .to_string();
    h.text(
        "write_note",
        json!({"title": "R1", "directory": "notes", "content": "in research", "project_id": research_id}),
    );
    assert!(research.join("notes/R1.md").exists());

    let read = h.text(
        "read_note",
        json!({"identifier": "memory://research/notes/r1"}),
    );
    assert!(read.contains("in research"), "{read}");
    h.text(
        "edit_note",
        json!({"identifier": "memory://research/inbox/new", "operation": "append", "content": "routed"}),
    );
    assert!(research.join("inbox/new.md").exists());
    assert!(
        !h.main_dir().join("research").exists(),
        "nothing lands in the default project"
    );
    let hits = h.json(
        "search_notes",
        json!({"query": "(routed OR research) AND NOT nothing", "project_id": research_id}),
    );
    assert_eq!(hits["total"], 2, "{hits}");
}

/// Basic Memory 0.24's list_workspaces, answered locally: the personal workspace it shows when
/// there are no cloud workspaces, which holds every project.
#[test]
fn list_workspaces_names_the_one_personal_workspace() {
    let h = Harness::new();
    let text = h.text("list_workspaces", json!({}));
    assert_eq!(
        text,
        "# Available Workspaces (1)\n\n- Personal (slug=personal, type=personal, role=owner, default, tenant_id=personal)"
    );
    let listing = h.json("list_workspaces", json!({}));
    assert_eq!(listing["count"], 1);
    assert_eq!(listing["default_workspace_id"], "personal");
    assert_eq!(listing["workspaces"][0]["slug"], "personal");
    assert_eq!(listing["workspaces"][0]["is_default"], true);
}
