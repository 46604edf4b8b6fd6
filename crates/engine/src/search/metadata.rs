//! Front-matter filters of search_notes (compat 6.3): `{"status": "active"}`,
//! `{"priority": {"$gte": 2}}`, `{"tags": ["a", "b"]}`, compared as upstream compares them.

use std::sync::LazyLock;

use regex::Regex;
use serde_json::{Map, Value};

use super::super::error::QueryError;
use super::super::Result;

static METADATA_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$").unwrap());

/// Whether `key` is a front matter key filters and projections may name: dot-separated names
/// of letters, digits, `_` or `-`.
pub(crate) fn is_metadata_key(key: &str) -> bool {
    METADATA_KEY.is_match(key)
}

/// A front matter value as upstream compares it: Python `str()` of scalars.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(true) => Some("True".into()),
        Value::Bool(false) => Some("False".into()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn lookup_path<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    let mut parts = key.split('.');
    let mut current = map.get(parts.next()?)?;
    for part in parts {
        current = current.as_object()?.get(part)?;
    }
    Some(current)
}

fn compare(actual: &Value, op: &str, bound: &Value) -> bool {
    let (Some(a), Some(b)) = (scalar_text(actual), scalar_text(bound)) else {
        return false;
    };
    let ordering = match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.partial_cmp(&y),
        _ => Some(a.cmp(&b)),
    };
    let Some(ordering) = ordering else {
        return false;
    };
    match op {
        "$gt" => ordering.is_gt(),
        "$gte" => ordering.is_ge(),
        "$lt" => ordering.is_lt(),
        "$lte" => ordering.is_le(),
        _ => false,
    }
}

fn contains(actual: &Value, wanted: &Value) -> bool {
    let Some(w) = scalar_text(wanted) else {
        return false;
    };
    match actual {
        Value::Array(items) => items
            .iter()
            .any(|i| scalar_text(i).as_deref() == Some(w.as_str())),
        Value::String(s) => s.contains(&format!("\"{w}\"")) || s.split(',').any(|p| p.trim() == w),
        other => scalar_text(other).as_deref() == Some(w.as_str()),
    }
}

/// Checks metadata filters (compat 6.3) before running them, so bad input is reported.
pub(crate) fn validate_metadata_filters(filters: &Map<String, Value>) -> Result<()> {
    for (key, condition) in filters {
        if !is_metadata_key(key) {
            return Err(QueryError::UnsupportedMetadataKey(key.clone()).into());
        }
        if let Value::Object(ops) = condition {
            for (op, arg) in ops {
                let ok = match op.as_str() {
                    "$in" => arg.as_array().is_some_and(|a| !a.is_empty()),
                    "$gt" | "$gte" | "$lt" | "$lte" => scalar_text(arg).is_some(),
                    "$between" => arg.as_array().is_some_and(|a| a.len() == 2),
                    _ => false,
                };
                if !ok {
                    return Err(QueryError::UnsupportedMetadataOperator {
                        key: key.clone(),
                        operator: op.clone(),
                        argument: arg.clone(),
                    }
                    .into());
                }
            }
        }
    }
    Ok(())
}

/// Whether a note's front matter satisfies every filter.
pub(crate) fn metadata_matches(
    metadata: &Map<String, Value>,
    filters: &Map<String, Value>,
) -> bool {
    filters.iter().all(|(key, condition)| {
        let key = if key == "note_type" {
            "type"
        } else {
            key.as_str()
        };
        let actual = lookup_path(metadata, key);
        // `null` asks whether the note carries a value at all (SQL's IS NULL upstream).
        if condition.is_null() {
            return actual.is_none_or(Value::is_null);
        }
        let Some(actual) = actual else {
            return false;
        };
        match condition {
            Value::Array(wanted) => wanted.iter().all(|w| contains(actual, w)),
            Value::Object(ops) => ops.iter().all(|(op, arg)| match op.as_str() {
                "$in" => arg.as_array().is_some_and(|options| {
                    options.iter().any(|o| {
                        scalar_text(o).is_some_and(|o| {
                            scalar_text(actual).as_deref() == Some(o.as_str())
                                || contains(actual, &Value::String(o))
                        })
                    })
                }),
                "$between" => arg.as_array().is_some_and(|b| {
                    b.len() == 2 && compare(actual, "$gte", &b[0]) && compare(actual, "$lte", &b[1])
                }),
                other => compare(actual, other, arg),
            }),
            scalar => match (scalar_text(actual), scalar_text(scalar)) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn metadata_filters_follow_compat() {
        let meta = json!({"status": "active", "priority": 3, "done": true, "tags": ["a", "b"], "due": "2025-03-01", "nested": {"k": "v"}, "type": "person"});
        let meta = meta.as_object().unwrap();
        let cases = [
            (json!({"status": "active"}), true),
            (json!({"status": "draft"}), false),
            (json!({"priority": 3}), true),
            (json!({"done": true}), true),
            (json!({"tags": ["a", "b"]}), true),
            (json!({"tags": ["a", "z"]}), false),
            (json!({"status": {"$in": ["draft", "active"]}}), true),
            (json!({"priority": {"$gt": 2}}), true),
            (json!({"priority": {"$gte": 4}}), false),
            (json!({"priority": {"$between": [1, 3]}}), true),
            (json!({"due": {"$lt": "2025-04-01"}}), true),
            (json!({"nested.k": "v"}), true),
            (json!({"note_type": "person"}), true),
            (json!({"missing": "x"}), false),
            (json!({"missing": null}), true),
            (json!({"status": null}), false),
        ];
        for (filter, expected) in cases {
            assert_eq!(
                metadata_matches(meta, filter.as_object().unwrap()),
                expected,
                "{filter}"
            );
        }
        for bad in [
            json!({"bad key!": 1}),
            json!({"k": {"$regex": "x"}}),
            json!({"k": {"$in": []}}),
        ] {
            assert!(
                validate_metadata_filters(bad.as_object().unwrap()).is_err(),
                "{bad}"
            );
        }
    }
}
