//! `docs/architecture.md` is the map of the code: every source file has its paragraph, or its
//! line in the paragraph of the module it belongs to.

use std::path::{Path, PathBuf};

/// The module path of a source file: `src/service/search/ranked.rs` is `service::search::ranked`,
/// `src/index/embed/mod.rs` is `index::embed`; the crate roots have none.
fn module_of(file: &Path) -> Option<Vec<String>> {
    let relative = file.strip_prefix("src").ok()?;
    let mut parts: Vec<String> = relative
        .iter()
        .map(|p| p.to_string_lossy().trim_end_matches(".rs").to_string())
        .collect();
    if parts.last().is_some_and(|last| last == "mod") {
        parts.pop();
    }
    match parts.as_slice() {
        [root] if root == "lib" || root == "main" => None,
        _ => Some(parts),
    }
}

/// The code map's sections: the modules a `### ` heading names, and the text under it.
fn sections(map: &str) -> Vec<(Vec<Vec<String>>, String)> {
    let code_map = map
        .split("\n## Code map")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("architecture.md has a code map");
    code_map
        .split("\n### ")
        .skip(1)
        .map(|section| {
            let (heading, body) = section.split_once('\n').unwrap_or((section, ""));
            let named = heading
                .split('`')
                .skip(1)
                .step_by(2)
                .map(|name| name.split("::").map(String::from).collect())
                .collect();
            (named, body.to_string())
        })
        .collect()
}

fn mapped(module: &[String], sections: &[(Vec<Vec<String>>, String)]) -> bool {
    sections.iter().any(|(named, body)| {
        named.iter().any(|heading| {
            let Some(rest) = module.strip_prefix(heading.as_slice()) else {
                return false;
            };
            let Some(last) = rest.last() else {
                return true;
            };
            body.contains(&format!("`{}`", rest.join("::"))) || body.contains(&format!("`{last}`"))
        })
    })
}

fn source_files(dir: &Path, into: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            source_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs") {
            into.push(path);
        }
    }
}

#[test]
fn every_source_file_is_on_the_code_map() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let map = std::fs::read_to_string(crate_dir.join("docs/architecture.md")).unwrap();
    let sections = sections(&map);
    let mut files = Vec::new();
    source_files(&crate_dir.join("src"), &mut files);
    let mut files: Vec<PathBuf> = files
        .iter()
        .map(|file| file.strip_prefix(crate_dir).unwrap().to_path_buf())
        .collect();
    files.sort();
    let missing: Vec<String> = files
        .iter()
        .filter_map(|file| module_of(file).map(|module| (file, module)))
        .filter(|(_, module)| !mapped(module, &sections))
        .map(|(file, _)| file.display().to_string())
        .collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md's code map does not name: {missing:?}"
    );
}

#[test]
fn the_rule_finds_a_file_by_its_section_or_its_line() {
    let map =
        "# A\n## Code map\n### `service`\n`search::ranked`: plain queries. `notes`: writes.\n\
               ### `vault::links` and linked folders\nlinks.\n## Errors\n`service::oauth`\n";
    let sections = sections(map);
    let module = |file: &str| module_of(Path::new(file)).unwrap();
    assert!(mapped(&module("src/service/search/ranked.rs"), &sections));
    assert!(mapped(&module("src/service/notes.rs"), &sections));
    assert!(mapped(&module("src/service/mod.rs"), &sections));
    assert!(mapped(&module("src/vault/links.rs"), &sections));
    assert!(!mapped(&module("src/service/oauth.rs"), &sections));
    assert!(!mapped(&module("src/vault/scan.rs"), &sections));
    assert!(module_of(Path::new("src/lib.rs")).is_none());
}
