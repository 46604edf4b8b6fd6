//! Imports in process, on hand-written exports in `tests/fixtures/import/`: the exports of the
//! official memory server, Claude, ChatGPT and gitmem memory records planned, written, indexed
//! (found by search with no sync) and never written twice; refusals that write nothing; and
//! Basic Memory's projects registered where they are.

use std::path::{Path, PathBuf};

use engine::import::ImportOptions;
use engine::scope::ProjectChoice;
use note::import::Source;
use serde_json::{json, Value};

use crate::common::git::log;
use crate::common::{assert_mentions, snapshot};
use crate::{versioned, Harness, ReplyExt};

fn fixture(name: &str) -> PathBuf {
    crate::common::workspace_root()
        .join("tests/fixtures/import")
        .join(name)
}

/// Imports `file` in `format` into `project` (the default one when None): the report as
/// `gitmem import --json` prints it, or the error's message.
fn import_into(
    h: &Harness,
    project: Option<&str>,
    format: &str,
    file: &Path,
    options: ImportOptions,
) -> Result<Value, String> {
    let source = Source::named(format).unwrap_or_else(|| panic!("no import format {format}"));
    let app = h.app();
    app.select_project(&ProjectChoice::named(project))
        .and_then(|project| app.import_file(&project, source, file, &options, &|_, _| {}))
        .map(|report| render::import::report_json(&report))
        .map_err(|e| e.to_string())
}

/// An import into the default project that must succeed; its report.
fn import(h: &Harness, format: &str, file: &Path, options: ImportOptions) -> Value {
    import_into(h, None, format, file, options).unwrap_or_else(|e| panic!("{format}: {e}"))
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
    /// Words of that note a search finds, and the note's title.
    words: &'static str,
    title: &'static str,
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
            words: "speaks German",
            title: "Alice Smith",
        },
        Export {
            format: "claude",
            fixture: "claude-conversations.json",
            counts: json!([["conversations", 3], ["messages", 5]]),
            created: 3,
            repeated: 0,
            note: "conversations/20250114-Planning_the_search_rewrite.md",
            words: "split indexing from querying",
            title: "Planning the search rewrite",
        },
        Export {
            format: "claude",
            fixture: "claude-projects.json",
            counts: json!([["projects", 2], ["documents", 3]]),
            created: 4,
            repeated: 0,
            note: "projects/gitmem_launch/docs/Pricing_notes.md",
            words: "teams pay per seat",
            title: "Pricing notes",
        },
        Export {
            format: "chatgpt",
            fixture: "chatgpt-conversations.json",
            counts: json!([["conversations", 2], ["messages", 6]]),
            created: 2,
            repeated: 0,
            note: "conversations/20250114-Parsing_ISO_durations.md",
            words: "TTL valid",
            title: "Parsing ISO durations",
        },
        Export {
            format: "jsonl",
            fixture: "memories.jsonl",
            counts: json!([["memories", 6]]),
            created: 5,
            repeated: 1,
            note: "memories/Editor theme.md",
            words: "dark mode",
            title: "Editor theme",
        },
    ]
}

fn dry_run() -> ImportOptions {
    ImportOptions {
        dry_run: true,
        ..ImportOptions::default()
    }
}

