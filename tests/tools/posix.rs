//! The POSIX-shaped read tools in process: cat by lines, section and token budget; grep's
//! search and line modes, whose line numbers cat reads back exactly; ls with projects as mount
//! points; find by glob and depth; tail; man's pages and apropos; `[server] posix_tools =
//! false`; a linked folder's notes; and the refusals of bad arguments.

use std::fs;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use engine::App;
use mcp::tools::{self, ToolCtx};
use serde_json::{json, Value};

use crate::{Harness, ReplyExt};

const RUNBOOK: &str = "---\ntitle: Runbook\ntype: note\n---\n\n# Runbook\n\n## Deploy\nstep one\nretry [safe] here\nstep three\n\n## Rollback\nundo the retry\n";

/// A root whose default project holds `ops/Runbook.md` and `ops/deep/er/Leaf.md`, both
/// changed an hour ago.
fn runbook() -> Harness {
    let h = Harness::new();
    let ops = h.main_dir().join("ops");
    fs::create_dir_all(ops.join("deep/er")).unwrap();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    for (path, text) in [
        (ops.join("Runbook.md"), RUNBOOK),
        (ops.join("deep/er/Leaf.md"), "# Leaf\n\nleafy words\n"),
    ] {
        fs::write(&path, text).unwrap();
        let file = fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(hour_ago).unwrap();
    }
    h.sync();
    h
}

/// Lines `first..=last` of `text`, numbered from 1 as cat numbers them.
fn lines(text: &str, first: u64, last: u64) -> String {
    text.lines()
        .skip(first as usize - 1)
        .take((last + 1 - first) as usize)
        .collect::<Vec<_>>()
        .join("\n")
}

fn error_of(h: &Harness, tool: &str, args: Value) -> String {
    let reply = h.call(tool, args.clone());
    assert!(reply.is_error(), "{tool} {args}: {}", reply.text());
    reply.text()
}

#[test]
fn cat_prints_a_note_whole_by_lines_by_section_and_within_a_budget() {
    let h = runbook();
    let whole = h.value("cat", json!({"identifier": "Runbook"}));
    assert_eq!(whole["content"], RUNBOOK);
    assert_eq!(whole["file_path"], "ops/Runbook.md");
    assert_eq!(whole["frontmatter"]["title"], "Runbook");
    assert!(whole.get("start_line").is_none(), "{whole}");
    let body = h.value(
        "cat",
        json!({"identifier": "ops/Runbook.md", "include_frontmatter": false}),
    );
    assert!(
        !body["content"].as_str().unwrap().contains("title:"),
        "{body}"
    );

    let range = h.value(
        "cat",
        json!({"identifier": "Runbook", "start_line": 9, "end_line": 10}),
    );
    assert_eq!(range["content"], "step one\nretry [safe] here");
    assert_eq!(
        (
            &range["start_line"],
            &range["end_line"],
            &range["total_lines"]
        ),
        (&json!(9), &json!(10), &json!(14))
    );
    let to_end = h.value("cat", json!({"identifier": "Runbook", "start_line": 13}));
    assert_eq!(to_end["content"], "## Rollback\nundo the retry");

    let section = h.value("cat", json!({"identifier": "Runbook", "section": "Deploy"}));
    assert_eq!(
        section["content"],
        "## Deploy\nstep one\nretry [safe] here\nstep three"
    );
    assert_eq!(
        (&section["start_line"], &section["end_line"]),
        (&json!(8), &json!(11))
    );
    assert_eq!(section["section"], "Deploy");
    let nested = h.value(
        "cat",
        json!({"identifier": "Runbook", "section": "Runbook/Rollback"}),
    );
    assert_eq!(nested["content"], "## Rollback\nundo the retry");

    // A budget cuts at a line boundary, and says where to go on; reading on from there with
    // the same budget walks the rest of the note.
    let cut = h.value("cat", json!({"identifier": "Runbook", "max_tokens": 5}));
    assert_eq!(cut["truncated"], true, "{cut}");
    let (first, last) = (
        cut["start_line"].as_u64().unwrap(),
        cut["end_line"].as_u64().unwrap(),
    );
    assert_eq!(
        first, 5,
        "the body's first line: a budgeted read leaves front matter out"
    );
    assert_eq!(cut["continue_line"].as_u64().unwrap(), last + 1);
    assert_eq!(cut["content"], lines(RUNBOOK, first, last));
    let mut next = cut["continue_line"].as_u64().unwrap();
    let mut read = vec![cut["content"].as_str().unwrap().to_string()];
    while next <= 14 {
        let part = h.value(
            "cat",
            json!({"identifier": "Runbook", "start_line": next, "max_tokens": 5}),
        );
        read.push(part["content"].as_str().unwrap().to_string());
        match part.get("continue_line") {
            Some(line) => next = line.as_u64().unwrap(),
            None => break,
        }
    }
    assert_eq!(read.join("\n"), lines(RUNBOOK, 5, 14));
}

