//! Permalink slugs, ported from Basic Memory's `generate_permalink` (compat 4.6), and the
//! synthetic permalinks of observations and relations.

use sha2::{Digest, Sha256};

/// Extensions Python's `mimetypes` knows; only these are dropped from a path before slugging,
/// so `Version 2.0.0` keeps its dots.
const KNOWN_EXTENSIONS: &[&str] = &[
    "md", "markdown", "txt", "text", "json", "pdf", "png", "jpg", "jpeg", "gif", "svg", "webp",
    "bmp", "ico", "tif", "tiff", "html", "htm", "css", "js", "mjs", "py", "csv", "tsv", "xml",
    "zip", "gz", "tar", "mp3", "mp4", "wav", "ogg", "webm", "mov", "avi", "doc", "docx", "xls",
    "xlsx", "ppt", "pptx", "rtf", "sh", "c", "h", "rs", "java", "wasm", "epub", "odt", "canvas",
];

fn is_cjk(c: char) -> bool {
    matches!(c, '\u{4E00}'..='\u{9FFF}' | '\u{3000}'..='\u{303F}' | '\u{3400}'..='\u{4DBF}')
}

fn is_fullwidth(c: char) -> bool {
    matches!(c, '\u{FF00}'..='\u{FFEF}')
}

/// Drops a known file extension from the last path segment.
pub fn strip_known_extension(path: &str) -> &str {
    let last_segment_start = path.rfind('/').map(|i| i + 1).unwrap_or(0);
    let name = &path[last_segment_start..];
    match name.rfind('.') {
        Some(dot) if dot > 0 => {
            let ext = name[dot + 1..].to_ascii_lowercase();
            if KNOWN_EXTENSIONS.contains(&ext.as_str()) {
                &path[..last_segment_start + dot]
            } else {
                path
            }
        }
        _ => path,
    }
}

/// Slugs a path: `docs/My Feature.md` -> `docs/my-feature`, `中文/测试文档.md` -> `中文/测试文档`.
pub fn generate_permalink(path: &str, split_extension: bool) -> String {
    let path = path.replace('\\', "/");
    let base = if split_extension {
        strip_known_extension(&path)
    } else {
        &path
    };
    let cjk_mode = base.chars().any(|c| is_cjk(c) || is_fullwidth(c));
    let transliterated = if cjk_mode {
        transliterate_keeping_cjk(base)
    } else {
        deunicode::deunicode(base)
    };
    let split = split_camel_case(&transliterated);
    let lowered: String = if cjk_mode {
        split.chars().map(|c| c.to_ascii_lowercase()).collect()
    } else {
        split.to_lowercase()
    };
    let replaced: String = lowered
        .chars()
        .filter(|&c| c != '\'')
        .map(|c| match c {
            '_' => '-',
            'a'..='z' | '0'..='9' | '/' | '-' | '.' => c,
            c if cjk_mode && is_cjk(c) => c,
            _ => '-',
        })
        .collect();
    replaced
        .split('/')
        .map(|segment| collapse_dashes(segment).trim_matches('-').to_string())
        .collect::<Vec<_>>()
        .join("/")
}

fn transliterate_keeping_cjk(s: &str) -> String {
    let mut out = String::with_capacity(s.len() * 2);
    let mut prev: Option<char> = None;
    for c in s.chars() {
        if is_fullwidth(c) {
            continue;
        }
        let piece = if is_cjk(c) {
            c.to_string()
        } else {
            deunicode::deunicode_char(c).unwrap_or("").to_string()
        };
        if let (Some(p), Some(first)) = (prev, piece.chars().next()) {
            let boundary = (is_cjk(p) && first.is_ascii_alphanumeric())
                || (p.is_ascii_alphanumeric() && is_cjk(first));
            if boundary {
                out.push('-');
            }
        }
        out.push_str(&piece);
        prev = piece.chars().last().or(prev);
    }
    out
}

fn split_camel_case(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    let mut prev: Option<char> = None;
    for c in s.chars() {
        if let Some(p) = prev {
            if (p.is_ascii_lowercase() || p.is_ascii_digit()) && c.is_ascii_uppercase() {
                out.push('-');
            }
        }
        out.push(c);
        prev = Some(c);
    }
    out
}

fn collapse_dashes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '-' && out.ends_with('-') {
            continue;
        }
        out.push(c);
    }
    out
}

/// The permalink a note gets from its project-relative path: the project slug, then the slug of
/// the path (compat 4.6, `permalinks_include_project`).
pub fn note_permalink(project: &str, file_path: &str, include_project: bool) -> String {
    let mut slug = generate_permalink(file_path, true);
    if slug.is_empty() || slug.ends_with('/') {
        // A file name of punctuation alone (`!!!.md`) slugs to nothing: name it by a hash of
        // the file name instead, so that `!!!` and `#` get permalinks of their own.
        use sha2::Digest;
        let name = file_path.rsplit('/').next().unwrap_or(file_path);
        let digest = hex::encode(sha2::Sha256::digest(name.as_bytes()));
        slug.push_str(&format!("note-{}", &digest[..8]));
    }
    if !include_project {
        return slug;
    }
    let project_slug = generate_permalink(project, false);
    if slug == project_slug || slug.starts_with(&format!("{project_slug}/")) {
        slug
    } else {
        format!("{project_slug}/{slug}")
    }
}

