//! Talking to a project's remote (`origin`): fetch and push, with credentials taken from the
//! environment or the user's git setup, never from gitmem's own files. Credentials are never
//! logged, and a URL is shown without its user-info part.

use std::path::Path;

use git2::{Cred, CredentialType, FetchOptions, PushOptions, RemoteCallbacks, Repository};

use super::crypt::{mirror, CryptError, Keys};
use super::GitError;

const REMOTE: &str = "origin";
/// Where an encrypted project keeps the remote's mirror branches as fetched, and the mirror of
/// its own branches as pushed; `refs/remotes/origin/*` holds their plaintext.
const MIRROR_FETCHED: &str = "refs/gitmem/crypt/remote";
const MIRROR_PUSHED: &str = "refs/gitmem/crypt/heads";

/// A URL as it may be shown: without a password or token written into it.
pub fn redact(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((_, host)) => format!("{scheme}://***@{host}{path}"),
        None => url.to_string(),
    }
}

/// True when `url` carries a secret in its user-info (`https://user:token@host/...`), which
/// gitmem refuses to keep in config.toml.
pub fn has_embedded_secret(url: &str) -> bool {
    url.split_once("://")
        .map(|(_, rest)| rest.split('/').next().unwrap_or_default())
        .and_then(|authority| authority.rsplit_once('@'))
        .is_some_and(|(userinfo, _)| userinfo.contains(':'))
}

/// Asks `GIT_ASKPASS` (or `SSH_ASKPASS`) for a value, as git does.
fn ask(prompt: &str) -> Option<String> {
    let program = std::env::var("GIT_ASKPASS")
        .or_else(|_| std::env::var("SSH_ASKPASS"))
        .ok()
        .filter(|p| !p.is_empty())?;
    let output = std::process::Command::new(program)
        .arg(prompt)
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    output.status.success().then(|| {
        String::from_utf8_lossy(&output.stdout)
            .trim_end_matches(['\r', '\n'])
            .to_string()
    })
}

fn env_token() -> Option<String> {
    ["GITMEM_GIT_TOKEN", "GITHUB_TOKEN", "GH_TOKEN"]
        .iter()
        .find_map(|name| std::env::var(name).ok().filter(|v| !v.trim().is_empty()))
}

/// The credential sources in the order they are tried. libgit2 calls back again after each
/// refusal, so each source is offered once and then the next one.
fn callbacks<'a>(config: Option<git2::Config>) -> RemoteCallbacks<'a> {
    let mut tried = 0usize;
    let mut callbacks = RemoteCallbacks::new();
    callbacks.credentials(move |url, username, allowed| {
        let user = username.unwrap_or("git");
        if allowed.contains(CredentialType::USERNAME) {
            return Cred::username(user);
        }
        loop {
            tried += 1;
            let offer = match tried {
                1 if allowed.contains(CredentialType::SSH_KEY) => {
                    Some(Cred::ssh_key_from_agent(user))
                }
                2 if allowed.contains(CredentialType::USER_PASS_PLAINTEXT) => env_token()
                    .map(|token| {
                        Cred::userpass_plaintext(username.unwrap_or("x-access-token"), &token)
                    }),
                3 if allowed.contains(CredentialType::USER_PASS_PLAINTEXT) => config
                    .as_ref()
                    .map(|config| Cred::credential_helper(config, url, username)),
                4 if allowed.contains(CredentialType::USER_PASS_PLAINTEXT) => {
                    let shown = redact(url);
                    let user = match username {
                        Some(u) => Some(u.to_string()),
                        None => ask(&format!("Username for '{shown}': ")),
                    };
                    user.and_then(|u| {
                        ask(&format!("Password for '{shown}': "))
                            .map(|p| Cred::userpass_plaintext(&u, &p))
                    })
                }
                5 if allowed.contains(CredentialType::DEFAULT) => Some(Cred::default()),
                n if n > 5 => {
                    return Err(git2::Error::from_str(
                        "authentication failed: no credential was accepted (set GITHUB_TOKEN, a credential helper, GIT_ASKPASS or an SSH agent)",
                    ))
                }
                _ => None,
            };
            if let Some(Ok(cred)) = offer {
                return Ok(cred);
            }
        }
    });
    callbacks
}

