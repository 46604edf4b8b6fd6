//! Imports at the shell, as a user coming from elsewhere runs them: Basic Memory's projects
//! (`project import-basic-memory`) and the exports of the official memory server, Claude and
//! ChatGPT, and gitmem memory records (`import …`), on hand-written fixtures of those formats.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use serde_json::{json, Value};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(name)
}

fn import(root: &Path, args: &[&str]) -> Run {
    let mut all = vec!["import"];
    all.extend_from_slice(args);
    gitmem(root, &all)
}

fn tool(root: &Path, name: &str, args: Value) -> Run {
    gitmem(root, &["tool", name, "--args", &args.to_string()])
}

/// A data root whose default project `vault` lives in `dir/vault`, versioned with git when
/// asked; the project's directory.
fn project(dir: &Path, git: bool) -> PathBuf {
    let vault = dir.join("vault");
    let mut args = vec![
        "project",
        "add",
        "vault",
        vault.to_str().unwrap(),
        "--default",
    ];
    if git {
        args.push("--git");
    }
    gitmem(&dir.join("root"), &args).ok();
    vault
}

fn paths(report: &Value, key: &str) -> Vec<String> {
    report[key]
        .as_array()
        .unwrap_or_else(|| panic!("no {key} in {report}"))
        .iter()
        .map(|p| p.as_str().unwrap().to_string())
        .collect()
}

struct Export {
    format: &'static str,
    fixture: &'static str,
    /// What the report says the input held.
    counts: Value,
    created: usize,
    /// Records repeating an earlier record of the same input.
    repeated: u64,
    /// A note it writes.
    note: &'static str,
}

fn exports() -> Vec<Export> {
    vec![
        Export {
            format: "memory-json",
            fixture: "memory.jsonl",
            counts: json!([["entities", 5], ["relations", 5]]),
            created: 5,
            repeated: 2,
            note: "person/Alice Smith.md",
        },
        Export {
            format: "claude",
            fixture: "claude-conversations.json",
            counts: json!([["conversations", 3], ["messages", 5]]),
            created: 3,
            repeated: 0,
            note: "conversations/20250114-Planning_the_search_rewrite.md",
        },
        Export {
            format: "claude",
            fixture: "claude-projects.json",
            counts: json!([["projects", 2], ["documents", 3]]),
            created: 4,
            repeated: 0,
            note: "projects/gitmem_launch/docs/Pricing_notes.md",
        },
        Export {
            format: "chatgpt",
            fixture: "chatgpt-conversations.json",
            counts: json!([["conversations", 2], ["messages", 6]]),
            created: 2,
            repeated: 0,
            note: "conversations/20250114-Parsing_ISO_durations.md",
        },
        Export {
            format: "jsonl",
            fixture: "memories.jsonl",
            counts: json!([["memories", 6]]),
            created: 5,
            repeated: 1,
            note: "memories/Editor theme.md",
        },
    ]
}

#[test]
fn each_export_is_planned_written_indexed_and_never_written_twice() {
    for export in exports() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let vault = project(dir.path(), false);
        let file = fixture(export.fixture);
        let file = file.to_str().unwrap();
        let case = format!("{} {}", export.format, export.fixture);

        let before = snapshot(&vault);
        let planned = import(&root, &[export.format, file, "--dry-run", "--json"])
            .ok()
            .json();
        assert_eq!(snapshot(&vault), before, "{case}: a dry run writes nothing");
        assert_eq!(planned["dry_run"], true, "{case}");

        let report = import(&root, &[export.format, file, "--json"]).ok().json();
        let created = paths(&report, "created");
        assert_eq!(created.len(), export.created, "{case}: {report}");
        assert_eq!(created, paths(&planned, "created"), "{case}");
        assert_eq!(report["deduplicated"], export.repeated, "{case}");
        assert_eq!(report["counts"], export.counts, "{case}");
        assert_eq!(report["project"], "vault", "{case}");
        for path in &created {
            assert!(vault.join(path).is_file(), "{case}: {path} was not written");
        }
        assert!(
            created.iter().any(|p| p == export.note),
            "{case}: {created:?}"
        );

        let written = snapshot(&vault);
        let again = import(&root, &[export.format, file, "--json"]).ok().json();
        assert_eq!(paths(&again, "created"), Vec::<String>::new(), "{case}");
        assert_eq!(
            again["deduplicated"],
            export.created as u64 + export.repeated,
            "{case}"
        );
        assert_eq!(
            snapshot(&vault),
            written,
            "{case}: a re-import changes nothing"
        );
    }
}

