//! `gitmem serve --transport http`, as a remote client meets it: a real process on a loopback
//! port, a real HTTP client.

use std::path::Path;
use std::time::Duration;

use crate::common::http::{get, post, HttpMcp, HttpServer};
use crate::common::{assert_mentions, eventually, gitmem};
use serde_json::json;

const SESSION_VERSIONS: [&str; 2] = ["2025-06-18", "2025-11-25"];

fn create_token(root: &Path, args: &[&str]) -> String {
    let mut all = vec!["token", "create"];
    all.extend_from_slice(args);
    let made = gitmem(root, &all).ok();
    let token = made.stdout.trim().to_string();
    assert!(token.starts_with("gmt_"), "{}", made.stdout);
    token
}

fn bearer(token: &str) -> String {
    format!("Bearer {token}")
}

#[test]
fn healthz_answers_without_a_token_and_says_nothing_else() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &[]);
    let health = get(&server.url("/healthz"), &[]);
    assert_eq!(health.status, 200);
    assert_eq!(health.json(), json!({"ok": true, "storage": "local"}));
}

#[test]
fn a_bearer_token_is_accepted_and_a_missing_wrong_or_revoked_one_is_not() {
    let root = tempfile::tempdir().unwrap();
    let token = create_token(root.path(), &["laptop"]);
    let server = HttpServer::start(root.path(), &[]);
    assert_eq!(
        server.one_time, None,
        "a stored token replaces the one-time one"
    );

    let mut client = HttpMcp::connect(&server.base, Some(&token), SESSION_VERSIONS[0])
        .unwrap_or_else(|a| panic!("{a:?}"));
    client
        .call(
            "write_note",
            json!({"title": "Remote", "directory": "notes", "content": "over http"}),
        )
        .ok();

    let missing = HttpMcp::connect(&server.base, None, SESSION_VERSIONS[0]).unwrap_err();
    assert_eq!(missing.status, 401);
    assert_mentions(missing.www_authenticate.as_deref().unwrap_or(""), "Bearer");
    let wrong =
        HttpMcp::connect(&server.base, Some("gmt_not-a-token"), SESSION_VERSIONS[0]).unwrap_err();
    assert_eq!(wrong.status, 401);
    assert_eq!(wrong.json()["error"], "invalid_token");

    gitmem(root.path(), &["token", "revoke", "laptop"]).ok();
    let revoked = client.request("tools/list", json!({})).unwrap_err();
    assert_eq!(
        revoked.status, 401,
        "a revoked token stops at its next request"
    );
    let listed = gitmem(root.path(), &["token", "list", "--json"])
        .ok()
        .json();
    assert_eq!(listed, json!([]));
}

#[test]
fn a_read_only_token_sees_and_calls_only_the_read_tools() {
    let root = tempfile::tempdir().unwrap();
    let writer = create_token(root.path(), &["writer"]);
    let reader = create_token(root.path(), &["reader", "--read-only"]);
    let server = HttpServer::start(root.path(), &[]);
    HttpMcp::stateless(&server.base, Some(&writer))
        .call(
            "write_note",
            json!({"title": "Shared", "directory": "notes", "content": "readable"}),
        )
        .ok();

    let mut client = HttpMcp::stateless(&server.base, Some(&reader));
    let tools = client.tools();
    assert!(tools.contains(&"read_note".to_string()), "{tools:?}");
    assert!(tools.contains(&"search_notes".to_string()), "{tools:?}");
    for write in ["write_note", "edit_note", "delete_note", "move_note"] {
        assert!(!tools.contains(&write.to_string()), "{write} in {tools:?}");
    }
    let refused = client.call(
        "write_note",
        json!({"title": "Nope", "directory": "notes", "content": "x"}),
    );
    assert!(refused.is_error);
    assert_mentions(&refused.text, "read-only");
    assert!(!root.path().join("projects/main/notes/Nope.md").exists());
    let read = client
        .call("read_note", json!({"identifier": "Shared"}))
        .ok();
    assert_mentions(&read.text, "readable");
}

