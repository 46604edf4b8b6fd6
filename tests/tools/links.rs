//! Linked folders in process: link_folder, list_links, sync and unlink_folder, by their plain and
//! dotted names, on an Obsidian vault: scans and rescans that never write to it, renames that
//! keep ids, a vault that vanishes, two links in two projects, and linked notes read, walked
//! and edited in place. Polling, native file events and refusals outside the home directory
//! need a running server or process: see `tests/links.rs`.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::{json, Value};
use tempfile::TempDir;
use vault::generate::{generate, VaultSpec, DEFAULT_SEED};

use crate::common;
use crate::common::assert_mentions;
use crate::{Harness, ReplyExt};

/// A root with a small Obsidian vault beside it.
struct Linked {
    h: Harness,
    vault: PathBuf,
    _dir: TempDir,
}

/// A data root in `dir` that may link folders outside the home directory: links are confined
/// to it unless the config says otherwise, and a test cannot move HOME for the whole process.
fn root_allowing_links(dir: &Path) -> PathBuf {
    let root = dir.join("root");
    fs::create_dir_all(&root).unwrap();
    fs::write(
        root.join("config.toml"),
        "[storage.local]\nallow_outside_home = true\n",
    )
    .unwrap();
    root
}

fn linked() -> Linked {
    let dir = tempfile::tempdir().unwrap();
    let root = root_allowing_links(dir.path());
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

/// A generated vault of `notes` notes plus Obsidian's extras (ignored) and three files of its
/// own (linked), beside a data root.
struct Obsidian {
    h: Harness,
    vault: PathBuf,
    /// Files a link of the vault indexes: the generated ones plus the three added here.
    files: usize,
    dir: TempDir,
}

fn obsidian(notes: usize) -> Obsidian {
    let dir = tempfile::tempdir().unwrap();
    let root = root_allowing_links(dir.path());
    let vault = dir.path().join("Vault");
    let spec = VaultSpec {
        notes,
        seed: DEFAULT_SEED,
    };
    let generated = generate(&vault, spec).unwrap();
    fs::create_dir_all(vault.join(".obsidian")).unwrap();
    fs::write(vault.join(".obsidian/workspace.json"), "{\"main\": {}}").unwrap();
    fs::create_dir_all(vault.join(".trash")).unwrap();
    fs::write(vault.join(".trash/deleted.md"), "# Deleted\n\nkangaroo\n").unwrap();
    fs::create_dir_all(vault.join("attachments")).unwrap();
    image::RgbImage::new(40, 30)
        .save(vault.join("attachments/diagram.png"))
        .unwrap();
    fs::write(vault.join("draft.md.tmp"), "temp").unwrap();
    fs::write(
        vault.join("Aliased.md"),
        "---\ntitle: Aliased Note\naliases: [Other Name]\n---\n# Aliased Note\n\nplatypus facts\n",
    )
    .unwrap();
    fs::write(
        vault.join("Linker.md"),
        "# Linker\n\n- relates_to [[Other Name]]\n![[diagram.png]]\n",
    )
    .unwrap();
    Obsidian {
        h: Harness::open(&root).serving_tools("basic"),
        vault,
        files: generated.files() + 3,
        dir,
    }
}

impl Obsidian {
    fn link(&self) -> Value {
        self.h
            .call("link_folder", json!({"path": self.vault}))
            .ok()
            .json()
    }

    /// A rescan of the links of `main`: its one report.
    fn rescan(&self) -> Value {
        self.sync()["reports"][0].clone()
    }

    fn sync(&self) -> Value {
        self.h
            .call("sync", json!({"direction": "external", "project": "main"}))
            .ok()
            .json()
    }

    fn search(&self, query: &str) -> Value {
        self.h
            .json("search_notes", json!({"query": query, "page_size": 50}))
    }
}

#[test]
fn a_vault_is_linked_rescanned_and_unlinked_without_being_written() {
    let f = obsidian(60);
    let before = common::snapshot(&f.vault);
    let link = f.link();
    for key in [
        "project",
        "path",
        "displayPath",
        "resolvedPath",
        "linkId",
        "include",
        "exclude",
        "createdAt",
        "lastScan",
        "lastError",
        "fileCount",
        "totalBytes",
        "lastRuntimeMs",
        "status",
    ] {
        assert!(link.get(key).is_some(), "link metadata has {key}: {link}");
    }
    for key in [
        "mode",
        "pollIntervalMs",
        "jitterPct",
        "effectivePollIntervalMs",
        "platform",
    ] {
        assert!(link["watch"].get(key).is_some(), "watch has {key}");
    }
    assert!(link["linkId"].as_str().unwrap().starts_with("lf_"));
    assert_eq!(link["status"], "idle");
    // The generated files, Aliased.md, Linker.md, the image; not .obsidian, .trash or *.tmp.
    assert_eq!(link["fileCount"], f.files, "{link}");
    assert_eq!(link["report"]["created"], f.files);
    let registry: Value =
        serde_json::from_str(&fs::read_to_string(f.h.root().join("meta/main/links.json")).unwrap())
            .unwrap();
    assert_eq!(
        registry["links"][0]["mappings"].as_object().unwrap().len(),
        f.files
    );

    let hits = f.search("platypus");
    assert_eq!(hits["results"][0]["permalink"], "main/vault/aliased");
    assert_eq!(hits["results"][0]["file_path"], "Vault/Aliased.md");
    assert_eq!(f.search("kangaroo")["total"], 0, ".trash is ignored");

    // An unchanged rescan reads nothing.
    let quiet = f.rescan();
    for key in ["created", "updated", "deleted", "moved"] {
        assert_eq!(quiet[key], 0, "{key}: {quiet}");
    }
    for key in [
        "project",
        "linkId",
        "path",
        "displayPath",
        "include",
        "exclude",
        "scanned",
        "totalBytes",
        "runtimeMs",
        "lastError",
    ] {
        assert!(quiet.get(key).is_some(), "report has {key}: {quiet}");
    }

    // Create, edit, delete, rename a file and a folder.
    fs::write(f.vault.join("New Idea.md"), "# New Idea\n\nwallaby\n").unwrap();
    fs::write(f.vault.join("Aliased.md"), "---\ntitle: Aliased Note\naliases: [Other Name]\n---\n# Aliased Note\n\nplatypus and echidna facts\n").unwrap();
    fs::remove_file(f.vault.join("Linker.md")).unwrap();
    assert_eq!(f.search("echidna")["total"], 0, "not rescanned yet");
    let report = f.rescan();
    let counts = |r: &Value| {
        [
            r["created"].clone(),
            r["updated"].clone(),
            r["deleted"].clone(),
        ]
    };
    assert_eq!(counts(&report), [json!(1), json!(1), json!(1)], "{report}");
    let aliased = f.search("echidna")["results"][0].clone();
    fs::create_dir_all(f.vault.join("moved")).unwrap();
    fs::rename(f.vault.join("Aliased.md"), f.vault.join("moved/Renamed.md")).unwrap();
    fs::rename(f.vault.join("journal"), f.vault.join("diary")).unwrap();
    let report = f.rescan();
    assert!(
        report["moved"].as_u64().unwrap() >= 2,
        "a rename is a move: {report}"
    );
    assert_eq!(report["created"], 0);
    assert_eq!(report["deleted"], 0);
    let after = f.search("echidna")["results"][0].clone();
    assert_eq!(after["external_id"], aliased["external_id"]);
    assert_eq!(
        after["permalink"], aliased["permalink"],
        "a moved note keeps its permalink"
    );
    assert_eq!(after["file_path"], "Vault/moved/Renamed.md");

    // The vault's files were never written by gitmem (only by this test).
    let mut expected = before.clone();
    expected.remove(&f.vault.join("Linker.md"));
    expected.remove(&f.vault.join("Aliased.md"));
    let now = common::snapshot(&f.vault);
    for (path, bytes) in &expected {
        let relocated = match path.strip_prefix(f.vault.join("journal")) {
            Ok(inside) => f.vault.join("diary").join(inside),
            Err(_) => path.clone(),
        };
        assert_eq!(
            now.get(&relocated),
            Some(bytes),
            "{} is byte-identical",
            relocated.display()
        );
    }

    // Unlink: notes leave the index, files stay; relinking gives the same id and schedule.
    let unlinked =
        f.h.call("unlink_folder", json!({"project": "main"}))
            .ok()
            .json();
    assert_eq!(unlinked["unlinked"][0]["linkId"], link["linkId"]);
    assert_eq!(f.search("wallaby")["total"], 0);
    assert!(f.vault.join("New Idea.md").exists());
    let relinked = f.link();
    assert_eq!(relinked["linkId"], link["linkId"]);
    assert_eq!(
        relinked["watch"]["effectivePollIntervalMs"],
        link["watch"]["effectivePollIntervalMs"]
    );
    assert_eq!(f.search("wallaby")["total"], 1);
    let listed = f.h.call("list_links", json!({})).ok().json();
    assert_eq!(listed["links"].as_array().unwrap().len(), 1);
    assert_eq!(
        listed["links"][0]["lastChanges"]["created"], f.files,
        "{listed}"
    );
}

#[test]
fn a_vanished_vault_is_an_error_that_loses_no_note_and_recovers() {
    let f = obsidian(5);
    f.link();
    let notes_before = f.search("platypus")["total"].clone();
    let away = f.dir.path().join("Away");
    fs::rename(&f.vault, &away).unwrap();
    let failed = f.rescan();
    assert_mentions(failed["lastError"].as_str().unwrap(), "cannot read");
    f.rescan();
    let links = f.h.call("list_links", json!({})).ok().json();
    assert_eq!(links["links"][0]["status"], "error", "{links}");
    assert_eq!(
        f.search("platypus")["total"],
        notes_before,
        "an unreadable vault deletes nothing"
    );
    fs::rename(&away, &f.vault).unwrap();
    assert!(f.rescan()["lastError"].is_null());
    let links = f.h.call("list_links", json!({})).ok().json();
    assert_eq!(links["links"][0]["status"], "idle");
    assert!(links["links"][0]["lastError"].is_null());
}

#[test]
fn two_links_in_two_projects_are_apart_and_survive_a_reindex() {
    let f = obsidian(4);
    let second = f.dir.path().join("Second");
    fs::create_dir_all(&second).unwrap();
    fs::write(second.join("Only Here.md"), "# Only Here\n\nbilby\n").unwrap();
    f.h.app()
        .add_project("work", &f.h.root().join("work"), false)
        .unwrap();
    f.link();
    let other =
        f.h.call(
            "link_folder",
            json!({"path": second, "project": "work", "mount": "Notes"}),
        )
        .ok()
        .json();
    assert_eq!(other["mount"], "Notes");
    let in_work =
        |h: &Harness| h.json("search_notes", json!({"query": "bilby", "project": "work"}));
    assert_eq!(
        in_work(&f.h)["results"][0]["permalink"],
        "work/notes/only-here"
    );
    assert_eq!(
        f.search("bilby")["total"],
        0,
        "main does not see work's link"
    );
    let all = f.h.call("list_links", json!({})).ok().json();
    assert_eq!(all["links"].as_array().unwrap().len(), 2);
    let only_work =
        f.h.call("list_links", json!({"project": "work"}))
            .ok()
            .json();
    assert_eq!(only_work["links"].as_array().unwrap().len(), 1);
    let overlap =
        f.h.call("link_folder", json!({"path": f.vault, "project": "work"}));
    assert!(overlap.is_error(), "{}", overlap.text());
    assert_mentions(&overlap.text(), "already linked to project 'main'");
    for project in f.h.app().projects(None).unwrap() {
        f.h.app().rebuild_project(&project, &|_| {}).unwrap();
    }
    assert_eq!(in_work(&f.h)["total"], 1, "a reindex keeps linked notes");
}

#[test]
fn linked_notes_are_searched_read_walked_and_edited_in_place() {
    let f = obsidian(20);
    f.link();
    let read = f.h.json(
        "read_note",
        json!({"identifier": "main/vault/aliased", "output_format": "json"}),
    );
    assert_eq!(read["frontmatter"]["aliases"], json!(["Other Name"]));
    let context =
        f.h.call("build_context", json!({"url": "memory://vault/linker"}))
            .ok()
            .json();
    let related: Vec<&str> = context["results"][0]["related_results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["permalink"].as_str())
        .collect();
    assert!(
        related.contains(&"main/vault/aliased"),
        "the alias resolved the link: {related:?}"
    );
    let listing =
        f.h.text("list_directory", json!({"dir_name": "Vault/attachments"}));
    assert_mentions(&listing, "diagram.png");
    let image =
        f.h.call(
            "read_content",
            json!({"path": "Vault/attachments/diagram.png"}),
        )
        .ok()
        .json();
    assert_eq!(image["type"], "image");
    let tagged = f.h.json(
        "search_notes",
        json!({"tags": ["linked"], "query": "platypus"}),
    );
    assert_eq!(tagged["total"], 1, "linked notes are tagged `linked`");

    // Edits write back into the vault file, changing only what they change.
    let original = fs::read_to_string(f.vault.join("Aliased.md")).unwrap();
    f.h.text("edit_note", json!({"identifier": "main/vault/aliased", "operation": "append", "content": "- [fact] added by an agent"}));
    let edited = fs::read_to_string(f.vault.join("Aliased.md")).unwrap();
    assert_eq!(edited, format!("{original}- [fact] added by an agent"));
    f.h.text("edit_note", json!({"identifier": "main/vault/aliased", "operation": "append", "content": "", "metadata": {"status": "reviewed"}}));
    let with_meta = fs::read_to_string(f.vault.join("Aliased.md")).unwrap();
    assert_eq!(
        with_meta,
        edited.replace(
            "aliases: [Other Name]\n",
            "aliases: [Other Name]\nstatus: reviewed\n"
        )
    );
    let moved = f.h.text(
        "move_note",
        json!({"identifier": "main/vault/aliased", "destination_path": "Vault/moved/Aliased.md"}),
    );
    assert!(moved.starts_with("✅"), "{moved}");
    assert!(f.vault.join("moved/Aliased.md").exists());
}
