//! The sections edit_note works on: a header found outside front matter and fenced code, and
//! its section (the lines up to the next heading of its level or above, or up to any heading
//! when subsections are kept), replaced or written around.

use super::edit::EditError;
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

pub(super) fn replace_section(
    text: &str,
    header: &str,
    content: &str,
    replace_subsections: bool,
) -> Result<String, EditError> {
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
        return Err(EditError::DuplicateSection(header.to_string()));
    }
    let Some(&index) = matches.first() else {
        let sep = if text.is_empty() || text.ends_with("\n\n") {
            ""
        } else if text.ends_with('\n') {
            "\n"
        } else {
            "\n\n"
        };
        return Ok(format!("{text}{sep}{header}\n{content}"));
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
) -> Result<String, EditError> {
    let lines: Vec<&str> = text.split('\n').collect();
    let candidates = heading_candidates(&lines, text);
    let matches = find_header(&lines, &candidates, header);
    let index = match matches.as_slice() {
        [] => return Err(EditError::SectionNotFound(header.to_string())),
        [index] => *index,
        _ => return Err(EditError::DuplicateSection(header.to_string())),
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
