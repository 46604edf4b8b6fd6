//! From a note's title and folder to its file path (compat 4.7).

use super::permalink::generate_permalink;

fn collapse(s: &str, c: char) -> String {
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        if ch == c && out.ends_with(c) {
            continue;
        }
        out.push(ch);
    }
    out
}

/// `Coupon Enable/Disable: v2.0?` -> `Coupon Enable-Disable- v2.0`. Case and spaces are kept.
pub fn sanitize_for_filename(title: &str) -> String {
    let replaced: String = title
        .chars()
        .map(|c| if "/\\<>:\"|?*".contains(c) { '-' } else { c })
        .collect();
    collapse(&replaced, '-')
        .trim_matches('.')
        .trim_matches('-')
        .to_string()
}

/// The longest file stem gitmem makes from a name it did not choose (an import's title, an
/// entity's name), in bytes: with ` (n)`, `.md` and a temp file's prefix and suffix it stays
/// under the 255 bytes most file systems allow.
const MAX_STEM_BYTES: usize = 180;

/// A file stem for a name from elsewhere: as [`sanitize_for_filename`], with control characters
/// as spaces, no leading dot or space (a hidden file is never indexed), cut at a character
/// boundary to [`MAX_STEM_BYTES`]; `None` when nothing is left.
pub fn foreign_file_stem(name: &str) -> Option<String> {
    let visible: String = name
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let visible = visible.split_whitespace().collect::<Vec<_>>().join(" ");
    let sanitized = sanitize_for_filename(&visible);
    let mut stem = sanitized.trim_start_matches(['.', ' ', '-']).to_string();
    if stem.len() > MAX_STEM_BYTES {
        let mut end = MAX_STEM_BYTES;
        while !stem.is_char_boundary(end) {
            end -= 1;
        }
        stem.truncate(end);
    }
    let stem = stem.trim_end_matches(['.', ' ', '-']).to_string();
    (!stem.is_empty()).then_some(stem)
}

/// The folder of an entity of the knowledge graph: its type as one folder name, `entity` when
/// the type makes none.
pub fn entity_type_folder(entity_type: &str) -> String {
    foreign_file_stem(entity_type).unwrap_or_else(|| "entity".to_string())
}

/// Keeps letters, digits, `.`, space, `-`, `_` and separators; `./a//b/` -> `a/b`.
pub fn sanitize_for_directory(directory: &str) -> String {
    let trimmed = directory.trim();
    let trimmed = trimmed.strip_prefix("./").unwrap_or(trimmed);
    let kept: String = trimmed
        .chars()
        .filter(|c| c.is_alphanumeric() || matches!(c, '.' | ' ' | '-' | '_' | '\\' | '/'))
        .collect();
    let unified = kept.trim_end().replace('\\', "/");
    collapse(&unified, '/').trim_matches('/').to_string()
}

/// The project-relative path of a note titled `title` in `directory`.
pub fn note_file_path(directory: &str, title: &str, kebab_filenames: bool) -> String {
    let mut name = sanitize_for_filename(title);
    if kebab_filenames {
        name = generate_permalink(&name, false);
    }
    let dir = sanitize_for_directory(directory);
    if dir.is_empty() {
        format!("{name}.md")
    } else {
        format!("{dir}/{name}.md")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_from_titles() {
        let cases = [
            (
                "Coupon Enable/Disable: v2.0?",
                "Coupon Enable-Disable- v2.0",
            ),
            ("Test Note", "Test Note"),
            ("a<b>c\"d|e*f", "a-b-c-d-e-f"),
            ("...dots...", "dots"),
            ("--dash--", "dash"),
            ("back\\slash", "back-slash"),
            ("日本語のメモ", "日本語のメモ"),
        ];
        for (title, expected) in cases {
            assert_eq!(sanitize_for_filename(title), expected, "{title:?}");
        }
    }

    #[test]
    fn directories_are_cleaned() {
        let cases = [
            ("test", "test"),
            ("./notes/", "notes"),
            ("/", ""),
            ("a\\\\b//c", "a/b/c"),
            ("  spaced dir  ", "spaced dir"),
            ("we!rd$chars", "werdchars"),
            ("Über/ordner", "Über/ordner"),
        ];
        for (dir, expected) in cases {
            assert_eq!(sanitize_for_directory(dir), expected, "{dir:?}");
        }
    }

    #[test]
    fn names_from_elsewhere_make_visible_files_of_bounded_length() {
        let long = "L".repeat(300);
        let cjk = "漢".repeat(100);
        let cases: [(&str, Option<String>); 9] = [
            ("Alice Smith", Some("Alice Smith".into())),
            ("---", None),
            ("..", None),
            ("***", None),
            (".hidden", Some("hidden".into())),
            ("line1\nline2\t end", Some("line1 line2 end".into())),
            ("a/b: c", Some("a-b- c".into())),
            (long.as_str(), Some("L".repeat(180))),
            (cjk.as_str(), Some("漢".repeat(60))),
        ];
        for (name, expected) in cases {
            assert_eq!(foreign_file_stem(name), expected, "{name:?}");
        }
        for (entity_type, folder) in [("person", "person"), ("..", "entity"), ("a/b", "a-b")] {
            assert_eq!(entity_type_folder(entity_type), folder);
        }
    }

    #[test]
    fn file_paths() {
        assert_eq!(
            note_file_path("test", "Test Note", false),
            "test/Test Note.md"
        );
        assert_eq!(
            note_file_path("/", "Coupon Enable/Disable: v2.0?", false),
            "Coupon Enable-Disable- v2.0.md"
        );
        assert_eq!(
            note_file_path("", "My Awesome Note", true),
            "my-awesome-note.md"
        );
        assert_eq!(
            note_file_path("", "Test 3.0 Version", true),
            "test-3.0-version.md"
        );
    }
}
