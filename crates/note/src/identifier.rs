//! Turning what a user or a link names into lookup keys (compat 4.9).

use super::permalink::generate_permalink;

/// Strips `[[ ]]`, a `|shown` alias and a `memory://` scheme; `proj::x` becomes `proj/x`.
pub fn normalize_identifier(raw: &str) -> String {
    let mut s = raw.trim();
    if let Some(inner) = s.strip_prefix("[[").and_then(|x| x.strip_suffix("]]")) {
        s = inner.trim();
    }
    if let Some(rest) = s.strip_prefix("memory://") {
        s = rest;
    }
    let s = s.split('|').next().unwrap_or(s).trim();
    s.replace("::", "/")
}

/// Permalinks an identifier may stand for: as given, its slug, the slug with the project
/// prefix, and the slug without a leading project segment.
pub fn permalink_candidates(identifier: &str, project_slug: &str) -> Vec<String> {
    let mut out = Vec::with_capacity(4);
    let mut push = |s: String| {
        if !s.is_empty() && !out.contains(&s) {
            out.push(s);
        }
    };
    push(identifier.to_string());
    let slug = generate_permalink(identifier, true);
    push(slug.clone());
    match slug.strip_prefix(&format!("{project_slug}/")) {
        Some(rest) => push(rest.to_string()),
        None => push(format!("{project_slug}/{slug}")),
    }
    out
}

/// A case-insensitive key for titles, paths and aliases: NFC, lowercased, `_` read as `-`.
pub fn lookup_key(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let s = s.trim();
    // ASCII is its own NFC: most keys skip the Unicode tables, where a bulk load's graph
    // writer otherwise spends a tenth of its time (resolving links).
    let mut key = if s.is_ascii() {
        s.to_ascii_lowercase()
    } else {
        s.nfc().collect::<String>().to_lowercase()
    };
    if key.contains('_') {
        key = key.replace('_', "-");
    }
    key
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_normalise() {
        let cases = [
            ("[[Search Design]]", "Search Design"),
            ("[[Target|Alias]]", "Target"),
            ("memory://specs/search-design", "specs/search-design"),
            ("proj::note", "proj/note"),
            ("  Test Note ", "Test Note"),
        ];
        for (input, expected) in cases {
            assert_eq!(normalize_identifier(input), expected);
        }
    }

    #[test]
    fn candidates_cover_prefixed_and_bare_forms() {
        assert_eq!(
            permalink_candidates("test/test-note", "main"),
            ["test/test-note", "main/test/test-note"]
        );
        assert_eq!(
            permalink_candidates("main/test/test-note", "main"),
            ["main/test/test-note", "test/test-note"]
        );
        assert_eq!(
            permalink_candidates("Test Note", "main"),
            ["Test Note", "test-note", "main/test-note"]
        );
        assert_eq!(
            permalink_candidates("test/Test Note.md", "main"),
            ["test/Test Note.md", "test/test-note", "main/test/test-note"]
        );
    }

    #[test]
    fn lookup_keys_fold_case_and_underscores() {
        let cases = [
            ("Search_Design", "search-design"),
            ("  Plain ASCII Title ", "plain ascii title"),
            ("Cafe\u{301}", "café"),
            ("ÉCOLE_D\u{2019}Été", "école-d\u{2019}été"),
            ("Straße", "straße"),
        ];
        for (text, key) in cases {
            assert_eq!(lookup_key(text), key, "{text:?}");
        }
    }
}
