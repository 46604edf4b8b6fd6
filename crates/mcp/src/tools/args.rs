//! The argument structs several tool families share, and lenient argument parsing: clients
//! send lists as JSON-array strings or comma strings, objects as JSON strings, numbers and
//! booleans as strings. Basic Memory accepts all of these (compat 1.5), so gitmem does too.

use rmcp::schemars::{self, JsonSchema};
use serde::de::{self, Deserializer};
use serde::Deserialize;
use serde_json::{Map, Value};

use engine::graph::Entity;
use note::memory::Reveal;

/// The project arguments most tools take (flattened into their argument structs).
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct ProjectArgs {
    /// Project name (default: the default project)
    #[serde(default, deserialize_with = "string")]
    pub project: Option<String>,
    /// Project external id (wins over `project`)
    #[serde(default, deserialize_with = "string")]
    pub project_id: Option<String>,
}

/// Pagination arguments.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct PageArgs {
    /// Page number, from 1
    #[serde(default, alias = "page_number", deserialize_with = "int")]
    pub page: Option<i64>,
    /// Results per page
    #[serde(default, alias = "limit", alias = "per_page", deserialize_with = "int")]
    pub page_size: Option<i64>,
}

/// The output format argument.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub struct FormatArgs {
    /// "text" or "json" (the default depends on the tool)
    #[serde(default, deserialize_with = "string")]
    pub output_format: Option<String>,
}

fn parse_json_string(s: &str) -> Option<Value> {
    let t = s.trim();
    if (t.starts_with('[') && t.ends_with(']')) || (t.starts_with('{') && t.ends_with('}')) {
        serde_json::from_str(t).ok()
    } else {
        None
    }
}

fn scalar_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

/// A list of strings from a list, a JSON-array string, or a comma-separated string.
pub fn string_list<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    let value = Option::<Value>::deserialize(d)?;
    let list = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::Array(items)) => items.iter().filter_map(scalar_string).collect(),
        Some(Value::String(s)) => match parse_json_string(&s) {
            Some(Value::Array(items)) => items.iter().filter_map(scalar_string).collect(),
            _ => s
                .split(',')
                .map(|p| p.trim().to_string())
                .filter(|p| !p.is_empty())
                .collect(),
        },
        Some(other) => match scalar_string(&other) {
            Some(s) => vec![s],
            None => {
                return Err(de::Error::custom(format!(
                    "expected a list of strings, got {other}"
                )))
            }
        },
    };
    Ok(Some(list))
}

/// A list of strings from a list or a JSON-array string; any other string is one item whole
/// (Basic Memory's `coerce_list`: a predicate such as `priority in high,critical` keeps its
/// commas).
pub fn whole_string_list<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    let value = Option::<Value>::deserialize(d)?;
    let items = match value {
        None | Some(Value::Null) => return Ok(None),
        Some(Value::String(s)) => match parse_json_string(&s) {
            Some(Value::Array(items)) => items,
            _ => return Ok(Some(vec![s])),
        },
        Some(Value::Array(items)) => items,
        Some(other) => vec![other],
    };
    items
        .iter()
        .map(|item| {
            scalar_string(item)
                .ok_or_else(|| de::Error::custom(format!("expected a list of strings, got {item}")))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(Some)
}

/// An object from an object or a JSON-object string.
pub fn object<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Map<String, Value>>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Object(map)) => Ok(Some(map)),
        Some(Value::String(s)) => match parse_json_string(&s) {
            Some(Value::Object(map)) => Ok(Some(map)),
            _ => Err(de::Error::custom(format!(
                "expected an object (or a JSON object string), got '{s}'"
            ))),
        },
        Some(other) => Err(de::Error::custom(format!(
            "expected an object, got {other}"
        ))),
    }
}

/// An integer from a number or a numeric string.
pub fn int<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
            .map(Some)
            .ok_or_else(|| de::Error::custom(format!("'{n}' is not a valid integer"))),
        Some(Value::String(s)) => s
            .trim()
            .parse::<i64>()
            .map(Some)
            .map_err(|_| de::Error::custom(format!("'{s}' is not a valid integer"))),
        Some(other) => Err(de::Error::custom(format!(
            "'{other}' is not a valid integer"
        ))),
    }
}

/// A number from a number or a numeric string.
pub fn float<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => Ok(n.as_f64()),
        Some(Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .map(Some)
            .map_err(|_| de::Error::custom(format!("'{s}' is not a number"))),
        Some(other) => Err(de::Error::custom(format!("'{other}' is not a number"))),
    }
}

