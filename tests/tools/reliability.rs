//! Hostile input and racing programs: one bad file or argument never takes a project down, and
//! an edit never loses what another program saved (see `docs/reliability.md`).

use std::fs;
use std::path::Path;
use std::time::{Duration, Instant, SystemTime};

use vault::fs::SETTLE;

use serde_json::{json, Value};

use crate::{Harness, ReplyExt};

/// Nine levels of nine aliases each: 9^9 values once expanded, from a few hundred bytes.
fn alias_bomb() -> String {
    let mut yaml = String::from("---\na0: &a0 [x, x, x, x, x, x, x, x, x]\n");
    for level in 1..=9 {
        let list = vec![format!("*a{}", level - 1); 9].join(", ");
        yaml.push_str(&format!("a{level}: &a{level} [{list}]\n"));
    }
    yaml + "---\n# Bomb\n\nplatypus\n"
}

fn hits(h: &Harness, query: &str) -> u64 {
    h.json("search_notes", json!({"query": query}))["total"]
        .as_u64()
        .unwrap()
}

fn status_warnings(h: &Harness) -> Vec<String> {
    let status = h.app().status(Some("main")).unwrap();
    status.projects[0]
        .warnings
        .iter()
        .map(|w| format!("{}: {}", w.path, w.message))
        .collect()
}

#[test]
fn hostile_notes_are_indexed_without_harm_to_the_project() {
    let h = Harness::new();
    let long_target = "a".repeat(600);
    #[rustfmt::skip]
    let cases: Vec<(&str, String, &str)> = vec![
        ("alias bomb in front matter", alias_bomb(), "platypus"),
        ("a link target of 600 bytes", format!("# Long\n\nquokka [[{long_target}]]\n- relates_to [[{long_target}]]\n"), "quokka"),
        ("a title of 600 bytes", format!("---\ntitle: {long_target}\n---\nnumbat\n"), "numbat"),
        ("a NUL in a title", "---\ntitle: \"bil\\0by\"\n---\nbilby [[x\\0y]]\n".to_string(), "bilby"),
    ];
    for (i, (name, text, word)) in cases.iter().enumerate() {
        fs::write(h.main_dir().join(format!("hostile-{i}.md")), text).unwrap();
        h.sync();
        assert_eq!(hits(&h, word), 1, "{name}: the note is searchable");
        // The project keeps working: a plain write and a search after the hostile note.
        h.write(&format!("Plain {i}"), "plain", "echidna");
        assert_eq!(
            hits(&h, "echidna"),
            i as u64 + 1,
            "{name}: the project still works"
        );
    }
    let warnings = status_warnings(&h);
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("hostile-0.md") && w.contains("too large")),
        "the alias bomb is reported: {warnings:?}"
    );
    // The same through write_note's content.
    let reply = h.text(
        "write_note",
        json!({"title": "Bomb Again", "directory": "b", "content": alias_bomb()}),
    );
    assert!(reply.starts_with("# Created note"), "{reply}");
    let reindexed = h
        .app()
        .rebuild_project(&h.app().project(None).unwrap(), &|_| {});
    assert!(reindexed.is_ok(), "reindex works: {reindexed:?}");
}

#[test]
fn a_symlink_out_of_the_project_is_not_scanned() {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.md"), "# Secret\n\nwallaby\n").unwrap();
    let h = Harness::new();
    std::os::unix::fs::symlink(
        outside.path().join("secret.md"),
        h.main_dir().join("file.md"),
    )
    .unwrap();
    std::os::unix::fs::symlink(outside.path(), h.main_dir().join("folder")).unwrap();
    fs::create_dir_all(h.main_dir().join("inside")).unwrap();
    fs::write(
        h.main_dir().join("inside/real.md"),
        "# Real\n\nwallaby too\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(
        h.main_dir().join("inside/real.md"),
        h.main_dir().join("alias.md"),
    )
    .unwrap();
    h.sync();
    let found = h.json("search_notes", json!({"query": "wallaby"}));
    let paths: Vec<&str> = found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file_path"].as_str().unwrap())
        .collect();
    assert_eq!(paths.len(), 2, "only the notes inside: {paths:?}");
    assert!(paths
        .iter()
        .all(|p| !p.starts_with("folder") && *p != "file.md"));
    let warnings = status_warnings(&h);
    for path in ["file.md", "folder"] {
        assert!(
            warnings
                .iter()
                .any(|w| w.starts_with(path) && w.contains("leads outside")),
            "{path}: {warnings:?}"
        );
    }
}

