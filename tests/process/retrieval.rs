//! Search quality as a regression check: `gitmem bench retrieval` on the bundled demo project
//! with a small golden set of unambiguous questions (`tests/golden/demo.json`), asked the way an
//! agent asks. Each must find its note first. A regression test, not a tuning target: the
//! questions name their topic in other words than the note's title.

use std::path::Path;

use crate::common::*;

/// `gitmem bench retrieval` on the demo project with `golden`.
fn bench_demo(root: &Path, golden: &Path, extra: &[&str]) -> Run {
    let vault = crate::common::workspace_root().join("projects/main");
    let mut args = vec![
        "bench",
        "retrieval",
        "--vault",
        vault.to_str().unwrap(),
        "--golden",
        golden.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    gitmem(root, &args)
}

#[test]
fn unambiguous_questions_find_their_note_first() {
    let root = tempfile::tempdir().unwrap();
    let golden = crate::common::workspace_root().join("tests/golden/demo.json");
    let reports = bench_demo(root.path(), &golden, &["--json"]).ok().json();
    let report = &reports[0];
    assert_eq!(report["search_type"], "text");
    let outcomes = report["outcomes"].as_array().unwrap();
    assert_eq!(outcomes.len(), 8);
    for outcome in outcomes {
        assert_eq!(
            outcome["scores"]["hit_at_1"], 1.0,
            "{}: {} came first",
            outcome["query"], outcome["top"][0]
        );
    }
}

#[test]
fn a_golden_set_that_is_not_a_list_of_queries_is_refused_clearly() {
    let root = tempfile::tempdir().unwrap();
    let golden = root.path().join("golden.json");
    std::fs::write(&golden, r#"{"query": "not a list"}"#).unwrap();
    let run = bench_demo(root.path(), &golden, &[]);
    assert_ne!(run.code, 0, "{}", run.stdout);
    assert!(
        run.stderr.contains("is not a list of graded queries"),
        "{}",
        run.stderr
    );
}

#[test]
fn a_kept_root_holds_the_index_and_a_second_run_scores_the_same() {
    let root = tempfile::tempdir().unwrap();
    let kept = root.path().join("kept");
    let golden = crate::common::workspace_root().join("tests/golden/demo.json");
    let keep = ["--json", "--keep-root", kept.to_str().unwrap()];
    let first = bench_demo(root.path(), &golden, &keep).ok().json();
    assert!(
        kept.join("index").is_dir(),
        "the index stays in the kept root"
    );
    assert!(kept.join("projects/main").is_dir());
    let second = bench_demo(root.path(), &golden, &keep).ok().json();
    assert_eq!(first[0]["overall"], second[0]["overall"]);
}
