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

/// Makes `dir` a repository (unless it is one) and commits `paths` as someone else would.
pub fn commit_files(dir: &Path, paths: &[&str], message: &str) {
    let repo = Repository::open(dir).unwrap_or_else(|_| Repository::init(dir).unwrap());
    let mut index = repo.index().unwrap();
    for path in paths {
        index.add_path(Path::new(path)).unwrap();
    }
    index.write().unwrap();
    let tree = repo.find_tree(index.write_tree().unwrap()).unwrap();
    let me = git2::Signature::now("Someone", "someone@example.com").unwrap();
    let parent = repo.head().ok().and_then(|h| h.peel_to_commit().ok());
    let parents: Vec<&git2::Commit> = parent.iter().collect();
    repo.commit(Some("HEAD"), &me, &me, message, &tree, &parents)
        .unwrap();
}

/// `git fsck --full` of the command-line git accepts the repository.
pub fn fsck(dir: &Path) {
    let out = std::process::Command::new("git")
        .args(["fsck", "--full", "--no-progress"])
        .current_dir(dir)
        .output()
        .expect("the git command line runs the repository check");
    assert!(
        out.status.success(),
        "git fsck: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Adds `line` (`key = value`) to the `[projects.<project>.git]` table of root's config.toml.
pub fn set_option(root: &Path, project: &str, line: &str) {
    let config = root.join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    let table = format!("[projects.{project}.git]");
    assert!(text.contains(&table), "{project} is not versioned:\n{text}");
    std::fs::write(&config, text.replace(&table, &format!("{table}\n{line}"))).unwrap();
}
