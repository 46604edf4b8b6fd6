//! Front matter: locating the YAML block, parsing it, and editing it as bytes.
//!
//! The block is found with the rules of Basic Memory (compat 4.2): an optional UTF-8 BOM, then
//! the first non-blank line must be `---` (trailing spaces or tabs allowed), and the block ends
//! at the next line that is exactly `---`. An opening fence without a closing one means "no
//! front matter". Edits replace the lines of one top-level key and leave every other byte of
//! the file untouched, because users' files must stay byte-stable.

use std::ops::Range;

use serde_json::{Map, Value};
use yaml_rust2::{Yaml, YamlLoader};

const BOM: &str = "\u{feff}";

/// Where the front matter block sits in a file's text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    /// The YAML between the fences (may be empty).
    pub yaml: Range<usize>,
    /// Start of the line holding the closing fence.
    pub closing_fence: usize,
    /// First byte after the closing fence line: where the body starts.
    pub body_start: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FrontmatterError {
    #[error("front matter is not valid YAML: {0}")]
    Yaml(String),
    #[error("front matter must be a YAML mapping of keys to values, found {0}")]
    NotMapping(&'static str),
    #[error("front matter is too large: {0}")]
    TooLarge(String),
}

/// Largest front matter parsed, in bytes.
pub const MAX_YAML_BYTES: usize = 256 * 1024;
/// Most values front matter may hold once its aliases are expanded: a few kilobytes of YAML
/// with nested anchors (a "billion laughs") would otherwise expand without bound.
pub const MAX_YAML_NODES: u64 = 100_000;
/// Deepest nesting of lists and mappings.
pub const MAX_YAML_DEPTH: usize = 64;

/// Measures a YAML document from the parser's events, expanding aliases by arithmetic rather
/// than by copying, so that measuring a bomb costs no more than reading it.
#[derive(Default)]
struct Measure {
    /// Values counted so far in each open collection (the collection itself included).
    open: Vec<(u64, usize)>,
    anchored: std::collections::HashMap<usize, u64>,
    total: u64,
    deepest: usize,
}

impl Measure {
    fn add(&mut self, n: u64) {
        match self.open.last_mut() {
            Some((count, _)) => *count = count.saturating_add(n),
            None => self.total = self.total.saturating_add(n),
        }
    }
}

impl yaml_rust2::parser::MarkedEventReceiver for Measure {
    fn on_event(&mut self, event: yaml_rust2::parser::Event, _: yaml_rust2::scanner::Marker) {
        use yaml_rust2::parser::Event;
        match event {
            Event::Scalar(_, _, anchor, _) => {
                if anchor > 0 {
                    self.anchored.insert(anchor, 1);
                }
                self.add(1);
            }
            Event::Alias(anchor) => {
                let size = self.anchored.get(&anchor).copied().unwrap_or(1);
                self.add(size);
            }
            Event::SequenceStart(anchor, _) | Event::MappingStart(anchor, _) => {
                self.open.push((1, anchor));
                self.deepest = self.deepest.max(self.open.len());
            }
            Event::SequenceEnd | Event::MappingEnd => {
                if let Some((size, anchor)) = self.open.pop() {
                    if anchor > 0 {
                        self.anchored.insert(anchor, size);
                    }
                    self.add(size);
                }
            }
            _ => {}
        }
    }
}

/// Refuses YAML that is too long, too deep, or too large once its aliases are expanded.
fn check_bounds(yaml: &str) -> Result<(), FrontmatterError> {
    if yaml.len() > MAX_YAML_BYTES {
        return Err(FrontmatterError::TooLarge(format!(
            "{} bytes, more than {MAX_YAML_BYTES}",
            yaml.len()
        )));
    }
    let mut measure = Measure::default();
    yaml_rust2::parser::Parser::new_from_str(yaml)
        .load(&mut measure, false)
        .map_err(|e| FrontmatterError::Yaml(e.to_string()))?;
    if measure.deepest > MAX_YAML_DEPTH {
        return Err(FrontmatterError::TooLarge(format!(
            "nested {} levels deep, more than {MAX_YAML_DEPTH}",
            measure.deepest
        )));
    }
    if measure.total > MAX_YAML_NODES {
        return Err(FrontmatterError::TooLarge(format!(
            "{} values once its aliases are expanded, more than {MAX_YAML_NODES}",
            measure.total
        )));
    }
    Ok(())
}

/// Finds the front matter block of `text`, if any.
pub fn locate(text: &str) -> Option<Block> {
    let start = if text.starts_with(BOM) { BOM.len() } else { 0 };
    let mut lines = LineIter::new(text, start);
    let opening = loop {
        let line = lines.next()?;
        let trimmed = line.text.trim_end_matches(['\r', '\n']);
        if trimmed.trim().is_empty() {
            continue;
        }
        break line;
    };
    if opening
        .text
        .trim_end_matches(['\r', '\n'])
        .trim_end_matches([' ', '\t'])
        != "---"
    {
        return None;
    }
    let yaml_start = opening.end;
    for line in lines {
        if line.text.trim_end_matches(['\r', '\n']) == "---" {
            return Some(Block {
                yaml: yaml_start..line.start,
                closing_fence: line.start,
                body_start: line.end,
            });
        }
    }
    None
}

/// The text after the front matter (or the whole text without a BOM when there is none).
pub fn body(text: &str) -> &str {
    match locate(text) {
        Some(block) => &text[block.body_start..],
        None => text.strip_prefix(BOM).unwrap_or(text),
    }
}

/// Parses the YAML of a located block into an ordered JSON map.
pub fn parse_yaml(yaml: &str) -> Result<Map<String, Value>, FrontmatterError> {
    check_bounds(yaml)?;
    let docs =
        YamlLoader::load_from_str(yaml).map_err(|e| FrontmatterError::Yaml(e.to_string()))?;
    match docs.into_iter().next() {
        None | Some(Yaml::Null) => Ok(Map::new()),
        Some(Yaml::Hash(hash)) => Ok(hash
            .into_iter()
            .map(|(k, v)| (yaml_key(k), yaml_to_json(v)))
            .collect()),
        Some(Yaml::Array(_)) => Err(FrontmatterError::NotMapping("a list")),
        Some(_) => Err(FrontmatterError::NotMapping("a single value")),
    }
}

fn yaml_key(key: Yaml) -> String {
    match key {
        Yaml::String(s) | Yaml::Real(s) => s,
        Yaml::Integer(i) => i.to_string(),
        Yaml::Boolean(b) => b.to_string(),
        _ => "null".to_string(),
    }
}

fn yaml_to_json(value: Yaml) -> Value {
    match value {
        Yaml::String(s) => Value::String(s),
        Yaml::Integer(i) => Value::from(i),
        Yaml::Real(s) => s
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .unwrap_or(Value::String(s)),
        Yaml::Boolean(b) => Value::Bool(b),
        Yaml::Array(items) => Value::Array(items.into_iter().map(yaml_to_json).collect()),
        Yaml::Hash(hash) => Value::Object(
            hash.into_iter()
                .map(|(k, v)| (yaml_key(k), yaml_to_json(v)))
                .collect(),
        ),
        Yaml::Null | Yaml::Alias(_) | Yaml::BadValue => Value::Null,
    }
}

/// Sets one top-level key of the front matter to `value`, editing only that key's lines.
///
/// When the key exists, its line and its continuation lines (indented lines, or `- item` lines
/// of a block list) are replaced in place. A new key is appended after the last key. A file
/// without front matter gets a new block in front of its unchanged text. The file's line
/// ending style is kept.
pub fn set_key(text: &str, key: &str, value: &Value) -> String {
    let newline = if text.contains("\r\n") { "\r\n" } else { "\n" };
    let rendered = render_entry(key, value).replace('\n', newline);
    let Some(block) = locate(text) else {
        let (bom, rest) = match text.strip_prefix(BOM) {
            Some(rest) => (BOM, rest),
            None => ("", text),
        };
        return format!("{bom}---{newline}{rendered}---{newline}{newline}{rest}");
    };
    let yaml = &text[block.yaml.clone()];
    let mut out = String::with_capacity(text.len() + rendered.len());
    out.push_str(&text[..block.yaml.start]);
    match find_key_lines(yaml, key) {
        Some(range) => {
            out.push_str(&yaml[..range.start]);
            out.push_str(&rendered);
            out.push_str(&yaml[range.end..]);
        }
        None => {
            out.push_str(yaml);
            if !yaml.is_empty() && !yaml.ends_with('\n') {
                out.push_str(newline);
            }
            out.push_str(&rendered);
        }
    }
    out.push_str(&text[block.closing_fence..]);
    out
}

/// Removes one top-level key (its line and continuation lines) from the front matter; every
/// other byte stays. A text without that key is returned unchanged.
pub fn remove_key(text: &str, key: &str) -> String {
    let Some(block) = locate(text) else {
        return text.to_string();
    };
    let yaml = &text[block.yaml.clone()];
    match find_key_lines(yaml, key) {
        Some(range) => {
            let (start, end) = (block.yaml.start + range.start, block.yaml.start + range.end);
            format!("{}{}", &text[..start], &text[end..])
        }
        None => text.to_string(),
    }
}

/// Brings the front matter of `text` from `before` to `after` (two parsed maps of it) by
/// editing only the keys whose values differ: changed and new keys through [`set_key`],
/// dropped keys through [`remove_key`]. Comments, quoting and the order of untouched keys
/// stay as the author wrote them.
pub fn apply_changes(
    text: &str,
    before: &Map<String, Value>,
    after: &Map<String, Value>,
) -> String {
    let mut out = text.to_string();
    for key in before.keys().filter(|k| !after.contains_key(*k)) {
        out = remove_key(&out, key);
    }
    for (key, value) in after {
        if before.get(key) != Some(value) {
            out = set_key(&out, key, value);
        }
    }
    out
}

/// Byte range (within the YAML text) of the lines that hold top-level `key`.
fn find_key_lines(yaml: &str, key: &str) -> Option<Range<usize>> {
    let mut lines = LineIter::new(yaml, 0).peekable();
    while let Some(line) = lines.next() {
        let Some(rest) = top_level_key_rest(line.text, key) else {
            continue;
        };
        let value_on_line = !rest.trim().is_empty() && !rest.trim_start().starts_with('#');
        let mut end = line.end;
        while let Some(next) = lines.peek() {
            let t = next.text;
            let continues = t.starts_with([' ', '\t'])
                || (!value_on_line && (t.starts_with("- ") || t.trim_end() == "-"));
            if !continues {
                break;
            }
            end = next.end;
            lines.next();
        }
        return Some(line.start..end);
    }
    None
}

/// If `line` is `key:` at column 0 (optionally quoted), returns what follows the colon.
fn top_level_key_rest<'a>(line: &'a str, key: &str) -> Option<&'a str> {
    let candidates = [key.to_string(), format!("\"{key}\""), format!("'{key}'")];
    candidates.iter().find_map(|k| {
        let rest = line.strip_prefix(k.as_str())?;
        let rest = rest.trim_start_matches([' ', '\t']);
        rest.strip_prefix(':')
            .filter(|after| after.is_empty() || after.starts_with([' ', '\t', '\r', '\n']))
    })
}

