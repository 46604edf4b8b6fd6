//! `gitmem tool NAME --args JSON` runs the MCP code path from a shell.

use crate::common::mcp::Mcp;
use crate::common::*;
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
fn schema_commands_print_the_schema_tools_answers_for_files_not_indexed_yet() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let project = root.join("projects/main");
    std::fs::create_dir_all(project.join("people")).unwrap();
    std::fs::write(
        project.join("Person.md"),
        "---\ntitle: Person\ntype: schema\nentity: person\nschema:\n  name: string\n  email?: string\n---\n",
    )
    .unwrap();
    for (name, extra) in [("Ada", "- [role] Countess\n"), ("Alan", "")] {
        std::fs::write(
            project.join(format!("people/{name}.md")),
            format!("---\ntitle: {name}\ntype: person\n---\n\n- [name] {name}\n{extra}"),
        )
        .unwrap();
    }
    let validated = gitmem(root, &["schema", "validate", "person"]).ok();
    assert!(
        validated.stdout.starts_with(
            "# Schema Validation: person\n\nNotes: 2 | Valid: 2 | Warnings: 0 | Errors: 0\n"
        ),
        "{}",
        validated.stdout
    );
    let as_tool = gitmem(
        root,
        &[
            "tool",
            "schema_validate",
            "--args",
            r#"{"note_type": "person"}"#,
        ],
    )
    .ok();
    assert_eq!(validated.stdout, as_tool.stdout);

    let inferred = gitmem(
        root,
        &["schema", "infer", "person", "--threshold", "0.5", "--json"],
    )
    .ok()
    .json();
    assert_eq!(
        inferred["suggested_schema"],
        json!({"name": "string", "role?": "string"})
    );
    let drift = gitmem(root, &["schema", "diff", "person"]).ok();
    assert!(
        drift
            .stdout
            .contains("- **email** (observation) — 0% (0/2)"),
        "{}",
        drift.stdout
    );
    let one = gitmem(
        root,
        &["schema", "validate", "--identifier", "Ada", "--json"],
    )
    .ok()
    .json();
    assert_eq!(one["results"][0]["note_identifier"], "Ada");
}

#[test]
fn memory_prune_and_compact_dry_runs_list_what_would_go_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let memories = root.join("projects/main/memories");
    std::fs::create_dir_all(&memories).unwrap();
    let old = "2020-01-01T00:00:00Z";
    for (name, extra) in [
        ("Faded", "decay: P7D\n"),
        ("Lasting", ""),
        ("Low", "score: 0.1\n"),
    ] {
        std::fs::write(
            memories.join(format!("{name}.md")),
            format!("---\ntitle: {name}\n{extra}updated_at: {old}\n---\n\n{name} memory\n"),
        )
        .unwrap();
    }
    gitmem(root, &["reindex"]).ok();
    let before = snapshot(&root.join("projects"));

    let pruned = gitmem(root, &["memory", "prune", "--dry-run", "--json"])
        .ok()
        .json();
    let titles: Vec<&str> = pruned["pruned"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Faded"], "{pruned}");
    assert_eq!(pruned["pruned"][0]["action"], "would_soft_delete");
    let text = gitmem(root, &["memory", "prune", "--dry-run"]).ok().stdout;
    assert_mentions(&text, "1 decaying memory below relevance 0.1");
    assert_mentions(&text, "would soft delete  0.0000  main/memories/faded");

    let compacted = gitmem(
        root,
        &["compact", "--older-than", "P30D", "--dry-run", "--json"],
    )
    .ok()
    .json();
    let folded: Vec<&str> = compacted["folded"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["title"].as_str().unwrap())
        .collect();
    assert_eq!(folded, ["Faded", "Low"], "{compacted}");
    let text = gitmem(root, &["compact", "--older-than", "30d", "--dry-run"])
        .ok()
        .stdout;
    assert_mentions(
        &text,
        "2 memories would be folded (dry run: nothing changed).",
    );
    assert_eq!(
        snapshot(&root.join("projects")),
        before,
        "dry runs write nothing"
    );

    let refused = gitmem(root, &["compact", "--older-than", "whenever"]);
    assert_ne!(refused.code, 0);
    assert_mentions(&refused.stderr, "older_than must be a duration");
}
