//! Linked folders in process: link_folder, list_links, sync and unlink_folder, by their plain and
//! dotted names. Polling and native file events need a running server: see `tests/links.rs`.

use std::fs;
use std::path::PathBuf;

use serde_json::json;
use tempfile::TempDir;

use crate::common;
use crate::{Harness, ReplyExt};

/// A root with a small Obsidian vault beside it.
struct Linked {
    h: Harness,
    vault: PathBuf,
    _dir: TempDir,
}

fn linked() -> Linked {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir_all(&root).unwrap();
    // Links are confined to the home directory unless the config says otherwise, and a test
    // cannot move HOME for the whole process.
    fs::write(
        root.join("config.toml"),
        "[storage.local]\nallow_outside_home = true\n",
    )
    .unwrap();
    let vault = dir.path().join("Vault");
    fs::create_dir_all(vault.join(".obsidian")).unwrap();
    fs::write(vault.join(".obsidian/workspace.json"), "{}").unwrap();
    fs::write(vault.join("Wombat.md"), "# Wombat\n\nwombats dig burrows\n").unwrap();
    fs::write(
        vault.join("Linker.md"),
        "# Linker\n\n- relates_to [[Wombat]]\n",
    )
    .unwrap();
    Linked {
        h: Harness::open(&root).serving_tools("basic"),
        vault,
        _dir: dir,
    }
}

#[test]
fn a_linked_folder_is_searched_rescanned_and_unlinked_without_being_written() {
    let Linked { h, vault, _dir } = linked();
    let link = h
        .call(
            "link_folder",
            json!({"path": vault, "pollIntervalMs": 300, "jitterPct": 10, "exclude": ["archive/**"]}),
        )
        .ok()
        .json();
    assert!(
        link["linkId"].as_str().unwrap().starts_with("lf_"),
        "{link}"
    );
    assert_eq!(link["mount"], "Vault");
    assert_eq!(link["watch"]["pollIntervalMs"], 300);
    assert_eq!(link["exclude"], json!(["archive/**"]));
    assert_eq!(
        link["report"]["created"], 2,
        "the notes, not .obsidian: {link}"
    );
    let hit = h.json("search_notes", json!({"query": "burrows"}));
    assert_eq!(hit["results"][0]["permalink"], "main/vault/wombat");

    for name in ["list_links", "project.list_links"] {
        let listed = h.call(name, json!({})).ok().json();
        assert_eq!(listed["links"][0]["linkId"], link["linkId"], "{name}");
    }

    fs::write(
        vault.join("Numbat.md"),
        "# Numbat\n\nnumbats eat termites\n",
    )
    .unwrap();
    let before = common::snapshot(&vault);
    let synced = h
        .call("sync", json!({"direction": "external", "project": "main"}))
        .ok()
        .json();
    assert_eq!(synced["reports"][0]["linkId"], link["linkId"]);
    assert_eq!(synced["reports"][0]["created"], 1, "{synced}");
    assert_eq!(
        h.json("search_notes", json!({"query": "termites"}))["total"],
        1
    );
    let again = h
        .call("memory.sync", json!({"direction": "external"}))
        .ok()
        .json();
    assert_eq!(again["reports"][0]["created"], 0, "{again}");
    let sideways = h.call("sync", json!({"direction": "sideways"}));
    assert!(
        sideways.is_error()
            && sideways
                .text()
                .contains("direction 'sideways' is not supported"),
        "{}",
        sideways.text()
    );

    let unlinked = h
        .call("unlink_folder", json!({"project": "main"}))
        .ok()
        .json();
    assert_eq!(unlinked["unlinked"][0]["linkId"], link["linkId"]);
    assert_eq!(
        h.json("search_notes", json!({"query": "burrows"}))["total"],
        0
    );
    assert_eq!(
        h.call("list_links", json!({})).ok().json()["links"],
        json!([])
    );
    assert_eq!(common::snapshot(&vault), before, "the vault is only read");
}

#[test]
fn link_folder_refuses_a_missing_folder_and_negative_timings() {
    let Linked { h, vault, _dir } = linked();
    let missing = h.call("link_folder", json!({"path": "/definitely/not/there"}));
    assert!(
        missing.is_error() && missing.text().contains("cannot link"),
        "{}",
        missing.text()
    );
    let negative = h.call("link_folder", json!({"path": vault, "pollIntervalMs": -1}));
    assert!(
        negative.is_error()
            && negative
                .text()
                .contains("pollIntervalMs must not be negative"),
        "{}",
        negative.text()
    );
    assert_eq!(
        h.call("list_links", json!({})).ok().json()["links"],
        json!([])
    );
}
