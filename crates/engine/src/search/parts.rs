//! Observation and relation rows. They have no search documents of their own: an observation's
//! line is in its note's body, and a relation is found by its note's title and its target as
//! written, both in the note's document. So milli finds the notes, and each found note's record
//! gives the parts whose own text holds the query's words, by the rules milli matches words
//! with (typos by length, a prefix on the last word), on the terms body relevance reads
//! (`index::terms`: lowercase, accents folded, English words stemmed).

use serde_json::json;

use super::query::any_of;
use super::rows::str_field;
use super::Result;
use index::model::NoteRecord;
use index::query::{Hit, Matching, Query};
use index::terms::{each_word, term, words_and_terms};
use index::Index;

/// How many of the best notes a part search reads, in milli's order. Beyond them it stops, and
/// its total becomes a lower bound: a common word at 100,000 notes would otherwise read every
/// note's record for one query.
const PART_NOTES: usize = 500;

/// The parts a search asks for.
#[derive(Debug, Clone, Copy)]
pub(super) struct PartsAsked<'a> {
    pub observations: bool,
    pub relations: bool,
    /// Observations of these categories only (none: any).
    pub categories: &'a [String],
}

impl<'a> PartsAsked<'a> {
    /// The parts `types` names, `None` when it names neither.
    pub(super) fn of(types: &[String], categories: &'a [String]) -> Option<Self> {
        let asked = |kind: &str| types.iter().any(|t| t == kind);
        let parts = PartsAsked {
            observations: asked("observation"),
            relations: asked("relation"),
            categories,
        };
        (parts.observations || parts.relations).then_some(parts)
    }

    /// The filter that keeps the notes that can have such parts.
    fn note_filter(&self) -> Option<String> {
        (self.observations && !self.relations && !self.categories.is_empty())
            .then(|| any_of("category", self.categories))
    }

    /// The parts of `note` asked for: their row, and the text they are found by.
    fn of_note(&self, note: &NoteRecord) -> Vec<(Part, String)> {
        let mut parts = Vec::new();
        if self.observations {
            for (i, obs) in note.observations.iter().enumerate() {
                if self.categories.is_empty() || self.categories.contains(&obs.category) {
                    parts.push((
                        Part::Observation(i),
                        format!("{}: {}", obs.category, obs.content),
                    ));
                }
            }
        }
        if self.relations {
            for (i, rel) in note.relations.iter().enumerate() {
                parts.push((
                    Part::Relation(i),
                    relation_words(&note.title, &rel.relation.target),
                ));
            }
        }
        parts
    }
}

/// The words a relation is found by: its note's title and its target as the note writes it.
/// Never the target note's title: then resolving a link, or renaming the note it points to,
/// would change what finds every note that links there. Results show the target's title, read
/// from the graph when rendered.
fn relation_words(title: &str, target: &str) -> String {
    format!("{title} -> {target}")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Part {
    Observation(usize),
    Relation(usize),
}

/// Which query words a text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Held {
    /// Query words held, as written or within their typos.
    words: usize,
    /// Of them, words held as written.
    exact: usize,
}

/// A query's words as a part must hold them.
#[derive(Debug)]
pub(super) struct PartWords {
    /// Each query word as typed (folded) and its term.
    terms: Vec<(String, String)>,
    /// Whether a part must hold every word (else any, the more the better).
    all: bool,
    /// How each query word (by position) matched each text word met so far: parts repeat
    /// words, and counting typos was most of a part search.
    matched: std::cell::RefCell<Vec<std::collections::HashMap<String, Option<bool>>>>,
}

impl PartWords {
    /// The words of `text` (a milli query: a `-word` excludes, which the note's search has
    /// applied to the whole note already).
    pub(super) fn new(text: &str, matching: Matching) -> Self {
        let wanted: Vec<&str> = text
            .split_whitespace()
            .filter(|w| !w.starts_with('-'))
            .collect();
        let mut words = words_and_terms(&wanted.join(" "));
        let mut seen = std::collections::HashSet::new();
        words.retain(|(_, term)| seen.insert(term.clone()));
        PartWords {
            matched: std::cell::RefCell::new(vec![Default::default(); words.len()]),
            terms: words,
            all: matching == Matching::All,
        }
    }

