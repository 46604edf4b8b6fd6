//! Body relevance (BM25): how often each word occurs in a note, in how many notes of its
//! project it occurs, and how long the note is. milli ranks by buckets (how many query words
//! match, how close, in which field) and knows no word counts; on long notes whose titles say
//! little (session logs, imported chats) those buckets tie, and a word in nearly every note (a
//! speaker's name) weighs as much as a rare one. BM25 settles both.
//!
//! The search indexer counts the terms of each text it indexes, beside milli and off the write
//! path; the graph writer records them with the rest of that search commit (the outbox entries
//! it served), so they follow milli's text, and a crash before that record leaves the entries
//! in the outbox to be done again. The tables live in the graph environment:
//! - `postings`: `project \0 term \0 note id` -> term frequency (u16 LE), note length (u32 LE);
//!   one prefix scan gives a term's notes with all that scoring needs;
//! - `note_terms`: `note id` -> `project \0 term \0 term …`, what a rewrite must remove;
//! - meta `bm25 \0 project` -> number of notes (u64 LE), total length (u64 LE).

use std::collections::HashMap;
use std::sync::LazyLock;

use milli_core::heed::types::{Bytes, Str};
use milli_core::heed::{Database, RoTxn, RwTxn};
use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

use super::IndexError;

const SEP: char = '\0';
/// BM25's saturation: the third occurrence of a word adds less than the second.
const K1: f64 = 1.2;
/// BM25's length normalisation: a word in a short note says more than in a long one.
const B: f64 = 0.75;
/// Longer "words" are hashes, base64 or minified code: never asked for, and keys must stay
/// under LMDB's 511 bytes.
const MAX_TERM_BYTES: usize = 40;

/// Words that carry no topic; neither indexed nor asked for.
pub const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "did", "do", "does", "for", "from",
    "had", "has", "have", "how", "i", "in", "is", "it", "of", "on", "or", "our", "that", "the",
    "their", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who",
    "whom", "whose", "why", "will", "with", "you", "your",
];

static ENGLISH: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7AF}' | '\u{F900}'..='\u{FAFF}')
}

/// The terms of a text, in order, as the index and queries both see them: lowercase, accents
/// folded, English words stemmed ("meetings" and "meeting" are one term), stopwords and
/// single letters dropped. Runs of CJK characters, which have no spaces, become overlapping
/// pairs of characters, the usual unit for searching them without a dictionary.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let flush_word = |word: &mut String, out: &mut Vec<String>| {
        if !word.is_empty() {
            push_word(word, out);
            word.clear();
        }
    };
    let flush_cjk = |cjk: &mut Vec<char>, out: &mut Vec<String>| {
        match cjk.len() {
            0 => {}
            1 => out.push(cjk[0].to_string()),
            _ => out.extend(cjk.windows(2).map(|pair| pair.iter().collect())),
        }
        cjk.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            flush_word(&mut word, &mut out);
            cjk.push(c);
        } else if c.is_alphanumeric() || (is_combining_mark(c) && !word.is_empty()) {
            flush_cjk(&mut cjk, &mut out);
            word.push(c);
        } else {
            flush_word(&mut word, &mut out);
            flush_cjk(&mut cjk, &mut out);
        }
    }
    flush_word(&mut word, &mut out);
    flush_cjk(&mut cjk, &mut out);
    out
}

fn push_word(word: &str, out: &mut Vec<String>) {
    let folded: String = if word.is_ascii() {
        word.to_ascii_lowercase()
    } else {
        word.nfd()
            .filter(|c| !is_combining_mark(*c))
            .flat_map(char::to_lowercase)
            .collect()
    };
    let single_letter =
        folded.chars().count() == 1 && !folded.starts_with(|c: char| c.is_numeric());
    if single_letter || folded.len() > MAX_TERM_BYTES || STOPWORDS.contains(&folded.as_str()) {
        return;
    }
    if folded.bytes().all(|b| b.is_ascii_lowercase()) {
        out.push(ENGLISH.stem(&folded).into_owned());
    } else {
        out.push(folded);
    }
}

/// A note's terms as the index records them: each distinct term with how often it occurs, and
/// the note's length in terms. Counted by the search indexer, off the write path; a search
/// commit holds thousands of these, so the terms are one string (sorted, `\0`-separated).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NoteTerms {
    pub project: String,
    distinct: String,
    counts: Vec<u16>,
    pub length: u32,
}

