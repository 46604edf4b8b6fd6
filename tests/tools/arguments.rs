//! How tools read their arguments and answer: the parameter aliases and string coercions of
//! compat 1.5, both output formats, and the three error styles of compat 1.4.

use std::collections::BTreeSet;
use std::fs;

use mcp::tools::ToolReply;
use serde_json::{json, Value};

use crate::{Harness, ReplyExt};

/// What a table row expects of a tool call.
#[derive(Debug)]
enum Expect {
    /// A successful JSON reply with this value at this JSON pointer (absent reads as null).
    At(&'static str, Value),
    /// A successful JSON reply whose array at this pointer has this many items.
    Count(&'static str, usize),
    /// A successful reply whose text contains this.
    Says(&'static str),
    /// An MCP error result whose text contains this.
    Refused(&'static str),
    /// A successful reply, after which this project file contains this text.
    File(&'static str, &'static str),
}

fn check(h: &Harness, tool: &str, args: &Value, expect: &Expect) {
    let reply = h.call(tool, args.clone());
    let what = format!("{tool} {args} -> {expect:?}");
    match expect {
        Expect::Refused(text) => {
            assert!(
                reply.is_error(),
                "{what}: expected an error, got {}",
                reply.text()
            );
            assert!(reply.text().contains(text), "{what}: {}", reply.text());
            return;
        }
        _ => assert!(!reply.is_error(), "{what}: {}", reply.text()),
    }
    match expect {
        Expect::At(pointer, value) => {
            let json = reply.json();
            let got = json.pointer(pointer).cloned().unwrap_or(Value::Null);
            assert_eq!(&got, value, "{what}: {}", reply.text());
        }
        Expect::Count(pointer, n) => {
            let json = reply.json();
            let got = json
                .pointer(pointer)
                .and_then(Value::as_array)
                .map(Vec::len);
            assert_eq!(got, Some(*n), "{what}: {}", reply.text());
        }
        Expect::Says(text) => assert!(reply.text().contains(text), "{what}: {}", reply.text()),
        Expect::File(path, text) => {
            let body = fs::read_to_string(h.main_dir().join(path))
                .unwrap_or_else(|e| panic!("{what}: reading {path}: {e}"));
            assert!(body.contains(text), "{what}: {path} holds {body:?}");
        }
        Expect::Refused(_) => unreachable!(),
    }
}

#[test]
fn every_documented_parameter_alias_is_accepted() {
    use Expect::*;
    let h = Harness::new();
    let main = h.main_dir();
    h.write_with(
        "Alpha Note",
        "docs",
        "zebraword here\n\n- [idea] alpha observation\n- relates_to [[Beta Note]]",
        json!({"note_type": "person"}),
    );
    h.write("Beta Note", "docs", "beta body");
    h.write("Probe One", "probe", "alias probe text");
    h.write("Probe Two", "probe", "alias probe text");
    h.write(
        "Edit Target",
        "edit",
        "find-one find-two find-three find-four\n\n## S1\nold1\n\n## S2\nold2",
    );
    for m in ["m1", "m2", "m3", "m4", "m5", "m6"] {
        h.write(m, "move", "movable");
    }
    h.write("x1", "mdir", "in a folder to move");
    h.write("y1", "ddir", "in a folder to delete");

    #[rustfmt::skip]
    let rows: Vec<(&str, Value, Expect)> = vec![
        // write_note.directory
        ("write_note", json!({"title": "W1", "folder": "via-folder", "content": "x", "output_format": "json"}), At("/file_path", json!("via-folder/W1.md"))),
        ("write_note", json!({"title": "W2", "dir": "via-dir", "content": "x", "output_format": "json"}), At("/file_path", json!("via-dir/W2.md"))),
        ("write_note", json!({"title": "W3", "path": "via-path", "content": "x", "output_format": "json"}), At("/file_path", json!("via-path/W3.md"))),
        // read_note.page / page_size (they page the fallback suggestions)
        ("read_note", json!({"identifier": "alias probe", "output_format": "json"}), Count("/related_results", 2)),
        ("read_note", json!({"identifier": "alias probe", "limit": 1, "output_format": "json"}), Count("/related_results", 1)),
        ("read_note", json!({"identifier": "alias probe", "per_page": 1, "output_format": "json"}), Count("/related_results", 1)),
        ("read_note", json!({"identifier": "alias probe", "page_number": 3, "limit": 1, "output_format": "json"}), At("/related_results", Value::Null)),
        // edit_note.content
        ("edit_note", json!({"identifier": "edit/edit-target", "operation": "append", "new_content": "via-new-content"}), File("edit/Edit Target.md", "via-new-content")),
        ("edit_note", json!({"identifier": "edit/edit-target", "operation": "append", "replacement": "via-replacement"}), File("edit/Edit Target.md", "via-replacement")),
        ("edit_note", json!({"identifier": "edit/edit-target", "operation": "append", "replace_with": "via-replace-with"}), File("edit/Edit Target.md", "via-replace-with")),
        // edit_note.section
        ("edit_note", json!({"identifier": "edit/edit-target", "operation": "replace_section", "section_heading": "## S1", "content": "via-section-heading"}), File("edit/Edit Target.md", "## S1\nvia-section-heading")),
        ("edit_note", json!({"identifier": "edit/edit-target", "operation": "replace_section", "heading": "## S2", "content": "via-heading"}), File("edit/Edit Target.md", "## S2\nvia-heading")),
        // edit_note.find_text
        ("edit_note", json!({"identifier": "edit/edit-target", "operation": "find_replace", "find": "find-one", "content": "repl-one"}), File("edit/Edit Target.md", "repl-one find-two")),
        ("edit_note", json!({"identifier": "edit/edit-target", "operation": "find_replace", "old_text": "find-two", "content": "repl-two"}), File("edit/Edit Target.md", "repl-two find-three")),
        ("edit_note", json!({"identifier": "edit/edit-target", "operation": "find_replace", "old_content": "find-three", "content": "repl-three"}), File("edit/Edit Target.md", "repl-three find-four")),
        ("edit_note", json!({"identifier": "edit/edit-target", "operation": "find_replace", "search": "find-four", "content": "repl-four"}), File("edit/Edit Target.md", "repl-three repl-four")),
        // move_note.destination_path / destination_folder / is_directory
        ("move_note", json!({"identifier": "move/m1", "dest_path": "moved/m1.md", "output_format": "json"}), At("/file_path", json!("moved/m1.md"))),
        ("move_note", json!({"identifier": "move/m2", "new_path": "moved/m2.md", "output_format": "json"}), At("/file_path", json!("moved/m2.md"))),
        ("move_note", json!({"identifier": "move/m3", "to": "moved/m3.md", "output_format": "json"}), At("/file_path", json!("moved/m3.md"))),
        ("move_note", json!({"identifier": "move/m4", "destination": "moved/m4.md", "output_format": "json"}), At("/file_path", json!("moved/m4.md"))),
        ("move_note", json!({"identifier": "move/m5", "dest_folder": "folder-a", "output_format": "json"}), At("/file_path", json!("folder-a/m5.md"))),
        ("move_note", json!({"identifier": "move/m6", "to_folder": "folder-b", "output_format": "json"}), At("/file_path", json!("folder-b/m6.md"))),
        ("move_note", json!({"identifier": "mdir", "is_dir": true, "destination_path": "mdir-moved", "output_format": "json"}), At("/successful_moves", json!(1))),
        // delete_note.is_directory
        ("delete_note", json!({"identifier": "ddir", "is_dir": true, "output_format": "json"}), At("/successful_deletes", json!(1))),
        // read_content.path
        ("read_content", json!({"file_path": "docs/Beta Note.md"}), At("/type", json!("text"))),
        ("read_content", json!({"filepath": "docs/Beta Note.md"}), At("/type", json!("text"))),
        ("read_content", json!({"file": "docs/Beta Note.md"}), At("/type", json!("text"))),
        // search_notes.query
        ("search_notes", json!({"q": "zebraword", "output_format": "json"}), At("/results/0/title", json!("Alpha Note"))),
        ("search_notes", json!({"search": "zebraword", "output_format": "json"}), At("/results/0/title", json!("Alpha Note"))),
        ("search_notes", json!({"text": "zebraword", "output_format": "json"}), At("/results/0/title", json!("Alpha Note"))),
        ("search_notes", json!({"q": "zebraword"}), Says("# Search Results: zebraword\n*project: main*")),
        // search_notes.search_all_projects
        ("search_notes", json!({"query": "zebraword", "all_projects": true, "output_format": "json"}), At("/results/0/project", json!("main"))),
        // search_notes.note_types
        ("search_notes", json!({"note_type": "person", "output_format": "json"}), At("/total", json!(1))),
        ("search_notes", json!({"types": ["person"], "output_format": "json"}), At("/total", json!(1))),
        // search_notes.entity_types / categories
        ("search_notes", json!({"query": "alpha observation", "entity_type": "observation", "output_format": "json"}), At("/results/0/type", json!("observation"))),
        ("search_notes", json!({"category": "idea", "output_format": "json"}), At("/results/0/category", json!("idea"))),
        // search_notes.after_date: a date in the future leaves nothing
        ("search_notes", json!({"query": "zebraword", "output_format": "json"}), At("/total", json!(1))),
        ("search_notes", json!({"query": "zebraword", "since": "tomorrow", "output_format": "json"}), At("/total", json!(0))),
        ("search_notes", json!({"query": "zebraword", "after": "tomorrow", "output_format": "json"}), At("/total", json!(0))),
        ("search_notes", json!({"query": "zebraword", "from_date": "tomorrow", "output_format": "json"}), At("/total", json!(0))),
        // search_notes.min_similarity (accepted, no effect on a text search)
        ("search_notes", json!({"query": "zebraword", "threshold": 0.5, "output_format": "json"}), At("/total", json!(1))),
        ("search_notes", json!({"query": "zebraword", "similarity_threshold": 0.5, "output_format": "json"}), At("/total", json!(1))),
        // search_notes.page / page_size
        ("search_notes", json!({"query": "alias probe", "limit": 1, "output_format": "json"}), Count("/results", 1)),
        ("search_notes", json!({"query": "alias probe", "per_page": 1, "output_format": "json"}), At("/page_size", json!(1))),
        ("search_notes", json!({"query": "alias probe", "page_number": 2, "limit": 1, "output_format": "json"}), At("/current_page", json!(2))),
        // build_context.url
        ("build_context", json!({"uri": "memory://docs/alpha-note"}), At("/results/0/primary_result/title", json!("Alpha Note"))),
        ("build_context", json!({"memory_url": "memory://docs/alpha-note"}), At("/results/0/primary_result/title", json!("Alpha Note"))),
        // build_context.timeframe: the value is read (and refused when too long)
        ("build_context", json!({"url": "memory://docs/alpha-note", "since": "2 years ago"}), Refused("Timeframe should be <= 1 year")),
        ("build_context", json!({"url": "memory://docs/alpha-note", "time_range": "2 years ago"}), Refused("Timeframe should be <= 1 year")),
        ("build_context", json!({"url": "memory://docs/alpha-note", "lookback": "2 years ago"}), Refused("Timeframe should be <= 1 year")),
        // build_context.max_related
        ("build_context", json!({"url": "memory://docs/alpha-note"}), Count("/results/0/related_results", 2)),
        ("build_context", json!({"url": "memory://docs/alpha-note", "max_results": 0}), Count("/results/0/related_results", 0)),
        // recent_activity.type
        ("recent_activity", json!({"types": "observation", "output_format": "json"}), At("/0/type", json!("observation"))),
        ("recent_activity", json!({"kind": "relation", "output_format": "json"}), At("/0/type", json!("relation"))),
        // recent_activity.timeframe
        ("recent_activity", json!({"since": "2 years ago"}), Refused("Timeframe should be <= 1 year")),
        ("recent_activity", json!({"time_range": "2 years ago"}), Refused("Timeframe should be <= 1 year")),
        ("recent_activity", json!({"lookback": "2 years ago"}), Refused("Timeframe should be <= 1 year")),
        // list_directory.dir_name
        ("list_directory", json!({"directory": "docs", "output_format": "json"}), At("/nodes/0/file_path", json!("docs/Alpha Note.md"))),
        ("list_directory", json!({"folder": "docs", "output_format": "json"}), At("/nodes/0/file_path", json!("docs/Alpha Note.md"))),
        ("list_directory", json!({"path": "docs", "output_format": "json"}), At("/nodes/0/file_path", json!("docs/Alpha Note.md"))),
        ("list_directory", json!({"dir": "docs", "output_format": "json"}), At("/nodes/0/file_path", json!("docs/Alpha Note.md"))),
        // list_directory.file_name_glob
        ("list_directory", json!({"dir_name": "docs", "glob": "Beta*", "output_format": "json"}), At("/nodes/0/name", json!("Beta Note.md"))),
        ("list_directory", json!({"dir_name": "docs", "pattern": "Beta*", "output_format": "json"}), Count("/nodes", 1)),
        ("list_directory", json!({"dir_name": "docs", "filter": "Beta*", "output_format": "json"}), Count("/nodes", 1)),
        // `offset` is never an alias: it is ignored, not an error
        ("search_notes", json!({"query": "alias probe", "offset": 1, "output_format": "json"}), Count("/results", 2)),
        ("search_notes", json!({"query": "alias probe", "offset": 1, "output_format": "json"}), At("/current_page", json!(1))),
        ("list_directory", json!({"dir_name": "docs", "offset": 5, "output_format": "json"}), At("/page", json!(1))),
        ("list_directory", json!({"dir_name": "docs", "offset": 5, "output_format": "json"}), Count("/nodes", 2)),
    ];
    for (tool, args, expect) in &rows {
        check(&h, tool, args, expect);
    }
    assert!(main.join("mdir-moved/x1.md").exists());
    assert!(!main.join("ddir/y1.md").exists());
}

#[test]
fn string_encoded_lists_objects_and_numbers_are_coerced() {
    use Expect::*;
    let h = Harness::new();
    let main = h.main_dir();
    h.write("Over", "c", "to be overwritten");
    h.write_with(
        "Seed",
        "c",
        "seedword\n\n- [fact] seedword observation",
        json!({"metadata": {"status": "draft"}}),
    );
    #[rustfmt::skip]
    let rows: Vec<(&str, Value, Expect)> = vec![
        // tags as a comma string and as a JSON-array string
        ("write_note", json!({"title": "Comma Tags", "directory": "c", "content": "x", "tags": "a, b"}), File("c/Comma Tags.md", "tags:\n- a\n- b\n")),
        ("write_note", json!({"title": "Array Tags", "directory": "c", "content": "x", "tags": "[\"a\",\"b\"]"}), File("c/Array Tags.md", "tags:\n- a\n- b\n")),
        // metadata as a JSON-object string
        ("write_note", json!({"title": "Meta", "directory": "c", "content": "x", "metadata": "{\"status\": \"active\", \"priority\": 2}"}), File("c/Meta.md", "status: active\n")),
        ("write_note", json!({"title": "Meta Two", "directory": "c", "content": "x", "metadata": "{\"priority\": 2}"}), File("c/Meta Two.md", "priority: 2\n")),
        // booleans as strings
        ("write_note", json!({"title": "Over", "directory": "c", "content": "overwritten", "overwrite": "true", "output_format": "json"}), At("/action", json!("updated"))),
        ("write_note", json!({"title": "Over", "directory": "c", "content": "again", "overwrite": "false", "output_format": "json"}), Refused("NOTE_ALREADY_EXISTS")),
        // metadata_filters as a JSON string
        ("search_notes", json!({"metadata_filters": "{\"status\": \"draft\"}", "output_format": "json"}), At("/results/0/title", json!("Seed"))),
        ("search_notes", json!({"metadata_filters": "{\"status\": \"active\"}", "output_format": "json"}), At("/results/0/title", json!("Meta"))),
        // entity_types as a comma string
        ("search_notes", json!({"query": "seedword", "entity_types": "entity, observation", "output_format": "json"}), Count("/results", 2)),
        // categories as a JSON-array string
        ("search_notes", json!({"categories": "[\"fact\"]", "output_format": "json"}), At("/results/0/category", json!("fact"))),
        // integers as strings
        ("build_context", json!({"url": "memory://c/seed", "depth": "2"}), At("/metadata/depth", json!(2))),
        ("search_notes", json!({"query": "seedword", "page": "1", "page_size": "5", "output_format": "json"}), At("/page_size", json!(5))),
        ("search_notes", json!({"query": "seedword", "page": "1", "output_format": "json"}), At("/current_page", json!(1))),
    ];
    for (tool, args, expect) in &rows {
        check(&h, tool, args, expect);
    }
    let text = fs::read_to_string(main.join("c/Meta.md")).unwrap();
    assert!(text.contains("priority: 2\n"), "{text}");
    // A string that is not an integer is refused, naming the value.
    let bad = h.call("search_notes", json!({"query": "x", "page": "one"}));
    assert!(
        bad.is_error() && bad.text().contains("'one' is not a valid integer"),
        "{}",
        bad.text()
    );
    let bad_depth = h.call(
        "build_context",
        json!({"url": "memory://c/seed", "depth": "deep"}),
    );
    assert!(
        bad_depth.is_error()
            && bad_depth
                .text()
                .contains("Invalid depth parameter: 'deep' is not a valid integer"),
        "{}",
        bad_depth.text()
    );
}

#[test]
fn output_format_switches_between_text_and_json_shapes() {
    let h = Harness::new();
    let main = h.main_dir();
    let elsewhere = tempfile::tempdir().unwrap();
    for n in ["a", "b", "c", "d", "e", "f"] {
        h.write(
            &format!("Fmt {n}"),
            "fmt",
            &format!("# Fmt {n}\nformatword {n}"),
        );
    }

    // (tool, text args, text starts with, json args, keys of the JSON object)
    #[rustfmt::skip]
    let rows: Vec<(&str, Value, &str, Value, &[&str])> = vec![
        ("write_note", json!({"title": "Fmt Text", "directory": "fmt", "content": "x"}), "# Created note\n", json!({"title": "Fmt Json", "directory": "fmt", "content": "x"}), &["title", "permalink", "file_path", "checksum", "action"]),
        ("read_note", json!({"identifier": "fmt/fmt-a"}), "---\ntitle: Fmt a\n", json!({"identifier": "fmt/fmt-a"}), &["title", "permalink", "file_path", "content", "frontmatter"]),
        ("edit_note", json!({"identifier": "fmt/fmt-a", "operation": "append", "content": "more"}), "# Edited note (append)\n", json!({"identifier": "fmt/fmt-a", "operation": "append", "content": "more"}), &["title", "permalink", "file_path", "checksum", "operation", "fileCreated"]),
        ("move_note", json!({"identifier": "fmt/fmt-b", "destination_path": "moved/Fmt b.md"}), "✅ Note moved successfully", json!({"identifier": "fmt/fmt-c", "destination_path": "moved/Fmt c.md"}), &["moved", "title", "permalink", "file_path", "source", "destination"]),
        ("delete_note", json!({"identifier": "fmt/fmt-d"}), "true", json!({"identifier": "fmt/fmt-e"}), &["deleted", "title", "permalink", "file_path"]),
        ("search_notes", json!({"query": "formatword"}), "# Search Results: formatword\n*project: main*", json!({"query": "formatword"}), &["results", "current_page", "page_size", "total", "total_is_exact", "has_more"]),
        ("list_directory", json!({}), "Contents of '/' (depth 1):", json!({}), &["nodes", "page", "page_size", "total", "has_more"]),
        ("list_memory_projects", json!({}), "Available projects:\n- main (local) [", json!({}), &["projects", "default_project", "constrained_project"]),
        ("create_memory_project", json!({"project_name": "fmt-text", "project_path": elsewhere.path().join("t").to_str().unwrap()}), "✓ Project 'fmt-text' added successfully", json!({"project_name": "fmt-json", "project_path": elsewhere.path().join("j").to_str().unwrap()}), &["name", "external_id", "path", "is_default", "created", "already_exists", "indexing"]),
    ];
    for (tool, text_args, prefix, json_args, keys) in rows {
        let text = h.call(tool, text_args.clone());
        assert!(
            matches!(text.clone().unlinked(), ToolReply::Text(_)),
            "{tool} {text_args}: {text:?}"
        );
        assert!(
            text.text().starts_with(prefix),
            "{tool} text: {}",
            text.text()
        );
        assert!(
            serde_json::from_str::<Value>(&text.text()).map_or(true, |v| !v.is_object()),
            "{tool} text mode is not a JSON object: {}",
            text.text()
        );
        let mut explicit = text_args.clone();
        explicit["output_format"] = json!("text");
        if tool == "search_notes"
            || tool == "list_directory"
            || tool == "list_memory_projects"
            || tool == "read_note"
        {
            assert_eq!(
                h.call(tool, explicit).ok().text(),
                text.text(),
                "{tool}: text is the default"
            );
        }
        let mut with_format = json_args.clone();
        with_format["output_format"] = json!("json");
        let reply = h.call(tool, with_format);
        // A JSON reply is what the server sends as compact JSON text plus structured content
        // (compat 1.3); mcp_stdio.rs checks that conversion.
        let ToolReply::Json(v) = reply.clone().unlinked() else {
            panic!("{tool} {json_args}: expected a JSON reply, got {reply:?}");
        };
        let got: BTreeSet<&str> = v
            .as_object()
            .unwrap_or_else(|| panic!("{tool} json is an object: {v}"))
            .keys()
            .map(String::as_str)
            .collect();
        for key in keys {
            assert!(got.contains(key), "{tool} json lacks {key}: {v}");
        }
    }

    // Spot checks of the JSON values.
    let read = h.json("read_note", json!({"identifier": "fmt/fmt-f"}));
    assert_eq!(read["title"], "Fmt f");
    assert_eq!(read["permalink"], "main/fmt/fmt-f");
    assert_eq!(read["file_path"], "fmt/Fmt f.md");
    assert_eq!(read["content"], "\n# Fmt f\nformatword f");
    assert_eq!(read["frontmatter"]["title"], "Fmt f");
    assert_eq!(read["frontmatter"]["type"], "note");
    let whole = h.json(
        "read_note",
        json!({"identifier": "fmt/fmt-f", "include_frontmatter": true}),
    );
    assert_eq!(
        whole["content"].as_str().unwrap(),
        fs::read_to_string(main.join("fmt/Fmt f.md")).unwrap()
    );
    let deleted = h.json("delete_note", json!({"identifier": "fmt/fmt-e"}));
    assert_eq!(
        deleted,
        json!({"deleted": false, "title": null, "permalink": null, "file_path": null})
    );
    let projects = h.json("list_memory_projects", json!({}));
    assert_eq!(
        projects["projects"].as_array().unwrap().len(),
        3,
        "{projects}"
    );

    // recent_activity's JSON is a flat list; its text a markdown summary.
    let activity = h.text("recent_activity", json!({}));
    assert!(
        activity.starts_with("## Recent Activity: main (7d)"),
        "{activity}"
    );
    let list = h.call("recent_activity", json!({"output_format": "json"}));
    assert!(
        matches!(&list, ToolReply::Json(Value::Array(_))),
        "{list:?}"
    );
    let summary = h.call("recent_activity", json!({}));
    assert!(matches!(summary, ToolReply::Text(_)), "{summary:?}");

    // build_context defaults to JSON; text on request.
    let ctx = h
        .call("build_context", json!({"url": "memory://fmt/fmt-f"}))
        .ok()
        .json();
    assert_eq!(ctx["results"][0]["primary_result"]["title"], "Fmt f");
    assert!(ctx["metadata"].is_object() && ctx["page"] == 1, "{ctx}");
    let ctx_text = h.text(
        "build_context",
        json!({"url": "memory://fmt/fmt-f", "output_format": "text"}),
    );
    assert!(ctx_text.starts_with("# Context: Fmt f"), "{ctx_text}");

    // Anything but text/json is an error result.
    #[rustfmt::skip]
    let xml_rows = [
        ("write_note", json!({"title": "X", "directory": "fmt", "content": "x"})),
        ("read_note", json!({"identifier": "fmt/fmt-f"})),
        ("edit_note", json!({"identifier": "fmt/fmt-f", "operation": "append", "content": "x"})),
        ("move_note", json!({"identifier": "fmt/fmt-f", "destination_path": "z/Fmt f.md"})),
        ("delete_note", json!({"identifier": "fmt/fmt-f"})),
        ("search_notes", json!({"query": "x"})),
        ("recent_activity", json!({})),
        ("build_context", json!({"url": "memory://fmt/fmt-f"})),
        ("list_directory", json!({})),
        ("list_memory_projects", json!({})),
    ];
    for (tool, mut args) in xml_rows {
        args["output_format"] = json!("xml");
        let r = h.call(tool, args);
        assert!(r.is_error(), "{tool}: {}", r.text());
        assert!(r.text().contains("xml"), "{tool}: {}", r.text());
    }
    assert!(!main.join("X.md").exists() && !main.join("fmt/X.md").exists());
    assert!(
        main.join("fmt/Fmt f.md").exists(),
        "refused calls change nothing"
    );
}

#[test]
fn invalid_input_is_an_mcp_error_result() {
    let h = Harness::new();
    h.write("Doc", "e", "some text");
    // (tool, arguments, text the error contains)
    #[rustfmt::skip]
    let rows: Vec<(&str, Value, &str)> = vec![
        ("no_such_tool", json!({}), "no_such_tool"),
        ("write_note", json!({"title": {"x": 1}, "directory": "d", "content": "x"}), "expected a string"),
        ("write_note", json!({"title": "x", "directory": "d", "content": ["a"]}), "expected a string"),
        ("write_note", json!({"title": "x", "directory": "d", "content": "x", "tags": {"a": 1}}), "expected a list of strings"),
        ("search_notes", json!({"query": "x", "metadata_filters": "not json"}), "expected an object"),
        ("edit_note", json!({"identifier": "e/doc", "operation": "append", "content": "x", "expected_replacements": 1.5}), "not a valid integer"),
        ("write_note", json!({"title": "x", "content": "x"}), "directory"),
        ("write_note", json!({"directory": "d", "content": "x"}), "title"),
        ("read_note", json!({}), "identifier"),
        ("edit_note", json!({"identifier": "e/doc", "content": "x"}), "operation"),
        ("build_context", json!({}), "url"),
        ("read_content", json!({}), "path"),
        ("move_note", json!({"destination_path": "x.md"}), "identifier"),
        ("search_notes", json!({"query": "x", "page": 0}), "page must be >= 1, got 0"),
        ("search_notes", json!({"query": "x", "page_size": 0}), "page_size must be >= 1, got 0"),
        ("read_note", json!({"identifier": "x", "page": 0}), "page must be >= 1, got 0"),
        ("list_directory", json!({"page_size": 500}), "page_size must be <= 200"),
        ("recent_activity", json!({"page_size": 500}), "page_size must be <= 100, got 500"),
        ("recent_activity", json!({"timeframe": "whenever"}), "Could not parse timeframe"),
        ("build_context", json!({"url": "memory://e/doc", "timeframe": "whenever"}), "Could not parse timeframe"),
        ("edit_note", json!({"identifier": "e/doc", "operation": "bogus", "content": "x"}), "Invalid operation 'bogus'. Must be one of: append, prepend, find_replace, replace_section, insert_before_section, insert_after_section"),
        ("edit_note", json!({"identifier": "e/doc", "operation": "find_replace", "content": "x"}), "find_text parameter is required for find_replace operation"),
        ("edit_note", json!({"identifier": "e/doc", "operation": "replace_section", "content": "x"}), "section parameter is required"),
        ("edit_note", json!({"identifier": "e/doc", "operation": "append", "content": "x", "metadata": {"k1": null, "k2": null}}), "metadata values cannot be null (key deletion is not supported): k1, k2"),
        ("read_note", json!({"identifier": "x", "project": "nope"}), "nope"),
        ("delete_project", json!({"project_name": "main"}), "Cannot delete default project 'main'"),
        ("delete_project", json!({"project_name": "nope"}), "Project 'nope' not found"),
        ("read_content", json!({"path": "nothing.md"}), "Resource not found: nothing.md"),
    ];
    for (tool, args, text) in rows {
        let r = h.call(tool, args.clone());
        assert!(
            r.is_error(),
            "{tool} {args}: expected an error result, got {}",
            r.text()
        );
        assert!(r.text().contains(text), "{tool} {args}: {}", r.text());
    }
    let doc = fs::read_to_string(h.main_dir().join("e/Doc.md")).unwrap();
    assert!(
        doc.ends_with("some text"),
        "no refused edit touched the note: {doc}"
    );
}

#[test]
fn situations_an_agent_should_read_about_are_markdown_guidance() {
    let h = Harness::new();
    h.write("Doc", "e", "some text");
    // (tool, arguments, text starts with, whether it is an error result: Basic Memory 0.24
    // raises the refusals of write_note and edit_note, with the same guidance)
    #[rustfmt::skip]
    let rows: Vec<(&str, Value, &str, bool)> = vec![
        ("write_note", json!({"title": "Doc", "directory": "e", "content": "x"}), "# Error: Note already exists", true),
        ("write_note", json!({"title": "x", "directory": "../up", "content": "x"}), "# Error", true),
        ("move_note", json!({"identifier": "e/doc"}), "# Move Failed - Missing Destination", false),
        ("move_note", json!({"identifier": "e/doc", "destination_path": "a.md", "destination_folder": "b"}), "# Move Failed - Invalid Parameters", false),
        ("move_note", json!({"identifier": "e/nothing", "destination_path": "a.md"}), "# Move Failed - Note Not Found", false),
        ("edit_note", json!({"identifier": "e/doc", "operation": "find_replace", "find_text": "absent", "content": "x"}), "# Edit Failed - Text Not Found", true),
        ("edit_note", json!({"identifier": "e/nothing", "operation": "replace_section", "section": "## A", "content": "x"}), "# Edit Failed - Note Not Found", true),
        ("search_notes", json!({"query": "x", "search_type": "bogus"}), "# Search Failed", false),
        ("search_notes", json!({}), "# No Search Criteria", false),
        ("read_note", json!({"identifier": "zzz nothing at all"}), "\n# Note Not Found in main: \"zzz nothing at all\"", false),
        ("delete_note", json!({"identifier": "no-such-folder", "is_directory": true}), "# Directory Delete Failed - No Files Found", false),
        ("delete_note", json!({"identifier": "e/nothing"}), "false", false),
    ];
    for (tool, args, prefix, error) in rows {
        let r = h.call(tool, args.clone());
        assert_eq!(r.is_error(), error, "{tool} {args}: {}", r.text());
        assert!(r.text().starts_with(prefix), "{tool} {args}: {}", r.text());
    }
}

#[test]
fn json_mode_failures_carry_an_error_code() {
    let h = Harness::new();
    h.write("Doc", "e", "x");
    // (tool, arguments, error code, whether it is an error result: Basic Memory 0.24 raises
    // the refusals of write_note and edit_note)
    #[rustfmt::skip]
    let rows: Vec<(&str, Value, &str, bool)> = vec![
        ("write_note", json!({"title": "Doc", "directory": "e", "content": "x"}), "NOTE_ALREADY_EXISTS", true),
        ("write_note", json!({"title": "x", "directory": "../up", "content": "x"}), "SECURITY_VALIDATION_ERROR", true),
        ("move_note", json!({"identifier": "e/doc"}), "MISSING_DESTINATION", false),
        ("move_note", json!({"identifier": "e/doc", "destination_path": "a.md", "destination_folder": "b"}), "MUTUALLY_EXCLUSIVE_PARAMS", false),
        ("move_note", json!({"identifier": "e/doc", "destination_path": "e/Doc.md"}), "DESTINATION_SAME_AS_SOURCE", false),
        ("move_note", json!({"identifier": "e/doc", "destination_path": "e/Doc"}), "FILE_EXTENSION_REQUIRED", false),
        ("move_note", json!({"identifier": "e/nothing", "destination_path": "a.md"}), "ENTITY_RESOLUTION_FAILED", false),
        ("read_note", json!({"identifier": "../../etc/passwd"}), "SECURITY_VALIDATION_ERROR", false),
        ("read_note", json!({"identifier": "zzz nothing at all"}), "NOTE_NOT_FOUND", false),
        ("edit_note", json!({"identifier": "e/nothing", "operation": "replace_section", "section": "## A", "content": "x"}), "ENTITY_RESOLUTION_FAILED", true),
        ("search_notes", json!({}), "NO_SEARCH_CRITERIA", false),
    ];
    for (tool, mut args, code, error) in rows {
        args["output_format"] = json!("json");
        let reply = h.call(tool, args.clone());
        assert_eq!(reply.is_error(), error, "{tool} {args}: {}", reply.text());
        let v = reply.json();
        assert_eq!(v["error"], code, "{tool} {args}: {v}");
    }
    let conflict = h.refused_json(
        "write_note",
        json!({"title": "Doc", "directory": "e", "content": "x"}),
    );
    assert_eq!(conflict["action"], "conflict");
    assert_eq!(conflict["file_path"], "e/Doc.md");
}

#[test]
fn a_wrongly_typed_argument_is_named_in_the_error() {
    let h = Harness::new();
    // (tool, arguments, the parameter the error must name)
    #[rustfmt::skip]
    let rows: Vec<(&str, Value, &str)> = vec![
        ("write_note", json!({"title": {"x": 1}, "directory": "d", "content": "x"}), "title"),
        ("write_note", json!({"title": "x", "directory": "d", "content": ["a"]}), "content"),
        ("search_notes", json!({"query": "x", "page": "one"}), "page"),
    ];
    for (tool, args, field) in rows {
        let r = h.call(tool, args.clone());
        assert!(r.is_error(), "{tool} {args}: {}", r.text());
        let named = r.text().contains(&format!("`{field}`"))
            || r.text().contains(&format!("'{field}'"))
            || r.text().contains(&format!("\n{field}\n"))
            || r.text().contains(&format!("{field}:"));
        assert!(
            named,
            "{tool} {args}: the error does not name '{field}': {}",
            r.text()
        );
    }
}
