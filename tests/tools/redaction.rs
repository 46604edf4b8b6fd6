//! Secrets never leave the machine: what gitmem writes passes the redaction filter (the file,
//! the search index and the commit hold no secret, the answer says what was replaced), and a
//! push that would send secret-shaped text another program wrote is held until the user
//! allows it. Real repositories and a bare `file://` remote in temporary folders.

use std::path::{Path, PathBuf};

use engine::git::exchange::Direction;
use engine::import::ImportOptions;
use engine::scope::ProjectChoice;
use git2::Repository;
use mcp::tools::ToolReply;
use serde_json::json;

use crate::common::assert_mentions;
use crate::common::git::log;
use crate::{titles, versioned, Harness, ReplyExt};

/// Fake secrets of the built-in kinds, made at run time.
fn github_token() -> String {
    format!("ghp_{}", &"A1b2C3d4E5f6G7h8I9j0".repeat(2)[..36])
}

fn aws_key() -> String {
    "AKIA".to_string() + "Z7Y6X5W4V3U2T1S0"
}

/// True when any object of the repository at `dir` (bare or not) holds `needle`.
fn repository_holds(dir: &Path, needle: &str) -> bool {
    let repo = Repository::open(dir).unwrap();
    let odb = repo.odb().unwrap();
    let mut found = false;
    odb.foreach(|id| {
        let object = odb.read(*id).unwrap();
        if String::from_utf8_lossy(object.data()).contains(needle) {
            found = true;
        }
        true
    })
    .unwrap();
    found
}

#[test]
fn a_token_written_by_an_agent_reaches_neither_file_nor_index_nor_history() {
    let h = versioned();
    let token = github_token();
    let content =
        format!("Deploy the documentation site with the token {token} from the release runner.");
    let answer = h.text(
        "write_note",
        json!({"title": "Release checklist", "directory": "ops", "content": content, "metadata": {"db_password": "hunter22"}}),
    );
    assert_mentions(&answer, "Redacted: 1 github-token, 1 password");
    assert!(!answer.contains(&token), "{answer}");

    let file = std::fs::read_to_string(h.main_dir().join("ops/Release checklist.md")).unwrap();
    assert!(!file.contains(&token), "{file}");
    assert!(!file.contains("hunter22"), "{file}");
    assert_mentions(
        &file,
        "with the token [REDACTED:github-token] from the release runner",
    );
    assert_mentions(&file, "db_password: '[REDACTED:password]'");

    let found = h.json("search_notes", json!({"query": token}));
    assert_eq!(titles(&found), Vec::<String>::new(), "{found}");
    let found = h.json(
        "search_notes",
        json!({"query": "documentation release runner"}),
    );
    assert_eq!(titles(&found), ["Release checklist"], "{found}");

    // Reading history commits what is queued; then no object of the repository holds it.
    h.call(
        "note_history",
        json!({"identifier": "ops/release-checklist"}),
    )
    .ok();
    assert!(log(&h.main_dir())[0].starts_with("feat(mem): add Release checklist"));
    assert!(!repository_holds(&h.main_dir(), &token));
    assert!(!repository_holds(&h.main_dir(), "hunter22"));
}