#[test]
fn a_project_token_works_in_its_project_only() {
    let root = tempfile::tempdir().unwrap();
    let work = root.path().join("work");
    std::fs::create_dir_all(&work).unwrap();
    gitmem(
        root.path(),
        &["project", "add", "work", work.to_str().unwrap()],
    )
    .ok();
    gitmem(
        root.path(),
        &["tool", "write_note", "--args",
          r#"{"title": "Secret", "directory": "private", "content": "not for work", "project": "main"}"#],
    )
    .ok();
    let token = create_token(root.path(), &["work-only", "--project", "work"]);
    let server = HttpServer::start(root.path(), &[]);
    let mut client = HttpMcp::stateless(&server.base, Some(&token));
    client
        .call(
            "write_note",
            json!({"title": "Plan", "directory": "notes", "content": "work plan"}),
        )
        .ok();
    assert!(work.join("notes/Plan.md").is_file());
    // Naming another project does not leave the token's: as with `serve --project`, the
    // constraint wins.
    client
        .call(
            "write_note",
            json!({"title": "Elsewhere", "directory": "notes", "content": "x", "project": "main"}),
        )
        .ok();
    assert!(work.join("notes/Elsewhere.md").is_file());
    assert!(!root
        .path()
        .join("projects/main/notes/Elsewhere.md")
        .exists());
    let secret = client.call(
        "read_note",
        json!({"identifier": "memory://main/private/secret"}),
    );
    assert!(!secret.text.contains("not for work"), "{}", secret.text);
    let searched = client.call("search_notes", json!({"query": "secret"})).ok();
    assert!(!searched.text.contains("not for work"), "{}", searched.text);
    let projects = client.call("list_memory_projects", json!({})).ok();
    assert_mentions(&projects.text, "Project: work");
    assert!(!projects.text.contains("main"), "{}", projects.text);

    let unknown = gitmem(
        root.path(),
        &["token", "create", "x", "--project", "nowhere"],
    );
    assert_ne!(unknown.code, 0);
    assert_mentions(&unknown.stderr, "nowhere");
}

#[test]
fn a_token_for_several_projects_reaches_those_and_no_other() {
    let root = tempfile::tempdir().unwrap();
    for name in ["work", "private"] {
        let dir = root.path().join(name);
        std::fs::create_dir_all(&dir).unwrap();
        gitmem(
            root.path(),
            &["project", "add", name, dir.to_str().unwrap()],
        )
        .ok();
    }
    gitmem(
        root.path(),
        &[
            "tool",
            "write_note",
            "--args",
            r#"{"title": "Diary", "directory": "d", "content": "hiddenword", "project": "private"}"#,
        ],
    )
    .ok();
    let token = create_token(
        root.path(),
        &["two", "--project", "main", "--project", "work"],
    );
    let listed = gitmem(root.path(), &["token", "list", "--json"])
        .ok()
        .json();
    assert_eq!(listed[0]["projects"], json!(["main", "work"]));
    let server = HttpServer::start(root.path(), &[]);
    let mut client = HttpMcp::stateless(&server.base, Some(&token));

    let projects = client.call("list_memory_projects", json!({})).ok();
    assert_mentions(&projects.text, "work");
    assert!(!projects.text.contains("private"), "{}", projects.text);
    for project in ["main", "work"] {
        client
            .call(
                "write_note",
                json!({"title": "Shared", "directory": "s", "content": "x", "project": project}),
            )
            .ok();
    }
    let refused = client.call(
        "write_note",
        json!({"title": "Nope", "directory": "s", "content": "x", "project": "private"}),
    );
    assert!(refused.is_error);
    assert_mentions(&refused.text, "may use only the projects main, work");
    let everywhere = client
        .call(
            "search_notes",
            json!({"query": "hiddenword", "search_all_projects": true}),
        )
        .ok();
    assert!(!everywhere.text.contains("Diary"), "{}", everywhere.text);
    let by_url = client.call(
        "read_note",
        json!({"identifier": "memory://private/d/diary"}),
    );
    assert!(by_url.is_error, "{}", by_url.text);
    assert_mentions(&by_url.text, "may use only");
}

/// A client that sends its whole body before it reads (most do) must read the 413, not a
/// reset: the server reads the rest of an oversized body before it answers. A body without a
/// length is cut off as it passes the limit; a client that waits for `100 Continue` is
/// answered before it sends anything.
#[test]
fn an_oversized_body_gets_a_413_the_client_can_read() {
    use std::io::{Read, Write};
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &["--max-request-bytes", "100000"]);
    let token = server
        .one_time
        .clone()
        .expect("a one-time token on loopback");
    let content = "x".repeat(200_000);
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
        "params": {"name": "write_note", "arguments": {"title": "Big", "directory": "d", "content": content}}})
    .to_string();
    let headers = [
        ("Authorization", bearer(&token)),
        ("Content-Type", "application/json".to_string()),
        ("Accept", "application/json, text/event-stream".to_string()),
    ];
    let borrowed: Vec<(&str, &str)> = headers.iter().map(|(n, v)| (*n, v.as_str())).collect();
    for attempt in 0..3 {
        let declared = post(&server.url("/mcp"), &borrowed, &body);
        assert_eq!(declared.status, 413, "attempt {attempt}: {}", declared.body);
        assert_eq!(declared.json()["error"], "request_too_large");
    }

    let address = server.base.trim_start_matches("http://");
    let head = |framing: &str| {
        format!(
            "POST /mcp HTTP/1.1\r\nHost: {address}\r\nAuthorization: {}\r\nContent-Type: application/json\r\n\
             Accept: application/json, text/event-stream\r\n{framing}\r\n",
            bearer(&token)
        )
    };
    let answer_of = |mut stream: std::net::TcpStream| {
        let mut answer = String::new();
        stream
            .read_to_string(&mut answer)
            .expect("reading the answer");
        answer
    };

    let mut chunked = std::net::TcpStream::connect(address).unwrap();
    chunked
        .write_all(head("Transfer-Encoding: chunked\r\n").as_bytes())
        .unwrap();
    for piece in body.as_bytes().chunks(16 * 1024) {
        write!(chunked, "{:x}\r\n", piece.len()).unwrap();
        chunked.write_all(piece).unwrap();
        chunked.write_all(b"\r\n").unwrap();
    }
    chunked.write_all(b"0\r\n\r\n").unwrap();
    let answer = answer_of(chunked);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");

    let mut waiting = std::net::TcpStream::connect(address).unwrap();
    let framing = format!("Content-Length: {}\r\nExpect: 100-continue\r\n", body.len());
    waiting.write_all(head(&framing).as_bytes()).unwrap();
    let answer = answer_of(waiting);
    assert!(answer.starts_with("HTTP/1.1 413"), "{answer}");
    assert!(!answer.contains("100 Continue"), "{answer}");
}

