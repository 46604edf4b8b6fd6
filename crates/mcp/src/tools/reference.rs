//! The tool reference, `docs/tools.md`, made from the specs themselves: every tool's name,
//! description, hints and parameters (type, whether required, default, description) as
//! `tools/list` declares them. A test compares the page with this text, so the reference
//! cannot drift from what the server serves.

use serde_json::{Map, Value};

use super::{Profile, ToolSpec};

/// The whole page.
pub fn reference() -> String {
    let mut page = String::from(
        "# Tool reference\n\n\
         Every tool gitmem serves, by family, as `tools/list` declares it. This page is generated \
         from the tool specs (`crates/mcp/src/tools/`), and a test fails when the two differ; \
         after changing a spec, rewrite it with\n\
         `GITMEM_BLESS=1 cargo test --release --test tools reference`.\n\
         [compat-tools.md](compat-tools.md) and [more-tools.md](more-tools.md) say how the tools \
         behave and where they differ from the systems they come from.\n",
    );
    for profile in Profile::ALL {
        page.push_str(&format!(
            "\n## {}\n\n{}\n",
            profile.name(),
            family_summary(profile)
        ));
        for spec in profile.tools() {
            page.push_str(&tool(spec));
        }
    }
    page
}

fn family_summary(profile: Profile) -> &'static str {
    match profile {
        Profile::Basic => {
            "Basic Memory's tools and gitmem's own (links, history, sync); served by default \
             (`--tools basic`)."
        }
        Profile::Graph => {
            "The official memory server's knowledge-graph tools and the graph queries of the other \
             graph servers (`--tools graph`)."
        }
        Profile::Gitmem => "The gitmem memory API (`--tools gitmem`).",
        Profile::Diagnostics => "Looking inside the index (`--tools diagnostics`).",
    }
}

fn tool(spec: &ToolSpec) -> String {
    let mut text = format!(
        "\n### `{}`\n\n{}. {}\n\n",
        spec.name, spec.title, spec.description
    );
    let mut facts = vec![if spec.hints.read_only {
        "Read-only.".to_string()
    } else if spec.hints.destructive {
        "Changes or deletes data.".to_string()
    } else {
        "Changes data.".to_string()
    }];
    if let Some(dotted) = spec.dotted {
        facts.push(format!("Also `{dotted}` with `--dotted-names`."));
    }
    text.push_str(&facts.join(" "));
    text.push('\n');
    let schema = (spec.schema)();
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let defs = schema.get("$defs").and_then(Value::as_object);
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return text;
    };
    if properties.is_empty() {
        text.push_str("\nNo parameters.\n");
        return text;
    }
    text.push_str(
        "\n| parameter | type | required | default | description |\n|---|---|---|---|---|\n",
    );
    for (name, property) in properties {
        let default = match property.get("default") {
            None | Some(Value::Null) => String::new(),
            Some(value) => format!("`{value}`"),
        };
        text.push_str(&format!(
            "| `{name}` | {} | {} | {default} | {} |\n",
            cell(&type_of(property, defs)),
            if required.contains(&name.as_str()) {
                "yes"
            } else {
                ""
            },
            cell(
                property
                    .get("description")
                    .and_then(Value::as_str)
                    .unwrap_or("")
            ),
        ));
    }
    text
}

/// A property's type as a reader says it: `string`, `array of string`, `one of: a, b`, or the
/// name of a nested object; `null` is left out (an optional parameter may be null).
fn type_of(property: &Value, defs: Option<&Map<String, Value>>) -> String {
    if let Some(reference) = property.get("$ref").and_then(Value::as_str) {
        let name = reference.rsplit('/').next().unwrap_or(reference);
        return match defs.and_then(|defs| defs.get(name)) {
            Some(def) if def.get("enum").is_some() => type_of(def, defs),
            _ => name.to_string(),
        };
    }
    if let Some(values) = property.get("enum").and_then(Value::as_array) {
        let values: Vec<String> = values
            .iter()
            .map(|v| v.as_str().map_or_else(|| v.to_string(), String::from))
            .collect();
        return format!("one of: {}", values.join(", "));
    }
    if let Some(variants) = property.get("anyOf").and_then(Value::as_array) {
        let types: Vec<String> = variants
            .iter()
            .filter(|v| v.get("type").and_then(Value::as_str) != Some("null"))
            .map(|v| type_of(v, defs))
            .collect();
        return types.join(" or ");
    }
    let names: Vec<&str> = match property.get("type") {
        Some(Value::String(name)) => vec![name.as_str()],
        Some(Value::Array(names)) => names
            .iter()
            .filter_map(Value::as_str)
            .filter(|name| *name != "null")
            .collect(),
        _ => Vec::new(),
    };
    names
        .iter()
        .map(|name| match (*name, property.get("items")) {
            ("array", Some(items)) => format!("array of {}", type_of(items, defs)),
            (name, _) => name.to_string(),
        })
        .collect::<Vec<_>>()
        .join(" or ")
}

/// Text fit for one table cell: no line breaks, no column separators.
fn cell(text: &str) -> String {
    text.replace('\n', " ").replace('|', "\\|")
}
