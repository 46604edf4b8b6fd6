//! An independent client over HTTP: the official MCP Python SDK (`tests/clients/`), with a
//! bearer token and through its OAuth flow, in the virtualenv of `common::python`.

mod common;

use std::path::PathBuf;
use std::process::Command;

use common::http::HttpServer;
use common::python::python;
use common::{assert_mentions, gitmem};
use serde_json::Value;

fn run_client(url: &str, mode: &str, secret: &str) -> Value {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/clients/mcp_http_client.py");
    let output = Command::new(python())
        .arg(script)
        .args([url, mode, secret])
        .output()
        .expect("running the Python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the Python client failed:\n{stdout}\n{stderr}"
    );
    assert!(
        !stderr.contains("failed"),
        "the Python client complained:\n{stderr}"
    );
    serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"))
}

fn check(summary: &Value, mode: &str) {
    assert_eq!(summary["write_error"], false, "{summary}");
    assert_eq!(summary["connector_error"], false, "{summary}");
    assert_mentions(
        summary["connector"]["results"][0]["url"]
            .as_str()
            .unwrap_or(""),
        "/notes/main/sdk/",
    );
    let tools: Vec<&str> = summary["tools"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(Value::as_str)
        .collect();
    assert!(
        tools.contains(&"write_note") && tools.contains(&"search_notes"),
        "{tools:?}"
    );
    assert_mentions(
        summary["write"].as_str().unwrap(),
        &format!("From Python {mode}"),
    );
    assert_mentions(
        summary["search"].as_str().unwrap(),
        &format!("From Python {mode}"),
    );
}

#[test]
fn the_python_sdk_works_with_a_bearer_token() {
    let root = tempfile::tempdir().unwrap();
    let made = gitmem(root.path(), &["token", "create", "python"]).ok();
    let server = HttpServer::start(root.path(), &[]);
    let summary = run_client(&server.url("/mcp"), "token", made.stdout.trim());
    check(&summary, "token");
    assert!(root
        .path()
        .join("projects/main/sdk/From Python token.md")
        .is_file());
}

#[test]
fn the_python_sdk_signs_in_through_oauth() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &[]);
    let code = server
        .one_time
        .clone()
        .expect("a one-time code on loopback");
    let summary = run_client(&server.url("/mcp"), "oauth", &code);
    check(&summary, "oauth");
    let stored = std::fs::read_to_string(root.path().join("auth/oauth.json")).unwrap();
    assert_mentions(&stored, "MCP Python SDK");
}
