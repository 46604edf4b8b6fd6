//! `POST /ingest` on a real server: the statuses a client sees (207 with each line's own, 400
//! for a body that is not JSON Lines, 413 past the body limit) and the same tokens and scopes
//! as `/mcp`. What each line becomes is tested in process (`tests/tools/memory/ingest.rs`).

use std::path::Path;

use crate::common::http::{get, post, HttpServer};
use crate::common::{assert_mentions, gitmem};
use serde_json::{json, Value};

fn create_token(root: &Path, args: &[&str]) -> String {
    let mut all = vec!["token", "create"];
    all.extend_from_slice(args);
    gitmem(root, &all).ok().stdout.trim().to_string()
}

fn ingest(server: &HttpServer, token: Option<&str>, query: &str, body: &str) -> (u16, Value) {
    let auth = token.map(|t| format!("Bearer {t}"));
    let mut headers = vec![("Content-Type", "application/x-ndjson")];
    if let Some(auth) = &auth {
        headers.push(("Authorization", auth.as_str()));
    }
    let answer = post(&server.url(&format!("/ingest{query}")), &headers, body);
    (answer.status, answer.json())
}

#[test]
fn ingest_answers_207_with_each_lines_status_for_a_token_that_may_write() {
    let root = tempfile::tempdir().unwrap();
    let writer = create_token(root.path(), &["writer"]);
    let reader = create_token(root.path(), &["reader", "--read-only"]);
    let other = root.path().join("other");
    std::fs::create_dir_all(&other).unwrap();
    gitmem(
        root.path(),
        &["project", "add", "other", other.to_str().unwrap()],
    )
    .ok();
    let server = HttpServer::start(root.path(), &[]);
    let body = [
        r#"{"id": "deploy-day", "content": "Deploys happen on Tuesdays", "tags": ["ops"]}"#,
        r#"{"content": "x", "ttl": "a week"}"#,
        r#"{"id": "deploy-day", "content": "Deploys happen on Fridays"}"#,
    ]
    .join("\n");

    let (status, answer) = ingest(&server, Some(&writer), "", &body);
    assert_eq!(status, 207, "{answer}");
    let lines: Vec<(Value, Value)> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["line"].clone(), r["status"].clone()))
        .collect();
    assert_eq!(
        lines,
        [
            (json!(1), json!(201)),
            (json!(2), json!(400)),
            (json!(3), json!(409))
        ]
    );
    assert_eq!(
        answer["results"][0]["permalink"],
        "main/memories/deploys-happen-on-tuesdays"
    );
    assert!(root
        .path()
        .join("projects/main/memories/Deploys happen on Tuesdays.md")
        .is_file());
    // A retry of the same body changes nothing and says so.
    let (status, again) = ingest(&server, Some(&writer), "", &body);
    assert_eq!((status, &again["unchanged"]), (207, &json!(1)), "{again}");

    // ?project= chooses the project, as a tool's `project` does.
    let (status, answer) = ingest(
        &server,
        Some(&writer),
        "?project=other",
        r#"{"content": "Kept in the other project"}"#,
    );
    assert_eq!(status, 207, "{answer}");
    assert_eq!(answer["project"], "other");
    assert!(other
        .join("memories/Kept in the other project.md")
        .is_file());

    // The same tokens and scopes as /mcp.
    let (status, answer) = ingest(&server, Some(&reader), "", &body);
    assert_eq!(
        (status, &answer["error"]),
        (403, &json!("insufficient_scope"))
    );
    let (status, answer) = ingest(&server, None, "", &body);
    assert_eq!((status, &answer["error"]), (401, &json!("invalid_token")));
    let (status, _) = ingest(&server, Some("gmt_not-a-token"), "", &body);
    assert_eq!(status, 401);
}

#[test]
fn ingest_refuses_a_body_that_is_not_json_lines_with_400_and_one_too_large_with_413() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &["--max-request-bytes", "2000"]);
    let token = server
        .one_time
        .clone()
        .expect("a one-time token on loopback");

    let (status, answer) = ingest(&server, Some(&token), "", "hello\nworld\n");
    assert_eq!((status, &answer["error"]), (400, &json!("invalid_request")));
    assert_mentions(
        answer["error_description"].as_str().unwrap(),
        "the body is not JSON Lines (no line of the body is JSON)",
    );
    let (status, _) = ingest(&server, Some(&token), "", "");
    assert_eq!(status, 400);
    let (status, answer) = ingest(&server, Some(&token), "?project=nowhere", "{}");
    assert_eq!(status, 404, "{answer}");

    let big = json!({"content": "y".repeat(3000)}).to_string();
    let (status, answer) = ingest(&server, Some(&token), "", &big);
    assert_eq!(
        (status, &answer["error"]),
        (413, &json!("request_too_large"))
    );
    assert!(!root.path().join("projects/main/memories").exists());

    let auth = format!("Bearer {token}");
    let listed = get(&server.url("/ingest"), &[("Authorization", &auth)]);
    assert_eq!(listed.status, 405);
}
