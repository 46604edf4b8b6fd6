//! Versioned projects at the shell and in a running server: what the git commands print and
//! how they exit, the commit made before a command's process exits, a server that pulls on
//! its own, and a server killed while it commits. The workflows themselves (commits, history,
//! sync between devices) are tested in process, in `tests/tools/git/`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::git::{commit_files, fsck, log, set_option};
use crate::common::mcp::Mcp;
use crate::common::{assert_mentions, eventually, gitmem, SLOW};
use git2::Repository;
use serde_json::{json, Value};

fn tool(root: &Path, name: &str, args: Value) -> String {
    gitmem(root, &["tool", name, "--args", &args.to_string()])
        .ok()
        .stdout
}

/// `gitmem project add NAME DIR --default --git [--remote URL]`: what it printed.
fn add_versioned(root: &Path, name: &str, remote: Option<&str>) -> (PathBuf, String) {
    let dir = root.join(name);
    let mut args = vec!["project", "add", name, dir.to_str().unwrap(), "--default"];
    args.push("--git");
    if let Some(url) = remote {
        args.extend(["--remote", url]);
    }
    let added = gitmem(root, &args).ok();
    (dir, added.stdout)
}

#[test]
fn project_add_git_and_git_init_say_what_they_made_of_the_folder() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let (_, made) = add_versioned(r, "fresh", None);
    assert_mentions(&made, "is now a git repository");

    let existing = r.join("existing");
    std::fs::create_dir_all(&existing).unwrap();
    std::fs::write(existing.join("a.md"), "# A\n").unwrap();
    commit_files(&existing, &["a.md"], "my own start");
    let (_, used) = add_versioned(r, "existing", None);
    assert_mentions(&used, "uses the git work tree already there");

    let url = format!("file://{}", existing.display());
    let (copy, cloned) = add_versioned(r, "copy", Some(&url));
    assert_mentions(&cloned, "holds a clone of its remote");
    assert_eq!(log(&copy), ["my own start"]);

    gitmem(
        r,
        &["project", "add", "plain", r.join("plain").to_str().unwrap()],
    )
    .ok();
    let started = gitmem(r, &["git", "init", "--project", "plain"]).ok();
    assert_mentions(&started.stdout, "is now a git repository");

    // A project that cannot be versioned is not left registered.
    let outer = r.join("outer");
    Repository::init(&outer).unwrap();
    let inner = outer.join("inner");
    let refused = gitmem(
        r,
        &["project", "add", "inner", inner.to_str().unwrap(), "--git"],
    );
    assert_ne!(refused.code, 0);
    assert_mentions(&refused.stderr, "inside the git work tree");
    let listed = gitmem(r, &["project", "list"]).ok();
    assert!(!listed.stdout.contains("inner"), "{}", listed.stdout);
}

#[test]
fn a_change_is_committed_before_the_command_that_made_it_exits() {
    let root = tempfile::tempdir().unwrap();
    let (dir, _) = add_versioned(root.path(), "notes", None);
    tool(
        root.path(),
        "write_note",
        json!({"title": "Plan", "directory": "work", "content": "first"}),
    );
    let head = &log(&dir)[0];
    assert!(head.starts_with("feat(mem): add Plan\n"), "{head}");
}

#[test]
fn history_commands_at_the_shell_read_diff_and_restore() {
    let root = tempfile::tempdir().unwrap();
    let (dir, _) = add_versioned(root.path(), "notes", None);
    let r = root.path();
    tool(
        r,
        "write_note",
        json!({"title": "Log", "directory": "d", "content": "one"}),
    );
    tool(
        r,
        "write_note",
        json!({"title": "Log", "directory": "d", "content": "two", "overwrite": true}),
    );
    let history = gitmem(r, &["git", "history", "d/log", "--json"])
        .ok()
        .json();
    assert_eq!(history["versions"].as_array().unwrap().len(), 2);
    let first = history["versions"][1]["commit"]
        .as_str()
        .unwrap()
        .to_string();
    let text = gitmem(r, &["git", "history", "d/log"]).ok();
    assert_mentions(&text.stdout, "# History of d/Log.md");
    let diff = gitmem(r, &["git", "diff", "d/log"]).ok();
    assert_mentions(&diff.stdout, "-one");
    assert_mentions(&diff.stdout, "+two");
    gitmem(r, &["git", "restore", "d/log", &first]).ok();
    assert_mentions(
        &std::fs::read_to_string(dir.join("d/Log.md")).unwrap(),
        "one",
    );
    let unknown = gitmem(r, &["git", "restore", "d/log", "0000000"]);
    assert_ne!(unknown.code, 0);
    assert_mentions(&unknown.stderr, "no such version");

    let unversioned = tempfile::tempdir().unwrap();
    tool(
        unversioned.path(),
        "write_note",
        json!({"title": "Plain", "directory": "d", "content": "x"}),
    );
    let refused = gitmem(unversioned.path(), &["git", "history", "d/plain"]);
    assert_ne!(refused.code, 0);
    assert_mentions(&refused.stderr, "not versioned");
}

