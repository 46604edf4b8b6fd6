//! The query language of search_notes: `tag:` shorthand, AND / OR / NOT with parentheses in
//! disjunctive normal form, the relaxed OR retry without stopwords, milli filter literals, and
//! permalink globs.

use std::sync::LazyLock;

use regex::Regex;

pub use index::terms::STOPWORDS;

/// A worded query, parsed once: each thing the rankings, the union of boolean branches and the
/// snippets need of it.
pub(super) struct ParsedQuery {
    /// The query as asked (`tag:` shorthand taken out; `*` is no text): what milli's strict
    /// and boolean searches match, and what an embedding model reads whole.
    pub text: String,
    /// The disjunctive normal form of a boolean query, one milli query a branch.
    pub branches: Option<Vec<String>>,
    /// The text without its stopwords, for ranking.
    pub meaningful: String,
    /// Its terms as body relevance counts them (`index::terms`).
    pub terms: Vec<String>,
    /// The words a snippet should show.
    pub snippet_terms: Vec<String>,
}

impl ParsedQuery {
    pub fn new(text: &str) -> Self {
        let text = if text.trim() == "*" { "" } else { text.trim() };
        let meaningful = without_stopwords(text);
        ParsedQuery {
            branches: boolean_branches(text),
            terms: index::terms::terms(&meaningful),
            snippet_terms: snippet_terms(text),
            meaningful,
            text: text.to_string(),
        }
    }
}

/// A string literal for a milli filter expression.
pub(crate) fn filter_literal(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

pub(super) fn any_of(field: &str, values: &[String]) -> String {
    let list: Vec<String> = values.iter().map(|v| filter_literal(v)).collect();
    format!("{field} IN [{}]", list.join(", "))
}

/// A natural-language query without its stopwords ("how to create links" → "create links"),
/// so that ranking weighs the words that carry meaning. Quoted phrases stay whole; a query of
/// stopwords alone stays as it is.
pub(super) fn without_stopwords(query: &str) -> String {
    let mut kept: Vec<&str> = Vec::new();
    let mut in_quotes = false;
    for word in query.split_whitespace() {
        let quotes = word.matches('"').count();
        let bare = word
            .trim_matches(|c: char| "?!.,;:".contains(c))
            .to_lowercase();
        if in_quotes || quotes > 0 || !STOPWORDS.contains(&bare.as_str()) {
            kept.push(word);
        }
        if quotes % 2 == 1 {
            in_quotes = !in_quotes;
        }
    }
    if kept.is_empty() {
        query.trim().to_string()
    } else {
        kept.join(" ")
    }
}

/// The words a snippet should show: lowercase, without stopwords, boolean operators,
/// `NOT`-ed words' markers or punctuation at their edges.
pub(super) fn snippet_terms(query: &str) -> Vec<String> {
    let mut terms: Vec<String> = Vec::new();
    for word in query.split_whitespace() {
        if ["AND", "OR", "NOT"].contains(&word) {
            continue;
        }
        let bare = word
            .trim_matches(|c: char| !c.is_alphanumeric())
            .to_lowercase();
        if !bare.is_empty() && !STOPWORDS.contains(&bare.as_str()) && !terms.contains(&bare) {
            terms.push(bare);
        }
    }
    terms
}

/// Words of a query worth an OR retry: no stopwords, no duplicates (case-insensitive).
pub(super) fn relaxed_terms(query: &str) -> Option<Vec<String>> {
    if query.contains('"') {
        return None;
    }
    let words: Vec<&str> = query.split_whitespace().collect();
    let has_cjk = query
        .chars()
        .any(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c) || ('\u{3040}'..='\u{30FF}').contains(&c));
    let min_words = if has_cjk { 2 } else { 3 };
    if words.len() < min_words || words.iter().any(|w| w.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    let mut terms: Vec<String> = Vec::new();
    for w in words {
        let w = w.trim_matches(|c: char| "?!.,;:".contains(c));
        let lower = w.to_lowercase();
        if w.is_empty()
            || STOPWORDS.contains(&lower.as_str())
            || terms.iter().any(|t| t.to_lowercase() == lower)
        {
            continue;
        }
        terms.push(w.to_string());
    }
    (!terms.is_empty()).then_some(terms)
}

static TAG_TOKEN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)(^|\s)tag:(\S+)").unwrap());
static BOOLEAN_WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(AND|OR|NOT)\b").unwrap());

