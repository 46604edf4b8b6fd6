//! The built-in OAuth 2.1 authorization server, driven end to end by a real HTTP client as a
//! connector drives it: discovery, registration, approval with PKCE, tokens, refresh,
//! revocation.

use std::io::{Read, Write};
use std::path::Path;
use std::process::Stdio;

use crate::common::assert_mentions;
use crate::common::http::{get, post, post_form, query_param, HttpMcp, HttpServer};
use base64::Engine;
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

const PASSWORD: &str = "correct horse battery";
const CALLBACK: &str = "http://127.0.0.1:9/callback";

fn set_password(root: &Path, password: &str) -> crate::common::Run {
    let mut child = crate::common::gitmem_command()
        .arg("--root")
        .arg(root)
        .args(["auth", "set-password"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    writeln!(child.stdin.take().unwrap(), "{password}").unwrap();
    child.wait_with_output().unwrap().into()
}

fn challenge(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()))
}

fn register(server: &HttpServer, name: &str) -> String {
    let registered = post(
        &server.url("/oauth/register"),
        &[("Content-Type", "application/json")],
        &json!({"redirect_uris": [CALLBACK], "client_name": name,
                "token_endpoint_auth_method": "none"})
        .to_string(),
    );
    assert_eq!(registered.status, 201, "{}", registered.body);
    registered.json()["client_id"].as_str().unwrap().to_string()
}

fn authorize_url(server: &HttpServer, client_id: &str, verifier: &str, extra: &str) -> String {
    format!(
        "{}?response_type=code&client_id={client_id}&redirect_uri={}&code_challenge={}&code_challenge_method=S256&state=xyz{extra}",
        server.url("/oauth/authorize"),
        urlencode(CALLBACK),
        challenge(verifier)
    )
}

