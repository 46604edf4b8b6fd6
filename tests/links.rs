//! Linked folders: an Obsidian vault bound to a project, over the CLI and MCP.

mod common;

use std::fs;
use std::time::Duration;

use common::eventually;
use common::mcp::Mcp;
use common::*;
use serde_json::json;

/// A home directory with a generated vault plus Obsidian extras, and a data root.
struct Fixture {
    _dir: tempfile::TempDir,
    home: std::path::PathBuf,
    root: std::path::PathBuf,
    vault: std::path::PathBuf,
    /// Files a link of the vault indexes: the generated ones plus the three added here.
    files: usize,
}

fn fixture(notes: usize) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let vault = home.join("Vault");
    let generated = make_vault(&vault, notes);
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
    let root = dir.path().join("root");
    Fixture {
        home: home.clone(),
        root,
        vault,
        files: generated.files() + 3,
        _dir: dir,
    }
}

impl Fixture {
    fn run(&self, args: &[&str]) -> Run {
        gitmem_home(&self.root, &self.home, args)
    }

    fn link(&self) -> serde_json::Value {
        self.run(&[
            "link-folder",
            "--project",
            "main",
            "--path",
            self.vault.to_str().unwrap(),
            "--json",
        ])
        .ok()
        .json()
    }

    fn rescan(&self) -> serde_json::Value {
        self.run(&["rescan-links", "--project", "main", "--json"])
            .ok()
            .json()["reports"][0]
            .clone()
    }

    fn search(&self, query: &str) -> serde_json::Value {
        self.run(&["search", query, "--json", "--page-size", "50"])
            .ok()
            .json()
    }
}

#[test]
fn link_scan_rescan_and_unlink_without_touching_the_vault() {
    let f = fixture(60);
    let before = snapshot(&f.vault);
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
    let registry: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(f.root.join("meta/main/links.json")).unwrap())
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
    assert_eq!(
        (
            quiet["created"].as_u64(),
            quiet["updated"].as_u64(),
            quiet["deleted"].as_u64(),
            quiet["moved"].as_u64()
        ),
        (Some(0), Some(0), Some(0), Some(0))
    );
    for key in [
        "project",
        "linkId",
        "path",
        "displayPath",
        "include",
        "exclude",
        "scanned",
        "created",
        "updated",
        "deleted",
        "moved",
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
    assert_eq!(
        (
            report["created"].as_u64(),
            report["updated"].as_u64(),
            report["deleted"].as_u64()
        ),
        (Some(1), Some(1), Some(1)),
        "{report}"
    );
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
    let now = snapshot(&f.vault);
    for (path, bytes) in &expected {
        let relocated = if path.starts_with(f.vault.join("journal")) {
            f.vault
                .join("diary")
                .join(path.strip_prefix(f.vault.join("journal")).unwrap())
        } else {
            path.clone()
        };
        assert_eq!(
            now.get(&relocated),
            Some(bytes),
            "{} is byte-identical",
            relocated.display()
        );
    }

    // Unlink: notes leave the index, files stay; relinking gives the same id and schedule.
    let unlinked = f
        .run(&["unlink-folder", "--project", "main", "--json"])
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
    let listed = f.run(&["list-links", "--json"]).ok().json();
    assert_eq!(listed["links"].as_array().unwrap().len(), 1);
    assert_eq!(
        listed["links"][0]["lastChanges"]["created"], f.files,
        "{listed}"
    );
    let human = f.run(&["list-links"]).ok().stdout;
    assert!(
        human.contains(&format!(
            "last changes: {} created, 0 updated, 0 deleted, 0 moved",
            f.files
        )),
        "{human}"
    );
    assert!(
        human.contains(&format!("files: {}", f.files)) && human.contains("[idle]"),
        "{human}"
    );
}

