//! Observations and relations in a note body (compat 4.4 and 4.5).
//!
//! Basic Memory looks at every *inline token* of a CommonMark parse: the text of a paragraph,
//! a heading or a tight list item. pulldown-cmark gives byte offsets, so each inline run is
//! taken as the exact source slice it covers. Code blocks never produce inline runs; inline
//! code spans are blanked out before links are looked for, so `[[x]]` in code is not a link.

use std::ops::Range;
use std::sync::LazyLock;

use pulldown_cmark::{Event, Options, Parser, Tag, TagEnd};
use regex::Regex;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Observation {
    pub category: String,
    pub content: String,
    pub tags: Vec<String>,
    pub context: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Relation {
    pub relation_type: String,
    /// The link text as written (`Target|shown` included), with `proj::x` turned into `proj/x`.
    pub target: String,
    pub context: Option<String>,
}

pub const LINKS_TO: &str = "links_to";

/// One inline run of text, with where it sits.
struct InlineRun {
    range: Range<usize>,
    code_spans: Vec<Range<usize>>,
    md_links: Vec<String>,
    in_blockquote: bool,
    in_list_item: bool,
}

#[derive(Default)]
struct Collector {
    range: Option<Range<usize>>,
    code_spans: Vec<Range<usize>>,
    md_links: Vec<String>,
}

impl Collector {
    fn extend(&mut self, r: &Range<usize>) {
        self.range = Some(match self.range.take() {
            Some(cur) => cur.start.min(r.start)..cur.end.max(r.end),
            None => r.clone(),
        });
    }
}

fn is_block(tag: &Tag) -> bool {
    !matches!(
        tag,
        Tag::Emphasis
            | Tag::Strong
            | Tag::Strikethrough
            | Tag::Superscript
            | Tag::Subscript
            | Tag::Link { .. }
            | Tag::Image { .. }
    )
}

fn is_block_end(tag: &TagEnd) -> bool {
    !matches!(
        tag,
        TagEnd::Emphasis
            | TagEnd::Strong
            | TagEnd::Strikethrough
            | TagEnd::Superscript
            | TagEnd::Subscript
            | TagEnd::Link
            | TagEnd::Image
    )
}

fn inline_runs(body: &str) -> Vec<InlineRun> {
    let mut runs = Vec::new();
    let mut stack: Vec<Collector> = Vec::new();
    let mut blockquote_depth = 0usize;
    let mut in_list_item = false;

    let flush = |c: &mut Collector, runs: &mut Vec<InlineRun>, bq: usize, li: bool| {
        if let Some(range) = c.range.take() {
            runs.push(InlineRun {
                range,
                code_spans: std::mem::take(&mut c.code_spans),
                md_links: std::mem::take(&mut c.md_links),
                in_blockquote: bq > 0,
                in_list_item: li,
            });
        }
    };

    for (event, range) in Parser::new_ext(body, Options::empty()).into_offset_iter() {
        match event {
            Event::Start(tag) if is_block(&tag) => {
                // A block inside a list item ends the item's own inline run.
                if let Some(top) = stack.last_mut() {
                    flush(top, &mut runs, blockquote_depth, in_list_item);
                }
                match tag {
                    Tag::BlockQuote(_) => blockquote_depth += 1,
                    Tag::Item => in_list_item = true,
                    _ => {}
                }
                if matches!(tag, Tag::Paragraph | Tag::Heading { .. } | Tag::Item) {
                    stack.push(Collector::default());
                }
            }
            Event::End(tag) if is_block_end(&tag) => {
                if matches!(tag, TagEnd::Paragraph | TagEnd::Heading(_) | TagEnd::Item) {
                    if let Some(mut top) = stack.pop() {
                        flush(&mut top, &mut runs, blockquote_depth, in_list_item);
                    }
                }
                match tag {
                    TagEnd::BlockQuote(_) => blockquote_depth = blockquote_depth.saturating_sub(1),
                    TagEnd::Item => in_list_item = false,
                    _ => {}
                }
            }
            other => {
                let Some(top) = stack.last_mut() else {
                    continue;
                };
                match &other {
                    Event::Code(_) => top.code_spans.push(range.clone()),
                    Event::Start(Tag::Link { dest_url, .. }) => {
                        top.md_links.push(dest_url.to_string())
                    }
                    _ => {}
                }
                top.extend(&range);
            }
        }
    }
    runs
}

static MARKDOWN_LINK_ONLY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\[.*?\]\(.*?\)$").unwrap());
static WIKILINK_ONLY: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\[\[.*?\]\]$").unwrap());
static CATEGORY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^\[([^\[\]()]+)\]\s+(.+)").unwrap());
static EMPTY_CATEGORY: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"^\[\]\s+(.+)").unwrap());
static TIMECODE: LazyLock<Regex> = LazyLock::new(|| {
    let t = r"\d{1,3}:\d{2}(?::\d{2})?(?:[.,]\d{1,3})?";
    Regex::new(&format!(r"^{t}(?:\s+-\s+{t})?$")).unwrap()
});