/// A boolean from a bool or `"true"`/`"false"`/`"1"`/`"0"`.
pub fn boolean<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Bool(b)) => Ok(Some(b)),
        Some(Value::String(s)) => match s.trim().to_lowercase().as_str() {
            "true" | "1" | "yes" => Ok(Some(true)),
            "false" | "0" | "no" => Ok(Some(false)),
            _ => Err(de::Error::custom(format!("'{s}' is not a boolean"))),
        },
        Some(Value::Number(n)) => Ok(Some(n.as_f64() != Some(0.0))),
        Some(other) => Err(de::Error::custom(format!("'{other}' is not a boolean"))),
    }
}

/// A string from a string or a scalar.
pub fn string<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Option::<Value>::deserialize(d)? {
        None | Some(Value::Null) => Ok(None),
        Some(v) => scalar_string(&v)
            .map(Some)
            .ok_or_else(|| de::Error::custom(format!("expected a string, got {v}"))),
    }
}

/// A required string: a string or a scalar.
pub fn required_string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    let v = Value::deserialize(d)?;
    scalar_string(&v).ok_or_else(|| de::Error::custom(format!("expected a string, got {v}")))
}

/// A list of JSON objects from a list or a JSON-array string (canvas nodes and edges).
pub fn object_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Value>, D::Error> {
    match Value::deserialize(d)? {
        Value::Array(items) => Ok(items),
        Value::String(s) => match parse_json_string(&s) {
            Some(Value::Array(items)) => Ok(items),
            _ => Err(de::Error::custom(
                "expected a list (or a JSON array string)",
            )),
        },
        other => Err(de::Error::custom(format!("expected a list, got {other}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize, Debug, PartialEq)]
    struct P {
        #[serde(default, deserialize_with = "string_list")]
        tags: Option<Vec<String>>,
        #[serde(default, deserialize_with = "object")]
        metadata: Option<Map<String, Value>>,
        #[serde(default, deserialize_with = "int")]
        depth: Option<i64>,
        #[serde(default, deserialize_with = "boolean")]
        overwrite: Option<bool>,
    }

    #[test]
    fn coercions() {
        let cases = [
            (json!({"tags": ["a", "b"]}), Some(vec!["a", "b"])),
            (json!({"tags": "[\"a\",\"b\"]"}), Some(vec!["a", "b"])),
            (json!({"tags": "a, b"}), Some(vec!["a", "b"])),
            (json!({"tags": null}), None),
            (json!({}), None),
        ];
        for (input, expected) in cases {
            let p: P = serde_json::from_value(input.clone()).unwrap();
            assert_eq!(
                p.tags,
                expected.map(|v| v.into_iter().map(String::from).collect()),
                "{input}"
            );
        }
        let p: P = serde_json::from_value(
            json!({"metadata": "{\"k\": 1}", "depth": "2", "overwrite": "true"}),
        )
        .unwrap();
        assert_eq!(p.metadata.unwrap()["k"], 1);
        assert_eq!(p.depth, Some(2));
        assert_eq!(p.overwrite, Some(true));
        let err = serde_json::from_value::<P>(json!({"depth": "x"})).unwrap_err();
        assert!(
            err.to_string().contains("'x' is not a valid integer"),
            "{err}"
        );
        assert!(serde_json::from_value::<P>(json!({"metadata": "not json"})).is_err());
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[serde(rename_all = "camelCase")]
pub(super) struct EntityArg {
    /// The name of the entity
    name: String,
    /// The type of the entity
    entity_type: String,
    /// An array of observation contents associated with the entity
    observations: Vec<String>,
}

impl From<EntityArg> for Entity {
    fn from(e: EntityArg) -> Self {
        Entity {
            name: e.name,
            entity_type: e.entity_type,
            observations: e.observations,
        }
    }
}

/// The arguments of a tool that reads the whole graph: only the project, which is optional
/// (the official server has one graph).
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct ProjectOnly {
    #[serde(flatten)]
    pub(super) project: ProjectArgs,
}

/// Whether a tool that reads entities shows the notes a correction or a compaction
/// superseded, which every graph answer hides by default.
#[derive(Debug, Default, Deserialize, JsonSchema)]
pub(super) struct SupersededArg {
    /// Also show notes a correction or a compaction superseded (hidden by default)
    #[serde(rename = "include_superseded", alias = "includeSuperseded")]
    include_superseded: Option<bool>,
}

impl SupersededArg {
    pub(super) fn reveal(&self) -> Reveal {
        Reveal {
            superseded: self.include_superseded.unwrap_or(false),
            ..Reveal::default()
        }
    }
}
