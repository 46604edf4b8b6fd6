//! Versioned projects in process: the commit each change makes, the batch window, the
//! repositories a project starts, uses or clones, changes made on disk, history read back, and
//! what a process killed mid-commit leaves. Real repositories in temporary folders, read back
//! with libgit2.

pub(crate) mod exchange;

use std::path::Path;

use chrono::{Duration, SecondsFormat, Utc};
use git::Prepared;
use git2::Repository;
use serde_json::json;

use crate::common::assert_mentions;
use crate::common::git::{commit_files, fsck, log};
use crate::{versioned, versioned_with, Harness, ReplyExt};

/// The default project's commit messages, newest first, once what is queued is committed
/// (reading `note`'s history commits it first).
fn commits(h: &Harness, note: &str) -> Vec<String> {
    h.call("note_history", json!({"identifier": note}));
    log(&h.main_dir())
}

#[test]
fn every_change_is_a_conventional_commit() {
    let h = versioned();
    let dir = h.main_dir();
    assert_eq!(log(&dir).len(), 1, "the history starts with one commit");
    let config = std::fs::read_to_string(h.root().join("config.toml")).unwrap();
    assert_mentions(&config, "[projects.main.git]");

    h.write("Plan", "work", "first");
    let head = &commits(&h, "Plan")[0];
    assert!(head.starts_with("feat(mem): add Plan\n"), "{head}");
    assert_mentions(head, "permalink: main/work/plan");

    h.call(
        "edit_note",
        json!({"identifier": "work/plan", "operation": "append", "content": "second"}),
    )
    .ok();
    let head = &commits(&h, "Plan")[0];
    assert!(head.starts_with("fix(mem): update Plan"), "{head}");

    h.call(
        "move_note",
        json!({"identifier": "work/plan", "destination_path": "done/Plan.md"}),
    )
    .ok();
    let moved = &commits(&h, "Plan")[0];
    assert!(moved.starts_with("fix(mem): move Plan"), "{moved}");
    assert_mentions(moved, "from: work/Plan.md");

    h.call("delete_note", json!({"identifier": "done/plan"}))
        .ok();
    let head = &commits(&h, "Plan")[0];
    assert!(head.starts_with("chore(mem): delete Plan"), "{head}");
    let repo = Repository::open(&dir).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    assert!(tree.get_path(Path::new("done/Plan.md")).is_err());
    assert!(tree.get_path(Path::new("work/Plan.md")).is_err());
    assert_eq!(log(&dir).len(), 5);
}