fn urlencode(s: &str) -> String {
    s.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// Approves `client_id` on the form with `secret`; the code from the redirect.
fn approve(server: &HttpServer, client_id: &str, verifier: &str, scope: &str) -> String {
    approve_for(server, client_id, verifier, scope, &server.url("/mcp"))
}

fn approve_for(
    server: &HttpServer,
    client_id: &str,
    verifier: &str,
    scope: &str,
    resource: &str,
) -> String {
    let fields = [
        ("response_type", "code".to_string()),
        ("client_id", client_id.to_string()),
        ("redirect_uri", CALLBACK.to_string()),
        ("code_challenge", challenge(verifier)),
        ("code_challenge_method", "S256".to_string()),
        ("state", "xyz".to_string()),
        ("scope", scope.to_string()),
        ("resource", resource.to_string()),
        ("secret", PASSWORD.to_string()),
        ("decision", "approve".to_string()),
    ];
    let answer = post_form(
        &server.url("/oauth/authorize"),
        &fields
            .iter()
            .map(|(k, v)| (*k, v.as_str()))
            .collect::<Vec<_>>(),
    );
    assert_eq!(answer.status, 302, "{}", answer.body);
    let location = answer.location.unwrap();
    assert!(location.starts_with(CALLBACK), "{location}");
    assert_eq!(query_param(&location, "state").as_deref(), Some("xyz"));
    assert!(query_param(&location, "iss").is_some());
    query_param(&location, "code").expect("a code")
}

/// Posts the approval form for `client_id` with the owner's `secret` and `decision`.
fn decide(
    server: &HttpServer,
    client_id: &str,
    verifier: &str,
    secret: &str,
    decision: &str,
) -> crate::common::http::Answer {
    post_form(
        &server.url("/oauth/authorize"),
        &[
            ("response_type", "code"),
            ("client_id", client_id),
            ("redirect_uri", CALLBACK),
            ("code_challenge", &challenge(verifier)),
            ("code_challenge_method", "S256"),
            ("secret", secret),
            ("decision", decision),
        ],
    )
}

fn exchange(
    server: &HttpServer,
    client_id: &str,
    code: &str,
    verifier: &str,
) -> crate::common::http::Answer {
    post_form(
        &server.url("/oauth/token"),
        &[
            ("grant_type", "authorization_code"),
            ("code", code),
            ("redirect_uri", CALLBACK),
            ("client_id", client_id),
            ("code_verifier", verifier),
        ],
    )
}

fn refresh(server: &HttpServer, client_id: &str, token: &str) -> crate::common::http::Answer {
    post_form(
        &server.url("/oauth/token"),
        &[
            ("grant_type", "refresh_token"),
            ("refresh_token", token),
            ("client_id", client_id),
        ],
    )
}

fn tokens(answer: &crate::common::http::Answer) -> (String, String) {
    assert_eq!(answer.status, 200, "{}", answer.body);
    let body = answer.json();
    assert_eq!(body["token_type"], "Bearer");
    assert!(body["expires_in"].as_i64().unwrap() <= 3600);
    (
        body["access_token"].as_str().unwrap().to_string(),
        body["refresh_token"].as_str().unwrap().to_string(),
    )
}

fn status_with(server: &HttpServer, token: &str) -> u16 {
    HttpMcp::stateless(&server.base, Some(token))
        .request("tools/list", json!({}))
        .map_or_else(|a| a.status, |_| 200)
}

#[test]
fn a_connector_discovers_registers_signs_in_refreshes_and_is_revoked() {
    let root = tempfile::tempdir().unwrap();
    set_password(root.path(), PASSWORD).ok();
    let server = HttpServer::start(root.path(), &[]);
    assert_eq!(
        server.one_time, None,
        "an owner password replaces the one-time code"
    );

    // Discovery: 401 -> protected resource metadata -> authorization server metadata.
    let denied = HttpMcp::connect(&server.base, None, "2025-06-18").unwrap_err();
    assert_eq!(denied.status, 401);
    let challenge_header = denied.www_authenticate.unwrap();
    let metadata_url = server.url("/.well-known/oauth-protected-resource");
    assert_mentions(
        &challenge_header,
        &format!("resource_metadata=\"{metadata_url}\""),
    );
    let resource = get(&metadata_url, &[]).json();
    assert_eq!(resource["resource"], json!(server.url("/mcp")));
    let issuer = resource["authorization_servers"][0]
        .as_str()
        .unwrap()
        .to_string();
    let metadata = get(
        &format!("{issuer}/.well-known/oauth-authorization-server"),
        &[],
    )
    .json();
    assert_eq!(
        metadata["code_challenge_methods_supported"],
        json!(["S256"])
    );
    assert_eq!(
        metadata["token_endpoint"],
        json!(server.url("/oauth/token"))
    );

    let client_id = register(&server, "Test connector");
    let verifier = "a-verifier-of-enough-length-0123456789-abcdefghij";
    let page = get(
        &authorize_url(&server, &client_id, verifier, "&scope=read%20write"),
        &[],
    );
    assert_eq!(page.status, 200);
    assert_mentions(&page.body, "Test connector");

    let wrong = decide(&server, &client_id, verifier, "not the password", "approve");
    assert_eq!(wrong.status, 401);
    assert_mentions(&wrong.body, "not the owner password");

    let code = approve(&server, &client_id, verifier, "read write");
    let bad_verifier = exchange(
        &server,
        &client_id,
        &code,
        "another-verifier-0123456789-abcdefghijklmnop",
    );
    assert_eq!(bad_verifier.status, 400);
    assert_eq!(bad_verifier.json()["error"], "invalid_grant");
    let code = approve(&server, &client_id, verifier, "read write");
    let (access, first_refresh) = tokens(&exchange(&server, &client_id, &code, verifier));
    let reused = exchange(&server, &client_id, &code, verifier);
    assert_eq!(
        reused.json()["error"],
        "invalid_grant",
        "a code is single-use"
    );

    let mut client = HttpMcp::stateless(&server.base, Some(&access));
    client
        .call(
            "write_note",
            json!({"title": "Signed in", "directory": "oauth", "content": "via OAuth"}),
        )
        .ok();

    // Rotation: the refresh token is replaced; presenting the old one ends the session.
    let (second_access, second_refresh) = tokens(&refresh(&server, &client_id, &first_refresh));
    assert_ne!(second_refresh, first_refresh);
    assert_eq!(status_with(&server, &second_access), 200);
    let replayed = refresh(&server, &client_id, &first_refresh);
    assert_eq!(replayed.json()["error"], "invalid_grant");
    assert_eq!(
        status_with(&server, &second_access),
        401,
        "a replayed refresh token revokes the session"
    );
    assert_eq!(refresh(&server, &client_id, &second_refresh).status, 400);

    // Revocation of an access token ends its session, refresh token included.
    let code = approve(&server, &client_id, verifier, "read write");
    let (access, refresh_token) = tokens(&exchange(&server, &client_id, &code, verifier));
    assert_eq!(status_with(&server, &access), 200);
    let revoked = post_form(
        &server.url("/oauth/revoke"),
        &[("token", &access), ("client_id", &client_id)],
    );
    assert_eq!(revoked.status, 200);
    assert_eq!(status_with(&server, &access), 401);
    assert_eq!(refresh(&server, &client_id, &refresh_token).status, 400);
}

#[test]
fn sessions_survive_a_restart_and_stay_bound_to_their_resource() {
    let root = tempfile::tempdir().unwrap();
    set_password(root.path(), PASSWORD).ok();
    let public = ["--public-url", "https://mem.example.com"];
    let server = HttpServer::start(root.path(), &public);
    let client_id = register(&server, "Restarted");
    let verifier = "restart-verifier-0123456789-abcdefghijklmnopqrs";
    let code = approve_for(
        &server,
        &client_id,
        verifier,
        "read write",
        "https://mem.example.com/mcp",
    );
    let (access, _) = tokens(&exchange(&server, &client_id, &code, verifier));
    let stored = std::fs::read_to_string(root.path().join("auth/oauth.json")).unwrap();
    assert!(!stored.contains(&access), "tokens are stored hashed");
    drop(server);

    let server = HttpServer::start(root.path(), &public);
    assert_eq!(status_with(&server, &access), 200);
    drop(server);
    let elsewhere = HttpServer::start(root.path(), &["--public-url", "https://other.example.com"]);
    assert_eq!(
        status_with(&elsewhere, &access),
        401,
        "a token is valid only for the resource it was issued for"
    );
}

#[test]
fn a_read_scope_sees_only_the_read_tools() {
    let root = tempfile::tempdir().unwrap();
    set_password(root.path(), PASSWORD).ok();
    let server = HttpServer::start(root.path(), &[]);
    let client_id = register(&server, "Reader");
    let verifier = "read-only-verifier-0123456789-abcdefghijklmnopq";
    let code = approve(&server, &client_id, verifier, "read");
    let answer = exchange(&server, &client_id, &code, verifier);
    assert_eq!(answer.json()["scope"], "read");
    let (access, _) = tokens(&answer);
    let listed = HttpMcp::stateless(&server.base, Some(&access)).tools();
    assert!(listed.contains(&"search_notes".to_string()));
    assert!(!listed.contains(&"write_note".to_string()), "{listed:?}");
}

#[test]
fn bad_authorization_requests_are_refused() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &[]);
    let client_id = register(&server, "Strict");
    let verifier = "strict-verifier-0123456789-abcdefghijklmnopqrstu";

    let wrong_resource = get(
        &authorize_url(
            &server,
            &client_id,
            verifier,
            "&resource=https%3A%2F%2Fother.example%2Fmcp",
        ),
        &[],
    );
    assert_eq!(wrong_resource.status, 302);
    let location = wrong_resource.location.unwrap();
    assert_eq!(
        query_param(&location, "error").as_deref(),
        Some("invalid_target")
    );

    let plain = get(
        &format!(
            "{}?response_type=code&client_id={client_id}&redirect_uri={}&code_challenge={verifier}&code_challenge_method=plain",
            server.url("/oauth/authorize"),
            urlencode(CALLBACK)
        ),
        &[],
    );
    assert_eq!(plain.status, 302);
    assert_eq!(
        query_param(&plain.location.unwrap(), "error").as_deref(),
        Some("invalid_request")
    );

    let foreign = get(
        &format!(
            "{}?response_type=code&client_id={client_id}&redirect_uri={}&code_challenge={}&code_challenge_method=S256",
            server.url("/oauth/authorize"),
            urlencode("https://attacker.example/cb"),
            challenge(verifier)
        ),
        &[],
    );
    assert_eq!(
        foreign.status, 400,
        "an unregistered redirect is never followed"
    );
    assert_eq!(foreign.location, None);

    let unknown = get(&authorize_url(&server, "no-such-client", verifier, ""), &[]);
    assert_eq!(unknown.status, 400);
    assert_mentions(&unknown.body, "not registered");

    let bad_registration = post(
        &server.url("/oauth/register"),
        &[("Content-Type", "application/json")],
        &json!({"redirect_uris": ["http://evil.example/cb"]}).to_string(),
    );
    assert_eq!(bad_registration.status, 400);
    assert_eq!(bad_registration.json()["error"], "invalid_redirect_uri");
}

