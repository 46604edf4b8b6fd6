//! Sync between devices: two data roots share one project through a bare remote on the file
//! system (`file://`), as two machines share one through GitHub.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::git::{log, set_option};
use common::mcp::Mcp;
use common::{assert_mentions, eventually, gitmem, Run, SLOW};
use git2::Repository;
use serde_json::{json, Value};

/// A bare repository acting as the shared remote; its `file://` URL.
fn bare_remote(dir: &Path) -> String {
    let path = dir.join("remote.git");
    Repository::init_bare(&path).unwrap();
    format!("file://{}", path.display())
}

/// One device: a data root whose default project `notes` is a clone of the remote.
struct Device {
    root: tempfile::TempDir,
    dir: PathBuf,
}

impl Device {
    fn join(url: &str, name: &str) -> Device {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("notes");
        gitmem(
            root.path(),
            &[
                "project",
                "add",
                "notes",
                dir.to_str().unwrap(),
                "--default",
                "--git",
                "--remote",
                url,
            ],
        )
        .ok();
        set_option(root.path(), "notes", &format!("device = \"{name}\""));
        Device { root, dir }
    }

    fn run(&self, args: &[&str]) -> Run {
        gitmem(self.root.path(), args)
    }

    fn tool(&self, name: &str, args: Value) -> String {
        self.run(&["tool", name, "--args", &args.to_string()])
            .ok()
            .stdout
    }

    fn write(&self, title: &str, content: &str) {
        self.tool(
            "write_note",
            json!({"title": title, "directory": "shared", "content": content, "overwrite": true}),
        );
    }

    /// `gitmem sync DIRECTION --json`: the report.
    fn sync(&self, direction: &str) -> Value {
        self.run(&["sync", direction, "--json"]).ok().json()
    }

    fn file(&self, relative: &str) -> String {
        std::fs::read_to_string(self.dir.join(relative)).unwrap()
    }
}

/// A default project `notes` that already holds `file` when `git init --remote url` versions
/// it (so the remote is set, not cloned); its directory.
fn versioned_with(root: &Path, file: &str, text: &str, url: &str) -> PathBuf {
    let dir = root.join("notes");
    gitmem(
        root,
        &[
            "project",
            "add",
            "notes",
            dir.to_str().unwrap(),
            "--default",
        ],
    )
    .ok();
    std::fs::write(dir.join(file), text).unwrap();
    gitmem(
        root,
        &["git", "init", "--project", "notes", "--remote", url],
    )
    .ok();
    dir
}

/// Two devices sharing a project that holds one note, `shared/Alpha.md`.
fn two_devices() -> (tempfile::TempDir, Device, Device) {
    let remote = tempfile::tempdir().unwrap();
    let url = bare_remote(remote.path());
    let laptop = Device::join(&url, "laptop");
    laptop.write(
        "Alpha",
        "line one\nline two\nline three\nline four\nline five",
    );
    let pushed = laptop.sync("push");
    assert_eq!(pushed["pushed"], true, "{pushed}");
    let desktop = Device::join(&url, "desktop");
    assert!(desktop.dir.join("shared/Alpha.md").is_file());
    (remote, laptop, desktop)
}

#[test]
fn different_notes_edited_on_two_devices_merge_cleanly_and_are_searchable() {
    let (_remote, laptop, desktop) = two_devices();
    laptop.write("From laptop", "written on the laptop about kayaks");
    laptop.sync("push");
    desktop.write("From desktop", "written on the desktop about gliders");

    let report = desktop.sync("both");
    let pull = &report["pull"];
    assert_eq!(pull["result"], "merge", "{report}");
    assert_eq!(
        pull["updated"],
        json!(["shared/From laptop.md"]),
        "{report}"
    );
    assert_eq!(report["pushed"], true);

    let report = laptop.sync("pull");
    assert_eq!(report["pull"]["result"], "fast-forward", "{report}");
    for device in [&laptop, &desktop] {
        assert_mentions(&device.file("shared/From laptop.md"), "kayaks");
        assert_mentions(&device.file("shared/From desktop.md"), "gliders");
    }
    // The pulled note is in the laptop's index without a rescan of the project.
    let found = laptop.tool("search_notes", json!({"query": "gliders"}));
    assert_mentions(&found, "From desktop");
    let status = Repository::open(&laptop.dir)
        .unwrap()
        .statuses(None)
        .unwrap()
        .len();
    assert_eq!(status, 0, "a pull leaves the work tree clean");
}