#[test]
fn a_foreign_origin_or_host_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &["--allow-origin", "https://app.example.com"]);
    let token = server.one_time.clone().unwrap();
    let auth = bearer(&token);
    let evil = get(
        &server.url("/notes/main/x"),
        &[
            ("Authorization", &auth),
            ("Origin", "https://evil.example.com"),
        ],
    );
    assert_eq!(evil.status, 403);
    assert_eq!(evil.json()["error"], "forbidden_origin");
    let rebound = get(
        &server.url("/notes/main/x"),
        &[("Authorization", &auth), ("Host", "attacker.example.com")],
    );
    assert_eq!(rebound.status, 403);
    assert_eq!(rebound.json()["error"], "forbidden_host");
    let allowed = get(
        &server.url("/notes/main/x"),
        &[
            ("Authorization", &auth),
            ("Origin", "https://app.example.com"),
        ],
    );
    assert_eq!(
        allowed.status, 404,
        "past the checks, the note is simply missing"
    );
}

#[test]
fn both_protocol_forms_serve_the_same_tools() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &[]);
    let token = server.one_time.clone().unwrap();
    let mut stateless = HttpMcp::stateless(&server.base, Some(&token));
    let expected = stateless.tools();
    assert!(expected.contains(&"write_note".to_string()));
    for version in SESSION_VERSIONS {
        let mut client = HttpMcp::connect(&server.base, Some(&token), version)
            .unwrap_or_else(|a| panic!("{version}: {a:?}"));
        assert_eq!(client.initialize["result"]["protocolVersion"], version);
        assert_eq!(client.tools(), expected, "{version}");
        client
            .call(
                "write_note",
                json!({"title": format!("From {version}"), "directory": "v", "content": version}),
            )
            .ok();
    }
    for version in SESSION_VERSIONS {
        let read = stateless
            .call(
                "read_note",
                json!({"identifier": format!("From {version}")}),
            )
            .ok();
        assert_mentions(&read.text, version);
    }
    let prompts = stateless.request("prompts/list", json!({})).unwrap();
    assert!(!prompts["prompts"].as_array().unwrap().is_empty());
}

