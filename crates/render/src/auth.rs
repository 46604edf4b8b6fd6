//! `gitmem token` and `gitmem auth`: bearer tokens and the owner password.

use serde_json::json;

use super::{Format, Output, Stream};
use auth::{CreatedToken, TokenRecord};

/// A new token: the secret alone on stdout (so it can be piped into a file), what it allows
/// on stderr.
pub fn token_created(made: &CreatedToken) -> Output {
    let record = &made.record;
    let mut output = Output::line(&made.token);
    output.push(
        Stream::Stderr,
        format!(
            "token '{}' created ({}{}); it is shown only now: keep it in a password manager or a file (--auth-token-file)\n",
            record.name,
            if record.read_only { "read only" } else { "read and write" },
            if record.projects.is_empty() {
                String::new()
            } else {
                format!(", projects {}", record.projects.join(", "))
            }
        ),
    );
    output
}

fn token_line(t: &TokenRecord) -> String {
    format!(
        "{}\t{}\t{}\tcreated {}\n",
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
    )
}

/// The tokens, never their secrets or hashes.
pub fn tokens(tokens: &[TokenRecord], format: Format) -> Output {
    let none = "No tokens. `gitmem token create NAME` makes one.\n";
    Output::listing(format, tokens, none, token_line, || {
        json!(tokens
            .iter()
            .map(|t| json!({
                "name": t.name, "read_only": t.read_only,
                "projects": t.projects, "created": t.created,
            }))
            .collect::<Vec<_>>())
    })
}

pub fn token_revoked(name: &str) -> Output {
    Output::line(&format!("token '{name}' revoked"))
}

pub fn password_set() -> Output {
    Output::line(
        "owner password set; the OAuth approval page of `gitmem serve --transport http` accepts it",
    )
}