/// A bare repository in `dir` acting as the shared remote; its `file://` URL.
fn bare_remote(dir: &Path) -> String {
    let path = dir.join("remote.git");
    Repository::init_bare(&path).unwrap();
    format!("file://{}", path.display())
}

/// A bare remote, and a laptop whose versioned project `notes` pushed one note to it.
struct Pushed {
    /// Kept so that the remote lives as long as the test.
    _remote: tempfile::TempDir,
    url: String,
    laptop: tempfile::TempDir,
    /// What the push printed.
    stdout: String,
}

fn laptop_pushed(title: &str, directory: &str, content: &str) -> Pushed {
    let remote = tempfile::tempdir().unwrap();
    let url = bare_remote(remote.path());
    let laptop = tempfile::tempdir().unwrap();
    add_versioned(laptop.path(), "notes", Some(&url));
    tool(
        laptop.path(),
        "write_note",
        json!({"title": title, "directory": directory, "content": content}),
    );
    let stdout = gitmem(laptop.path(), &["sync", "push"]).ok().stdout;
    Pushed {
        _remote: remote,
        url,
        laptop,
        stdout,
    }
}

#[test]
fn sync_at_the_shell_pushes_and_pulls_and_reports_what_it_did() {
    let pushed = laptop_pushed("Alpha", "shared", "line one");
    let (url, laptop) = (pushed.url.as_str(), &pushed.laptop);
    assert_mentions(&pushed.stdout, "pushed 'notes'");

    let desktop = tempfile::tempdir().unwrap();
    let (desktop_dir, _) = add_versioned(desktop.path(), "notes", Some(url));
    assert!(desktop_dir.join("shared/Alpha.md").is_file());
    tool(
        laptop.path(),
        "write_note",
        json!({"title": "Beta", "directory": "shared", "content": "from the laptop"}),
    );
    gitmem(laptop.path(), &["sync", "push", "--json"]).ok();
    let pulled = gitmem(desktop.path(), &["sync", "pull", "--json"])
        .ok()
        .json();
    assert_eq!(
        pulled["pull"]["updated"],
        json!(["shared/Beta.md"]),
        "{pulled}"
    );
    let both = gitmem(desktop.path(), &["sync", "both"]).ok();
    assert_mentions(&both.stdout, "pulled 'notes': ");

    let refused = gitmem(desktop.path(), &["sync", "sideways"]);
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert_mentions(&refused.stderr, "[possible values: push, pull, both]");
}

#[test]
fn crypto_at_the_shell_makes_a_private_key_and_encrypts_the_remote() {
    use std::os::unix::fs::PermissionsExt;
    let pushed = laptop_pushed("Alpha", "shared", "the quokka plan");
    let laptop = pushed.laptop.path();
    let made = gitmem(laptop, &["crypto", "keygen"]).ok().stdout;
    let recipient = made.trim_end().lines().last().unwrap().to_string();
    assert!(recipient.starts_with("age1"), "{made}");
    let identity = laptop.join("keys/age-identity.txt");
    let mode = std::fs::metadata(&identity).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600, "only its owner reads the key");
    let key = std::fs::read_to_string(&identity).unwrap();
    assert!(key.contains(&format!("# public key: {recipient}")), "{key}");

    let again = gitmem(laptop, &["crypto", "keygen"]);
    assert_ne!(again.code, 0);
    assert_mentions(&again.stderr, "never overwrites a key");
    assert_eq!(std::fs::read_to_string(&identity).unwrap(), key);

    let on = gitmem(
        laptop,
        &["crypto", "enable", "--recipient", &recipient, "--json"],
    )
    .ok()
    .json();
    assert_eq!(on["encryption"]["encrypted"], true, "{on}");
    let config = std::fs::read_to_string(laptop.join("config.toml")).unwrap();
    assert!(config.contains("[projects.notes.crypto]"), "{config}");

    let desktop = tempfile::tempdir().unwrap();
    let dir = desktop.path().join("notes");
    let refused = gitmem(
        desktop.path(),
        &[
            "project",
            "add",
            "notes",
            dir.to_str().unwrap(),
            "--git",
            "--remote",
            &pushed.url,
        ],
    );
    assert_ne!(refused.code, 0);
    assert_mentions(&refused.stderr, "the remote is encrypted");
    let off = gitmem(laptop, &["crypto", "disable"]).ok().stdout;
    assert_mentions(&off, "Encryption is off for 'notes'");
}