#[test]
fn basic_memory_projects_are_registered_where_they_are_with_their_permalinks() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let config_dir = dir.path().join("bm-config");
    let research = dir.path().join("research");
    let notes = dir.path().join("notes");
    std::fs::create_dir_all(&config_dir).unwrap();
    std::fs::create_dir_all(research.join("papers")).unwrap();
    std::fs::create_dir_all(&notes).unwrap();
    let paper = "---\ntitle: Attention Paper\ntype: paper\npermalink: research/papers/attention-is-all-you-need\n---\n\n# Attention Paper\n- [claim] Attention suffices\n";
    std::fs::write(research.join("papers/Attention Paper.md"), paper).unwrap();
    std::fs::write(notes.join("Groceries.md"), "# Groceries\n").unwrap();
    std::fs::write(
        config_dir.join("config.json"),
        json!({
            "env": "dev",
            "projects": {
                "research": {"path": research, "mode": "local", "workspace_id": null},
                "notes": {"path": notes, "mode": "local"},
                "cloud-only": {"path": "", "mode": "cloud"},
                "gone": {"path": dir.path().join("missing"), "mode": "local"},
            },
            "default_project": "research",
            "semantic_search_enabled": true,
            "some_future_key": {"ignored": true},
        })
        .to_string(),
    )
    .unwrap();

    let run: Run = Command::new(env!("CARGO_BIN_EXE_gitmem"))
        .args([
            "--root",
            root.to_str().unwrap(),
            "project",
            "import-basic-memory",
            "--json",
        ])
        .env_remove("GITMEM_ROOT")
        .env_remove("BASIC_MEMORY_DEFAULT_PROJECT")
        .env("BASIC_MEMORY_CONFIG_DIR", &config_dir)
        .output()
        .unwrap()
        .into();
    let report = run.ok().json();
    let outcomes: Vec<(String, String)> = report["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().into(),
                p["outcome"].as_str().unwrap().into(),
            )
        })
        .collect();
    assert_eq!(
        outcomes,
        [
            ("research".to_string(), "registered".to_string()),
            ("notes".into(), "registered".into()),
            ("cloud-only".into(), "skipped".into()),
            ("gone".into(), "skipped".into()),
        ]
    );
    assert_eq!(report["default_project"], "research");

    // The files are untouched, and the memory:// URL the user had still resolves.
    assert_eq!(
        std::fs::read_to_string(research.join("papers/Attention Paper.md")).unwrap(),
        paper
    );
    let read = tool(
        &root,
        "read_note",
        json!({"identifier": "memory://research/papers/attention-is-all-you-need"}),
    )
    .ok();
    assert!(
        read.stdout.contains("- [claim] Attention suffices"),
        "{}",
        read.stdout
    );

    // Importing again changes nothing.
    let again = gitmem(
        &root,
        &[
            "project",
            "import-basic-memory",
            "--config",
            config_dir.join("config.json").to_str().unwrap(),
        ],
    )
    .ok();
    assert!(
        again.stdout.contains("research: already registered"),
        "{}",
        again.stdout
    );

    let old_format = dir.path().join("old.json");
    std::fs::write(
        &old_format,
        json!({"projects": {"legacy": notes}}).to_string(),
    )
    .unwrap();
    let legacy = gitmem(
        &root,
        &[
            "project",
            "import-basic-memory",
            "--config",
            old_format.to_str().unwrap(),
        ],
    )
    .ok();
    assert!(
        legacy.stdout.contains("legacy: already registered (notes)"),
        "{}",
        legacy.stdout
    );

    for (content, expected) in [
        ("not json", "is not valid JSON"),
        ("{}", "has no \"projects\" object"),
    ] {
        std::fs::write(&old_format, content).unwrap();
        let bad = gitmem(
            &root,
            &[
                "project",
                "import-basic-memory",
                "--config",
                old_format.to_str().unwrap(),
            ],
        );
        assert_eq!(bad.code, 1, "{}", bad.stderr);
        assert!(bad.stderr.contains(expected), "{}", bad.stderr);
    }
}