fn is_task_marker_or_timecode(category: &str) -> bool {
    let mut chars = category.chars();
    let single = match (chars.next(), chars.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    };
    TIMECODE.is_match(category)
        || single.is_some_and(|c| !c.is_alphanumeric() || c == 'x' || c == 'X')
}

/// Parses one inline text as an observation, if it is one (compat 4.4 rules 1–7).
pub fn parse_observation(text: &str) -> Option<Observation> {
    let c = text.trim();
    if c.is_empty()
        || c.starts_with("[ ]")
        || c.starts_with("[x]")
        || c.starts_with("[-]")
        || MARKDOWN_LINK_ONLY.is_match(c)
        || WIKILINK_ONLY.is_match(c)
    {
        return None;
    }
    let category_match = CATEGORY
        .captures(c)
        .filter(|caps| !is_task_marker_or_timecode(caps[1].trim()));
    let has_hashtag = c.split_whitespace().any(|w| w.starts_with('#'));
    if category_match.is_none() && !has_hashtag {
        return None;
    }
    let (category, mut content) = match &category_match {
        Some(caps) => (caps[1].trim().to_string(), caps[2].trim().to_string()),
        None => match EMPTY_CATEGORY.captures(c) {
            Some(caps) => ("note".to_string(), caps[1].trim().to_string()),
            None => ("note".to_string(), c.to_string()),
        },
    };
    let mut context = None;
    if content.ends_with(')') {
        if let Some(open) = content.rfind('(') {
            let inner = content[open + 1..content.len() - 1].trim().to_string();
            content = content[..open].trim().to_string();
            context = Some(inner);
        }
    }
    if content.is_empty() {
        return None;
    }
    let tags = hashtags(&content);
    Some(Observation {
        category,
        content,
        tags,
        context,
    })
}

fn hashtags(content: &str) -> Vec<String> {
    let mut tags = Vec::new();
    for word in content.split_whitespace() {
        let Some(rest) = word.strip_prefix('#') else {
            continue;
        };
        if rest.contains('#') {
            tags.extend(rest.split('#').filter(|p| !p.is_empty()).map(String::from));
        } else if !rest.is_empty() {
            tags.push(rest.to_string());
        }
    }
    tags
}

pub(super) fn normalize_target(target: &str) -> String {
    target.trim().replace("::", "/")
}

/// An explicit relation: a list item `type [[Target]] (context)` (compat 4.5).
pub fn explicit_relation(c: &str) -> Option<Relation> {
    let open = c.find("[[")?;
    let before = c[..open].trim();
    if before.is_empty() {
        return None;
    }
    let relation_type = match before.chars().next() {
        Some(q @ ('"' | '\'')) if before.len() >= 2 && before.ends_with(q) => {
            let inner = before[1..before.len() - 1].trim();
            if inner.is_empty() {
                return None;
            }
            inner.to_string()
        }
        _ if before.contains(char::is_whitespace) => return None,
        _ => before.to_string(),
    };
    let after_open = &c[open + 2..];
    let close = after_open.find("]]")?;
    let target = normalize_target(&after_open[..close]);
    if target.is_empty() {
        return None;
    }
    let tail = after_open[close + 2..].trim();
    let context = if tail.is_empty() {
        None
    } else {
        let inner = single_parenthesised_group(tail)?;
        Some(inner.trim().to_string()).filter(|s| !s.is_empty())
    };
    Some(Relation {
        relation_type,
        target,
        context,
    })
}