#[test]
fn limits_and_empty_queries_are_answered_clearly() {
    let h = Harness::new();
    h.write("Hub", "", "# Hub\n\n- relates_to [[Spoke]]");
    let deep = h.call(
        "build_context",
        json!({"url": "memory://hub", "depth": 1_000_000_000}),
    );
    assert!(deep.is_error(), "{}", deep.text());
    assert!(
        deep.text().contains("depth must be at most 10"),
        "{}",
        deep.text()
    );
    for (tool, args) in [
        ("search_notes", json!({"query": "hub", "page_size": 1001})),
        (
            "build_context",
            json!({"url": "memory://hub", "page_size": 1001}),
        ),
        (
            "read_note",
            json!({"identifier": "nothing", "page_size": 101}),
        ),
    ] {
        let reply = h.call(tool, args);
        assert!(
            reply.is_error() && reply.text().contains("page_size must be <="),
            "{tool}: {}",
            reply.text()
        );
    }
    let huge = "x".repeat(engine::notes::MAX_NOTE_BYTES + 1);
    for tool in ["write_note", "edit_note"] {
        let reply = h.call(
            tool,
            json!({"title": "Huge", "identifier": "Hub", "directory": "", "operation": "append", "content": huge}),
        );
        assert!(
            reply.is_error() && reply.text().contains("at most"),
            "{tool}: {}",
            reply.text()
        );
    }
    for query in ["\"", "()", "\u{0}", "  "] {
        let text = h.text("search_notes", json!({"query": query}));
        assert!(
            text.contains("No Search Criteria"),
            "{query:?} names nothing to find: {text}"
        );
    }
}

#[test]
fn titles_of_punctuation_alone_get_permalinks_of_their_own() {
    let h = Harness::new();
    let mut permalinks = Vec::new();
    for title in ["!!!", "#", "[[]]", "&&"] {
        let v = h.json(
            "write_note",
            json!({"title": title, "directory": "t", "content": "x"}),
        );
        assert_eq!(v["action"], "created", "{title}: {v}");
        let permalink = v["permalink"].as_str().unwrap().to_string();
        assert!(!permalink.ends_with('/'), "{title}: {permalink}");
        permalinks.push(permalink);
    }
    permalinks.sort();
    permalinks.dedup();
    assert_eq!(permalinks.len(), 4, "{permalinks:?}");
}

#[test]
fn a_folder_move_that_moved_nothing_says_so() {
    let h = Harness::new();
    for name in ["A", "B", "C"] {
        h.write(name, "src", name);
        h.write(name, "dst", name);
    }
    let text = h.text(
        "move_note",
        json!({"identifier": "src", "destination_path": "dst", "is_directory": true}),
    );
    assert!(text.starts_with("# Directory Move Failed"), "{text}");
    let v = h.json(
        "move_note",
        json!({"identifier": "src", "destination_path": "dst", "is_directory": true}),
    );
    assert_eq!(
        (v["moved"].clone(), v["successful_moves"].clone()),
        (json!(false), json!(0))
    );
}

#[test]
fn an_edit_of_a_file_that_is_not_utf8_changes_no_byte() {
    let h = Harness::new();
    let path = h.main_dir().join("binary.md");
    let mut bytes = b"# Binary\n\nsome text ".to_vec();
    bytes.extend((0..=255u8).cycle().take(4096));
    fs::write(&path, &bytes).unwrap();
    h.sync();
    let v = h.refused_json(
        "edit_note",
        json!({"identifier": "binary.md", "operation": "append", "content": "more"}),
    );
    assert_eq!(v["error"], "NOT_UTF8", "{v}");
    assert_eq!(fs::read(&path).unwrap(), bytes);
}