/// Renders `key: value` the way PyYAML's block style does (lists as `- item` lines at the
/// key's indentation, strings quoted only when needed, with single quotes).
pub fn render_entry(key: &str, value: &Value) -> String {
    let mut out = String::new();
    render_into(&mut out, &yaml_scalar(key), value, 0);
    out
}

/// Renders a whole mapping as YAML lines (no fences), in the map's order.
pub fn render_map(map: &Map<String, Value>) -> String {
    map.iter().map(|(k, v)| render_entry(k, v)).collect()
}

fn render_into(out: &mut String, key: &str, value: &Value, indent: usize) {
    let pad = " ".repeat(indent);
    match value {
        Value::Array(items) if !items.is_empty() => {
            out.push_str(&format!("{pad}{key}:\n"));
            for item in items {
                match item {
                    Value::Object(map) if !map.is_empty() => {
                        let mut first = true;
                        for (k, v) in map {
                            let mut entry = String::new();
                            render_into(&mut entry, &yaml_scalar(k), v, indent + 2);
                            if first {
                                out.push_str(&format!("{pad}- {}", &entry[indent + 2..]));
                                first = false;
                            } else {
                                out.push_str(&entry);
                            }
                        }
                    }
                    other => out.push_str(&format!("{pad}- {}\n", inline_value(other))),
                }
            }
        }
        Value::Object(map) if !map.is_empty() => {
            out.push_str(&format!("{pad}{key}:\n"));
            for (k, v) in map {
                render_into(out, &yaml_scalar(k), v, indent + 2);
            }
        }
        other => out.push_str(&format!("{pad}{key}: {}\n", inline_value(other))),
    }
}