/// `(…)` with balanced parentheses that close only at the very end.
fn single_parenthesised_group(s: &str) -> Option<&str> {
    let inner = s.strip_prefix('(')?.strip_suffix(')')?;
    let mut depth = 1i32;
    for ch in inner.chars() {
        match ch {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return None;
                }
            }
            _ => {}
        }
    }
    (depth == 1).then_some(inner)
}

/// Every `[[…]]` in `text`, matching nested brackets, left to right.
fn inline_wikilinks(text: &str) -> Vec<String> {
    let mut targets = Vec::new();
    let mut pos = 0;
    while let Some(found) = text[pos..].find("[[") {
        let start = pos + found + 2;
        let mut depth = 1;
        let mut i = start;
        let bytes = text.as_bytes();
        let mut end = None;
        while i < bytes.len() {
            if bytes[i..].starts_with(b"[[") {
                depth += 1;
                i += 2;
            } else if bytes[i..].starts_with(b"]]") {
                depth -= 1;
                if depth == 0 {
                    end = Some(i);
                    break;
                }
                i += 2;
            } else {
                i += 1;
            }
        }
        let Some(end) = end else {
            break;
        };
        let target = normalize_target(&text[start..end]);
        if !target.is_empty() {
            targets.push(target);
        }
        pos = end + 2;
    }
    targets
}

/// A markdown link destination that points at a note: a relative `.md` path.
fn markdown_note_link(dest: &str, source_dir: &str) -> Option<String> {
    if dest.contains("://") || dest.starts_with("mailto:") || dest.starts_with('#') {
        return None;
    }
    let path = dest.split(['#', '?']).next().unwrap_or(dest);
    let decoded = percent_decode(path);
    if !decoded.to_ascii_lowercase().ends_with(".md") {
        return None;
    }
    let joined = if let Some(absolute) = decoded.strip_prefix('/') {
        absolute.to_string()
    } else if source_dir.is_empty() {
        decoded
    } else {
        format!("{source_dir}/{decoded}")
    };
    let mut parts: Vec<&str> = Vec::new();
    for segment in joined.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                parts.pop()?;
            }
            s => parts.push(s),
        }
    }
    Some(parts.join("/"))
}

/// Decodes `%XX` escapes (invalid ones stay as they are).
pub fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = |b: u8| (b as char).to_digit(16);
            if let (Some(hi), Some(lo)) = (hex(bytes[i + 1]), hex(bytes[i + 2])) {
                out.push((hi * 16 + lo) as u8);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| s.to_string())
}

fn blank_out(text: &str, base: usize, spans: &[Range<usize>]) -> String {
    let mut bytes = text.as_bytes().to_vec();
    for span in spans {
        let start = span.start.saturating_sub(base).min(bytes.len());
        let end = span.end.saturating_sub(base).min(bytes.len());
        bytes[start..end].fill(b' ');
    }
    // Only whole code spans (which start and end on char boundaries) were replaced.
    String::from_utf8(bytes).unwrap_or_else(|_| text.to_string())
}

/// The text of a body's headings (ATX and setext, not inside code), in order: what search
/// weighs above the body, since a heading names what its section is about.
pub fn headings(body: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut current: Option<String> = None;
    for event in Parser::new_ext(body, Options::empty()) {
        match event {
            Event::Start(Tag::Heading { .. }) => current = Some(String::new()),
            Event::End(TagEnd::Heading(_)) => {
                if let Some(text) = current.take() {
                    let text = text.trim().to_string();
                    if !text.is_empty() {
                        found.push(text);
                    }
                }
            }
            Event::Text(t) | Event::Code(t) => {
                if let Some(text) = current.as_mut() {
                    text.push_str(&t);
                }
            }
            _ => {}
        }
    }
    found
}

