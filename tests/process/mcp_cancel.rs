//! What only a running server shows about work that must stop: a call past its deadline is
//! answered and its work stops, a cancelled call stops, and the server goes on serving. Amounts
//! of processor time, never speed, so a loaded machine changes nothing.

use std::path::Path;
use std::time::Duration;

use crate::common::mcp::{ready, Mcp};
use crate::common::{eventually, SLOW};
use serde_json::{json, Value};
use tempfile::TempDir;

/// A graph walk that would take many seconds: every note of a linked vault as a primary, with
/// the whole graph around each.
const ENDLESS_WALK: &str =
    r#"{"url": "memory://*", "depth": 10, "page_size": 1000, "max_related": 1000}"#;

/// Processor time a stopped walk may still use: it looks at the stop flag before each note.
/// The whole walk needs many times more (see `ENDLESS_WALK`).
const AFTER_STOP: f64 = 1.0;

/// A server on a generated vault of 400 well-linked notes, with the initial indexing done:
/// the graph (sync_status says ready) and the search index, which commits after it (the
/// server falls idle).
fn server_on_a_vault(envs: &[(&str, &Path)]) -> (TempDir, Mcp) {
    let dir = tempfile::tempdir().unwrap();
    crate::common::make_vault(&dir.path().join("projects/main"), 400);
    let mut mcp = Mcp::start_env(dir.path(), &[], envs);
    ready(&mut mcp, SLOW);
    assert!(
        falls_idle(&mcp),
        "the server never fell idle after its initial indexing"
    );
    (dir, mcp)
}

/// Whether the server, within a minute, spends a second of wall time using almost no
/// processor time (its own, whatever else the machine runs).
fn falls_idle(mcp: &Mcp) -> bool {
    eventually(Duration::from_secs(60), || {
        let before = mcp.cpu_seconds();
        std::thread::sleep(Duration::from_secs(1));
        mcp.cpu_seconds() - before < 0.1
    })
}

/// Falls idle having spent at most `AFTER_STOP` of processor time since `stopped_at` (the
/// server's processor time when its walk was told to stop): amounts of work, not speed, so a
/// loaded machine changes nothing.
fn assert_stops(mcp: &Mcp, stopped_at: f64, what: &str) {
    assert!(falls_idle(mcp), "the walk went on after {what}");
    let spent = mcp.cpu_seconds() - stopped_at;
    assert!(
        spent < AFTER_STOP,
        "the walk went on after {what}: {spent:.2} s of processor time"
    );
}

/// A search answered once the server is idle again (a short call deadline applies to it too).
fn answers_a_search(mcp: &mut Mcp) -> bool {
    eventually(SLOW, || {
        let next = mcp.call("search_notes", json!({"query": "note"}));
        !next.is_error && !next.text.is_empty()
    })
}

#[test]
fn a_call_past_its_deadline_is_answered_and_its_work_stops() {
    let (_dir, mut mcp) = server_on_a_vault(&[("GITMEM_CALL_DEADLINE_MS", Path::new("300"))]);
    let args: Value = serde_json::from_str(ENDLESS_WALK).unwrap();
    let reply = mcp.call("build_context", args);
    let stopped_at = mcp.cpu_seconds();
    assert!(reply.is_error, "{}", reply.text);
    assert!(
        reply.text.contains("no answer within 0.3 s"),
        "{}",
        reply.text
    );
    assert_stops(&mcp, stopped_at, "the deadline");
    assert!(answers_a_search(&mut mcp), "the server went on");
}

#[test]
fn a_cancelled_call_stops_its_work_and_the_server_goes_on() {
    let (_dir, mut mcp) = server_on_a_vault(&[]);
    let idle = mcp.cpu_seconds();
    let args: Value = serde_json::from_str(ENDLESS_WALK).unwrap();
    let id = mcp.send(
        "tools/call",
        json!({"name": "build_context", "arguments": args}),
    );
    assert!(
        eventually(SLOW, || mcp.cpu_seconds() - idle > AFTER_STOP),
        "the walk was not running"
    );
    mcp.notify(
        "notifications/cancelled",
        json!({"requestId": id, "reason": "the user moved on"}),
    );
    let stopped_at = mcp.cpu_seconds();
    assert_stops(&mcp, stopped_at, "the cancellation");
    assert!(answers_a_search(&mut mcp), "the server went on");
}