#[test]
fn each_export_is_planned_written_indexed_and_never_written_twice() {
    for export in exports() {
        let h = Harness::new();
        let vault = h.main_dir();
        let file = fixture(export.fixture);
        let case = format!("{} {}", export.format, export.fixture);

        let before = snapshot(&vault);
        let planned = import(&h, export.format, &file, dry_run());
        assert_eq!(snapshot(&vault), before, "{case}: a dry run writes nothing");
        assert_eq!(planned["dry_run"], true, "{case}");

        let report = import(&h, export.format, &file, ImportOptions::default());
        let created = paths(&report, "created");
        assert_eq!(created.len(), export.created, "{case}: {report}");
        assert_eq!(created, paths(&planned, "created"), "{case}");
        assert_eq!(report["deduplicated"], export.repeated, "{case}");
        assert_eq!(report["counts"], export.counts, "{case}");
        assert_eq!(report["project"], "main", "{case}");
        for path in &created {
            assert!(vault.join(path).is_file(), "{case}: {path} was not written");
        }
        assert!(
            created.iter().any(|p| p == export.note),
            "{case}: {created:?}"
        );
        // Indexed by the import itself: no sync (no watcher runs in process).
        let found = crate::titles(&h.json("search_notes", json!({"query": export.words})));
        assert!(
            found.iter().any(|t| t == export.title),
            "{case}: {:?} found {found:?}",
            export.words
        );

        let written = snapshot(&vault);
        let again = import(&h, export.format, &file, ImportOptions::default());
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
fn a_bad_export_is_reported_by_line_and_nothing_is_written() {
    let h = Harness::new();
    let vault = h.main_dir();
    std::fs::create_dir_all(&vault).unwrap();
    std::fs::write(vault.join("Kept.md"), "# Kept\n").unwrap();
    h.sync();
    let missing = h.root().join("missing.json");
    let bad_projects = h.root().join("projects.json");
    std::fs::write(
        &bad_projects,
        "[\n{\"uuid\": \"p1\", \"name\": \"Launch\", \"docs\": [{\"filename\": \"plan.md\"}]}\n]\n",
    )
    .unwrap();
    // (format, file, what the error says)
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
        let error = import_into(&h, None, format, &file, ImportOptions::default())
            .expect_err(&format!("{format} {}", file.display()));
        for needle in expected {
            assert_mentions(&error, needle);
        }
        assert_eq!(snapshot(&vault), before, "{format} {}", file.display());
    }
    let good = fixture("memories.jsonl");
    for (folder, expected) in [
        ("../outside", "is not a folder inside the project"),
        ("notes/.hidden", "is hidden"),
        (".secret", "gitmem does not index hidden folders"),
    ] {
        let options = ImportOptions {
            folder: Some(folder.to_string()),
            ..ImportOptions::default()
        };
        let error = import_into(&h, None, "jsonl", &good, options).expect_err(folder);
        assert_mentions(&error, expected);
        assert_eq!(snapshot(&vault), before, "folder {folder}");
    }
    assert!(!vault.join(".secret").exists());
}

#[test]
fn an_existing_note_is_replaced_only_with_overwrite() {
    let h = Harness::new();
    let vault = h.main_dir();
    let file = fixture("memories.jsonl");
    // A note of the user's own where the import would write, and an imported one edited since.
    std::fs::create_dir_all(vault.join("memories")).unwrap();
    let mine = "# Editor theme\nmy own note\n";
    std::fs::write(vault.join("memories/Editor theme.md"), mine).unwrap();
    h.sync();
    let report = import(&h, "jsonl", &file, ImportOptions::default());
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
    h.sync();

    let again = import(&h, "jsonl", &file, ImportOptions::default());
    assert_eq!(paths(&again, "created"), Vec::<String>::new());
    assert!(std::fs::read_to_string(&coffee).unwrap().contains("18 g"));

    let overwrite = ImportOptions {
        overwrite: true,
        ..ImportOptions::default()
    };
    let forced = import(&h, "jsonl", &file, overwrite);
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
    let h = versioned();
    let vault = h.main_dir();
    let other = h.root().join("other");
    h.app().add_project("other", &other, false).unwrap();
    let commits = log(&vault).len();

    let options = ImportOptions {
        folder: Some("archive/chatgpt".to_string()),
        ..ImportOptions::default()
    };
    let report = import(
        &h,
        "chatgpt",
        &fixture("chatgpt-conversations.json"),
        options,
    );
    assert_eq!(paths(&report, "created").len(), 2, "{report}");
    assert!(vault
        .join("archive/chatgpt/20250114-Parsing_ISO_durations.md")
        .is_file());
    // Reading history commits what is queued.
    h.call(
        "note_history",
        json!({"identifier": "archive/chatgpt/20250114-Parsing_ISO_durations.md"}),
    )
    .ok();
    let log = log(&vault);
    assert_eq!(log.len(), commits + 1, "{log:?}");
    assert_mentions(&log[0], "feat(mem): import 2 notes from chatgpt");
    assert_mentions(&log[0], "archive/chatgpt/20250114-Parsing_ISO_durations.md");

    import_into(
        &h,
        Some("other"),
        "memory-json",
        &fixture("memory.jsonl"),
        ImportOptions::default(),
    )
    .unwrap();
    assert!(other.join("person/Alice Smith.md").is_file());
    assert!(!vault.join("person").exists());
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

/// Every file under `dir` with its bytes, git's own left out.
fn files(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    snapshot(dir)
        .into_iter()
        .filter(|(path, _)| !path.starts_with(dir.join(".git")))
        .collect()
}

#[test]
fn a_write_that_fails_midway_takes_back_the_notes_written_before_it() {
    let h = versioned();
    let vault = h.main_dir();
    // The last project's documents would go under `docs/`, which is a file: its write fails
    // after the three notes of the first project are written.
    std::fs::create_dir_all(vault.join("projects/Reading_list")).unwrap();
    std::fs::write(vault.join("projects/Reading_list/docs"), "not a folder").unwrap();
    h.sync();
    let before = files(&vault);
    let folders_before = folders(&vault);

    let error = import_into(
        &h,
        None,
        "claude",
        &fixture("claude-projects.json"),
        ImportOptions::default(),
    )
    .unwrap_err();
    assert_mentions(
        &error,
        "cannot write projects/Reading_list/docs/papers_txt.md",
    );
    assert_mentions(&error, "nothing was imported");
    assert_eq!(files(&vault), before);
    assert_eq!(
        folders(&vault),
        folders_before,
        "the folders made for it are gone too"
    );
    // Reading history commits what is queued, whichever note it names.
    h.call(
        "note_history",
        json!({"identifier": "projects/Reading_list/docs"}),
    );
    let log = log(&vault);
    assert!(!log.iter().any(|m| m.contains("import")), "{log:?}");
    // The notes taken back leave search a moment after the graph.
    h.app().wait_searchable().unwrap();
    let health = h.app().check(None).unwrap();
    assert!(
        health.is_clean(),
        "the index agrees with the files: {health:?}"
    );
}

#[test]
fn names_that_make_no_file_name_still_make_visible_files_of_bounded_length() {
    let h = Harness::new();
    let records = h.root().join("odd.jsonl");
    let long = "L".repeat(300);
    let lines = [
        json!({"content": "only dashes", "title": "---"}),
        json!({"content": "very long", "title": long}),
        json!({"content": "two lines", "title": "line1\nline2"}),
        json!({"content": "hidden", "title": ".hidden"}),
    ];
    let text: Vec<String> = lines.iter().map(Value::to_string).collect();
    std::fs::write(&records, text.join("\n")).unwrap();
    let report = import(&h, "jsonl", &records, ImportOptions::default());
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
    let project = h.app().project(None).unwrap();
    h.app().rebuild_project(&project, &|_| {}).unwrap();
    let found = h.json("search_notes", json!({"query": "very long"}));
    assert_mentions(&found.to_string(), &"L".repeat(180));
}

/// `import_basic_memory` of a `config.json` holding `config`, written in the root: its report.
fn import_basic_memory(h: &Harness, config: &Value) -> Value {
    let file = h.root().join("bm-config.json");
    std::fs::write(&file, config.to_string()).unwrap();
    let report = h.app().import_basic_memory(Some(&file)).unwrap();
    match render::import::basic_memory_import(&report, render::Format::Json) {
        render::Rendered::Json(value) => value,
        other => panic!("the report renders as JSON: {other:?}"),
    }
}

#[test]
fn basic_memory_projects_are_registered_where_they_are_with_their_permalinks() {
    let h = Harness::new();
    let dir = h.root();
    let research = dir.join("research");
    let notes = dir.join("notes");
    std::fs::create_dir_all(research.join("papers")).unwrap();
    std::fs::create_dir_all(&notes).unwrap();
    let paper = "---\ntitle: Attention Paper\ntype: paper\npermalink: research/papers/attention-is-all-you-need\n---\n\n# Attention Paper\n- [claim] Attention suffices\n";
    std::fs::write(research.join("papers/Attention Paper.md"), paper).unwrap();
    std::fs::write(notes.join("Groceries.md"), "# Groceries\n").unwrap();
    let config = json!({
        "env": "dev",
        "projects": {
            "research": {"path": research, "mode": "local", "workspace_id": null},
            "notes": {"path": notes, "mode": "local"},
            "cloud-only": {"path": "", "mode": "cloud"},
            "gone": {"path": dir.join("missing"), "mode": "local"},
        },
        "default_project": "research",
        "semantic_search_enabled": true,
        "some_future_key": {"ignored": true},
    });
    let report = import_basic_memory(&h, &config);
    let outcomes: Vec<(&str, &str)> = report["projects"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p["name"].as_str().unwrap(), p["outcome"].as_str().unwrap()))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("research", "registered"),
            ("notes", "registered"),
            ("cloud-only", "skipped"),
            ("gone", "skipped"),
        ]
    );
    assert_eq!(report["default_project"], "research");

    // The files are untouched, and the memory:// URL the user had still resolves.
    assert_eq!(
        std::fs::read_to_string(research.join("papers/Attention Paper.md")).unwrap(),
        paper
    );
    h.sync();
    let read = h.text(
        "read_note",
        json!({"identifier": "memory://research/papers/attention-is-all-you-need"}),
    );
    assert_mentions(&read, "- [claim] Attention suffices");

    // Importing again changes nothing.
    let again = import_basic_memory(&h, &config);
    assert_eq!(
        again["projects"][0]["outcome"], "already registered",
        "{again}"
    );
    let legacy = import_basic_memory(&h, &json!({"projects": {"legacy": notes}}));
    assert_eq!(legacy["projects"][0]["outcome"], "already registered");
    assert_eq!(legacy["projects"][0]["detail"], "notes", "{legacy}");

    let file = dir.join("bad.json");
    for (content, expected) in [
        ("not json", "is not valid JSON"),
        ("{}", "has no \"projects\" object"),
    ] {
        std::fs::write(&file, content).unwrap();
        let bad = h.app().import_basic_memory(Some(&file)).unwrap_err();
        assert_mentions(&bad.to_string(), expected);
    }
}

