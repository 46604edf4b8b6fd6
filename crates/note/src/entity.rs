//! The official memory server's knowledge graph written as notes: an entity is a note titled
//! by its name, an observation a `- [note] ...` list item, a relation a `- type [[To]]` list
//! item. The graph tools and the memory-json importer write these lines; the graph tools read
//! them back through the parser, so a graph client and a Basic Memory client see one note.

use std::collections::HashSet;

use super::parse::{
    explicit_relation, link_lookup_text, normalize_target, parse_observation, Observation, Relation,
};

/// The category a plain observation gets, and the one read back without a `[category]`.
const PLAIN: &str = "note";

/// An observation as the graph shows it: its text, prefixed `[category] ` unless the category
/// is the plain one, with its `(context)` kept.
pub fn observation_text(observation: &Observation) -> String {
    let mut text = if observation.category.eq_ignore_ascii_case(PLAIN) {
        observation.content.clone()
    } else {
        format!("[{}] {}", observation.category, observation.content)
    };
    if let Some(context) = &observation.context {
        text.push_str(&format!(" ({context})"));
    }
    text
}

/// The list item of an observation: one line (a line break would end the item), a
/// `[category]` the text already names is kept.
pub fn observation_line(observation: &str) -> String {
    let one_line = observation.split_whitespace().collect::<Vec<_>>().join(" ");
    match parse_observation(&one_line) {
        Some(parsed) if one_line.starts_with('[') && parsed.category != PLAIN => {
            format!("- {one_line}")
        }
        _ => format!("- [{PLAIN}] {one_line}"),
    }
}

/// An observation string as it reads back once written: what add and delete compare.
pub fn normalized_observation(observation: &str) -> String {
    let line = observation_line(observation);
    parse_observation(&line[2..])
        .map(|parsed| observation_text(&parsed))
        .unwrap_or_else(|| line[2..].to_string())
}

/// The list item of a relation; a type with spaces is quoted so it still parses as one.
pub fn relation_line(relation_type: &str, to: &str) -> String {
    let relation_type = relation_type
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let to = to.split_whitespace().collect::<Vec<_>>().join(" ");
    if relation_type.contains(' ') {
        format!("- \"{relation_type}\" [[{to}]]")
    } else {
        format!("- {relation_type} [[{to}]]")
    }
}

/// The body of an entity's note, as Basic Memory's memory-json import writes it: the name as
/// H1, then the observations and relations, without a blank line between.
pub fn entity_body<'a>(
    name: &str,
    observations: impl IntoIterator<Item = &'a str>,
    relations: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> String {
    let mut body = format!("# {name}\n");
    for observation in observations {
        body.push_str(&observation_line(observation));
        body.push('\n');
    }
    for (relation_type, to) in relations {
        body.push_str(&relation_line(relation_type, to));
        body.push('\n');
    }
    body
}

/// `text` with `lines` appended at its end, each on its own line.
pub fn append_lines(text: &str, lines: &[String]) -> String {
    let mut out = text.to_string();
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    for line in lines {
        out.push_str(line);
        out.push('\n');
    }
    out
}

/// What a list item of a note's body is, for removing it.
pub enum Item {
    Observation(Observation),
    Relation(Relation),
}

/// The lines of `text`, each with its line ending and whether an edit of list items or links
/// may touch it: front matter and fenced code may not.
fn body_lines(text: &str) -> Vec<(&str, bool)> {
    let body_start = super::frontmatter::locate(text).map_or(0, |block| block.body_start);
    let mut lines = vec![(&text[..body_start], false)];
    let mut fence: Option<&str> = None;
    for line in text[body_start..].split_inclusive('\n') {
        let trimmed = line.trim();
        if let Some(marker) = fence {
            if trimmed.starts_with(marker) {
                fence = None;
            }
            lines.push((line, false));
        } else if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            fence = Some(&trimmed[..3]);
            lines.push((line, false));
        } else {
            lines.push((line, true));
        }
    }
    lines
}

/// `text` without the list items of its body that `remove` picks (front matter and code
/// blocks are left alone), and how many went.
pub fn remove_items(text: &str, remove: impl Fn(&Item) -> bool) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut removed = 0;
    for (line, editable) in body_lines(text) {
        let trimmed = line.trim();
        let item = trimmed
            .strip_prefix("- ")
            .or_else(|| trimmed.strip_prefix("* "))
            .or_else(|| trimmed.strip_prefix("+ "))
            .filter(|_| editable)
            .and_then(|rest| {
                explicit_relation(rest)
                    .map(Item::Relation)
                    .or_else(|| parse_observation(rest).map(Item::Observation))
            });
        match item {
            Some(item) if remove(&item) => removed += 1,
            _ => out.push_str(line),
        }
    }
    (out, removed)
}

