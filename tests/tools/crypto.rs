//! A remote that sees only ciphertext: devices share an encrypted project through a bare
//! `file://` remote, whose every object is scanned for what the notes say. A device with an
//! identity of one of the recipients reads and merges as usual; one without gets a clear
//! refusal and loses nothing.

use std::path::{Path, PathBuf};

use auth::Grant;
use git2::Repository;
use mcp::tools::ToolReply;
use serde_json::{json, Value};

use crate::common::assert_mentions;
use crate::common::git::set_option;
use crate::git::exchange::bare_remote;
use crate::Harness;

/// What the notes of these tests say, name and hold; none of it may reach the remote.
const SECRETS: &[&str] = &[
    "Quokka Protocol",
    "zanzibar",
    "private-plans",
    "Gliders over Lisbon",
    "chore(mem)",
    "title:",
];

struct Keys {
    _dir: tempfile::TempDir,
    identity: PathBuf,
    recipient: String,
}

/// A new age identity, made by `gitmem crypto keygen`'s service call.
fn keys() -> Keys {
    let dir = tempfile::tempdir().unwrap();
    let h = Harness::new();
    let made = h
        .app()
        .crypto_keygen(Some(&dir.path().join("id.txt")))
        .unwrap();
    Keys {
        identity: made.path,
        recipient: made.recipient,
        _dir: dir,
    }
}

struct Device {
    h: Harness,
    dir: PathBuf,
}

impl Device {
    /// A data root whose `[crypto]` is `crypto` (TOML lines), joining `url` as project `notes`.
    fn join(url: &str, name: &str, crypto: &str) -> Result<Device, String> {
        let root = tempfile::tempdir().unwrap();
        std::fs::write(
            root.path().join("config.toml"),
            format!("[crypto]\n{crypto}\n"),
        )
        .unwrap();
        let h = Harness::prepared(root);
        let dir = h.root().join("notes");
        h.app().add_project("notes", &dir, true).unwrap();
        h.app()
            .version_project("notes", Some(url))
            .map_err(|e| e.to_string())?;
        set_option(h.root(), "notes", &format!("device = \"{name}\""));
        let h = h.reopen().serving_tools("all");
        h.sync();
        Ok(Device { h, dir })
    }

    fn encrypted(url: &str, name: &str, mine: &Keys, recipients: &[&Keys]) -> Device {
        let list: Vec<String> = recipients
            .iter()
            .map(|k| format!("\"{}\"", k.recipient))
            .collect();
        let crypto = format!(
            "enabled = true\nage_recipients = [{}]\nidentity_file = \"{}\"",
            list.join(", "),
            mine.identity.display()
        );
        Device::join(url, name, &crypto).unwrap_or_else(|e| panic!("{name} joins: {e}"))
    }

    fn write(&self, title: &str, content: &str) {
        self.h
            .write_with(title, "private-plans", content, json!({"overwrite": true}));
    }

    fn sync(&self, direction: &str) -> Value {
        self.h.value("sync", json!({"direction": direction}))["reports"][0].clone()
    }

    fn head(&self) -> git2::Oid {
        Repository::open(&self.dir)
            .unwrap()
            .head()
            .unwrap()
            .target()
            .unwrap()
    }
}

/// Every object of the bare remote, decompressed, as text.
fn remote_objects(remote: &Path) -> Vec<(git2::Oid, String)> {
    let repo = Repository::open_bare(remote.join("remote.git")).unwrap();
    let odb = repo.odb().unwrap();
    let mut ids = Vec::new();
    odb.foreach(|id| {
        ids.push(*id);
        true
    })
    .unwrap();
    ids.into_iter()
        .map(|id| {
            let object = odb.read(id).unwrap();
            (id, String::from_utf8_lossy(object.data()).into_owned())
        })
        .collect()
}

fn assert_no_plaintext(remote: &Path) {
    let objects = remote_objects(remote);
    assert!(objects.len() > 5, "the remote holds the history");
    for (id, text) in &objects {
        for secret in SECRETS {
            assert!(
                !text.to_lowercase().contains(&secret.to_lowercase()),
                "object {id} of the remote shows {secret:?}:\n{text}"
            );
        }
    }
}