#[test]
fn the_same_lines_edited_on_both_devices_keep_both_texts() {
    let (_remote, laptop, desktop) = two_devices();
    laptop.write("Alpha", "line one\nthe laptop's line two\nline three");
    laptop.sync("push");
    desktop.write("Alpha", "line one\nthe desktop's line two\nline three");

    let report = desktop.sync("pull");
    let conflicts = report["pull"]["conflicts"].as_array().unwrap().clone();
    assert_eq!(conflicts.len(), 1, "{report}");
    assert_eq!(conflicts[0]["path"], "shared/Alpha.md");
    let copy = conflicts[0]["copy"].as_str().unwrap().to_string();
    assert!(
        copy.starts_with("shared/Alpha.conflict-desktop-") && copy.ends_with(".md"),
        "{copy}"
    );

    let local = desktop.file("shared/Alpha.md");
    assert_mentions(&local, "the desktop's line two");
    assert_mentions(&local, "conflict");
    let theirs = desktop.file(&copy);
    assert_mentions(&theirs, "the laptop's line two");
    for text in [&local, &theirs] {
        assert!(
            !text.contains("<<<<<<<") && !text.contains(">>>>>>>"),
            "{text}"
        );
    }

    let status = desktop.tool("sync_status", json!({}));
    assert_mentions(&status, &copy);
    // The note keeps its permalink; the copy has its own.
    let read = desktop.tool("read_note", json!({"identifier": "notes/shared/alpha"}));
    assert_mentions(&read, "the desktop's line two");

    desktop.sync("push");
    laptop.sync("pull");
    assert!(laptop.dir.join(&copy).is_file(), "the conflict travels");
}

#[test]
fn a_delete_against_an_edit_keeps_the_edit_both_ways() {
    let (_remote, laptop, desktop) = two_devices();
    laptop.tool("delete_note", json!({"identifier": "shared/alpha"}));
    laptop.sync("push");
    desktop.write("Alpha", "line one\nedited on the desktop\n");
    let report = desktop.sync("both");
    assert_eq!(
        report["pull"]["kept"],
        json!(["shared/Alpha.md"]),
        "{report}"
    );
    assert_mentions(&desktop.file("shared/Alpha.md"), "edited on the desktop");

    laptop.sync("pull");
    assert_mentions(&laptop.file("shared/Alpha.md"), "edited on the desktop");
    let read = laptop.tool("read_note", json!({"identifier": "shared/alpha"}));
    assert_mentions(&read, "edited on the desktop");

    // And the other way round: deleted here, edited there.
    laptop.write("Alpha", "edited again on the laptop");
    laptop.sync("push");
    desktop.tool("delete_note", json!({"identifier": "shared/alpha"}));
    let report = desktop.sync("pull");
    assert_eq!(
        report["pull"]["updated"],
        json!(["shared/Alpha.md"]),
        "{report}"
    );
    assert_mentions(
        &desktop.file("shared/Alpha.md"),
        "edited again on the laptop",
    );
}

#[test]
fn a_rename_on_one_device_moves_the_note_on_the_other() {
    let (_remote, laptop, desktop) = two_devices();
    laptop.tool(
        "move_note",
        json!({"identifier": "shared/alpha", "destination_path": "archive/Alpha.md"}),
    );
    laptop.sync("push");
    let report = desktop.sync("pull");
    assert_eq!(
        report["pull"]["deleted"],
        json!(["shared/Alpha.md"]),
        "{report}"
    );
    assert!(!desktop.dir.join("shared/Alpha.md").exists());
    assert_mentions(&desktop.file("archive/Alpha.md"), "line one");
    let read = desktop.tool("read_note", json!({"identifier": "archive/Alpha.md"}));
    assert_mentions(&read, "line three");
}

#[test]
fn pushing_to_a_remote_that_moved_on_merges_then_pushes() {
    let (_remote, laptop, desktop) = two_devices();
    laptop.write("Laptop only", "one");
    laptop.sync("push");
    desktop.write("Desktop only", "two");
    let report = desktop.sync("push");
    assert_eq!(report["pushed"], true, "{report}");
    assert_eq!(report["pull"]["result"], "merge", "{report}");
    assert!(desktop.dir.join("shared/Laptop only.md").is_file());
    laptop.sync("pull");
    assert!(laptop.dir.join("shared/Desktop only.md").is_file());
}

