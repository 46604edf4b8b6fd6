//! The one tokenizer of body relevance, which BM25's counts, its queries and the matching of
//! observation and relation rows share: a text's words, folded, and their terms.

use std::collections::HashMap;
use std::sync::LazyLock;

use milli_core::tokenizer::normalizer::{CharNormalizer, CharOrStr, ChineseNormalizer};
use rust_stemmers::{Algorithm, Stemmer};
use unicode_normalization::char::is_combining_mark;
use unicode_normalization::UnicodeNormalization;

/// Longer "words" are hashes, base64 or minified code: never asked for, and keys must stay
/// under LMDB's 511 bytes.
pub(super) const MAX_TERM_BYTES: usize = 40;

/// Words that carry no topic; neither indexed nor asked for.
pub const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "did", "do", "does", "for", "from",
    "had", "has", "have", "how", "i", "in", "is", "it", "of", "on", "or", "our", "that", "the",
    "their", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who",
    "whom", "whose", "why", "will", "with", "you", "your",
];

static ENGLISH: LazyLock<Stemmer> = LazyLock::new(|| Stemmer::create(Algorithm::English));

/// Distinct words whose stems a thread keeps.
const STEMS_KEPT: usize = 50_000;

thread_local! {
    /// Stems already worked out: most words of a text are words seen before (a few thousand
    /// make most of any English text), and stemming was half of counting a note's terms.
    static STEMS: std::cell::RefCell<HashMap<String, String>> = Default::default();
}

/// The English stem of a lowercase ASCII word.
fn stem(word: &str) -> String {
    STEMS.with_borrow_mut(|stems| {
        if let Some(stem) = stems.get(word) {
            return stem.clone();
        }
        if stems.len() >= STEMS_KEPT {
            stems.clear();
        }
        let stem = ENGLISH.stem(word).into_owned();
        stems.insert(word.to_string(), stem.clone());
        stem
    })
}

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{3040}'..='\u{30FF}' | '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7AF}' | '\u{F900}'..='\u{FAFF}')
}

/// A Han character as milli's Chinese normalizer writes it (charabia's, from Unihan's
/// kVariants): a simplified character the table pairs with a traditional one becomes that
/// one, so that a word in either script finds the other in both rankings alike.
fn han_variant(c: char) -> char {
    match ChineseNormalizer.normalize_char(c) {
        Some(CharOrStr::Char(variant)) => variant,
        _ => c,
    }
}

/// The terms of a text, in order, as the index and queries both see them: lowercase, accents
/// folded, English words stemmed ("meetings" and "meeting" are one term), stopwords and
/// single letters dropped. Runs of CJK characters, which have no spaces, become overlapping
/// pairs of characters, the usual unit for searching them without a dictionary (a word of
/// two or more characters is found inside any sentence), Han characters as [`han_variant`]
/// writes them.
pub fn terms(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    each_word(text, |word| out.push(term(word)));
    out
}

/// The terms of a text as [`terms`] cuts them, each after the word it comes from (lowercase,
/// accents folded, not stemmed): typos are counted on what was typed.
pub fn words_and_terms(text: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    each_word(text, |word| out.push((word.to_string(), term(word))));
    out
}

/// The term of one of [`each_word`]'s words: English words stemmed, others as they are.
pub fn term(word: &str) -> String {
    if word.bytes().all(|b| b.is_ascii_lowercase()) {
        stem(word)
    } else {
        word.to_string()
    }
}

/// Hands each word of a text [`terms`] would count to `each`, lowercase and accents folded,
/// not stemmed (a CJK pair is a word).
pub fn each_word(text: &str, mut each: impl FnMut(&str)) {
    // A word and a run of CJK characters never both hold characters: each ends the other.
    let mut word = String::new();
    let mut cjk: Vec<char> = Vec::new();
    let mut flush = |word: &mut String, cjk: &mut Vec<char>| {
        if !word.is_empty() {
            push_word(word, &mut each);
        }
        let pairs: Vec<String> = match cjk.len() {
            1 => vec![cjk[0].to_string()],
            _ => cjk.windows(2).map(|pair| pair.iter().collect()).collect(),
        };
        pairs.iter().for_each(|pair| each(pair));
        word.clear();
        cjk.clear();
    };
    for c in text.chars() {
        if is_cjk(c) {
            if !word.is_empty() {
                flush(&mut word, &mut cjk);
            }
            cjk.push(han_variant(c));
        } else if c.is_alphanumeric() || (is_combining_mark(c) && !word.is_empty()) {
            if !cjk.is_empty() {
                flush(&mut word, &mut cjk);
            }
            word.push(c);
        } else {
            flush(&mut word, &mut cjk);
        }
    }
    flush(&mut word, &mut cjk);
}

fn push_word(word: &str, each: &mut impl FnMut(&str)) {
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
    if !(single_letter || folded.len() > MAX_TERM_BYTES || STOPWORDS.contains(&folded.as_str())) {
        each(&folded);
    }
}