impl NoteTerms {
    pub fn of(project: &str, text: &str) -> Self {
        let mut all = terms(text);
        let length = u32::try_from(all.len()).unwrap_or(u32::MAX);
        all.sort_unstable();
        let mut distinct = String::new();
        let mut counts: Vec<u16> = Vec::new();
        let mut previous: Option<&str> = None;
        for term in &all {
            match (previous, counts.last_mut()) {
                (Some(p), Some(count)) if p == term => *count = count.saturating_add(1),
                _ => {
                    if previous.is_some() {
                        distinct.push(SEP);
                    }
                    distinct.push_str(term);
                    counts.push(1);
                }
            }
            previous = Some(term);
        }
        NoteTerms {
            project: project.to_string(),
            distinct,
            counts,
            length,
        }
    }

    fn pairs(&self) -> impl Iterator<Item = (&str, u16)> {
        self.distinct.split(SEP).zip(self.counts.iter().copied())
    }
}

#[derive(Clone)]
pub struct TermTables {
    pub postings: Database<Str, Bytes>,
    pub note_terms: Database<Str, Bytes>,
    /// The graph's `meta` table, where each project's totals live.
    pub meta: Database<Str, Bytes>,
}

/// A project's totals: how many notes have terms, and how many terms they have together.
#[derive(Default, Clone, Copy)]
struct Totals {
    notes: u64,
    length: u64,
}

fn totals_key(project: &str) -> String {
    format!("bm25{SEP}{project}")
}

fn posting_key(project: &str, term: &str, id: &str) -> String {
    format!("{project}{SEP}{term}{SEP}{id}")
}

impl TermTables {
    fn totals(&self, txn: &RoTxn, project: &str) -> Result<Totals, IndexError> {
        Ok(match self.meta.get(txn, &totals_key(project))? {
            Some(b) if b.len() == 16 => Totals {
                notes: u64::from_le_bytes(b[..8].try_into().unwrap_or_default()),
                length: u64::from_le_bytes(b[8..].try_into().unwrap_or_default()),
            },
            _ => Totals::default(),
        })
    }

    fn put_totals(&self, txn: &mut RwTxn, project: &str, t: Totals) -> Result<(), IndexError> {
        let key = totals_key(project);
        if t.notes == 0 {
            self.meta.delete(txn, &key)?;
        } else {
            let mut bytes = t.notes.to_le_bytes().to_vec();
            bytes.extend_from_slice(&t.length.to_le_bytes());
            self.meta.put(txn, &key, &bytes)?;
        }
        Ok(())
    }

    /// Forgets the terms of note `id`, wherever it was.
    fn remove(&self, txn: &mut RwTxn, id: &str) -> Result<(), IndexError> {
        let Some(stored) = self.note_terms.get(txn, id)? else {
            return Ok(());
        };
        let stored = String::from_utf8_lossy(stored).into_owned();
        let mut parts = stored.split(SEP);
        let project = parts.next().unwrap_or_default();
        let mut length = 0u64;
        for term in parts {
            let key = posting_key(project, term, id);
            if let Some(value) = self.postings.get(txn, &key)? {
                length = decode_posting(value).map_or(length, |(_, len)| u64::from(len));
            }
            self.postings.delete(txn, &key)?;
        }
        self.note_terms.delete(txn, id)?;
        let mut totals = self.totals(txn, project)?;
        totals.notes = totals.notes.saturating_sub(1);
        totals.length = totals.length.saturating_sub(length);
        self.put_totals(txn, project, totals)
    }

    /// Records what a search commit indexed: each note's new terms, or its removal.
    pub fn record(
        &self,
        txn: &mut RwTxn,
        notes: &[(String, Option<NoteTerms>)],
    ) -> Result<(), IndexError> {
        for (id, terms) in notes {
            self.remove(txn, id)?;
            if let Some(terms) = terms.as_ref().filter(|t| !t.counts.is_empty()) {
                self.insert(txn, id, terms)?;
            }
        }
        Ok(())
    }