/// Splits `tag:` shorthand out of a query: (remaining text, tags).
pub(crate) fn extract_tags(query: &str) -> (String, Vec<String>) {
    if !TAG_TOKEN.is_match(query) {
        return (query.to_string(), Vec::new());
    }
    let mut tags = Vec::new();
    for caps in TAG_TOKEN.captures_iter(query) {
        tags.extend(
            caps[2]
                .split(',')
                .map(|t| t.trim().trim_start_matches('#').to_string())
                .filter(|t| !t.is_empty()),
        );
    }
    let without_tags = TAG_TOKEN.replace_all(query, " ");
    let text = BOOLEAN_WORD.replace_all(&without_tags, " ");
    (text.split_whitespace().collect::<Vec<_>>().join(" "), tags)
}

/// Most branches a boolean query may expand to.
const MAX_BRANCHES: usize = 32;

/// A boolean query as milli queries whose results are united: the query in disjunctive normal
/// form, each conjunction one milli query (`-word` excludes). `(a OR b) AND c NOT d` ->
/// [`a c -d`, `b c -d`]. Parentheses group; adjacent terms are ANDed.
pub(crate) fn boolean_branches(query: &str) -> Option<Vec<String>> {
    let tokens = tokenize(query);
    // An operator joins two operands (NOT precedes one); inside quotes it is a word.
    let operator_at = |i: usize| match tokens[i].as_str() {
        "AND" | "OR" => i > 0 && i + 1 < tokens.len(),
        "NOT" => i + 1 < tokens.len(),
        _ => false,
    };
    if !(0..tokens.len()).any(operator_at) {
        return None;
    }
    let mut pos = 0;
    let dnf = parse_or(&tokens, &mut pos);
    let branches: Vec<String> = dnf
        .into_iter()
        .take(MAX_BRANCHES)
        .map(|conj| {
            conj.into_iter()
                .map(|(term, negated)| if negated { format!("-{term}") } else { term })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|b| !b.trim().is_empty())
        .collect();
    Some(branches)
}

type Conjunction = Vec<(String, bool)>;

fn tokenize(query: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = query.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '(' | ')' => {
                tokens.push(c.to_string());
                chars.next();
            }
            '"' => {
                let mut phrase = String::from('"');
                chars.next();
                for c in chars.by_ref() {
                    phrase.push(c);
                    if c == '"' {
                        break;
                    }
                }
                tokens.push(phrase);
            }
            _ => {
                let mut word = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || c == '(' || c == ')' {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
                tokens.push(word);
            }
        }
    }
    tokens
}

fn parse_or(tokens: &[String], pos: &mut usize) -> Vec<Conjunction> {
    let mut result = parse_and(tokens, pos);
    while tokens.get(*pos).map(String::as_str) == Some("OR") {
        *pos += 1;
        result.extend(parse_and(tokens, pos));
    }
    result
}

fn parse_and(tokens: &[String], pos: &mut usize) -> Vec<Conjunction> {
    let mut result: Vec<Conjunction> = vec![Vec::new()];
    loop {
        match tokens.get(*pos).map(String::as_str) {
            None | Some(")") | Some("OR") => return result,
            Some("AND") => *pos += 1,
            Some(_) => {
                let operand = parse_unary(tokens, pos);
                result = cross(&result, &operand);
            }
        }
    }
}

fn parse_unary(tokens: &[String], pos: &mut usize) -> Vec<Conjunction> {
    match tokens.get(*pos).map(String::as_str) {
        Some("NOT") => {
            *pos += 1;
            negate(&parse_unary(tokens, pos))
        }
        Some("(") => {
            *pos += 1;
            let inner = parse_or(tokens, pos);
            if tokens.get(*pos).map(String::as_str) == Some(")") {
                *pos += 1;
            }
            inner
        }
        Some(term) => {
            *pos += 1;
            vec![vec![(term.to_string(), false)]]
        }
        None => vec![Vec::new()],
    }
}

fn cross(a: &[Conjunction], b: &[Conjunction]) -> Vec<Conjunction> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            if out.len() >= MAX_BRANCHES {
                return out;
            }
            out.push(x.iter().chain(y.iter()).cloned().collect());
        }
    }
    out
}

/// De Morgan: NOT (c1 OR c2) = NOT c1 AND NOT c2; NOT (l1 AND l2) = NOT l1 OR NOT l2.
fn negate(dnf: &[Conjunction]) -> Vec<Conjunction> {
    let mut result: Vec<Conjunction> = vec![Vec::new()];
    for conj in dnf {
        let alternatives: Vec<Conjunction> =
            conj.iter().map(|(t, n)| vec![(t.clone(), !n)]).collect();
        result = cross(&result, &alternatives);
    }
    result
}