#[test]
fn grep_line_numbers_are_the_lines_cat_returns() {
    let h = runbook();
    let found = h.value("grep", json!({"pattern": "retry"}));
    assert_eq!(
        found["results"][0]["file_path"], "ops/Runbook.md",
        "{found}"
    );
    assert_eq!(h.value("grep", json!({"pattern": "zyzzyva"}))["total"], 0);

    let context = h.value("grep", json!({"pattern": "retry", "context_lines": 1}));
    assert_eq!(
        context["pagination_scope"], "search_candidates",
        "{context}"
    );
    let row = &context["results"][0];
    assert_eq!(
        (&row["match_count"], &row["total_lines"]),
        (&json!(2), &json!(14))
    );
    assert_eq!(row["windows"][0]["match_lines"], json!([10]));
    assert_eq!(row["windows"][1]["match_lines"], json!([14]));

    // Punctuation the search index drops is found by the literal scan.
    let literal = h.value(
        "grep",
        json!({"pattern": "RETRY [safe]", "literal": true, "context_lines": 2}),
    );
    assert_eq!(literal["pagination_scope"], "literal_matches");
    assert_eq!(literal["total"], 1, "{literal}");
    for grepped in [&context, &literal] {
        let row = &grepped["results"][0];
        for window in row["windows"].as_array().unwrap() {
            let read = h.value(
                "cat",
                json!({
                    "identifier": row["file_path"],
                    "start_line": window["start_line"],
                    "end_line": window["end_line"],
                }),
            );
            assert_eq!(read["content"], window["content"], "{window}");
            for line in window["match_lines"].as_array().unwrap() {
                let one = h.value(
                    "cat",
                    json!({"identifier": row["permalink"], "start_line": line, "end_line": line}),
                );
                let text = one["content"].as_str().unwrap().to_lowercase();
                assert!(text.contains("retry"), "line {line}: {text}");
            }
        }
    }
    let capped = h.value(
        "grep",
        json!({"pattern": "retry", "literal": true, "max_matches": 1}),
    );
    assert_eq!(capped["results"][0]["next_match_line"], 14, "{capped}");
    assert_eq!(
        capped["results"][0]["windows"][0]["content"],
        "retry [safe] here"
    );
}

