mod common;
use common::mcp::{eventually, Mcp};

// The MCP tool surface over stdio against the real binary, tool by tool: the tool list and its
// annotations, the parameter aliases and string coercions of compat 1.5, both output formats,
// the three error styles of compat 1.4, path safety, odd inputs (huge notes, invalid UTF-8,
// unknown projects), project management, canvas, read_content, search / activity / context /
// directory features, prompts and resources, the ChatGPT shims, sync_status and diagnostics.
//
// Every test starts its own `gitmem serve` on a fresh temporary root, whose default project is
// `main` at `<root>/projects/main`.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::mcp::Reply;
use serde_json::{json, Value};
use tempfile::TempDir;

// ---------------------------------------------------------------------------------------------
// helpers

/// A server on a fresh root.
fn server() -> (TempDir, Mcp) {
    let dir = tempfile::tempdir().unwrap();
    let mcp = Mcp::start(dir.path());
    (dir, mcp)
}

fn main_dir(root: &Path) -> PathBuf {
    root.join("projects/main")
}

/// Waits until the initial indexing is done.
fn ready(mcp: &mut Mcp) {
    assert!(
        eventually(Duration::from_secs(15), || mcp
            .text("sync_status", json!({}))
            .contains("ready for use")),
        "sync_status never said the knowledge base is ready"
    );
}

/// write_note that must succeed.
fn write(mcp: &mut Mcp, title: &str, directory: &str, content: &str) {
    mcp.call(
        "write_note",
        json!({"title": title, "directory": directory, "content": content}),
    )
    .ok();
}

