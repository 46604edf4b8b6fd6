//! `gitmem serve --transport http` in a child process, and a small MCP client over HTTP for
//! tests: session-based (initialize, then `Mcp-Session-Id`) or stateless (protocol
//! 2026-07-28, metadata on every request).

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Stdio};
use std::sync::{mpsc, Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};

use super::mcp::Reply;

pub struct HttpServer {
    child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// The one-time token printed when no other credential exists.
    pub one_time: Option<String>,
    /// Everything the server wrote to stderr so far.
    pub stderr: Arc<Mutex<String>>,
}

impl HttpServer {
    /// Starts a server on a free loopback port with `extra` arguments.
    pub fn start(root: &Path, extra: &[&str]) -> HttpServer {
        Self::try_start(root, extra, &[]).unwrap_or_else(|stderr| {
            panic!("the HTTP server did not start:\n{stderr}");
        })
    }

    /// Starts a server, or returns its stderr when it exits instead.
    pub fn try_start(
        root: &Path,
        extra: &[&str],
        envs: &[(&str, &str)],
    ) -> Result<HttpServer, String> {
        let bind_given = extra.contains(&"--bind");
        let mut command = super::gitmem_command();
        command
            .arg("--root")
            .arg(root)
            .args(["serve", "--transport", "http"])
            .args(if bind_given {
                vec![]
            } else {
                vec!["--bind", "127.0.0.1:0"]
            })
            .args(extra)
            .env_remove("GITMEM_AUTH_TOKEN")
            .envs(envs.iter().copied())
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn().expect("starting gitmem serve");
        let stderr = Arc::new(Mutex::new(String::new()));
        let (lines, received) = mpsc::channel();
        let reader = child.stderr.take().expect("stderr is piped");
        let seen = stderr.clone();
        std::thread::spawn(move || {
            for line in BufReader::new(reader).lines().map_while(Result::ok) {
                seen.lock().unwrap().push_str(&format!("{line}\n"));
                let _ = lines.send(line);
            }
        });
        let mut base = None;
        let mut one_time = None;
        while let Ok(line) = received.recv_timeout(super::SLOW) {
            if let Some(rest) = line.strip_prefix("gitmem: serving MCP at ") {
                base = Some(rest.trim_end_matches("/mcp").to_string());
                // The one-time code follows on a line of its own, unless a credential exists;
                // log lines of other threads may come in between.
                let wait = if credential_configured(root, extra, envs) {
                    Duration::from_secs(1)
                } else {
                    super::SLOW
                };
                let until = std::time::Instant::now() + wait;
                while let Some(left) = until.checked_duration_since(std::time::Instant::now()) {
                    match received.recv_timeout(left) {
                        Ok(next) if next.trim().starts_with("gmt_") => {
                            one_time = Some(next.trim().to_string());
                            break;
                        }
                        Ok(_) => {}
                        Err(_) => break,
                    }
                }
                break;
            }
        }
        match base {
            Some(base) => Ok(HttpServer {
                child,
                base,
                one_time,
                stderr,
            }),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                let text = stderr.lock().unwrap().clone();
                Err(text)
            }
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends SIGTERM and waits for the exit code.
    pub fn terminate(mut self) -> Option<i32> {
        unsafe {
            libc::kill(self.child.id() as i32, libc::SIGTERM);
        }
        let mut code = None;
        super::eventually(super::SLOW, || match self.child.try_wait() {
            Ok(Some(status)) => {
                code = status.code();
                true
            }
            _ => false,
        });
        code
    }
}

/// Whether `gitmem serve` will find a credential (then it prints no one-time code): a token
/// given or stored, an external issuer, or an owner password for the built-in OAuth server.
fn credential_configured(root: &Path, extra: &[&str], envs: &[(&str, &str)]) -> bool {
    let given = ["--auth-token", "--auth-token-file", "--oauth-issuer"];
    extra.iter().any(|arg| given.contains(arg))
        || envs.iter().any(|(name, _)| *name == "GITMEM_AUTH_TOKEN")
        || root.join("auth/tokens.json").is_file()
        || (root.join("auth/owner-password").is_file() && !extra.contains(&"--no-oauth"))
}

impl Drop for HttpServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// An HTTP answer: status, headers we look at, body.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub body: String,
    pub www_authenticate: Option<String>,
    pub session: Option<String>,
    pub request_id: Option<String>,
    pub content_type: Option<String>,
    pub location: Option<String>,
}

impl Answer {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}), status {}: {}", self.status, self.body))
    }
}

/// Redirects are not followed: the OAuth tests read them.
fn agent() -> ureq::Agent {
    ureq::AgentBuilder::new()
        .timeout(Duration::from_secs(120))
        .redirects(0)
        .build()
}

fn answer(result: Result<ureq::Response, ureq::Error>) -> Answer {
    let response = match result {
        Ok(response) => response,
        Err(ureq::Error::Status(_, response)) => response,
        Err(e) => panic!("HTTP request failed: {e}"),
    };
    let header = |name: &str| response.header(name).map(String::from);
    Answer {
        status: response.status(),
        www_authenticate: header("www-authenticate"),
        session: header("mcp-session-id"),
        request_id: header("x-request-id"),
        content_type: header("content-type"),
        location: header("location"),
        body: response.into_string().unwrap_or_default(),
    }
}

/// `GET url` with these headers.
pub fn get(url: &str, headers: &[(&str, &str)]) -> Answer {
    let mut request = agent().get(url);
    for (name, value) in headers {
        request = request.set(name, value);
    }
    answer(request.call())
}

/// `POST url` with these headers and body.
pub fn post(url: &str, headers: &[(&str, &str)], body: &str) -> Answer {
    let mut request = agent().post(url);
    for (name, value) in headers {
        request = request.set(name, value);
    }
    answer(request.send_string(body))
}