#[test]
fn basic_memorys_main_takes_the_place_of_an_empty_main_but_never_of_one_with_notes() {
    for gitmem_main_has_notes in [false, true] {
        let h = Harness::new();
        let basic_main = h.root().join("basic-memory");
        std::fs::create_dir_all(&basic_main).unwrap();
        std::fs::write(
            basic_main.join("Idea.md"),
            "---\ntitle: Idea\npermalink: main/idea\n---\n\n# Idea\n",
        )
        .unwrap();
        if gitmem_main_has_notes {
            std::fs::create_dir_all(h.main_dir()).unwrap();
            std::fs::write(h.main_dir().join("Mine.md"), "# Mine\n").unwrap();
        }
        let report = import_basic_memory(
            &h,
            &json!({"projects": {"main": {"path": basic_main, "mode": "local"}}, "default_project": "main"}),
        );
        let main_path = h.app().project(Some("main")).unwrap().path;
        if gitmem_main_has_notes {
            assert_eq!(report["projects"][0]["outcome"], "skipped", "{report}");
            assert_mentions(
                report["projects"][0]["detail"].as_str().unwrap(),
                "register this one under another name with `gitmem project add NAME",
            );
            assert_eq!(main_path, h.main_dir().canonicalize().unwrap());
        } else {
            assert_eq!(report["projects"][0]["outcome"], "registered", "{report}");
            assert_eq!(main_path, basic_main.canonicalize().unwrap());
            h.sync();
            let read = h.text("read_note", json!({"identifier": "memory://main/idea"}));
            assert_mentions(&read, "# Idea");
        }
    }
}