/// Writes `text` as editors that save in place do: truncate, then write in two parts, with
/// pauses that leave the file empty, then half written, for a moment. How long the file was
/// not whole.
fn save_in_place(path: &Path, text: &str) -> Duration {
    use std::io::Write;
    let started = Instant::now();
    let mut file = fs::OpenOptions::new()
        .write(true)
        .truncate(true)
        .open(path)
        .unwrap();
    std::thread::sleep(Duration::from_millis(3));
    let (first, second) = text.split_at(text.len() / 2);
    file.write_all(first.as_bytes()).unwrap();
    std::thread::sleep(Duration::from_millis(3));
    file.write_all(second.as_bytes()).unwrap();
    started.elapsed()
}

/// Writes `text` as editors that save atomically do: a temp file renamed over the note, which
/// is never seen partly written.
fn save_atomically(path: &Path, text: &str) -> Duration {
    let temp = path.with_extension("md.swp");
    fs::write(&temp, text).unwrap();
    std::thread::sleep(Duration::from_millis(3));
    fs::rename(&temp, path).unwrap();
    Duration::ZERO
}

/// The number of the last `editor save N` line in a note.
fn last_editor_save(text: &str) -> u32 {
    text.lines()
        .filter_map(|l| l.strip_prefix("editor save "))
        .filter_map(|n| n.parse().ok())
        .next_back()
        .unwrap_or(0)
}

/// An editor saves the note again and again while the tool edits it; after each edit (with the
/// editor paused between saves) the note must be whole, and hold a save at least as new as
/// the one it held when the edit began: an edit computed from a half-written file, or from a
/// version older than what it read, would show here. (A save that lands between an edit's
/// final comparison and its rename can still be lost; that window is a rename wide, see
/// docs/reliability.md. `vault::fs` tests the comparison itself deterministically.)
///
/// An edit waits for a changed file to be quiet for `SETTLE` before it trusts it, so a save
/// whose file stays partial longer than that (the editor's thread stalled on a loaded
/// machine) is outside the promise: an edit that overlapped such a save is not judged, and
/// the file's clock, coarser than `Instant`'s, is allowed half of `SETTLE`.
#[test]
fn edits_racing_an_editor_never_truncate_the_note_or_drop_a_save() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::{Arc, Mutex};
    for (style, save) in [
        ("in place", save_in_place as fn(&Path, &str) -> Duration),
        ("atomically", save_atomically),
    ] {
        let h = Harness::new();
        let body: String = (0..300).map(|i| format!("line {i}\n")).collect();
        h.write("Raced", "", &body);
        let path = h.main_dir().join("Raced.md");
        let original = fs::read_to_string(&path).unwrap();
        // The number of the editor's last finished save; held while a save is under way.
        let last_save = Arc::new(Mutex::new(0u32));
        let done = Arc::new(AtomicBool::new(false));
        // Set when a save left the file partial for longer than an edit's settle time allows.
        let stalled = Arc::new(AtomicBool::new(false));
        let editor = {
            let (path, last_save, done, stalled) = (
                path.clone(),
                last_save.clone(),
                done.clone(),
                stalled.clone(),
            );
            std::thread::spawn(move || {
                for k in 1..=60 {
                    let mut last = last_save.lock().unwrap_or_else(|e| e.into_inner());
                    let partial = save(&path, &format!("{original}editor save {k}\n"));
                    if partial >= SETTLE / 2 {
                        stalled.store(true, Ordering::SeqCst);
                    }
                    *last = k;
                    drop(last);
                    std::thread::sleep(Duration::from_millis(1 + u64::from(k % 4)));
                }
                done.store(true, Ordering::SeqCst);
            })
        };
        let (mut edits, mut judged) = (0, 0);
        while !done.load(Ordering::SeqCst) || edits < 5 {
            // What the note holds as the edit begins (read with the editor between saves).
            let before = {
                let _between_saves = last_save.lock().unwrap();
                stalled.store(false, Ordering::SeqCst);
                last_editor_save(&fs::read_to_string(&path).unwrap())
            };
            let reply = h.call(
                "edit_note",
                json!({"identifier": "Raced", "operation": "append", "content": format!("tool line {edits}")}),
            );
            let text = reply.text();
            assert!(
                text.starts_with("# Edited note") || text.contains("Changed During Edit"),
                "{style}: an edit either applies or says why not: {text}"
            );
            let _between_saves = last_save.lock().unwrap();
            if !stalled.load(Ordering::SeqCst) {
                judged += 1;
                let now = fs::read_to_string(&path).unwrap();
                assert!(
                    now.starts_with("---\n") && now.contains("line 299\n"),
                    "{style}: edit {edits} left the note cut short: {now:?}"
                );
                let kept = last_editor_save(&now);
                let owed = before;
                assert!(
                    kept >= owed,
                    "{style}: edit {edits} dropped the editor's save {owed} (the note has save {kept})"
                );
            }
            edits += 1;
        }
        editor.join().unwrap();
        eprintln!(
            "{style}: {judged} of {edits} edits judged (the others overlapped a stalled save)"
        );
    }
}