#[test]
fn a_bad_export_is_reported_by_line_and_nothing_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let vault = project(dir.path(), false);
    std::fs::write(vault.join("Kept.md"), "# Kept\n").unwrap();
    let missing = dir.path().join("missing.json");
    let bad_projects = dir.path().join("projects.json");
    std::fs::write(
        &bad_projects,
        "[\n{\"uuid\": \"p1\", \"name\": \"Launch\", \"docs\": [{\"filename\": \"plan.md\"}]}\n]\n",
    )
    .unwrap();
    let cases = [
        (
            "memory-json",
            fixture("bad-memory.jsonl"),
            vec!["line 3: not valid JSON", "line 5: entity has no name"],
        ),
        (
            "jsonl",
            fixture("bad-memories.jsonl"),
            vec!["line 2: content is missing"],
        ),
        (
            "chatgpt",
            fixture("bad-chatgpt.json"),
            vec!["line 46: conversation 2: mapping is not an object"],
        ),
        (
            "claude",
            fixture("memory.jsonl"),
            vec!["line 2: not valid JSON"],
        ),
        ("jsonl", missing, vec!["cannot read", "missing.json"]),
        (
            "claude",
            bad_projects,
            vec!["line 2: project 1: document 1: content is missing"],
        ),
    ];
    let before = snapshot(&vault);
    for (format, file, expected) in cases {
        let run = import(&root, &[format, file.to_str().unwrap()]);
        assert_eq!(run.code, 1, "{format} {}: {}", file.display(), run.stdout);
        for needle in expected {
            assert_mentions(&run.stderr, needle);
        }
        assert_eq!(snapshot(&vault), before, "{format} {}", file.display());
    }
    let good = fixture("memories.jsonl");
    for (folder, expected) in [
        ("../outside", "is not a folder inside the project"),
        ("notes/.hidden", "is hidden"),
    ] {
        let run = import(
            &root,
            &["jsonl", good.to_str().unwrap(), "--folder", folder],
        );
        assert_eq!(run.code, 1, "--folder {folder}: {}", run.stdout);
        assert_mentions(&run.stderr, expected);
        assert_eq!(snapshot(&vault), before, "--folder {folder}");
    }
    let unknown = import(
        &root,
        &["evernote", fixture("memory.jsonl").to_str().unwrap()],
    );
    assert_eq!(unknown.code, 2, "{}", unknown.stderr);
    assert_mentions(&unknown.stderr, "memory-json");
}

#[test]
fn an_existing_note_is_replaced_only_with_overwrite() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let vault = project(dir.path(), false);
    let file = fixture("memories.jsonl");
    let file = file.to_str().unwrap();
    // A note of the user's own where the import would write, and an imported one edited since.
    std::fs::create_dir_all(vault.join("memories")).unwrap();
    let mine = "# Editor theme\nmy own note\n";
    std::fs::write(vault.join("memories/Editor theme.md"), mine).unwrap();
    let report = import(&root, &["jsonl", file, "--json"]).ok().json();
    assert_eq!(
        report["skipped"][0]["path"], "memories/Editor theme.md",
        "{report}"
    );
    assert_eq!(
        std::fs::read_to_string(vault.join("memories/Editor theme.md")).unwrap(),
        mine
    );
    let coffee = vault.join("memories/Coffee- 15 g per 250 ml, water at 94 °C.md");
    let imported = std::fs::read_to_string(&coffee).unwrap();
    std::fs::write(&coffee, imported.replace("15 g", "18 g")).unwrap();

    let again = import(&root, &["jsonl", file, "--json"]).ok().json();
    assert_eq!(paths(&again, "created"), Vec::<String>::new());
    assert!(std::fs::read_to_string(&coffee).unwrap().contains("18 g"));

    let forced = import(&root, &["jsonl", file, "--overwrite", "--json"])
        .ok()
        .json();
    let overwritten = paths(&forced, "overwritten");
    assert!(
        overwritten.contains(&"memories/Editor theme.md".to_string()),
        "{forced}"
    );
    assert_eq!(std::fs::read_to_string(&coffee).unwrap(), imported);
    let theme = std::fs::read_to_string(vault.join("memories/Editor theme.md")).unwrap();
    assert_mentions(&theme, "id: mem-001");
}

