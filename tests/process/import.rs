//! Imports at the shell, as a user coming from elsewhere runs them: what `gitmem import` and
//! `project import-basic-memory` print and how they exit, the progress bar on a terminal, and
//! Basic Memory's configuration found from the environment. What an import writes is tested
//! in process, in `tests/tools/import.rs`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common::*;
use serde_json::{json, Value};

fn fixture(name: &str) -> PathBuf {
    crate::common::workspace_root()
        .join("tests/fixtures/import")
        .join(name)
}

fn import(root: &Path, args: &[&str]) -> Run {
    let mut all = vec!["import"];
    all.extend_from_slice(args);
    gitmem(root, &all)
}

#[test]
fn import_prints_its_report_and_exits_1_on_a_bad_export_and_2_on_an_unknown_format() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let file = fixture("memories.jsonl");
    let file = file.to_str().unwrap();
    let planned = import(r, &["jsonl", file, "--dry-run"]).ok();
    assert_mentions(&planned.stdout, "(dry run: nothing written)");
    assert_mentions(&planned.stdout, "5 notes would be created");
    let done = import(r, &["jsonl", file]).ok();
    assert_mentions(&done.stdout, "Import from jsonl into project 'main'");
    assert_mentions(&done.stdout, "read: 6 memories");
    assert_mentions(
        &done.stdout,
        "5 notes created, 0 overwritten, 0 skipped, 1 deduplicated",
    );
    let again = import(r, &["jsonl", file, "--json"]).ok().json();
    assert_eq!(again["deduplicated"], 6, "{again}");

    let bad = import(
        r,
        &["jsonl", fixture("bad-memories.jsonl").to_str().unwrap()],
    );
    assert_eq!(bad.code, 1, "{}", bad.stdout);
    assert_mentions(&bad.stderr, "line 2: content is missing");
    let unknown = import(r, &["evernote", file]);
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert_mentions(&unknown.stderr, "memory-json");
}

#[test]
fn a_progress_bar_shows_on_a_terminal_and_nowhere_else() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    let file = fixture("memories.jsonl");
    // util-linux's `script` gives the command a pseudo-terminal and copies what it drew.
    let command = format!(
        "'{}' --root '{}' import jsonl '{}'",
        env!("CARGO_BIN_EXE_gitmem"),
        root.display(),
        file.display()
    );
    let shown = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .env_remove("GITMEM_ROOT")
        .env("HF_HUB_OFFLINE", "1")
        .output()
        .expect("running gitmem under script");
    let drawn = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.status.success(), "{drawn}");
    assert_mentions(&drawn, "importing [");
    assert_mentions(&drawn, "5/5 notes");
    assert_mentions(&drawn, "5 notes created");

    let piped = import(root, &["jsonl", file.to_str().unwrap(), "--overwrite"]);
    assert_eq!(piped.code, 0, "{}", piped.stderr);
    assert!(
        !piped.stdout.contains("importing [") && !piped.stderr.contains("importing ["),
        "no bar when the output is not a terminal: {} {}",
        piped.stdout,
        piped.stderr
    );
}

/// `project import-basic-memory --json` into `dir/root` as a user whose home is `home`, with
/// no Basic Memory variable or XDG directory but those in `env`; its report.
fn import_basic_memory_from_home(dir: &Path, home: &Path, env: &[(&str, &Path)]) -> Value {
    let mut command = crate::common::gitmem_command();
    command
        .args(["--root", dir.join("root").to_str().unwrap()])
        .args(["project", "import-basic-memory", "--json"])
        .env("HOME", home);
    for name in [
        "GITMEM_ROOT",
        "BASIC_MEMORY_CONFIG_DIR",
        "BASIC_MEMORY_DEFAULT_PROJECT",
        "BASIC_MEMORY_HOME",
        "XDG_CONFIG_HOME",
    ] {
        command.env_remove(name);
    }
    command.envs(env.iter().copied());
    let run: Run = command.output().unwrap().into();
    run.ok().json()
}

#[test]
fn basic_memorys_config_is_found_in_the_home_directory_and_its_tilde_paths_expanded() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join(".basic-memory")).unwrap();
    std::fs::create_dir_all(home.join("notes")).unwrap();
    std::fs::write(
        home.join(".basic-memory/config.json"),
        json!({"projects": {"tilde": {"path": "~/notes"}, "relative": {"path": "rel/x"}}})
            .to_string(),
    )
    .unwrap();
    // XDG_CONFIG_HOME is set but holds no Basic Memory config: the home directory's is used.
    let xdg = dir.path().join("xdg");
    let report = import_basic_memory_from_home(dir.path(), &home, &[("XDG_CONFIG_HOME", &xdg)]);
    assert_eq!(report["projects"][0]["outcome"], "registered", "{report}");
    assert_eq!(report["projects"][1]["outcome"], "skipped");
    assert_eq!(report["projects"][1]["detail"], "not an absolute path");
}

#[test]
fn a_basic_memory_config_without_projects_means_its_default_project_directory() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let notes = dir.path().join("bm-home");
    std::fs::create_dir_all(home.join(".basic-memory")).unwrap();
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("Kept.md"), "# Kept\n").unwrap();
    std::fs::write(
        home.join(".basic-memory/config.json"),
        json!({"projects": {}, "default_project": "main"}).to_string(),
    )
    .unwrap();
    let report = import_basic_memory_from_home(dir.path(), &home, &[("BASIC_MEMORY_HOME", &notes)]);
    assert_eq!(report["projects"][0]["name"], "main", "{report}");
    assert_eq!(report["projects"][0]["path"], notes.to_str().unwrap());
    assert_eq!(report["default_project"], "main");
}

#[test]
fn basic_memorys_config_dir_is_taken_from_the_environment_and_a_second_import_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let config_dir = dir.path().join("bm-config");
    let research = dir.path().join("research");
    std::fs::create_dir_all(&config_dir).unwrap();
    std::fs::create_dir_all(&research).unwrap();
    let config = config_dir.join("config.json");
    std::fs::write(
        &config,
        json!({"projects": {"research": {"path": research, "mode": "local"}}, "default_project": "research"})
            .to_string(),
    )
    .unwrap();
    let report = import_basic_memory_from_home(
        dir.path(),
        &home,
        &[("BASIC_MEMORY_CONFIG_DIR", &config_dir)],
    );
    assert_eq!(report["projects"][0]["outcome"], "registered", "{report}");

    let root = dir.path().join("root");
    let import_config = |file: &Path| {
        gitmem(
            &root,
            &[
                "project",
                "import-basic-memory",
                "--config",
                file.to_str().unwrap(),
            ],
        )
    };
    let again = import_config(&config).ok();
    assert_mentions(&again.stdout, "research: already registered");
    let legacy = dir.path().join("old.json");
    std::fs::write(
        &legacy,
        json!({"projects": {"legacy": research}}).to_string(),
    )
    .unwrap();
    let legacy_run = import_config(&legacy).ok();
    assert_mentions(&legacy_run.stdout, "legacy: already registered (research)");
    std::fs::write(&legacy, "not json").unwrap();
    let bad = import_config(&legacy);
    assert_eq!(bad.code, 1, "{}", bad.stderr);
    assert_mentions(&bad.stderr, "is not valid JSON");
}