#[test]
fn answers_say_what_was_redacted_only_when_something_was() {
    let h = Harness::new();
    let plain = h.json(
        "write_note",
        json!({"title": "Plain", "directory": "n", "content": "nothing secret here"}),
    );
    assert!(plain.get("redacted").is_none(), "{plain}");
    let text = h.text(
        "write_note",
        json!({"title": "Plain two", "directory": "n", "content": "nothing secret"}),
    );
    assert!(!text.contains("Redacted"), "{text}");

    let token = github_token();
    let written = h.json(
        "write_note",
        json!({"title": format!("Token {token}"), "directory": "n", "content": format!("{token} and {token}")}),
    );
    assert_eq!(
        written["redacted"],
        json!([{"kind": "github-token", "count": 3}]),
        "{written}"
    );
    // The title is redacted before it names the file and the permalink.
    let path = written["file_path"].as_str().unwrap();
    assert!(!path.contains(&token) && !path.to_lowercase().contains(&token.to_lowercase()));

    // An edit redacts what it adds and leaves what another program wrote as it was.
    let other = format!("theirs: {}\n", aws_key());
    std::fs::write(h.main_dir().join("n/Shared.md"), &other).unwrap();
    h.sync();
    let edited = h.json(
        "edit_note",
        json!({"identifier": "n/Shared", "operation": "append", "content": format!("mine: {token}")}),
    );
    assert_eq!(
        edited["redacted"],
        json!([{"kind": "github-token", "count": 1}]),
        "{edited}"
    );
    let file = std::fs::read_to_string(h.main_dir().join("n/Shared.md")).unwrap();
    assert!(file.starts_with(&other), "{file}");
    assert_mentions(&file, "mine: [REDACTED:github-token]");
}

#[test]
fn memories_and_imports_are_redacted_too() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let key = aws_key();
    let saved = h.value(
        "memory_save",
        json!({"content": format!("{key} is the deploy key id of the staging account")}),
    );
    let path = saved["file_path"].as_str().unwrap();
    assert!(!path.contains(&key), "{saved}");
    assert_eq!(saved["redacted"][0]["kind"], "aws-access-key", "{saved}");
    assert!(!saved.to_string().contains(&key), "{saved}");
    let plain = h.value("memory_save", json!({"content": "nothing secret here"}));
    assert!(plain.get("redacted").is_none(), "{plain}");
    let file = std::fs::read_to_string(h.main_dir().join(path)).unwrap();
    assert!(!file.contains(&key), "{file}");
    assert_mentions(&file, "[REDACTED:aws-access-key] is the deploy key id");

    let token = github_token();
    let export = tempfile::tempdir().unwrap();
    let jsonl = export.path().join("memory.jsonl");
    let record = json!({"type": "entity", "name": "CI runner", "entityType": "service",
        "observations": [format!("Uses the token {token} to publish")]});
    std::fs::write(&jsonl, format!("{record}\n")).unwrap();
    let app = h.app();
    let report = app
        .select_project(&ProjectChoice::named(None))
        .and_then(|project| {
            app.import_file(
                &project,
                note::import::Source::named("memory-json").unwrap(),
                &jsonl,
                &ImportOptions::default(),
                &|_, _| {},
            )
        })
        .unwrap();
    let report = render::import::report_json(&report);
    assert_eq!(
        report["redacted"],
        json!([{"kind": "github-token", "count": 1}]),
        "{report}"
    );
    let created = report["created"][0].as_str().unwrap();
    let file = std::fs::read_to_string(h.main_dir().join(created)).unwrap();
    assert!(!file.contains(&token), "{file}");
}

#[test]
fn updates_and_graph_writes_say_what_was_redacted_and_echo_only_what_was_stored() {
    let h = Harness::new().serving_tools("basic,graph,gitmem");
    let token = github_token();
    let saved = h.value("memory_save", json!({"content": "the runner publishes"}));
    let updated = h.value(
        "memory_update",
        json!({"id": saved["id"], "patch": {"content": format!("the runner publishes with {token}")}}),
    );
    assert_eq!(updated["redacted"][0]["kind"], "github-token", "{updated}");
    assert!(!updated.to_string().contains(&token), "{updated}");
    let untouched = h.value(
        "memory_update",
        json!({"id": saved["id"], "patch": {"tags": ["ci"]}}),
    );
    assert!(untouched.get("redacted").is_none(), "{untouched}");

    let reply = h.call(
        "create_entities",
        json!({"entities": [{"name": "CI runner", "entityType": "service",
            "observations": [format!("publishes with {token}")]}]}),
    );
    let ToolReply::Structured {
        content: created, ..
    } = reply.ok()
    else {
        panic!("create_entities answers structured content")
    };
    assert_eq!(
        created["redacted"],
        json!([{"kind": "github-token", "count": 1}]),
        "{created}"
    );
    assert_eq!(
        created["entities"][0]["observations"][0],
        "publishes with [REDACTED:github-token]"
    );
    let reply = h.call(
        "add_observations",
        json!({"observations": [{"entityName": "CI runner", "contents": [format!("rotated {token}")]}]}),
    );
    assert!(!reply.text().contains(&token), "{}", reply.text());
    let ToolReply::Structured { content: added, .. } = reply.ok() else {
        panic!("add_observations answers structured content")
    };
    assert_eq!(added["redacted"][0]["count"], 1, "{added}");
    let file = std::fs::read_to_string(h.main_dir().join("service/CI runner.md")).unwrap();
    assert!(!file.contains(&token), "{file}");
}