    fn insert(&self, txn: &mut RwTxn, id: &str, terms: &NoteTerms) -> Result<(), IndexError> {
        let project = terms.project.as_str();
        for (term, tf) in terms.pairs() {
            let mut value = tf.to_le_bytes().to_vec();
            value.extend_from_slice(&terms.length.to_le_bytes());
            self.postings
                .put(txn, &posting_key(project, term, id), &value)?;
        }
        let listed = format!("{project}{SEP}{}", terms.distinct);
        self.note_terms.put(txn, id, listed.as_bytes())?;
        let mut totals = self.totals(txn, project)?;
        totals.notes += 1;
        totals.length += u64::from(terms.length);
        self.put_totals(txn, project, totals)
    }

    /// Notes of `project` ranked by BM25 for `query_terms` (as [`terms`] gives them), best
    /// first, at most `limit`, among those `keep` accepts. Ties go to the smaller note id, so
    /// the order is stable.
    pub fn rank(
        &self,
        txn: &RoTxn,
        project: &str,
        query_terms: &[String],
        keep: impl Fn(&str) -> bool,
        limit: usize,
    ) -> Result<Vec<(String, f64)>, IndexError> {
        let totals = self.totals(txn, project)?;
        if totals.notes == 0 {
            return Ok(Vec::new());
        }
        let notes = totals.notes as f64;
        let average = (totals.length as f64 / notes).max(1.0);
        let mut scores: HashMap<&str, f64> = HashMap::new();
        let mut asked: Vec<&str> = Vec::new();
        let mut found: Vec<(&str, u16, u32)> = Vec::new();
        for term in query_terms {
            if asked.contains(&term.as_str()) {
                continue;
            }
            asked.push(term);
            let prefix = format!("{project}{SEP}{term}{SEP}");
            found.clear();
            for item in self.postings.prefix_iter(txn, &prefix)? {
                let (key, value) = item?;
                if let Some((tf, len)) = decode_posting(value) {
                    found.push((&key[prefix.len()..], tf, len));
                }
            }
            let with_term = found.len() as f64;
            let idf = (1.0 + (notes - with_term + 0.5) / (with_term + 0.5)).ln();
            for &(id, tf, len) in &found {
                let tf = f64::from(tf);
                let norm = K1 * (1.0 - B + B * f64::from(len) / average);
                *scores.entry(id).or_insert(0.0) += idf * tf * (K1 + 1.0) / (tf + norm);
            }
        }
        let mut ranked: Vec<(&str, f64)> = scores.into_iter().filter(|(id, _)| keep(id)).collect();
        let order = |a: &(&str, f64), b: &(&str, f64)| b.1.total_cmp(&a.1).then(a.0.cmp(b.0));
        // Only the best `limit` are sorted: a common word scores most of the project.
        if ranked.len() > limit {
            ranked.select_nth_unstable_by(limit, order);
            ranked.truncate(limit);
        }
        ranked.sort_unstable_by(order);
        Ok(ranked
            .into_iter()
            .map(|(id, score)| (id.to_string(), score))
            .collect())
    }
}

fn decode_posting(value: &[u8]) -> Option<(u16, u32)> {
    let tf = u16::from_le_bytes(value.get(..2)?.try_into().ok()?);
    let len = u32::from_le_bytes(value.get(2..6)?.try_into().ok()?);
    Some((tf, len))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn terms_are_folded_stemmed_and_without_stopwords() {
        let cases: &[(&str, &[&str])] = &[
            ("The meetings were running late", &["meet", "run", "late"]),
            ("Café CAFE cafés", &["cafe", "cafe", "cafe"]),
            ("don't x 42 v2", &["don", "42", "v2"]),
            ("[[Internal links]] #tag", &["intern", "link", "tag"]),
            ("Привет, мир", &["привет", "мир"]),
            ("同期する 日本", &["同期", "期す", "する", "日本"]),
            ("a of the", &[]),
        ];
        for (text, want) in cases {
            assert_eq!(terms(text), *want, "{text:?}");
        }
    }

    #[test]
    fn a_notes_terms_are_counted_once_each() {
        let counted = NoteTerms::of("p", "Tea, more tea; coffee. Tea!");
        let pairs: Vec<(&str, u16)> = counted.pairs().collect();
        assert_eq!(pairs, [("coffe", 1), ("more", 1), ("tea", 3)]);
        assert_eq!(counted.length, 5);
        assert_eq!(NoteTerms::of("p", "the of").pairs().count(), 0);
    }

    #[test]
    fn overlong_words_are_not_terms() {
        let hash = "f".repeat(MAX_TERM_BYTES + 1);
        assert_eq!(terms(&format!("{hash} kept")), ["kept"]);
    }
}