#[test]
fn temp_files_of_dead_writers_are_removed_whatever_their_age_and_live_ones_never() {
    let h = Harness::new();
    let dir = h.main_dir().join("notes");
    fs::create_dir_all(&dir).unwrap();
    let dead_pid = std::process::Command::new("true")
        .spawn()
        .and_then(|mut child| {
            let pid = child.id();
            child.wait().map(|_| pid)
        })
        .unwrap();
    let live = vault::process::stamp();
    let hour_ago = SystemTime::now() - Duration::from_secs(3600);
    // (file name, modified an hour ago, removed)
    let cases = [
        // A killed writer's, written a moment ago: its process is gone.
        (
            format!(".A.md.{dead_pid}-1-0123456789abcdef.gitmem-tmp"),
            false,
            true,
        ),
        // This process's, however old: a write in flight.
        (
            format!(".B.md.{live}-fedcba9876543210.gitmem-tmp"),
            true,
            false,
        ),
        // Our process id with another start time: an earlier process that had the id.
        (
            format!(".C.md.{}-1-00aa.gitmem-tmp", std::process::id()),
            false,
            true,
        ),
        // An older gitmem's names say no writer: by age.
        (".D.md.0123456789abcdef.gitmem-tmp".to_string(), true, true),
        (
            ".E.md.fedcba9876543210.gitmem-tmp".to_string(),
            false,
            false,
        ),
    ];
    for (name, old, _) in &cases {
        let path = dir.join(name);
        fs::write(&path, "half").unwrap();
        if *old {
            let file = fs::File::options().write(true).open(&path).unwrap();
            file.set_modified(hour_ago).unwrap();
        }
    }
    h.sync();
    for (name, _, removed) in &cases {
        assert_eq!(!dir.join(name).exists(), *removed, "{name}");
    }
    assert_eq!(hits(&h, "half"), 0, "temp files are never indexed");
}

#[test]
fn a_project_folder_that_is_suddenly_empty_keeps_its_notes() {
    let h = Harness::new();
    for name in ["One", "Two", "Three", "Four"] {
        h.write(name, "n", &format!("koala {name}"));
    }
    fs::remove_dir_all(h.main_dir().join("n")).unwrap();
    h.sync();
    assert_eq!(hits(&h, "koala"), 4, "the notes are kept");
    let warnings = status_warnings(&h);
    assert!(
        warnings.iter().any(|w| w.contains("empty now")),
        "{warnings:?}"
    );
    // A reindex is the user's word that the folder really is empty.
    h.app()
        .rebuild_project(&h.app().project(None).unwrap(), &|_| {})
        .unwrap();
    assert_eq!(hits(&h, "koala"), 0);
}

