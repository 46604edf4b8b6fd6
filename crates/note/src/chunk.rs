//! A note's body cut into passages for embedding: by heading, then by paragraph, each passage
//! carrying the note's title and its heading so that it reads on its own.

use super::markdown::{fenced_flags, heading_level, BOM};

/// Longest passage body in characters; about 200 tokens of English, within what small
/// sentence-embedding models read (256 tokens for all-MiniLM-L6-v2).
pub const MAX_CHARS: usize = 800;
/// A note yields at most this many passages; the rest of a very long note is not embedded.
pub const MAX_PASSAGES: usize = 64;

/// One passage: the text to embed, the heading it sits under and its own words (the text
/// without the title and heading it carries).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Passage {
    pub heading: Option<String>,
    pub text: String,
    pub body: String,
}

/// Passages of a note: each section (text under a heading) whole if it is short, else cut at
/// paragraphs (and very long paragraphs at words) into pieces of at most `MAX_CHARS`. A note
/// with no text gets one passage of its title.
pub fn passages(title: &str, body: &str) -> Vec<Passage> {
    let mut out = Vec::new();
    for (heading, section) in sections(body) {
        for piece in pieces(&section) {
            let mut text = String::with_capacity(title.len() + piece.len() + 64);
            text.push_str(title);
            if let Some(h) = heading.as_deref().filter(|h| *h != title) {
                text.push('\n');
                text.push_str(h);
            }
            text.push('\n');
            text.push_str(&piece);
            out.push(Passage {
                heading: heading.clone(),
                text,
                body: piece,
            });
            if out.len() == MAX_PASSAGES {
                return out;
            }
        }
    }
    if out.is_empty() {
        out.push(Passage {
            heading: None,
            text: title.to_string(),
            body: String::new(),
        });
    }
    out
}

/// The passage that holds the most of `terms` (lowercase words; a term counts once per
/// passage, and matches inside longer words too, as prefix search and unsegmented scripts
/// need). Ties go to the earlier passage; `None` when no passage holds any term.
pub fn best_matching(passages: &[Passage], terms: &[String]) -> Option<usize> {
    let mut best: Option<(usize, usize)> = None;
    for (i, passage) in passages.iter().enumerate() {
        let text = passage.text.to_lowercase();
        let held = terms.iter().filter(|t| text.contains(t.as_str())).count();
        if held > 0 && best.is_none_or(|(_, most)| held > most) {
            best = Some((i, held));
        }
    }
    best.map(|(i, _)| i)
}

/// The body split at ATX headings outside code fences: (heading text, section text).
fn sections(body: &str) -> Vec<(Option<String>, String)> {
    let mut out: Vec<(Option<String>, String)> = vec![(None, String::new())];
    let lines: Vec<&str> = body.lines().collect();
    let fenced = fenced_flags(&lines, 0);
    for (line, fenced) in lines.into_iter().zip(fenced) {
        match heading_level(line).filter(|_| !fenced) {
            Some(level) => {
                let marks = line.strip_prefix(BOM).unwrap_or(line).trim_start();
                let text = marks[level..].trim().trim_end_matches('#').trim();
                out.push((Some(text.to_string()), String::new()));
            }
            None => {
                let current = &mut out.last_mut().expect("never empty").1;
                current.push_str(line);
                current.push('\n');
            }
        }
    }
    out.retain(|(heading, text)| heading.is_some() || !text.trim().is_empty());
    out
}

