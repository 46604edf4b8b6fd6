//! find's `meta` predicates and `fields` paths (Basic Memory's `find --meta`): POSIX-style
//! strings (`status=active`, `priority in high,critical`) read into search_notes' metadata
//! filters, refusing what a search cannot answer in find's own words.

use serde_json::{json, Map, Value};

use super::super::error::PosixError;
use super::super::search::is_metadata_key;

/// The operators a predicate may use.
pub(crate) const SUPPORTED_OPS: &str = "= > >= < <= in has between";

/// Reads predicates into metadata filters: one predicate per string, one per key, all of
/// them must hold. `note_type` is the front matter's `type`, as in search_notes.
pub(crate) fn parse_predicates(predicates: &[String]) -> Result<Map<String, Value>, PosixError> {
    let mut filters = Map::new();
    for predicate in predicates {
        let (raw_key, op, raw_value) =
            split_predicate(predicate.trim()).ok_or_else(|| PosixError::UnsupportedOperator {
                predicate: predicate.clone(),
                supported: SUPPORTED_OPS,
            })?;
        let key = if raw_key == "note_type" {
            "type"
        } else {
            raw_key
        };
        if !is_metadata_key(key) {
            return Err(PosixError::MalformedKey {
                key: key.to_string(),
                predicate: predicate.clone(),
            });
        }
        if filters.contains_key(key) {
            return Err(PosixError::DuplicateKey {
                key: key.to_string(),
                predicate: predicate.clone(),
            });
        }
        let value = match op {
            "in" | "has" | "between" => {
                let items = split_items(raw_value, predicate)?
                    .into_iter()
                    .map(|item| scalar(item, predicate))
                    .collect::<Result<Vec<_>, _>>()?;
                refuse_null(&items, op, predicate)?;
                match op {
                    "in" => json!({ "$in": items }),
                    "has" => Value::Array(items),
                    _ if items.len() != 2 => {
                        return Err(PosixError::BetweenArity(predicate.clone()))
                    }
                    _ => json!({ "$between": items }),
                }
            }
            _ => {
                if raw_value.trim().is_empty() {
                    return Err(PosixError::NoValue(predicate.clone()));
                }
                let value = scalar(raw_value, predicate)?;
                match op {
                    "=" => value,
                    _ => {
                        refuse_null(std::slice::from_ref(&value), op, predicate)?;
                        let name = match op {
                            ">" => "$gt",
                            ">=" => "$gte",
                            "<" => "$lt",
                            _ => "$lte",
                        };
                        json!({ name: value })
                    }
                }
            }
        };
        filters.insert(key.to_string(), value);
    }
    Ok(filters)
}

/// `fields` entries, trimmed and checked as dot paths.
pub(crate) fn parse_fields(fields: &[String]) -> Result<Vec<String>, PosixError> {
    let fields: Vec<String> = fields.iter().map(|f| f.trim().to_string()).collect();
    if fields.is_empty() || fields.iter().any(String::is_empty) {
        return Err(PosixError::EmptyField);
    }
    for field in &fields {
        if !is_metadata_key(field) {
            return Err(PosixError::MalformedField(field.clone()));
        }
    }
    Ok(fields)
}

/// The value at a dot path of front matter; `Null` where a key is missing or a step is not a
/// mapping (a row is never dropped for a missing field).
pub(crate) fn project_field(metadata: &Map<String, Value>, path: &str) -> Value {
    let mut parts = path.split('.');
    let Some(mut value) = parts.next().and_then(|first| metadata.get(first)) else {
        return Value::Null;
    };
    for part in parts {
        match value.as_object().and_then(|m| m.get(part)) {
            Some(next) => value = next,
            None => return Value::Null,
        }
    }
    value.clone()
}

/// Key, operator and value. A word operator needs whitespace around it; of the symbols the
/// two-character ones are tried first, so `>=` is never `>` and a value starting with `=`.
fn split_predicate(predicate: &str) -> Option<(&str, &str, &str)> {
    let key_len = predicate
        .find(|c: char| !(c.is_ascii_alphanumeric() || "_.-".contains(c)))
        .unwrap_or(predicate.len());
    let (key, rest) = predicate.split_at(key_len);
    if key.is_empty() {
        return None;
    }
    if rest.starts_with(char::is_whitespace) {
        let trimmed = rest.trim_start();
        for word in ["in", "has", "between"] {
            if let Some(value) = trimmed.strip_prefix(word) {
                if value.starts_with(char::is_whitespace) && !value.trim().is_empty() {
                    return Some((key, word, value.trim()));
                }
            }
        }
    }
    let rest = rest.trim_start();
    for op in [">=", "<=", "=", ">", "<"] {
        if let Some(value) = rest.strip_prefix(op) {
            return Some((key, op, value.trim_start()));
        }
    }
    None
}

/// Whether a double quote opens in `text` and nothing closes it.
fn opens_unterminated_quote(text: &str) -> bool {
    let (mut quoted, mut escaped) = (false, false);
    for c in text.chars() {
        if escaped {
            escaped = false;
        } else if quoted && c == '\\' {
            escaped = true;
        } else if c == '"' {
            quoted = !quoted;
        }
    }
    quoted
}

/// A list operator's value split at its top-level commas (a comma inside quotes belongs to
/// its element); an empty element is refused.
fn split_items<'a>(raw: &'a str, predicate: &str) -> Result<Vec<&'a str>, PosixError> {
    let mut items = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (i, c) in raw.char_indices() {
        if escaped {
            escaped = false;
        } else if quoted && c == '\\' {
            escaped = true;
        } else if c == '"' {
            quoted = !quoted;
        } else if c == ',' && !quoted {
            items.push(raw[start..i].trim());
            start = i + 1;
        }
    }
    items.push(raw[start..].trim());
    if items.iter().any(|item| item.is_empty()) {
        return Err(PosixError::EmptyListElement(predicate.to_string()));
    }
    Ok(items)
}

