//! What `/metrics` counts, fed by tool calls in process: each class of call, its errors, the
//! memory API's conflicts and rate-limit refusals, failed pushes, and the gauges of search
//! and embedding. The text format itself is tested in `render::metrics`; the route and its
//! tokens in `tests/http_metrics.rs`.

use engine::metrics::CallClass;
use engine::status::MetricsReport;

use super::*;
use crate::common::{eventually, model, SLOW};

/// (calls, errors) of a class.
fn calls(report: &MetricsReport, class: CallClass) -> (u64, u64) {
    report
        .counts
        .calls
        .iter()
        .find(|c| c.class == class)
        .map(|c| (c.calls, c.errors))
        .expect("every class is reported")
}

#[test]
fn each_tool_call_is_counted_in_its_class_with_its_errors_and_time() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let before = h.app().metrics_report().unwrap();
    for class in CallClass::ALL {
        assert_eq!(calls(&before, class), (0, 0), "{class:?}");
    }

    h.write("Counted", "notes", "a note to find");
    h.call("read_note", json!({"identifier": "notes/counted"}))
        .ok();
    h.call("search_notes", json!({"query": "find"})).ok();
    h.call("grep", json!({"pattern": "note"})).ok();
    h.call("memory_search", json!({"query": "find"})).ok();
    let failed = h.call("read_note", json!({}));
    assert!(failed.is_error());
    let refused = h.call("no_such_tool", json!({}));
    assert!(refused.is_error());

    let report = h.app().metrics_report().unwrap();
    assert_eq!(calls(&report, CallClass::Write), (1, 0));
    assert_eq!(calls(&report, CallClass::Search), (3, 0));
    assert_eq!(
        calls(&report, CallClass::Read),
        (2, 1),
        "a call no tool answers is not counted"
    );
    let timed: u64 = report.counts.calls.iter().map(|c| c.timings.count).sum();
    assert_eq!(timed, 6, "every counted call is timed");
    assert_eq!(report.counts.requests, [], "no HTTP request in process");
}

#[test]
fn conflicts_and_rate_limit_refusals_are_counted_from_the_memory_apis_codes() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("config.toml"),
        "[limits]\nmax_total_daily = 120\n",
    )
    .unwrap();
    let h = Harness::prepared(dir).serving_tools("basic,gitmem");
    let once = json!({"content": "Once", "created_at": "2026-01-01T00:00:00Z"});
    h.call("memory_save", once.clone()).ok();
    assert!(h.call("memory_save", once).is_error(), "E_CONFLICT");
    h.call("memory_save", json!({"content": "a".repeat(100)}))
        .ok();
    let over = h.call("memory_save", json!({"content": "b".repeat(100)}));
    assert!(over.is_error(), "E_RATE_LIMIT");
    // Refusals of another kind are errors, not conflicts.
    assert!(h.call("memory_get", json!({"id": "missing"})).is_error());

    let report = h.app().metrics_report().unwrap();
    assert_eq!(
        (report.counts.conflicts, report.counts.rate_limited),
        (1, 1)
    );
    assert_eq!(calls(&report, CallClass::Write), (4, 2));
    assert_eq!(calls(&report, CallClass::Read), (1, 1));
}

#[test]
fn a_push_that_fails_is_counted() {
    let h = Harness::new();
    h.write("Kept", "notes", "before the remote went away");
    let gone = h.root().join("no-remote-here");
    let url = format!("file://{}", gone.display());
    h.app().version_project("main", Some(&url)).unwrap();
    assert_eq!(h.app().metrics_report().unwrap().counts.push_failures, 0);

    let pushed = h.call("sync", json!({"direction": "push"}));
    assert!(pushed.is_error(), "{}", pushed.text());
    assert_eq!(h.app().metrics_report().unwrap().counts.push_failures, 1);
}

#[test]
fn the_embedding_backlog_counts_the_notes_waiting_for_vectors() {
    let h = Harness::with_notes(&[("One", "first"), ("Two", "second")]);
    let backlog = |h: &Harness| h.app().metrics_report().unwrap().embedding_backlog_notes;
    h.app()
        .install_model(model::source().to_str().unwrap(), None, &|_| {})
        .expect("installing the test model");
    // The harness runs no background embedder: what is written waits until asked.
    assert_eq!(backlog(&h), 2);
    h.app().embed_pending(&|_| {}).unwrap();
    assert_eq!(backlog(&h), 0);
    h.write("Three", "notes", "third");
    assert_eq!(backlog(&h), 1);

    // The graph writer also commits on its own (the uses of notes), and search follows each
    // commit a moment later: the gauges settle at zero.
    h.app().wait_searchable().unwrap();
    let caught_up = || {
        let report = h.app().metrics_report().unwrap();
        (report.index_lag_commits, report.search_outbox_notes) == (0, 0)
    };
    assert!(eventually(SLOW, caught_up), "search never caught up");
}
