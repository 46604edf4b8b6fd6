//! What gitmem acknowledged survives the end of its process: a client closing stdin, SIGTERM,
//! and kill -9 at several points during writes, a reindex and a linked-folder scan. After each,
//! the next process finds every acknowledged note on disk, complete, and searchable, with no
//! reindex in between.

use std::collections::BTreeSet;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::common::*;
use serde_json::{json, Value};

fn serve(root: &Path) -> Child {
    crate::common::gitmem_command()
        .arg("--root")
        .arg(root)
        .arg("serve")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("starting gitmem serve")
}

fn line(value: Value) -> String {
    format!("{value}\n")
}

/// `initialize`, then write_note requests 1 to 20.
fn initialize_and_twenty_writes() -> String {
    (1..=20).fold(initialize(), |input, i| input + write_request(i).as_str())
}

fn initialize() -> String {
    line(
        json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {},
        "clientInfo": {"name": "crash-tests", "version": "1"}}}),
    ) + line(json!({"jsonrpc": "2.0", "method": "notifications/initialized"})).as_str()
}

/// write_note request `i`: note `Crash i` whose body holds the word `wombat<i>`.
fn write_request(i: u64) -> String {
    line(
        json!({"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": {
        "name": "write_note",
        "arguments": {"title": format!("Crash {i}"), "directory": "crash",
                      "content": format!("wombat{i} kangaroo")}}}),
    )
}

/// Collects the ids of write_note calls the server answered "Created note", on a thread that
/// ends with the server's stdout.
fn acknowledged(child: &mut Child) -> (Acknowledged, JoinHandle<()>) {
    let acked = Arc::new(Mutex::new(BTreeSet::new()));
    let stdout = child.stdout.take().unwrap();
    let sink = acked.clone();
    let reader = std::thread::spawn(move || {
        for l in BufReader::new(stdout).lines().map_while(Result::ok) {
            let Ok(v) = serde_json::from_str::<Value>(&l) else {
                continue;
            };
            let created = v["result"]["content"][0]["text"]
                .as_str()
                .is_some_and(|t| t.starts_with("# Created note"));
            if let (true, Some(id)) = (created, v["id"].as_u64()) {
                sink.lock().unwrap().insert(id);
            }
        }
    });
    (acked, reader)
}

/// Titles of every note the CLI finds for `word` (which picks up changes on disk first).
fn found_titles(root: &Path, word: &str) -> BTreeSet<String> {
    let v = search_json(root, word, &["--page-size", "5000"]);
    v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap().to_string())
        .collect()
}

/// Every acknowledged note is on disk with its whole body, and searchable.
fn assert_all_kept(root: &Path, acked: &BTreeSet<u64>, context: &str) {
    let dir = root.join("projects/main/crash");
    for i in acked {
        let text = std::fs::read_to_string(dir.join(format!("Crash {i}.md")))
            .unwrap_or_else(|e| panic!("{context}: acknowledged note {i} is not on disk: {e}"));
        assert!(
            text.contains(&format!("wombat{i} kangaroo")),
            "{context}: {text}"
        );
    }
    let found = found_titles(root, "kangaroo");
    let missing: Vec<&u64> = acked
        .iter()
        .filter(|i| !found.contains(&format!("Crash {i}")))
        .collect();
    assert!(
        missing.is_empty(),
        "{context}: {} of {} acknowledged notes are not searchable: {missing:?}",
        missing.len(),
        acked.len()
    );
}

type Acknowledged = Arc<Mutex<BTreeSet<u64>>>;

/// A server given the handshake and twenty writes, with its stdin still open.
fn twenty_writes_sent(root: &Path) -> (Child, ChildStdin, Acknowledged, JoinHandle<()>) {
    let mut child = serve(root);
    let (acked, reader) = acknowledged(&mut child);
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(initialize_and_twenty_writes().as_bytes())
        .unwrap();
    (child, stdin, acked, reader)
}

#[test]
fn writes_answered_before_stdin_closes_are_searchable_afterwards() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, stdin, acked, reader) = twenty_writes_sent(dir.path());
    drop(stdin);
    assert!(child.wait().unwrap().success());
    reader.join().unwrap();
    let acked = acked.lock().unwrap().clone();
    assert_eq!(acked.len(), 20, "every write was answered");
    assert_all_kept(dir.path(), &acked, "stdin closed");
}

#[test]
fn writes_answered_before_sigterm_are_searchable_afterwards() {
    let dir = tempfile::tempdir().unwrap();
    let (mut child, stdin, acked, reader) = twenty_writes_sent(dir.path());
    assert!(
        eventually(SLOW, || acked.lock().unwrap().len() == 20),
        "every write was answered"
    );
    // SAFETY: signalling a child process this test started.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    assert!(child.wait().unwrap().success(), "SIGTERM is a clean stop");
    reader.join().unwrap();
    drop(stdin);
    let acked = acked.lock().unwrap().clone();
    assert_all_kept(dir.path(), &acked, "SIGTERM");
}

#[test]
fn writes_answered_before_kill_9_are_searchable_after_a_restart() {
    for delay_ms in [0u64, 400, 900] {
        let dir = tempfile::tempdir().unwrap();
        let mut child = serve(dir.path());
        let (acked, reader) = acknowledged(&mut child);
        let mut stdin = child.stdin.take().unwrap();
        stdin.write_all(initialize().as_bytes()).unwrap();
        let writer = std::thread::spawn(move || {
            for i in 1.. {
                if stdin.write_all(write_request(i).as_bytes()).is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(1));
            }
        });
        // Killed at several points of a stream of writes, each after the first was answered.
        assert!(
            eventually(SLOW, || !acked.lock().unwrap().is_empty()),
            "no write was answered"
        );
        std::thread::sleep(Duration::from_millis(delay_ms));
        child.kill().unwrap();
        child.wait().unwrap();
        writer.join().unwrap();
        reader.join().unwrap();
        let acked = acked.lock().unwrap().clone();
        assert_all_kept(
            dir.path(),
            &acked,
            &format!("kill -9 {delay_ms} ms after the first answer"),
        );
    }
}