#[test]
fn twenty_concurrent_clients_writing_and_searching_lose_no_note() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &[]);
    let token = server.one_time.clone().unwrap();
    let base = server.base.clone();
    let clients: Vec<_> = (0..20)
        .map(|c| {
            let (base, token) = (base.clone(), token.clone());
            std::thread::spawn(move || {
                let mut client = if c % 2 == 0 {
                    HttpMcp::connect(&base, Some(&token), SESSION_VERSIONS[c % 4 / 2])
                        .unwrap_or_else(|a| panic!("{a:?}"))
                } else {
                    HttpMcp::stateless(&base, Some(&token))
                };
                for n in 0..5 {
                    client
                        .call(
                            "write_note",
                            json!({"title": format!("client {c} note {n}"), "directory": "load",
                                   "content": format!("marker{c}x{n} from a concurrent client")}),
                        )
                        .ok();
                    client
                        .call("search_notes", json!({"query": format!("marker{c}x{n}")}))
                        .ok();
                }
            })
        })
        .collect();
    for client in clients {
        client.join().expect("a client thread panicked");
    }
    let mut check = HttpMcp::stateless(&base, Some(&token));
    for c in 0..20 {
        for n in 0..5 {
            let path = root
                .path()
                .join(format!("projects/main/load/client {c} note {n}.md"));
            assert!(path.is_file(), "{} is missing", path.display());
            let read = check
                .call(
                    "read_note",
                    json!({"identifier": format!("load/client {c} note {n}")}),
                )
                .ok();
            assert_mentions(
                &read.text,
                &format!("marker{c}x{n} from a concurrent client"),
            );
        }
    }
}

#[test]
fn an_open_bind_without_a_credential_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let refused = HttpServer::try_start(root.path(), &["--bind", "0.0.0.0:0"], &[])
        .err()
        .expect("the server must not start");
    assert_mentions(&refused, "refusing to serve on 0.0.0.0");
    assert_mentions(&refused, "gitmem token create");

    let empty = root.path().join("empty-token");
    std::fs::write(&empty, "  \n").unwrap();
    let refused = HttpServer::try_start(
        root.path(),
        &["--auth-token-file", empty.to_str().unwrap()],
        &[],
    )
    .err()
    .expect("an empty token file is refused");
    assert_mentions(&refused, "is empty");

    let file = root.path().join("token");
    std::fs::write(&file, "gmt_from-a-file\n").unwrap();
    let server = HttpServer::start(
        root.path(),
        &[
            "--bind",
            "0.0.0.0:0",
            "--auth-token-file",
            file.to_str().unwrap(),
        ],
    );
    let port = server.base.rsplit(':').next().unwrap().to_string();
    let local = format!("http://127.0.0.1:{port}");
    let mut client = HttpMcp::stateless(&local, Some("gmt_from-a-file"));
    assert!(client.tools().contains(&"write_note".to_string()));
    let env_server = HttpServer::try_start(
        root.path(),
        &["--bind", "0.0.0.0:0"],
        &[("GITMEM_AUTH_TOKEN", "gmt_from-the-env")],
    )
    .expect("a token in the environment is a credential");
    drop(env_server);
}