fn inline_value(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => yaml_scalar(s),
        Value::Array(_) => "[]".into(),
        Value::Object(_) => "{}".into(),
    }
}

/// A YAML scalar for `s`: plain when that reads back as the same string, else single-quoted.
pub fn yaml_scalar(s: &str) -> String {
    if is_plain_safe(s) {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "''"))
    }
}

fn is_plain_safe(s: &str) -> bool {
    let Some(first) = s.chars().next() else {
        return false;
    };
    if s.trim() != s
        || "-?:,[]{}#&*!|>'\"%@`".contains(first)
        || s.contains(": ")
        || s.contains(" #")
        || s.ends_with(':')
        || s.chars().any(|c| c.is_control())
    {
        return false;
    }
    let lower = s.to_ascii_lowercase();
    let reserved = [
        "true", "false", "yes", "no", "on", "off", "null", "~", "y", "n",
    ];
    if reserved.contains(&lower.as_str()) {
        return false;
    }
    // Anything YAML would read as a number or a date must stay a string.
    let numeric_like = s
        .chars()
        .all(|c| c.is_ascii_digit() || "+-._:eExXoObB".contains(c))
        && s.chars().any(|c| c.is_ascii_digit());
    !numeric_like
}

struct Line<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

/// Lines of `text` from byte `start`, each with its terminator and byte range.
struct LineIter<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> LineIter<'a> {
    fn new(text: &'a str, start: usize) -> Self {
        Self { text, pos: start }
    }
}

