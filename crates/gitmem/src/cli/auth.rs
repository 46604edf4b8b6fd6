//! `gitmem token` and `gitmem auth`: bearer tokens and the owner password of the HTTP server.

use std::io::IsTerminal;
use std::path::Path;

use anyhow::Result;

use super::{emit, format_of, TokenCommand};
use ::auth::TokenStore;
use engine::tokens::create_token;

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

pub(super) fn set_password(root: &Path) -> Result<()> {
    let password = read_secret("New owner password (at least 8 characters): ")?;
    auth::oauth::set_owner_password(root, &password)?;
    emit(render::auth::password_set());
    Ok(())
}

pub(super) fn token(root: &Path, cmd: &TokenCommand) -> Result<()> {
    let store = TokenStore::at(root);
    match cmd {
        TokenCommand::Create {
            name,
            read_only,
            projects,
        } => {
            let made = create_token(root, name, *read_only, projects)?;
            emit(render::auth::token_created(&made));
        }
        TokenCommand::List { json } => {
            emit(render::auth::tokens(&store.list()?, format_of(*json)));
        }
        TokenCommand::Revoke { name } => {
            if !store.revoke(name)? {
                anyhow::bail!("no token named '{name}' (`gitmem token list` shows them)");
            }
            emit(render::auth::token_revoked(name));
        }
    }
    Ok(())
}