#[test]
fn chatgpt_search_links_to_the_note_that_get_notes_serves() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &["--public-url", "https://mem.example.com/"]);
    let token = server.one_time.clone().unwrap();
    let mut client = HttpMcp::stateless(&server.base, Some(&token));
    client
        .call(
            "write_note",
            json!({"title": "Coffee beans", "directory": "kitchen", "content": "Arabica from Kenya"}),
        )
        .ok();
    let listed = client.request("tools/list", json!({})).unwrap();
    let search_tool = listed["tools"]
        .as_array()
        .unwrap()
        .iter()
        .find(|t| t["name"] == "search")
        .unwrap();
    assert!(search_tool["outputSchema"]["properties"]["results"].is_object());
    let found = client.call("search", json!({"query": "coffee beans"})).ok();
    assert_eq!(
        found.json(),
        json!({"results": [{
            "id": "main/kitchen/coffee-beans",
            "title": "Coffee beans",
            "url": "https://mem.example.com/notes/main/kitchen/coffee-beans",
        }]})
    );
    let fetched = client
        .call("fetch", json!({"id": "main/kitchen/coffee-beans"}))
        .ok()
        .json();
    let mut keys: Vec<&str> = fetched
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort();
    assert_eq!(keys, ["id", "metadata", "text", "title", "url"]);
    assert_eq!(fetched["title"], "Coffee beans");
    assert_eq!(
        fetched["url"],
        "https://mem.example.com/notes/main/kitchen/coffee-beans"
    );
    assert_mentions(fetched["text"].as_str().unwrap(), "Arabica from Kenya");

    let note = get(
        &server.url("/notes/main/kitchen/coffee-beans"),
        &[
            ("Authorization", &bearer(&token)),
            ("Host", "mem.example.com"),
        ],
    );
    assert_eq!(note.status, 200);
    assert_mentions(note.content_type.as_deref().unwrap_or(""), "text/markdown");
    assert_mentions(&note.body, "Arabica from Kenya");
    let anonymous = get(&server.url("/notes/main/kitchen/coffee-beans"), &[]);
    assert_eq!(anonymous.status, 401);
    let missing = client.call("fetch", json!({"id": "main/kitchen/tea"}));
    assert!(missing.is_error);
}

#[test]
fn logs_are_json_with_a_request_id_and_never_hold_the_token() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &["--log-format", "json"]);
    let token = server.one_time.clone().unwrap();
    let mut client = HttpMcp::stateless(&server.base, Some(&token));
    client
        .call(
            "write_note",
            json!({"title": "Logged", "directory": "l", "content": "x"}),
        )
        .ok();
    let denied = get(
        &server.url("/notes/main/l/logged"),
        &[("Authorization", "Bearer gmt_guess")],
    );
    let id = denied
        .request_id
        .clone()
        .expect("every answer has a request id");
    let logged = |stderr: &str| {
        stderr
            .lines()
            .filter(|l| l.starts_with('{'))
            .map(|l| {
                serde_json::from_str::<serde_json::Value>(l).unwrap_or_else(|e| panic!("{e}: {l}"))
            })
            .any(|l| l["span"]["id"] == json!(id) && l["fields"]["status"] == json!(401))
    };
    // The line is written before the answer leaves, but read from the pipe by another thread.
    let stderr = || server.stderr.lock().unwrap().clone();
    assert!(
        eventually(Duration::from_secs(60), || logged(&stderr())),
        "no log line for request {id}:\n{}",
        stderr()
    );
    let stderr = stderr();
    let token_text = token.clone();
    let stderr_without_banner: String = stderr.lines().filter(|l| l.starts_with('{')).collect();
    assert!(!stderr_without_banner.contains(&token_text));
    assert!(!stderr_without_banner.contains("gmt_guess"));
}

