//! A note as numbered lines: the one coordinate system `cat` and `grep` share, so that a line
//! grep reports is the line cat returns for it. Lines are the whole file's, front matter
//! included, numbered from 1; a final newline does not start another line, and a `\r` before a
//! newline is not part of its line.

use super::frontmatter;

/// The lines of `text`, as Basic Memory's `document_lines` counts them.
pub fn document_lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .collect();
    if text.is_empty() || text.ends_with('\n') {
        lines.pop();
    }
    lines
}

/// The number of the body's first line: 1 without front matter, else the line after the
/// closing fence.
pub fn body_first_line(text: &str) -> usize {
    frontmatter::locate(text).map_or(1, |block| {
        text[..block.body_start.min(text.len())]
            .bytes()
            .filter(|b| *b == b'\n')
            .count()
            + 1
    })
}

/// What a token budget is measured in: about four characters a token, as Basic Memory
/// estimates for its cut.
pub fn estimated_tokens(text: &str) -> usize {
    text.chars().count().div_ceil(4)
}

/// How many of `lines`, from the first, fit in `max_tokens` (joined by newlines). At least
/// one, so that a budget smaller than a line still moves a reader forward.
pub fn lines_within(lines: &[&str], max_tokens: usize) -> usize {
    let budget = max_tokens.saturating_mul(4);
    let mut used = 0;
    for (taken, line) in lines.iter().enumerate() {
        used += line.chars().count() + usize::from(taken > 0);
        if used > budget {
            return taken.max(1);
        }
    }
    lines.len()
}

/// The most tokens an answer cut to a budget may be given: a caller's larger budget is
/// lowered to it.
pub const MAX_TOKEN_BUDGET: usize = 16_000;

/// A token budget spent line by line, counted as [`estimated_tokens`] counts (four characters
/// a token, each line's newline included), so what it lets through never estimates above it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenBudget {
    /// Characters left, and spent.
    left: usize,
    spent: usize,
}

impl TokenBudget {
    /// `tokens`, at most [`MAX_TOKEN_BUDGET`].
    pub fn new(tokens: usize) -> Self {
        TokenBudget {
            left: tokens.min(MAX_TOKEN_BUDGET) * 4,
            spent: 0,
        }
    }

    /// Spends the line when it fits; false (and nothing spent) when it does not.
    pub fn take(&mut self, line: &str) -> bool {
        let cost = line.chars().count() + 1;
        if cost > self.left {
            return false;
        }
        self.left -= cost;
        self.spent += cost;
        true
    }

    /// The lines of `text`, from the first, that fit; and whether any was left out.
    pub fn take_lines(&mut self, text: &str) -> (String, bool) {
        let mut kept = String::new();
        for line in text.lines() {
            if !self.take(line) {
                return (kept, true);
            }
            kept.push_str(line);
            kept.push('\n');
        }
        (kept, false)
    }

    /// The tokens spent so far.
    pub fn spent_tokens(&self) -> usize {
        self.spent.div_ceil(4)
    }

    /// A budget for a part of what this one has left: at most `tokens` of it.
    pub fn part(&self, tokens: usize) -> TokenBudget {
        TokenBudget {
            left: tokens.saturating_mul(4).min(self.left),
            spent: 0,
        }
    }

    /// Spends what `part` (made by [`TokenBudget::part`]) spent.
    pub fn settle(&mut self, part: &TokenBudget) {
        self.left -= part.spent;
        self.spent += part.spent;
    }
}

/// Matching lines with their context, merged where they touch or overlap.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Window {
    pub start_line: usize,
    pub end_line: usize,
    pub match_lines: Vec<usize>,
    pub content: String,
}

/// The literal matches of a pattern in one note.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineScan {
    /// Every matching line, shown or not.
    pub match_count: usize,
    pub total_lines: usize,
    pub windows: Vec<Window>,
    /// The first matching line left out by `max_matches`.
    pub next_match_line: Option<usize>,
}

/// The lines of `text` that hold `pattern` (case-insensitive), at most `max_matches` of them,
/// each with `context` lines either side.
pub fn scan_literal(text: &str, pattern: &str, context: usize, max_matches: usize) -> LineScan {
    let lines = document_lines(text);
    let needle = pattern.to_lowercase();
    let matches: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, line)| line.to_lowercase().contains(&needle))
        .map(|(index, _)| index + 1)
        .collect();
    let shown = &matches[..matches.len().min(max_matches)];
    let mut windows: Vec<Window> = Vec::new();
    for &line in shown {
        let start = line.saturating_sub(context).max(1);
        let end = (line + context).min(lines.len());
        match windows.last_mut() {
            Some(last) if start <= last.end_line + 1 => {
                last.end_line = end;
                last.match_lines.push(line);
            }
            _ => windows.push(Window {
                start_line: start,
                end_line: end,
                match_lines: vec![line],
                content: String::new(),
            }),
        }
    }
    for window in &mut windows {
        window.content = lines[window.start_line - 1..window.end_line].join("\n");
    }
    LineScan {
        match_count: matches.len(),
        total_lines: lines.len(),
        windows,
        next_match_line: matches.get(max_matches).copied(),
    }
}

/// Whether any line of `text` holds `pattern` (case-insensitive).
pub fn contains_literal(text: &str, pattern: &str) -> bool {
    let needle = pattern.to_lowercase();
    document_lines(text)
        .iter()
        .any(|line| line.to_lowercase().contains(&needle))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_count_front_matter_and_ignore_the_final_newline() {
        assert_eq!(document_lines("a\r\nb\n"), ["a", "b"]);
        assert_eq!(document_lines("a\n\nb"), ["a", "", "b"]);
        assert!(document_lines("").is_empty());
        assert_eq!(body_first_line("---\ntitle: x\n---\nbody\n"), 4);
        assert_eq!(body_first_line("body\n"), 1);
    }

    #[test]
    fn windows_merge_and_matches_beyond_the_cap_are_pointed_at() {
        let text = "one\nTwo x\nthree\nfour\nfive x\nhalf\nseven\neight\nnine x\nten\n";
        let scan = scan_literal(text, "X", 1, 2);
        assert_eq!(scan.match_count, 3);
        assert_eq!(scan.total_lines, 10);
        assert_eq!(scan.next_match_line, Some(9));
        let spans: Vec<_> = scan
            .windows
            .iter()
            .map(|w| (w.start_line, w.end_line, w.match_lines.clone()))
            .collect();
        assert_eq!(spans, [(1, 6, vec![2, 5])]);
        assert_eq!(
            scan.windows[0].content,
            "one\nTwo x\nthree\nfour\nfive x\nhalf"
        );
        let apart = scan_literal(text, "x", 0, 10);
        assert_eq!(apart.windows.len(), 3);
        assert_eq!(apart.windows[2].content, "nine x");
    }

    #[test]
    fn a_budget_takes_whole_lines_and_at_least_one() {
        let lines = ["aaaa", "bbbb", "cccc"];
        assert_eq!(lines_within(&lines, 1), 1);
        assert_eq!(lines_within(&lines, 2), 1);
        assert_eq!(lines_within(&lines, 3), 2);
        assert_eq!(lines_within(&lines, 100), 3);
    }
}
