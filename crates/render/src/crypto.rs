//! Encryption of a project's remote: the memory_encrypt / memory_decrypt answers and
//! `gitmem crypto`.

use serde_json::{json, Value};

use engine::crypto::ALGORITHM;
use engine::crypto::{CryptoChange, NewIdentity};

pub fn change(change: &CryptoChange) -> Value {
    json!({
        "ok": true,
        "project": change.project,
        "encryption": {
            "algo": change.encrypted.then_some(ALGORITHM),
            "kid": change.kid,
            "encrypted": change.encrypted,
        },
        "recipients": change.recipients,
        "pushed": change.pushed,
        "replaced_remote_history": change.replaced,
    })
}

pub fn change_text(change: &CryptoChange) -> String {
    let state = if change.encrypted {
        format!(
            "Encryption is on for '{}' ({ALGORITHM}, {} recipient{}, kid {}).",
            change.project,
            change.recipients,
            if change.recipients == 1 { "" } else { "s" },
            change.kid.as_deref().unwrap_or("-")
        )
    } else {
        format!("Encryption is off for '{}'.", change.project)
    };
    let remote = match (change.pushed, change.replaced, change.encrypted) {
        (false, _, _) => "The project has no remote; nothing was pushed.",
        (true, true, true) => "The remote's branch now holds only the encrypted history. Its plaintext commits may survive on the server (reflogs, forks, caches): treat what was pushed before as exposed.",
        (true, true, false) => "The remote's branch now holds the plaintext history.",
        (true, false, _) => "The remote was encrypted already; this device now syncs with it.",
    };
    format!("{state}\n{remote}")
}

/// `gitmem crypto keygen`: where the identity is, then its recipient alone on the last line,
/// as `age-keygen` prints it, for scripts.
pub fn new_identity(identity: &NewIdentity) -> String {
    format!(
        "Wrote an age identity to {} (readable by you only; back it up: without it, this device cannot read its encrypted remote).\nPublic key (add it to age_recipients):\n{}",
        identity.path.display(),
        identity.recipient
    )
}