/// The tip of the remote's one branch.
fn remote_tip(remote: &Path) -> git2::Oid {
    let repo = Repository::open_bare(remote.join("remote.git")).unwrap();
    let branches: Vec<git2::Oid> = repo
        .references_glob("refs/heads/*")
        .unwrap()
        .map(|r| r.unwrap().target().unwrap())
        .collect();
    assert_eq!(branches.len(), 1, "the remote has one branch");
    branches[0]
}

#[test]
fn an_encrypted_remote_holds_only_ciphertext_and_a_recipient_device_merges_as_usual() {
    let remote = tempfile::tempdir().unwrap();
    let url = bare_remote(remote.path());
    let (laptop_keys, desktop_keys) = (keys(), keys());
    let everyone = [&laptop_keys, &desktop_keys];
    let laptop = Device::encrypted(&url, "laptop", &laptop_keys, &everyone);
    laptop.write(
        "Quokka Protocol",
        "We meet in zanzibar at dawn.\nline two\nline three",
    );
    assert_eq!(laptop.sync("push")["pushed"], true);
    assert_no_plaintext(remote.path());

    let desktop = Device::encrypted(&url, "desktop", &desktop_keys, &everyone);
    let pulled = std::fs::read_to_string(desktop.dir.join("private-plans/Quokka Protocol.md"))
        .expect("the desktop decrypted the laptop's note into its folder");
    assert_mentions(&pulled, "zanzibar");
    assert_eq!(
        desktop.head(),
        laptop.head(),
        "the same commit, bit for bit"
    );
    let found = desktop.h.text("search_notes", json!({"query": "zanzibar"}));
    assert_mentions(&found, "Quokka Protocol");

    desktop.write("Gliders over Lisbon", "a second plan from the desktop");
    laptop.write(
        "Quokka Protocol",
        "We meet in zanzibar at dawn.\nline two\nline three, edited on the laptop",
    );
    assert_eq!(laptop.sync("both")["pushed"], true);
    let merged = desktop.sync("both");
    assert_eq!(merged["pull"]["result"], "merge", "{merged}");
    assert_eq!(laptop.sync("pull")["pull"]["result"], "fast-forward");
    assert_eq!(laptop.head(), desktop.head());
    assert!(laptop
        .dir
        .join("private-plans/Gliders over Lisbon.md")
        .is_file());
    assert_no_plaintext(remote.path());

    // Nothing changed: nothing new is encrypted or pushed.
    let (tip, objects) = (
        remote_tip(remote.path()),
        remote_objects(remote.path()).len(),
    );
    laptop.sync("both");
    desktop.sync("both");
    assert_eq!(remote_tip(remote.path()), tip);
    assert_eq!(remote_objects(remote.path()).len(), objects);
}

