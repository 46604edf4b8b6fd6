//! Linked folders at the shell and in a running server: what the link commands print and how
//! they exit, refusals (a link must stay under the home directory), a server that polls a link
//! or follows its file events, and the capability it announces. The workflows themselves are
//! tested in process, in `tests/tools/links.rs`.

use std::fs;

use crate::common::mcp::Mcp;
use crate::common::*;
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
fn link_commands_print_what_they_did_and_a_failed_scan_exits_1() {
    let f = fixture(5);
    let link = f.link();
    assert!(link["linkId"].as_str().unwrap().starts_with("lf_"));
    assert_eq!(link["fileCount"], f.files, "{link}");
    assert_eq!(
        f.search("platypus")["results"][0]["file_path"],
        "Vault/Aliased.md"
    );
    fs::write(f.vault.join("New Idea.md"), "# New Idea\n\nwallaby\n").unwrap();
    assert_eq!(f.rescan()["created"], 1);
    let human = f.run(&["list-links"]).ok().stdout;
    for line in [
        "last changes: 1 created, 0 updated, 0 deleted, 0 moved".to_string(),
        format!("files: {}", f.files + 1),
        "[idle]".to_string(),
    ] {
        assert_mentions(&human, &line);
    }
    let listed = f.run(&["list-links", "--json"]).ok().json();
    assert_eq!(listed["links"][0]["linkId"], link["linkId"]);
    let reindex = f.run(&["reindex"]).ok();
    assert_mentions(&reindex.stdout, "main: indexed");
    assert_eq!(
        f.search("wallaby")["total"],
        1,
        "reindex keeps linked notes"
    );

    let away = f.home.join("Away");
    fs::rename(&f.vault, &away).unwrap();
    let failed = f.run(&["rescan-links", "--project", "main", "--json"]);
    assert_eq!(failed.code, 1);
    assert_mentions(
        failed.json()["reports"][0]["lastError"].as_str().unwrap(),
        "cannot read",
    );
    fs::rename(&away, &f.vault).unwrap();
    let unlinked = f
        .run(&["unlink-folder", "--project", "main", "--json"])
        .ok()
        .json();
    assert_eq!(unlinked["unlinked"][0]["linkId"], link["linkId"]);
    assert_eq!(f.search("wallaby")["total"], 0);
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
fn a_server_announces_linked_folders_and_polls_them() {
    let f = fixture(3);
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
        .call(
            "link_folder",
            json!({"path": f.vault, "pollIntervalMs": 300, "jitterPct": 10}),
        )
        .ok()
        .json();
    assert_eq!(link["watch"]["pollIntervalMs"], 300);
    // A change on disk shows up after the next poll.
    fs::write(f.vault.join("Polled.md"), "# Polled\n\nquoll\n").unwrap();
    let found = |mcp: &mut Mcp| {
        mcp.call(
            "search_notes",
            json!({"query": "quoll", "output_format": "json"}),
        )
        .json()["total"]
            .clone()
    };
    assert!(
        eventually(SLOW, || found(&mut mcp) == 1),
        "the poll never picked up the new file; the server logged:\n{}",
        mcp.log()
    );
    let unlinked = mcp
        .call("unlink_folder", json!({"project": "main"}))
        .ok()
        .json();
    assert_eq!(unlinked["unlinked"][0]["linkId"], link["linkId"]);
    assert_eq!(found(&mut mcp), 0);
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
        eventually(SLOW, || mcp
            .call(
                "search_notes",
                json!({"query": "dibbler", "output_format": "json"})
            )
            .json()["total"]
            == 1),
        "a file event triggers a rescan long before the 10-minute poll"
    );
}