#[test]
fn the_sync_tool_pulls_and_pushes_too() {
    let (_remote, laptop, desktop) = two_devices();
    laptop.write("Beta", "from the laptop");
    let pushed: Value =
        serde_json::from_str(&laptop.tool("sync", json!({"direction": "push"}))).unwrap();
    assert_eq!(pushed["reports"][0]["pushed"], true, "{pushed}");
    let pulled: Value =
        serde_json::from_str(&desktop.tool("sync", json!({"direction": "pull"}))).unwrap();
    assert_eq!(
        pulled["reports"][0]["pull"]["updated"],
        json!(["shared/Beta.md"]),
        "{pulled}"
    );
    let refused = desktop.run(&[
        "tool",
        "sync",
        "--args",
        &json!({"direction": "sideways"}).to_string(),
    ]);
    assert_mentions(
        &format!("{}{}", refused.stdout, refused.stderr),
        "\"pull\", \"push\" or \"both\"",
    );
}

#[test]
fn an_unreachable_remote_never_fails_a_write_and_the_push_is_retried() {
    let root = tempfile::tempdir().unwrap();
    let later = root.path().join("later.git");
    let dir = versioned_with(
        root.path(),
        "First.md",
        "# First\n",
        &format!("file://{}", later.display()),
    );
    set_option(root.path(), "notes", "auto_push = true");

    let mut mcp = Mcp::start(root.path());
    let written = mcp
        .call(
            "write_note",
            json!({"title": "Offline", "directory": "x", "content": "written offline"}),
        )
        .ok();
    assert_mentions(&written.text, "Offline");
    assert!(
        eventually(Duration::from_secs(60), || log(&dir)[0]
            .starts_with("feat(mem): add Offline")),
        "the write is committed although the remote is unreachable: {:?}",
        log(&dir)
    );
    // The remote comes back; the next attempt of the backoff pushes.
    Repository::init_bare(&later).unwrap();
    let remote_has_it = || {
        Repository::open_bare(&later)
            .ok()
            .and_then(|r| {
                let head = r.references().ok()?.flatten().find_map(|r| r.target())?;
                let commit = r.find_commit(head).ok()?;
                Some(commit.message()?.starts_with("feat(mem): add Offline"))
            })
            .unwrap_or(false)
    };
    assert!(
        eventually(SLOW, remote_has_it),
        "the failed push was not retried"
    );
}

#[test]
fn credentials_are_never_kept_in_config() {
    let root = tempfile::tempdir().unwrap();
    gitmem(root.path(), &["project", "list"]).ok();
    let refused = gitmem(
        root.path(),
        &[
            "git",
            "init",
            "--project",
            "main",
            "--remote",
            "https://me:ghp_secret@github.com/me/notes.git",
        ],
    );
    assert_ne!(refused.code, 0);
    assert_mentions(&refused.stderr, "GITHUB_TOKEN");
    assert!(!refused.stderr.contains("ghp_secret"), "{}", refused.stderr);
    let config = std::fs::read_to_string(root.path().join("config.toml")).unwrap_or_default();
    assert!(!config.contains("ghp_secret"), "{config}");
}

#[test]
fn a_running_server_pulls_periodically_and_serves_what_it_pulled() {
    let (_remote, laptop, desktop) = two_devices();
    set_option(desktop.root.path(), "notes", "pull_interval_ms = 200");
    let mut server = Mcp::start(desktop.root.path());
    server.call("list_memory_projects", json!({})).ok();

    laptop.write("Fresh", "news about lighthouses");
    laptop.sync("push");
    let pulled = eventually(Duration::from_secs(60), || {
        server
            .call("search_notes", json!({"query": "lighthouses"}))
            .text
            .contains("Fresh")
    });
    assert!(pulled, "the server did not pull: {:?}", log(&desktop.dir));
    assert!(log(&desktop.dir)[0].starts_with("feat(mem): add Fresh"));
}

