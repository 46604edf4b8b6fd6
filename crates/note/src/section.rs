//! The sections edit_note works on: a header found outside front matter and fenced code, and
//! its section (the lines up to the next heading of its level or above, or up to any heading
//! when subsections are kept), replaced or written around.

use super::frontmatter;
use super::markdown::{fenced_flags, heading_level, BOM};

/// A section given without `#` means a level-2 heading.
pub(super) fn normalize_header(section: &str) -> String {
    let section = section.trim();
    if section.starts_with('#') {
        section.to_string()
    } else {
        format!("## {section}")
    }
}

/// Lines of `text` that can be headings: not front matter, not inside fenced code.
fn heading_candidates(lines: &[&str], text: &str) -> Vec<bool> {
    let body_start = frontmatter::locate(text).map_or(0, |block| block.body_start);
    let mut offset = 0;
    let mut first_body_line = lines.len();
    for (index, line) in lines.iter().enumerate() {
        if offset >= body_start {
            first_body_line = index;
            break;
        }
        offset += line.len() + 1;
    }
    fenced_flags(lines, first_body_line)
        .into_iter()
        .map(|fenced| !fenced)
        .collect()
}

/// Indices of the lines that are the section header.
fn find_header(lines: &[&str], candidates: &[bool], header: &str) -> Vec<usize> {
    let header = header.trim();
    lines
        .iter()
        .enumerate()
        .filter(|(index, line)| {
            candidates[*index] && line.strip_prefix(BOM).unwrap_or(line).trim() == header
        })
        .map(|(index, _)| index)
        .collect()
}

/// Why an edit found no single heading to work at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Unmatched {
    Missing,
    Duplicate,
}

pub(super) fn replace_section(
    text: &str,
    header: &str,
    content: &str,
    replace_subsections: bool,
) -> Result<String, Unmatched> {
    let mut content = content;
    let lead = content.trim_start();
    let (first, rest) = lead.split_once('\n').unwrap_or((lead, ""));
    if first.trim() == header.trim() {
        content = rest.trim_start();
    }
    let lines: Vec<&str> = text.split('\n').collect();
    let candidates = heading_candidates(&lines, text);
    let matches = find_header(&lines, &candidates, header);
    if matches.len() > 1 {
        return Err(Unmatched::Duplicate);
    }
    // A replacement must name content that is there (Basic Memory 0.24): a heading that is
    // not is most often a mistyped one, and appending would leave the old section beside it.
    let Some(&index) = matches.first() else {
        return Err(Unmatched::Missing);
    };
    let target = header.len() - header.trim_start_matches('#').len();
    let end = (index + 1..lines.len())
        .find(|&i| {
            candidates[i]
                && heading_level(lines[i]).is_some_and(|l| !replace_subsections || l <= target)
        })
        .unwrap_or(lines.len());
    let mut out: Vec<&str> = lines[..=index].to_vec();
    out.push(content);
    out.extend_from_slice(&lines[end..]);
    Ok(out.join("\n"))
}

pub(super) fn insert_relative(
    text: &str,
    header: &str,
    content: &str,
    before: bool,
) -> Result<String, Unmatched> {
    let lines: Vec<&str> = text.split('\n').collect();
    let candidates = heading_candidates(&lines, text);
    let matches = find_header(&lines, &candidates, header);
    let index = match matches.as_slice() {
        [] => return Err(Unmatched::Missing),
        [index] => *index,
        _ => return Err(Unmatched::Duplicate),
    };
    let inserted = content.trim_end_matches('\n').split('\n');
    let mut out: Vec<&str> = Vec::with_capacity(lines.len() + 4);
    if before {
        out.extend_from_slice(&lines[..index]);
        if out.last().is_some_and(|l| !l.trim().is_empty()) {
            out.push("");
        }
        out.extend(inserted);
        out.push("");
        out.extend_from_slice(&lines[index..]);
    } else {
        out.extend_from_slice(&lines[..=index]);
        out.extend(inserted);
        let after = &lines[index + 1..];
        if after.first().is_some_and(|l| !l.trim().is_empty()) {
            out.push("");
        }
        out.extend_from_slice(after);
    }
    Ok(out.join("\n"))
}

/// A section `cat` could not find.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SectionError {
    #[error("section '{0}' not found")]
    NotFound(String),
    #[error("section '{section}' matches {count} headings; name it by its parent ('Parent/{section}') or by position ('{section}[0]' to '{section}[{last}]')", last = .count - 1)]
    Ambiguous { section: String, count: usize },
    #[error("section '{section}' has {count} matches; index {index} is out of range")]
    NoSuchDuplicate {
        section: String,
        count: usize,
        index: usize,
    },
}