/// Observations and relations of a note body. `source_dir` is the note's folder in the project,
/// used to resolve relative markdown links.
pub fn parse_body(body: &str, source_dir: &str) -> (Vec<Observation>, Vec<Relation>) {
    let mut observations = Vec::new();
    let mut relations: Vec<Relation> = Vec::new();
    let mut push_relation = |rel: Relation| {
        let duplicate = relations
            .iter()
            .any(|r| r.relation_type == rel.relation_type && r.target == rel.target);
        if !duplicate {
            relations.push(rel);
        }
    };
    for run in inline_runs(body) {
        let text = &body[run.range.clone()];
        if !run.in_blockquote {
            if let Some(obs) = parse_observation(text) {
                observations.push(obs);
            }
        }
        let linkable = blank_out(text, run.range.start, &run.code_spans);
        let explicit = if run.in_list_item {
            explicit_relation(linkable.trim())
        } else {
            None
        };
        match explicit {
            Some(rel) => push_relation(rel),
            None => {
                for target in inline_wikilinks(&linkable) {
                    push_relation(Relation {
                        relation_type: LINKS_TO.to_string(),
                        target,
                        context: None,
                    });
                }
            }
        }
        for dest in &run.md_links {
            if let Some(target) = markdown_note_link(dest, source_dir) {
                push_relation(Relation {
                    relation_type: LINKS_TO.to_string(),
                    target,
                    context: None,
                });
            }
        }
    }
    (observations, relations)
}

