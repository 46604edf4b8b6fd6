//! The push gate. gitmem never rewrites a file another program wrote, so a secret can reach a
//! commit through a file an editor saved; before any push (`sync push`, the push of `sync
//! both` and of the sync tool, the background push of `auto_push`) every file version the push
//! would send is scanned with the redaction filter, and a match holds the push. The user
//! decides: take the secret out of the unpushed commits, or allow it with `gitmem sync push
//! --allow-secrets PATH`, which remembers the exact version (path and blob) allowed, so a new
//! secret in the same file is held again. The hold is recorded for `status` and `sync_status`.
//! Nothing here ever shows a value: a hold names the file, the line, the kind and the commit.

use std::collections::HashSet;
use std::path::Path;

use crate::config::Project;
use crate::error::{HeldPush, HeldSecret, HistoryError};
use crate::git::exchange::{Direction, ExchangeReport};
use crate::scope::ProjectChoice;
use crate::Result;
use crate::{Engine, Store};
use git::outgoing::{outgoing, outgoing_squashed, squash_outgoing, state_file, Outgoing, Squashed};
use note::redact::Redactor;
use vault;

/// The allowed versions, one `<blob id> <path>` a line.
const ALLOWED: &str = "gitmem-allowed-secrets";
/// The last hold (JSON), removed by the next push that is not held.
const HELD: &str = "gitmem-held-push.json";

/// Every secret-shaped value in the outgoing versions that no allowance covers: an allowed
/// version is not held, nor is a value an allowed version of the same path holds (the user
/// let it go already; a new one beside it is held).
fn scan(found: &Outgoing, redactor: &Redactor, allowed: &Allowed) -> Result<Vec<HeldSecret>> {
    let mut held = Vec::new();
    for blob in &found.blobs {
        if allowed.contains(&(blob.path.clone(), blob.blob.to_string())) {
            continue;
        }
        let bytes = found.read(blob.blob)?;
        let text = String::from_utf8_lossy(&bytes);
        let mut known = String::new();
        for (_, id) in allowed.iter().filter(|(path, _)| *path == blob.path) {
            // An allowed version this repository no longer has allows nothing more.
            if let Some(bytes) = found.read_named(id) {
                known.push_str(&String::from_utf8_lossy(&bytes));
                known.push('\n');
            }
        }
        let commit = blob.commit.to_string()[..8].to_string();
        // A name can be the secret, so a hold shows every path as the filter leaves it.
        let shown = redactor.redact(&blob.path).text;
        let in_name = redactor
            .findings(&blob.path)
            .into_iter()
            .map(|f| (0, f.kind));
        let known = Some(&known).filter(|k| !k.is_empty()).map(String::as_str);
        let in_text = redactor
            .findings_new(&text, known)
            .into_iter()
            .map(|f| (f.line, f.kind));
        held.extend(in_name.chain(in_text).map(|(line, kind)| HeldSecret {
            path: shown.clone(),
            line,
            kind,
            commit: commit.clone(),
        }));
    }
    Ok(held)
}

type Allowed = HashSet<(String, String)>;

fn read_allowed(dir: &Path) -> Result<Allowed> {
    let Some(bytes) = vault::fs::read_optional(&state_file(dir, ALLOWED)?)? else {
        return Ok(Allowed::new());
    };
    Ok(String::from_utf8_lossy(&bytes)
        .lines()
        .filter_map(|line| line.split_once(' '))
        .map(|(blob, path)| (path.to_string(), blob.to_string()))
        .collect())
}