#[test]
fn the_one_time_code_approves_on_loopback_and_a_client_may_describe_itself_by_url() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &[]);
    let code = server
        .one_time
        .clone()
        .expect("no credential: a one-time code");

    // A client ID metadata document, served by a one-shot HTTP server.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let document_url = format!("http://{}/client.json", listener.local_addr().unwrap());
    let document: Value = json!({"client_id": document_url, "client_name": "Self-described",
                                 "redirect_uris": [CALLBACK]});
    let body = document.to_string();
    let serving = std::thread::spawn(move || {
        let (mut stream, _) = listener.accept().unwrap();
        let mut request = [0u8; 4096];
        let _ = stream.read(&mut request);
        let reply = format!(
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(reply.as_bytes()).unwrap();
    });
    let verifier = "document-verifier-0123456789-abcdefghijklmnopqr";
    let page = get(
        &authorize_url(&server, &urlencode(&document_url), verifier, ""),
        &[],
    );
    serving.join().unwrap();
    assert_eq!(page.status, 200, "{}", page.body);
    assert_mentions(&page.body, "Self-described");

    let approved = decide(&server, &document_url, verifier, &code, "approve");
    assert_eq!(approved.status, 302, "{}", approved.body);
    let authorization_code = query_param(&approved.location.unwrap(), "code").unwrap();
    let (access, _) = tokens(&exchange(
        &server,
        &document_url,
        &authorization_code,
        verifier,
    ));
    assert_eq!(status_with(&server, &access), 200);

    let denied = decide(&server, &document_url, verifier, "", "deny");
    assert_eq!(
        query_param(&denied.location.unwrap(), "error").as_deref(),
        Some("access_denied")
    );
}