/// The part of a link target used to find the note: `A|shown` -> `A`, `A#Heading` -> `A`.
pub fn link_lookup_text(target: &str) -> &str {
    let target = target.split('|').next().unwrap_or(target);
    let target = target.split('#').next().unwrap_or(target);
    target.trim()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percent_escapes_are_decoded_and_invalid_ones_kept() {
        for (encoded, decoded) in [
            ("a%20b", "a b"),
            ("caf%C3%A9", "café"),
            ("100%", "100%"),
            ("%zz", "%zz"),
            ("%4", "%4"),
            ("a+b", "a+b"),
        ] {
            assert_eq!(percent_decode(encoded), decoded, "{encoded}");
        }
    }

    #[test]
    fn headings_are_the_texts_of_real_headings() {
        let cases: &[(&str, &[&str])] = &[
            ("# One\ntext\n## Two `code`\n", &["One", "Two code"]),
            ("Setext\n======\n", &["Setext"]),
            ("```\n# not a heading\n```\n# Real", &["Real"]),
            ("#hashtag is not a heading\n", &[]),
            ("# [[Linked]] title\n", &["[[Linked]] title"]),
            ("#\n", &[]),
        ];
        for (body, want) in cases {
            assert_eq!(headings(body), *want, "{body:?}");
        }
    }

    fn obs(category: &str, content: &str, tags: &[&str], context: Option<&str>) -> Observation {
        Observation {
            category: category.into(),
            content: content.into(),
            tags: tags.iter().map(|s| s.to_string()).collect(),
            context: context.map(String::from),
        }
    }

    fn rel(t: &str, target: &str, context: Option<&str>) -> Relation {
        Relation {
            relation_type: t.into(),
            target: target.into(),
            context: context.map(String::from),
        }
    }

    #[test]
    fn observation_lines() {
        let cases: Vec<(&str, Option<Observation>)> = vec![
            (
                "- [tech] Uses SQLite FTS5 #search #db (fast enough)",
                Some(obs(
                    "tech",
                    "Uses SQLite FTS5 #search #db",
                    &["search", "db"],
                    Some("fast enough"),
                )),
            ),
            (
                "- plain bullet with #tag",
                Some(obs("note", "plain bullet with #tag", &["tag"], None)),
            ),
            (
                "- [complex test] This is #tag1#tag2 with #tag3 content",
                Some(obs(
                    "complex test",
                    "This is #tag1#tag2 with #tag3 content",
                    &["tag1", "tag2", "tag3"],
                    None,
                )),
            ),
            ("- [] Empty category", None),
            (
                "- [] Empty category #t",
                Some(obs("note", "Empty category #t", &["t"], None)),
            ),
            (
                "- [2024] year in review",
                Some(obs("2024", "year in review", &[], None)),
            ),
            (
                "- [10:30am] standup",
                Some(obs("10:30am", "standup", &[], None)),
            ),
            ("- [00:00:11] Speaker: hi", None),
            ("- [1:02.5 - 1:03.0] Speaker: hi", None),
            ("- [x] done", None),
            ("- [X] done", None),
            ("- [ ] open task", None),
            ("- [-] cancelled", None),
            ("- [/] in progress", None),
            ("- [>] deferred", None),
            ("- [?] question", None),
            ("- [!] important", None),
            (
                "- [/] in progress #wip",
                Some(obs("note", "[/] in progress #wip", &["wip"], None)),
            ),
            ("> [!info] Callout", None),
            ("> - [fact] quoted #x", None),
            (
                "Issue #123 fixed",
                Some(obs("note", "Issue #123 fixed", &["123"], None)),
            ),
            ("## [design] Title", Some(obs("design", "Title", &[], None))),
            (
                "- [test] Content (with) extra) parens)",
                Some(obs("test", "Content", &[], Some("with) extra) parens"))),
            ),
            (
                "- [test] Unclosed (context",
                Some(obs("test", "Unclosed (context", &[], None)),
            ),
            (
                "- [test] ends with no open paren)",
                Some(obs("test", "ends with no open paren)", &[], None)),
            ),
            (
                "- [tag] keeps punctuation #db,",
                Some(obs("tag", "keeps punctuation #db,", &["db,"], None)),
            ),
            ("- [[Target]]", None),
            ("- [link](other.md)", None),
            ("- [idea] (only context)", None),
            ("plain paragraph", None),
            (
                "- [fact] first line\n  second line",
                Some(obs("fact", "first line", &[], None)),
            ),
            (
                "- [decision] Use [[X]] for storage",
                Some(obs("decision", "Use [[X]] for storage", &[], None)),
            ),
            ("```\n- [tech] in code #x\n```", None),
            ("    - [tech] indented code #x", None),
            (
                "- [ fact ] spaced category",
                Some(obs("fact", "spaced category", &[], None)),
            ),
            (
                "- [tech] `#include` is code",
                Some(obs("tech", "`#include` is code", &[], None)),
            ),
        ];
        for (input, expected) in cases {
            let (observations, _) = parse_body(input, "");
            assert_eq!(observations.first().cloned(), expected, "input {input:?}");
            assert!(observations.len() <= 1, "input {input:?}");
        }
    }

    #[test]
    fn duplicate_observations_are_kept() {
        let (observations, _) = parse_body("- [a] same\n- [a] same\n", "");
        assert_eq!(observations.len(), 2);
    }

    #[test]
    fn relation_lines() {
        let cases: Vec<(&str, Vec<Relation>)> = vec![
            (
                "- implements [[Search UI]]",
                vec![rel("implements", "Search UI", None)],
            ),
            (
                "- depends_on [[Database Schema]] (storage)",
                vec![rel("depends_on", "Database Schema", Some("storage"))],
            ),
            (
                "- \"based on\" [[Prior Art]]",
                vec![rel("based on", "Prior Art", None)],
            ),
            (
                "- 'contrasts with' [[Tea]]",
                vec![rel("contrasts with", "Tea", None)],
            ),
            (
                "- \"\" [[Empty Type]]",
                vec![rel(LINKS_TO, "Empty Type", None)],
            ),
            ("- part-of [[X]] ()", vec![rel("part-of", "X", None)]),
            (
                "- part_of [[X]] trailing words",
                vec![rel(LINKS_TO, "X", None)],
            ),
            (
                "- part_of [[X]] (a (nested) ctx)",
                vec![rel("part_of", "X", Some("a (nested) ctx"))],
            ),
            ("- part_of [[X]] (a) (b)", vec![rel(LINKS_TO, "X", None)]),
            ("- [[Target]]", vec![rel(LINKS_TO, "Target", None)]),
            (
                "- some other thing [[Target]]",
                vec![rel(LINKS_TO, "Target", None)],
            ),
            (
                "- Added [[A]] to [[B]]",
                vec![rel(LINKS_TO, "A", None), rel(LINKS_TO, "B", None)],
            ),
            (
                "See also [[Coffee Notes]] and [[Search UI]].",
                vec![
                    rel(LINKS_TO, "Coffee Notes", None),
                    rel(LINKS_TO, "Search UI", None),
                ],
            ),
            (
                "- [decision] Use [[X]] for storage",
                vec![rel(LINKS_TO, "X", None)],
            ),
            ("- [tech] [[X]]", vec![rel("[tech]", "X", None)]),
            (
                "[[Target|Alias]]",
                vec![rel(LINKS_TO, "Target|Alias", None)],
            ),
            ("See [[A#Heading]].", vec![rel(LINKS_TO, "A#Heading", None)]),
            (
                "An embed ![[Diagram]] here",
                vec![rel(LINKS_TO, "Diagram", None)],
            ),
            (
                "- relates_to [[proj::Note]]",
                vec![rel("relates_to", "proj/Note", None)],
            ),
            ("> quoted [[Q]]", vec![rel(LINKS_TO, "Q", None)]),
            ("> - implements [[Q]]", vec![rel("implements", "Q", None)]),
            (
                "Nested [[a [[b]] c]] link",
                vec![rel(LINKS_TO, "a [[b]] c", None)],
            ),
            ("Unclosed [[a and [[b]]", vec![]),
            ("[[ ]] empty", vec![]),
            ("Code `[[not a link]]` here", vec![]),
            (
                "```rust\nfn main() { println!(\"[[not a link]]\"); }\n```",
                vec![],
            ),
            (
                "- relates_to [[X]]\n- relates_to [[X]]",
                vec![rel("relates_to", "X", None)],
            ),
            (
                "- relates_to [[X]]\n- links [[X]]",
                vec![rel("relates_to", "X", None), rel("links", "X", None)],
            ),
            (
                "A [markdown link](Other%20Note.md) and [web](https://x.io/a.md)",
                vec![rel(LINKS_TO, "notes/Other Note.md", None)],
            ),
            (
                "[up](../specs/Spec.md#part)",
                vec![rel(LINKS_TO, "specs/Spec.md", None)],
            ),
            ("[not a note](image.png)", vec![]),
            ("# Heading with [[Link]]", vec![rel(LINKS_TO, "Link", None)]),
        ];
        for (input, expected) in cases {
            let (_, relations) = parse_body(input, "notes");
            assert_eq!(relations, expected, "input {input:?}");
        }
    }

    #[test]
    fn compat_item_7_relation_body() {
        let body = "- implements [[Search UI]]\n- depends_on [[DB Schema]] (storage)\n- \"based on\" [[Prior Art]]\n- Added [[A]] to [[B]]\nSee also [[C]].";
        let (_, relations) = parse_body(body, "");
        let got: Vec<_> = relations
            .iter()
            .map(|r| {
                (
                    r.relation_type.as_str(),
                    r.target.as_str(),
                    r.context.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            got,
            vec![
                ("implements", "Search UI", None),
                ("depends_on", "DB Schema", Some("storage")),
                ("based on", "Prior Art", None),
                (LINKS_TO, "A", None),
                (LINKS_TO, "B", None),
                (LINKS_TO, "C", None),
            ]
        );
    }

    #[test]
    fn compat_item_6_observation_body() {
        let body = "- [tech] Uses SQLite FTS5 #search #db (fast enough)\n- plain bullet with #tag\n- [x] done task\n- [00:00:11] Speaker: hi\n\n> [!info] callout\n";
        let (observations, _) = parse_body(body, "");
        let got: Vec<_> = observations
            .iter()
            .map(|o| (o.category.as_str(), o.content.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("tech", "Uses SQLite FTS5 #search #db"),
                ("note", "plain bullet with #tag")
            ]
        );
    }

    #[test]
    fn nested_list_items_are_separate_runs() {
        let body = "- [parent] top line\n  - [child] nested #n\n- relates_to [[Z]]";
        let (observations, relations) = parse_body(body, "");
        let cats: Vec<_> = observations.iter().map(|o| o.category.as_str()).collect();
        assert_eq!(cats, ["parent", "child"]);
        assert_eq!(relations, vec![rel("relates_to", "Z", None)]);
    }

    #[test]
    fn lookup_text_drops_alias_and_heading() {
        assert_eq!(link_lookup_text("A|shown"), "A");
        assert_eq!(link_lookup_text("A#Heading"), "A");
        assert_eq!(link_lookup_text(" A#H|x "), "A");
    }
}
