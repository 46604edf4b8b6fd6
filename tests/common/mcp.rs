//! A minimal MCP client over stdio for tests: newline-delimited JSON-RPC to `gitmem serve`.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{json, Value};

pub struct Mcp {
    child: Child,
    /// Where the server's log goes (MCP_STDERR=FILE names it, to keep it after the test).
    log: std::path::PathBuf,
    _log_file: Option<tempfile::NamedTempFile>,
    stdin: ChildStdin,
    lines: mpsc::Receiver<String>,
    next_id: u64,
    pub initialize: Value,
    /// Notifications the server sent, in order, as requests were waited for.
    pub notifications: Vec<Value>,
}

/// The result of a tools/call.
#[derive(Debug, Clone)]
pub struct Reply {
    pub is_error: bool,
    pub text: String,
    pub structured: Option<Value>,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    pub fn ok(self) -> Self {
        assert!(!self.is_error, "tool error: {}", self.text);
        self
    }
}

impl Mcp {
    pub fn start(root: &Path) -> Self {
        Self::start_with(root, &[])
    }

    pub fn start_with(root: &Path, extra: &[&str]) -> Self {
        Self::start_env(root, extra, &[])
    }

    pub fn start_env(root: &Path, extra: &[&str], envs: &[(&str, &Path)]) -> Self {
        let (log, log_file) = match std::env::var_os("MCP_STDERR") {
            Some(p) => (std::path::PathBuf::from(p), None),
            None => {
                let file = tempfile::NamedTempFile::new().unwrap();
                (file.path().to_path_buf(), Some(file))
            }
        };
        let mut child = super::gitmem_command()
            .arg("--root")
            .arg(root)
            .arg("serve")
            .args(extra)
            .envs(envs.iter().map(|(k, v)| (*k, *v)))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::from(std::fs::File::create(&log).unwrap()))
            .spawn()
            .expect("starting gitmem serve");
        let stdin = child.stdin.take().unwrap();
        let stdout: ChildStdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                match line {
                    Ok(l) => {
                        if tx.send(l).is_err() {
                            return;
                        }
                    }
                    Err(_) => return,
                }
            }
        });
        let mut mcp = Mcp {
            child,
            log,
            _log_file: log_file,
            stdin,
            lines,
            next_id: 1,
            initialize: Value::Null,
            notifications: Vec::new(),
        };
        mcp.initialize = mcp.request(
            "initialize",
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "gitmem-tests", "version": "1"}}),
        );
        mcp.notify("notifications/initialized", json!({}));
        mcp
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        let msg = json!({"jsonrpc": "2.0", "method": method, "params": params});
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Sends a request without waiting for its answer; its id.
    pub fn send(&mut self, method: &str, params: Value) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        let msg = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        writeln!(self.stdin, "{msg}").unwrap();
        self.stdin.flush().unwrap();
        id
    }

    /// Processor time the server has used so far (user and system), from /proc.
    pub fn cpu_seconds(&self) -> f64 {
        let stat = std::fs::read_to_string(format!("/proc/{}/stat", self.child.id())).unwrap();
        // Fields after the command name, which is in parentheses and may hold spaces.
        let fields: Vec<&str> = stat[stat.rfind(')').unwrap() + 2..].split(' ').collect();
        let ticks: f64 = fields[11].parse::<f64>().unwrap() + fields[12].parse::<f64>().unwrap();
        ticks / 100.0
    }

    /// Sends a request and returns its `result` (or `error`) object.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.send(method, params);
        loop {
            let line = self
                .lines
                .recv_timeout(super::SLOW)
                .unwrap_or_else(|_| panic!("no answer to {method}"));
            let v: Value = serde_json::from_str(&line)
                .unwrap_or_else(|e| panic!("stdout carries only JSON-RPC, got {line:?}: {e}"));
            if v["id"] == json!(id) {
                return if v.get("error").is_some() {
                    json!({"error": v["error"]})
                } else {
                    v["result"].clone()
                };
            }
            if v.get("id").is_none() && v.get("method").is_some() {
                self.notifications.push(v);
            }
        }
    }

    /// Waits up to `timeout` for a notification `method` whose params satisfy `matches`,
    /// among those already received and those still to come.
    pub fn wait_notification(
        &mut self,
        method: &str,
        matches: impl Fn(&Value) -> bool,
        timeout: Duration,
    ) -> Option<Value> {
        let deadline = std::time::Instant::now() + timeout;
        loop {
            if let Some(found) = self
                .notifications
                .iter()
                .find(|n| n["method"] == method && matches(&n["params"]))
            {
                return Some(found.clone());
            }
            let left = deadline.checked_duration_since(std::time::Instant::now())?;
            let line = self.lines.recv_timeout(left).ok()?;
            if let Ok(v) = serde_json::from_str::<Value>(&line) {
                if v.get("id").is_none() && v.get("method").is_some() {
                    self.notifications.push(v);
                }
            }
        }
    }

    pub fn call(&mut self, tool: &str, args: Value) -> Reply {
        let r = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert!(
            r.get("error").is_none(),
            "protocol error calling {tool}: {r}"
        );
        Reply {
            is_error: r["isError"].as_bool().unwrap_or(false),
            text: r["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .to_string(),
            structured: r.get("structuredContent").cloned(),
        }
    }

    /// What the server logged so far, for the message of a failed assertion.
    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    pub fn text(&mut self, tool: &str, args: Value) -> String {
        self.call(tool, args).ok().text
    }
}

/// Waits until sync_status says the initial indexing is done. A call that fails meanwhile (a
/// server with a short call deadline answers the health check with an error while it is busy)
/// counts as not ready yet.
pub fn ready(mcp: &mut Mcp, timeout: Duration) {
    let ready = super::eventually(timeout, || {
        let status = mcp.call("sync_status", json!({}));
        !status.is_error && status.text.contains("ready for use")
    });
    assert!(
        ready,
        "sync_status never said the knowledge base is ready; the server logged:\n{}",
        mcp.log()
    );
}

impl Drop for Mcp {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
