//! Helpers shared by the integration tests: run the real binary in temp directories.

#![allow(dead_code)]

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

use serde_json::Value;

/// How long a test waits for something that takes a moment on an idle machine (a server
/// starting, a watcher noticing, a background commit): long enough for a loaded 2-core machine,
/// since a test never measures speed (the benchmarks do).
pub const SLOW: Duration = Duration::from_secs(120);

/// The top of the checkout: the demo project, the fixtures and the clients live there, while
/// the tests belong to the `gitmem` package in `crates/gitmem`.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .expect("the workspace root exists")
}

/// Polls `check` until it is true or `timeout` passes; returns whether it became true.
pub fn eventually(timeout: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < timeout {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    check()
}

/// Fails, showing the whole text, unless `text` contains `needle`.
#[track_caller]
pub fn assert_mentions(text: &str, needle: &str) {
    assert!(text.contains(needle), "expected {needle:?} in:\n{text}");
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("stdout is not JSON ({e}): {}", self.stdout))
    }

    pub fn ok(self) -> Self {
        assert_eq!(
            self.code, 0,
            "command failed\nstdout: {}\nstderr: {}",
            self.stdout, self.stderr
        );
        self
    }
}

impl From<Output> for Run {
    fn from(o: Output) -> Self {
        Run {
            code: o.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&o.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&o.stderr).into_owned(),
        }
    }
}

/// The gitmem binary under test, with nothing of the caller's environment that would choose
/// its data root, and offline: a fresh root's first serve, reindex or search would otherwise
/// fetch the default embedding model (the tests that fetch serve it themselves).
pub fn gitmem_command() -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_gitmem"));
    command.env_remove("GITMEM_ROOT").env("HF_HUB_OFFLINE", "1");
    command
}

/// Runs `gitmem --root ROOT ARGS...`.
pub fn gitmem(root: &Path, args: &[&str]) -> Run {
    gitmem_command()
        .arg("--root")
        .arg(root)
        .args(args)
        .output()
        .expect("running gitmem")
        .into()
}

/// Runs `gitmem --root ROOT ARGS...` with `HOME` set (linked folders must be under it).
pub fn gitmem_home(root: &Path, home: &Path, args: &[&str]) -> Run {
    gitmem_command()
        .arg("--root")
        .arg(root)
        .args(args)
        .env("HOME", home)
        .output()
        .expect("running gitmem")
        .into()
}

/// What `make_vault` wrote.
pub struct Generated {
    pub notes: usize,
    pub attachments: usize,
}

impl Generated {
    pub fn files(&self) -> usize {
        self.notes + self.attachments
    }
}

/// Generates the deterministic sample vault with `gitmem bench generate DIR --notes N`. The
/// binary, not the library, so that these process-level test binaries stay small.
pub fn make_vault(dir: &Path, notes: usize) -> Generated {
    let run = gitmem(
        dir,
        &[
            "bench",
            "generate",
            dir.to_str().unwrap(),
            "--notes",
            &notes.to_string(),
        ],
    )
    .ok();
    // "wrote N notes and K attachments to DIR"
    let words: Vec<&str> = run.stdout.split_whitespace().collect();
    Generated {
        notes: words[1].parse().expect("a note count"),
        attachments: words[4].parse().expect("an attachment count"),
    }
}

/// Every file under `dir` with its bytes.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| (e.path().to_path_buf(), std::fs::read(e.path()).unwrap()))
        .collect()
}

/// A data root with one project `vault` (the default) at `vault_dir`.
pub fn root_with_project(root: &Path, vault_dir: &Path) {
    gitmem(
        root,
        &[
            "project",
            "add",
            "vault",
            vault_dir.to_str().unwrap(),
            "--default",
        ],
    )
    .ok();
}

pub fn search_json(root: &Path, query: &str, extra: &[&str]) -> Value {
    let mut args = vec!["search", query, "--json"];
    args.extend_from_slice(extra);
    gitmem(root, &args).ok().json()
}
pub mod git;
pub mod http;
pub mod mcp;
pub mod model;
pub mod python;