impl<'a> Iterator for LineIter<'a> {
    type Item = Line<'a>;
    fn next(&mut self) -> Option<Line<'a>> {
        if self.pos >= self.text.len() {
            return None;
        }
        let start = self.pos;
        let end = self.text[start..]
            .find('\n')
            .map(|i| start + i + 1)
            .unwrap_or(self.text.len());
        self.pos = end;
        Some(Line {
            text: &self.text[start..end],
            start,
            end,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn locate_follows_the_fence_rules() {
        let cases: &[(&str, Option<(&str, &str)>)] = &[
            ("---\ntitle: A\n---\nbody", Some(("title: A\n", "body"))),
            (
                "\u{feff}---\ntitle: A\n---\nbody",
                Some(("title: A\n", "body")),
            ),
            ("\n\n---\ntitle: A\n---\n", Some(("title: A\n", ""))),
            ("---  \t\ntitle: A\n---\nbody", Some(("title: A\n", "body"))),
            (
                "---\r\ntitle: A\r\n---\r\nbody",
                Some(("title: A\r\n", "body")),
            ),
            ("---\n---\nbody", Some(("", "body"))),
            ("---\ntitle: A\nno closing fence", None),
            ("# Heading\n---\ntitle: A\n---\n", None),
            ("----\ntitle: A\n---\n", None),
            (
                "---\ntitle: A\n--- \nstill yaml\n---\nbody",
                Some(("title: A\n--- \nstill yaml\n", "body")),
            ),
            ("", None),
        ];
        for (text, expected) in cases {
            let got = locate(text).map(|b| (&text[b.yaml.clone()], &text[b.body_start..]));
            assert_eq!(got, *expected, "input {text:?}");
        }
    }

    #[test]
    fn parse_yaml_keeps_key_order_and_types() {
        let map = parse_yaml(
            "title: A\ntype: note\ncount: 3\nratio: 0.5\ndone: true\ntags:\n- a\n- b\nnothing:\n",
        )
        .unwrap();
        let keys: Vec<_> = map.keys().cloned().collect();
        assert_eq!(
            keys,
            ["title", "type", "count", "ratio", "done", "tags", "nothing"]
        );
        assert_eq!(map["count"], json!(3));
        assert_eq!(map["ratio"], json!(0.5));
        assert_eq!(map["done"], json!(true));
        assert_eq!(map["tags"], json!(["a", "b"]));
        assert_eq!(map["nothing"], Value::Null);
        assert_eq!(map.len(), 7);
    }

    #[test]
    fn parse_yaml_errors() {
        assert_eq!(parse_yaml("").unwrap(), Map::new());
        assert!(matches!(
            parse_yaml("title: [unclosed"),
            Err(FrontmatterError::Yaml(_))
        ));
        assert!(matches!(
            parse_yaml("just a string"),
            Err(FrontmatterError::NotMapping(_))
        ));
        assert!(matches!(
            parse_yaml("- a\n- b"),
            Err(FrontmatterError::NotMapping(_))
        ));
        // A date stays a string: timestamps are interpreted later.
        assert_eq!(
            parse_yaml("created: 2026-01-05").unwrap()["created"],
            json!("2026-01-05")
        );
    }

    #[test]
    fn set_key_edits_only_that_key() {
        let cases: &[(&str, &str, Value, &str)] = &[
            (
                "---\ntitle: A   # keep me\ntags: [x]\n---\nbody\n",
                "permalink",
                json!("main/a"),
                "---\ntitle: A   # keep me\ntags: [x]\npermalink: main/a\n---\nbody\n",
            ),
            (
                "---\ntitle: A\npermalink: old\nz: 1\n---\n\nbody",
                "permalink",
                json!("main/new"),
                "---\ntitle: A\npermalink: main/new\nz: 1\n---\n\nbody",
            ),
            (
                "---\ntags:\n- a\n- b\ntitle: T\n---\nbody",
                "tags",
                json!(["c"]),
                "---\ntags:\n- c\ntitle: T\n---\nbody",
            ),
            (
                "---\nmeta:\n  a: 1\n  b: 2\n# comment\ntitle: T\n---\n",
                "meta",
                json!("flat"),
                "---\nmeta: flat\n# comment\ntitle: T\n---\n",
            ),
            (
                "# Plain\n\ntext",
                "permalink",
                json!("main/plain"),
                "---\npermalink: main/plain\n---\n\n# Plain\n\ntext",
            ),
            (
                "---\r\ntitle: A\r\n---\r\nbody\r\n",
                "status",
                json!("done"),
                "---\r\ntitle: A\r\nstatus: done\r\n---\r\nbody\r\n",
            ),
            (
                "---\n---\nbody",
                "title",
                json!("x"),
                "---\ntitle: x\n---\nbody",
            ),
            (
                "\u{feff}---\n'title': A\n---\n",
                "title",
                json!("Coupon Enable/Disable: v2.0?"),
                "\u{feff}---\ntitle: 'Coupon Enable/Disable: v2.0?'\n---\n",
            ),
        ];
        for (text, key, value, expected) in cases {
            assert_eq!(set_key(text, key, value), *expected, "input {text:?}");
        }
    }

    #[test]
    fn remove_key_takes_out_only_that_key() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "---\ntitle: A   # keep me\nttl: P1D\nz: 1\n---\nbody\n",
                "ttl",
                "---\ntitle: A   # keep me\nz: 1\n---\nbody\n",
            ),
            (
                "---\ntags:\n- a\n- b\ntitle: T\n---\n",
                "tags",
                "---\ntitle: T\n---\n",
            ),
            (
                "---\ncompat:\n  basic_id: x\n# note\n---\n",
                "compat",
                "---\n# note\n---\n",
            ),
            ("---\ntitle: A\n---\n", "missing", "---\ntitle: A\n---\n"),
            ("no front matter", "title", "no front matter"),
        ];
        for (text, key, expected) in cases {
            assert_eq!(remove_key(text, key), *expected, "input {text:?}");
        }
    }

    #[test]
    fn apply_changes_touches_only_the_keys_that_differ() {
        let text =
            "---\n# written by hand\ntitle: 'A'\nttl: P1D\nextra:   kept  # as is\n---\nbody\n";
        let before = parse_yaml(&text[locate(text).unwrap().yaml]).unwrap();
        let mut after = before.clone();
        after.shift_remove("ttl");
        after.insert("deleted_at".into(), json!("2026-01-01T00:00:00Z"));
        assert_eq!(
            apply_changes(text, &before, &after),
            "---\n# written by hand\ntitle: 'A'\nextra:   kept  # as is\ndeleted_at: 2026-01-01T00:00:00Z\n---\nbody\n"
        );
    }

    #[test]
    fn scalars_are_quoted_only_when_needed() {
        let cases = [
            ("Test Note", "Test Note"),
            (
                "Coupon Enable/Disable: v2.0?",
                "'Coupon Enable/Disable: v2.0?'",
            ),
            ("it's", "it's"),
            ("#tag", "'#tag'"),
            ("true", "'true'"),
            ("2026-01-05", "'2026-01-05'"),
            ("42", "'42'"),
            ("- item", "'- item'"),
            ("", "''"),
            (" padded", "' padded'"),
            ("Don't: stop", "'Don''t: stop'"),
            ("日本語のメモ", "日本語のメモ"),
        ];
        for (input, expected) in cases {
            assert_eq!(yaml_scalar(input), expected, "input {input:?}");
        }
    }

    #[test]
    fn render_map_writes_basic_memory_style() {
        let map = json!({"title": "Test Note", "type": "note", "permalink": "main/test/test-note", "tags": ["test", "documentation"]});
        assert_eq!(
            render_map(map.as_object().unwrap()),
            "title: Test Note\ntype: note\npermalink: main/test/test-note\ntags:\n- test\n- documentation\n"
        );
        let nested = json!({"source": {"origin": "x", "size": 3}, "list": [{"a": 1, "b": 2}]});
        let text = render_map(nested.as_object().unwrap());
        assert_eq!(
            text,
            "source:\n  origin: x\n  size: 3\nlist:\n- a: 1\n  b: 2\n"
        );
        assert_eq!(parse_yaml(&text).unwrap(), *nested.as_object().unwrap());
    }
}

