//! `GET /metrics` on a real server: behind the same tokens as `/mcp`, counters that move with
//! the calls a client makes, and `--metrics-bind`, the scrape port that needs no token and
//! serves nothing else. What each counter counts is tested in process
//! (`tests/tools/metrics.rs`), the text format in `render::metrics`.

use std::path::Path;

use crate::common::http::{get, post, HttpMcp, HttpServer};
use crate::common::{assert_mentions, gitmem};
use serde_json::json;

fn create_token(root: &Path, args: &[&str]) -> String {
    let mut all = vec!["token", "create"];
    all.extend_from_slice(args);
    gitmem(root, &all).ok().stdout.trim().to_string()
}

/// The value of the sample named `key` (name and labels, as written).
fn sample(text: &str, key: &str) -> Option<f64> {
    text.lines()
        .filter(|line| !line.starts_with('#'))
        .find_map(|line| {
            let (name, value) = line.rsplit_once(' ')?;
            (name == key).then(|| value.parse().ok())?
        })
}

fn scrape(url: &str, token: Option<&str>) -> String {
    let auth = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = auth.iter().map(|a| ("Authorization", a.as_str())).collect();
    let answer = get(url, &headers);
    assert_eq!(answer.status, 200, "{}", answer.body);
    assert_mentions(
        answer.content_type.as_deref().unwrap_or(""),
        "text/plain; version=0.0.4",
    );
    answer.body
}

#[test]
fn metrics_need_a_token_and_count_the_calls_clients_make() {
    let root = tempfile::tempdir().unwrap();
    let writer = create_token(root.path(), &["writer"]);
    let reader = create_token(root.path(), &["reader", "--read-only"]);
    let server = HttpServer::start(root.path(), &["--tools", "basic,gitmem"]);
    let url = server.url("/metrics");

    let missing = get(&url, &[]);
    assert_eq!(missing.status, 401);
    assert_mentions(missing.www_authenticate.as_deref().unwrap_or(""), "Bearer");
    let wrong = get(&url, &[("Authorization", "Bearer gmt_not-a-token")]);
    assert_eq!(wrong.status, 401);

    let before = scrape(&url, Some(&reader));
    for class in ["write", "search", "read"] {
        let key = format!("gitmem_tool_calls_total{{class=\"{class}\"}}");
        assert_eq!(sample(&before, &key), Some(0.0), "{key}");
    }
    assert_eq!(sample(&before, "gitmem_conflicts_total"), Some(0.0));

    let mut client = HttpMcp::stateless(&server.base, Some(&writer));
    client
        .call(
            "write_note",
            json!({"title": "Scraped", "directory": "notes", "content": "counted over http"}),
        )
        .ok();
    client
        .call("search_notes", json!({"query": "counted"}))
        .ok();
    let memory = r#"{"id": "deploy-day", "content": "Deploys happen on Tuesdays"}"#;
    let other = r#"{"id": "deploy-day", "content": "Deploys happen on Fridays"}"#;
    let auth = format!("Bearer {writer}");
    let headers = [("Authorization", auth.as_str())];
    let ingested = post(
        &server.url("/ingest"),
        &headers,
        &[memory, other].join("\n"),
    );
    assert_eq!(ingested.status, 207, "{}", ingested.body);

    let after = scrape(&url, Some(&reader));
    let cases = [
        ("gitmem_tool_calls_total{class=\"write\"}", 1.0),
        ("gitmem_tool_calls_total{class=\"search\"}", 1.0),
        ("gitmem_tool_errors_total{class=\"write\"}", 0.0),
        ("gitmem_conflicts_total", 1.0),
        (
            "gitmem_tool_call_duration_seconds_count{class=\"search\"}",
            1.0,
        ),
        (
            "gitmem_http_request_duration_seconds_count{route=\"ingest\"}",
            1.0,
        ),
    ];
    for (key, expected) in cases {
        assert_eq!(sample(&after, key), Some(expected), "{key}\n{after}");
    }
    let mcp_requests = "gitmem_http_request_duration_seconds_count{route=\"mcp\"}";
    assert_eq!(sample(&after, mcp_requests), Some(2.0), "{after}");
    for gauge in [
        "gitmem_index_lag_commits",
        "gitmem_search_outbox_notes",
        "gitmem_embedding_backlog_notes",
    ] {
        assert!(sample(&after, gauge).is_some(), "{gauge}\n{after}");
    }
}

#[test]
fn metrics_bind_serves_metrics_alone_without_a_token() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &["--metrics-bind", "127.0.0.1:0"]);
    let announced = server.stderr.lock().unwrap().clone();
    let url = announced
        .lines()
        .find_map(|l| l.strip_prefix("gitmem: serving metrics without a token at "))
        .unwrap_or_else(|| panic!("no metrics address announced:\n{announced}"))
        .trim()
        .to_string();
    let base = url.trim_end_matches("/metrics");
    assert_ne!(base, server.base, "a listener of its own");

    let text = scrape(&url, None);
    assert!(sample(&text, "gitmem_tool_calls_total{class=\"write\"}").is_some());
    for path in ["/mcp", "/healthz", "/ingest", "/notes/main/x"] {
        assert_eq!(get(&format!("{base}{path}"), &[]).status, 404, "{path}");
    }
    let initialize = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize"});
    let posted = post(&format!("{base}/mcp"), &[], &initialize.to_string());
    assert_eq!(posted.status, 404);
    // The main listener's /metrics still asks for a token.
    assert_eq!(get(&server.url("/metrics"), &[]).status, 401);
}
