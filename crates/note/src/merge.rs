//! Three-way merge of a note, for git sync between devices.
//!
//! A text merge of the whole file would turn two tags added on two devices into a conflict
//! (they sit on neighbouring lines), and could splice YAML into something that no longer
//! parses. So the front matter is merged key by key as values, and only the body is merged as
//! lines. Whatever cannot be merged without guessing is a `Conflict`: the caller keeps both
//! versions, which is why a merged text never holds conflict markers.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};

use super::{frontmatter, parse_tags};

const BOM: &str = "\u{feff}";
const CONFLICT_TAG: &str = "conflict";

/// The result of merging two versions of a note against their common ancestor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Merged {
    Clean(String),
    Conflict,
}

/// Three-way merge. `base` is None when both sides created the file independently.
///
/// When one side is unchanged the other is returned byte for byte, so a sync that only one
/// device edited never rewrites a file.
pub fn merge_note(base: Option<&str>, ours: &str, theirs: &str) -> Merged {
    if ours == theirs {
        return Merged::Clean(ours.to_string());
    }
    // Without an ancestor there is no telling an addition on one side from a deletion on
    // the other.
    let Some(base) = base else {
        return Merged::Conflict;
    };
    if ours == base {
        return Merged::Clean(theirs.to_string());
    }
    if theirs == base {
        return Merged::Clean(ours.to_string());
    }
    let (Some(base), Some(ours), Some(theirs)) = (split(base), split(ours), split(theirs)) else {
        return Merged::Conflict;
    };
    let Some(map) = merge_maps(&base.map, &ours.map, &theirs.map) else {
        return Merged::Conflict;
    };
    let Some(body) = merge_body(base.body, ours.body, theirs.body) else {
        return Merged::Conflict;
    };
    // A block that one side only reformatted (same values) keeps that side's formatting.
    let mut head = if map == theirs.map && (map != ours.map || ours.head == base.head) {
        theirs.head.to_string()
    } else if map == ours.map {
        ours.head.to_string()
    } else {
        render_head(&map, &ours, &theirs)
    };
    // A closing fence on the last line, without a line break, cannot be followed by a body.
    let has_block = !head.trim_start_matches(BOM).is_empty();
    if has_block && !head.ends_with('\n') && !body.is_empty() {
        head.push_str(if head.contains("\r\n") { "\r\n" } else { "\n" });
    }
    head.push_str(&body);
    Merged::Clean(head)
}

/// One version of a note, cut where its body starts.
struct Split<'a> {
    map: Map<String, Value>,
    /// Everything before the body, as written (BOM, fences, YAML).
    head: &'a str,
    /// The opening and closing fence lines, kept to frame a re-rendered block like the file's.
    fences: Option<(&'a str, &'a str)>,
    body: &'a str,
}

/// None when the front matter does not parse: merging values read from broken YAML would be
/// guessing.
fn split(text: &str) -> Option<Split<'_>> {
    match frontmatter::locate(text) {
        Some(block) => Some(Split {
            map: frontmatter::parse_yaml(&text[block.yaml.clone()]).ok()?,
            head: &text[..block.body_start],
            fences: Some((
                &text[..block.yaml.start],
                &text[block.closing_fence..block.body_start],
            )),
            body: &text[block.body_start..],
        }),
        None => {
            let bom = if text.starts_with(BOM) { BOM.len() } else { 0 };
            Some(Split {
                map: Map::new(),
                head: &text[..bom],
                fences: None,
                body: &text[bom..],
            })
        }
    }
}

/// Writes a merged map that matches neither side, framed like ours' block (or theirs' when
/// only they have one) and in the file's line-break style.
fn render_head(map: &Map<String, Value>, ours: &Split, theirs: &Split) -> String {
    let (opening, closing) = ours.fences.or(theirs.fences).unwrap_or(("---\n", "---\n"));
    let mut yaml = frontmatter::render_map(map);
    if opening.contains("\r\n") {
        yaml = yaml.replace('\n', "\r\n");
    }
    format!("{opening}{yaml}{closing}")
}

