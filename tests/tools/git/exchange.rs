//! Sync between devices in process: two data roots share one project through a bare remote on
//! the file system (`file://`), as two machines share one through GitHub, and exchange commits
//! with the `sync` tool.

use std::path::{Path, PathBuf};

use git2::Repository;
use serde_json::{json, Value};

use crate::common::assert_mentions;
use crate::common::git::{commit_files, log, set_option};
use crate::common::{eventually, SLOW};
use crate::{Harness, ReplyExt};

/// A bare repository acting as the shared remote; its `file://` URL.
pub(crate) fn bare_remote(dir: &Path) -> String {
    let path = dir.join("remote.git");
    Repository::init_bare(&path).unwrap();
    format!("file://{}", path.display())
}

/// One device: a data root whose default project `notes` is a clone of the remote.
struct Device {
    h: Harness,
    dir: PathBuf,
}

impl Device {
    fn join(url: &str, name: &str) -> Device {
        let h = Harness::new();
        let dir = h.root().join("notes");
        h.app().add_project("notes", &dir, true).unwrap();
        h.app().version_project("notes", Some(url)).unwrap();
        set_option(h.root(), "notes", &format!("device = \"{name}\""));
        // Indexed from the files of the clone, as a server's first scan does.
        let h = h.reopen();
        h.sync();
        Device { h, dir }
    }

    /// A device whose folder already holds `notes` (title, body) under `shared/` before it
    /// joins the remote with `gitmem project add notes DIR --git --remote URL`.
    fn join_with_notes(url: &str, name: &str, notes: &[(&str, &str)]) -> Device {
        let h = Harness::new();
        let dir = h.root().join("notes");
        std::fs::create_dir_all(dir.join("shared")).unwrap();
        for (title, body) in notes {
            let text = format!("---\ntitle: {title}\n---\n\n{body}\n");
            std::fs::write(dir.join(format!("shared/{title}.md")), text).unwrap();
        }
        h.app()
            .add_project_versioned("notes", &dir, true, true, Some(url))
            .unwrap();
        set_option(h.root(), "notes", &format!("device = \"{name}\""));
        let h = h.reopen();
        h.sync();
        Device { h, dir }
    }

    fn write(&self, title: &str, content: &str) {
        self.h
            .write_with(title, "shared", content, json!({"overwrite": true}));
    }

    /// The `sync` tool in `direction`: its report.
    fn sync(&self, direction: &str) -> Value {
        self.h.value("sync", json!({"direction": direction}))["reports"][0].clone()
    }

    fn file(&self, relative: &str) -> String {
        std::fs::read_to_string(self.dir.join(relative)).unwrap()
    }
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
    let found = laptop.h.text("search_notes", json!({"query": "gliders"}));
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

    let status = desktop.h.text("sync_status", json!({}));
    assert_mentions(&status, &copy);
    // The note keeps its permalink; the copy has its own.
    let read = desktop
        .h
        .text("read_note", json!({"identifier": "notes/shared/alpha"}));
    assert_mentions(&read, "the desktop's line two");

    desktop.sync("push");
    laptop.sync("pull");
    assert!(laptop.dir.join(&copy).is_file(), "the conflict travels");
}