#[test]
fn refusals_are_clear_and_write_nothing() {
    let f = fixture(3);
    f.link();
    let outside = tempfile::tempdir().unwrap();
    fs::create_dir_all(f.home.join("Other/Inner")).unwrap();
    fs::write(f.home.join("file.txt"), "x").unwrap();
    let main = f.root.join("projects/main");
    let cases: Vec<(String, &str)> = vec![
        (
            outside.path().display().to_string(),
            "outside your home directory",
        ),
        (
            f.home.join("missing").display().to_string(),
            "No such file or directory",
        ),
        (
            f.home.join("file.txt").display().to_string(),
            "not a directory",
        ),
        (f.vault.join("notes").display().to_string(), "overlaps"),
        (f.home.display().to_string(), "overlaps"),
    ];
    let registry_before = fs::read_to_string(f.root.join("meta/main/links.json")).unwrap();
    for (path, message) in &cases {
        let run = f.run(&["link-folder", "--project", "main", "--path", path]);
        assert_eq!(run.code, 1, "{path}");
        assert!(run.stderr.contains(message), "{path}: {}", run.stderr);
    }
    // A link inside or around a project directory (the root is under HOME here).
    let root_in_home = f.home.join("data");
    let home_root = |args: &[&str]| gitmem_home(&root_in_home, &f.home, args);
    home_root(&["project", "list"]).ok();
    for (path, message) in [
        (
            root_in_home.join("projects/main").display().to_string(),
            "overlaps gitmem's data root",
        ),
        (
            root_in_home.display().to_string(),
            "overlaps gitmem's data root",
        ),
    ] {
        let run = home_root(&["link-folder", "--project", "main", "--path", &path]);
        assert_eq!(run.code, 1);
        assert!(run.stderr.contains(message), "{path}: {}", run.stderr);
    }
    let elsewhere = f.home.join("Elsewhere");
    fs::create_dir_all(elsewhere.join("sub")).unwrap();
    home_root(&[
        "project",
        "add",
        "side",
        elsewhere.join("sub").to_str().unwrap(),
    ])
    .ok();
    let run = home_root(&[
        "link-folder",
        "--project",
        "main",
        "--path",
        elsewhere.to_str().unwrap(),
    ]);
    assert!(
        run.code == 1 && run.stderr.contains("inside or around project 'side'"),
        "{}",
        run.stderr
    );
    assert_eq!(
        fs::read_to_string(f.root.join("meta/main/links.json")).unwrap(),
        registry_before,
        "refusals change nothing"
    );
    assert!(!main.join("Vault").exists(), "the mount is virtual");
    let bad = f.run(&[
        "link-folder",
        "--project",
        "main",
        "--path",
        f.home.join("Other").to_str().unwrap(),
        "--watch-mode",
        "sometimes",
    ]);
    assert_eq!(bad.code, 2, "clap refuses a bad watch mode");
}

#[test]
fn a_vanished_vault_errors_without_losing_notes_and_recovers() {
    let f = fixture(5);
    f.link();
    let notes_before = f.search("platypus")["total"].clone();
    let away = f.home.join("Away");
    fs::rename(&f.vault, &away).unwrap();
    let failed = f.run(&["rescan-links", "--project", "main", "--json"]);
    assert_eq!(failed.code, 1);
    assert!(failed.json()["reports"][0]["lastError"]
        .as_str()
        .unwrap()
        .contains("cannot read"));
    f.run(&["rescan-links", "--project", "main"]);
    let links = f.run(&["list-links", "--json"]).ok().json();
    assert_eq!(links["links"][0]["status"], "error", "{links}");
    assert_eq!(
        f.search("platypus")["total"],
        notes_before,
        "an unreadable vault deletes nothing"
    );
    fs::rename(&away, &f.vault).unwrap();
    let ok = f.rescan();
    assert!(ok["lastError"].is_null());
    let links = f.run(&["list-links", "--json"]).ok().json();
    assert_eq!(links["links"][0]["status"], "idle");
    assert!(links["links"][0]["lastError"].is_null());
}

