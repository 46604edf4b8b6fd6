//! Project registry commands and the bundled demo project.

use std::fs;

use crate::common::*;

#[test]
fn project_add_list_default_remove() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let work = dir.path().join("work");

    let list = gitmem(&root, &["project", "list", "--json"]).ok().json();
    assert_eq!(list.as_array().unwrap().len(), 1);
    assert_eq!(list[0]["name"], "main");
    assert_eq!(list[0]["is_default"], true);
    assert!(root.join("projects/main").is_dir());

    let added = gitmem(&root, &["project", "add", "work", work.to_str().unwrap()]).ok();
    assert!(
        added.stdout.contains("added project 'work'"),
        "{}",
        added.stdout
    );
    assert!(work.is_dir());
    fs::write(work.join("w.md"), "# W\n\nostrich\n").unwrap();

    gitmem(&root, &["project", "default", "work"]).ok();
    let list = gitmem(&root, &["project", "list", "--json"]).ok().json();
    let default: Vec<_> = list
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["is_default"] == true)
        .collect();
    assert_eq!(default.len(), 1);
    assert_eq!(default[0]["name"], "work");
    assert_eq!(
        search_json(&root, "ostrich", &[])["total"],
        1,
        "search uses the default project"
    );

    let refused = gitmem(&root, &["project", "remove", "work"]);
    assert_eq!(refused.code, 1);
    assert!(
        refused
            .stderr
            .contains("cannot remove the default project 'work'"),
        "{}",
        refused.stderr
    );

    gitmem(&root, &["project", "default", "main"]).ok();
    let removed = gitmem(&root, &["project", "remove", "work"]).ok();
    assert!(
        removed.stdout.contains("its files stay"),
        "{}",
        removed.stdout
    );
    assert!(work.join("w.md").exists());

    gitmem(&root, &["project", "add", "work", work.to_str().unwrap()]).ok();
    gitmem(&root, &["project", "remove", "work", "--delete-notes"]).ok();
    assert!(!work.exists());
}

#[test]
fn nested_projects_and_unknown_names_are_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec![
                "project".into(),
                "add".into(),
                "inner".into(),
                root.join("projects/main/inner").display().to_string(),
            ],
            "may not be nested",
        ),
        (
            vec![
                "project".into(),
                "add".into(),
                "outer".into(),
                root.join("projects").display().to_string(),
            ],
            "may not be nested",
        ),
        (
            vec![
                "project".into(),
                "add".into(),
                "all".into(),
                root.display().to_string(),
            ],
            "gitmem's own data directory",
        ),
        (
            vec![
                "project".into(),
                "add".into(),
                "main".into(),
                dir.path().join("x").display().to_string(),
            ],
            "already exists",
        ),
        (
            vec!["project".into(), "default".into(), "nope".into()],
            "project 'nope' not found",
        ),
        (
            vec![
                "search".into(),
                "x".into(),
                "--project".into(),
                "nope".into(),
            ],
            "project 'nope' not found; known projects: main",
        ),
        (
            vec!["status".into(), "--project".into(), "nope".into()],
            "not found",
        ),
    ];
    for (args, message) in cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let run = gitmem(&root, &args);
        assert_eq!(run.code, 1, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{args:?}: {}", run.stderr);
    }
    let usage = gitmem(&root, &["search"]);
    assert_eq!(usage.code, 2, "a usage error exits with 2");
    let list = gitmem(&root, &["project", "list", "--json"]).ok().json();
    assert_eq!(
        list.as_array().unwrap().len(),
        1,
        "no refused project was registered"
    );
}

#[test]
fn the_demo_project_answers_the_readme_query() {
    let dir = tempfile::tempdir().unwrap();
    let demo = crate::common::workspace_root().join("projects/main");
    let main = dir.path().join("projects/main");
    for (path, bytes) in snapshot(&demo) {
        let target = main.join(path.strip_prefix(&demo).unwrap());
        fs::create_dir_all(target.parent().unwrap()).unwrap();
        fs::write(target, bytes).unwrap();
    }
    let run = gitmem(dir.path(), &["search", "linked folders"]).ok();
    assert!(
        run.stdout
            .starts_with("# Search Results: linked folders\n*project: main*\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stdout
            .contains("### Linked Folders\n- permalink: main/concepts/linked-folders\n"),
        "{}",
        run.stdout
    );
    assert!(
        run.stderr.is_empty(),
        "piped output shows no progress bar: {}",
        run.stderr
    );

    let status = gitmem(dir.path(), &["status", "--json"]).ok().json();
    let p = &status["projects"][0];
    assert!(p["notes"].as_u64().unwrap() >= 20);
    assert_eq!(p["unresolved_relations"], 0, "every demo link resolves");
    assert_eq!(p["warnings"].as_array().unwrap().len(), 0);
}

#[test]
fn the_config_file_comes_from_config_or_gitmem_config_and_gitmem_variables_override_it() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("root");
    let etc = dir.path().join("etc");
    let work = dir.path().join("work");
    fs::create_dir_all(&etc).unwrap();
    let file = etc.join("gitmem.toml");
    fs::write(
        &file,
        format!(
            "default_project = \"work\"\n\n[projects.work]\npath = {:?}\n",
            work.to_str().unwrap()
        ),
    )
    .unwrap();
    let run = |args: &[&str], envs: &[(&str, &str)]| -> Run {
        gitmem_command()
            .arg("--root")
            .arg(&root)
            .args(args)
            .envs(envs.iter().copied())
            .output()
            .expect("running gitmem")
            .into()
    };
    let names = |run: Run| -> Vec<String> {
        let listed = run.ok().json();
        listed
            .as_array()
            .unwrap()
            .iter()
            .map(|p| p["name"].as_str().unwrap().to_string())
            .collect()
    };
    let path = file.to_str().unwrap();
    assert_eq!(
        names(run(&["--config", path, "project", "list", "--json"], &[])),
        ["work"]
    );
    assert_eq!(
        names(run(
            &["project", "list", "--json"],
            &[("GITMEM_CONFIG", path)]
        )),
        ["work"]
    );
    assert!(!root.join("config.toml").exists());

    // An override of config.toml's [compat] permalinks_include_project, from the environment.
    let write = [
        "--config",
        path,
        "tool",
        "write_note",
        "--args",
        r#"{"title": "Plan", "directory": "notes", "content": "x"}"#,
    ];
    let written = run(
        &write,
        &[("GITMEM_COMPAT_PERMALINKS_INCLUDE_PROJECT", "false")],
    )
    .ok();
    assert_mentions(&written.stdout, "notes/plan");
    assert!(
        !written.stdout.contains("work/notes/plan"),
        "{}",
        written.stdout
    );

    let misspelt = run(
        &["--config", path, "project", "list"],
        &[("GITMEM_SERVER_BINDD", "0.0.0.0:1")],
    );
    assert_eq!(misspelt.code, 1);
    assert_mentions(
        &misspelt.stderr,
        "GITMEM_SERVER_BINDD (from the environment) names no key of [server]",
    );
}