#[test]
fn each_request_line_of_the_log_carries_its_own_request_alone() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &[]);
    let token = server.one_time.clone().unwrap();
    let clients: Vec<_> = (0..8)
        .map(|c| {
            let (base, token) = (server.base.clone(), token.clone());
            std::thread::spawn(move || {
                let mut client = HttpMcp::stateless(&base, Some(&token));
                for n in 0..5 {
                    client
                        .call(
                            "write_note",
                            json!({"title": format!("c{c} n{n}"), "directory": "d", "content": "x"}),
                        )
                        .ok();
                }
            })
        })
        .collect();
    for client in clients {
        client.join().expect("a client thread panicked");
    }
    let stderr = || server.stderr.lock().unwrap().clone();
    let answered = |log: &str| log.lines().filter(|l| l.contains("answered")).count();
    assert!(
        eventually(Duration::from_secs(60), || answered(&stderr()) >= 40),
        "fewer than 40 requests logged:\n{}",
        stderr()
    );
    // Requests served side by side on the same threads must not nest in each other's spans.
    for line in stderr().lines().filter(|l| l.contains("answered")) {
        assert_eq!(line.matches("request{").count(), 1, "{line}");
    }
}

#[test]
fn sigterm_finishes_acknowledged_writes_and_exits_cleanly() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &[]);
    let token = server.one_time.clone().unwrap();
    let mut client = HttpMcp::connect(&server.base, Some(&token), SESSION_VERSIONS[1])
        .unwrap_or_else(|a| panic!("{a:?}"));
    for n in 0..10 {
        client
            .call(
                "write_note",
                json!({"title": format!("Before stop {n}"), "directory": "s", "content": "durable words"}),
            )
            .ok();
    }
    assert_eq!(server.terminate(), Some(0));
    let found = gitmem(root.path(), &["search", "durable words", "--json"])
        .ok()
        .json();
    assert_eq!(
        found["results"].as_array().map(Vec::len),
        Some(10),
        "{found}"
    );
}

#[test]
fn the_posix_tools_answer_over_http_with_their_structured_content() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &[]);
    let token = server.one_time.clone().unwrap();
    let mut client = HttpMcp::connect(&server.base, Some(&token), SESSION_VERSIONS[1])
        .unwrap_or_else(|a| panic!("{a:?}"));
    let listed = client.tools();
    for name in ["cat", "grep", "ls", "find", "tail", "man"] {
        assert!(listed.contains(&name.to_string()), "{name}: {listed:?}");
    }
    client
        .call(
            "write_note",
            json!({"title": "Deploy", "directory": "ops", "content": "## Steps\nbuild\nship the quokka release\nverify"}),
        )
        .ok();

    let cat = client
        .call(
            "cat",
            json!({"identifier": "ops/Deploy.md", "section": "Steps"}),
        )
        .ok();
    let catted = cat.structured.expect("cat answers structured content");
    assert_eq!(catted["file_path"], "ops/Deploy.md", "{catted}");
    assert_mentions(
        catted["content"].as_str().unwrap(),
        "ship the quokka release",
    );

    let grep = client
        .call("grep", json!({"pattern": "quokka", "context_lines": 0}))
        .ok();
    let grepped = grep.structured.expect("grep answers structured content");
    let window = &grepped["results"][0]["windows"][0];
    assert_mentions(window["content"].as_str().unwrap(), "quokka");
    let line = window["start_line"].as_u64().unwrap();
    let again = client
        .call(
            "cat",
            json!({"identifier": "ops/Deploy.md", "start_line": line, "end_line": line}),
        )
        .ok();
    assert_mentions(&again.text, "ship the quokka release");

    let refused = client.call("cat", json!({"identifier": "No such note"}));
    assert!(refused.is_error, "{}", refused.text);
}
