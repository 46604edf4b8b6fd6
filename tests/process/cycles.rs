//! No import cycle between the top-level modules of a crate (its folders and top-level files).
//! A cycle means two features that cannot be read, tested or moved one without the other; the
//! compiler allows them inside a crate, so this test refuses them. The graph is read from the
//! code as written: `crate::`, `super::` and `self::` paths, resolved from each file's place.
//! The engine's features call one another by path (`crate::notes::resolve(&store.index, ...)`), so
//! those calls are edges of this graph too (architecture.rs keeps `App`'s methods in lib.rs).

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::common::workspace_root;

/// The top-level modules a file's code names, other than its own. `module` is the file's
/// module path inside the crate (`["notes"]`, `["search", "rows"]`).
fn imports_of(code: &str, module: &[&str], tops: &BTreeSet<String>) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        let mut rest = line;
        while let Some(at) = ["crate::", "super::", "self::"]
            .iter()
            .filter_map(|head| rest.find(head).map(|i| (i, *head)))
            .min()
        {
            let (i, head) = at;
            let preceded_by_word = rest[..i]
                .chars()
                .last()
                .is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':');
            rest = &rest[i + head.len()..];
            if preceded_by_word {
                continue;
            }
            let mut base: Vec<&str> = match head {
                "crate::" => Vec::new(),
                "self::" => module.to_vec(),
                _ => module[..module.len().saturating_sub(1)].to_vec(),
            };
            while let Some(after) = rest.strip_prefix("super::") {
                base.pop();
                rest = after;
            }
            let names: Vec<&str> = match rest.strip_prefix('{') {
                Some(list) => top_level_items(list)
                    .into_iter()
                    .map(|item| item.trim().split("::").next().unwrap_or(""))
                    .collect(),
                None => vec![rest
                    .split(|c: char| !(c.is_alphanumeric() || c == '_'))
                    .next()
                    .unwrap_or("")],
            };
            for name in names {
                let target = base.first().copied().unwrap_or(name);
                if target != module[0] && tops.contains(target) {
                    found.insert(target.to_string());
                }
            }
        }
    }
    found
}

/// The items of a `{...}` import list up to its closing brace (`list` starts after the `{`),
/// split at the commas of its own level.
fn top_level_items(list: &str) -> Vec<&str> {
    let (mut depth, mut start, mut items) = (0usize, 0, Vec::new());
    for (i, c) in list.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                items.push(&list[start..i]);
                return items;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                items.push(&list[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    items.push(&list[start..]);
    items
}

/// Each code file of the crate in `src` but `lib.rs`/`main.rs`, as its module path inside the
/// crate (`["search", "rows"]`) and its code up to its unit tests.
fn code_files(src: &Path) -> Vec<(Vec<String>, String)> {
    let mut files = Vec::new();
    crate::architecture::code_files(src, &mut files);
    files
        .into_iter()
        .filter_map(|(path, code)| {
            let relative = path.strip_prefix(src).unwrap().with_extension("");
            let mut module: Vec<String> = relative
                .iter()
                .map(|part| part.to_string_lossy().into_owned())
                .collect();
            if module.last().is_some_and(|last| last == "mod") {
                module.pop();
            }
            let root = module.len() == 1 && (module[0] == "lib" || module[0] == "main");
            (!root).then_some((module, code))
        })
        .collect()
}

/// Each top-level module of the crate in `src`, with the top-level modules it imports.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let tops: BTreeSet<String> = std::fs::read_dir(src)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter_map(|path| Some(path.file_stem()?.to_string_lossy().into_owned()))
        .filter(|name| name != "lib" && name != "main")
        .collect();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, code) in code_files(src) {
        let module: Vec<&str> = module.iter().map(String::as_str).collect();
        graph
            .entry(module[0].to_string())
            .or_default()
            .extend(imports_of(&code, &module, &tops));
    }
    graph
}

/// One cycle of the graph, as the modules along it, if there is any.
fn a_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(start) = path.iter().position(|on| on == node) {
            let mut cycle = path[start..].to_vec();
            cycle.push(node.to_string());
            return Some(cycle);
        }
        if done.contains(node) {
            return None;
        }
        path.push(node.to_string());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(cycle) = visit(next, graph, path, done) {
                return Some(cycle);
            }
        }
        path.pop();
        done.insert(node.to_string());
        None
    }
    let mut done = BTreeSet::new();
    graph
        .keys()
        .find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn no_crate_has_an_import_cycle_between_its_top_level_modules() {
    let crates = workspace_root().join("crates");
    for entry in std::fs::read_dir(&crates).unwrap() {
        let dir = entry.unwrap().path();
        let graph = module_graph(&dir.join("src"));
        if let Some(cycle) = a_cycle(&graph) {
            panic!(
                "crates/{} imports in a cycle: {}",
                dir.file_name().unwrap().to_string_lossy(),
                cycle.join(" -> ")
            );
        }
    }
}

#[test]
fn imports_are_read_from_each_files_place() {
    let tops: BTreeSet<String> = ["notes", "search", "error", "scope"]
        .into_iter()
        .map(String::from)
        .collect();
    for (code, module, expected) in [
        ("use crate::notes::Lookup;", &["search"][..], &["notes"][..]),
        ("use super::notes::Lookup;", &["search"], &["notes"]),
        ("use super::rows::Row;", &["search", "parts"], &[]),
        (
            "use super::super::notes::X;",
            &["search", "parts"],
            &["notes"],
        ),
        (
            "use crate::{error::E, scope::ProjectChoice};",
            &["notes"],
            &["error", "scope"],
        ),
        ("let x = crate::error::E::new();", &["notes"], &["error"]),
        (
            "use crate::{error::{E, F}, scope::ProjectChoice};",
            &["notes"],
            &["error", "scope"],
        ),
        ("use self::inner::X;", &["notes"], &[]),
        ("// see crate::error", &["notes"], &[]),
        ("use engine::notes::X;", &["search"], &[]),
        ("use my_crate::notes::X;", &["search"], &[]),
    ] {
        let found = imports_of(code, module, &tops);
        let expected: BTreeSet<String> = expected.iter().map(|s| s.to_string()).collect();
        assert_eq!(found, expected, "{code} in {module:?}");
    }
    let graph = BTreeMap::from([
        ("a".to_string(), BTreeSet::from(["b".to_string()])),
        ("b".to_string(), BTreeSet::from(["c".to_string()])),
        ("c".to_string(), BTreeSet::from(["a".to_string()])),
    ]);
    assert_eq!(
        a_cycle(&graph),
        Some(
            vec!["a", "b", "c", "a"]
                .into_iter()
                .map(String::from)
                .collect()
        )
    );
    let tree = BTreeMap::from([("a".to_string(), BTreeSet::from(["b".to_string()]))]);
    assert_eq!(a_cycle(&tree), None);
}
