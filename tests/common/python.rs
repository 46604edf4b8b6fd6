//! The official MCP Python SDK, the independent client of `tests/clients/`. Its virtualenv
//! lives outside the clone (`~/.cache/gitmem-test-python`); `.ci/run` makes it, and the first
//! test to need it makes it when missing.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

const SDK: &str = "mcp==2.3.0";

/// The virtualenv's python, made on first use.
pub fn python() -> PathBuf {
    // The tests of one binary are threads of one process, and several binaries may start at
    // once: the threads wait for one set-up, and the processes take turns by an OS lock.
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(make_once).clone()
}

fn make_once() -> PathBuf {
    let home = std::env::var_os("HOME").map_or_else(std::env::temp_dir, PathBuf::from);
    let cache = home.join(".cache");
    let venv = cache.join("gitmem-test-python");
    std::fs::create_dir_all(&cache).expect("creating ~/.cache");
    let lock =
        File::create(cache.join("gitmem-test-python.lock")).expect("opening the virtualenv's lock");
    lock.lock().expect("locking the virtualenv");
    if !has_the_sdk(&venv) {
        // Made aside and renamed into place, so a set-up killed half-way leaves nothing under
        // the name the next run trusts. A virtualenv moves whole: its python finds its
        // packages relative to itself (only the scripts in bin/ name the old path, and the
        // tests run none of them).
        let aside = tempfile::tempdir_in(&cache).expect("a folder beside the virtualenv");
        let made = aside.path().join("venv");
        let created = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&made)
            .status()
            .expect("running python3 -m venv");
        assert!(
            created.success(),
            "python3 -m venv {} failed",
            made.display()
        );
        let installed = Command::new(made.join("bin/python"))
            .args(["-m", "pip", "install", "--quiet", SDK])
            .status()
            .expect("running pip");
        assert!(installed.success(), "pip could not install {SDK}");
        if venv.exists() {
            std::fs::remove_dir_all(&venv).expect("removing a broken virtualenv");
        }
        std::fs::rename(&made, &venv).expect("placing the virtualenv");
        assert!(
            has_the_sdk(&venv),
            "the moved virtualenv cannot import {SDK}"
        );
    }
    venv.join("bin/python")
}

fn has_the_sdk(venv: &Path) -> bool {
    Command::new(venv.join("bin/python"))
        .args(["-c", "import mcp, httpx2"])
        .status()
        .is_ok_and(|s| s.success())
}