#[test]
fn a_device_without_a_matching_identity_is_refused_and_loses_nothing() {
    let remote = tempfile::tempdir().unwrap();
    let url = bare_remote(remote.path());
    let owner = keys();
    let laptop = Device::encrypted(&url, "laptop", &owner, &[&owner]);
    laptop.write("Quokka Protocol", "We meet in zanzibar at dawn.");
    laptop.sync("push");

    let stranger = keys();
    let refused = Device::join(
        &url,
        "stranger",
        &format!(
            "enabled = true\nage_recipients = [\"{}\"]\nidentity_file = \"{}\"",
            stranger.recipient,
            stranger.identity.display()
        ),
    )
    .err()
    .expect("another key cannot read the remote");
    assert_mentions(&refused, "encrypted to other keys");

    // The refused folder is left as empty as it was: with the right identity, it joins.
    let root = tempfile::tempdir().unwrap();
    let crypto = |keys: &Keys| {
        format!(
            "[crypto]\nenabled = true\nage_recipients = [\"{}\"]\nidentity_file = \"{}\"\n",
            keys.recipient,
            keys.identity.display()
        )
    };
    std::fs::write(root.path().join("config.toml"), crypto(&stranger)).unwrap();
    let h = Harness::open(root.path());
    let dir = root.path().join("notes");
    h.app().add_project("notes", &dir, true).unwrap();
    assert!(h.app().version_project("notes", Some(&url)).is_err());
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    let h = h.reopen();
    let config = std::fs::read_to_string(root.path().join("config.toml")).unwrap();
    std::fs::write(
        root.path().join("config.toml"),
        config.replace(&crypto(&stranger), &crypto(&owner)),
    )
    .unwrap();
    let h = h.reopen();
    h.app().version_project("notes", Some(&url)).unwrap();
    assert!(dir.join("private-plans/Quokka Protocol.md").is_file());
    drop(h);

    let plaintext = Device::join(&url, "plain", "enabled = false")
        .err()
        .expect("a device without encryption cannot read the remote");
    assert_mentions(&plaintext, "the remote is encrypted");

    // A device that had notes of its own keeps them when its pull is refused.
    let root = tempfile::tempdir().unwrap();
    let h = Harness::prepared(root);
    let dir = h.root().join("notes");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("Mine.md"), "# Mine\n\nmy own words\n").unwrap();
    h.app().add_project("notes", &dir, true).unwrap();
    h.app().version_project("notes", None).unwrap();
    h.app()
        .version_project("notes", Some(&url))
        .expect("origin is set");
    let reply = h.call("sync", json!({"direction": "both"}));
    assert!(reply.is_error());
    assert_mentions(&reply.text(), "the remote is encrypted");
    assert_eq!(
        std::fs::read_to_string(dir.join("Mine.md")).unwrap(),
        "# Mine\n\nmy own words\n"
    );
    assert_eq!(laptop.sync("pull")["pull"]["result"], "up to date");
}

#[test]
fn bad_keys_are_refused_before_anything_is_pushed() {
    let remote = tempfile::tempdir().unwrap();
    let url = bare_remote(remote.path());
    let laptop = Device::join(&url, "laptop", "").unwrap();
    laptop.write("Quokka Protocol", "We meet in zanzibar at dawn.");
    laptop.sync("push");
    let mine = keys();
    let theirs = keys();
    let cases = [
        (json!({"recipients": []}), "no recipients", "E_ENCRYPTION"),
        (
            json!({"recipients": ["age1notakey"]}),
            "is not an age X25519 recipient",
            "E_ENCRYPTION",
        ),
        (
            json!({"recipients": [theirs.recipient]}),
            "no age identity",
            "E_ENCRYPTION",
        ),
        (json!({"colour": "blue"}), "colour", "E_VALIDATION"),
    ];
    for (args, expected, code) in cases {
        let reply = laptop.h.call("memory_encrypt", args.clone());
        assert!(reply.is_error(), "{args}: {}", reply.text());
        assert_mentions(&reply.text(), expected);
        match reply {
            ToolReply::Failed { content, .. } => {
                assert_eq!(content["error"]["code"], code, "{args}: {content}")
            }
            other => panic!("{args}: an error without its code: {other:?}"),
        }
    }
    // An identity that is not among the recipients could not read back its own pushes.
    let config = laptop.h.root().join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace(
            "[crypto]\n",
            &format!(
                "[crypto]\nidentity_file = \"{}\"\n",
                mine.identity.display()
            ),
        ),
    )
    .unwrap();
    let laptop = Device {
        h: laptop.h.reopen().serving_tools("all"),
        dir: laptop.dir,
    };
    let reply = laptop
        .h
        .call("memory_encrypt", json!({"recipients": [theirs.recipient]}));
    assert_mentions(&reply.text(), "is not one of the recipients");
    let objects = remote_objects(remote.path());
    assert!(
        objects.iter().any(|(_, text)| text.contains("zanzibar")),
        "the remote still holds the plaintext history, untouched"
    );
}

/// A remote a laptop without encryption pushed its plan to, and an identity the laptop's
/// config names (encryption still off).
fn a_plaintext_laptop_with_a_key() -> (tempfile::TempDir, String, Keys, Device) {
    let remote = tempfile::tempdir().unwrap();
    let url = bare_remote(remote.path());
    let mine = keys();
    let identity = format!("identity_file = \"{}\"", mine.identity.display());
    let laptop = Device::join(&url, "laptop", &identity).unwrap();
    laptop.write("Quokka Protocol", "We meet in zanzibar at dawn.");
    laptop.sync("push");
    (remote, url, mine, laptop)
}