/// Fetch options with gitmem's credential sources, for a clone.
pub fn fetch_options() -> FetchOptions<'static> {
    let mut options = FetchOptions::new();
    options.remote_callbacks(callbacks(git2::Config::open_default().ok()));
    options
}

/// The branch HEAD is on (`main` for a repository without commits yet).
pub fn current_branch(repo: &Repository) -> String {
    repo.find_reference("HEAD")
        .ok()
        .and_then(|head| head.symbolic_target().map(String::from))
        .and_then(|target| target.strip_prefix("refs/heads/").map(String::from))
        .unwrap_or_else(|| "main".into())
}

fn remote_error(url: &str, e: git2::Error) -> GitError {
    GitError::Remote {
        url: redact(url),
        message: e.message().replace(url, &redact(url)),
    }
}

/// The URL of the repository's `origin`, if it has one.
pub fn origin_url(dir: &Path) -> Option<String> {
    let repo = Repository::open(dir).ok()?;
    let origin = repo.find_remote(REMOTE).ok()?;
    origin.url().map(String::from)
}

/// Makes `url` the repository's `origin`. An `origin` that points elsewhere is the user's and
/// stays as it is: the project is refused rather than synced with a remote other than the one
/// config.toml names.
pub fn set_origin(repo: &Repository, url: &str) -> Result<(), GitError> {
    match repo.find_remote(REMOTE) {
        Ok(origin) if origin.url() == Some(url) => Ok(()),
        Ok(origin) => Err(GitError::OtherOrigin(redact(
            origin.url().unwrap_or_default(),
        ))),
        Err(_) => {
            repo.remote(REMOTE, url)?;
            Ok(())
        }
    }
}

/// The branch of `origin` that the local `branch` exchanges commits with: its upstream
/// (`branch.<name>.merge`) when that is on `origin`, else the branch of the same name.
pub(crate) fn followed_branch(repo: &Repository, branch: &str) -> String {
    let local = format!("refs/heads/{branch}");
    let on_origin = repo
        .branch_upstream_remote(&local)
        .is_ok_and(|remote| remote.as_str() == Some(REMOTE));
    let upstream = on_origin
        .then(|| repo.branch_upstream_merge(&local).ok())
        .flatten()
        .and_then(|merge| {
            merge
                .as_str()
                .and_then(|m| m.strip_prefix("refs/heads/"))
                .map(String::from)
        });
    upstream.unwrap_or_else(|| branch.to_string())
}

/// Fetches `origin` and answers the tip of the branch the current one follows, or None when
/// the remote has no branch at all yet. With `keys`, the remote holds encrypted mirrors
/// (`crypt::mirror`), which are decrypted here: the answer is always a plaintext commit.
/// Without them, an encrypted remote is refused rather than merged as files.
pub fn fetch(dir: &Path, keys: Option<&Keys>) -> Result<Option<git2::Oid>, GitError> {
    let repo = Repository::open(dir)?;
    let branch = current_branch(&repo);
    let mut remote = repo.find_remote(REMOTE).map_err(|_| GitError::NoRemote)?;
    let url = remote.url().unwrap_or_default().to_string();
    let into = match keys {
        Some(_) => MIRROR_FETCHED.to_string(),
        None => format!("refs/remotes/{REMOTE}"),
    };
    let known = ref_tips(&repo, MIRROR_FETCHED)?;
    let mut options = FetchOptions::new();
    options.remote_callbacks(callbacks(repo.config().ok()));
    // A branch deleted on the remote must not linger here, followed and reported up to date.
    options.prune(git2::FetchPrune::On);
    remote
        .fetch(
            &[format!("+refs/heads/*:{into}/*")],
            Some(&mut options),
            None,
        )
        .map_err(|e| remote_error(&url, e))?;
    if let Some(keys) = keys {
        let known: Vec<git2::Oid> = known.into_iter().map(|(_, tip)| tip).collect();
        decrypt_branches(&repo, keys, &followed_branch(&repo, &branch), &known)?;
    }
    let followed = follow_remote_branch(&repo, &remote, &branch)?;
    let tracking = format!("refs/remotes/{REMOTE}/{followed}");
    let tip = repo.find_reference(&tracking).ok().and_then(|r| r.target());
    if let (None, Some(tip)) = (keys, tip) {
        if mirror::is_mirror(&repo, tip)? {
            return Err(CryptError::RemoteEncrypted.into());
        }
    }
    Ok(tip)
}