/// Key by key; an absent key is a value too, so a removal on one side wins over no change on
/// the other. None when a key changed differently on both sides and is not a list to unite.
fn merge_maps(
    base: &Map<String, Value>,
    ours: &Map<String, Value>,
    theirs: &Map<String, Value>,
) -> Option<Map<String, Value>> {
    let keys = ours
        .keys()
        .chain(theirs.keys().filter(|key| !ours.contains_key(*key)));
    let mut merged = Map::new();
    for key in keys {
        let (b, o, t) = (base.get(key), ours.get(key), theirs.get(key));
        let value = if o == t || t == b {
            o.cloned()
        } else if o == b {
            t.cloned()
        } else {
            Some(unite_lists(key, b, o, t)?)
        };
        if let Some(value) = value {
            merged.insert(key.clone(), value);
        }
    }
    Some(merged)
}

/// Tags and aliases are sets in practice: each device adding one is the common case and has
/// an obvious answer. Ours' items come first, then theirs' new ones; an item either side
/// removed stays removed. Tags come out normalised the way `parse_tags` reads them.
fn unite_lists(
    key: &str,
    base: Option<&Value>,
    ours: Option<&Value>,
    theirs: Option<&Value>,
) -> Option<Value> {
    let items = |value: Option<&Value>| -> Option<Vec<String>> {
        match (key, value) {
            (_, None | Some(Value::Null)) => Some(Vec::new()),
            ("tags", Some(value)) => Some(parse_tags(value)),
            ("aliases", Some(Value::String(alias))) => Some(vec![alias.clone()]),
            ("aliases", Some(Value::Array(aliases))) => aliases
                .iter()
                .map(|alias| alias.as_str().map(str::to_string))
                .collect(),
            _ => None,
        }
    };
    let (b, o, t) = (items(base)?, items(ours)?, items(theirs)?);
    let mut united: Vec<String> = Vec::new();
    for item in o.iter().chain(&t) {
        let removed = b.contains(item) && !(o.contains(item) && t.contains(item));
        if !removed && !united.contains(item) {
            united.push(item.clone());
        }
    }
    let form = ours.filter(|v| !v.is_null()).or(theirs);
    let comma_string = matches!(form, Some(Value::String(s)) if is_comma_string(s));
    Some(if key == "tags" && comma_string {
        Value::String(united.join(", "))
    } else {
        Value::Array(united.into_iter().map(Value::String).collect())
    })
}

/// Tags written as `tags: a, b` stay a string when edited; a JSON list in a string is a list.
fn is_comma_string(tags: &str) -> bool {
    !tags.trim_start().starts_with('[')
}

/// Lines, with diffy. diffy takes a last line without a line break for a different line than
/// the same text with one, so appending to such a file would also "change" its last line and
/// collide with any edit next to it. Each body is therefore merged with a final line break,
/// and whether the result ends without one is merged on its own, as a one-bit value.
fn merge_body(base: &str, ours: &str, theirs: &str) -> Option<String> {
    let newline = if [base, ours, theirs].iter().any(|b| b.contains("\r\n")) {
        "\r\n"
    } else {
        "\n"
    };
    let unterminated = |s: &str| !s.is_empty() && !s.ends_with('\n');
    let terminated = |s: &str| {
        if unterminated(s) {
            format!("{s}{newline}")
        } else {
            s.to_string()
        }
    };
    let (base_t, ours_t, theirs_t) = (terminated(base), terminated(ours), terminated(theirs));
    let merged = diffy::merge(&base_t, &ours_t, &theirs_t)
        .ok()
        .or_else(|| appended_by_both(&base_t, &ours_t, &theirs_t))?;
    let (b, o, t) = (unterminated(base), unterminated(ours), unterminated(theirs));
    let strip = if o == b { t } else { o };
    if !strip {
        return Some(merged);
    }
    let stripped = merged
        .strip_suffix(newline)
        .or_else(|| merged.strip_suffix('\n'))
        .unwrap_or(&merged);
    Some(stripped.to_string())
}

/// Both sides only added lines at the end (two devices appending observations to one note):
/// a line merge cannot order them, but keeping both, ours first, loses nothing and needs no
/// choice. Any other overlap stays a conflict.
fn appended_by_both(base: &str, ours: &str, theirs: &str) -> Option<String> {
    let added = theirs.strip_prefix(base)?;
    ours.starts_with(base).then(|| format!("{ours}{added}"))
}

