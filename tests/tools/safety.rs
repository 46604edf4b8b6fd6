//! What no call may do: write or read outside its project (path traversal, symlinks), name an
//! unknown project into existence, or choke on odd files (ten megabytes, invalid UTF-8).

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::common;
use crate::{titles, Harness, ReplyExt};

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

fn dirs_home() -> PathBuf {
    std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/root"))
}

#[test]
fn path_traversal_is_refused_in_every_path_parameter() {
    let outer = tempfile::tempdir().unwrap();
    let root = outer.path().join("root");
    fs::create_dir_all(&root).unwrap();
    let h = Harness::open(&root);
    let main = h.main_dir();
    h.write("Legit Note", "legit", "legit body");
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
        let r = h.call(tool, args.clone());
        assert!(
            r.text().contains(not_allowed),
            "{tool} {args}: expected a clear refusal, got (isError={}) {}",
            r.is_error(),
            r.text()
        );
        assert!(
            !r.text().contains("root:x:0:0"),
            "{tool} leaked /etc/passwd"
        );
    }
    let content = h
        .call("read_content", json!({"path": "../../etc/passwd"}))
        .ok()
        .json();
    assert_eq!(content["type"], "error", "{content}");
    assert!(
        content["error"].as_str().unwrap().contains(not_allowed),
        "{content}"
    );
    let nested = h.call(
        "create_memory_project",
        json!({"project_name": "inner", "project_path": main.join("inner").to_str().unwrap()}),
    );
    assert!(
        nested.is_error() && nested.text().contains("nested"),
        "{}",
        nested.text()
    );

    // A title is sanitised into a file name inside the project, never a path out of it.
    let titled = h.json(
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
    // The tools still answer and still have the note.
    let read = h.json("read_note", json!({"identifier": "legit/legit-note"}));
    assert_eq!(read["file_path"], "legit/Legit Note.md");
}

#[test]
fn a_symlink_out_of_the_project_is_not_followed() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    let h = Harness::new();
    let main = h.main_dir();
    h.write("Legit", "l", "legit");
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
        let r = h.call(tool, args.clone());
        assert!(
            r.text().contains("not allowed"),
            "{tool} {args}: (isError={}) {}",
            r.is_error(),
            r.text()
        );
    }
    let content = h
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

#[test]
fn a_refused_nested_project_leaves_no_directory_behind() {
    let h = Harness::new();
    let main = h.main_dir();
    let nested = h.call(
        "create_memory_project",
        json!({"project_name": "inner", "project_path": main.join("inner").to_str().unwrap()}),
    );
    assert!(
        nested.is_error() && nested.text().contains("nested"),
        "{}",
        nested.text()
    );
    assert!(
        !main.join("inner").exists(),
        "the refused project's directory was created: {}",
        main.join("inner").display()
    );
}

#[test]
fn a_ten_megabyte_note_is_written_read_and_searched_without_harm() {
    let h = Harness::new();
    let mut content = String::from("hugeneedle starts this note\n\n");
    let line = "filler line of a very large note about nothing in particular 0123456789\n";
    while content.len() < 10 * 1024 * 1024 {
        content.push_str(line);
    }
    let written = h.call(
        "write_note",
        json!({"title": "Huge", "directory": "big", "content": content, "output_format": "json"}),
    );
    assert!(!written.is_error(), "{}", written.text());
    assert_eq!(written.json()["file_path"], "big/Huge.md");
    assert!(
        fs::metadata(h.main_dir().join("big/Huge.md"))
            .unwrap()
            .len()
            > 10 * 1024 * 1024
    );

    // The tools still answer.
    assert!(h
        .text("sync_status", json!({}))
        .starts_with("# Basic Memory Sync Status"));
    let read = h.json("read_note", json!({"identifier": "big/huge"}));
    assert_eq!(read["content"].as_str().unwrap().trim_start(), content);
    let found = h.json("search_notes", json!({"query": "hugeneedle"}));
    assert_eq!(titles(&found), ["Huge"]);
    h.write("Small", "big", "smallneedle");
    let small = h.json("search_notes", json!({"query": "smallneedle"}));
    assert_eq!(titles(&small), ["Small"]);
}

#[test]
fn a_file_with_invalid_utf8_is_indexed_and_read_lossily() {
    let h = Harness::new();
    let main = h.main_dir();
    fs::write(main.join("latin1.md"), b"caf\xe9 menu\n").unwrap();
    h.sync();
    let found = h.json("search_notes", json!({"query": "menu"}));
    assert_eq!(found["results"][0]["file_path"], "latin1.md", "{found}");
    let read = h.call("read_note", json!({"identifier": "latin1"}));
    assert!(!read.is_error(), "{}", read.text());
    assert!(
        read.text().contains("caf\u{FFFD} menu"),
        "{:?}",
        read.text()
    );
    assert_eq!(
        fs::read(main.join("latin1.md")).unwrap(),
        b"caf\xe9 menu\n",
        "the file is left as it was"
    );
}

#[test]
fn an_unknown_project_is_an_error_and_writes_nothing() {
    let h = Harness::new();
    h.write("Existing", "n", "existing");
    let projects = h.root().join("projects");
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
        let r = h.call(tool, args.clone());
        assert!(r.is_error(), "{tool} {args}: {}", r.text());
        assert!(
            r.text().contains("not found") && r.text().contains("nope"),
            "{tool}: {}",
            r.text()
        );
    }
    assert_eq!(entries(&projects), entries_before);
    assert_eq!(common::snapshot(&projects), before);
}