/// Refuses the push of the repository at `dir` when what it would send holds secret-shaped
/// text no allowance covers, and records the answer for `status`. The one gate every push
/// path calls first.
///
/// An edit releases a hold: when the text is gone from the files as they are now (edited out,
/// or the file renamed or deleted), the unpushed commits are squashed into one holding HEAD's
/// tree, so the versions that carried it never leave the machine. They stay on this device
/// under `refs/gitmem/unsquashed/`.
pub(crate) fn hold_secrets_in(
    dir: &Path,
    redactor: &Redactor,
    author: (&str, &str),
) -> Result<Option<Squashed>> {
    if !redactor.is_enabled() {
        return Ok(None);
    }
    let allowed = read_allowed(dir)?;
    let mut held = scan(&outgoing(dir)?, redactor, &allowed)?;
    let mut squashed = None;
    if !held.is_empty() {
        let edited_out = match outgoing_squashed(dir)? {
            Some(one) => scan(&one, redactor, &allowed)?.is_empty(),
            None => false,
        };
        if edited_out {
            // The message is pushed: it names no path, since a held name may be the secret.
            let message = "gitmem: unpushed commits sent as one, secret-shaped text edited out";
            squashed = squash_outgoing(dir, message, author)?;
            if let Some(s) = &squashed {
                tracing::info!(dir = %dir.display(), commits = s.commits, kept = %s.kept, "secret-shaped text edited out: unpushed commits squashed");
                held = scan(&outgoing(dir)?, redactor, &allowed)?;
            }
        }
    }
    let record = state_file(dir, HELD)?;
    if held.is_empty() {
        if record.exists() {
            vault::fs::delete_file(&record)?;
        }
        return Ok(squashed);
    }
    let json = serde_json::to_vec_pretty(&held).map_err(|source| crate::InternalError::Encode {
        what: "the held push",
        source,
    })?;
    vault::fs::atomic_write(&record, &json)?;
    Err(HistoryError::SecretsHeld(HeldPush(held)).into())
}

/// The gate for a project: see [`hold_secrets_in`].
pub(crate) fn hold_secrets(store: &Store, project: &Project) -> Result<Option<Squashed>> {
    let redactor = store.config().redactor.clone();
    let Some(git) = &project.git else {
        return Ok(None);
    };
    hold_secrets_in(
        &project.path,
        &redactor,
        (&git.author_name, &git.author_email),
    )
}

/// What the last push attempt of a versioned project held, as recorded then.
pub(crate) fn held_push(project: &Project) -> Result<Vec<HeldSecret>> {
    if project.git.is_none() {
        return Ok(Vec::new());
    }
    let Ok(record) = state_file(&project.path, HELD) else {
        return Ok(Vec::new());
    };
    let Some(bytes) = vault::fs::read_optional(&record)? else {
        return Ok(Vec::new());
    };
    // A record that does not parse says nothing; the next push writes it again.
    Ok(serde_json::from_slice(&bytes).unwrap_or_default())
}

/// `gitmem sync push --allow-secrets PATH…`: the versions of these paths that the push
/// would send are allowed for good (only these versions), then the sync runs; anything
/// else still holds it.
pub(crate) fn exchange_allowing(
    engine: &Engine,
    choice: &ProjectChoice,
    direction: Direction,
    allow: &[String],
) -> Result<ExchangeReport> {
    if !allow.is_empty() {
        let project = crate::scope::select_project(&engine.store, choice)?;
        engine.history.flush();
        allow_secrets(&engine.store, &project, allow)?;
    }
    crate::git::exchange::exchange(engine, choice, direction)
}

fn allow_secrets(store: &Store, project: &Project, paths: &[String]) -> Result<()> {
    let dir = &project.path;
    let wanted: Vec<String> = paths
        .iter()
        .map(|p| {
            let p = Path::new(p);
            let relative = p.strip_prefix(dir).unwrap_or(p);
            relative
                .to_string_lossy()
                .trim_start_matches("./")
                .to_string()
        })
        .collect();
    let found = outgoing(dir)?;
    let mut allowed = read_allowed(dir)?;
    let before = allowed.len();
    let redactor = store.config().redactor.clone();
    // A held name is shown redacted, and that is what the user may copy.
    let named =
        |path: &String| wanted.contains(path) || wanted.contains(&redactor.redact(path).text);
    for blob in found.blobs.iter().filter(|b| named(&b.path)) {
        allowed.insert((blob.path.clone(), blob.blob.to_string()));
    }
    if allowed.len() == before {
        return Ok(());
    }
    let mut lines: Vec<String> = allowed
        .iter()
        .map(|(path, blob)| format!("{blob} {path}\n"))
        .collect();
    lines.sort();
    vault::fs::atomic_write(&state_file(dir, ALLOWED)?, lines.concat().as_bytes())?;
    Ok(())
}