/// One value token: JSON scalars (`true`, `null`, numbers, a quoted string) as such, any
/// other text as it is.
fn scalar(token: &str, predicate: &str) -> Result<Value, PosixError> {
    let text = token.trim();
    if text.starts_with(['=', '<', '>']) {
        return Err(PosixError::OperatorInValue {
            predicate: predicate.to_string(),
            text: text.to_string(),
            supported: SUPPORTED_OPS,
        });
    }
    if opens_unterminated_quote(text) {
        return Err(PosixError::UnterminatedQuote(predicate.to_string()));
    }
    // Python's JSON reader (Basic Memory's) takes these, and a huge exponent, as numbers that
    // no filter can carry; serde_json refuses them, so they are recognised here.
    let numeric = text
        .trim_start_matches('-')
        .starts_with(|c: char| c.is_ascii_digit());
    let infinite = matches!(text, "NaN" | "Infinity" | "-Infinity")
        || (numeric && text.parse::<f64>().is_ok_and(|n| !n.is_finite()));
    if infinite {
        return Err(PosixError::NonFinite {
            predicate: predicate.to_string(),
            text: text.to_string(),
        });
    }
    Ok(match serde_json::from_str::<Value>(text) {
        Ok(value @ (Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_))) => value,
        _ => Value::String(text.to_string()),
    })
}

/// `null` compares with nothing: only `=` may use it (a key missing or null).
fn refuse_null(values: &[Value], op: &str, predicate: &str) -> Result<(), PosixError> {
    if values.iter().any(Value::is_null) {
        return Err(PosixError::NullOutsideEquality {
            predicate: predicate.to_string(),
            op: op.to_string(),
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn predicates_read_as_basic_memory_reads_them() {
        let cases: [(&[&str], Value); 12] = [
            (&["status=active"], json!({"status": "active"})),
            (&["status = active"], json!({"status": "active"})),
            (&["confidence>0.6"], json!({"confidence": {"$gt": 0.6}})),
            (
                &["priority>=2", "done=true"],
                json!({"priority": {"$gte": 2}, "done": true}),
            ),
            (&["n<3"], json!({"n": {"$lt": 3}})),
            (&["n<=3"], json!({"n": {"$lte": 3}})),
            (
                &["priority in high,critical"],
                json!({"priority": {"$in": ["high", "critical"]}}),
            ),
            (
                &["tags has security,oauth"],
                json!({"tags": ["security", "oauth"]}),
            ),
            (
                &["score between 0.3,0.8"],
                json!({"score": {"$between": [0.3, 0.8]}}),
            ),
            (&["owner=null"], json!({"owner": null})),
            (
                &["status=\"true\"", "label in \"a,b\",c"],
                json!({"status": "true", "label": {"$in": ["a,b", "c"]}}),
            ),
            (
                &["note_type=person", "review.approved=yes"],
                json!({"type": "person", "review.approved": "yes"}),
            ),
        ];
        for (predicates, expected) in cases {
            let predicates: Vec<String> = predicates.iter().map(|p| p.to_string()).collect();
            let got =
                parse_predicates(&predicates).unwrap_or_else(|e| panic!("{predicates:?}: {e}"));
            assert_eq!(Value::Object(got), expected, "{predicates:?}");
        }
    }

    #[test]
    fn predicates_a_search_cannot_answer_are_refused_naming_the_mistake() {
        let cases: [(&[&str], &str); 12] = [
            (&["status"], "unsupported predicate operator in 'status'"),
            (&["status==active"], "quote the value as \"=active\""),
            (&["count>>3"], "quote the value as \">3\""),
            (&["status=\"active"], "unterminated quoted value"),
            (&["n=NaN"], "non-finite number 'NaN'"),
            (&["n>1e999"], "non-finite number '1e999'"),
            (&["label in a,,b"], "empty list element"),
            (&["score>null"], "uses null with '>'"),
            (
                &["review..approved=x"],
                "malformed predicate key 'review..approved'",
            ),
            (&["a=1", "a=2"], "duplicate predicate key 'a'"),
            (&["s between 1,2,3"], "'between' needs exactly min,max"),
            (&["status="], "has no value"),
        ];
        for (predicates, needle) in cases {
            let predicates: Vec<String> = predicates.iter().map(|p| p.to_string()).collect();
            let error = parse_predicates(&predicates).expect_err(needle).to_string();
            assert!(error.contains(needle), "{predicates:?}: {error}");
            assert!(error.starts_with("find: "), "{error}");
        }
    }

    #[test]
    fn fields_are_dot_paths_and_project_to_null_when_missing() {
        assert_eq!(
            parse_fields(&[" title ".into(), "review.approved".into()]).unwrap(),
            ["title", "review.approved"]
        );
        for bad in [vec![], vec![" ".to_string()], vec!["a..b".to_string()]] {
            assert!(parse_fields(&bad).is_err(), "{bad:?}");
        }
        let meta = json!({"status": "active", "review": {"approved": true}, "n": 3});
        let meta = meta.as_object().unwrap();
        let cases = [
            ("status", json!("active")),
            ("review.approved", json!(true)),
            ("review.by", Value::Null),
            ("n.deeper", Value::Null),
            ("missing", Value::Null),
        ];
        for (path, expected) in cases {
            assert_eq!(project_field(meta, path), expected, "{path}");
        }
    }
}
