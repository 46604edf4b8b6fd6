//! Versioned projects: real repositories in temp directories, read back with libgit2.

mod common;

use std::path::Path;
use std::time::Duration;

use common::mcp::Mcp;
use common::{assert_mentions, gitmem};
use git2::Repository;
use serde_json::json;

/// Commit messages, newest first.
fn log(dir: &Path) -> Vec<String> {
    let repo = Repository::open(dir).unwrap();
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    walk.map(|oid| {
        repo.find_commit(oid.unwrap())
            .unwrap()
            .message()
            .unwrap()
            .to_string()
    })
    .collect()
}

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
    let mut commits = log(&dir);
    for _ in 0..50 {
        if commits.len() > 1 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
        commits = log(&dir);
    }
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

    let config = root.path().join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace(
            "[projects.notes.git]",
            "[projects.notes.git]\nauto_commit_external = false",
        ),
    )
    .unwrap();
    std::fs::write(dir.join("inbox/Second.md"), "# Second\n\nalso outside\n").unwrap();
    gitmem(root.path(), &["search", "also"]).ok();
    assert_eq!(log(&dir).len(), 2, "{:?}", log(&dir));
}