/// `text` with every `[[link]]` whose target (the part before `#` or `|`, as the parser reads
/// it) is one of `targets` pointing to `to` instead, heading and alias kept; and how many
/// links changed. Front matter, fenced code and inline code are left alone.
pub fn retarget_links(text: &str, targets: &HashSet<String>, to: &str) -> (String, usize) {
    let mut out = String::with_capacity(text.len());
    let mut changed = 0;
    for (line, editable) in body_lines(text) {
        if !editable {
            out.push_str(line);
            continue;
        }
        let mut done = 0;
        while let Some(open) = line[done..].find("[[").map(|at| done + at) {
            let in_code = line[..open].matches('`').count() % 2 == 1;
            let Some(close) = line[open + 2..].find("]]").map(|at| open + 2 + at) else {
                break;
            };
            let inner = &line[open + 2..close];
            out.push_str(&line[done..open + 2]);
            if !in_code && targets.contains(link_lookup_text(&normalize_target(inner))) {
                let suffix = inner.find(['#', '|']).map_or("", |at| &inner[at..]);
                out.push_str(to);
                out.push_str(suffix);
                changed += 1;
            } else {
                out.push_str(inner);
            }
            done = close;
        }
        out.push_str(&line[done..]);
    }
    (out, changed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observations_are_written_and_read_back_as_the_graph_gave_them() {
        let cases = [
            ("Works at Acme", "- [note] Works at Acme", "Works at Acme"),
            (
                "Speaks Spanish (fluent)",
                "- [note] Speaks Spanish (fluent)",
                "Speaks Spanish (fluent)",
            ),
            ("[idea] Try tea", "- [idea] Try tea", "[idea] Try tea"),
            ("two\nlines", "- [note] two lines", "two lines"),
            ("Likes #tea", "- [note] Likes #tea", "Likes #tea"),
            (
                "[ ] not a category",
                "- [note] [ ] not a category",
                "[ ] not a category",
            ),
        ];
        for (given, line, back) in cases {
            assert_eq!(observation_line(given), line, "{given}");
            assert_eq!(normalized_observation(given), back, "{given}");
        }
    }

    #[test]
    fn relation_types_with_spaces_are_quoted_so_they_still_parse() {
        assert_eq!(relation_line("works_at", "Acme"), "- works_at [[Acme]]");
        let line = relation_line("works at", "Acme Corp");
        assert_eq!(line, "- \"works at\" [[Acme Corp]]");
        let parsed = explicit_relation(&line[2..]).unwrap();
        assert_eq!(
            (parsed.relation_type.as_str(), parsed.target.as_str()),
            ("works at", "Acme Corp")
        );
    }

    #[test]
    fn an_entity_body_is_what_basic_memorys_import_writes() {
        let body = entity_body("Alice", ["Likes tea"], [("works_at", "Acme")]);
        assert_eq!(body, "# Alice\n- [note] Likes tea\n- works_at [[Acme]]\n");
    }

    #[test]
    fn removing_items_leaves_front_matter_code_and_other_lines_alone() {
        let text = "---\ntitle: A\n---\n\n# A\n- [note] keep\n- [note] drop\n```\n- [note] drop\n```\n- knows [[B]]\n";
        let (out, n) = remove_items(text, |item| match item {
            Item::Observation(o) => o.content == "drop",
            Item::Relation(r) => r.target == "B",
        });
        assert_eq!(n, 2);
        assert_eq!(
            out,
            "---\ntitle: A\n---\n\n# A\n- [note] keep\n```\n- [note] drop\n```\n"
        );
    }

    #[test]
    fn links_to_a_merged_entity_point_to_its_target_outside_code() {
        let targets = HashSet::from(["Bob".to_string(), "people/bob".to_string()]);
        let cases = [
            ("- knows [[Bob]]\n", "- knows [[Robert]]\n", 1),
            (
                "see [[Bob|him]] and [[Bob#Work]]\n",
                "see [[Robert|him]] and [[Robert#Work]]\n",
                2,
            ),
            ("[[people::bob]] [[Bobby]]\n", "[[Robert]] [[Bobby]]\n", 1),
            ("`[[Bob]]` [[Bob]]\n", "`[[Bob]]` [[Robert]]\n", 1),
            ("```\n[[Bob]]\n```\n", "```\n[[Bob]]\n```\n", 0),
            (
                "---\nup: \"[[Bob]]\"\n---\n[[Bob]]",
                "---\nup: \"[[Bob]]\"\n---\n[[Robert]]",
                1,
            ),
            ("unclosed [[Bob\n", "unclosed [[Bob\n", 0),
        ];
        for (text, expected, count) in cases {
            assert_eq!(
                retarget_links(text, &targets, "Robert"),
                (expected.to_string(), count),
                "{text}"
            );
        }
    }
}