#[test]
fn a_delete_against_an_edit_keeps_the_edit_both_ways() {
    let (_remote, laptop, desktop) = two_devices();
    laptop
        .h
        .call("delete_note", json!({"identifier": "shared/alpha"}))
        .ok();
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
    let read = laptop
        .h
        .text("read_note", json!({"identifier": "shared/alpha"}));
    assert_mentions(&read, "edited on the desktop");

    // And the other way round: deleted here, edited there.
    laptop.write("Alpha", "edited again on the laptop");
    laptop.sync("push");
    desktop
        .h
        .call("delete_note", json!({"identifier": "shared/alpha"}))
        .ok();
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
    laptop
        .h
        .call(
            "move_note",
            json!({"identifier": "shared/alpha", "destination_path": "archive/Alpha.md"}),
        )
        .ok();
    laptop.sync("push");
    let report = desktop.sync("pull");
    assert_eq!(
        report["pull"]["deleted"],
        json!(["shared/Alpha.md"]),
        "{report}"
    );
    assert!(!desktop.dir.join("shared/Alpha.md").exists());
    assert_mentions(&desktop.file("archive/Alpha.md"), "line one");
    let read = desktop
        .h
        .text("read_note", json!({"identifier": "archive/Alpha.md"}));
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
fn the_sync_tool_refuses_a_direction_it_does_not_know() {
    let (_remote, _laptop, desktop) = two_devices();
    let refused = desktop.h.call("sync", json!({"direction": "sideways"}));
    assert!(refused.is_error(), "{}", refused.text());
    assert_mentions(&refused.text(), "\"pull\", \"push\" or \"both\"");
}

#[test]
fn an_unreachable_remote_never_fails_a_write_and_the_push_is_retried() {
    let h = Harness::new();
    let later = h.root().join("later.git");
    std::fs::create_dir_all(h.main_dir()).unwrap();
    std::fs::write(h.main_dir().join("First.md"), "# First\n").unwrap();
    let url = format!("file://{}", later.display());
    h.app().version_project("main", Some(&url)).unwrap();
    set_option(h.root(), "main", "auto_push = true");
    let h = h.reopen();
    let dir = h.main_dir();

    let written = h.text(
        "write_note",
        json!({"title": "Offline", "directory": "x", "content": "written offline"}),
    );
    assert_mentions(&written, "Offline");
    assert!(
        eventually(SLOW, || log(&dir)[0].starts_with("feat(mem): add Offline")),
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
    let (remote, _laptop, desktop) = two_devices();
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
    assert!(!desktop.h.root().join("escape.md").exists());
}

#[test]
fn observations_appended_to_one_note_on_both_devices_are_both_kept() {
    let (_remote, laptop, desktop) = two_devices();
    let append = |device: &Device, line: &str| {
        device
            .h
            .call(
                "edit_note",
                json!({"identifier": "shared/alpha", "operation": "append", "content": line}),
            )
            .ok();
    };
    append(&laptop, "- [fact] the laptop saw this");
    laptop.sync("push");
    append(&desktop, "- [fact] the desktop saw that");
    let report = desktop.sync("both");
    assert_eq!(report["pull"]["conflicts"], json!([]), "{report}");
    let merged = desktop.file("shared/Alpha.md");
    assert_mentions(&merged, "the laptop saw this");
    assert_mentions(&merged, "the desktop saw that");
    let observations = desktop.h.text(
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
    let first = Harness::new();
    std::fs::create_dir_all(first.main_dir()).unwrap();
    std::fs::write(
        first.main_dir().join("Origin.md"),
        "# Origin\n\nwhere it started\n",
    )
    .unwrap();
    first.app().version_project("main", Some(&url)).unwrap();
    first.value("sync", json!({"direction": "push"}));

    let second = Device::join(&url, "second");
    assert_mentions(&second.file("Origin.md"), "where it started");
    let found = second.h.text("search_notes", json!({"query": "started"}));
    assert_mentions(&found, "Origin");
    second.write("Reply", "from the second device");
    second.sync("push");
    let pulled = first.value("sync", json!({"direction": "pull"}))["reports"][0].clone();
    assert_eq!(
        pulled["pull"]["updated"],
        json!(["shared/Reply.md"]),
        "{pulled}"
    );
}

#[test]
fn a_folder_with_its_own_notes_joins_a_remote_and_both_sides_meet() {
    let remote = tempfile::tempdir().unwrap();
    let url = bare_remote(remote.path());
    let laptop = Device::join(&url, "laptop");
    laptop.write("Plan", "the laptop's plan");
    laptop.write("Kayaks", "written on the laptop");
    laptop.sync("push");

    // Its own history, unrelated to the laptop's, on a branch of another name.
    let desktop = Device::join_with_notes(
        &url,
        "desktop",
        &[
            ("Plan", "the desktop's plan"),
            ("Gliders", "written on the desktop"),
        ],
    );
    let report = desktop.sync("pull");
    let pull = &report["pull"];
    assert_eq!(pull["result"], "merge", "{report}");
    assert_eq!(pull["updated"], json!(["shared/Kayaks.md"]), "{report}");
    let conflicts = pull["conflicts"].as_array().unwrap();
    assert_eq!(conflicts.len(), 1, "{report}");
    assert_eq!(conflicts[0]["path"], "shared/Plan.md");
    let copy = conflicts[0]["copy"].as_str().unwrap().to_string();
    assert!(copy.starts_with("shared/Plan.conflict-desktop-"), "{copy}");
    let plan = desktop.file("shared/Plan.md");
    assert_mentions(&plan, "the desktop's plan");
    assert_mentions(&plan, "conflict");
    assert_mentions(&desktop.file(&copy), "the laptop's plan");
    assert_mentions(&desktop.file("shared/Gliders.md"), "written on the desktop");
    assert_mentions(&desktop.file("shared/Kayaks.md"), "written on the laptop");
    let found = desktop.h.text("search_notes", json!({"query": "laptop"}));
    assert_mentions(&found, "Kayaks");

    let pushed = desktop.sync("push");
    assert_eq!(pushed["pushed"], true, "{pushed}");
    let report = laptop.sync("pull");
    assert_eq!(report["pull"]["result"], "fast-forward", "{report}");
    assert_mentions(&laptop.file("shared/Gliders.md"), "written on the desktop");
    assert_mentions(&laptop.file("shared/Plan.md"), "the desktop's plan");
    assert_mentions(&laptop.file(&copy), "the laptop's plan");
    assert_eq!(
        Repository::open_bare(remote.path().join("remote.git"))
            .unwrap()
            .branches(None)
            .unwrap()
            .count(),
        1,
        "both devices share one branch of the remote"
    );
}

/// A remote a laptop pushed `shared/Plan.md` to, and a fresh root whose folder `notes` is a
/// repository of the user's own (one commit, `Own.md`), not yet a project.
fn a_pushed_plan_and_a_repository_of_ones_own() -> (tempfile::TempDir, String, Harness, PathBuf) {
    let remote = tempfile::tempdir().unwrap();
    let url = bare_remote(remote.path());
    let laptop = Device::join(&url, "laptop");
    laptop.write("Plan", "the laptop's plan");
    laptop.sync("push");
    let h = Harness::new();
    let dir = h.root().join("notes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Own.md"), "# Own\n\nmine\n").unwrap();
    commit_files(&dir, &["Own.md"], "my own start");
    (remote, url, h, dir)
}

#[test]
fn git_init_with_a_remote_on_a_repository_already_there_pulls_from_it() {
    let (_remote, url, h, dir) = a_pushed_plan_and_a_repository_of_ones_own();
    h.app().add_project("notes", &dir, true).unwrap();
    h.app().version_project("notes", Some(&url)).unwrap();
    let report = h.value("sync", json!({"direction": "pull"}))["reports"][0].clone();
    assert_eq!(
        report["pull"]["updated"],
        json!(["shared/Plan.md"]),
        "{report}"
    );
    assert_mentions(
        &std::fs::read_to_string(dir.join("shared/Plan.md")).unwrap(),
        "the laptop's plan",
    );

    // The repository's own origin is the user's: another URL is refused, not written over.
    let refused = h
        .app()
        .version_project("notes", Some("file:///elsewhere.git"))
        .unwrap_err();
    assert_mentions(&refused.to_string(), &url);
}

#[test]
fn git_init_without_a_remote_on_a_repository_with_an_origin_syncs_through_it() {
    let (_remote, url, h, dir) = a_pushed_plan_and_a_repository_of_ones_own();
    Repository::open(&dir)
        .unwrap()
        .remote("origin", &url)
        .unwrap();
    h.app().add_project("notes", &dir, true).unwrap();
    h.app().version_project("notes", None).unwrap();
    let config = std::fs::read_to_string(h.root().join("config.toml")).unwrap();
    assert_mentions(&config, &format!("remote = \"{url}\""));
    let report = h.value("sync", json!({"direction": "pull"}))["reports"][0].clone();
    assert_eq!(
        report["pull"]["updated"],
        json!(["shared/Plan.md"]),
        "{report}"
    );
}

#[test]
fn a_pull_never_answers_up_to_date_while_the_remote_has_commits_it_lacks() {
    let remote = tempfile::tempdir().unwrap();
    let url = bare_remote(remote.path());
    let laptop = Device::join(&url, "laptop");
    laptop.write("Plan", "the laptop's plan");
    laptop.sync("push");
    let bare = Repository::open_bare(remote.path().join("remote.git")).unwrap();
    let mut only = bare.branches(None).unwrap().flatten().next().unwrap().0;
    let tip = only.get().peel_to_commit().unwrap();
    bare.branch("drafts", &tip, false).unwrap();
    only.rename("notes", false).unwrap();
    // As a bare repository made by `git init --bare` has it: HEAD names no branch it holds.
    bare.set_head("refs/heads/master").unwrap();

    let desktop = Device::join_with_notes(&url, "desktop", &[("Own", "mine")]);
    let refused = desktop.h.call("sync", json!({"direction": "pull"}));
    assert!(refused.is_error(), "{}", refused.text());
    assert_mentions(&refused.text(), "drafts");

    // Chosen as the refusal says, the branch is followed.
    let repo = Repository::open(&desktop.dir).unwrap();
    let mut main = repo.find_branch("main", git2::BranchType::Local).unwrap();
    main.set_upstream(Some("origin/notes")).unwrap();
    let report = desktop.sync("pull");
    assert_eq!(
        report["pull"]["updated"],
        json!(["shared/Plan.md"]),
        "{report}"
    );

    // Deleted on the remote, it is not followed any more: the branch left is.
    let tip = bare
        .find_branch("drafts", git2::BranchType::Local)
        .unwrap()
        .get()
        .peel_to_commit()
        .unwrap();
    let draft = bare.blob(b"# Draft\n\nunfinished\n").unwrap();
    let mut tree = bare.treebuilder(Some(&tip.tree().unwrap())).unwrap();
    tree.insert("Draft.md", draft, 0o100644).unwrap();
    let tree = bare.find_tree(tree.write().unwrap()).unwrap();
    let me = git2::Signature::now("Someone", "someone@example.com").unwrap();
    bare.commit(Some("refs/heads/drafts"), &me, &me, "draft", &tree, &[&tip])
        .unwrap();
    bare.find_branch("notes", git2::BranchType::Local)
        .unwrap()
        .delete()
        .unwrap();
    let report = desktop.sync("pull");
    assert_eq!(report["pull"]["updated"], json!(["Draft.md"]), "{report}");
}
