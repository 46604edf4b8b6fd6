//! An independent client over HTTP: the official MCP Python SDK (`tests/clients/`), with a
//! bearer token and through its OAuth flow, in the virtualenv of `crate::common::python`.

use std::process::Command;

use crate::common::http::HttpServer;
use crate::common::python::python;
use crate::common::{assert_mentions, gitmem};
use serde_json::Value;

fn run_client(url: &str, mode: &str, secret: &str) -> Value {
    let script = crate::common::workspace_root().join("tests/clients/mcp_http_client.py");
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

#[test]
fn records_ingested_over_http_are_found_by_the_python_sdk() {
    let root = tempfile::tempdir().unwrap();
    let token = gitmem(root.path(), &["token", "create", "ingest"]).ok();
    let server = HttpServer::start(root.path(), &["--tools", "basic,gitmem"]);
    let script = crate::common::workspace_root().join("tests/clients/mcp_ingest_client.py");
    let output = Command::new(python())
        .arg(script)
        .args([&server.base, token.stdout.trim()])
        .output()
        .expect("running the Python client");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the Python client failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let summary: Value =
        serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    assert_eq!(summary["ingest_status"], 207, "{summary}");
    let statuses: Vec<&Value> = summary["ingest"]["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| &r["status"])
        .collect();
    assert_eq!(statuses, [201, 201, 400], "{summary}");
    assert_eq!(summary["search_error"], false, "{summary}");
    assert_eq!(
        summary["search"]["items"][0]["id"], "py-ingest-1",
        "{summary}"
    );
    assert_eq!(
        (&summary["get"]["type"], &summary["get"]["content"]),
        (
            &Value::from("fact"),
            &Value::from("Quarterly taxes are due on the fifteenth\n")
        ),
        "{summary}"
    );
}