#[test]
fn an_import_goes_to_the_folder_and_project_named_and_is_one_commit() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let vault = project(dir.path(), true);
    let other = dir.path().join("other");
    gitmem(&root, &["project", "add", "other", other.to_str().unwrap()]).ok();
    let commits = common::git::log(&vault).len();

    let report = import(
        &root,
        &[
            "chatgpt",
            fixture("chatgpt-conversations.json").to_str().unwrap(),
            "--folder",
            "archive/chatgpt",
        ],
    )
    .ok();
    assert_mentions(&report.stdout, "2 notes created");
    assert!(vault
        .join("archive/chatgpt/20250114-Parsing_ISO_durations.md")
        .is_file());
    let log = common::git::log(&vault);
    assert_eq!(log.len(), commits + 1, "{log:?}");
    assert_mentions(&log[0], "feat(mem): import 2 notes from chatgpt");
    assert_mentions(&log[0], "archive/chatgpt/20250114-Parsing_ISO_durations.md");

    import(
        &root,
        &[
            "memory-json",
            fixture("memory.jsonl").to_str().unwrap(),
            "--project",
            "other",
        ],
    )
    .ok();
    assert!(other.join("person/Alice Smith.md").is_file());
    assert!(!vault.join("person").exists());
}

#[test]
fn basic_memorys_main_takes_the_place_of_an_empty_main_but_never_of_one_with_notes() {
    for gitmem_main_has_notes in [false, true] {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("root");
        let basic_main = dir.path().join("basic-memory");
        std::fs::create_dir_all(&basic_main).unwrap();
        std::fs::write(
            basic_main.join("Idea.md"),
            "---\ntitle: Idea\npermalink: main/idea\n---\n\n# Idea\n",
        )
        .unwrap();
        if gitmem_main_has_notes {
            std::fs::create_dir_all(root.join("projects/main")).unwrap();
            std::fs::write(root.join("projects/main/Mine.md"), "# Mine\n").unwrap();
        }
        let config = dir.path().join("config.json");
        std::fs::write(
            &config,
            json!({"projects": {"main": {"path": basic_main, "mode": "local"}}, "default_project": "main"})
                .to_string(),
        )
        .unwrap();

        let report = gitmem(
            &root,
            &[
                "project",
                "import-basic-memory",
                "--config",
                config.to_str().unwrap(),
                "--json",
            ],
        )
        .ok()
        .json();
        let projects = gitmem(&root, &["project", "list", "--json"]).ok().json();
        let main_path = projects
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["name"] == "main")
            .map(|p| p["path"].as_str().unwrap().to_string())
            .unwrap();
        if gitmem_main_has_notes {
            assert_eq!(report["projects"][0]["outcome"], "skipped", "{report}");
            assert_mentions(
                report["projects"][0]["detail"].as_str().unwrap(),
                "register this one under another name with `gitmem project add NAME",
            );
            assert_eq!(
                Path::new(&main_path),
                root.join("projects/main").canonicalize().unwrap()
            );
        } else {
            assert_eq!(report["projects"][0]["outcome"], "registered", "{report}");
            assert_eq!(Path::new(&main_path), basic_main.canonicalize().unwrap());
            let read = tool(
                &root,
                "read_note",
                json!({"identifier": "memory://main/idea"}),
            )
            .ok();
            assert_mentions(&read.stdout, "# Idea");
        }
    }
}

/// The folders under `dir`, git's own left out.
fn folders(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_entry(|e| e.file_name() != ".git")
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir())
        .map(|e| e.path().to_path_buf())
        .collect()
}

