//! The structure of markdown text that edits and passages both read, by CommonMark's rules:
//! which lines are fenced code (a fence is at most three spaces, then three or more backticks
//! or tildes; it is closed by a line of the same character at least as long, with nothing
//! after it; a backtick fence's info string holds no backtick), and which lines are ATX
//! headings (at most three spaces, one to six `#`, then a space, a tab or the end of the line).
//! Lines are given without their `\n`; a `\r` before it is ignored.

/// A byte order mark, which an editor may leave at the start of a file.
pub const BOM: &str = "\u{feff}";

/// For each line, whether it belongs to fenced code (fences included). Lines before `from`
/// count as fenced so that they are never headings.
pub fn fenced_flags(lines: &[&str], from: usize) -> Vec<bool> {
    let mut flags = vec![true; from.min(lines.len())];
    let mut open: Option<(char, usize)> = None;
    for line in lines.iter().skip(from) {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let marker = fence_marker(line);
        match open {
            None => match marker {
                Some((c, _, suffix)) if c == '`' && suffix.contains('`') => flags.push(false),
                Some((c, len, _)) => {
                    flags.push(true);
                    open = Some((c, len));
                }
                None => flags.push(false),
            },
            Some((open_char, open_len)) => {
                flags.push(true);
                if let Some((c, len, suffix)) = marker {
                    if c == open_char && len >= open_len && suffix.trim().is_empty() {
                        open = None;
                    }
                }
            }
        }
    }
    flags
}

/// A code fence: at most three spaces, then three or more backticks or tildes.
fn fence_marker(line: &str) -> Option<(char, usize, &str)> {
    let candidate = line.trim_start_matches(' ');
    if line.len() - candidate.len() > 3 {
        return None;
    }
    let c = candidate
        .chars()
        .next()
        .filter(|c| *c == '`' || *c == '~')?;
    let rest = candidate.trim_start_matches(c);
    let len = candidate.len() - rest.len();
    (len >= 3).then_some((c, len, rest))
}

/// The level of an ATX heading line (`#` to `######`, at most three spaces of indent).
pub fn heading_level(line: &str) -> Option<usize> {
    let line = line.strip_prefix(BOM).unwrap_or(line);
    let line = line.strip_suffix('\r').unwrap_or(line);
    let candidate = line.trim_start_matches(' ');
    if line.len() - candidate.len() > 3 {
        return None;
    }
    let rest = candidate.trim_start_matches('#');
    let level = candidate.len() - rest.len();
    let ok = (1..=6).contains(&level) && (rest.is_empty() || rest.starts_with([' ', '\t']));
    ok.then_some(level)
}

/// Whether joining `before` and `after` on one newline makes a setext heading across the join:
/// a paragraph line of `before` underlined by a `---` or `===` line that opens `after`. Such a
/// join would turn the paragraph into a heading nobody wrote, so the edit puts a blank line
/// between them (Basic Memory 0.24). Whether a line underlines depends on the blocks around it
/// (fences, lists, quotes), so the joined text is parsed: a heading whose source spans the join
/// can only be a setext one.
pub fn joins_into_setext_heading(before: &str, after: &str) -> bool {
    let before = before.strip_suffix('\n').unwrap_or(before);
    if before.trim().is_empty() {
        return false;
    }
    let joined = format!("{before}\n{after}");
    let join = before.len();
    pulldown_cmark::Parser::new(&joined)
        .into_offset_iter()
        .any(|(event, range)| {
            matches!(
                event,
                pulldown_cmark::Event::Start(pulldown_cmark::Tag::Heading { .. })
            ) && range.start < join
                && range.end > join + 1
        })
}

/// The newlines that join `before` to `after`: one when `before` does not end a line, and a
/// blank line where one newline would underline `body_before`'s last paragraph into a setext
/// heading (`body_before` is the markdown body `before` ends with, front matter left out).
pub fn join_separator(before: &str, after: &str, body_before: &str) -> &'static str {
    let line_break = !before.is_empty() && !before.ends_with('\n');
    match (line_break, joins_into_setext_heading(body_before, after)) {
        (true, true) => "\n\n",
        (false, true) => "\n",
        (true, false) => "\n",
        (false, false) => "",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fences_follow_commonmark() {
        let cases: &[(&str, &[bool])] = &[
            ("a\n```\n# x\n```\nb", &[false, true, true, true, false]),
            // A longer fence is not closed by a shorter one, nor by the other character.
            ("````\n```\n~~~~\n````\nb", &[true, true, true, true, false]),
            // Four spaces make an indented block, not a fence; backticks in the info string
            // make inline code.
            ("    ```\n```js`\nb", &[false, false, false]),
            // Closing fences take no info string; \r\n endings count as \n.
            ("~~~ rust\r\n~~~ x\r\n~~~\r\nb", &[true, true, true, false]),
        ];
        for (text, expected) in cases {
            let lines: Vec<&str> = text.split('\n').collect();
            assert_eq!(fenced_flags(&lines, 0), *expected, "{text:?}");
        }
        assert_eq!(
            fenced_flags(&["a", "b"], 1),
            [true, false],
            "lines before `from`"
        );
    }

    #[test]
    fn headings_follow_commonmark() {
        let cases = [
            ("# A", Some(1)),
            ("###### F", Some(6)),
            ("####### seven", None),
            ("#NoSpace", None),
            ("#", Some(1)),
            ("   ## three spaces", Some(2)),
            ("    # four spaces", None),
            ("\u{feff}# after a BOM", Some(1)),
            ("## crlf\r", Some(2)),
            ("#\ttab", Some(1)),
        ];
        for (line, expected) in cases {
            assert_eq!(heading_level(line), expected, "{line:?}");
        }
    }
}
