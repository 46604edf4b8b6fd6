//! Versioned projects: real repositories in temp directories, read back with libgit2.

mod common;

use std::path::Path;
use std::time::Duration;

use common::git::{log, set_option};
use common::mcp::Mcp;
use common::{assert_mentions, gitmem};
use git2::Repository;
use serde_json::json;

fn tool(root: &Path, name: &str, args: serde_json::Value) {
    gitmem(root, &["tool", name, "--args", &args.to_string()]).ok();
}

fn versioned(root: &Path) -> std::path::PathBuf {
    let dir = root.join("notes");
    gitmem(
        root,
        &[
            "project",
            "add",
            "notes",
            dir.to_str().unwrap(),
            "--default",
            "--git",
        ],
    )
    .ok();
    dir
}

#[test]
fn every_change_is_a_conventional_commit_made_before_the_process_exits() {
    let root = tempfile::tempdir().unwrap();
    let dir = versioned(root.path());
    assert_eq!(log(&dir).len(), 1, "the history starts with one commit");
    let config = std::fs::read_to_string(root.path().join("config.toml")).unwrap();
    assert_mentions(&config, "[projects.notes.git]");

    tool(
        root.path(),
        "write_note",
        json!({"title": "Plan", "directory": "work", "content": "first"}),
    );
    let head = &log(&dir)[0];
    assert!(head.starts_with("feat(mem): add Plan\n"), "{head}");
    assert_mentions(head, "permalink: notes/work/plan");

    tool(
        root.path(),
        "edit_note",
        json!({"identifier": "work/plan", "operation": "append", "content": "second"}),
    );
    assert!(
        log(&dir)[0].starts_with("fix(mem): update Plan"),
        "{:?}",
        log(&dir)
    );

    tool(
        root.path(),
        "move_note",
        json!({"identifier": "work/plan", "destination_path": "done/Plan.md"}),
    );
    let moved = &log(&dir)[0];
    assert!(moved.starts_with("fix(mem): move Plan"), "{moved}");
    assert_mentions(moved, "from: work/Plan.md");

    tool(
        root.path(),
        "delete_note",
        json!({"identifier": "done/plan"}),
    );
    assert!(
        log(&dir)[0].starts_with("chore(mem): delete Plan"),
        "{:?}",
        log(&dir)
    );
    let repo = Repository::open(&dir).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    assert!(tree.get_path(Path::new("done/Plan.md")).is_err());
    assert!(tree.get_path(Path::new("work/Plan.md")).is_err());
    assert_eq!(log(&dir).len(), 5);
}

#[test]
fn writes_within_the_batch_window_share_one_commit() {
    let root = tempfile::tempdir().unwrap();
    let dir = versioned(root.path());
    // A window no test run outlasts: the three writes fall in it, however slow the machine.
    set_option(root.path(), "notes", "commit_batch_ms = 600000");
    let mut mcp = Mcp::start(root.path());
    for n in 0..3 {
        mcp.call(
            "write_note",
            json!({"title": format!("Batch {n}"), "directory": "b", "content": "x"}),
        )
        .ok();
    }
    let reply = mcp
        .call("read_note", json!({"identifier": "b/batch-0"}))
        .ok();
    assert_mentions(&reply.text, "Batch 0");
    // Reading history commits what is queued.
    mcp.call("note_history", json!({"identifier": "b/batch-0"}))
        .ok();
    let commits = log(&dir);
    assert_eq!(commits.len(), 2, "{commits:?}");
    assert!(
        commits[0].starts_with("feat(mem): add 3 notes"),
        "{}",
        commits[0]
    );
    for n in 0..3 {
        assert_mentions(&commits[0], &format!("add Batch {n}"));
    }
}

#[test]
fn an_existing_work_tree_is_used_as_it_is_with_its_gitignore() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("vault");
    std::fs::create_dir_all(&dir).unwrap();
    let repo = Repository::init(&dir).unwrap();
    std::fs::write(dir.join(".gitignore"), "private/\n").unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new(".gitignore")).unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let me = git2::Signature::now("Owner", "owner@example.com").unwrap();
    repo.commit(Some("HEAD"), &me, &me, "my own start", &tree, &[])
        .unwrap();

    let added = gitmem(
        root.path(),
        &[
            "project",
            "add",
            "vault",
            dir.to_str().unwrap(),
            "--default",
            "--git",
        ],
    )
    .ok();
    assert_mentions(&added.stdout, "uses the git work tree already there");
    assert_eq!(log(&dir), ["my own start"]);

    tool(
        root.path(),
        "write_note",
        json!({"title": "Secret", "directory": "private", "content": "x"}),
    );
    assert_eq!(
        log(&dir).len(),
        1,
        "an ignored path is not committed: {:?}",
        log(&dir)
    );
    tool(
        root.path(),
        "write_note",
        json!({"title": "Open", "directory": "public", "content": "x"}),
    );
    assert!(log(&dir)[0].starts_with("feat(mem): add Open"));
}