/// The branches under `prefix`, with their tips.
fn ref_tips(repo: &Repository, prefix: &str) -> Result<Vec<(String, git2::Oid)>, GitError> {
    let start = format!("{prefix}/");
    Ok(repo
        .references_glob(&format!("{start}*"))?
        .flatten()
        .filter_map(|r| {
            let name = r.name()?.strip_prefix(&start)?.to_string();
            Some((name, r.target()?))
        })
        .collect())
}

/// Decrypts each fetched mirror branch into `refs/remotes/origin/<branch>`. A plaintext branch
/// is never taken for the followed one: the project is encrypted, and merging it would mix
/// what the remote was sent in the clear into an encrypted history.
fn decrypt_branches(
    repo: &Repository,
    keys: &Keys,
    followed: &str,
    known: &[git2::Oid],
) -> Result<(), GitError> {
    let mut decrypted: Vec<String> = Vec::new();
    for (name, tip) in ref_tips(repo, MIRROR_FETCHED)? {
        if !mirror::is_mirror(repo, tip)? {
            if name == followed {
                return Err(CryptError::RemotePlaintext(name).into());
            }
            tracing::warn!("the remote's branch '{name}' holds plaintext; an encrypted project leaves it alone");
            continue;
        }
        let plain = mirror::import(repo, keys, tip, known)?;
        repo.reference(
            &format!("refs/remotes/{REMOTE}/{name}"),
            plain,
            true,
            "gitmem: fetch (decrypted)",
        )?;
        decrypted.push(name);
    }
    for (name, _) in ref_tips(repo, &format!("refs/remotes/{REMOTE}"))? {
        if name != "HEAD" && !decrypted.contains(&name) {
            repo.find_reference(&format!("refs/remotes/{REMOTE}/{name}"))?
                .delete()?;
        }
    }
    Ok(())
}

/// The remote branch to merge from and push to. A branch the remote does not have would leave
/// the devices on two branches that never meet (a folder versioned on `main` joining a remote
/// whose history is on `master`), so the remote's branch is taken instead: the one its HEAD
/// names, else `main`, else `master`, else the only one. A repository without commits switches
/// to it; one with commits of its own follows it as its upstream, and the next pull merges
/// both histories. A remote whose branch cannot be told is refused, never reported up to date.
fn follow_remote_branch(
    repo: &Repository,
    remote: &git2::Remote,
    branch: &str,
) -> Result<String, GitError> {
    let followed = followed_branch(repo, branch);
    let prefix = format!("refs/remotes/{REMOTE}/");
    let remote_branches: Vec<String> = repo
        .references_glob(&format!("{prefix}*"))?
        .flatten()
        .filter_map(|r| {
            r.name()
                .and_then(|n| n.strip_prefix(&prefix))
                .map(String::from)
        })
        .filter(|name| name != "HEAD")
        .collect();
    if remote_branches.is_empty() || remote_branches.contains(&followed) {
        return Ok(followed);
    }
    let remote_head = remote.default_branch().ok().and_then(|head| {
        head.as_str()
            .and_then(|h| h.strip_prefix("refs/heads/"))
            .map(String::from)
    });
    let chosen = remote_head
        .into_iter()
        .chain(["main".to_string(), "master".to_string()])
        .find(|b| remote_branches.contains(b))
        .or_else(|| (remote_branches.len() == 1).then(|| remote_branches[0].clone()))
        .ok_or_else(|| GitError::NoBranchToFollow {
            branch: followed.clone(),
            remote: remote_branches.join(", "),
        })?;
    if repo.head().is_err() {
        repo.set_head(&format!("refs/heads/{chosen}"))?;
    } else {
        repo.find_branch(branch, git2::BranchType::Local)?
            .set_upstream(Some(&format!("{REMOTE}/{chosen}")))?;
    }
    Ok(chosen)
}

