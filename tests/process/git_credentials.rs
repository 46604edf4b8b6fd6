//! Credentials for a remote behind authentication, as GitHub is: a git smart-HTTP server with
//! basic authentication (`tests/clients/git_http_server.py`, `git http-backend` inside). The
//! token comes from the environment or `GIT_ASKPASS`, is never written to config.toml and
//! never shows in gitmem's output, even at debug level.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::common::{assert_mentions, gitmem, Run};
use git2::Repository;

const USER: &str = "x-access-token";
const TOKEN: &str = "github_pat_11TEST0secret0token";

struct Server {
    child: Child,
    port: u16,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Serves the bare repositories under `repos` over HTTP, for `USER` with `TOKEN` only.
fn serve(repos: &Path) -> Server {
    let script = crate::common::workspace_root().join("tests/clients/git_http_server.py");
    let mut child = Command::new("python3")
        .arg(script)
        .arg(repos)
        .args([USER, TOKEN])
        .stdout(Stdio::piped())
        .spawn()
        .expect("python3 runs the test git server");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let port = line.trim().parse().expect("the server prints its port");
    Server { child, port }
}

/// `gitmem ARGS` with only the credential sources a test gives it: no user git config, no
/// agent, no askpass, no token, unless `env` sets one.
fn gitmem_env(root: &Path, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut command = crate::common::gitmem_command();
    command
        .arg("--root")
        .arg(root)
        .args(args)
        .env("HOME", root)
        .env("RUST_LOG", "debug")
        .env("GIT_CONFIG_NOSYSTEM", "1");
    for name in [
        "GITMEM_ROOT",
        "GITMEM_GIT_TOKEN",
        "GITHUB_TOKEN",
        "GH_TOKEN",
        "GIT_ASKPASS",
        "SSH_ASKPASS",
        "SSH_AUTH_SOCK",
        "XDG_CONFIG_HOME",
    ] {
        command.env_remove(name);
    }
    for (name, value) in env {
        command.env(name, value);
    }
    command.output().expect("running gitmem").into()
}

#[test]
fn a_push_authenticates_from_the_environment_or_askpass_and_never_shows_the_token() {
    let dir = tempfile::tempdir().unwrap();
    let repos = dir.path().join("repos");
    let bare = Repository::init_bare(repos.join("notes.git")).unwrap();
    bare.config()
        .unwrap()
        .set_bool("http.receivepack", true)
        .unwrap();
    let server = serve(&repos);
    let url = format!("http://127.0.0.1:{}/notes.git", server.port);

    let root = dir.path().join("root");
    let notes = root.join("notes");
    std::fs::create_dir_all(&notes).unwrap();
    std::fs::write(notes.join("Hello.md"), "# Hello\n").unwrap();
    gitmem(
        &root,
        &[
            "project",
            "add",
            "notes",
            notes.to_str().unwrap(),
            "--default",
        ],
    )
    .ok();
    gitmem(
        &root,
        &["git", "init", "--project", "notes", "--remote", &url],
    )
    .ok();

    let refused = gitmem_env(&root, &["sync", "push"], &[]);
    assert_ne!(refused.code, 0, "{}", refused.stderr);
    assert_mentions(&refused.stderr, "GITHUB_TOKEN");
    let wrong = gitmem_env(&root, &["sync", "push"], &[("GITHUB_TOKEN", "wrong")]);
    assert_ne!(
        wrong.code, 0,
        "a wrong token is refused, not retried forever"
    );

    let pushed = gitmem_env(&root, &["sync", "push"], &[("GITHUB_TOKEN", TOKEN)]);
    assert_eq!(pushed.code, 0, "{}", pushed.stderr);
    assert_mentions(&pushed.stdout, "pushed 'notes'");
    let remote_head = |repo: &Repository| {
        repo.references()
            .unwrap()
            .flatten()
            .find_map(|r| r.target())
    };
    let first = remote_head(&bare).expect("the remote has the project's history");

    std::fs::write(notes.join("Second.md"), "# Second\n").unwrap();
    let askpass = dir.path().join("askpass.sh");
    std::fs::write(
        &askpass,
        format!("#!/bin/sh\ncase \"$1\" in Username*) echo {USER};; *) echo {TOKEN};; esac\n"),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&askpass, std::fs::Permissions::from_mode(0o755)).unwrap();
    let asked = gitmem_env(
        &root,
        &["sync", "both"],
        &[("GIT_ASKPASS", askpass.to_str().unwrap())],
    );
    assert_eq!(asked.code, 0, "{}", asked.stderr);
    assert_ne!(remote_head(&bare), Some(first), "the second push arrived");

    for run in [&refused, &wrong, &pushed, &asked] {
        for output in [&run.stdout, &run.stderr] {
            assert!(!output.contains(TOKEN), "the token leaked: {output}");
        }
    }
    let config = std::fs::read_to_string(root.join("config.toml")).unwrap();
    assert!(!config.contains(TOKEN), "{config}");
}