    /// What `text` holds of the query's words, `None` when not enough to match. A query of no
    /// words is matched by every text.
    fn held(&self, text: &str) -> Option<Held> {
        if self.terms.is_empty() {
            return Some(Held { words: 0, exact: 0 });
        }
        let last = self.terms.len() - 1;
        let mut best: Vec<Option<bool>> = vec![None; self.terms.len()];
        let mut matched = self.matched.borrow_mut();
        each_word(text, |text_word| {
            for (i, word) in self.terms.iter().enumerate() {
                let known = &mut matched[i];
                let result = match known.get(text_word) {
                    Some(result) => *result,
                    None => {
                        let result = term_match(word, text_word, i == last);
                        known.insert(text_word.to_string(), result);
                        result
                    }
                };
                best[i] = best[i].max(result);
            }
        });
        let mut held = Held { words: 0, exact: 0 };
        for exact in best.into_iter().flatten() {
            held.words += 1;
            held.exact += usize::from(exact);
        }
        let enough = if self.all {
            held.words == self.terms.len()
        } else {
            held.words > 0
        };
        enough.then_some(held)
    }
}

/// Whether a text's word matches a query's (each a word as typed and its term): `Some(true)`
/// by their terms, `Some(false)` within the typos milli allows for the typed word's length (one
/// from 5 characters, two from 9), or as the start of a longer word when the query's is its last
/// (typed as far as it goes).
fn term_match((word, query_term): &(String, String), text_word: &str, last: bool) -> Option<bool> {
    if *query_term == term(text_word) {
        return Some(true);
    }
    if last && text_word.starts_with(word.as_str()) {
        return Some(false);
    }
    let length = word.chars().count();
    let typos = match length {
        0..=4 => 0,
        5..=8 => 1,
        _ => 2,
    };
    (typos > 0 && within_typos(word, text_word, typos)).then_some(false)
}

/// Whether `a` becomes `b` in at most `max` edits: a letter inserted, deleted, replaced, or two
/// neighbours swapped (as milli counts typos).
fn within_typos(a: &str, b: &str, max: usize) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > max {
        return false;
    }
    let width = b.len() + 1;
    let mut rows = vec![vec![0usize; width]; a.len() + 1];
    for (j, cell) in rows[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        rows[i][0] = i;
        for j in 1..=b.len() {
            let replace = rows[i - 1][j - 1] + usize::from(a[i - 1] != b[j - 1]);
            let mut best = replace.min(rows[i - 1][j] + 1).min(rows[i][j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(rows[i - 2][j - 2] + 1);
            }
            rows[i][j] = best;
        }
    }
    rows[a.len()][b.len()] <= max
}

/// Parts found for a query, best first.
pub(super) struct PartsFound {
    /// Every part found: its note (a place in `notes`), which part, and its score.
    found: Vec<(usize, Part, f64)>,
    notes: Vec<String>,
    /// The parts found; all there are when `exact`.
    pub total: u64,
    /// Whether every note the query matches was read.
    pub exact: bool,
}

impl PartsFound {
    /// The parts from place `skip` on, `take` of them, as hits of the rows' documents (type,
    /// note, index). Only these are built: a common word finds thousands.
    pub(super) fn hits(&self, skip: usize, take: usize) -> Vec<Hit> {
        self.found
            .iter()
            .skip(skip)
            .take(take)
            .map(|&(note, part, score)| part_hit(&self.notes[note], part, score))
            .collect()
    }
}