#[test]
fn turning_encryption_on_replaces_the_plaintext_branch_and_turning_it_off_restores_it() {
    let (remote, url, mine, laptop) = a_plaintext_laptop_with_a_key();
    let desktop = Device::join(&url, "desktop", "").unwrap();
    desktop.write("Gliders over Lisbon", "the desktop's plan");
    desktop.sync("push");

    let read_only = Grant {
        name: "reader".into(),
        read_only: true,
        projects: vec![],
    };
    let limited = Grant {
        name: "one-project".into(),
        read_only: false,
        projects: vec!["notes".into()],
    };
    for grant in [&read_only, &limited] {
        let reply = laptop.h.call_as(
            grant,
            "memory_encrypt",
            json!({"recipients": [mine.recipient]}),
        );
        assert!(reply.is_error(), "{}: {}", grant.name, reply.text());
    }

    let on = laptop
        .h
        .value("memory_encrypt", json!({"recipients": [mine.recipient]}));
    assert_eq!(on["encryption"]["encrypted"], true, "{on}");
    assert_eq!(on["replaced_remote_history"], true, "{on}");
    let memory = laptop.h.value(
        "memory_save",
        json!({"content": "a memory while encrypted"}),
    );
    assert_eq!(memory["encryption"], on["encryption"], "{memory}");
    assert!(
        laptop
            .dir
            .join("private-plans/Gliders over Lisbon.md")
            .is_file(),
        "the desktop's push was pulled before the branch was replaced"
    );
    let repo = Repository::open_bare(remote.path().join("remote.git")).unwrap();
    let tip = repo.find_commit(remote_tip(remote.path())).unwrap();
    assert!(tip.tree().unwrap().get_name("GITMEM-ENCRYPTED").is_some());
    assert!(tip.tree().unwrap().get_name("private-plans").is_none());

    // The plaintext device is told, and keeps its own work.
    desktop.write("Desktop only", "written while the remote changed form");
    let reply = desktop.h.call("sync", json!({"direction": "both"}));
    assert_mentions(&reply.text(), "the remote is encrypted");
    assert!(desktop.dir.join("private-plans/Desktop only.md").is_file());

    // A plain `git push` of the laptop's repository pushes the mirror, never plaintext.
    let config = Repository::open(&laptop.dir).unwrap().config().unwrap();
    let push = config.get_string("remote.origin.push").unwrap();
    assert!(push.starts_with("refs/gitmem/crypt/"), "{push}");

    let off = laptop.h.value("memory_decrypt", json!({}));
    assert_eq!(off["encryption"]["encrypted"], false, "{off}");
    let tip = repo.find_commit(remote_tip(remote.path())).unwrap();
    assert!(tip.tree().unwrap().get_name("private-plans").is_some());
    assert_eq!(desktop.sync("both")["pushed"], true);
    assert!(laptop.sync("pull")["pull"]["result"] != "up to date");
    assert!(laptop.dir.join("private-plans/Desktop only.md").is_file());
}

#[test]
fn a_push_held_for_a_secret_leaves_encryption_as_it_was() {
    let (_remote, _, mine, laptop) = a_plaintext_laptop_with_a_key();
    // Another program writes a key into the project; gitmem commits it, never rewrites it.
    let key = "AKIA".to_string() + "Z7Q3KX2M9PLR4TUV";
    std::fs::write(
        laptop.dir.join("private-plans/aws.md"),
        format!("# AWS\n\naws key {key}\n"),
    )
    .unwrap();
    laptop.h.sync();
    let reply = laptop
        .h
        .call("memory_encrypt", json!({"recipients": [mine.recipient]}));
    assert!(reply.is_error(), "{}", reply.text());
    assert_mentions(&reply.text(), "aws.md");
    let config = std::fs::read_to_string(laptop.h.root().join("config.toml")).unwrap();
    assert!(!config.contains("[projects.notes.crypto]"), "{config}");
}