/// Adds `conflict` to the note's `tags` (creating the key, or the front matter, when missing);
/// returns the text unchanged if the tag is already there. Everything else in the text stays
/// byte for byte.
///
/// Front matter that does not parse is left alone: editing it blind could make it worse, and
/// the conflict copy's file name already says what it is.
pub fn tag_conflict(text: &str) -> String {
    let tags = match frontmatter::locate(text) {
        None => None,
        Some(block) => match frontmatter::parse_yaml(&text[block.yaml]) {
            Ok(mut map) => map.remove("tags"),
            Err(_) => return text.to_string(),
        },
    };
    let current = tags.as_ref().map(parse_tags).unwrap_or_default();
    if current.iter().any(|tag| tag == CONFLICT_TAG) {
        return text.to_string();
    }
    let tagged = match tags {
        Some(Value::Array(mut items)) => {
            items.push(Value::from(CONFLICT_TAG));
            Value::Array(items)
        }
        Some(Value::String(s)) if is_comma_string(&s) => Value::String(if s.trim().is_empty() {
            CONFLICT_TAG.to_string()
        } else {
            format!("{}, {CONFLICT_TAG}", s.trim_end())
        }),
        _ => Value::Array(
            current
                .into_iter()
                .chain([CONFLICT_TAG.to_string()])
                .map(Value::String)
                .collect(),
        ),
    };
    frontmatter::set_key(text, "tags", &tagged)
}

/// `dir/Name.md` → `dir/Name.conflict-<device>-<time>.md`; the device is reduced to
/// [A-Za-z0-9-] (others become '-', empty becomes "device"), time is formatted like
/// 20261123T225300Z.
///
/// The copy stays next to the note and keeps its extension, so it is still indexed and found;
/// the device name is reduced so that it can never add a directory or an odd character.
pub fn conflict_path(path: &str, device: &str, time: DateTime<Utc>) -> String {
    let device: String = device
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    let device = if device.is_empty() { "device" } else { &device };
    let suffix = format!(".conflict-{device}-{}", time.format("%Y%m%dT%H%M%SZ"));
    let name_start = path.rfind('/').map_or(0, |slash| slash + 1);
    match path[name_start..].rfind('.').filter(|dot| *dot > 0) {
        Some(dot) => {
            let (stem, extension) = path.split_at(name_start + dot);
            format!("{stem}{suffix}{extension}")
        }
        None => format!("{path}{suffix}"),
    }
}

/// The note a conflict copy stands beside (the inverse of [`conflict_path`]); None for a path
/// that is not a conflict copy.
pub fn conflict_origin(copy: &str) -> Option<String> {
    let (stem, rest) = copy.rsplit_once(".conflict-")?;
    if rest.contains('/') {
        return None;
    }
    let extension = rest.find('.').map_or("", |dot| &rest[dot..]);
    let (device, stamp) = rest[..rest.len() - extension.len()].rsplit_once('-')?;
    let stamped = stamp.len() == 16
        && stamp.as_bytes()[8] == b'T'
        && stamp.ends_with('Z')
        && !device.is_empty();
    stamped.then(|| format!("{stem}{extension}"))
}