#[test]
fn a_linked_folder_that_is_suddenly_empty_keeps_its_notes_until_a_rescan_confirms() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    fs::create_dir_all(&root).unwrap();
    fs::write(
        root.join("config.toml"),
        "[storage.local]\nallow_outside_home = true\n",
    )
    .unwrap();
    let vault = dir.path().join("Vault");
    fs::create_dir_all(&vault).unwrap();
    for name in ["A", "B", "C", "D"] {
        fs::write(
            vault.join(format!("{name}.md")),
            format!("# {name}\n\ndingo\n"),
        )
        .unwrap();
    }
    let h = Harness::open(&root);
    h.call("link_folder", json!({"path": vault.to_str().unwrap()}))
        .ok();
    assert_eq!(hits(&h, "dingo"), 4);
    for name in ["A", "B", "C", "D"] {
        fs::remove_file(vault.join(format!("{name}.md"))).unwrap();
    }
    let rescan = |h: &Harness| -> Value {
        h.call("sync", json!({"direction": "external"})).ok().json()["reports"][0].clone()
    };
    let first = rescan(&h);
    assert!(
        first["lastError"]
            .as_str()
            .is_some_and(|e| e.contains("empty now")),
        "{first}"
    );
    assert_eq!(hits(&h, "dingo"), 4, "the notes are kept");
    let listed = h.call("list_links", json!({})).ok().json();
    assert_eq!(listed["links"][0]["status"], "error", "{listed}");
    let second = rescan(&h);
    assert_eq!(
        second["deleted"], 4,
        "a second explicit rescan confirms: {second}"
    );
    assert_eq!(hits(&h, "dingo"), 0);
}

#[test]
fn check_reports_drift_and_repair_removes_it_without_writing_user_files() {
    let h = Harness::new();
    for name in ["Kept", "Changed", "Removed"] {
        h.write(name, "d", &format!("numbat {name}"));
    }
    let dir = h.main_dir().join("d");
    fs::write(dir.join("New.md"), "# New\n\nnumbat new\n").unwrap();
    fs::write(
        dir.join("Changed.md"),
        "# Changed\n\nnumbat changed again\n",
    )
    .unwrap();
    fs::remove_file(dir.join("Removed.md")).unwrap();
    let temp = dir.join(".Kept.md.00112233445566778899aabbccddeeff.gitmem-tmp");
    fs::write(&temp, "half").unwrap();
    fs::File::options()
        .write(true)
        .open(&temp)
        .unwrap()
        .set_modified(SystemTime::now() - Duration::from_secs(3600))
        .unwrap();
    let user_files = crate::common::snapshot(&dir);
    // The search indexer runs behind the writes; wait, so that no note counts as pending.
    h.app().wait_searchable().unwrap();

    let health = h.app().check(None).unwrap();
    let main = &health.projects[0];
    assert!(!health.is_clean());
    assert_eq!(main.not_indexed, ["d/New.md"]);
    assert_eq!(main.changed, ["d/Changed.md"]);
    assert_eq!(main.stale, ["d/Removed.md"]);
    assert_eq!(main.temp_files.len(), 1);
    assert_eq!(
        crate::common::snapshot(&dir),
        user_files,
        "a check writes nothing"
    );
    let status = h.text("sync_status", json!({}));
    assert!(status.contains("drifted"), "{status}");

    let (before, after) = h.app().repair(None).unwrap();
    assert_eq!(before, health);
    assert!(after.is_clean(), "{after:?}");
    assert!(!temp.exists());
    let mut user_files = user_files;
    user_files.retain(|path, _| path != &temp);
    assert_eq!(
        crate::common::snapshot(&dir),
        user_files,
        "repair writes no user file"
    );
    assert_eq!(hits(&h, "numbat"), 3);
    assert!(h
        .text("sync_status", json!({}))
        .contains("files, graph and search agree"));
}

mod arbitrary_arguments {
    use proptest::prelude::*;
    use serde_json::{Map, Value};

    use crate::Harness;

    /// Tools whose arguments name places outside the temporary root (project and link paths):
    /// random values there would create or link directories on the machine running the tests.
    const OUTSIDE_THE_ROOT: [&str; 3] = ["create_memory_project", "delete_project", "link_folder"];

