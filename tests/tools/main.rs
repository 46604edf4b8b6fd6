//! Tool behaviour, in process: each test calls the tool table of an `App` over its own temporary
//! root through [`Harness`], with no server in between. The areas share one test binary because
//! every test binary links milli, which is slow. What only a running server shows (the protocol,
//! stdout, background indexing, the watcher) lives in `tests/process`. The modules follow the
//! tool families of `mcp::tools`, with a few that cut across them (arguments, coverage,
//! outcomes, reliability, safety, snapshots, reference).

#[path = "../common/mod.rs"]
mod common;
// Not a module of `common`: the stdio test binaries would then build and link against the
// library too, which doubles their link time for code they never call.
#[path = "../common/harness.rs"]
mod harness;

mod activity;
mod arguments;
mod chatgpt;
mod context;
mod correct;
mod coverage;
mod crypto;
mod decay;
mod directory;
mod git;
mod graph;
mod graph_query;
mod history;
mod import;
mod inspect;
mod links;
mod memory;
mod metrics;
mod models;
mod notes;
mod outcomes;
mod pack;
mod posix;
mod projects;
mod redaction;
mod reference;
mod reliability;
mod safety;
mod schema;
mod search;
mod semantic;
mod snapshots;

use harness::{Harness, ReplyExt};
use serde_json::{json, Value};

/// `total` of a paged JSON reply.
fn total(v: &Value) -> u64 {
    v["total"]
        .as_u64()
        .unwrap_or_else(|| panic!("no total: {v}"))
}

/// Titles of the `results` of a JSON reply, in order.
fn titles(v: &Value) -> Vec<String> {
    v["results"]
        .as_array()
        .unwrap_or_else(|| panic!("no results: {v}"))
        .iter()
        .map(|r| r["title"].as_str().unwrap_or_default().to_string())
        .collect()
}

/// A fresh root whose default project is versioned, with these lines in its
/// `[projects.main.git]` table; its history starts with one commit.
fn versioned_with(options: &[&str]) -> Harness {
    let dir = tempfile::tempdir().expect("a temporary root");
    let config = format!(
        "[projects.main]\npath = \"projects/main\"\n\n[projects.main.git]\n{}\n",
        options.join("\n")
    );
    std::fs::write(dir.path().join("config.toml"), config).expect("writing config.toml");
    let h = Harness::prepared(dir);
    h.app()
        .version_project("main", None)
        .expect("versioning the default project");
    h
}

/// A fresh root whose default project is versioned.
fn versioned() -> Harness {
    versioned_with(&[])
}

/// The note most compat checks start from (compat 13, item 2); the reply's text.
fn write_test_note(h: &Harness) -> String {
    h.text(
        "write_note",
        json!({"title": "Test Note", "directory": "test", "content": "# Test\nThis is a test note", "tags": ["test", "documentation"]}),
    )
}