#[test]
fn an_empty_directory_clones_its_remote() {
    let root = tempfile::tempdir().unwrap();
    let origin = root.path().join("origin");
    std::fs::create_dir_all(origin.join("ideas")).unwrap();
    std::fs::write(origin.join("ideas/Seed.md"), "# Seed\n\nfrom elsewhere\n").unwrap();
    let repo = Repository::init(&origin).unwrap();
    let mut index = repo.index().unwrap();
    index.add_path(Path::new("ideas/Seed.md")).unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let me = git2::Signature::now("Other", "other@example.com").unwrap();
    repo.commit(Some("HEAD"), &me, &me, "seed", &tree, &[])
        .unwrap();

    let dir = root.path().join("copy");
    let url = format!("file://{}", origin.display());
    let added = gitmem(
        root.path(),
        &[
            "project",
            "add",
            "copy",
            dir.to_str().unwrap(),
            "--default",
            "--git",
            "--remote",
            &url,
        ],
    )
    .ok();
    assert_mentions(&added.stdout, "holds a clone of its remote");
    assert!(dir.join("ideas/Seed.md").is_file());
    assert_eq!(log(&dir), ["seed"]);
    let config = std::fs::read_to_string(root.path().join("config.toml")).unwrap();
    assert_mentions(&config, &format!("remote = \"{url}\""));
    let found = gitmem(root.path(), &["search", "elsewhere"]).ok();
    assert_mentions(&found.stdout, "Seed");
}

#[test]
fn git_init_versions_an_existing_project_and_nested_work_trees_are_refused() {
    let root = tempfile::tempdir().unwrap();
    tool(
        root.path(),
        "write_note",
        json!({"title": "Before", "directory": "a", "content": "x"}),
    );
    let started = gitmem(root.path(), &["git", "init", "--project", "main"]).ok();
    assert_mentions(&started.stdout, "is now a git repository");
    let dir = root.path().join("projects/main");
    let repo = Repository::open(&dir).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    assert!(tree.get_path(Path::new("a/Before.md")).is_ok());

    let outer = root.path().join("outer");
    Repository::init(&outer).unwrap();
    let inner = outer.join("inner");
    let refused = gitmem(
        root.path(),
        &["project", "add", "inner", inner.to_str().unwrap(), "--git"],
    );
    assert_ne!(refused.code, 0);
    assert_mentions(&refused.stderr, "inside the git work tree");
    let listed = gitmem(root.path(), &["project", "list"]).ok();
    assert!(!listed.stdout.contains("inner"), "{}", listed.stdout);
}

#[test]
fn changes_made_on_disk_are_committed_by_the_scan_unless_turned_off() {
    let root = tempfile::tempdir().unwrap();
    let dir = versioned(root.path());
    std::fs::create_dir_all(dir.join("inbox")).unwrap();
    std::fs::write(
        dir.join("inbox/From editor.md"),
        "# From editor\n\nwritten outside\n",
    )
    .unwrap();
    gitmem(root.path(), &["search", "outside"]).ok();
    let head = &log(&dir)[0];
    assert!(head.starts_with("chore(mem): sync 1 files"), "{head}");
    assert_mentions(head, "- changed: inbox/From editor.md");

    set_option(root.path(), "notes", "auto_commit_external = false");
    std::fs::write(dir.join("inbox/Second.md"), "# Second\n\nalso outside\n").unwrap();
    gitmem(root.path(), &["search", "also"]).ok();
    assert_eq!(log(&dir).len(), 2, "{:?}", log(&dir));
}

fn tool_text(root: &Path, name: &str, args: serde_json::Value) -> String {
    gitmem(root, &["tool", name, "--args", &args.to_string()])
        .ok()
        .stdout
}