/// A permalink glob (`*` = anything, `?` = one character), matched case-insensitively.
pub(super) fn permalink_glob(pattern: &str) -> Regex {
    let mut re = String::from("(?i)^");
    for c in pattern.chars() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            other => re.push_str(&regex::escape(&other.to_string())),
        }
    }
    re.push('$');
    Regex::new(&re).expect("an escaped glob is a valid regex")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn snippet_terms_are_the_words_that_carry_meaning() {
        let cases: &[(&str, &[&str])] = &[
            ("How do I sync my Vault?", &["sync", "my", "vault"]),
            ("coffee AND (tea OR NOT milk)", &["coffee", "tea", "milk"]),
            ("\"exact phrase\" exact", &["exact", "phrase"]),
            ("Café 同期", &["café", "同期"]),
            ("the of", &[]),
        ];
        for (query, want) in cases {
            assert_eq!(snippet_terms(query), *want, "{query:?}");
        }
    }

    #[test]
    fn stopwords_leave_natural_language_queries() {
        let cases = [
            (
                "how to create internal links between notes",
                "create internal links between notes",
            ),
            ("What is the Graph view?", "Graph view?"),
            ("\"the end of it\" is near", "\"the end of it\" near"),
            ("to be or it", "to be or it"),
            ("café à la carte", "café à la carte"),
            ("", ""),
        ];
        for (query, want) in cases {
            assert_eq!(without_stopwords(query), want, "{query:?}");
        }
    }

    #[test]
    fn relaxed_terms_follow_compat() {
        let cases: &[(&str, Option<Vec<&str>>)] = &[
            (
                "alice tea acme zebra",
                Some(vec!["alice", "tea", "acme", "zebra"]),
            ),
            ("what is the sync watcher", Some(vec!["sync", "watcher"])),
            ("two words", None),
            ("\"quoted phrase here\"", None),
            ("release 2024 notes", None),
            ("Sync sync SYNC", Some(vec!["Sync"])),
            ("the and of", None),
            ("日本語 メモ", Some(vec!["日本語", "メモ"])),
        ];
        for (query, expected) in cases {
            let got = relaxed_terms(query);
            let expected = expected
                .as_ref()
                .map(|v| v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            assert_eq!(got, expected, "{query}");
        }
    }

    #[test]
    fn tag_shorthand_and_booleans() {
        assert_eq!(
            extract_tags("tag:coffee"),
            (String::new(), vec!["coffee".to_string()])
        );
        assert_eq!(
            extract_tags("tag:a,b brewing"),
            (
                "brewing".to_string(),
                vec!["a".to_string(), "b".to_string()]
            )
        );
        assert_eq!(
            extract_tags("tag:x AND tag:y"),
            (String::new(), vec!["x".to_string(), "y".to_string()])
        );
        assert_eq!(
            extract_tags("plain words"),
            ("plain words".to_string(), vec![])
        );
        let cases: &[(&str, Option<&[&str]>)] = &[
            ("a AND b NOT c OR d", Some(&["a b -c", "d"])),
            (
                "(coffee OR tea) AND milk",
                Some(&["coffee milk", "tea milk"]),
            ),
            ("coffee AND NOT (tea OR milk)", Some(&["coffee -tea -milk"])),
            ("NOT (a AND b) AND c", Some(&["-a c", "-b c"])),
            (
                "\"exact phrase\" OR other",
                Some(&["\"exact phrase\"", "other"]),
            ),
            ("and or not", None),
            ("\"this AND that\"", None),
            ("dangling AND", None),
        ];
        for (query, expected) in cases {
            let expected = expected.map(|e| e.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            assert_eq!(boolean_branches(query), expected, "{query}");
        }
    }

    #[test]
    fn filter_literals_escape_quotes() {
        assert_eq!(filter_literal(r#"a "b" \c"#), r#""a \"b\" \\c""#);
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn any_query_parses_into_a_bounded_number_of_branches(query in any::<String>()) {
            let (text, _tags) = extract_tags(&query);
            if let Some(branches) = boolean_branches(&text) {
                prop_assert!(branches.len() <= MAX_BRANCHES);
            }
            let _ = relaxed_terms(&text);
        }

        #[test]
        fn boolean_words_in_any_order_never_panic(words in proptest::collection::vec("(AND|OR|NOT|\\(|\\)|[a-z]{1,4}|\"[a-z ]{0,5}\"?)", 0..24)) {
            let query = words.join(" ");
            if let Some(branches) = boolean_branches(&query) {
                prop_assert!(branches.len() <= MAX_BRANCHES);
            }
        }
    }
}