#[test]
fn writes_within_the_batch_window_share_one_commit() {
    // A window no test run outlasts: the three writes fall in it, however slow the machine.
    let h = versioned_with(&["commit_batch_ms = 600000"]);
    for n in 0..3 {
        h.write(&format!("Batch {n}"), "b", "x");
    }
    let commits = commits(&h, "b/batch-0");
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
fn a_correction_a_prune_and_a_compaction_are_one_commit_each_whatever_the_batch_window() {
    // Without a window every file gitmem writes would be a commit of its own.
    let h = versioned_with(&["commit_batch_ms = 0"]).serving_tools("basic,gitmem");
    let old = (Utc::now() - Duration::days(90)).to_rfc3339_opts(SecondsFormat::Secs, true);
    let save = |content: &str, decay: Option<&str>| {
        let mut args = json!({"content": content, "score": 0.2, "created_at": old});
        if let Some(decay) = decay {
            args["decay"] = json!(decay);
        }
        h.value("memory_save", args)["file_path"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let faded = [
        save("Quoll tracks in mud", Some("P7D")),
        save("Quoll scat on rocks", Some("P7D")),
    ];
    let folded = [
        save("Quoll dens in logs", None),
        save("Quoll eat insects", None),
        save("Quoll are spotted", None),
    ];
    h.write("Release day", "decisions", "We cut releases on Tuesdays.");
    let before = commits(&h, &folded[0]).len();

    h.call(
        "correct_memory",
        json!({"identifier": "Release day", "content": "Fridays.", "reason": "moved"}),
    )
    .ok();
    let after_correction = commits(&h, &folded[0]);
    assert_eq!(after_correction.len(), before + 1, "{after_correction:?}");
    let head = &after_correction[0];
    assert!(
        head.starts_with("fix(mem): correct Release day\n"),
        "{head}"
    );
    assert_mentions(
        head,
        "- update Release day (permalink: main/decisions/release-day;",
    );
    assert_mentions(head, "- add Release day (corrected ");
    let before = before + 1;

    let pruned = h.value("memory_prune", json!({}));
    assert_eq!(pruned["pruned"].as_array().unwrap().len(), 2, "{pruned}");
    let after_prune = commits(&h, &folded[0]);
    assert_eq!(after_prune.len(), before + 1, "{after_prune:?}");
    let head = &after_prune[0];
    assert!(head.starts_with("chore(mem): prune 2 memories\n"), "{head}");
    for path in &faded {
        assert_mentions(head, &format!("path: {path})"));
    }

    let compacted = h.value("memory_compact", json!({"older_than": "30d"}));
    let summary = compacted["summary"]["file_path"].as_str().unwrap();
    let after_compaction = commits(&h, &folded[0]);
    assert_eq!(after_compaction.len(), before + 2, "{after_compaction:?}");
    let head = &after_compaction[0];
    assert!(
        head.starts_with("chore(mem): compact 3 memories\n"),
        "{head}"
    );
    assert_mentions(head, "- add Compacted memories");
    for path in folded.iter().map(String::as_str).chain([summary]) {
        assert_mentions(head, &format!("path: {path})"));
    }
    let repo = Repository::open(h.main_dir()).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    let blob = tree
        .get_path(Path::new(&folded[2]))
        .unwrap()
        .to_object(&repo);
    let committed = String::from_utf8(blob.unwrap().peel_to_blob().unwrap().content().to_vec());
    assert_mentions(&committed.unwrap(), "superseded_by:");
}

#[test]
fn a_note_moved_or_deleted_in_the_batch_that_wrote_it_is_committed_as_it_ends() {
    let h = versioned_with(&["commit_batch_ms = 600000"]);
    h.write("Recipe", "food", "flour");
    h.call(
        "move_note",
        json!({"identifier": "food/recipe", "destination_path": "kitchen/Recipe.md"}),
    )
    .ok();
    h.write("Draft", "tmp", "x");
    h.call("delete_note", json!({"identifier": "tmp/draft"}))
        .ok();
    let commits = commits(&h, "kitchen/recipe");
    assert_eq!(commits.len(), 2, "{commits:?}");
    let repo = Repository::open(h.main_dir()).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    assert!(tree.get_path(Path::new("kitchen/Recipe.md")).is_ok());
    for gone in ["food/Recipe.md", "tmp/Draft.md"] {
        assert!(tree.get_path(Path::new(gone)).is_err(), "{gone}");
    }
}

#[test]
fn an_existing_work_tree_is_used_as_it_is_with_its_gitignore() {
    let h = Harness::new();
    let dir = h.root().join("vault");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(".gitignore"), "private/\n").unwrap();
    commit_files(&dir, &[".gitignore"], "my own start");

    h.app().add_project("vault", &dir, true).unwrap();
    let (_, prepared) = h.app().version_project("vault", None).unwrap();
    assert_eq!(prepared, Prepared::Existing);
    assert_eq!(log(&dir), ["my own start"]);

    h.write("Secret", "private", "x");
    h.call("note_history", json!({"identifier": "private/secret"}));
    assert_eq!(log(&dir).len(), 1, "an ignored path is not committed");
    h.write("Open", "public", "x");
    h.call("note_history", json!({"identifier": "public/open"}));
    assert!(log(&dir)[0].starts_with("feat(mem): add Open"));
}

#[test]
fn an_empty_directory_clones_its_remote() {
    let h = Harness::new();
    let origin = h.root().join("origin");
    std::fs::create_dir_all(origin.join("ideas")).unwrap();
    std::fs::write(origin.join("ideas/Seed.md"), "# Seed\n\nfrom elsewhere\n").unwrap();
    commit_files(&origin, &["ideas/Seed.md"], "seed");

    let dir = h.root().join("copy");
    let url = format!("file://{}", origin.display());
    h.app().add_project("copy", &dir, true).unwrap();
    let (_, prepared) = h.app().version_project("copy", Some(&url)).unwrap();
    assert_eq!(prepared, Prepared::Cloned);
    assert!(dir.join("ideas/Seed.md").is_file());
    assert_eq!(log(&dir), ["seed"]);
    let config = std::fs::read_to_string(h.root().join("config.toml")).unwrap();
    assert_mentions(&config, &format!("remote = \"{url}\""));
    h.sync();
    let found = h.text("search_notes", json!({"query": "elsewhere"}));
    assert_mentions(&found, "Seed");
}

#[test]
fn a_project_with_notes_is_versioned_with_them_and_nested_work_trees_are_refused() {
    let h = Harness::new();
    h.write("Before", "a", "x");
    let (_, prepared) = h.app().version_project("main", None).unwrap();
    assert_eq!(prepared, Prepared::Initialised);
    let repo = Repository::open(h.main_dir()).unwrap();
    let tree = repo.head().unwrap().peel_to_tree().unwrap();
    assert!(tree.get_path(Path::new("a/Before.md")).is_ok());

    let outer = h.root().join("outer");
    Repository::init(&outer).unwrap();
    let inner = outer.join("inner");
    h.app().add_project("inner", &inner, false).unwrap();
    let refused = h.app().version_project("inner", None).unwrap_err();
    assert_mentions(&refused.to_string(), "inside the git work tree");
}

#[test]
fn credentials_are_never_kept_in_config() {
    let h = Harness::new();
    let refused = h
        .app()
        .version_project(
            "main",
            Some("https://me:ghp_secret@github.com/me/notes.git"),
        )
        .unwrap_err()
        .to_string();
    assert_mentions(&refused, "GITHUB_TOKEN");
    assert!(!refused.contains("ghp_secret"), "{refused}");
    let config = std::fs::read_to_string(h.root().join("config.toml")).unwrap_or_default();
    assert!(!config.contains("ghp_secret"), "{config}");
}

#[test]
fn changes_made_on_disk_are_committed_by_the_scan_unless_turned_off() {
    for committed in [true, false] {
        let h = if committed {
            versioned()
        } else {
            versioned_with(&["auto_commit_external = false"])
        };
        let dir = h.main_dir();
        std::fs::create_dir_all(dir.join("inbox")).unwrap();
        std::fs::write(
            dir.join("inbox/From editor.md"),
            "# From editor\n\nwritten outside\n",
        )
        .unwrap();
        h.sync();
        let commits = commits(&h, "inbox/from-editor");
        if committed {
            assert!(
                commits[0].starts_with("chore(mem): sync 1 files"),
                "{commits:?}"
            );
            assert_mentions(&commits[0], "- changed: inbox/From editor.md");
        } else {
            assert_eq!(commits.len(), 1, "{commits:?}");
        }
    }
}

#[test]
fn history_diff_and_restore_round_trip_through_renames_and_deletes() {
    let h = versioned();
    let dir = h.main_dir();
    // Each change a commit of its own, as separate commands make them.
    h.write("Recipe", "food", "flour\nwater\nsalt");
    commits(&h, "food/recipe");
    h.call(
        "edit_note",
        json!({"identifier": "food/recipe", "operation": "find_replace", "find_text": "salt", "content": "sea salt"}),
    )
    .ok();
    commits(&h, "food/recipe");
    h.call(
        "move_note",
        json!({"identifier": "food/recipe", "destination_path": "kitchen/Recipe.md"}),
    )
    .ok();

    let history = h.json("note_history", json!({"identifier": "kitchen/recipe"}));
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
    let text = h.text("note_history", json!({"identifier": "Recipe"}));
    assert_mentions(&text, "# History of kitchen/Recipe.md");
    assert_mentions(&text, &first[..10]);

    // The last change, then between two named versions.
    let diff = h.text("note_diff", json!({"identifier": "kitchen/recipe"}));
    assert_mentions(&diff, "```diff");
    assert_mentions(&diff, "-salt");
    assert_mentions(&diff, "+sea salt");
    let between = h.json(
        "note_diff",
        json!({"identifier": "kitchen/recipe", "from": &first, "to": versions[1]["commit"]}),
    );
    assert_mentions(between["diff"].as_str().unwrap(), "+sea salt");
    std::fs::write(dir.join("kitchen/Recipe.md"), "changed by hand\n").unwrap();
    let working = h.json("note_diff", json!({"identifier": "kitchen/recipe"}));
    assert_eq!(working["to"], "working file");
    assert_mentions(working["diff"].as_str().unwrap(), "+changed by hand");

    // Restoring is a new commit; nothing is rewritten. The edit by hand, which the watcher
    // would index, is committed before the restore.
    h.sync();
    let restored = h.text(
        "restore_note",
        json!({"identifier": "kitchen/recipe", "version": &first[..8]}),
    );
    assert_mentions(&restored, "restored as of");
    let now = std::fs::read_to_string(dir.join("kitchen/Recipe.md")).unwrap();
    assert_mentions(&now, "flour\nwater\nsalt");
    assert!(!now.contains("sea salt"), "{now}");
    let log = commits(&h, "kitchen/recipe");
    assert!(log[0].starts_with("fix(mem): restore Recipe"), "{log:?}");
    assert_mentions(&log[0], &format!("restored from: {first}"));
    assert!(
        log[1].starts_with("chore(mem): sync 1 files"),
        "the edit by hand was committed before the restore: {log:?}"
    );

    // A deleted note is found by its title and brought back.
    h.call("delete_note", json!({"identifier": "kitchen/recipe"}))
        .ok();
    let gone = h.json("note_history", json!({"identifier": "Recipe"}));
    assert_eq!(gone["exists"], false, "{gone}");
    assert_eq!(gone["versions"][0]["deleted"], true);
    let before_delete = gone["versions"][1]["commit"].as_str().unwrap().to_string();
    h.call(
        "restore_note",
        json!({"identifier": "Recipe", "version": before_delete}),
    )
    .ok();
    let read = h.text("read_note", json!({"identifier": "kitchen/recipe"}));
    assert_mentions(&read, "flour");

    let refused = h.call(
        "restore_note",
        json!({"identifier": "kitchen/recipe", "version": "0000000"}),
    );
    assert!(refused.is_error(), "{}", refused.text());
    assert_mentions(&refused.text(), "no such version");
}

#[test]
fn recent_activity_names_the_commit_of_each_note() {
    let h = versioned();
    h.write("Log", "d", "one");
    h.write_with("Log", "d", "two", json!({"overwrite": true}));
    commits(&h, "d/log");
    let head = Repository::open(h.main_dir())
        .unwrap()
        .head()
        .unwrap()
        .target()
        .unwrap()
        .to_string();
    let activity = h.text("recent_activity", json!({"timeframe": "1d"}));
    assert_mentions(&activity, &format!("[commit: {}]", &head[..10]));
}

#[test]
fn a_commit_interrupted_by_a_killed_process_is_recovered_at_the_next_start() {
    let h = versioned();
    let dir = h.main_dir();
    // What `kill -9` in the middle of a commit leaves: gitmem's marker naming the dead
    // process, and libgit2's lock on the index.
    std::fs::write(dir.join(".git/gitmem.lock"), "999999").unwrap();
    std::fs::write(dir.join(".git/index.lock"), "").unwrap();
    let h = h.reopen();
    h.write("After", "d", "x");
    let head = &commits(&h, "d/after")[0];
    assert!(head.starts_with("feat(mem): add After"), "{head}");
    assert!(!dir.join(".git/index.lock").exists());

    // A lock without gitmem's marker is someone else's (the user's own git) and stays.
    std::fs::write(dir.join(".git/index.lock"), "").unwrap();
    let _h = h.reopen();
    assert!(dir.join(".git/index.lock").exists());
    std::fs::remove_file(dir.join(".git/index.lock")).unwrap();
    fsck(&dir);
}