/// A heading's text: without its `#` marks, its closing sequence or surrounding blanks.
fn heading_text(line: &str) -> String {
    let line = line.strip_prefix(BOM).unwrap_or(line).trim();
    let text = line.trim_start_matches('#').trim();
    let closed = text.trim_end_matches('#');
    if closed.is_empty() || closed.ends_with([' ', '\t']) {
        closed.trim().to_string()
    } else {
        text.to_string()
    }
}

/// The lines (0-based, end exclusive) of the section `section` names: a heading's text
/// (`Decisions`, or with its marks, `## Decisions`), a path of headings (`Auth/Decisions`) or
/// one of several alike by position (`Decisions[1]`). The section runs up to the next heading
/// of its level or above, subsections included, without the blank lines that end it.
pub fn section_lines(text: &str, section: &str) -> Result<std::ops::Range<usize>, SectionError> {
    let spec = section.trim();
    let (spec, index) = match spec
        .strip_suffix(']')
        .and_then(|s| s.rsplit_once('['))
        .and_then(|(name, n)| Some((name, n.trim().parse::<usize>().ok()?)))
    {
        Some((name, n)) => (name, Some(n)),
        None => (spec, None),
    };
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') {
        lines.pop();
    }
    let candidates = heading_candidates(&lines, text);
    // (line, level, text, the texts of its ancestors from the top)
    let mut headings: Vec<(usize, usize, String, Vec<String>)> = Vec::new();
    let mut open: Vec<(usize, String)> = Vec::new();
    for (i, line) in lines.iter().enumerate() {
        let Some(level) = candidates[i].then(|| heading_level(line)).flatten() else {
            continue;
        };
        open.retain(|(l, _)| *l < level);
        let ancestors = open.iter().map(|(_, t)| t.clone()).collect();
        let name = heading_text(line);
        open.push((level, name.clone()));
        headings.push((i, level, name, ancestors));
    }
    let same = |a: &str, b: &str| a.trim().to_lowercase() == b.trim().to_lowercase();
    let whole = heading_text(spec);
    let mut found: Vec<&(usize, usize, String, Vec<String>)> =
        headings.iter().filter(|h| same(&h.2, &whole)).collect();
    if found.is_empty() && spec.contains('/') {
        let parts: Vec<String> = spec.split('/').map(heading_text).collect();
        let (name, parents) = parts.split_last().expect("split yields one part");
        found = headings
            .iter()
            .filter(|h| {
                same(&h.2, name)
                    && h.3.len() >= parents.len()
                    && h.3[h.3.len() - parents.len()..]
                        .iter()
                        .zip(parents)
                        .all(|(a, b)| same(a, b))
            })
            .collect();
    }
    let chosen = match (found.as_slice(), index) {
        ([], _) => return Err(SectionError::NotFound(section.trim().to_string())),
        ([one], None) => *one,
        (many, None) => {
            return Err(SectionError::Ambiguous {
                section: spec.to_string(),
                count: many.len(),
            })
        }
        (many, Some(n)) => *many.get(n).ok_or(SectionError::NoSuchDuplicate {
            section: spec.to_string(),
            count: many.len(),
            index: n,
        })?,
    };
    let (start, level) = (chosen.0, chosen.1);
    let mut end = headings
        .iter()
        .find(|h| h.0 > start && h.1 <= level)
        .map_or(lines.len(), |h| h.0);
    while end > start + 1 && lines[end - 1].trim().is_empty() {
        end -= 1;
    }
    Ok(start..end)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOTE: &str = "---\ntitle: x\n---\n# Top\n\n## Auth\n### Decisions\nauth one\n\n## Storage\n### Decisions\nstore one\n```\n## not a heading\n```\n\n## End ##\nlast\n";

    #[test]
    fn sections_by_name_path_and_position() {
        assert_eq!(section_lines(NOTE, "Auth"), Ok(5..8));
        assert_eq!(section_lines(NOTE, "## storage"), Ok(9..15));
        assert_eq!(section_lines(NOTE, "Auth/Decisions"), Ok(6..8));
        assert_eq!(section_lines(NOTE, "Decisions[1]"), Ok(10..15));
        assert_eq!(section_lines(NOTE, "End"), Ok(16..18));
        assert!(matches!(
            section_lines(NOTE, "Decisions"),
            Err(SectionError::Ambiguous { count: 2, .. })
        ));
        assert!(matches!(
            section_lines(NOTE, "not a heading"),
            Err(SectionError::NotFound(_))
        ));
        assert!(matches!(
            section_lines(NOTE, "Decisions[2]"),
            Err(SectionError::NoSuchDuplicate { .. })
        ));
    }
}