/// Snake-cases a note type: `Task Item`, `TaskItem`, `task-item` -> `task_item`.
pub fn normalize_note_type(note_type: &str) -> String {
    let trimmed = note_type.trim();
    let mut out = String::with_capacity(trimmed.len() + 4);
    let mut prev: Option<char> = None;
    for c in trimmed.chars() {
        let c = if c.is_whitespace() || c == '-' || c == '\\' || c == '.' {
            '_'
        } else {
            c
        };
        if let Some(p) = prev {
            if (p.is_ascii_lowercase() || p.is_ascii_digit()) && c.is_ascii_uppercase() {
                out.push('_');
            }
        }
        out.push(c);
        prev = Some(c);
    }
    out.to_lowercase()
}

/// The observation's synthetic permalink (compat 4.4).
pub fn observation_permalink(note_permalink: &str, category: &str, content: &str) -> String {
    let content = if content.chars().count() > 200 {
        format!(
            "{}-{}",
            &content[..content
                .char_indices()
                .nth(200)
                .map_or(content.len(), |(i, _)| i)],
            &hex::encode(Sha256::digest(content.as_bytes()))[..12]
        )
    } else {
        content.to_string()
    };
    generate_permalink(
        &format!("{note_permalink}/observations/{category}/{content}"),
        false,
    )
}

/// The relation's synthetic permalink (compat 4.5).
pub fn relation_permalink(from_permalink: &str, relation_type: &str, to: &str) -> String {
    generate_permalink(&format!("{from_permalink}/{relation_type}/{to}"), false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn synthetic_permalinks_follow_compat() {
        assert_eq!(
            observation_permalink(
                "main/specs/search-design",
                "tech",
                "Uses SQLite FTS5 #search #db"
            ),
            "main/specs/search-design/observations/tech/uses-sqlite-fts5-search-db"
        );
        let long = "word ".repeat(60);
        let permalink = observation_permalink("main/n", "fact", &long);
        let hash = &hex::encode(Sha256::digest(long.as_bytes()))[..12];
        assert!(permalink.ends_with(hash), "{permalink}");
        assert_eq!(
            relation_permalink(
                "main/person/alice-smith",
                "works_at",
                "main/organization/acme-corp"
            ),
            "main/person/alice-smith/works-at/main/organization/acme-corp"
        );
    }

    #[test]
    fn slugs_match_upstream_examples() {
        let cases = [
            ("docs/My Feature.md", "docs/my-feature"),
            ("specs/API (v2).md", "specs/api-v2"),
            (
                "design/unified_model_refactor.md",
                "design/unified-model-refactor",
            ),
            ("MIXED_CASE_NAME.md", "mixed-case-name"),
            ("test/Über File.md", "test/uber-file"),
            ("papers/Jürgen's Findings.md", "papers/jurgens-findings"),
            ("ArticlesElNiño.md", "articles-el-nino"),
            ("中文/测试文档.md", "中文/测试文档"),
            ("articles/东京Tokyo混合.md", "articles/东京-tokyo-混合"),
            (
                "projects/中文CamelCase测试.md",
                "projects/中文-camel-case-测试",
            ),
            ("special/中文!@#$%^&*()_+.md", "special/中文"),
            ("punctuation/你好，世界!.md", "punctuation/你好世界"),
            ("Version 2.0.0", "version-2.0.0"),
            ("Version 2.0.0.md", "version-2.0.0"),
            ("notes/My Note.md", "notes/my-note"),
            (
                "Coupon Enable-Disable- v2.0.md",
                "coupon-enable-disable-v2.0",
            ),
            ("test/Test Note.md", "test/test-note"),
            ("camelCaseName", "camel-case-name"),
            ("  --Leading and trailing--  ", "leading-and-trailing"),
            ("a//b", "a//b"),
            ("Ελληνικά σημειώσεις.md", "ellenika-semeioseis"),
            ("Straße Index 9.md", "strasse-index-9"),
        ];
        for (input, expected) in cases {
            assert_eq!(generate_permalink(input, true), expected, "input {input:?}");
        }
    }

    #[test]
    fn extension_split_is_optional() {
        assert_eq!(generate_permalink("notes/a.md", false), "notes/a.md");
        assert_eq!(generate_permalink("search_design", false), "search-design");
        assert_eq!(generate_permalink("image.PNG", true), "image");
    }

    #[test]
    fn note_permalinks_carry_the_project_slug() {
        let cases = [
            ("main", "notes/My Note.md", true, "main/notes/my-note"),
            ("main", "test/Test Note.md", true, "main/test/test-note"),
            ("My Research", "a.md", true, "my-research/a"),
            ("main", "main/x.md", true, "main/x"),
            ("main", "notes/My Note.md", false, "notes/my-note"),
        ];
        for (project, path, include, expected) in cases {
            assert_eq!(note_permalink(project, path, include), expected);
        }
    }

    #[test]
    fn note_types_are_snake_cased() {
        let cases = [
            ("Task Item", "task_item"),
            ("TaskItem", "task_item"),
            ("task-item", "task_item"),
            ("  person ", "person"),
            ("Person", "person"),
            ("a.b\\c", "a_b_c"),
        ];
        for (input, expected) in cases {
            assert_eq!(normalize_note_type(input), expected);
        }
    }
}