    fn json_value() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            any::<String>().prop_map(Value::from),
            "(\\.\\./|/|~|memory://|\\*|[a-z]{1,6}/)*[a-z#\\[\\]]{0,8}".prop_map(Value::from),
        ];
        leaf.prop_recursive(3, 24, 4, |inner| {
            prop_oneof![
                proptest::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                proptest::collection::btree_map("[a-z_$]{1,8}", inner, 0..4)
                    .prop_map(|m| Value::Object(m.into_iter().collect())),
            ]
        })
    }

    /// Every parameter name any tool declares, so that arguments reach the handlers.
    fn parameter_names() -> Vec<String> {
        let mut names: Vec<String> = mcp::tools::specs()
            .iter()
            .flat_map(|spec| {
                (spec.schema)()["properties"]
                    .as_object()
                    .map(|p| p.keys().cloned().collect::<Vec<_>>())
                    .unwrap_or_default()
            })
            .collect();
        names.sort();
        names.dedup();
        names
    }

    /// A value for every parameter name, and which of them to send; a tool gets its own
    /// parameters (always its required ones, so calls get past argument parsing).
    fn arguments() -> impl Strategy<Value = (Vec<Value>, Vec<bool>)> {
        let n = parameter_names().len();
        (
            proptest::collection::vec(json_value(), n),
            proptest::collection::vec(any::<bool>(), n),
        )
    }

    fn arguments_for(
        spec: &mcp::tools::ToolSpec,
        values: &[Value],
        sent: &[bool],
    ) -> Map<String, Value> {
        let schema = (spec.schema)();
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let own = schema["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        parameter_names()
            .into_iter()
            .zip(values.iter().zip(sent))
            .filter(|(name, (_, sent))| {
                required.contains(&name.as_str()) || (**sent && own.contains_key(name))
            })
            .map(|(name, (value, _))| (name, value.clone()))
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(48))]
        /// Whatever a client sends as arguments, every tool answers (a result or an error
        /// result) and nothing panics; the project keeps working afterwards.
        #[test]
        fn any_arguments_to_any_tool_get_an_answer((values, sent) in arguments()) {
            let h = Harness::new();
            h.write("Seed", "s", "- relates_to [[Other]]");
            for spec in mcp::tools::specs() {
                if OUTSIDE_THE_ROOT.contains(&spec.name) {
                    continue;
                }
                let _ = h.call(spec.name, Value::Object(arguments_for(spec, &values, &sent)));
            }
            let reply = h.call(
                "write_note",
                serde_json::json!({"title": "After", "directory": "x", "content": "still here"}),
            );
            prop_assert!(!reply.is_error(), "{}", reply.text());
        }
    }
}

/// A fresh root, before any note is written, is where many agents start: every read tool
/// answers it with an empty result, never a server error.
#[test]
fn every_read_tool_answers_an_empty_root() {
    let h = Harness::new().serving_tools("all");
    let reads = [
        ("search_notes", json!({"query": "anything"})),
        (
            "search_notes",
            json!({"query": "anything", "output_format": "json"}),
        ),
        (
            "search_notes",
            json!({"query": "anything", "search_type": "title"}),
        ),
        (
            "search_notes",
            json!({"query": "anything", "search_type": "permalink"}),
        ),
        (
            "search_notes",
            json!({"query": "anything", "search_type": "hybrid"}),
        ),
        (
            "search_notes",
            json!({"query": "", "note_types": ["decision"]}),
        ),
        ("search", json!({"query": "anything"})),
        ("build_context", json!({"url": "memory://main/*"})),
        ("recent_activity", json!({})),
        ("list_directory", json!({})),
        ("memory_context", json!({"task": "anything"})),
        ("memory_search", json!({"query": "anything"})),
        ("search_nodes", json!({"query": "anything"})),
        ("read_graph", json!({})),
        ("grep", json!({"pattern": "anything"})),
        ("find", json!({"name": "*.md"})),
        ("ls", json!({})),
        ("tail", json!({})),
        ("inspect_query", json!({"query": "anything"})),
    ];
    for (tool, args) in reads {
        let reply = h.call(tool, args.clone());
        assert!(
            !reply.is_error(),
            "{tool} {args} on an empty root: {}",
            reply.text()
        );
    }
}