#[test]
fn without_oauth_there_is_no_authorization_server() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &["--no-oauth"]);
    assert_eq!(
        get(&server.url("/.well-known/oauth-authorization-server"), &[]).status,
        404
    );
    let denied = HttpMcp::connect(&server.base, None, "2025-06-18").unwrap_err();
    assert!(!denied
        .www_authenticate
        .unwrap_or_default()
        .contains("resource_metadata"));
    let short = set_password(root.path(), "short");
    assert_ne!(short.code, 0);
    assert_mentions(&short.stderr, "at least 8 characters");
}

#[test]
fn a_request_past_its_time_limit_is_answered_504() {
    // A client whose metadata document never comes: the listener accepts nothing, so the
    // authorization server waits on it while the request's time runs out.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let document_url = format!("http://{}/client.json", silent.local_addr().unwrap());
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &["--request-timeout", "1"]);
    let answer = get(
        &authorize_url(
            &server,
            &urlencode(&document_url),
            "v".repeat(43).as_str(),
            "",
        ),
        &[],
    );
    assert_eq!(answer.status, 504, "{}", answer.body);
    assert_mentions(&answer.body, "no answer within 1 s");
    drop(silent);
}

#[test]
fn a_public_server_fetches_no_client_document_from_plain_http() {
    let root = tempfile::tempdir().unwrap();
    let server = HttpServer::start(root.path(), &["--public-url", "https://mem.example.com"]);
    let local = "http://127.0.0.1:9/client.json";
    let page = get(
        &authorize_url(&server, &urlencode(local), "v".repeat(43).as_str(), ""),
        &[],
    );
    assert_eq!(page.status, 400);
    assert_mentions(&page.body, "not registered");
}