/// A device whose project `notes` is versioned with a bare `file://` remote, one clean note
/// pushed already.
struct Pushed {
    h: Harness,
    dir: PathBuf,
    remote: PathBuf,
    // Last: removed after the harness has let go of the project.
    _remote_dir: tempfile::TempDir,
}

fn pushed_device() -> Pushed {
    let remote_dir = tempfile::tempdir().unwrap();
    let remote = remote_dir.path().join("remote.git");
    Repository::init_bare(&remote).unwrap();
    let url = format!("file://{}", remote.display());
    let h = Harness::new();
    let dir = h.root().join("notes");
    h.app().add_project("notes", &dir, true).unwrap();
    h.app().version_project("notes", Some(&url)).unwrap();
    let h = h.reopen();
    h.write("Welcome", "", "a clean first note");
    let report = h.value("sync", json!({"direction": "push"}));
    assert_eq!(report["reports"][0]["pushed"], true, "{report}");
    Pushed {
        h,
        dir,
        remote,
        _remote_dir: remote_dir,
    }
}

#[test]
fn a_secret_another_program_wrote_holds_the_push_until_the_user_allows_that_version() {
    let device = pushed_device();
    let h = &device.h;
    let key = aws_key();
    // An editor saves a note with a key in it; gitmem's scan commits it, never rewriting it.
    std::fs::create_dir_all(device.dir.join("ops")).unwrap();
    let text = format!("# AWS\n\nthe staging account\nkey id {key}\n");
    std::fs::write(device.dir.join("ops/aws.md"), &text).unwrap();
    h.sync();
    assert_eq!(
        std::fs::read_to_string(device.dir.join("ops/aws.md")).unwrap(),
        text
    );

    let refused = h.call("sync", json!({"direction": "push"}));
    assert!(refused.is_error(), "{}", refused.text());
    let message = refused.text();
    assert_mentions(&message, "ops/aws.md line 4: aws-access-key");
    assert_mentions(&message, "--allow-secrets ops/aws.md");
    assert!(!message.contains(&key), "{message}");
    assert!(repository_holds(&device.dir, &key), "committed locally");
    assert!(!repository_holds(&device.remote, &key), "never sent");

    let status = h.text("sync_status", json!({}));
    assert_mentions(&status, "**Push held**");
    assert_mentions(&status, "ops/aws.md line 4: aws-access-key");
    let project = h.app().project(Some("notes")).unwrap();
    let held = &h.app().status(Some("notes")).unwrap().projects[0].held;
    assert_eq!(held.len(), 1, "{held:?}");
    assert_eq!((held[0].path.as_str(), held[0].line), ("ops/aws.md", 4));

    // Another path allowed changes nothing; this one lets the push go.
    let choice = ProjectChoice::named(Some("notes"));
    let other = h
        .app()
        .exchange_allowing(&choice, Direction::Push, &["ops/other.md".into()]);
    assert!(other.is_err(), "only the named paths are allowed");
    let report = h
        .app()
        .exchange_allowing(&choice, Direction::Push, &["ops/aws.md".into()])
        .unwrap();
    assert!(report.pushed);
    assert!(repository_holds(&device.remote, &key));
    assert!(h.app().held_push(&project).unwrap().is_empty());

    // The allowance was for that version: a new secret in the same file is held again.
    let token = github_token();
    std::fs::write(
        device.dir.join("ops/aws.md"),
        format!("{text}and a token {token}\n"),
    )
    .unwrap();
    h.sync();
    let refused = h.call("sync", json!({"direction": "push"}));
    let message = refused.text();
    assert_mentions(&message, "ops/aws.md line 5: github-token");
    assert!(!message.contains("line 4"), "{message}");
    assert!(!repository_holds(&device.remote, &token));
}

