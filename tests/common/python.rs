//! The official MCP Python SDK, the independent client of `tests/clients/`. Its virtualenv
//! lives outside the clone (`~/.cache/gitmem-test-python`); `.ci/run` makes it, and the first
//! test to need it makes it when missing.

use std::path::PathBuf;
use std::process::Command;

const SDK: &str = "mcp==2.3.0";

/// The virtualenv's python, made on first use.
pub fn python() -> PathBuf {
    let home = std::env::var_os("HOME").map_or_else(std::env::temp_dir, PathBuf::from);
    let venv = home.join(".cache/gitmem-test-python");
    let python = venv.join("bin/python");
    let ready = Command::new(&python)
        .args(["-c", "import mcp, httpx2"])
        .status()
        .is_ok_and(|s| s.success());
    if !ready {
        let made = Command::new("python3")
            .args(["-m", "venv"])
            .arg(&venv)
            .status()
            .expect("running python3 -m venv");
        assert!(made.success(), "python3 -m venv {} failed", venv.display());
        let installed = Command::new(&python)
            .args(["-m", "pip", "install", "--quiet", SDK])
            .status()
            .expect("running pip");
        assert!(installed.success(), "pip could not install {SDK}");
    }
    python
}
