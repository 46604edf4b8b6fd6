//! Every tool the registry lists is called by a test of this binary, so a tool added without a
//! test fails here. The list comes from `specs()`, not from a copy that could fall behind.

use std::collections::BTreeSet;
use std::fs;

use mcp::tools::specs;

/// The harness methods (and `graph.rs`'s extension) that call a tool named by their first
/// argument.
const CALLING_METHODS: [&str; 5] = [".call(", ".text(", ".json(", ".value(", ".graph("];

/// Names of the tools `source` calls through the harness, as `.call("NAME"` (or `.text`,
/// `.json`); rustfmt may break the line after the parenthesis.
fn called_tools(source: &str) -> BTreeSet<String> {
    CALLING_METHODS
        .iter()
        .flat_map(|method| source.split(method).skip(1))
        .filter_map(|after| {
            let name = after.trim_start().strip_prefix('"')?;
            Some(name[..name.find('"')?].to_string())
        })
        .collect()
}

#[test]
fn calls_are_recognised_on_one_line_and_split_over_two() {
    let source = "h.call(\"one\", json!({}));\n    h\n        .text(\n            \"two\",\n            json!({}),\n        );\n    h.json(\"three\", args).text();\n    row(\"four\");";
    let expected = ["one", "two", "three"].map(String::from);
    assert_eq!(called_tools(source), BTreeSet::from(expected));
}

#[test]
fn every_tool_in_the_registry_is_called_by_an_in_process_test() {
    let dir = crate::common::workspace_root().join("tests/tools");
    let mut called = BTreeSet::new();
    let mut pending = vec![dir.clone()];
    while let Some(folder) = pending.pop() {
        for entry in fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                called.extend(called_tools(&fs::read_to_string(&path).unwrap()));
            }
        }
    }
    let untested: Vec<&str> = specs()
        .iter()
        .map(|spec| spec.name)
        .filter(|name| !called.contains(*name))
        .collect();
    assert!(
        untested.is_empty(),
        "tools no test in {} calls: {untested:?}",
        dir.display()
    );
}