#[test]
fn joining_a_remote_from_a_folder_or_repository_that_has_notes_brings_the_remotes_notes() {
    let pushed = laptop_pushed("Plan", "", "the laptop's plan");
    let url = pushed.url.as_str();

    let desktop = tempfile::tempdir().unwrap();
    let folder = desktop.path().join("notes");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("Plan.md"), "# Plan\n\nthe desktop's plan\n").unwrap();
    std::fs::write(folder.join("Own.md"), "# Own\n\nmine\n").unwrap();
    add_versioned(desktop.path(), "notes", Some(url));
    let pulled = gitmem(desktop.path(), &["sync", "pull"]).ok();
    assert_mentions(&pulled.stdout, "pulled 'notes': merge (0 updated");
    assert_mentions(&pulled.stdout, "conflict: Plan.md kept as it is here");
    assert_mentions(
        &std::fs::read_to_string(folder.join("Own.md")).unwrap(),
        "mine",
    );

    // The same remote, joined by `git init` from a repository of the user's.
    let elsewhere = tempfile::tempdir().unwrap();
    let repository = elsewhere.path().join("notes");
    std::fs::create_dir_all(&repository).unwrap();
    std::fs::write(repository.join("Own.md"), "# Own\n\nmine\n").unwrap();
    commit_files(&repository, &["Own.md"], "my own start");
    let e = elsewhere.path();
    gitmem(
        e,
        &["project", "add", "notes", repository.to_str().unwrap()],
    )
    .ok();
    gitmem(e, &["git", "init", "--project", "notes", "--remote", url]).ok();
    let pulled = gitmem(e, &["sync", "pull", "--project", "notes"]).ok();
    assert_mentions(&pulled.stdout, "pulled 'notes': merge (1 updated");
    assert!(repository.join("Plan.md").is_file());
}

#[test]
fn a_running_server_pulls_periodically_and_serves_what_it_pulled() {
    let pushed = laptop_pushed("Alpha", "shared", "line one");
    let (url, laptop) = (pushed.url.as_str(), &pushed.laptop);
    let desktop = tempfile::tempdir().unwrap();
    let (desktop_dir, _) = add_versioned(desktop.path(), "notes", Some(url));
    set_option(desktop.path(), "notes", "pull_interval_ms = 200");
    let mut server = Mcp::start(desktop.path());
    server.call("list_memory_projects", json!({})).ok();

    tool(
        laptop.path(),
        "write_note",
        json!({"title": "Fresh", "directory": "shared", "content": "news about lighthouses"}),
    );
    gitmem(laptop.path(), &["sync", "push"]).ok();
    let pulled = eventually(SLOW, || {
        server
            .call("search_notes", json!({"query": "lighthouses"}))
            .text
            .contains("Fresh")
    });
    assert!(pulled, "the server did not pull: {:?}", log(&desktop_dir));
    assert!(log(&desktop_dir)[0].starts_with("feat(mem): add Fresh"));
}

#[test]
fn killing_a_server_while_it_commits_leaves_a_repository_git_fsck_accepts() {
    let root = tempfile::tempdir().unwrap();
    let (dir, _) = add_versioned(root.path(), "notes", None);
    set_option(root.path(), "notes", "commit_batch_ms = 0");
    for round in 0..3 {
        let mut mcp = Mcp::start(root.path());
        for n in 0..15 {
            mcp.send(
                "tools/call",
                json!({"name": "write_note", "arguments": {"title": format!("K{round}-{n}"), "directory": "k", "content": "x".repeat(2000)}}),
            );
        }
        // Killed at a different point of its commits each round.
        std::thread::sleep(Duration::from_millis(150 + 100 * round));
        drop(mcp); // SIGKILL, whatever the server is doing
        fsck(&dir);
    }
    tool(
        root.path(),
        "write_note",
        json!({"title": "Survivor", "directory": "k", "content": "x"}),
    );
    assert!(
        log(&dir)[0].starts_with("feat(mem): add Survivor"),
        "{:?}",
        log(&dir)
    );
    fsck(&dir);
}

#[test]
fn a_held_push_exits_1_naming_file_and_line_and_allow_secrets_pushes_it() {
    let pushed = laptop_pushed("Alpha", "shared", "line one");
    let laptop = pushed.laptop.path();
    let key = format!("AKIA{}", "Q1W2E3R4T5Y6U7I8");
    std::fs::write(
        laptop.join("notes/shared/keys.md"),
        format!("# Keys\n\nid {key}\n"),
    )
    .unwrap();

    let held = gitmem(laptop, &["sync", "push"]);
    assert_eq!(held.code, 1, "{}", held.stderr);
    assert_mentions(&held.stderr, "shared/keys.md line 3: aws-access-key");
    assert_mentions(&held.stderr, "--allow-secrets shared/keys.md");
    let status = gitmem(laptop, &["status"]).ok();
    assert_mentions(&status.stdout, "push held");
    assert_mentions(&status.stdout, "shared/keys.md line 3: aws-access-key");
    for output in [&held.stdout, &held.stderr, &status.stdout, &status.stderr] {
        assert!(!output.contains(&key), "{output}");
    }

    let refused = gitmem(
        laptop,
        &["sync", "pull", "--allow-secrets", "shared/keys.md"],
    );
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    let allowed = gitmem(
        laptop,
        &["sync", "push", "--allow-secrets", "shared/keys.md"],
    )
    .ok();
    assert_mentions(&allowed.stdout, "pushed 'notes'");
    let status = gitmem(laptop, &["status"]).ok();
    assert!(!status.stdout.contains("push held"), "{}", status.stdout);
}
