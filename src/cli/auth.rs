//! `gitmem token` and `gitmem auth`: bearer tokens and the owner password of the HTTP server.

use std::io::IsTerminal;

use anyhow::{Context, Result};

use super::TokenCommand;
use crate::service::App;

/// One line of stdin; at a terminal, prompted and not echoed.
fn read_secret(prompt: &str) -> Result<String> {
    let mut line = String::new();
    if !std::io::stdin().is_terminal() {
        std::io::stdin().read_line(&mut line)?;
        return Ok(line.trim_end_matches(['\n', '\r']).to_string());
    }
    eprint!("{prompt}");
    // SAFETY: termios is plain data; the terminal's settings are restored before returning.
    unsafe {
        let mut settings: libc::termios = std::mem::zeroed();
        let fd = libc::STDIN_FILENO;
        let saved = libc::tcgetattr(fd, &mut settings) == 0;
        let original = settings;
        if saved {
            settings.c_lflag &= !libc::ECHO;
            libc::tcsetattr(fd, libc::TCSANOW, &settings);
        }
        let read = std::io::stdin().read_line(&mut line);
        if saved {
            libc::tcsetattr(fd, libc::TCSANOW, &original);
        }
        eprintln!();
        read?;
    }
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

pub(super) fn set_password(root: &std::path::Path) -> Result<()> {
    let password = read_secret("New owner password (at least 8 characters): ")?;
    crate::service::oauth::set_owner_password(root, &password)?;
    println!(
        "owner password set; the OAuth approval page of `gitmem serve --transport http` accepts it"
    );
    Ok(())
}

pub(super) fn token(root: &std::path::Path, cmd: &TokenCommand) -> Result<()> {
    let store = crate::service::auth::TokenStore::at(root);
    match cmd {
        TokenCommand::Create {
            name,
            read_only,
            projects,
        } => {
            let mut names = Vec::new();
            if !projects.is_empty() {
                let app = App::open(root)
                    .with_context(|| format!("opening data root {}", root.display()))?;
                let known: crate::service::Result<Vec<String>> = projects
                    .iter()
                    .map(|p| app.project(Some(p)).map(|p| p.name))
                    .collect();
                app.close();
                names = known?;
            }
            let made = store.create(name, *read_only, &names)?;
            println!("{}", made.token);
            eprintln!(
                "token '{}' created ({}{}); it is shown only now: keep it in a password manager or a file (--auth-token-file)",
                made.record.name,
                if made.record.read_only { "read only" } else { "read and write" },
                if made.record.projects.is_empty() {
                    String::new()
                } else {
                    format!(", projects {}", made.record.projects.join(", "))
                }
            );
        }
        TokenCommand::List { json } => {
            let tokens = store.list()?;
            if *json {
                let shown: Vec<serde_json::Value> = tokens
                    .iter()
                    .map(|t| {
                        serde_json::json!({
                            "name": t.name, "read_only": t.read_only,
                            "projects": t.projects, "created": t.created,
                        })
                    })
                    .collect();
                println!("{}", serde_json::to_string_pretty(&shown)?);
            } else if tokens.is_empty() {
                println!("No tokens. `gitmem token create NAME` makes one.");
            } else {
                for t in tokens {
                    println!(
                        "{}\t{}\t{}\tcreated {}",
                        t.name,
                        if t.read_only {
                            "read-only"
                        } else {
                            "read-write"
                        },
                        if t.projects.is_empty() {
                            "all projects".to_string()
                        } else {
                            t.projects.join(",")
                        },
                        t.created
                    );
                }
            }
        }
        TokenCommand::Revoke { name } => {
            if !store.revoke(name)? {
                anyhow::bail!("no token named '{name}' (`gitmem token list` shows them)");
            }
            println!("token '{name}' revoked");
        }
    }
    Ok(())
}