/// Runs `gitmem ARGS` and kills it with SIGKILL after `after`.
fn killed_after(root: &Path, home: &Path, args: &[&str], after: Duration) {
    let mut child = crate::common::gitmem_command()
        .arg("--root")
        .arg(root)
        .args(args)
        .env("HOME", home)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(after);
    let _ = child.kill();
    child.wait().unwrap();
}

fn timed(f: impl FnOnce()) -> Duration {
    let start = Instant::now();
    f();
    start.elapsed()
}

/// Notes of the project in `status`, and hits of a common word.
fn counts(root: &Path, home: &Path, project: &str) -> (u64, u64) {
    let json = |args: &[&str]| gitmem_home(root, home, args).ok().json();
    let status = json(&["status", "--project", project, "--json"]);
    let notes = status["projects"][0]["notes"].as_u64().unwrap();
    let search = json(&["search", "memory", "--project", project, "--json"]);
    (notes, search["total"].as_u64().unwrap())
}

#[test]
fn a_reindex_killed_half_way_is_finished_by_the_next_process() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    let root = dir.path().join("root");
    let generated = make_vault(&vault, 1500);
    root_with_project(&root, &vault);
    let full = timed(|| {
        gitmem(&root, &["reindex", "--project", "vault"]).ok();
    });
    let expected = counts(&root, dir.path(), "vault");
    assert_eq!(expected.0, generated.notes as u64);
    for fraction in [0.2, 0.5, 0.8] {
        killed_after(
            &root,
            dir.path(),
            &["reindex", "--project", "vault"],
            full.mul_f64(fraction),
        );
        // `status` does not scan: it sees what the start-up repair made of the index.
        assert_eq!(
            counts(&root, dir.path(), "vault"),
            expected,
            "after a reindex killed at {:.0} % of its run",
            fraction * 100.0
        );
    }
}

#[test]
fn a_reindex_still_running_is_not_finished_by_a_status_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let vault = dir.path().join("vault");
    let root = dir.path().join("root");
    make_vault(&vault, 20);
    root_with_project(&root, &vault);
    gitmem(&root, &["reindex", "--project", "vault"]).ok();
    // What a running `reindex` holds: its marker, locked (a killed one's lock is released).
    let marker = root
        .join("index")
        .join("rebuilding")
        .join(hex::encode("vault"));
    std::fs::create_dir_all(marker.parent().unwrap()).unwrap();
    std::fs::write(&marker, "vault").unwrap();
    let running = std::fs::File::open(&marker).unwrap();
    running.lock().unwrap();
    let status = |root: &Path| {
        let out = gitmem(root, &["status", "--check", "--project", "vault", "--json"]).ok();
        (
            out.json()["projects"][0]["interrupted_reindex"].clone(),
            out.stderr,
        )
    };
    let (interrupted, stderr) = status(&root);
    assert_eq!(interrupted, json!(false), "{stderr}");
    assert!(!stderr.contains("interrupted reindex"), "{stderr}");
    assert!(
        marker.exists(),
        "the running reindex's marker is left to it"
    );
    drop(running);
    let (_, stderr) = status(&root);
    assert!(
        stderr.contains("finishing the interrupted reindex"),
        "{stderr}"
    );
    assert!(!marker.exists());
}

#[test]
fn a_linked_folder_scan_killed_half_way_loses_nothing_on_the_next_scan() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let vault = home.join("Vault");
    let root = dir.path().join("root");
    make_vault(&vault, 1500);
    let link = ["link-folder", "--project", "main", "--path"];
    let link: Vec<&str> = link.into_iter().chain([vault.to_str().unwrap()]).collect();
    let reference = dir.path().join("reference");
    let full = timed(|| {
        gitmem_home(&reference, &home, &link).ok();
    });
    let expected = counts(&reference, &home, "main");
    for fraction in [0.3, 0.7] {
        let root = root.join(format!("{fraction}"));
        killed_after(&root, &home, &link, full.mul_f64(fraction));
        // A second link of the same folder updates the link (if the first got that far) and
        // scans again.
        gitmem_home(&root, &home, &link).ok();
        assert_eq!(
            counts(&root, &home, "main"),
            expected,
            "after a link scan killed at {:.0} % of its run",
            fraction * 100.0
        );
    }
}

#[test]
fn status_check_fails_on_drift_and_repair_clears_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    gitmem(
        root,
        &[
            "tool",
            "write_note",
            "--args",
            r#"{"title": "One", "directory": "n", "content": "kiwi"}"#,
        ],
    )
    .ok();
    assert_eq!(gitmem(root, &["status", "--check"]).code, 0);
    std::fs::write(root.join("projects/main/n/Two.md"), "# Two\n\nkiwi\n").unwrap();
    let drift = gitmem(root, &["status", "--check", "--json"]);
    assert_eq!(drift.code, 1, "{}", drift.stderr);
    assert_eq!(
        drift.json()["projects"][0]["not_indexed"],
        json!(["n/Two.md"])
    );
    let repaired = gitmem(root, &["repair", "--json"]).ok().json();
    assert_eq!(repaired["after"]["projects"][0]["not_indexed"], json!([]));
    assert_eq!(gitmem(root, &["status", "--check"]).code, 0);
}