#[cfg(test)]
mod bounds {
    use super::*;

    /// Nine levels of nine aliases each: 9^9 values once expanded, from a few hundred bytes.
    fn alias_bomb() -> String {
        let mut yaml = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x]\n");
        for level in 1..=9 {
            let previous = format!("*a{}", level - 1);
            let list = [previous.as_str(); 9].join(", ");
            yaml.push_str(&format!("a{level}: &a{level} [{list}]\n"));
        }
        yaml
    }

    #[test]
    fn yaml_over_the_limits_is_refused_before_it_is_expanded() {
        let deep = format!("k: {}1{}", "[".repeat(100), "]".repeat(100));
        let long = format!("k: \"{}\"", "x".repeat(MAX_YAML_BYTES));
        for (name, yaml, reason) in [
            ("alias bomb", alias_bomb(), "aliases are expanded"),
            ("deep nesting", deep, "levels deep"),
            ("long", long, "bytes"),
        ] {
            match parse_yaml(&yaml) {
                Err(FrontmatterError::TooLarge(why)) => {
                    assert!(why.contains(reason), "{name}: {why}")
                }
                other => panic!("{name}: expected TooLarge, got {other:?}"),
            }
        }
    }

    #[test]
    fn yaml_within_the_limits_keeps_its_aliases() {
        let map = parse_yaml("base: &b [one, two]\ncopy: *b\ntitle: T\n").unwrap();
        assert_eq!(map["copy"], serde_json::json!(["one", "two"]));
        assert_eq!(map["title"], "T");
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn arbitrary_text_never_panics_the_splitter_or_the_parser(text in any::<String>()) {
            if let Some(block) = locate(&text) {
                let _ = parse_yaml(&text[block.yaml]);
            }
        }

        #[test]
        fn set_key_changes_no_byte_after_the_front_matter(
            yaml in "[a-z]{1,6}: [a-z0-9 ]{0,12}(\n[a-z]{1,6}: [a-z0-9 ]{0,12}){0,4}",
            body in any::<String>(),
            value in any::<String>(),
        ) {
            let text = format!("---\n{yaml}\n---\n{body}");
            let edited = set_key(&text, "title", &Value::String(value));
            let (before, after) = (locate(&text).unwrap(), locate(&edited).unwrap());
            prop_assert_eq!(&text[before.body_start..], &edited[after.body_start..]);
        }
    }
}