/// `POST url` with a form body (`application/x-www-form-urlencoded`).
pub fn post_form(url: &str, fields: &[(&str, &str)]) -> Answer {
    answer(agent().post(url).send_form(fields))
}

/// The value of `name` in a URL's query.
pub fn query_param(url: &str, name: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == name).then(|| percent_decode(value))
    })
}

fn percent_decode(value: &str) -> String {
    let bytes = value.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(byte) = u8::from_str_radix(&value[i + 1..i + 3], 16) {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(if bytes[i] == b'+' { b' ' } else { bytes[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The JSON-RPC message answering `id` in a body that is JSON or an event stream.
pub fn message_for(body: &str, id: u64) -> Option<Value> {
    let candidates: Vec<Value> = if body.trim_start().starts_with('{') {
        serde_json::from_str(body).into_iter().collect()
    } else {
        body.lines()
            .filter_map(|l| l.strip_prefix("data:"))
            .filter_map(|d| serde_json::from_str(d.trim()).ok())
            .collect()
    };
    candidates
        .into_iter()
        .find(|m: &Value| m["id"] == json!(id))
}

/// An MCP client over HTTP.
#[derive(Debug)]
pub struct HttpMcp {
    url: String,
    token: Option<String>,
    /// Session mode: the protocol version and the session id; stateless: None.
    session: Option<(String, String)>,
    next_id: u64,
    pub initialize: Value,
}

pub const STATELESS_VERSION: &str = "2026-07-28";

impl HttpMcp {
    /// A session-based client of protocol `version` (2025-06-18, 2025-11-25).
    pub fn connect(base: &str, token: Option<&str>, version: &str) -> Result<HttpMcp, Box<Answer>> {
        let mut client = HttpMcp {
            url: format!("{base}/mcp"),
            token: token.map(String::from),
            session: None,
            next_id: 1,
            initialize: Value::Null,
        };
        let params = json!({
            "protocolVersion": version,
            "capabilities": {},
            "clientInfo": {"name": "gitmem-tests", "version": "1"},
        });
        let body = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params});
        let reply = client.send(None, &body.to_string());
        let Some(session) = reply.session.clone().filter(|_| reply.status == 200) else {
            return Err(Box::new(reply));
        };
        client.initialize = message_for(&reply.body, 0).unwrap_or(Value::Null);
        client.session = Some((version.to_string(), session));
        let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
        let ack = client.send(
            Some(("notifications/initialized", None)),
            &initialized.to_string(),
        );
        assert!(ack.status < 300, "initialized: {ack:?}");
        Ok(client)
    }

    /// A stateless client of protocol 2026-07-28: no handshake, metadata on every request.
    pub fn stateless(base: &str, token: Option<&str>) -> HttpMcp {
        HttpMcp {
            url: format!("{base}/mcp"),
            token: token.map(String::from),
            session: None,
            next_id: 1,
            initialize: Value::Null,
        }
    }

    fn headers(&self, method: Option<(&str, Option<&str>)>) -> Vec<(&'static str, String)> {
        let mut headers = vec![
            ("Content-Type", "application/json".to_string()),
            ("Accept", "application/json, text/event-stream".to_string()),
        ];
        if let Some(token) = &self.token {
            headers.push(("Authorization", format!("Bearer {token}")));
        }
        match &self.session {
            Some((version, id)) => {
                headers.push(("Mcp-Session-Id", id.clone()));
                headers.push(("MCP-Protocol-Version", version.clone()));
            }
            None if self.initialize.is_null() && method.is_some() => {
                headers.push(("MCP-Protocol-Version", STATELESS_VERSION.to_string()));
                if let Some((method, name)) = method {
                    headers.push(("Mcp-Method", method.to_string()));
                    if let Some(name) = name {
                        headers.push(("Mcp-Name", name.to_string()));
                    }
                }
            }
            None => {}
        }
        headers
    }

    fn send(&self, method: Option<(&str, Option<&str>)>, body: &str) -> Answer {
        let headers = self.headers(method);
        let borrowed: Vec<(&str, &str)> = headers.iter().map(|(k, v)| (*k, v.as_str())).collect();
        post(&self.url, &borrowed, body)
    }

    /// One request; the JSON-RPC result, or the whole answer when there is none.
    pub fn request(&mut self, method: &str, mut params: Value) -> Result<Value, Box<Answer>> {
        let id = self.next_id;
        self.next_id += 1;
        if self.session.is_none() {
            params["_meta"] = json!({
                "io.modelcontextprotocol/protocolVersion": STATELESS_VERSION,
                "io.modelcontextprotocol/clientCapabilities": {},
            });
        }
        let name = params["name"].as_str().map(String::from);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let reply = self.send(Some((method, name.as_deref())), &body.to_string());
        match message_for(&reply.body, id) {
            Some(message) if message.get("result").is_some() => Ok(message["result"].clone()),
            _ => Err(Box::new(reply)),
        }
    }

    pub fn tools(&mut self) -> Vec<String> {
        let listed = self.request("tools/list", json!({})).expect("tools/list");
        listed["tools"]
            .as_array()
            .expect("a tool list")
            .iter()
            .map(|t| t["name"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    pub fn call(&mut self, tool: &str, arguments: Value) -> Reply {
        let result = self
            .request("tools/call", json!({"name": tool, "arguments": arguments}))
            .unwrap_or_else(|answer| panic!("tools/call {tool}: {answer:?}"));
        Reply {
            is_error: result["isError"].as_bool().unwrap_or(false),
            text: result["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            structured: result.get("structuredContent").cloned(),
        }
    }
}
