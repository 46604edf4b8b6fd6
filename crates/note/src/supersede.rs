//! Corrections and compactions in front matter: a note that a later one supersedes carries
//! `superseded_by` (the later note's permalink); the later one carries `supersedes` (one
//! permalink, or a list for a compaction's summary).

use serde_json::{Map, Value};

/// The permalink of the note that corrected this one (`superseded_by`), if any.
pub fn superseded_by(meta: &Map<String, Value>) -> Option<&str> {
    meta.get("superseded_by")
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Whether a later note supersedes this one (a correction, or a compaction's summary).
pub fn is_superseded(meta: &Map<String, Value>) -> bool {
    superseded_by(meta).is_some()
}

/// The permalinks this note supersedes (`supersedes`: one, or a list for a summary).
pub fn supersedes(meta: &Map<String, Value>) -> Vec<String> {
    let text = |v: &Value| {
        v.as_str()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(String::from)
    };
    match meta.get("supersedes") {
        Some(Value::Array(items)) => items.iter().filter_map(text).collect(),
        Some(one) => text(one).into_iter().collect(),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn supersession_is_read_from_either_side() {
        let meta = |v: Value| v.as_object().unwrap().clone();
        let cases = [
            (json!({"superseded_by": "a/new"}), Some("a/new"), vec![]),
            (json!({"superseded_by": " "}), None, vec![]),
            (json!({"superseded_by": null}), None, vec![]),
            (json!({"supersedes": "a/b"}), None, vec!["a/b"]),
            (json!({"supersedes": ["a", " ", "b"]}), None, vec!["a", "b"]),
            (json!({"supersedes": ""}), None, vec![]),
            (json!({}), None, vec![]),
        ];
        for (fm, by, before) in cases {
            let m = meta(fm.clone());
            assert_eq!(superseded_by(&m), by, "{fm}");
            assert_eq!(is_superseded(&m), by.is_some(), "{fm}");
            assert_eq!(supersedes(&m), before, "{fm}");
        }
    }
}
