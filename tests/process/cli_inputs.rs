//! Bad and unusual files: each gives a clear warning, nothing crashes, nothing is rewritten.

use std::fs;

use crate::common::*;

fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

#[test]
fn bad_files_warn_and_everything_else_is_indexed() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("notes");
    let root = dir.path().join("root");
    fs::create_dir_all(project.join("loop")).unwrap();
    fs::write(
        project.join("good.md"),
        "# Good\n\n- [fact] zebrafish are fine #ok\n",
    )
    .unwrap();
    fs::write(
        project.join("bad-yaml.md"),
        "---\ntitle: [unclosed\n---\nplatypus body text\n",
    )
    .unwrap();
    fs::write(
        project.join("binary.md"),
        [0x89u8, b'P', b'N', b'G', 0, 0, 0, 13, 0xff, 0xfe],
    )
    .unwrap();
    fs::write(project.join("latin1.md"), b"caf\xe9 narwhal text\n").unwrap();
    let mut big = String::from("# Big\n\nquokka appears early\n");
    while big.len() < 5 * 1024 * 1024 {
        big.push_str("filler words repeated to make a very large note indeed\n");
    }
    fs::write(project.join("big.md"), &big).unwrap();
    std::os::unix::fs::symlink(project.join("nowhere.md"), project.join("dangling.md")).unwrap();
    fs::write(project.join("locked.md"), "# Locked\n\nwombat\n").unwrap();
    fs::set_permissions(
        project.join("locked.md"),
        std::os::unix::fs::PermissionsExt::from_mode(0o000),
    )
    .unwrap();
    std::os::unix::fs::symlink(project.join("loop"), project.join("loop/again")).unwrap();
    let before = snapshot(&project);

    gitmem(
        &root,
        &[
            "project",
            "add",
            "notes",
            project.to_str().unwrap(),
            "--default",
        ],
    )
    .ok();
    let run = gitmem(&root, &["reindex"]).ok();
    let expected_warnings = [
        ("bad-yaml.md", "not valid YAML"),
        ("binary.md", "binary content"),
        ("latin1.md", "not valid UTF-8"),
        ("big.md", "full-text indexed"),
        ("dangling.md", "cannot read"),
        ("loop/again", "symlink loop"),
    ];
    for (path, message) in expected_warnings {
        assert!(
            run.stderr
                .lines()
                .any(|l| l.contains(path) && l.contains(message)),
            "no warning '{message}' for {path} in:\n{}",
            run.stderr
        );
    }
    if !is_root() {
        assert!(run.stderr.contains("locked.md"), "{}", run.stderr);
    }

    let status = gitmem(&root, &["status", "--json"]).ok().json();
    let notes = status["projects"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["project"] == "notes")
        .unwrap();
    let warnings = notes["warnings"].as_array().unwrap();
    assert!(warnings.len() >= expected_warnings.len(), "{warnings:?}");
    for word in ["zebrafish", "platypus", "narwhal", "quokka"] {
        let hits = search_json(&root, word, &[]);
        assert_eq!(hits["total"], 1, "{word}: {hits}");
    }
    let binary = search_json(&root, "binary", &[]);
    assert_eq!(
        binary["results"][0]["file_path"], "binary.md",
        "a binary .md is listed by name"
    );

    fs::set_permissions(
        project.join("locked.md"),
        std::os::unix::fs::PermissionsExt::from_mode(0o644),
    )
    .unwrap();
    assert_eq!(snapshot(&project), before);
}

#[test]
fn an_unreadable_root_deletes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let project = dir.path().join("notes");
    let root = dir.path().join("root");
    fs::create_dir_all(&project).unwrap();
    fs::write(project.join("keep.md"), "# Keep\n\nmarmoset\n").unwrap();
    gitmem(
        &root,
        &[
            "project",
            "add",
            "notes",
            project.to_str().unwrap(),
            "--default",
        ],
    )
    .ok();
    gitmem(&root, &["reindex"]).ok();

    let moved_away = dir.path().join("elsewhere");
    fs::rename(&project, &moved_away).unwrap();
    fs::write(&project, "now a file, not a directory").unwrap();
    let run = gitmem(&root, &["search", "marmoset"]);
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("not a directory"), "{}", run.stderr);
    fs::remove_file(&project).unwrap();
    fs::rename(&moved_away, &project).unwrap();
    let status = gitmem(&root, &["status", "--project", "notes", "--json"])
        .ok()
        .json();
    assert_eq!(
        status["projects"][0]["notes"], 1,
        "the failed scan forgot nothing"
    );
}