/// A unified diff (3 lines of context) from `old` to `new`, with `---`/`+++` labels; empty
/// string when equal.
///
/// Empty when equal because diffy would still print the two label lines, which reads as "a
/// change with no lines".
pub fn unified_diff(old: &str, new: &str, old_label: &str, new_label: &str) -> String {
    if old == new {
        return String::new();
    }
    diffy::DiffOptions::new()
        .set_context_len(3)
        .set_original_filename(old_label.to_string())
        .set_modified_filename(new_label.to_string())
        .create_patch(old, new)
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    const CONFLICT: Option<&str> = None;

    /// (what the case shows, base, ours, theirs, merged text or CONFLICT)
    type MergeCase = (
        &'static str,
        Option<&'static str>,
        &'static str,
        &'static str,
        Option<&'static str>,
    );

    fn check_merges(cases: &[MergeCase]) {
        for (name, base, ours, theirs, expected) in cases {
            let expected = match expected {
                Some(text) => Merged::Clean(text.to_string()),
                None => Merged::Conflict,
            };
            assert_eq!(merge_note(*base, ours, theirs), expected, "{name}");
        }
    }

    #[test]
    fn bodies_merge_by_lines() {
        check_merges(&[
            (
                "edits with an unchanged line between them both survive",
                Some("---\ntitle: T\n---\nl1\nl2\nl3\nl4\nl5\n"),
                "---\ntitle: T\n---\nL1\nl2\nl3\nl4\nl5\n",
                "---\ntitle: T\n---\nl1\nl2\nl3\nl4\nL5\n",
                Some("---\ntitle: T\n---\nL1\nl2\nl3\nl4\nL5\n"),
            ),
            (
                "the same line edited differently is a conflict",
                Some("---\ntitle: T\n---\nl1\nl2\nl3\n"),
                "---\ntitle: T\n---\nl1\nours\nl3\n",
                "---\ntitle: T\n---\nl1\ntheirs\nl3\n",
                CONFLICT,
            ),
            (
                "neighbouring lines edited on each side are a conflict, as in git",
                Some("l1\nl2\nl3\nl4\n"),
                "l1\nL2\nl3\nl4\n",
                "l1\nl2\nL3\nl4\n",
                CONFLICT,
            ),
            (
                "lines appended on both sides are all kept, ours first",
                Some("l1\nl2\n"),
                "l1\nl2\nours\n",
                "l1\nl2\ntheirs\nand more\n",
                Some("l1\nl2\nours\ntheirs\nand more\n"),
            ),
            (
                "an append on one side against an edit of the last line on the other conflicts",
                Some("l1\nl2\n"),
                "l1\nl2\nours\n",
                "l1\nL2\n",
                CONFLICT,
            ),
            (
                "the same edit made on both sides is taken once",
                Some("l1\nl2\nl3\nl4\nl5\n"),
                "l1\nX\nl3\nl4\nL5\n",
                "l1\nX\nl3\nl4\nl5\n",
                Some("l1\nX\nl3\nl4\nL5\n"),
            ),
            (
                "a file without front matter merges as plain lines",
                Some("# Title\n\nfirst\n\nmiddle\n\nlast\n"),
                "# Title\n\nfirst, edited\n\nmiddle\n\nlast\n",
                "# Title\n\nfirst\n\nmiddle\n\nlast\nmore\n",
                Some("# Title\n\nfirst, edited\n\nmiddle\n\nlast\nmore\n"),
            ),
            (
                "an append to a file without a final line break does not touch the line above",
                Some("a\nb\nc"),
                "a\nb\nc\nd",
                "a\nB\nc",
                Some("a\nB\nc\nd"),
            ),
            (
                "a final line break added on one side is kept",
                Some("a\nb\nc"),
                "A\nb\nc",
                "a\nb\nc\n",
                Some("A\nb\nc\n"),
            ),
            (
                "a final line break removed on one side stays removed",
                Some("a\nb\nc\n"),
                "A\nb\nc\n",
                "a\nb\nc",
                Some("A\nb\nc"),
            ),
        ]);
    }

    #[test]
    fn front_matter_merges_key_by_key() {
        check_merges(&[
            (
                "a key changed on one side and the body on the other: both, block kept as written",
                Some("---\ntitle: T   # note\nstatus: draft\n---\nl1\nl2\n"),
                "---\ntitle: T   # note\nstatus: done\n---\nl1\nl2\n",
                "---\ntitle: T   # note\nstatus: draft\n---\nl1\nl2\nl3\n",
                Some("---\ntitle: T   # note\nstatus: done\n---\nl1\nl2\nl3\n"),
            ),
            (
                "the same key changed differently is a conflict",
                Some("---\nstatus: draft\n---\nbody\n"),
                "---\nstatus: done\n---\nbody\n",
                "---\nstatus: dropped\n---\nbody\n",
                CONFLICT,
            ),
            (
                "different keys changed on each side are rendered together",
                Some("---\ntitle: T\nstatus: draft\npriority: 1\n---\nbody\n"),
                "---\ntitle: T\nstatus: done\npriority: 1\n---\nbody\n",
                "---\ntitle: T\nstatus: draft\npriority: 2\n---\nbody\n",
                Some("---\ntitle: T\nstatus: done\npriority: 2\n---\nbody\n"),
            ),
            (
                "a key removed on one side is removed",
                Some("---\ntitle: T\nstale: x\n---\nl1\nl2\n"),
                "---\ntitle: T\n---\nl1\nl2\n",
                "---\ntitle: T\nstale: x\n---\nl1\nl2\nl3\n",
                Some("---\ntitle: T\n---\nl1\nl2\nl3\n"),
            ),
            (
                "a key removed on one side and changed on the other is a conflict",
                Some("---\ntitle: T\nstatus: draft\n---\nbody\n"),
                "---\ntitle: T\n---\nbody\n",
                "---\ntitle: T\nstatus: done\n---\nbody\n",
                CONFLICT,
            ),
            (
                "the same key added with different values is a conflict",
                Some("---\ntitle: T\n---\nbody\n"),
                "---\ntitle: T\nstatus: a\n---\nbody\n",
                "---\ntitle: T\nstatus: b\n---\nbody\n",
                CONFLICT,
            ),
            (
                "keys keep ours' order, then the keys only theirs has, in theirs' order",
                Some("---\ntitle: T\ntype: note\n---\nbody\n"),
                "---\ntype: spec\ntitle: T\nmine: 1\n---\nbody\n",
                "---\nz: 2\ntitle: T\ntype: note\nw: 3\n---\nbody\n",
                Some("---\ntype: spec\ntitle: T\nmine: 1\nz: 2\nw: 3\n---\nbody\n"),
            ),
            (
                "a block only reformatted on one side keeps that formatting",
                Some("---\ntags: [a]\n---\nx\n"),
                "---\ntags: [a]\n---\ny\n",
                "---\ntags:\n- a\n---\nx\n",
                Some("---\ntags:\n- a\n---\ny\n"),
            ),
            (
                "front matter added on one side, body edited on the other",
                Some("# Note\n\ntext\n"),
                "# Note\n\ntext, edited\n",
                "---\ntitle: Note\n---\n# Note\n\ntext\n",
                Some("---\ntitle: Note\n---\n# Note\n\ntext, edited\n"),
            ),
            (
                "a body added under a closing fence that ends the file gets its line break",
                Some("---\ntitle: T\n---"),
                "---\ntitle: U\n---",
                "---\ntitle: T\n---\nbody\n",
                Some("---\ntitle: U\n---\nbody\n"),
            ),
            (
                "front matter that does not parse on any side is a conflict",
                Some("---\ntitle: T\n---\nl1\nl2\nl3\n"),
                "---\ntitle: [unclosed\n---\nl1\nl2\nl3\n",
                "---\ntitle: T\n---\nl1\nl2\nL3\n",
                CONFLICT,
            ),
            (
                "front matter that does not parse in the ancestor is a conflict",
                Some("---\ntitle: [unclosed\n---\nl1\nl2\nl3\n"),
                "---\ntitle: T\n---\nl1\nl2\nl3\n",
                "---\ntitle: [unclosed\n---\nl1\nl2\nL3\n",
                CONFLICT,
            ),
        ]);
    }

    #[test]
    fn tags_and_aliases_are_united() {
        check_merges(&[
            (
                "tags added on both sides: ours first, then theirs' new ones",
                Some("---\ntitle: T\ntags:\n- a\n---\nbody\n"),
                "---\ntitle: T\ntags:\n- a\n- b\n---\nbody\n",
                "---\ntitle: T\ntags: [a, c, b]\n---\nbody\n",
                Some("---\ntitle: T\ntags:\n- a\n- b\n- c\n---\nbody\n"),
            ),
            (
                "a tag removed on either side stays removed",
                Some("---\ntags: [a, b, c]\n---\nbody\n"),
                "---\ntags: [a, b, d]\n---\nbody\n",
                "---\ntags: [b, c, e]\n---\nbody\n",
                Some("---\ntags:\n- b\n- d\n- e\n---\nbody\n"),
            ),
            (
                "tags written as a string stay a string",
                Some("---\ntags: a, b\n---\nbody\n"),
                "---\ntags: a, b, c\n---\nbody\n",
                "---\ntags: '#a, b, d'\n---\nbody\n",
                Some("---\ntags: a, b, c, d\n---\nbody\n"),
            ),
            (
                "tags created on both sides",
                Some("---\ntitle: T\n---\nbody\n"),
                "---\ntitle: T\ntags: [x]\n---\nbody\n",
                "---\ntitle: T\ntags: [w]\n---\nbody\n",
                Some("---\ntitle: T\ntags:\n- x\n- w\n---\nbody\n"),
            ),
            (
                "aliases added on both sides; an alias with a comma is one alias",
                Some("---\naliases: [A]\n---\nbody\n"),
                "---\naliases: [A, 'Smith, J']\n---\nbody\n",
                "---\naliases: [A, B]\n---\nbody\n",
                Some("---\naliases:\n- A\n- Smith, J\n- B\n---\nbody\n"),
            ),
            (
                "aliases that are not strings are not guessed at",
                Some("---\naliases: [A]\n---\nbody\n"),
                "---\naliases: [A, {x: 1}]\n---\nbody\n",
                "---\naliases: [A, B]\n---\nbody\n",
                CONFLICT,
            ),
            (
                "other lists changed on both sides are a conflict",
                Some("---\nauthors: [a]\n---\nbody\n"),
                "---\nauthors: [a, b]\n---\nbody\n",
                "---\nauthors: [a, c]\n---\nbody\n",
                CONFLICT,
            ),
        ]);
    }

    #[test]
    fn shortcuts_and_independent_creation() {
        check_merges(&[
            (
                "created on both devices with the same text",
                None,
                "---\ntitle: T\n---\nsame\n",
                "---\ntitle: T\n---\nsame\n",
                Some("---\ntitle: T\n---\nsame\n"),
            ),
            (
                "created on both devices with different texts",
                None,
                "---\ntitle: T\n---\nours\n",
                "---\ntitle: T\n---\ntheirs\n",
                CONFLICT,
            ),
            (
                "created on both devices, even when one side only adds",
                None,
                "l1\n",
                "l1\nl2\n",
                CONFLICT,
            ),
            (
                "only theirs changed: theirs verbatim, even with broken front matter",
                Some("---\ntitle: T\n---\nbody\n"),
                "---\ntitle: T\n---\nbody\n",
                "---\ntitle: [unclosed\n---\nbody\n",
                Some("---\ntitle: [unclosed\n---\nbody\n"),
            ),
            (
                "only ours changed: ours verbatim",
                Some("---\ntitle: T\n---\nbody\n"),
                "---\ntitle:    T\n---\nbody\n",
                "---\ntitle: T\n---\nbody\n",
                Some("---\ntitle:    T\n---\nbody\n"),
            ),
        ]);
    }

    #[test]
    fn crlf_files_survive() {
        check_merges(&[
            (
                "a block taken from one side and a merged body keep their CRLF",
                Some("---\r\ntitle: T\r\n---\r\nl1\r\nl2\r\nl3\r\n"),
                "---\r\ntitle: U\r\n---\r\nl1\r\nl2\r\nl3\r\n",
                "---\r\ntitle: T\r\n---\r\nl1\r\nl2\r\nl3\r\nl4\r\n",
                Some("---\r\ntitle: U\r\n---\r\nl1\r\nl2\r\nl3\r\nl4\r\n"),
            ),
            (
                "a re-rendered block uses CRLF",
                Some("---\r\ntitle: T\r\ntags: [a]\r\n---\r\nbody\r\n"),
                "---\r\ntitle: U\r\ntags: [a]\r\n---\r\nbody\r\n",
                "---\r\ntitle: T\r\ntags: [a, b]\r\n---\r\nbody\r\n",
                Some("---\r\ntitle: U\r\ntags:\r\n- a\r\n- b\r\n---\r\nbody\r\n"),
            ),
            (
                "an append to a CRLF file without a final line break",
                Some("a\r\nb\r\nc"),
                "a\r\nb\r\nc\r\nd",
                "a\r\nB\r\nc",
                Some("a\r\nB\r\nc\r\nd"),
            ),
        ]);
    }

    #[test]
    fn tag_conflict_adds_the_tag_in_the_form_the_note_uses() {
        let cases = [
            (
                "block list",
                "---\ntitle: T\ntags:\n- a\nstatus: x\n---\nbody\n",
                "---\ntitle: T\ntags:\n- a\n- conflict\nstatus: x\n---\nbody\n",
            ),
            (
                "flow list, raw items kept",
                "---\ntags: ['#a', b]\ntitle: T # keep\n---\nbody",
                "---\ntags:\n- '#a'\n- b\n- conflict\ntitle: T # keep\n---\nbody",
            ),
            (
                "comma string",
                "---\ntags: a, b\n---\nbody\n",
                "---\ntags: a, b, conflict\n---\nbody\n",
            ),
            (
                "JSON list in a string becomes a list",
                "---\ntags: '[\"a\", \"b\"]'\n---\nbody\n",
                "---\ntags:\n- a\n- b\n- conflict\n---\nbody\n",
            ),
            (
                "empty tags",
                "---\ntags:\ntitle: T\n---\nbody\n",
                "---\ntags:\n- conflict\ntitle: T\n---\nbody\n",
            ),
            (
                "no tags key",
                "---\ntitle: T\n---\nbody\n",
                "---\ntitle: T\ntags:\n- conflict\n---\nbody\n",
            ),
            (
                "no front matter",
                "# Heading\n\ntext",
                "---\ntags:\n- conflict\n---\n\n# Heading\n\ntext",
            ),
            (
                "CRLF",
                "---\r\ntags: [a]\r\n---\r\nbody\r\n",
                "---\r\ntags:\r\n- a\r\n- conflict\r\n---\r\nbody\r\n",
            ),
        ];
        for (name, text, expected) in cases {
            assert_eq!(tag_conflict(text), expected, "{name}");
        }
    }

    #[test]
    fn tag_conflict_leaves_tagged_or_unreadable_notes_alone() {
        for text in [
            "---\ntags:\n- a\n- conflict\n---\nbody\n",
            "---\ntags: a, conflict\n---\nbody\n",
            "---\ntags: ['#conflict']\n---\nbody\n",
            "---\ntags: [unclosed\n---\nbody\n",
        ] {
            assert_eq!(tag_conflict(text), text);
        }
    }

    #[test]
    fn conflict_paths_sit_next_to_the_note() {
        let time = Utc.with_ymd_and_hms(2026, 11, 23, 22, 53, 0).unwrap();
        let cases = [
            (
                "notes/deep/Name.md",
                "laptop",
                "notes/deep/Name.conflict-laptop-20261123T225300Z.md",
            ),
            (
                "Name.md",
                "laptop",
                "Name.conflict-laptop-20261123T225300Z.md",
            ),
            (
                "v1.2/Release 2.0.md",
                "pc",
                "v1.2/Release 2.0.conflict-pc-20261123T225300Z.md",
            ),
            (
                "v1.2/README",
                "pc",
                "v1.2/README.conflict-pc-20261123T225300Z",
            ),
            (".hidden", "pc", ".hidden.conflict-pc-20261123T225300Z"),
            (
                "a/N.md",
                "Max's MacBook Pro",
                "a/N.conflict-Max-s-MacBook-Pro-20261123T225300Z.md",
            ),
            (
                "a/N.md",
                "../../etc",
                "a/N.conflict-------etc-20261123T225300Z.md",
            ),
            ("a/N.md", "café", "a/N.conflict-caf--20261123T225300Z.md"),
            ("a/N.md", "", "a/N.conflict-device-20261123T225300Z.md"),
        ];
        for (path, device, expected) in cases {
            assert_eq!(
                conflict_path(path, device, time),
                expected,
                "{path} {device:?}"
            );
            assert_eq!(
                conflict_origin(expected).as_deref(),
                Some(path),
                "{expected}"
            );
        }
        for ordinary in [
            "a/N.md",
            "a/N.conflict-notes.md",
            "a/Plans.conflict-of-interest.md",
            "x.conflict-pc-20261123T225300Z/inside.md",
        ] {
            assert_eq!(conflict_origin(ordinary), None, "{ordinary}");
        }
    }

    #[test]
    fn unified_diffs() {
        assert_eq!(unified_diff("same\n", "same\n", "a/x.md", "b/x.md"), "");
        assert_eq!(
            unified_diff("a\nb\nc\n", "a\nB\nc\n", "a/x.md", "b/x.md"),
            "--- a/x.md\n+++ b/x.md\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"
        );
        let old: String = (1..=12).map(|i| format!("{i}\n")).collect();
        let new = old.replace("6\n", "six\n");
        assert_eq!(
            unified_diff(&old, &new, "old", "new"),
            "--- old\n+++ new\n@@ -3,7 +3,7 @@\n 3\n 4\n 5\n-6\n+six\n 7\n 8\n 9\n"
        );
        assert_eq!(
            unified_diff("a\n", "a", "old", "new"),
            "--- old\n+++ new\n@@ -1 +1 @@\n-a\n+a\n\\ No newline at end of file\n"
        );
    }
}