/// write_note with extra arguments that must succeed.
fn write_with(mcp: &mut Mcp, title: &str, directory: &str, content: &str, extra: Value) {
    let mut args = json!({"title": title, "directory": directory, "content": content});
    for (k, v) in extra.as_object().unwrap() {
        args[k] = v.clone();
    }
    mcp.call("write_note", args).ok();
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

fn titles(v: &Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results: {v}"))
        .iter()
        .map(|r| r["title"].as_str().unwrap_or_default().to_string())
        .collect()
}

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Names of the entries of a directory.
fn entries(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// Project-relative paths of every file under `dir`.
fn files_under(dir: &Path) -> BTreeSet<String> {
    common::snapshot(dir)
        .into_keys()
        .map(|p| {
            p.strip_prefix(dir)
                .unwrap()
                .to_string_lossy()
                .replace('\\', "/")
        })
        .collect()
}

/// The inner JSON payload of a ChatGPT `search` / `fetch` reply (compat 2.17).
fn chatgpt_inner(reply: &Reply) -> Value {
    assert!(!reply.is_error, "{}", reply.text);
    let outer = reply.json();
    let items = outer
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {outer}"));
    assert_eq!(items.len(), 1, "{outer}");
    assert_eq!(items[0]["type"], "text", "{outer}");
    serde_json::from_str(items[0]["text"].as_str().unwrap())
        .unwrap_or_else(|e| panic!("inner text is not JSON ({e}): {outer}"))
}

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

fn check(mcp: &mut Mcp, project_dir: &Path, tool: &str, args: &Value, expect: &Expect) {
    let reply = mcp.call(tool, args.clone());
    let what = format!("{tool} {args} -> {expect:?}");
    match expect {
        Expect::Refused(text) => {
            assert!(
                reply.is_error,
                "{what}: expected an error, got {}",
                reply.text
            );
            assert!(reply.text.contains(text), "{what}: {}", reply.text);
            return;
        }
        _ => assert!(!reply.is_error, "{what}: {}", reply.text),
    }
    match expect {
        Expect::At(pointer, value) => {
            let json = reply.json();
            let got = json.pointer(pointer).cloned().unwrap_or(Value::Null);
            assert_eq!(&got, value, "{what}: {}", reply.text);
        }
        Expect::Count(pointer, n) => {
            let json = reply.json();
            let got = json
                .pointer(pointer)
                .and_then(Value::as_array)
                .map(Vec::len);
            assert_eq!(got, Some(*n), "{what}: {}", reply.text);
        }
        Expect::Says(text) => assert!(reply.text.contains(text), "{what}: {}", reply.text),
        Expect::File(path, text) => {
            let body = fs::read_to_string(project_dir.join(path))
                .unwrap_or_else(|e| panic!("{what}: reading {path}: {e}"));
            assert!(body.contains(text), "{what}: {path} holds {body:?}");
        }
        Expect::Refused(_) => unreachable!(),
    }
}

// ---------------------------------------------------------------------------------------------
// 1. tools/list

#[test]
fn tools_list_has_the_23_tools_with_annotations_and_object_schemas() {
    let (_dir, mut mcp) = server();
    let listed = mcp.request("tools/list", json!({}));
    let tools = listed["tools"].as_array().expect("tools/list has tools");

    // (name, readOnlyHint, destructiveHint) — compat 1.2, plus canvas (compat 10),
    // sync_status (compat 8.8) and the linked-folder tools (design 7).
    let expected = [
        ("write_note", false, true),
        ("read_note", true, false),
        ("view_note", true, false),
        ("edit_note", false, true),
        ("move_note", false, false),
        ("delete_note", false, true),
        ("read_content", true, false),
        ("search_notes", true, false),
        ("recent_activity", true, false),
        ("build_context", true, false),
        ("list_directory", true, false),
        ("list_memory_projects", true, false),
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
    ];
    let names: BTreeSet<&str> = tools.iter().map(|t| t["name"].as_str().unwrap()).collect();
    let wanted: BTreeSet<&str> = expected.iter().map(|e| e.0).collect();
    assert_eq!(names, wanted);
    assert_eq!(
        tools.len(),
        23,
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

// ---------------------------------------------------------------------------------------------
// 2. aliases (compat 1.5)

#[test]
fn every_documented_parameter_alias_is_accepted() {
    use Expect::*;
    let (dir, mut mcp) = server();
    let main = main_dir(dir.path());
    write_with(
        &mut mcp,
        "Alpha Note",
        "docs",
        "zebraword here\n\n- [idea] alpha observation\n- relates_to [[Beta Note]]",
        json!({"note_type": "person"}),
    );
    write(&mut mcp, "Beta Note", "docs", "beta body");
    write(&mut mcp, "Probe One", "probe", "alias probe text");
    write(&mut mcp, "Probe Two", "probe", "alias probe text");
    write(
        &mut mcp,
        "Edit Target",
        "edit",
        "find-one find-two find-three find-four\n\n## S1\nold1\n\n## S2\nold2",
    );
    for m in ["m1", "m2", "m3", "m4", "m5", "m6"] {
        write(&mut mcp, m, "move", "movable");
    }
    write(&mut mcp, "x1", "mdir", "in a folder to move");
    write(&mut mcp, "y1", "ddir", "in a folder to delete");

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
        check(&mut mcp, &main, tool, args, expect);
    }
    assert!(main.join("mdir-moved/x1.md").exists());
    assert!(!main.join("ddir/y1.md").exists());
}

// ---------------------------------------------------------------------------------------------
// 3. string-encoded JSON

#[test]
fn string_encoded_lists_objects_and_numbers_are_coerced() {
    use Expect::*;
    let (dir, mut mcp) = server();
    let main = main_dir(dir.path());
    write(&mut mcp, "Over", "c", "to be overwritten");
    write_with(
        &mut mcp,
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
        ("write_note", json!({"title": "Over", "directory": "c", "content": "again", "overwrite": "false", "output_format": "json"}), At("/error", json!("NOTE_ALREADY_EXISTS"))),
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
        check(&mut mcp, &main, tool, args, expect);
    }
    let text = fs::read_to_string(main.join("c/Meta.md")).unwrap();
    assert!(text.contains("priority: 2\n"), "{text}");
    // A string that is not an integer is refused, naming the value.
    let bad = mcp.call("search_notes", json!({"query": "x", "page": "one"}));
    assert!(
        bad.is_error && bad.text.contains("'one' is not a valid integer"),
        "{}",
        bad.text
    );
    let bad_depth = mcp.call(
        "build_context",
        json!({"url": "memory://c/seed", "depth": "deep"}),
    );
    assert!(
        bad_depth.is_error
            && bad_depth
                .text
                .contains("Invalid depth parameter: 'deep' is not a valid integer"),
        "{}",
        bad_depth.text
    );
}

// ---------------------------------------------------------------------------------------------
// 4. output formats

#[test]
fn output_format_switches_between_text_and_json_shapes() {
    let (dir, mut mcp) = server();
    let main = main_dir(dir.path());
    let elsewhere = tempfile::tempdir().unwrap();
    for n in ["a", "b", "c", "d", "e", "f"] {
        write(
            &mut mcp,
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
        let text = mcp.call(tool, text_args.clone());
        assert!(!text.is_error, "{tool} {text_args}: {}", text.text);
        assert!(text.text.starts_with(prefix), "{tool} text: {}", text.text);
        assert!(
            serde_json::from_str::<Value>(&text.text).map_or(true, |v| !v.is_object()),
            "{tool} text mode is not a JSON object: {}",
            text.text
        );
        let mut explicit = text_args.clone();
        explicit["output_format"] = json!("text");
        if tool == "search_notes"
            || tool == "list_directory"
            || tool == "list_memory_projects"
            || tool == "read_note"
        {
            assert_eq!(
                mcp.call(tool, explicit).ok().text,
                text.text,
                "{tool}: text is the default"
            );
        }
        let mut with_format = json_args.clone();
        with_format["output_format"] = json!("json");
        let reply = mcp.call(tool, with_format);
        assert!(!reply.is_error, "{tool} {json_args}: {}", reply.text);
        let v = reply.json();
        // Compact JSON text plus the same value as structured content (compat 1.3).
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
    let read = jcall(&mut mcp, "read_note", json!({"identifier": "fmt/fmt-f"}));
    assert_eq!(read["title"], "Fmt f");
    assert_eq!(read["permalink"], "main/fmt/fmt-f");
    assert_eq!(read["file_path"], "fmt/Fmt f.md");
    assert_eq!(read["content"], "\n# Fmt f\nformatword f");
    assert_eq!(read["frontmatter"]["title"], "Fmt f");
    assert_eq!(read["frontmatter"]["type"], "note");
    let whole = jcall(
        &mut mcp,
        "read_note",
        json!({"identifier": "fmt/fmt-f", "include_frontmatter": true}),
    );
    assert_eq!(
        whole["content"].as_str().unwrap(),
        fs::read_to_string(main.join("fmt/Fmt f.md")).unwrap()
    );
    let deleted = jcall(&mut mcp, "delete_note", json!({"identifier": "fmt/fmt-e"}));
    assert_eq!(
        deleted,
        json!({"deleted": false, "title": null, "permalink": null, "file_path": null})
    );
    let projects = jcall(&mut mcp, "list_memory_projects", json!({}));
    assert_eq!(
        projects["projects"].as_array().unwrap().len(),
        3,
        "{projects}"
    );

    // recent_activity's JSON is a flat list; its text a markdown summary.
    let activity = mcp.text("recent_activity", json!({}));
    assert!(
        activity.starts_with("## Recent Activity: main (7d)"),
        "{activity}"
    );
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
    // Text replies carry no structured content.
    assert_eq!(mcp.call("recent_activity", json!({})).ok().structured, None);

    // build_context defaults to JSON; text on request.
    let ctx = mcp
        .call("build_context", json!({"url": "memory://fmt/fmt-f"}))
        .ok()
        .json();
    assert_eq!(ctx["results"][0]["primary_result"]["title"], "Fmt f");
    assert!(ctx["metadata"].is_object() && ctx["page"] == 1, "{ctx}");
    let ctx_text = mcp.text(
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
        let r = mcp.call(tool, args);
        assert!(r.is_error, "{tool}: {}", r.text);
        assert!(r.text.contains("xml"), "{tool}: {}", r.text);
    }
    assert!(!main.join("X.md").exists() && !main.join("fmt/X.md").exists());
    assert!(
        main.join("fmt/Fmt f.md").exists(),
        "refused calls change nothing"
    );
}

// ---------------------------------------------------------------------------------------------
// 5. error styles (compat 1.4)

#[test]
fn invalid_input_is_an_mcp_error_result() {
    let (dir, mut mcp) = server();
    write(&mut mcp, "Doc", "e", "some text");
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
        let r = mcp.call(tool, args.clone());
        assert!(
            r.is_error,
            "{tool} {args}: expected an error result, got {}",
            r.text
        );
        assert!(r.text.contains(text), "{tool} {args}: {}", r.text);
    }
    let doc = fs::read_to_string(main_dir(dir.path()).join("e/Doc.md")).unwrap();
    assert!(
        doc.ends_with("some text"),
        "no refused edit touched the note: {doc}"
    );
}

#[test]
fn situations_an_agent_should_read_about_are_markdown_guidance() {
    let (_dir, mut mcp) = server();
    write(&mut mcp, "Doc", "e", "some text");
    write(&mut mcp, "Doc", "e", "again");
    // (tool, arguments, text starts with)
    #[rustfmt::skip]
    let rows: Vec<(&str, Value, &str)> = vec![
        ("write_note", json!({"title": "Doc", "directory": "e", "content": "x"}), "# Error: Note already exists"),
        ("write_note", json!({"title": "x", "directory": "../up", "content": "x"}), "# Error"),
        ("move_note", json!({"identifier": "e/doc"}), "# Move Failed - Missing Destination"),
        ("move_note", json!({"identifier": "e/doc", "destination_path": "a.md", "destination_folder": "b"}), "# Move Failed - Invalid Parameters"),
        ("move_note", json!({"identifier": "e/nothing", "destination_path": "a.md"}), "# Move Failed - Note Not Found"),
        ("edit_note", json!({"identifier": "e/doc", "operation": "find_replace", "find_text": "absent", "content": "x"}), "# Edit Failed - Text Not Found"),
        ("edit_note", json!({"identifier": "e/nothing", "operation": "replace_section", "section": "## A", "content": "x"}), "# Edit Failed - Note Not Found"),
        ("search_notes", json!({"query": "x", "search_type": "bogus"}), "# Search Failed"),
        ("search_notes", json!({}), "# No Search Criteria"),
        ("read_note", json!({"identifier": "zzz nothing at all"}), "\n# Note Not Found in main: \"zzz nothing at all\""),
        ("delete_note", json!({"identifier": "no-such-folder", "is_directory": true}), "# Directory Delete Failed - No Files Found"),
        ("delete_note", json!({"identifier": "e/nothing"}), "false"),
    ];
    for (tool, args, prefix) in rows {
        let r = mcp.call(tool, args.clone());
        assert!(
            !r.is_error,
            "{tool} {args}: guidance is not an error result: {}",
            r.text
        );
        assert!(r.text.starts_with(prefix), "{tool} {args}: {}", r.text);
    }
}

#[test]
fn json_mode_failures_carry_an_error_code() {
    let (_dir, mut mcp) = server();
    write(&mut mcp, "Doc", "e", "x");
    // (tool, arguments, error code)
    #[rustfmt::skip]
    let rows: Vec<(&str, Value, &str)> = vec![
        ("write_note", json!({"title": "Doc", "directory": "e", "content": "x"}), "NOTE_ALREADY_EXISTS"),
        ("write_note", json!({"title": "x", "directory": "../up", "content": "x"}), "SECURITY_VALIDATION_ERROR"),
        ("move_note", json!({"identifier": "e/doc"}), "MISSING_DESTINATION"),
        ("move_note", json!({"identifier": "e/doc", "destination_path": "a.md", "destination_folder": "b"}), "MUTUALLY_EXCLUSIVE_PARAMS"),
        ("move_note", json!({"identifier": "e/doc", "destination_path": "e/Doc.md"}), "DESTINATION_SAME_AS_SOURCE"),
        ("move_note", json!({"identifier": "e/doc", "destination_path": "e/Doc"}), "FILE_EXTENSION_REQUIRED"),
        ("move_note", json!({"identifier": "e/nothing", "destination_path": "a.md"}), "ENTITY_RESOLUTION_FAILED"),
        ("read_note", json!({"identifier": "../../etc/passwd"}), "SECURITY_VALIDATION_ERROR"),
        ("edit_note", json!({"identifier": "e/nothing", "operation": "replace_section", "section": "## A", "content": "x"}), "ENTITY_RESOLUTION_FAILED"),
        ("search_notes", json!({}), "NO_SEARCH_CRITERIA"),
    ];
    for (tool, args, code) in rows {
        let v = jcall(&mut mcp, tool, args.clone());
        assert_eq!(v["error"], code, "{tool} {args}: {v}");
    }
    let conflict = jcall(
        &mut mcp,
        "write_note",
        json!({"title": "Doc", "directory": "e", "content": "x"}),
    );
    assert_eq!(conflict["action"], "conflict");
    assert_eq!(conflict["file_path"], Value::Null);
}

// ---------------------------------------------------------------------------------------------
// 6. path safety

#[test]
fn path_traversal_is_refused_in_every_path_parameter() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    fs::create_dir_all(&root).unwrap();
    let mut mcp = Mcp::start(&root);
    let main = main_dir(&root);
    write(&mut mcp, "Legit Note", "legit", "legit body");
    let home = dirs_home();
    let strays = [
        PathBuf::from("/abs"),
        PathBuf::from("/x.md"),
        home.join("x"),
        home.join("x.md"),
    ];
    let strays_before: Vec<bool> = strays.iter().map(|p| p.exists()).collect();

    let not_allowed = "not allowed";
    // (tool, arguments): every reply must refuse clearly
    #[rustfmt::skip]
    let rows: Vec<(&str, Value)> = vec![
        ("write_note", json!({"title": "x", "directory": "../x", "content": "escaped"})),
        ("write_note", json!({"title": "x", "directory": "~/x", "content": "escaped"})),
        ("write_note", json!({"title": "x", "directory": "/abs", "content": "escaped"})),
        ("write_note", json!({"title": "x", "directory": "a/../../b", "content": "escaped"})),
        ("write_note", json!({"title": "x", "directory": "..", "content": "escaped"})),
        ("read_note", json!({"identifier": "../../etc/passwd"})),
        ("read_note", json!({"identifier": "memory://../../etc/passwd"})),
        ("view_note", json!({"identifier": "../../etc/passwd"})),
        ("edit_note", json!({"identifier": "../outside", "operation": "append", "content": "escaped"})),
        ("edit_note", json!({"identifier": "../../outside", "operation": "prepend", "content": "escaped"})),
        ("edit_note", json!({"identifier": "memory://../outside", "operation": "append", "content": "escaped"})),
        ("move_note", json!({"identifier": "legit/legit-note", "destination_path": "../../x.md"})),
        ("move_note", json!({"identifier": "legit/legit-note", "destination_path": "../x.md"})),
        ("move_note", json!({"identifier": "legit/legit-note", "destination_folder": "../x"})),
        ("move_note", json!({"identifier": "legit", "is_directory": true, "destination_path": "../x"})),
        ("delete_note", json!({"identifier": "../x"})),
        ("delete_note", json!({"identifier": "../", "is_directory": true})),
        ("list_directory", json!({"dir_name": "../"})),
        ("list_directory", json!({"dir_name": "../../"})),
        ("canvas", json!({"nodes": [], "edges": [], "title": "c", "directory": "../x"})),
        ("canvas", json!({"nodes": [], "edges": [], "title": "../../c", "directory": "x"})),
    ];
    for (tool, args) in &rows {
        let r = mcp.call(tool, args.clone());
        assert!(
            r.text.contains(not_allowed),
            "{tool} {args}: expected a clear refusal, got (isError={}) {}",
            r.is_error,
            r.text
        );
        assert!(!r.text.contains("root:x:0:0"), "{tool} leaked /etc/passwd");
    }
    let content = mcp
        .call("read_content", json!({"path": "../../etc/passwd"}))
        .ok()
        .json();
    assert_eq!(content["type"], "error", "{content}");
    assert!(
        content["error"].as_str().unwrap().contains(not_allowed),
        "{content}"
    );
    let nested = mcp.call(
        "create_memory_project",
        json!({"project_name": "inner", "project_path": main.join("inner").to_str().unwrap()}),
    );
    assert!(
        nested.is_error && nested.text.contains("nested"),
        "{}",
        nested.text
    );

    // A title is sanitised into a file name inside the project, never a path out of it.
    let titled = jcall(
        &mut mcp,
        "write_note",
        json!({"title": "../../evil", "directory": "t", "content": "x"}),
    );
    let titled_path = titled["file_path"].as_str().unwrap_or_default().to_string();
    assert!(
        titled_path.starts_with("t/") && !titled_path[2..].contains('/'),
        "{titled}"
    );

    // Nothing escaped: the parent of the root holds only the root, the root only its own
    // entries, projects/ only main, and main only the notes written legitimately.
    assert_eq!(entries(outer.path()), BTreeSet::from(["root".to_string()]));
    for entry in entries(&root) {
        assert!(
            ["config.toml", "index", "projects"].contains(&entry.as_str()),
            "unexpected entry in the root: {entry}"
        );
    }
    assert_eq!(
        entries(&root.join("projects")),
        BTreeSet::from(["main".to_string()])
    );
    assert_eq!(
        files_under(&main),
        BTreeSet::from(["legit/Legit Note.md".to_string(), titled_path])
    );
    assert_eq!(
        fs::read_to_string(main.join("legit/Legit Note.md")).unwrap(),
        "---\ntitle: Legit Note\ntype: note\npermalink: main/legit/legit-note\n---\n\nlegit body"
    );
    let strays_after: Vec<bool> = strays.iter().map(|p| p.exists()).collect();
    assert_eq!(strays_before, strays_after, "{strays:?}");
    // The server still answers and still has the note.
    let read = jcall(
        &mut mcp,
        "read_note",
        json!({"identifier": "legit/legit-note"}),
    );
    assert_eq!(read["file_path"], "legit/Legit Note.md");
}

#[test]
fn a_symlink_out_of_the_project_is_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    let (dir, mut mcp) = server();
    let main = main_dir(dir.path());
    write(&mut mcp, "Legit", "l", "legit");
    std::os::unix::fs::symlink(outside.path(), main.join("link")).unwrap();
    let before = common::snapshot(outside.path());
    #[rustfmt::skip]
    let rows: Vec<(&str, Value)> = vec![
        ("write_note", json!({"title": "Escaped", "directory": "link", "content": "x"})),
        ("edit_note", json!({"identifier": "link/new-one", "operation": "append", "content": "x"})),
        ("canvas", json!({"nodes": [], "edges": [], "title": "c", "directory": "link"})),
        ("move_note", json!({"identifier": "l/legit", "destination_folder": "link"})),
    ];
    for (tool, args) in rows {
        let r = mcp.call(tool, args.clone());
        assert!(
            r.text.contains("not allowed"),
            "{tool} {args}: (isError={}) {}",
            r.is_error,
            r.text
        );
    }
    let content = mcp
        .call("read_content", json!({"path": "link/secret.txt"}))
        .ok()
        .json();
    assert_eq!(content["type"], "error", "{content}");
    assert_eq!(
        common::snapshot(outside.path()),
        before,
        "nothing written through the link"
    );
    assert!(main.join("l/Legit.md").exists());
}

fn dirs_home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/root"))
}

#[test]

fn a_refused_nested_project_leaves_no_directory_behind() {
    let (dir, mut mcp) = server();
    let main = main_dir(dir.path());
    let nested = mcp.call(
        "create_memory_project",
        json!({"project_name": "inner", "project_path": main.join("inner").to_str().unwrap()}),
    );
    assert!(
        nested.is_error && nested.text.contains("nested"),
        "{}",
        nested.text
    );
    assert!(
        !main.join("inner").exists(),
        "the refused project's directory was created: {}",
        main.join("inner").display()
    );
}

// ---------------------------------------------------------------------------------------------
// 7. huge content

#[test]
fn a_ten_megabyte_note_is_written_read_and_searched_without_harm() {
    let (dir, mut mcp) = server();
    let mut content = String::from("hugeneedle starts this note\n\n");
    let line = "filler line of a very large note about nothing in particular 0123456789\n";
    while content.len() < 10 * 1024 * 1024 {
        content.push_str(line);
    }
    let written = mcp.call(
        "write_note",
        json!({"title": "Huge", "directory": "big", "content": content, "output_format": "json"}),
    );
    assert!(!written.is_error, "{}", written.text);
    assert_eq!(written.json()["file_path"], "big/Huge.md");
    assert!(
        fs::metadata(main_dir(dir.path()).join("big/Huge.md"))
            .unwrap()
            .len()
            > 10 * 1024 * 1024
    );

    // The server still answers.
    assert!(mcp
        .text("sync_status", json!({}))
        .starts_with("# Basic Memory Sync Status"));
    let read = jcall(&mut mcp, "read_note", json!({"identifier": "big/huge"}));
    assert_eq!(read["content"].as_str().unwrap().trim_start(), content);
    let found = jcall(&mut mcp, "search_notes", json!({"query": "hugeneedle"}));
    assert_eq!(titles(&found), ["Huge"]);
    write(&mut mcp, "Small", "big", "smallneedle");
    let small = jcall(&mut mcp, "search_notes", json!({"query": "smallneedle"}));
    assert_eq!(titles(&small), ["Small"]);
}

// ---------------------------------------------------------------------------------------------
// 8. invalid UTF-8

#[test]
fn a_file_with_invalid_utf8_is_indexed_and_read_lossily() {
    let dir = tempfile::tempdir().unwrap();
    let main = main_dir(dir.path());
    fs::create_dir_all(&main).unwrap();
    fs::write(main.join("latin1.md"), b"caf\xe9 menu\n").unwrap();
    let mut mcp = Mcp::start(dir.path());
    ready(&mut mcp);
    let found = jcall(&mut mcp, "search_notes", json!({"query": "menu"}));
    assert_eq!(found["results"][0]["file_path"], "latin1.md", "{found}");
    let read = mcp.call("read_note", json!({"identifier": "latin1"}));
    assert!(!read.is_error, "{}", read.text);
    assert!(read.text.contains("caf\u{FFFD} menu"), "{:?}", read.text);
    assert_eq!(
        fs::read(main.join("latin1.md")).unwrap(),
        b"caf\xe9 menu\n",
        "the file is left as it was"
    );
}

// ---------------------------------------------------------------------------------------------
// 9. unknown projects

#[test]
fn an_unknown_project_is_an_error_and_writes_nothing() {
    let (dir, mut mcp) = server();
    write(&mut mcp, "Existing", "n", "existing");
    let projects = dir.path().join("projects");
    let before = common::snapshot(&projects);
    let entries_before = entries(&projects);
    #[rustfmt::skip]
    let rows: Vec<(&str, Value)> = vec![
        ("write_note", json!({"title": "T", "directory": "d", "content": "x", "project": "nope"})),
        ("edit_note", json!({"identifier": "d/t", "operation": "append", "content": "x", "project": "nope"})),
        ("search_notes", json!({"query": "existing", "project": "nope"})),
        ("read_note", json!({"identifier": "n/existing", "project": "nope"})),
        ("build_context", json!({"url": "memory://n/existing", "project": "nope"})),
        ("recent_activity", json!({"project": "nope"})),
        ("list_directory", json!({"project": "nope"})),
        ("canvas", json!({"nodes": [], "edges": [], "title": "c", "directory": "d", "project": "nope"})),
    ];
    for (tool, args) in rows {
        let r = mcp.call(tool, args.clone());
        assert!(r.is_error, "{tool} {args}: {}", r.text);
        assert!(
            r.text.contains("not found") && r.text.contains("nope"),
            "{tool}: {}",
            r.text
        );
    }
    assert_eq!(entries(&projects), entries_before);
    assert_eq!(common::snapshot(&projects), before);
}

// ---------------------------------------------------------------------------------------------
// 10. project management

#[test]
fn projects_are_created_indexed_defaulted_and_deleted() {
    let (_dir, mut mcp) = server();
    let elsewhere = tempfile::tempdir().unwrap();
    let research = elsewhere.path().join("research");
    fs::create_dir_all(&research).unwrap();
    fs::write(research.join("pre.md"), "# Pre\n\nprewritten quokka\n").unwrap();

    let created = mcp.text(
        "create_memory_project",
        json!({"project_name": "research", "project_path": research.to_str().unwrap()}),
    );
    assert!(
        created.starts_with("✓ Project 'research' added successfully"),
        "{created}"
    );
    assert!(created.contains("• Files discovered: 1"), "{created}");
    // Indexed at once: the file written before is searchable in the new project.
    let found = jcall(
        &mut mcp,
        "search_notes",
        json!({"query": "quokka", "project": "research"}),
    );
    assert_eq!(found["results"][0]["file_path"], "pre.md", "{found}");
    assert_eq!(
        total(&jcall(&mut mcp, "search_notes", json!({"query": "quokka"}))),
        0,
        "main is still the default"
    );
    write_with(
        &mut mcp,
        "In Research",
        "r",
        "researchword",
        json!({"project": "research"}),
    );
    assert!(research.join("r/In Research.md").exists());

    let again = mcp.text(
        "create_memory_project",
        json!({"project_name": "research", "project_path": research.to_str().unwrap()}),
    );
    assert!(again.contains("already exists"), "{again}");
    let again_json = jcall(
        &mut mcp,
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
    let made = jcall(
        &mut mcp,
        "create_memory_project",
        json!({"project_name": "second", "project_path": second.to_str().unwrap(), "set_default": true}),
    );
    assert_eq!(made["is_default"], true, "{made}");
    assert_eq!(made["indexing"]["state"], "completed");
    assert!(second.is_dir());
    let listed = jcall(&mut mcp, "list_memory_projects", json!({}));
    let names: Vec<&str> = listed["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["main", "research", "second"], "sorted by permalink");
    assert_eq!(listed["default_project"], "second");
    // The new default receives notes written without a project.
    write(&mut mcp, "Defaulted", "d", "x");
    assert!(second.join("d/Defaulted.md").exists());

    let refused = mcp.call("delete_project", json!({"project_name": "second"}));
    assert!(
        refused.is_error
            && refused
                .text
                .contains("Cannot delete default project 'second'"),
        "{}",
        refused.text
    );
    let removed = mcp.text(
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
    let gone = mcp.call(
        "search_notes",
        json!({"query": "quokka", "project": "research"}),
    );
    assert!(
        gone.is_error && gone.text.contains("not found"),
        "{}",
        gone.text
    );
    let kept = mcp.text("delete_project", json!({"project_name": "main"}));
    assert!(kept.contains("removed successfully"), "{kept}");
    let listed = jcall(&mut mcp, "list_memory_projects", json!({}));
    assert_eq!(listed["projects"].as_array().unwrap().len(), 1, "{listed}");
    assert!(
        _dir.path().join("projects/main").is_dir(),
        "files stay without delete_notes"
    );
}

// ---------------------------------------------------------------------------------------------
// 11. canvas

#[test]
fn canvas_writes_two_space_json_and_reads_back_as_json_text() {
    let (dir, mut mcp) = server();
    let main = main_dir(dir.path());
    let nodes = r#"[{"id": "n1", "type": "text", "text": "Hello", "x": 0, "y": 0, "width": 200, "height": 100}, {"id": "n2", "type": "file", "file": "docs/Doc.md", "x": 300, "y": 0, "width": 200, "height": 100}]"#;
    let edges = r#"[{"id": "e1", "fromNode": "n1", "toNode": "n2"}]"#;
    let created = mcp.text(
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

    let updated = mcp.text(
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

    let content = mcp
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
    let bad = mcp.call(
        "canvas",
        json!({"nodes": "not json", "edges": [], "title": "x", "directory": "d"}),
    );
    assert!(bad.is_error, "{}", bad.text);
}

// ---------------------------------------------------------------------------------------------
// 12. read_content

#[test]
fn read_content_returns_text_images_and_resource_not_found() {
    let (dir, mut mcp) = server();
    let main = main_dir(dir.path());
    write(&mut mcp, "Doc", "docs", "# Doc\nbody");
    let text = mcp
        .call("read_content", json!({"path": "docs/Doc.md"}))
        .ok()
        .json();
    assert_eq!(text["type"], "text", "{text}");
    assert_eq!(
        text["text"],
        fs::read_to_string(main.join("docs/Doc.md")).unwrap()
    );
    assert!(
        text["content_type"]
            .as_str()
            .unwrap()
            .starts_with("text/markdown"),
        "{text}"
    );
    // By permalink too.
    let by_permalink = mcp
        .call("read_content", json!({"path": "main/docs/doc"}))
        .ok()
        .json();
    assert_eq!(by_permalink["text"], text["text"]);

    fs::create_dir_all(main.join("img")).unwrap();
    image::RgbImage::new(50, 40)
        .save(main.join("img/pic.png"))
        .unwrap();
    let img = mcp
        .call("read_content", json!({"path": "img/pic.png"}))
        .ok()
        .json();
    assert_eq!(img["type"], "image", "{img}");
    assert_eq!(img["source"]["type"], "base64");
    assert_eq!(img["source"]["media_type"], "image/jpeg");
    let data = img["source"]["data"].as_str().unwrap();
    assert!(
        data.starts_with("/9j/"),
        "base64 of a JPEG starts with /9j/: {}",
        &data[..20.min(data.len())]
    );

    let missing = mcp.call("read_content", json!({"path": "nothing/here.md"}));
    assert!(missing.is_error, "{}", missing.text);
    assert!(
        missing.text.contains("Resource not found"),
        "{}",
        missing.text
    );
}

// ---------------------------------------------------------------------------------------------
// 13. search_notes features

#[test]
fn search_notes_supports_filters_boolean_queries_and_pagination() {
    let (_dir, mut mcp) = server();
    write_with(
        &mut mcp,
        "Fruit One",
        "fruit",
        "apple banana",
        json!({"tags": ["sweet", "yellow"], "metadata": {"status": "active", "priority": 3}}),
    );
    write_with(
        &mut mcp,
        "Fruit Two",
        "fruit",
        "apple cherry",
        json!({"tags": ["sweet"], "metadata": {"status": "draft", "priority": 1}}),
    );
    write_with(
        &mut mcp,
        "Fruit Three",
        "fruit",
        "banana cherry",
        json!({"tags": ["sour"], "metadata": {"status": "archived", "priority": 5}}),
    );
    write_with(
        &mut mcp,
        "Alice",
        "people",
        "Alice grows kiwi\n\n- [hobby] Gardening on weekends\n- [role] Farmer",
        json!({"note_type": "person"}),
    );

    let search = |mcp: &mut Mcp, args: Value| jcall(mcp, "search_notes", args);
    // (arguments, titles found, in any order)
    #[rustfmt::skip]
    let rows: Vec<(Value, &[&str])> = vec![
        (json!({"query": "tag:yellow"}), &["Fruit One"]),
        (json!({"query": "tag:sweet"}), &["Fruit One", "Fruit Two"]),
        (json!({"query": "tag:sweet apple"}), &["Fruit One", "Fruit Two"]),
        (json!({"query": "tag:sweet AND tag:yellow"}), &["Fruit One"]),
        (json!({"tags": ["sweet", "yellow"]}), &["Fruit One"]),
        (json!({"query": "apple AND banana"}), &["Fruit One"]),
        (json!({"query": "apple OR banana"}), &["Fruit One", "Fruit Two", "Fruit Three"]),
        (json!({"query": "apple NOT banana"}), &["Fruit Two"]),
        (json!({"query": "Fruit", "search_type": "title"}), &["Fruit One", "Fruit Two", "Fruit Three"]),
        (json!({"query": "cherry", "search_type": "title"}), &[]),
        (json!({"query": "main/fruit/*", "search_type": "permalink"}), &["Fruit One", "Fruit Two", "Fruit Three"]),
        (json!({"query": "main/fruit/fruit-t*", "search_type": "permalink"}), &["Fruit Two", "Fruit Three"]),
        (json!({"query": "main/fruit/fruit-one", "search_type": "permalink"}), &["Fruit One"]),
        (json!({"note_types": ["Person"]}), &["Alice"]),
        (json!({"note_types": ["note"], "query": "apple"}), &["Fruit One", "Fruit Two"]),
        (json!({"after_date": "2000-01-01", "query": "cherry"}), &["Fruit Two", "Fruit Three"]),
        (json!({"after_date": "tomorrow", "query": "cherry"}), &[]),
        (json!({"metadata_filters": {"priority": {"$gt": 2}}}), &["Fruit One", "Fruit Three"]),
        (json!({"metadata_filters": {"status": {"$in": ["active", "draft"]}}}), &["Fruit One", "Fruit Two"]),
        (json!({"metadata_filters": {"priority": {"$between": [1, 3]}}}), &["Fruit One", "Fruit Two"]),
        (json!({"metadata_filters": {"status": "archived"}}), &["Fruit Three"]),
        (json!({"status": "draft"}), &["Fruit Two"]),
        (json!({"status": "draft", "query": "banana"}), &[]),
    ];
    for (args, expected) in rows {
        let found = search(&mut mcp, args.clone());
        let want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        assert_eq!(sorted(titles(&found)), sorted(want), "{args}: {found}");
    }

    // Categories select observations.
    let hobbies = search(&mut mcp, json!({"categories": ["hobby"]}));
    assert_eq!(hobbies["results"].as_array().unwrap().len(), 1, "{hobbies}");
    assert_eq!(hobbies["results"][0]["type"], "observation");
    assert_eq!(hobbies["results"][0]["category"], "hobby");
    assert_eq!(hobbies["results"][0]["content"], "Gardening on weekends");

    // Semantic search types answer with a text search and say so.
    for kind in ["vector", "hybrid", "semantic"] {
        let r = mcp.call(
            "search_notes",
            json!({"query": "kiwi", "search_type": kind}),
        );
        assert!(!r.is_error, "{kind}: {}", r.text);
        assert!(
            r.text.contains("# Search Results: kiwi"),
            "{kind}: {}",
            r.text
        );
        assert!(r.text.contains("text search"), "{kind}: {}", r.text);
        let j = search(&mut mcp, json!({"query": "kiwi", "search_type": kind}));
        assert_eq!(titles(&j), ["Alice"], "{kind}");
    }

    // Pagination.
    let page1 = search(&mut mcp, json!({"query": "fruit", "page_size": 2}));
    assert_eq!(page1["results"].as_array().unwrap().len(), 2);
    assert_eq!(
        (page1["total"].clone(), page1["has_more"].clone()),
        (json!(3), json!(true)),
        "{page1}"
    );
    let page2 = search(
        &mut mcp,
        json!({"query": "fruit", "page_size": 2, "page": 2}),
    );
    assert_eq!(page2["results"].as_array().unwrap().len(), 1);
    assert_eq!(page2["has_more"], false);
    let mut all = titles(&page1);
    all.extend(titles(&page2));
    assert_eq!(sorted(all), ["Fruit One", "Fruit Three", "Fruit Two"]);
    let text = mcp.text("search_notes", json!({"query": "fruit", "page_size": 2}));
    assert!(
        text.ends_with("*2 results | page 1, page_size 2 | more available*"),
        "{text}"
    );

    // search_all_projects spans projects.
    let elsewhere = tempfile::tempdir().unwrap();
    mcp.text(
        "create_memory_project",
        json!({"project_name": "orchard", "project_path": elsewhere.path().to_str().unwrap()}),
    );
    write_with(
        &mut mcp,
        "Orchard Apple",
        "o",
        "apple trees",
        json!({"project": "orchard"}),
    );
    let here = search(&mut mcp, json!({"query": "apple"}));
    assert_eq!(total(&here), 2, "{here}");
    let everywhere = search(
        &mut mcp,
        json!({"query": "apple", "search_all_projects": true}),
    );
    assert_eq!(total(&everywhere), 3, "{everywhere}");
    let projects: BTreeSet<&str> = everywhere["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["project"].as_str().unwrap())
        .collect();
    assert_eq!(projects, BTreeSet::from(["main", "orchard"]));
    let all_text = mcp.text(
        "search_notes",
        json!({"query": "apple", "search_all_projects": true}),
    );
    assert!(all_text.contains("*project: all projects*"), "{all_text}");
    let only_orchard = search(&mut mcp, json!({"query": "apple", "project": "orchard"}));
    assert_eq!(titles(&only_orchard), ["Orchard Apple"]);
}

// ---------------------------------------------------------------------------------------------
// 14. recent_activity and build_context

#[test]
fn recent_activity_filters_by_type_and_timeframe() {
    let (_dir, mut mcp) = server();
    write(&mut mcp, "Target", "a", "target body");
    write(
        &mut mcp,
        "Source",
        "a",
        "- [fact] The sky is blue\n- depends_on [[Target]]",
    );

    let entities = jcall(&mut mcp, "recent_activity", json!({}));
    let rows = entities.as_array().unwrap();
    assert_eq!(rows.len(), 2, "{entities}");
    for row in rows {
        assert_eq!(row["type"], "entity", "default is entities only: {row}");
        for key in ["title", "permalink", "file_path", "created_at"] {
            assert!(row[key].is_string(), "{key}: {row}");
        }
    }
    let observations = jcall(&mut mcp, "recent_activity", json!({"type": "observation"}));
    assert_eq!(observations[0]["type"], "observation", "{observations}");
    assert_eq!(observations[0]["title"], "Source");
    let relations = jcall(&mut mcp, "recent_activity", json!({"type": ["relation"]}));
    assert!(
        relations
            .as_array()
            .unwrap()
            .iter()
            .all(|r| r["type"] == "relation")
            && !relations.as_array().unwrap().is_empty(),
        "{relations}"
    );
    let mixed = jcall(
        &mut mcp,
        "recent_activity",
        json!({"type": "observation, relation", "page_size": 50}),
    );
    let kinds: BTreeSet<&str> = mixed
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["type"].as_str().unwrap())
        .collect();
    assert_eq!(kinds, BTreeSet::from(["observation", "relation"]));
    let obs_text = mcp.text("recent_activity", json!({"type": "observation"}));
    assert!(obs_text.contains("Recent Observations"), "{obs_text}");
    let rel_text = mcp.text("recent_activity", json!({"type": "relation"}));
    assert!(rel_text.contains("Recent Connections"), "{rel_text}");

    let invalid = mcp.call("recent_activity", json!({"type": "widget"}));
    assert!(
        invalid.is_error && invalid.text.contains("Invalid type"),
        "{}",
        invalid.text
    );

    // (timeframe, label in the header, or the error)
    #[rustfmt::skip]
    let timeframes: Vec<(&str, Result<&str, &str>)> = vec![
        ("24h", Ok("1d")),
        ("1 week", Ok("7d")),
        ("1 week ago", Ok("7d")),
        ("yesterday", Ok("1d")),
        ("today", Ok("1d")),
        ("30d", Ok("30d")),
        ("2024-01-01", Err("Timeframe should be <= 1 year")),
        ("366d", Err("Timeframe should be <= 1 year")),
        ("next blue moon", Err("Could not parse timeframe")),
    ];
    for (timeframe, expected) in timeframes {
        let r = mcp.call("recent_activity", json!({"timeframe": timeframe}));
        match expected {
            Ok(label) => {
                assert!(!r.is_error, "{timeframe}: {}", r.text);
                assert!(
                    r.text
                        .starts_with(&format!("## Recent Activity: main ({label})")),
                    "{timeframe}: {}",
                    r.text
                );
                assert!(r.text.contains("• Source (a)"), "{timeframe}: {}", r.text);
            }
            Err(message) => {
                assert!(r.is_error, "{timeframe}: {}", r.text);
                assert!(r.text.contains(message), "{timeframe}: {}", r.text);
            }
        }
    }
}

#[test]
fn build_context_follows_links_caps_related_and_pages_wildcards() {
    let (_dir, mut mcp) = server();
    write(&mut mcp, "Start", "chain", "- leads_to [[Middle]]");
    write(&mut mcp, "Middle", "chain", "- leads_to [[End]]");
    write(&mut mcp, "End", "chain", "the end");
    let related_titles = |ctx: &Value| -> BTreeSet<String> {
        ctx["results"][0]["related_results"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|r| r["type"] == "entity")
            .map(|r| r["title"].as_str().unwrap().to_string())
            .collect()
    };
    let depth1 = mcp
        .call("build_context", json!({"url": "memory://chain/start"}))
        .ok()
        .json();
    assert_eq!(
        related_titles(&depth1),
        BTreeSet::from(["Middle".to_string()])
    );
    let depth2 = mcp
        .call(
            "build_context",
            json!({"url": "memory://chain/start", "depth": 2}),
        )
        .ok()
        .json();
    assert_eq!(
        related_titles(&depth2),
        BTreeSet::from(["Middle".to_string(), "End".to_string()]),
        "End is two links away"
    );
    assert_eq!(depth2["metadata"]["depth"], 2);
    let text = mcp.text(
        "build_context",
        json!({"url": "memory://chain/start", "depth": 2, "output_format": "text"}),
    );
    assert!(text.starts_with("# Context: Start"), "{text}");
    assert!(text.ends_with("| depth=2 | project: main*"), "{text}");

    // max_related caps the related items of each primary note.
    let hub_body: String = (1..=6)
        .map(|i| format!("- links [[Spoke {i}]]\n"))
        .collect();
    write(&mut mcp, "Hub", "hub", &hub_body);
    for i in 1..=6 {
        write(&mut mcp, &format!("Spoke {i}"), "hub", "spoke");
    }
    let capped = mcp
        .call(
            "build_context",
            json!({"url": "memory://hub/hub", "max_related": 3}),
        )
        .ok()
        .json();
    let n = capped["results"][0]["related_results"]
        .as_array()
        .unwrap()
        .len();
    assert!((1..=3).contains(&n), "max_related=3 gave {n}: {capped}");
    let uncapped = mcp
        .call(
            "build_context",
            json!({"url": "memory://hub/hub", "max_related": 50}),
        )
        .ok()
        .json();
    assert!(
        uncapped["results"][0]["related_results"]
            .as_array()
            .unwrap()
            .len()
            > 3
    );

    // A folder wildcard pages its primary notes.
    let page1 = mcp
        .call(
            "build_context",
            json!({"url": "memory://chain/*", "page_size": 2}),
        )
        .ok()
        .json();
    assert_eq!(page1["results"].as_array().unwrap().len(), 2, "{page1}");
    assert_eq!(
        (
            page1["page"].clone(),
            page1["page_size"].clone(),
            page1["has_more"].clone()
        ),
        (json!(1), json!(2), json!(true))
    );
    let page2 = mcp
        .call(
            "build_context",
            json!({"url": "memory://chain/*", "page_size": 2, "page": 2}),
        )
        .ok()
        .json();
    assert_eq!(page2["results"].as_array().unwrap().len(), 1, "{page2}");
    assert_eq!(page2["has_more"], false);
    let primaries: BTreeSet<String> = page1["results"]
        .as_array()
        .unwrap()
        .iter()
        .chain(page2["results"].as_array().unwrap())
        .map(|r| r["primary_result"]["title"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(
        primaries,
        BTreeSet::from(["Start".into(), "Middle".into(), "End".into()])
    );

    let missing = mcp.call(
        "build_context",
        json!({"url": "memory://chain/nothing", "output_format": "text"}),
    );
    assert!(
        !missing.is_error && missing.text.starts_with("No results found for"),
        "{}",
        missing.text
    );
}

// ---------------------------------------------------------------------------------------------
// 15. list_directory

#[test]
fn list_directory_honours_depth_glob_sort_and_paging() {
    let (_dir, mut mcp) = server();
    write(&mut mcp, "Apple", "/", "a");
    std::thread::sleep(Duration::from_millis(20));
    write(&mut mcp, "Banana", "/", "b");
    write(&mut mcp, "Cherry", "fruit", "c");
    write(&mut mcp, "Deep", "fruit/deep", "d");
    mcp.text(
        "canvas",
        json!({"nodes": [], "edges": [], "title": "board", "directory": "/"}),
    );

    let names = |v: &Value| -> Vec<String> {
        v["nodes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|n| n["name"].as_str().unwrap().to_string())
            .collect()
    };
    // (arguments, names listed in order)
    #[rustfmt::skip]
    let rows: Vec<(Value, &[&str])> = vec![
        (json!({}), &["fruit", "Apple.md", "Banana.md", "board.canvas"]),
        (json!({"depth": 2}), &["fruit", "deep", "Apple.md", "Banana.md", "board.canvas", "Cherry.md"]),
        (json!({"dir_name": "fruit", "depth": 2}), &["deep", "Cherry.md", "Deep.md"]),
        (json!({"file_name_glob": "*.md"}), &["Apple.md", "Banana.md"]),
        (json!({"file_name_glob": "*.md", "depth": 3}), &["Apple.md", "Banana.md", "Cherry.md", "Deep.md"]),
        (json!({"file_name_glob": "*.md", "sort": "title_desc"}), &["Banana.md", "Apple.md"]),
        (json!({"file_name_glob": "*.md", "sort": "title_asc"}), &["Apple.md", "Banana.md"]),
        (json!({"file_name_glob": "*.md", "sort": "updated_desc"}), &["Banana.md", "Apple.md"]),
        (json!({"file_name_glob": "*.md", "sort": "updated_asc"}), &["Apple.md", "Banana.md"]),
    ];
    for (args, expected) in rows {
        let v = jcall(&mut mcp, "list_directory", args.clone());
        let mut got = names(&v);
        let mut want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        if args.get("sort").is_none() && args.get("depth").is_some() {
            // Order across levels is not specified beyond directories first.
            got.sort();
            want.sort();
        }
        assert_eq!(got, want, "{args}: {v}");
    }

    let page1 = jcall(
        &mut mcp,
        "list_directory",
        json!({"depth": 3, "page_size": 3}),
    );
    assert_eq!(names(&page1).len(), 3);
    assert_eq!(
        (page1["total"].clone(), page1["has_more"].clone()),
        (json!(7), json!(true)),
        "{page1}"
    );
    let page3 = jcall(
        &mut mcp,
        "list_directory",
        json!({"depth": 3, "page_size": 3, "page": 3}),
    );
    assert_eq!(names(&page3), ["Deep.md"], "{page3}");
    assert_eq!(page3["has_more"], false);
    let text = mcp.text(
        "list_directory",
        json!({"depth": 3, "page_size": 3, "file_name_glob": "*.md"}),
    );
    assert!(
        text.starts_with("Files in '/' matching '*.md' (depth 3):"),
        "{text}"
    );
    assert!(
        text.ends_with("\n\nMore results available. Call list_directory(dir_name='/', depth=3, page=2, page_size=3, file_name_glob='*.md') to continue."),
        "{text}"
    );
    let last = mcp.text(
        "list_directory",
        json!({"depth": 3, "page_size": 3, "page": 2, "file_name_glob": "*.md"}),
    );
    assert!(!last.contains("More results available"), "{last}");
    let empty = mcp.text("list_directory", json!({"dir_name": "nothing"}));
    assert!(empty.starts_with("No files found in directory"), "{empty}");
}

// ---------------------------------------------------------------------------------------------
// 16. prompts and resources

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

// ---------------------------------------------------------------------------------------------
// 17. ChatGPT shims

#[test]
fn chatgpt_search_and_fetch_use_the_connector_format() {
    let (_dir, mut mcp) = server();
    write(
        &mut mcp,
        "Connector Note",
        "c",
        "# Connector Note\n\nchatgptword body",
    );
    let search = mcp.call("search", json!({"query": "chatgptword"}));
    assert!(
        search.text.starts_with("[{\"type\":\"text\",\"text\":"),
        "{}",
        search.text
    );
    let inner = chatgpt_inner(&search);
    assert_eq!(inner["total_count"], 1, "{inner}");
    assert_eq!(inner["query"], "chatgptword");
    let hit = &inner["results"][0];
    assert_eq!(hit["title"], "Connector Note");
    assert_eq!(hit["id"], "main/c/connector-note");
    assert_eq!(hit["url"], "main/c/connector-note");

    let fetched = chatgpt_inner(&mcp.call("fetch", json!({"id": hit["id"]})));
    assert_eq!(fetched["id"], "main/c/connector-note");
    assert_eq!(fetched["url"], "main/c/connector-note");
    assert_eq!(fetched["metadata"]["format"], "markdown", "{fetched}");
    assert!(
        fetched["text"]
            .as_str()
            .unwrap()
            .contains("chatgptword body"),
        "{fetched}"
    );
    // The file starts with front matter, so the title comes from the id.
    assert_eq!(fetched["title"], "Connector Note");

    let missing = chatgpt_inner(&mcp.call("fetch", json!({"id": "main/c/nothing-here"})));
    assert_eq!(
        missing["metadata"]["error"], "Document not found",
        "{missing}"
    );
    let none = chatgpt_inner(&mcp.call("search", json!({"query": "nothingmatchesthis"})));
    assert_eq!(none["total_count"], 0);
    assert_eq!(none["results"], json!([]));
}

// ---------------------------------------------------------------------------------------------
// 18. sync_status and diagnostics

#[test]
fn sync_status_and_diagnostics_report_readiness_and_version() {
    let dir = tempfile::tempdir().unwrap();
    let main = main_dir(dir.path());
    fs::create_dir_all(&main).unwrap();
    for i in 0..50 {
        fs::write(main.join(format!("n{i}.md")), format!("note {i}")).unwrap();
    }
    let mut mcp = Mcp::start(dir.path());
    ready(&mut mcp);
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

// ---------------------------------------------------------------------------------------------
// 19. stdout carries only JSON-RPC

#[test]
fn every_tool_answers_over_a_stdout_that_carries_only_json_rpc() {
    // The test client panics on any stdout line that is not JSON; a final request after every
    // tool ran proves every earlier line was JSON-RPC.
    let (dir, mut mcp) = server();
    let elsewhere = tempfile::tempdir().unwrap();
    ready(&mut mcp);
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

fn boolean_query_pages_are_consistent() {
    let (_dir, mut mcp) = server();
    write(&mut mcp, "Fruit One", "fruit", "apple banana");
    write(&mut mcp, "Fruit Two", "fruit", "apple cherry");
    write(&mut mcp, "Fruit Three", "fruit", "banana cherry");
    let all = jcall(
        &mut mcp,
        "search_notes",
        json!({"query": "apple OR banana"}),
    );
    assert_eq!(
        sorted(titles(&all)),
        ["Fruit One", "Fruit Three", "Fruit Two"]
    );
    for page_size in [1, 2] {
        let mut paged = Vec::new();
        for page in 1..=3 {
            let v = jcall(
                &mut mcp,
                "search_notes",
                json!({"query": "apple OR banana", "page": page, "page_size": page_size}),
            );
            paged.extend(titles(&v));
        }
        assert_eq!(
            sorted(paged),
            ["Fruit One", "Fruit Three", "Fruit Two"],
            "page_size {page_size}: every note once"
        );
    }
    // A note's score does not depend on the page size asked for.
    let one = jcall(
        &mut mcp,
        "search_notes",
        json!({"query": "apple OR banana", "page_size": 1}),
    );
    assert_eq!(one["results"][0]["title"], all["results"][0]["title"]);
    assert_eq!(one["results"][0]["score"], all["results"][0]["score"]);
}

#[test]

fn a_wrongly_typed_argument_is_named_in_the_error() {
    let (_dir, mut mcp) = server();
    // (tool, arguments, the parameter the error must name)
    #[rustfmt::skip]
    let rows: Vec<(&str, Value, &str)> = vec![
        ("write_note", json!({"title": {"x": 1}, "directory": "d", "content": "x"}), "title"),
        ("write_note", json!({"title": "x", "directory": "d", "content": ["a"]}), "content"),
        ("search_notes", json!({"query": "x", "page": "one"}), "page"),
    ];
    for (tool, args, field) in rows {
        let r = mcp.call(tool, args.clone());
        assert!(r.is_error, "{tool} {args}: {}", r.text);
        let named = r.text.contains(&format!("`{field}`"))
            || r.text.contains(&format!("'{field}'"))
            || r.text.contains(&format!("\n{field}\n"))
            || r.text.contains(&format!("{field}:"));
        assert!(
            named,
            "{tool} {args}: the error does not name '{field}': {}",
            r.text
        );
    }
}