/// compat 13 items 8–10, with gitmem's deliberate difference: files are never rewritten, so
/// permalinks of notes without one live in the index only.
#[test]
fn permalinks_duplicates_and_moves_follow_compat_without_touching_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let main = root.join("projects/main");
    let files = [
        ("docs/My Feature.md", "main/docs/my-feature"),
        ("specs/API (v2).md", "main/specs/api-v2"),
        ("Version 2.0.0.md", "main/version-2.0.0"),
        ("test/Über File.md", "main/test/uber-file"),
        ("中文/测试文档.md", "main/中文/测试文档"),
        (
            "papers/Jürgen's Findings.md",
            "main/papers/jurgens-findings",
        ),
    ];
    for (path, _) in files {
        fs::create_dir_all(main.join(path).parent().unwrap()).unwrap();
        fs::write(main.join(path), format!("unicorn {path}\n")).unwrap();
    }
    fs::create_dir_all(main.join("ext")).unwrap();
    fs::create_dir_all(main.join("test")).unwrap();
    fs::write(
        main.join("ext/plain-note.md"),
        "# Plain Note\n\nNo frontmatter here.\n",
    )
    .unwrap();
    fs::write(
        main.join("test/Test Note.md"),
        "---\ntitle: Test Note\ntype: note\npermalink: main/test/test-note\n---\n\n# Test\nThis is a test note",
    )
    .unwrap();
    gitmem(&root, &["reindex"]).ok();

    let hits = search_json(&root, "unicorn", &["--page-size", "20"]);
    for (path, permalink) in files {
        let row = hits["results"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["file_path"] == path);
        assert_eq!(
            row.map(|r| r["permalink"].clone()),
            Some(permalink.into()),
            "{path}: {hits}"
        );
    }
    let plain = &search_json(&root, "frontmatter", &[])["results"][0];
    assert_eq!(plain["permalink"], "main/ext/plain-note");
    assert_eq!(
        plain["title"], "plain-note",
        "a note without front matter is titled by its file name"
    );

    fs::write(
        main.join("ext/dup.md"),
        "---\npermalink: main/test/test-note\n---\nduplicate body\n",
    )
    .unwrap();
    let dup = &search_json(&root, "duplicate", &[])["results"][0];
    assert_eq!(dup["permalink"], "main/test/test-note-1");
    assert_eq!(
        fs::read_to_string(main.join("ext/dup.md")).unwrap(),
        "---\npermalink: main/test/test-note\n---\nduplicate body\n"
    );

    fs::rename(main.join("ext/plain-note.md"), main.join("ext/moved.md")).unwrap();
    let moved = &search_json(&root, "frontmatter", &[])["results"][0];
    assert_eq!(moved["file_path"], "ext/moved.md");
    assert_eq!(moved["permalink"], "main/ext/plain-note");
    assert_eq!(moved["external_id"], plain["external_id"]);
    assert_eq!(
        fs::read_to_string(main.join("ext/moved.md")).unwrap(),
        "# Plain Note\n\nNo frontmatter here.\n"
    );
}

#[test]
fn a_corrupt_index_is_rebuilt_from_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let main = root.join("projects/main");
    fs::create_dir_all(&main).unwrap();
    fs::write(main.join("a.md"), "# A\n\nlemur\n").unwrap();
    gitmem(&root, &["reindex"]).ok();
    fs::write(
        root.join("index/graph/data.mdb"),
        b"this is not an LMDB file at all",
    )
    .unwrap();
    let hits = search_json(&root, "lemur", &[]);
    assert_eq!(hits["total"], 1, "{hits}");
}
