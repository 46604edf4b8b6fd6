//! A note's file as a whole: its front matter and its body. Every writer of new note files
//! (write_note, auto-created notes, memories, imports, the graph tools) builds one and renders
//! it here, so the files they write have one layout: `title`, `type`, `permalink` first, then
//! the other keys, a blank line, the body.

use serde_json::{Map, Value};

use super::frontmatter::{self, FrontmatterError};

/// A note's front matter (in file order) and its body.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Document {
    pub meta: Map<String, Value>,
    pub body: String,
}

/// The keys a new note's front matter opens with; the note's own copy of them never wins.
pub fn is_header_key(key: &str) -> bool {
    matches!(key, "title" | "type" | "permalink")
}

impl Document {
    /// A new note: `title`, `type` and `permalink`, then the keys of `meta` that are not
    /// among those three (a later key replaces an earlier one in place).
    pub fn headed<'a>(
        title: &str,
        note_type: &str,
        permalink: &str,
        meta: impl IntoIterator<Item = (&'a String, &'a Value)>,
        body: impl Into<String>,
    ) -> Self {
        let mut doc = Document {
            meta: Map::new(),
            body: body.into(),
        };
        for (key, value) in [
            ("title", title),
            ("type", note_type),
            ("permalink", permalink),
        ] {
            doc.meta.insert(key.into(), Value::String(value.into()));
        }
        for (key, value) in meta {
            doc.insert_other(key, value);
        }
        doc
    }

    /// Sets `key` unless it is one of the header keys.
    pub fn insert_other(&mut self, key: &str, value: &Value) {
        if !is_header_key(key) {
            self.meta.insert(key.to_string(), value.clone());
        }
    }

    /// Splits a file's text. Without front matter the whole text is the body; front matter
    /// that is not a YAML mapping is an error, so no caller mistakes it for an empty one.
    pub fn parse(text: &str) -> Result<Self, FrontmatterError> {
        match frontmatter::locate(text) {
            Some(block) => Ok(Document {
                meta: frontmatter::parse_yaml(&text[block.yaml])?,
                body: text[block.body_start..].to_string(),
            }),
            None => Ok(Document {
                meta: Map::new(),
                body: text.to_string(),
            }),
        }
    }

    /// Like [`Document::parse`], but front matter that is not YAML counts as none: the body
    /// still starts after its closing fence.
    pub fn parse_lenient(text: &str) -> Self {
        Self::parse(text).unwrap_or_else(|_| Document {
            meta: Map::new(),
            body: frontmatter::locate(text)
                .map_or(text, |block| &text[block.body_start..])
                .to_string(),
        })
    }

    /// The file's text: the front matter block, a blank line, the body as it is.
    pub fn render(&self) -> String {
        format!(
            "---\n{}---\n\n{}",
            frontmatter::render_map(&self.meta),
            self.body
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn parse_splits_front_matter_from_body() {
        let cases: &[(&str, Option<Value>, &str)] = &[
            ("no front matter\n", Some(json!({})), "no front matter\n"),
            ("---\na: 1\n---\nbody", Some(json!({"a": 1})), "body"),
            (
                "\u{feff}---\nb: x\n---\n\nbody",
                Some(json!({"b": "x"})),
                "\nbody",
            ),
            (
                "---\nunclosed\nbody",
                Some(json!({})),
                "---\nunclosed\nbody",
            ),
            ("---\n---\nempty", Some(json!({})), "empty"),
            ("---\n[bad\n---\nbody", None, "body"),
            ("---\n- a list\n---\nbody", None, "body"),
        ];
        for (text, meta, body) in cases {
            let lenient = Document::parse_lenient(text);
            assert_eq!(lenient.body, *body, "input {text:?}");
            match (Document::parse(text), meta) {
                (Ok(doc), Some(meta)) => {
                    assert_eq!(Value::Object(doc.meta.clone()), *meta, "input {text:?}");
                    assert_eq!(doc, lenient, "input {text:?}");
                }
                (Err(_), None) => assert!(lenient.meta.is_empty(), "input {text:?}"),
                (got, want) => panic!("input {text:?}: got {got:?}, wanted {want:?}"),
            }
        }
    }

    #[test]
    fn headed_documents_open_with_title_type_and_permalink() {
        let meta = json!({"permalink": "mine", "tags": ["a"], "title": "Other", "k": "v"});
        let meta = meta.as_object().unwrap();
        let cases: &[(&str, &str)] = &[
            (
                "body\n",
                "---\ntitle: T\ntype: note\npermalink: main/t\ntags:\n- a\nk: v\n---\n\nbody\n",
            ),
            (
                "",
                "---\ntitle: T\ntype: note\npermalink: main/t\ntags:\n- a\nk: v\n---\n\n",
            ),
        ];
        for (body, text) in cases {
            let doc = Document::headed("T", "note", "main/t", meta, *body);
            assert_eq!(doc.render(), *text);
            assert_eq!(Document::parse(text).unwrap().meta, doc.meta);
        }
    }

    #[test]
    fn rendering_round_trips_what_it_wrote() {
        let meta = json!({"title": "a: b", "type": "x", "n": 3, "list": [], "yes": "yes"});
        let doc = Document {
            meta: meta.as_object().unwrap().clone(),
            body: "# H\n".into(),
        };
        let mut read = Document::parse(&doc.render()).unwrap();
        read.body = read.body.trim_start_matches('\n').to_string();
        assert_eq!(read, doc);
    }
}