#[test]
fn ls_mounts_projects_and_find_walks_by_glob_and_depth() {
    let h = runbook();
    let elsewhere = tempfile::tempdir().unwrap();
    let research = elsewhere.path().join("research");
    fs::create_dir_all(research.join("papers")).unwrap();
    fs::write(
        research.join("papers/Paper.md"),
        "# Paper\n\nquokka findings\n",
    )
    .unwrap();
    h.call(
        "create_memory_project",
        json!({"project_name": "research", "project_path": research.to_str().unwrap()}),
    )
    .ok();

    let mounts = h.value("ls", json!({"path": "/"}));
    let names: Vec<&str> = mounts["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["directory_path"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["/main", "/research"], "{mounts}");
    assert_eq!(mounts["total"], 2);

    let ops = h.value("ls", json!({"path": "ops"}));
    let entries: Vec<(&str, &str)> = ops["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| (n["type"].as_str().unwrap(), n["name"].as_str().unwrap()))
        .collect();
    assert_eq!(
        entries,
        [("directory", "deep"), ("file", "Runbook.md")],
        "{ops}"
    );

    // A project-qualified path lists that project, and answers with paths that route back.
    let papers = h.value("ls", json!({"path": "research/papers"}));
    let node = &papers["nodes"][0];
    assert_eq!(
        node["directory_path"], "/research/papers/Paper.md",
        "{papers}"
    );
    assert_eq!(node["file_path"], "research/papers/Paper.md");
    let paper = h.value("cat", json!({"identifier": node["file_path"]}));
    assert!(
        paper["content"].as_str().unwrap().contains("quokka"),
        "{paper}"
    );
    assert_eq!(paper["file_path"], "research/papers/Paper.md");
    let root = h.value("ls", json!({"path": "/", "project": "research"}));
    assert_eq!(root["nodes"][0]["directory_path"], "/papers", "{root}");

    let leaves = h.value("find", json!({"path": "ops", "name": "L*.md"}));
    assert_eq!(
        leaves["nodes"][0]["file_path"], "ops/deep/er/Leaf.md",
        "{leaves}"
    );
    assert_eq!(leaves["total"], 1);
    let shallow = h.value("find", json!({"path": "ops", "name": "*.md", "depth": 2}));
    let found: Vec<&str> = shallow["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|n| n["file_path"].as_str())
        .collect();
    assert_eq!(found, ["ops/Runbook.md"], "{shallow}");
    let everywhere = h.value("find", json!({"path": "research", "name": "*.md"}));
    assert_eq!(
        everywhere["nodes"][0]["file_path"],
        "research/papers/Paper.md"
    );
}

#[test]
fn tail_lists_the_newest_notes() {
    let h = runbook();
    h.write("Fresh", "inbox", "just written");
    let rows = h.value("tail", json!({"lines": 2}));
    let rows = rows.as_array().expect("a list of rows");
    assert_eq!(rows.len(), 2, "{rows:?}");
    assert_eq!(rows[0]["title"], "Fresh");
    assert_eq!(rows[0]["type"], "entity");
    assert_eq!(rows[0]["file_path"], "inbox/Fresh.md");
    assert!(rows[0]["created_at"].is_string());
    assert!(
        h.value("tail", json!({"timeframe": "1d"}))
            .as_array()
            .unwrap()
            .len()
            >= 3
    );
}

#[test]
fn man_prints_pages_and_searches_manpage_notes() {
    let h = runbook();
    let index = h.text("man", json!({}));
    for page in ["cat(1)", "grep(1)", "search-notes(3)"] {
        assert!(index.contains(page), "{index}");
    }
    assert!(!index.contains("not served here"), "{index}");
    assert!(h
        .text("man", json!({"page": "grep(1)"}))
        .starts_with("# grep(1)"));
    assert!(h
        .text("man", json!({"page": "search_notes"}))
        .starts_with("# search-notes(3)"));

    h.write_with(
        "Backups",
        "man",
        "How to restore the wombat archive.",
        json!({"note_type": "manpage"}),
    );
    h.write("Not A Page", "man", "wombat archive mentioned elsewhere");
    let found = h.value("man", json!({"query": "wombat", "project": "main"}));
    let titles: Vec<&str> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Backups"], "{found}");
    let page = h.text("man", json!({"page": "Backups", "project": "main"}));
    assert!(page.contains("wombat archive"), "{page}");

    assert!(error_of(&h, "man", json!({"query": "wombat"})).contains("no manual project"));
    assert!(error_of(&h, "man", json!({"page": "nothing"})).contains("No manual entry for nothing"));
    assert!(error_of(&h, "man", json!({"page": "cat", "query": "x"})).contains("not both"));
}

#[test]
fn posix_tools_false_hides_them_from_the_list_and_from_calls() {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("config.toml"),
        "[server]\nposix_tools = false\n",
    )
    .unwrap();
    let ctx = ToolCtx::new(Arc::new(App::open(dir.path()).unwrap()), None);
    let listed: Vec<String> = tools::tool_list_for(&ctx)
        .into_iter()
        .map(|t| t.name.to_string())
        .collect();
    assert!(listed.contains(&"read_note".to_string()), "{listed:?}");
    for name in ["cat", "grep", "ls", "find", "tail", "man"] {
        assert!(!listed.contains(&name.to_string()), "{name} listed");
        let reply = tools::call(&ctx, name, &serde_json::Map::new());
        assert!(reply.is_error(), "{name}: {}", reply.text());
        assert!(
            reply.text().contains("posix_tools = false"),
            "{}",
            reply.text()
        );
    }
    let on = ToolCtx::new(
        Arc::new(App::open(tempfile::tempdir().unwrap().path()).unwrap()),
        None,
    );
    let served = tools::tool_list_for(&on);
    let cat = served
        .iter()
        .find(|t| t.name == "cat")
        .expect("cat is served by default");
    assert_eq!(
        cat.annotations.as_ref().and_then(|a| a.read_only_hint),
        Some(true)
    );
}

#[test]
fn a_linked_folders_notes_are_read_and_grepped() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir_all(&root).unwrap();
    fs::write(
        root.join("config.toml"),
        "[storage.local]\nallow_outside_home = true\n",
    )
    .unwrap();
    let vault = dir.path().join("Vault");
    fs::create_dir_all(&vault).unwrap();
    fs::write(
        vault.join("Wombat.md"),
        "# Wombat\n\nwombats dig burrows\nat night\n",
    )
    .unwrap();
    let h = Harness::open(&root);
    h.call("link_folder", json!({"path": vault})).ok();

    let grepped = h.value(
        "grep",
        json!({"pattern": "burrows", "literal": true, "context_lines": 1}),
    );
    let row = &grepped["results"][0];
    assert_eq!(row["file_path"], "Vault/Wombat.md", "{grepped}");
    let window = &row["windows"][0];
    assert_eq!(window["match_lines"], json!([3]));
    let read = h.value(
        "cat",
        json!({"identifier": "Vault/Wombat.md", "start_line": window["start_line"], "end_line": window["end_line"]}),
    );
    assert_eq!(read["content"], window["content"]);
    assert_eq!(read["content"], "\nwombats dig burrows\nat night");
    let found = h.value("find", json!({"name": "Wombat*"}));
    assert_eq!(found["nodes"][0]["file_path"], "Vault/Wombat.md", "{found}");
}

#[test]
fn bad_arguments_are_refused_clearly() {
    let h = runbook();
    let refusals = [
        (
            "cat",
            json!({"identifier": "Runbook", "start_line": 5, "end_line": 3}),
            "end_line must be >= start_line, got 3",
        ),
        (
            "cat",
            json!({"identifier": "Runbook", "section": "Deploy", "start_line": 2}),
            "'section' cannot be combined with start_line/end_line",
        ),
        (
            "cat",
            json!({"identifier": "Runbook", "start_line": 0}),
            "start_line must be >= 1",
        ),
        (
            "cat",
            json!({"identifier": "Runbook", "start_line": 40}),
            "past the end of the note (14 lines)",
        ),
        (
            "cat",
            json!({"identifier": "Runbook", "section": "Nowhere"}),
            "section 'Nowhere' not found",
        ),
        (
            "cat",
            json!({"identifier": "Runbook", "max_tokens": 0}),
            "max_tokens must be >= 1",
        ),
        (
            "cat",
            json!({"identifier": "Runbook", "start_line": 2, "max_tokens": 9, "include_frontmatter": false}),
            "requires include_frontmatter=True",
        ),
        (
            "cat",
            json!({"identifier": "Nobody"}),
            "note not found: 'Nobody'",
        ),
        (
            "cat",
            json!({"identifier": "main"}),
            "names a project, not a note",
        ),
        (
            "grep",
            json!({"pattern": "  "}),
            "pattern must not be empty",
        ),
        (
            "grep",
            json!({"pattern": "x", "semantic": true, "context_lines": 1}),
            "context_lines cannot be combined with semantic=True",
        ),
        (
            "grep",
            json!({"pattern": "x", "context_lines": 11}),
            "context_lines must be between 0 and 10",
        ),
        (
            "grep",
            json!({"pattern": "x", "max_matches": 3}),
            "max_matches requires context_lines",
        ),
        (
            "find",
            json!({"depth": 11}),
            "depth must be between 1 and 10, got 11",
        ),
        (
            "tail",
            json!({"lines": 0}),
            "lines must be between 1 and 100",
        ),
        ("tail", json!({"timeframe": "whenever"}), "whenever"),
        (
            "ls",
            json!({"path": "ops", "page_size": 500}),
            "page_size must be <= 200",
        ),
    ];
    for (tool, args, needle) in refusals {
        let text = error_of(&h, tool, args.clone());
        assert!(text.contains(needle), "{tool} {args}: {text}");
    }
}

/// Titles of a find-by-meta answer, sorted (its notes were written together).
fn found_titles(v: &Value) -> Vec<String> {
    let mut titles = crate::titles(v);
    titles.sort();
    titles
}

#[test]
fn find_with_meta_searches_front_matter_under_a_path_and_fields_project_it() {
    let h = Harness::new();
    let main = h.main_dir();
    fs::create_dir_all(main.join("specs/old")).unwrap();
    fs::create_dir_all(main.join("specs-archive")).unwrap();
    for (path, front) in [
        ("specs/Auth.md", "title: Auth\ntype: spec\nstatus: active\npriority: 3\nreview:\n  approved: true\ntags: [security, oauth]"),
        ("specs/old/Billing.md", "title: Billing\ntype: spec\nstatus: draft\npriority: 1"),
        ("specs-archive/Legacy.md", "title: Legacy\ntype: spec\nstatus: active\npriority: 5"),
        ("Notes.md", "title: Notes\ntype: note\nowner: ann"),
    ] {
        fs::write(main.join(path), format!("---\n{front}\n---\n\nbody of {path}\n")).unwrap();
    }
    fs::write(main.join("specs/diagram.png"), [0x89, b'P', b'N', b'G']).unwrap();
    h.sync();

    let cases: [(Value, &[&str]); 7] = [
        (json!({"meta": ["status=active"]}), &["Auth", "Legacy"]),
        (json!({"meta": "status=active", "path": "specs"}), &["Auth"]),
        (
            json!({"meta": ["priority between 1,3", "type=spec"]}),
            &["Auth", "Billing"],
        ),
        (json!({"meta": ["priority in 1,5"]}), &["Billing", "Legacy"]),
        (json!({"meta": ["tags has security,oauth"]}), &["Auth"]),
        (
            json!({"meta": ["priority>2", "note_type=Spec"]}),
            &["Auth", "Legacy"],
        ),
        (
            json!({"meta": ["owner=null"], "path": "specs"}),
            &["Auth", "Billing"],
        ),
    ];
    for (args, expected) in cases {
        let found = h.value("find", args.clone());
        assert_eq!(found_titles(&found), expected, "{args}: {found}");
        assert_eq!(found["total"], expected.len(), "{args}");
    }

    let whole = h.value("find", json!({"meta": ["status=active"], "path": "specs"}));
    assert!(whole["results"][0]["content"].is_string(), "{whole}");
    let projected = h.value(
        "find",
        json!({"meta": ["status=active"], "path": "specs", "fields": ["priority", "review.approved", "missing", "title"]}),
    );
    let row = projected["results"][0].as_object().unwrap();
    let mut keys: Vec<&str> = row.keys().map(String::as_str).collect();
    keys.sort();
    assert_eq!(
        keys,
        [
            "external_id",
            "fields",
            "file_path",
            "permalink",
            "title",
            "updated_at"
        ],
        "{projected}"
    );
    assert_eq!(
        row["fields"],
        json!({"priority": 3, "review.approved": true, "missing": null, "title": "Auth"})
    );
    let routed = h.value(
        "find",
        json!({"meta": ["status=active"], "path": "main/specs"}),
    );
    assert_eq!(
        routed["results"][0]["file_path"], "main/specs/Auth.md",
        "{routed}"
    );

    for (args, needle) in [
        (
            json!({"meta": []}),
            "'meta' must carry at least one predicate",
        ),
        (
            json!({"meta": ["status=active"], "name": "*.md"}),
            "'name' cannot combine with 'meta'",
        ),
        (
            json!({"meta": ["status=active"], "depth": 2}),
            "'depth' cannot combine with 'meta'",
        ),
        (json!({"fields": ["title"]}), "'fields' requires 'meta'"),
        (
            json!({"meta": ["status==active"]}),
            "unsupported predicate operator",
        ),
        (
            json!({"meta": ["status=active"], "fields": ["a..b"]}),
            "malformed field path 'a..b'",
        ),
    ] {
        let error = error_of(&h, "find", args.clone());
        assert!(error.contains(needle), "{args}: {error}");
    }
}