/// A section's text in pieces of at most `MAX_CHARS`, cut at blank lines, then at words.
/// Lengths are counted as text is added, not recounted: search cuts the notes it shows.
fn pieces(section: &str) -> Vec<String> {
    struct Piece {
        text: String,
        chars: usize,
    }
    impl Piece {
        fn push(&mut self, separator: &str, text: &str, chars: usize) {
            if !self.text.is_empty() {
                self.text.push_str(separator);
                self.chars += separator.len();
            }
            self.text.push_str(text);
            self.chars += chars;
        }
        fn flush(&mut self, out: &mut Vec<String>) {
            if !self.text.trim().is_empty() {
                out.push(self.text.trim().to_string());
            }
            self.text.clear();
            self.chars = 0;
        }
    }
    let mut out = Vec::new();
    let mut current = Piece {
        text: String::new(),
        chars: 0,
    };
    for paragraph in section.split("\n\n") {
        let paragraph = paragraph.trim();
        if paragraph.is_empty() {
            continue;
        }
        let length = paragraph.chars().count();
        if current.chars + length + 2 > MAX_CHARS {
            current.flush(&mut out);
        }
        if length > MAX_CHARS {
            for word in paragraph.split_whitespace() {
                let word_length = word.chars().count();
                if current.chars + word_length + 1 > MAX_CHARS {
                    current.flush(&mut out);
                }
                current.push(" ", word, word_length);
            }
            continue;
        }
        current.push("\n\n", paragraph, length);
    }
    current.flush(&mut out);
    if out.is_empty() && !section.trim().is_empty() {
        out.push(section.trim().to_string());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passages_follow_headings_and_carry_the_title() {
        let body =
            "Intro line.\n\n## Setup\nInstall it.\n\n```\n# not a heading\n```\n## Use\nRun it.\n";
        let got = passages("Tool", body);
        let texts: Vec<&str> = got.iter().map(|p| p.text.as_str()).collect();
        assert_eq!(
            texts,
            [
                "Tool\nIntro line.",
                "Tool\nSetup\nInstall it.\n\n```\n# not a heading\n```",
                "Tool\nUse\nRun it."
            ]
        );
        assert_eq!(got[1].heading.as_deref(), Some("Setup"));
    }

    #[test]
    fn sections_are_found_by_the_rules_edits_use() {
        // A ```` fence is not closed by ```, and four spaces make code, not a heading: the
        // same lines edit_note's sections skip.
        let body = "````\n```\n# in code\n````\n    # indented\n## Real #\nText.\n";
        let headings: Vec<Option<String>> =
            passages("T", body).into_iter().map(|p| p.heading).collect();
        assert_eq!(headings, [None, Some("Real".to_string())]);
    }

    #[test]
    fn long_sections_are_cut_at_paragraphs_then_words() {
        let paragraph = "word ".repeat(100);
        let body = format!("{paragraph}\n\n{paragraph}\n\n{}", "x ".repeat(2000));
        for p in passages("T", &body) {
            assert!(p.text.chars().count() <= MAX_CHARS + 2, "{}", p.text.len());
        }
        let huge = "para\n\n".repeat(100_000);
        assert_eq!(passages("T", &huge).len(), MAX_PASSAGES);
    }

    #[test]
    fn an_empty_note_is_its_title() {
        assert_eq!(
            passages("Only a title", "  \n"),
            [Passage {
                heading: None,
                text: "Only a title".into(),
                body: String::new(),
            }]
        );
    }

    #[test]
    fn the_best_matching_passage_holds_the_most_query_terms() {
        let body = "Intro about cats.\n\n## Sync\nSync your vault with a remote.\n\n## Conflicts\nWhen sync meets a conflict, both versions are kept.\n\n## 同期\n保管庫を同期する";
        let got = passages("Guide", body);
        let terms = |words: &[&str]| words.iter().map(|w| w.to_string()).collect::<Vec<_>>();
        let cases: &[(&[&str], Option<usize>)] = &[
            (&["sync"], Some(1)),
            (&["sync", "conflict"], Some(2)),
            (&["cat"], Some(0)),
            (&["同期"], Some(3)),
            (&["guide"], Some(0)),
            (&["absent"], None),
            (&[], None),
        ];
        for (words, want) in cases {
            assert_eq!(best_matching(&got, &terms(words)), *want, "{words:?}");
        }
        assert_eq!(got[1].body, "Sync your vault with a remote.");
    }
}