/// The parts `asked` of the notes `base` finds (its filter; its text and `matching` for each
/// of `queries`, united), ranked by how many query words their own text holds, then how
/// many as written, then by their note's place in milli's ranking and their place in the
/// note. An empty query finds every part asked for, newest note first.
pub(super) fn find_parts(
    index: &Index,
    base: &Query,
    queries: &[(String, Matching)],
    asked: PartsAsked,
) -> Result<PartsFound> {
    let filter = match (&base.filter, asked.note_filter()) {
        (Some(f), Some(c)) => Some(format!("{f} AND {c}")),
        (f, c) => f.clone().or(c),
    };
    let mut notes: Vec<String> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut exact = true;
    for (text, matching) in queries {
        let found = index.search(&Query {
            text: text.clone(),
            filter: filter.clone(),
            offset: 0,
            limit: PART_NOTES,
            matching: *matching,
            fields: None,
            newest_first: text.trim().is_empty(),
            load_only: Some(&["note_id"]),
        })?;
        exact &= found.total as usize <= PART_NOTES;
        for hit in &found.hits {
            if let Some(id) = str_field(&hit.doc, "note_id") {
                if seen.insert(id.to_string()) {
                    notes.push(id.to_string());
                }
            }
        }
    }
    let words: Vec<PartWords> = queries
        .iter()
        .map(|(text, matching)| PartWords::new(text, *matching))
        .collect();
    let asked_words = words.iter().map(|w| w.terms.len()).max().unwrap_or(0);
    let snap = index.snapshot()?;
    let mut found: Vec<(Held, usize, usize, Part, f64)> = Vec::new();
    for (rank, id) in notes.iter().enumerate() {
        let Some(note) = snap.note(id)? else {
            continue;
        };
        for (order, (part, text)) in asked.of_note(&note).into_iter().enumerate() {
            let Some(held) = words.iter().filter_map(|w| w.held(&text)).max() else {
                continue;
            };
            let score = if asked_words == 0 {
                0.0
            } else {
                held.words as f64 / asked_words as f64
            };
            found.push((held, rank, order, part, score));
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)).then(a.2.cmp(&b.2)));
    Ok(PartsFound {
        total: found.len() as u64,
        exact,
        found: found
            .into_iter()
            .map(|(_, rank, _, part, score)| (rank, part, score))
            .collect(),
        notes,
    })
}

/// A part as a search hit: the fields a row is built from.
fn part_hit(note_id: &str, part: Part, score: f64) -> Hit {
    let simple = note_id.replace('-', "");
    let (kind, prefix, index) = match part {
        Part::Observation(i) => ("observation", 'o', i),
        Part::Relation(i) => ("relation", 'r', i),
    };
    let doc = json!({
        "id": format!("{prefix}-{simple}-{index}"),
        "type": kind,
        "note_id": note_id,
        "index": index,
    });
    Hit {
        doc: doc.as_object().cloned().unwrap_or_default(),
        score,
        docid: 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_part_holds_query_words_as_milli_matches_them() {
        let all = Matching::All;
        let any = Matching::MostSpecific;
        // Query, how it matches, the part's text, and (words held, of them as written).
        type Case = (&'static str, Matching, &'static str, Option<(usize, usize)>);
        let cases: &[Case] = &[
            ("sqlite", all, "tech: Uses SQLite FTS5", Some((1, 1))),
            ("SQLite search", all, "tech: Uses SQLite FTS5", None),
            ("SQLite search", any, "tech: Uses SQLite FTS5", Some((1, 1))),
            // Stems: "meetings" holds "meeting".
            ("meeting", all, "weekly meetings", Some((1, 1))),
            // One typo from five letters, none below.
            ("sqlte", all, "uses sqlite", Some((1, 0))),
            ("fst", all, "uses fts5", None),
            // Two neighbours swapped are one typo.
            ("databsae", all, "the database", Some((1, 0))),
            // The last word may be the start of a longer one.
            ("uses sql", all, "uses sqlite", Some((2, 1))),
            ("sql uses", all, "uses sqlite", None),
            // `-word` is the note search's business.
            ("sqlite -postgres", all, "sqlite and postgres", Some((1, 1))),
            ("", all, "anything", Some((0, 0))),
        ];
        for (query, matching, text, expected) in cases {
            let held = PartWords::new(query, *matching)
                .held(text)
                .map(|h| (h.words, h.exact));
            assert_eq!(held, *expected, "{query:?} in {text:?}");
        }
    }

    #[test]
    fn typos_count_edits_and_swaps() {
        let cases = [
            ("kitten", "sitten", 1, true),
            ("kitten", "sitting", 1, false),
            ("kitten", "sitting", 2, false),
            ("ab", "ba", 1, true),
            ("search", "serach", 1, true),
            ("search", "search", 0, true),
        ];
        for (a, b, max, expected) in cases {
            assert_eq!(within_typos(a, b, max), expected, "{a} -> {b} in {max}");
        }
    }
}
