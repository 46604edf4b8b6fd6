//! Reading versioned projects back in tests, and setting their `[projects.NAME.git]` options.

use std::path::Path;

use git2::Repository;

/// Commit messages of HEAD's history, newest first.
pub fn log(dir: &Path) -> Vec<String> {
    let repo = Repository::open(dir).unwrap();
    let mut walk = repo.revwalk().unwrap();
    walk.push_head().unwrap();
    walk.map(|oid| {
        let commit = repo.find_commit(oid.unwrap()).unwrap();
        commit.message().unwrap().to_string()
    })
    .collect()
}

/// Adds `line` (`key = value`) to the `[projects.<project>.git]` table of root's config.toml.
pub fn set_option(root: &Path, project: &str, line: &str) {
    let config = root.join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    let table = format!("[projects.{project}.git]");
    assert!(text.contains(&table), "{project} is not versioned:\n{text}");
    std::fs::write(&config, text.replace(&table, &format!("{table}\n{line}"))).unwrap();
}