/// Writes a tree object byte by byte, as a hostile client could: git's own tools refuse to
/// build trees with `.git` or `..` entries, a remote's objects are not bound by that.
fn raw_tree(repo: &Repository, entries: &mut [(String, &str, git2::Oid)]) -> git2::Oid {
    entries.sort_by_key(|(name, mode, _)| {
        if *mode == "40000" {
            format!("{name}/")
        } else {
            name.clone()
        }
    });
    let mut bytes = Vec::new();
    for (name, mode, id) in entries.iter() {
        bytes.extend_from_slice(format!("{mode} {name}\0").as_bytes());
        bytes.extend_from_slice(id.as_bytes());
    }
    repo.odb()
        .unwrap()
        .write(git2::ObjectType::Tree, &bytes)
        .unwrap()
}

#[test]
fn a_remote_cannot_write_into_git_or_outside_the_project() {
    let (remote, laptop, desktop) = two_devices();
    let bare = Repository::open_bare(remote.path().join("remote.git")).unwrap();
    let branch = bare
        .references()
        .unwrap()
        .flatten()
        .find(|r| r.name().is_some_and(|n| n.starts_with("refs/heads/")))
        .unwrap();
    let branch_name = branch.name().unwrap().to_string();
    let parent = branch.peel_to_commit().unwrap();
    let hook = bare.blob(b"#!/bin/sh\ntouch /tmp/pwned\n").unwrap();
    let hooks = raw_tree(&bare, &mut [("post-commit".into(), "100755", hook)]);
    let git = raw_tree(&bare, &mut [("hooks".into(), "40000", hooks)]);
    let escape = bare.blob(b"# Escape\n").unwrap();
    let up = raw_tree(&bare, &mut [("escape.md".into(), "100644", escape)]);
    let mut entries: Vec<(String, &str, git2::Oid)> = parent
        .tree()
        .unwrap()
        .iter()
        .map(|e| {
            let mode = if e.kind() == Some(git2::ObjectType::Tree) {
                "40000"
            } else {
                "100644"
            };
            (e.name().unwrap().to_string(), mode, e.id())
        })
        .collect();
    entries.push((".git".into(), "40000", git));
    entries.push(("..".into(), "40000", up));
    let tree = bare.find_tree(raw_tree(&bare, &mut entries)).unwrap();
    let me = git2::Signature::now("Mallory", "m@example.com").unwrap();
    bare.commit(Some(&branch_name), &me, &me, "hostile", &tree, &[&parent])
        .unwrap();

    let report = desktop.sync("pull");
    let skipped = report["pull"]["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2, "{report}");
    assert!(!desktop.dir.join(".git/hooks/post-commit").exists());
    assert!(!desktop.root.path().join("escape.md").exists());
    drop(laptop);
}

#[test]
fn observations_appended_to_one_note_on_both_devices_are_both_kept() {
    let (_remote, laptop, desktop) = two_devices();
    let append = |device: &Device, line: &str| {
        device.tool(
            "edit_note",
            json!({"identifier": "shared/alpha", "operation": "append", "content": line}),
        );
    };
    append(&laptop, "- [fact] the laptop saw this");
    laptop.sync("push");
    append(&desktop, "- [fact] the desktop saw that");
    let report = desktop.sync("both");
    assert_eq!(report["pull"]["conflicts"], json!([]), "{report}");
    let merged = desktop.file("shared/Alpha.md");
    assert_mentions(&merged, "the laptop saw this");
    assert_mentions(&merged, "the desktop saw that");
    let observations = desktop.tool(
        "search_notes",
        json!({"query": "laptop saw", "output_format": "json"}),
    );
    assert_mentions(&observations, "Alpha");
}

#[test]
fn a_device_joining_takes_the_remote_branch_whatever_its_name() {
    let remote = tempfile::tempdir().unwrap();
    // A bare repository's HEAD names `master`; the first device pushes `main`.
    let url = bare_remote(remote.path());
    let first = tempfile::tempdir().unwrap();
    versioned_with(
        first.path(),
        "Origin.md",
        "# Origin\n\nwhere it started\n",
        &url,
    );
    gitmem(first.path(), &["sync", "push"]).ok();

    let second = Device::join(&url, "second");
    assert_mentions(&second.file("Origin.md"), "where it started");
    let found = second.tool("search_notes", json!({"query": "started"}));
    assert_mentions(&found, "Origin");
    second.write("Reply", "from the second device");
    second.sync("push");
    let pulled = gitmem(first.path(), &["sync", "pull", "--json"])
        .ok()
        .json();
    assert_eq!(
        pulled["pull"]["updated"],
        json!(["shared/Reply.md"]),
        "{pulled}"
    );
}