#[test]
fn over_mcp_linked_notes_are_searched_read_walked_and_edited_in_place() {
    let f = fixture(20);
    let mut mcp = Mcp::start_env(&f.root, &["--dotted-names"], &[("HOME", f.home.as_path())]);
    let caps = &mcp.initialize["capabilities"]["experimental"]["gitmem"]["storage"]["local"];
    assert_eq!(caps["enabled"], true);
    assert_eq!(caps["linked_folders"], true);
    for key in [
        "link_folder",
        "unlink_folder",
        "list_links",
        "sync_external",
        "watch_modes",
        "metadata",
    ] {
        assert!(caps["supports"].get(key).is_some(), "{key}");
    }
    let tools = mcp.request("tools/list", json!({}));
    let names: Vec<&str> = tools["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    for name in [
        "link_folder",
        "unlink_folder",
        "list_links",
        "sync",
        "project.link_folder",
        "memory.sync",
    ] {
        assert!(names.contains(&name), "{name} in {names:?}");
    }

    let link = mcp
        .call("link_folder", json!({"path": f.vault, "pollIntervalMs": 300, "jitterPct": 10, "exclude": ["archive/**"]}))
        .ok()
        .json();
    assert_eq!(link["watch"]["pollIntervalMs"], 300);
    let listed = mcp.call("project.list_links", json!({})).ok().json();
    assert_eq!(listed["links"][0]["linkId"], link["linkId"]);

    // Linked notes in search, read_note, build_context, list_directory, read_content.
    let hit = mcp
        .call(
            "search_notes",
            json!({"query": "platypus", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(hit["results"][0]["permalink"], "main/vault/aliased");
    let read = mcp
        .call(
            "read_note",
            json!({"identifier": "main/vault/aliased", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(read["frontmatter"]["aliases"], json!(["Other Name"]));
    let ctx = mcp
        .call("build_context", json!({"url": "memory://vault/linker"}))
        .ok()
        .json();
    let related: Vec<&str> = ctx["results"][0]["related_results"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|r| r["permalink"].as_str())
        .collect();
    assert!(
        related.contains(&"main/vault/aliased"),
        "the alias resolved the link: {related:?}"
    );
    let listing = mcp.text("list_directory", json!({"dir_name": "Vault/attachments"}));
    assert!(listing.contains("diagram.png"), "{listing}");
    let image = mcp
        .call(
            "read_content",
            json!({"path": "Vault/attachments/diagram.png"}),
        )
        .ok()
        .json();
    assert_eq!(image["type"], "image");
    let tagged = mcp
        .call(
            "search_notes",
            json!({"tags": ["linked"], "query": "platypus", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(tagged["total"], 1, "linked notes are tagged `linked`");

    // Edits write back into the vault file, changing only what they change.
    let original = fs::read_to_string(f.vault.join("Aliased.md")).unwrap();
    mcp.text("edit_note", json!({"identifier": "main/vault/aliased", "operation": "append", "content": "- [fact] added by an agent"}));
    let edited = fs::read_to_string(f.vault.join("Aliased.md")).unwrap();
    assert_eq!(edited, format!("{original}- [fact] added by an agent"));
    mcp.text("edit_note", json!({"identifier": "main/vault/aliased", "operation": "append", "content": "", "metadata": {"status": "reviewed"}}));
    let with_meta = fs::read_to_string(f.vault.join("Aliased.md")).unwrap();
    assert_eq!(
        with_meta,
        edited.replace(
            "aliases: [Other Name]\n",
            "aliases: [Other Name]\nstatus: reviewed\n"
        )
    );
    let moved = mcp.text(
        "move_note",
        json!({"identifier": "main/vault/aliased", "destination_path": "Vault/moved/Aliased.md"}),
    );
    assert!(moved.starts_with("✅"), "{moved}");
    assert!(f.vault.join("moved/Aliased.md").exists());

    // A change on disk shows up after the next poll; `sync` rescans on demand.
    fs::write(f.vault.join("Polled.md"), "# Polled\n\nquoll\n").unwrap();
    assert!(eventually(Duration::from_secs(60), || mcp
        .call(
            "search_notes",
            json!({"query": "quoll", "output_format": "json"})
        )
        .json()["total"]
        == 1));
    let synced = mcp
        .call(
            "memory.sync",
            json!({"direction": "external", "project": "main"}),
        )
        .ok()
        .json();
    assert_eq!(synced["reports"][0]["linkId"], link["linkId"]);
    let bad = mcp.call("sync", json!({"direction": "sideways"}));
    assert!(bad.is_error);
    let refused = mcp.call("link_folder", json!({"path": "/definitely/not/there"}));
    assert!(
        refused.is_error && refused.text.contains("cannot link"),
        "{}",
        refused.text
    );
    let unlinked = mcp
        .call("unlink_folder", json!({"project": "main"}))
        .ok()
        .json();
    assert_eq!(unlinked["unlinked"][0]["linkId"], link["linkId"]);
    assert_eq!(
        mcp.call(
            "search_notes",
            json!({"query": "quoll", "output_format": "json"})
        )
        .json()["total"],
        0
    );
}

#[test]
fn two_links_in_two_projects() {
    let f = fixture(4);
    let second = f.home.join("Second");
    fs::create_dir_all(&second).unwrap();
    fs::write(second.join("Only Here.md"), "# Only Here\n\nbilby\n").unwrap();
    f.run(&[
        "project",
        "add",
        "work",
        f.root.join("work").to_str().unwrap(),
    ])
    .ok();
    f.link();
    let other = f
        .run(&[
            "link-folder",
            "--project",
            "work",
            "--path",
            second.to_str().unwrap(),
            "--mount",
            "Notes",
            "--json",
        ])
        .ok()
        .json();
    assert_eq!(other["mount"], "Notes");
    let in_work = f
        .run(&["search", "bilby", "--project", "work", "--json"])
        .ok()
        .json();
    assert_eq!(in_work["results"][0]["permalink"], "work/notes/only-here");
    assert_eq!(
        f.search("bilby")["total"],
        0,
        "main does not see work's link"
    );
    let all = f.run(&["list-links", "--json"]).ok().json();
    assert_eq!(all["links"].as_array().unwrap().len(), 2);
    let only_work = f
        .run(&["list-links", "--project", "work", "--json"])
        .ok()
        .json();
    assert_eq!(only_work["links"].as_array().unwrap().len(), 1);
    let overlap = f.run(&[
        "link-folder",
        "--project",
        "work",
        "--path",
        f.vault.to_str().unwrap(),
    ]);
    assert!(
        overlap.code == 1 && overlap.stderr.contains("already linked to project 'main'"),
        "{}",
        overlap.stderr
    );
    let reindex = f.run(&["reindex"]).ok();
    assert!(
        reindex.stdout.contains("main: indexed"),
        "{}",
        reindex.stdout
    );
    assert_eq!(
        f.run(&["search", "bilby", "--project", "work", "--json"])
            .ok()
            .json()["total"],
        1,
        "reindex keeps linked notes"
    );
}

#[test]
fn a_native_link_follows_file_events() {
    let f = fixture(3);
    let mut mcp = Mcp::start_env(&f.root, &[], &[("HOME", f.home.as_path())]);
    let link = mcp
        .call(
            "link_folder",
            json!({"path": f.vault, "watchMode": "native", "pollIntervalMs": 600000}),
        )
        .ok()
        .json();
    assert_eq!(link["watch"]["mode"], "native");
    fs::write(f.vault.join("Evented.md"), "# Evented\n\ndibbler\n").unwrap();
    assert!(
        eventually(Duration::from_secs(60), || mcp
            .call(
                "search_notes",
                json!({"query": "dibbler", "output_format": "json"})
            )
            .json()["total"]
            == 1),
        "a file event triggers a rescan long before the 10-minute poll"
    );
}