fn tool_json(root: &Path, name: &str, mut args: serde_json::Value) -> serde_json::Value {
    args["output_format"] = json!("json");
    serde_json::from_str(&tool_text(root, name, args)).unwrap()
}

#[test]
fn history_diff_and_restore_round_trip_through_renames_and_deletes() {
    let root = tempfile::tempdir().unwrap();
    let dir = versioned(root.path());
    let r = root.path();
    tool(
        r,
        "write_note",
        json!({"title": "Recipe", "directory": "food", "content": "flour\nwater\nsalt"}),
    );
    tool(
        r,
        "edit_note",
        json!({"identifier": "food/recipe", "operation": "find_replace", "find_text": "salt", "content": "sea salt"}),
    );
    tool(
        r,
        "move_note",
        json!({"identifier": "food/recipe", "destination_path": "kitchen/Recipe.md"}),
    );

    let history = tool_json(r, "note_history", json!({"identifier": "kitchen/recipe"}));
    let versions = history["versions"].as_array().unwrap();
    let messages: Vec<&str> = versions
        .iter()
        .map(|v| v["message"].as_str().unwrap())
        .collect();
    assert_eq!(
        messages,
        [
            "fix(mem): move Recipe",
            "fix(mem): update Recipe",
            "feat(mem): add Recipe"
        ],
        "{history}"
    );
    assert_eq!(
        versions[2]["path"], "food/Recipe.md",
        "renames are followed"
    );
    assert_eq!(versions[0]["author"], "gitmem");
    let first = versions[2]["commit"].as_str().unwrap().to_string();
    let text = tool_text(r, "note_history", json!({"identifier": "Recipe"}));
    assert_mentions(&text, "# History of kitchen/Recipe.md");
    assert_mentions(&text, &first[..10]);

    // The last change, then between two named versions.
    let diff = tool_text(r, "note_diff", json!({"identifier": "kitchen/recipe"}));
    assert_mentions(&diff, "```diff");
    assert_mentions(&diff, "-salt");
    assert_mentions(&diff, "+sea salt");
    let between = tool_json(
        r,
        "note_diff",
        json!({"identifier": "kitchen/recipe", "from": &first, "to": versions[1]["commit"]}),
    );
    assert_mentions(between["diff"].as_str().unwrap(), "+sea salt");
    std::fs::write(dir.join("kitchen/Recipe.md"), "changed by hand\n").unwrap();
    let working = tool_json(r, "note_diff", json!({"identifier": "kitchen/recipe"}));
    assert_eq!(working["to"], "working file");
    assert_mentions(working["diff"].as_str().unwrap(), "+changed by hand");

    // Restoring is a new commit; nothing is rewritten.
    let restored = tool_text(
        r,
        "restore_note",
        json!({"identifier": "kitchen/recipe", "version": &first[..8]}),
    );
    assert_mentions(&restored, "restored as of");
    let now = std::fs::read_to_string(dir.join("kitchen/Recipe.md")).unwrap();
    assert_mentions(&now, "flour\nwater\nsalt");
    assert!(!now.contains("sea salt"), "{now}");
    let head = &log(&dir)[0];
    assert!(head.starts_with("fix(mem): restore Recipe"), "{head}");
    assert_mentions(head, &format!("restored from: {first}"));
    assert!(
        log(&dir)[1].starts_with("chore(mem): sync 1 files"),
        "the edit by hand was committed before the restore: {:?}",
        log(&dir)
    );

    // A deleted note is found by its title and brought back.
    tool(r, "delete_note", json!({"identifier": "kitchen/recipe"}));
    let gone = tool_json(r, "note_history", json!({"identifier": "Recipe"}));
    assert_eq!(gone["exists"], false, "{gone}");
    assert_eq!(gone["versions"][0]["deleted"], true);
    let before_delete = gone["versions"][1]["commit"].as_str().unwrap().to_string();
    tool(
        r,
        "restore_note",
        json!({"identifier": "Recipe", "version": before_delete}),
    );
    let read = tool_text(r, "read_note", json!({"identifier": "kitchen/recipe"}));
    assert_mentions(&read, "flour");

    let refused = gitmem(
        r,
        &[
            "tool",
            "restore_note",
            "--args",
            &json!({"identifier": "kitchen/recipe", "version": "0000000"}).to_string(),
        ],
    );
    assert_mentions(
        &format!("{}{}", refused.stdout, refused.stderr),
        "no such version",
    );
}