/// Pushes the current branch to the branch of `origin` it follows; with `keys`, its encrypted
/// mirror instead (`crypt::mirror`). A remote that moved on refuses with
/// [`GitError::Rejected`]; the caller pulls and tries again. `replace` overwrites the remote's
/// branch whatever it holds: only for turning encryption on or off, after a pull.
pub fn push(dir: &Path, keys: Option<&Keys>, replace: bool) -> Result<(), GitError> {
    let repo = Repository::open(dir)?;
    let Some(head) = repo.head().ok().and_then(|h| h.target()) else {
        return Ok(());
    };
    let branch = current_branch(&repo);
    let followed = followed_branch(&repo, &branch);
    let tracking = format!("refs/remotes/{REMOTE}/{followed}");
    let source = match keys {
        Some(keys) => {
            let known: Vec<git2::Oid> = repo
                .find_reference(&tracking)
                .ok()
                .and_then(|r| r.target())
                .into_iter()
                .collect();
            let tip = mirror::export(&repo, keys, head, &known)?;
            let name = format!("{MIRROR_PUSHED}/{branch}");
            repo.reference(&name, tip, true, "gitmem: encrypt")?;
            Some((name, tip))
        }
        None => None,
    };
    let local = source
        .as_ref()
        .map_or_else(|| format!("refs/heads/{branch}"), |(name, _)| name.clone());
    let force = if replace { "+" } else { "" };
    let refspec = format!("{force}{local}:refs/heads/{followed}");
    let mut remote = repo.find_remote(REMOTE).map_err(|_| GitError::NoRemote)?;
    let url = remote.url().unwrap_or_default().to_string();
    let mut refused: Option<String> = None;
    {
        let mut callbacks = callbacks(repo.config().ok());
        callbacks.push_update_reference(|_, status| {
            if let Some(status) = status {
                refused = Some(status.to_string());
            }
            Ok(())
        });
        let mut options = PushOptions::new();
        options.remote_callbacks(callbacks);
        if let Err(e) = remote.push(&[refspec], Some(&mut options)) {
            if e.code() == git2::ErrorCode::NotFastForward {
                return Err(GitError::Rejected(e.message().to_string()));
            }
            return Err(remote_error(&url, e));
        }
    }
    if let Some(reason) = refused {
        return Err(GitError::Rejected(reason));
    }
    repo.reference(&tracking, head, true, "gitmem: push")?;
    if let Some((_, tip)) = source {
        repo.reference(
            &format!("{MIRROR_FETCHED}/{followed}"),
            tip,
            true,
            "gitmem: push",
        )?;
    }
    Ok(())
}

/// Makes a plain `git push` in an encrypted project push the mirror, never the plaintext
/// branches (`remote.origin.push`), or undoes that when encryption is turned off.
pub fn guard_manual_push(dir: &Path, encrypted: bool) -> Result<(), GitError> {
    let repo = Repository::open(dir)?;
    let mut config = repo.config()?;
    let key = format!("remote.{REMOTE}.push");
    let spec = format!("{MIRROR_PUSHED}/*:refs/heads/*");
    let _ = config.remove_multivar(&key, &regex::escape(&spec));
    if encrypted {
        config.set_multivar(&key, "^$", &spec)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_their_secrets() {
        let cases = [
            (
                "https://x:ghp_secret@github.com/me/notes.git",
                "https://***@github.com/me/notes.git",
                true,
            ),
            (
                "https://me@github.com/me/notes.git",
                "https://***@github.com/me/notes.git",
                false,
            ),
            (
                "https://github.com/me/notes.git",
                "https://github.com/me/notes.git",
                false,
            ),
            ("file:///tmp/remote.git", "file:///tmp/remote.git", false),
            (
                "git@github.com:me/notes.git",
                "git@github.com:me/notes.git",
                false,
            ),
        ];
        for (url, shown, secret) in cases {
            assert_eq!(redact(url), shown, "{url}");
            assert_eq!(has_embedded_secret(url), secret, "{url}");
        }
    }
}