#[test]
fn a_write_that_fails_midway_takes_back_the_notes_written_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let vault = project(dir.path(), true);
    // The last project's documents would go under `docs/`, which is a file: its write fails
    // after the three notes of the first project are written.
    std::fs::create_dir_all(vault.join("projects/Reading_list")).unwrap();
    std::fs::write(vault.join("projects/Reading_list/docs"), "not a folder").unwrap();
    let before = snapshot(&vault);
    let folders_before = folders(&vault);

    let file = fixture("claude-projects.json");
    let run = import(&root, &["claude", file.to_str().unwrap()]);
    assert_eq!(run.code, 1, "{}", run.stdout);
    assert_mentions(
        &run.stderr,
        "cannot write projects/Reading_list/docs/papers_txt.md",
    );
    assert_mentions(&run.stderr, "nothing was imported");
    let after: Vec<_> = snapshot(&vault)
        .into_iter()
        .filter(|(path, _)| !path.starts_with(vault.join(".git")))
        .collect();
    let before: Vec<_> = before
        .into_iter()
        .filter(|(path, _)| !path.starts_with(vault.join(".git")))
        .collect();
    assert_eq!(after, before);
    assert_eq!(
        folders(&vault),
        folders_before,
        "the folders made for it are gone too"
    );
    let log = common::git::log(&vault);
    assert!(!log.iter().any(|m| m.contains("import")), "{log:?}");
    gitmem(&root, &["status", "--check"]).ok();
}

#[test]
fn names_that_make_no_file_name_still_make_visible_files_of_bounded_length() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let vault = project(dir.path(), false);
    let records = dir.path().join("odd.jsonl");
    let long = "L".repeat(300);
    let lines = [
        json!({"content": "only dashes", "title": "---"}),
        json!({"content": "very long", "title": long}),
        json!({"content": "two lines", "title": "line1\nline2"}),
        json!({"content": "hidden", "title": ".hidden"}),
    ];
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&records, text.join("\n")).unwrap();
    let report = import(&root, &["jsonl", records.to_str().unwrap(), "--json"])
        .ok()
        .json();
    let created = paths(&report, "created");
    assert_eq!(
        created,
        [
            "memories/untitled.md".to_string(),
            format!("memories/{}.md", "L".repeat(180)),
            "memories/line1 line2.md".to_string(),
            "memories/hidden.md".to_string(),
        ]
    );
    // Visible files: a full rescan from the files finds every one of them.
    gitmem(&root, &["reindex"]).ok();
    let found = search_json(&root, "very long", &[]);
    assert_mentions(&found.to_string(), &"L".repeat(180));

    let hidden = import(
        &root,
        &["jsonl", records.to_str().unwrap(), "--folder", ".secret"],
    );
    assert_eq!(hidden.code, 1);
    assert_mentions(&hidden.stderr, "gitmem does not index hidden folders");
    assert!(!vault.join(".secret").exists());
}

/// `project import-basic-memory --json` into `dir/root` as a user whose home is `home`, with
/// no Basic Memory variable or XDG directory but those in `env`; its report.
fn import_basic_memory_from_home(dir: &Path, home: &Path, env: &[(&str, &Path)]) -> Value {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gitmem"));
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
fn a_progress_bar_shows_on_a_terminal_and_nowhere_else() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    project(dir.path(), false);
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
        .output()
        .expect("running gitmem under script");
    let drawn = String::from_utf8_lossy(&shown.stdout);
    assert!(shown.status.success(), "{drawn}");
    assert_mentions(&drawn, "importing [");
    assert_mentions(&drawn, "5/5 notes");
    assert_mentions(&drawn, "5 notes created");

    let piped = import(&root, &["jsonl", file.to_str().unwrap(), "--overwrite"]);
    assert_eq!(piped.code, 0, "{}", piped.stderr);
    assert!(
        !piped.stdout.contains("importing [") && !piped.stderr.contains("importing ["),
        "no bar when the output is not a terminal: {} {}",
        piped.stdout,
        piped.stderr
    );
}