#[test]
fn with_redaction_off_nothing_is_redacted_or_held() {
    let device = pushed_device();
    let config = device.h.root().join("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, format!("{text}\n[redaction]\nenabled = false\n")).unwrap();
    let h = device.h.reopen();
    let token = github_token();
    h.write("Kept", "", &format!("token {token}"));
    let report = h.value("sync", json!({"direction": "push"}));
    assert_eq!(report["reports"][0]["pushed"], true, "{report}");
    assert!(repository_holds(&device.remote, &token));
}

#[test]
fn editing_the_secret_out_releases_the_push_and_the_version_that_carried_it_never_leaves() {
    let device = pushed_device();
    let h = &device.h;
    let key = aws_key();
    std::fs::create_dir_all(device.dir.join("ops")).unwrap();
    std::fs::write(
        device.dir.join("ops/aws.md"),
        format!("# AWS\n\nkey id {key}\n"),
    )
    .unwrap();
    h.sync();
    h.write("Unrelated", "notes", "a later note, its own commit");
    assert!(h.call("sync", json!({"direction": "push"})).is_error());
    let local_before = log(&device.dir).len();

    // The user takes the key out in the editor: the next push goes, as one commit.
    std::fs::write(
        device.dir.join("ops/aws.md"),
        "# AWS\n\nkey id in the vault\n",
    )
    .unwrap();
    h.sync();
    let report = h.value("sync", json!({"direction": "push"}));
    assert_eq!(report["reports"][0]["pushed"], true, "{report}");
    let squashed = &report["reports"][0]["squashed"];
    assert!(squashed["commits"].as_u64().unwrap() >= 3, "{report}");
    assert!(!repository_holds(&device.remote, &key), "never sent");
    let project = h.app().project(Some("notes")).unwrap();
    assert!(h.app().held_push(&project).unwrap().is_empty());

    // The work tree is as the user left it; the replaced commits stay on this device.
    assert_eq!(
        std::fs::read_to_string(device.dir.join("ops/aws.md")).unwrap(),
        "# AWS\n\nkey id in the vault\n"
    );
    let repo = Repository::open(&device.dir).unwrap();
    let kept = squashed["kept"].as_str().unwrap();
    assert!(kept.starts_with("refs/gitmem/unsquashed/"), "{kept}");
    let mut walk = repo.revwalk().unwrap();
    walk.push(repo.refname_to_id(kept).unwrap()).unwrap();
    assert!(walk.count() > local_before, "the replaced history is kept");
    assert!(
        repo.statuses(None).unwrap().is_empty(),
        "git status is clean"
    );
}

#[test]
fn a_secret_in_a_file_name_holds_the_push() {
    let device = pushed_device();
    let token = github_token();
    std::fs::write(
        device.dir.join(format!("{token}.md")),
        "# Notes\n\nnothing here\n",
    )
    .unwrap();
    device.h.sync();
    let refused = device.h.call("sync", json!({"direction": "push"}));
    assert!(refused.is_error(), "{}", refused.text());
    let message = refused.text();
    assert_mentions(
        &message,
        "[REDACTED:github-token].md (its name): github-token",
    );
    assert!(!message.contains(&token), "{message}");

    // Renamed, the file goes; its old name never does.
    std::fs::rename(
        device.dir.join(format!("{token}.md")),
        device.dir.join("renamed.md"),
    )
    .unwrap();
    device.h.sync();
    let report = device.h.value("sync", json!({"direction": "push"}));
    assert_eq!(report["reports"][0]["pushed"], true, "{report}");
    assert!(!repository_holds(&device.remote, &token));
}