#[test]
fn history_commands_at_the_shell_and_recent_activity_name_commits() {
    let root = tempfile::tempdir().unwrap();
    let dir = versioned(root.path());
    let r = root.path();
    tool(
        r,
        "write_note",
        json!({"title": "Log", "directory": "d", "content": "one"}),
    );
    tool(
        r,
        "write_note",
        json!({"title": "Log", "directory": "d", "content": "two", "overwrite": true}),
    );
    let history = gitmem(r, &["git", "history", "d/log", "--json"])
        .ok()
        .json();
    assert_eq!(history["versions"].as_array().unwrap().len(), 2);
    let first = history["versions"][1]["commit"]
        .as_str()
        .unwrap()
        .to_string();
    let diff = gitmem(r, &["git", "diff", "d/log"]).ok();
    assert_mentions(&diff.stdout, "-one");
    assert_mentions(&diff.stdout, "+two");
    gitmem(r, &["git", "restore", "d/log", &first]).ok();
    assert_mentions(
        &std::fs::read_to_string(dir.join("d/Log.md")).unwrap(),
        "one",
    );

    let head = Repository::open(&dir)
        .unwrap()
        .head()
        .unwrap()
        .target()
        .unwrap()
        .to_string();
    let activity = tool_text(r, "recent_activity", json!({"timeframe": "1d"}));
    assert_mentions(&activity, &format!("[commit: {}]", &head[..10]));

    let unversioned = tempfile::tempdir().unwrap();
    tool(
        unversioned.path(),
        "write_note",
        json!({"title": "Plain", "directory": "d", "content": "x"}),
    );
    let refused = gitmem(unversioned.path(), &["git", "history", "d/plain"]);
    assert_ne!(refused.code, 0);
    assert_mentions(&refused.stderr, "not versioned");
}

#[test]
fn a_commit_interrupted_by_a_killed_process_is_recovered_at_the_next_start() {
    let root = tempfile::tempdir().unwrap();
    let dir = versioned(root.path());
    // What `kill -9` in the middle of a commit leaves: gitmem's marker naming the dead
    // process, and libgit2's lock on the index.
    std::fs::write(dir.join(".git/gitmem.lock"), "999999").unwrap();
    std::fs::write(dir.join(".git/index.lock"), "").unwrap();
    tool(
        root.path(),
        "write_note",
        json!({"title": "After", "directory": "d", "content": "x"}),
    );
    assert!(
        log(&dir)[0].starts_with("feat(mem): add After"),
        "{:?}",
        log(&dir)
    );
    assert!(!dir.join(".git/index.lock").exists());

    // A lock without gitmem's marker is someone else's (the user's own git) and stays.
    std::fs::write(dir.join(".git/index.lock"), "").unwrap();
    gitmem(root.path(), &["status"]).ok();
    assert!(dir.join(".git/index.lock").exists());
    std::fs::remove_file(dir.join(".git/index.lock")).unwrap();
    fsck(&dir);
}

/// `git fsck --full` of the command-line git accepts the repository.
fn fsck(dir: &Path) {
    let out = std::process::Command::new("git")
        .args(["fsck", "--full", "--no-progress"])
        .current_dir(dir)
        .output()
        .expect("the git command line runs the repository check");
    assert!(
        out.status.success(),
        "git fsck: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn killing_a_server_while_it_commits_leaves_a_repository_git_fsck_accepts() {
    let root = tempfile::tempdir().unwrap();
    let dir = versioned(root.path());
    set_option(root.path(), "notes", "commit_batch_ms = 0");
    for round in 0..3 {
        let mut mcp = Mcp::start(root.path());
        for n in 0..15 {
            mcp.send(
                "tools/call",
                json!({"name": "write_note", "arguments": {"title": format!("K{round}-{n}"), "directory": "k", "content": "x".repeat(2000)}}),
            );
        }
        std::thread::sleep(Duration::from_millis(150 + 100 * round));
        drop(mcp); // SIGKILL, whatever the server is doing
        fsck(&dir);
    }
    tool(
        root.path(),
        "write_note",
        json!({"title": "Survivor", "directory": "k", "content": "x"}),
    );
    assert!(
        log(&dir)[0].starts_with("feat(mem): add Survivor"),
        "{:?}",
        log(&dir)
    );
    fsck(&dir);
}
