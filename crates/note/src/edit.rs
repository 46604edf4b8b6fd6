//! The text operations of `edit_note` (compat 2.4). Pure: text in, text out.
//!
//! Operations work on the whole file text, front matter included, as Basic Memory does. Two
//! deliberate differences keep users' bytes stable: `prepend` leaves the front matter block
//! exactly as written instead of re-serialising the YAML (and does not strip the end of the
//! file), and heading lines inside the front matter are never taken for sections. A file whose
//! every line ends with `\r\n` is edited as if it used `\n` and written back with `\r\n`.

use super::markdown::{fenced_flags, heading_level, join_separator, BOM};
use super::section::{insert_relative, normalize_header, replace_section, Unmatched};
use serde_json::{Map, Value};

use super::frontmatter;
use super::permalink::normalize_note_type;

/// One `edit_note` operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Operation {
    Append,
    Prepend,
    FindReplace,
    ReplaceSection,
    InsertBeforeSection,
    InsertAfterSection,
}

impl Operation {
    /// The operation names in the order the tool schema advertises them.
    pub const ALL: [&'static str; 6] = [
        "append",
        "prepend",
        "find_replace",
        "replace_section",
        "insert_before_section",
        "insert_after_section",
    ];

    /// Reads an operation name (`"append"`, `"find_replace"`, ...); anything else is `None`.
    pub fn parse(s: &str) -> Option<Operation> {
        Some(match s {
            "append" => Operation::Append,
            "prepend" => Operation::Prepend,
            "find_replace" => Operation::FindReplace,
            "replace_section" => Operation::ReplaceSection,
            "insert_before_section" => Operation::InsertBeforeSection,
            "insert_after_section" => Operation::InsertAfterSection,
            _ => return None,
        })
    }

    /// The operation's name as the tool takes it.
    pub fn name(self) -> &'static str {
        match self {
            Operation::Append => "append",
            Operation::Prepend => "prepend",
            Operation::FindReplace => "find_replace",
            Operation::ReplaceSection => "replace_section",
            Operation::InsertBeforeSection => "insert_before_section",
            Operation::InsertAfterSection => "insert_after_section",
        }
    }
}

/// Why an edit was refused; the messages are Basic Memory's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    #[error("find_text parameter is required for find_replace operation")]
    MissingFindText,
    #[error("section parameter is required for {0} operation")]
    MissingSection(&'static str),
    #[error("Text to replace not found: '{0}'")]
    TextNotFound(String),
    #[error("Expected {expected} occurrences of '{text}', but found {found}")]
    WrongCount {
        text: String,
        expected: usize,
        found: usize,
    },
    #[error(
        "Multiple sections found with header '{0}'. Section replacement requires unique headers."
    )]
    DuplicateSection(String),
    #[error("Section '{0}' not found in document. Use append with a heading and content to create a new section.")]
    SectionNotFound(String),
    #[error("Section '{0}' not found in document. Read the note and use the exact heading, including any trailing tags or text. Use append with a heading and content to create a new section.")]
    ReplacedSectionNotFound(String),
}

/// The parameters of one edit.
#[derive(Debug, Clone, Copy)]
pub struct EditRequest<'a> {
    pub operation: Operation,
    pub content: &'a str,
    /// The section header (`"## Notes"`, or `"Notes"` meaning `"## Notes"`).
    pub section: Option<&'a str>,
    pub find_text: Option<&'a str>,
    /// How many occurrences `find_replace` must find (the tool's default is 1).
    pub expected_replacements: usize,
    /// Whether `replace_section` also replaces deeper headings (the tool's default is true).
    pub replace_subsections: bool,
}

/// Applies the operation to the whole file text and returns the new text.
pub fn apply(text: &str, req: &EditRequest) -> Result<String, EditError> {
    if !uses_crlf(text) {
        return apply_lf(text, req);
    }
    let logical = text.replace("\r\n", "\n");
    let content = req.content.replace("\r\n", "\n");
    let find_text = req.find_text.map(|f| f.replace("\r\n", "\n"));
    let inner = EditRequest {
        content: &content,
        find_text: find_text.as_deref(),
        ..*req
    };
    let original_find = req.find_text.unwrap_or_default().to_string();
    match apply_lf(&logical, &inner) {
        Ok(out) => Ok(out.replace('\n', "\r\n")),
        Err(EditError::TextNotFound(_)) => Err(EditError::TextNotFound(original_find)),
        Err(EditError::WrongCount {
            expected, found, ..
        }) => Err(EditError::WrongCount {
            text: original_find,
            expected,
            found,
        }),
        Err(other) => Err(other),
    }
}

/// Merges metadata keys into the front matter, editing only the lines of the keys that change.
/// `title` and `permalink` are ignored, `type` is snake-cased; a key whose value is already
/// equal is left as written. Rejecting null values (and a `type` that is not text) is the
/// caller's job.
pub fn merge_metadata(text: &str, metadata: &Map<String, Value>) -> String {
    let current = frontmatter::locate(text)
        .and_then(|block| frontmatter::parse_yaml(&text[block.yaml]).ok())
        .unwrap_or_default();
    let mut out = text.to_string();
    for (key, value) in metadata {
        // The title follows the H1 and the permalink is the note's identity: neither is set
        // here. `type` is, snake-cased as write_note's `note_type` (Basic Memory 0.24).
        let value = match (key.as_str(), value) {
            ("title" | "permalink", _) => continue,
            ("type", Value::String(t)) => Value::String(normalize_note_type(t)),
            _ => value.clone(),
        };
        if current.get(key) != Some(&value) {
            out = frontmatter::set_key(&out, key, &value);
        }
    }
    out
}

/// The text of the first `# ` heading of the body, outside fenced code.
pub fn first_h1(text: &str) -> Option<String> {
    let body = frontmatter::body(text);
    let lines: Vec<&str> = body.split('\n').collect();
    let fenced = fenced_flags(&lines, 0);
    lines
        .iter()
        .zip(fenced)
        .filter(|(_, fenced)| !fenced)
        .find_map(|(line, _)| {
            let line = line.strip_prefix(BOM).unwrap_or(line);
            let line = line.strip_suffix('\r').unwrap_or(line);
            if heading_level(line)? != 1 {
                return None;
            }
            let title = line.trim_start_matches(' ')[1..].trim();
            (!title.is_empty()).then(|| title.to_string())
        })
}

/// The human summary for the `operation:` line of the tool's output.
pub fn summary(req: &EditRequest) -> String {
    let section = req.section.unwrap_or_default();
    match req.operation {
        Operation::Append => format!(
            "Added {} lines to end of note",
            req.content.split('\n').count()
        ),
        Operation::Prepend => format!(
            "Added {} lines to beginning of note",
            req.content.split('\n').count()
        ),
        Operation::FindReplace => "Find and replace operation completed".to_string(),
        Operation::ReplaceSection => format!("Replaced content under section '{section}'"),
        Operation::InsertBeforeSection => format!("Inserted content before section '{section}'"),
        Operation::InsertAfterSection => format!("Inserted content after section '{section}'"),
    }
}

/// True when the text has line breaks and every one of them is `\r\n`.
fn uses_crlf(text: &str) -> bool {
    let crlf = text.matches("\r\n").count();
    crlf > 0 && crlf == text.matches('\n').count()
}

/// `apply` for text whose line breaks are handled as `\n`.
fn apply_lf(text: &str, req: &EditRequest) -> Result<String, EditError> {
    let content = req.content;
    match req.operation {
        Operation::Append => {
            let sep = join_separator(text, content, frontmatter::body(text));
            Ok(format!("{text}{sep}{content}"))
        }
        Operation::Prepend => Ok(prepend(text, content)),
        Operation::FindReplace => {
            let find = req
                .find_text
                .filter(|f| !f.trim().is_empty())
                .ok_or(EditError::MissingFindText)?;
            let found = text.matches(find).count();
            if found != req.expected_replacements {
                return Err(if found == 0 {
                    EditError::TextNotFound(find.to_string())
                } else {
                    EditError::WrongCount {
                        text: find.to_string(),
                        expected: req.expected_replacements,
                        found,
                    }
                });
            }
            Ok(text.replace(find, content))
        }
        Operation::ReplaceSection => {
            let header = normalize_header(required_section(req)?);
            replace_section(text, &header, content, req.replace_subsections).map_err(|unmatched| {
                match unmatched {
                    Unmatched::Missing => EditError::ReplacedSectionNotFound(header),
                    Unmatched::Duplicate => EditError::DuplicateSection(header),
                }
            })
        }
        Operation::InsertBeforeSection | Operation::InsertAfterSection => {
            let header = normalize_header(required_section(req)?);
            let before = req.operation == Operation::InsertBeforeSection;
            insert_relative(text, &header, content, before)
                .map_err(|unmatched| unmatched_section(unmatched, header))
        }
    }
}

fn unmatched_section(unmatched: Unmatched, header: String) -> EditError {
    match unmatched {
        Unmatched::Missing => EditError::SectionNotFound(header),
        Unmatched::Duplicate => EditError::DuplicateSection(header),
    }
}

fn required_section<'a>(req: &EditRequest<'a>) -> Result<&'a str, EditError> {
    req.section
        .filter(|s| !s.trim().is_empty())
        .ok_or(EditError::MissingSection(req.operation.name()))
}

/// Prepend: after the front matter (kept byte for byte) comes one blank line, the content, and
/// the old body without its leading blank lines. Without front matter the content goes first.
fn prepend(text: &str, content: &str) -> String {
    let Some(block) = frontmatter::locate(text) else {
        let (bom, rest) = match text.strip_prefix(BOM) {
            Some(rest) => (BOM, rest),
            None => ("", text),
        };
        let sep = join_separator(content, rest, frontmatter::body(content));
        return format!("{bom}{content}{sep}{rest}");
    };
    let head = &text[..block.body_start];
    let content = skip_blank_lines(content);
    let fence_end = if head.ends_with('\n') { "" } else { "\n" };
    let body = skip_blank_lines(&text[block.body_start..]);
    // The prepended text opens the body, so any `---` in it is markdown, not front matter.
    let sep = join_separator(content, body, content);
    format!("{head}{fence_end}\n{content}{sep}{body}")
}

/// `s` without its leading whitespace-only lines.
fn skip_blank_lines(mut s: &str) -> &str {
    loop {
        match s.find('\n') {
            Some(i) if s[..i].trim().is_empty() => s = &s[i + 1..],
            Some(_) => return s,
            None => return if s.trim().is_empty() { "" } else { s },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DOC: &str = "# Doc\n\n## A\na\n\n### A1\nsub\n\n## B\nb";

    pub(super) fn req<'a>(operation: Operation, content: &'a str) -> EditRequest<'a> {
        EditRequest {
            operation,
            content,
            section: None,
            find_text: None,
            expected_replacements: 1,
            replace_subsections: true,
        }
    }

    fn section<'a>(operation: Operation, section: &'a str, content: &'a str) -> EditRequest<'a> {
        EditRequest {
            section: Some(section),
            ..req(operation, content)
        }
    }

    fn find<'a>(find_text: &'a str, content: &'a str, expected: usize) -> EditRequest<'a> {
        EditRequest {
            find_text: Some(find_text),
            expected_replacements: expected,
            ..req(Operation::FindReplace, content)
        }
    }

    #[test]
    fn operation_names_round_trip() {
        for name in Operation::ALL {
            assert_eq!(Operation::parse(name).unwrap().name(), name);
        }
        for bogus in ["bogus", "", "Append", " append", "replace"] {
            assert_eq!(Operation::parse(bogus), None, "{bogus:?}");
        }
    }

    /// Compat 13 item 11.
    #[test]
    fn compat_section_cases() {
        use Operation::*;
        let no_sub = EditRequest {
            replace_subsections: false,
            ..section(ReplaceSection, "## A", "new")
        };
        let cases: Vec<(EditRequest, &str)> = vec![
            (
                section(ReplaceSection, "## A", "new"),
                "# Doc\n\n## A\nnew\n## B\nb",
            ),
            (no_sub, "# Doc\n\n## A\nnew\n### A1\nsub\n\n## B\nb"),
            (
                section(InsertAfterSection, "B", "X"),
                "# Doc\n\n## A\na\n\n### A1\nsub\n\n## B\nX\n\nb",
            ),
        ];
        for (request, expected) in cases {
            assert_eq!(apply(DOC, &request).unwrap(), expected, "{request:?}");
        }
        assert_eq!(
            apply(DOC, &section(ReplaceSection, "## Missing", "X")),
            Err(EditError::ReplacedSectionNotFound("## Missing".into()))
        );
        let replaced = apply(DOC, &section(ReplaceSection, "## A", "new")).unwrap();
        assert!(replaced.contains("## A\nnew\n## B") && !replaced.contains("### A1"));
        assert_eq!(
            apply(DOC, &find("a", "z", 3)),
            Err(EditError::WrongCount {
                text: "a".into(),
                expected: 3,
                found: 1
            })
        );
        assert_eq!(Operation::parse("bogus"), None);
    }

    /// The example of compat 2.4.
    #[test]
    fn compat_example_sequence() {
        use Operation::*;
        let start = "---\ntitle: Edit Doc\ntype: note\npermalink: main/ed/edit-doc\ntags:\n- x\n---\n\n# Doc\n\nintro\n\n## A\na text\n\n### A1\nsub\n\n```\n# not heading\n```\n\n## B\nb text";
        let steps = [
            req(Prepend, "PRE"),
            section(ReplaceSection, "## A", "replaced A"),
            section(InsertAfterSection, "B", "after B heading"),
        ];
        let mut text = start.to_string();
        for step in &steps {
            text = apply(&text, step).unwrap();
        }
        assert_eq!(
            text,
            "---\ntitle: Edit Doc\ntype: note\npermalink: main/ed/edit-doc\ntags:\n- x\n---\n\nPRE\n# Doc\n\nintro\n\n## A\nreplaced A\n## B\nafter B heading\n\nb text"
        );
    }

    #[test]
    fn append_and_prepend() {
        use Operation::*;
        let cases: &[(Operation, &str, &str, &str)] = &[
            (Append, "a", "b", "a\nb"),
            (Append, "a\n", "b", "a\nb"),
            (Append, "a\n\n", "b\n", "a\n\nb\n"),
            (Append, "", "b", "b"),
            // `---` after a paragraph is a thematic break, not the paragraph's underline: a
            // blank line keeps it one (Basic Memory 0.24). After a list, a heading or a blank
            // line, and for any other text, one newline joins as before.
            (Append, "para", "---", "para\n\n---"),
            (Append, "para\n", "---\nmore", "para\n\n---\nmore"),
            (Append, "para\n", "===", "para\n\n==="),
            (Append, "- item\n", "---", "- item\n---"),
            (Append, "# T\n", "---", "# T\n---"),
            (Append, "para\n\n", "---", "para\n\n---"),
            (Append, "```\ncode\n", "---", "```\ncode\n---"),
            (
                Append,
                "---\ntitle: T\n---\n",
                "---",
                "---\ntitle: T\n---\n---",
            ),
            (Prepend, "---\nbody", "para", "para\n\n---\nbody"),
            (
                Prepend,
                "---\ntitle: T\n---\n\n---\nrest",
                "para",
                "---\ntitle: T\n---\n\npara\n\n---\nrest",
            ),
            (Prepend, "body", "PRE", "PRE\nbody"),
            (Prepend, "body", "PRE\n", "PRE\nbody"),
            (Prepend, "", "PRE", "PRE\n"),
            (Prepend, "\u{feff}body", "PRE", "\u{feff}PRE\nbody"),
            // Front matter kept byte for byte (comment, flow list), one blank line, body tail kept.
            (
                Prepend,
                "---\ntitle: T # c\ntags: [a, b]\n---\n\n\n# T\nend  \n\n",
                "PRE",
                "---\ntitle: T # c\ntags: [a, b]\n---\n\nPRE\n# T\nend  \n\n",
            ),
            (
                Prepend,
                "---\ntitle: T\n---\n# T",
                "\n\nPRE\n",
                "---\ntitle: T\n---\n\nPRE\n# T",
            ),
            (
                Prepend,
                "---\ntitle: T\n---",
                "PRE",
                "---\ntitle: T\n---\n\nPRE\n",
            ),
            (
                Prepend,
                "---\r\ntitle: T\r\n---\r\n\r\nbody\r\n",
                "P1\nP2",
                "---\r\ntitle: T\r\n---\r\n\r\nP1\r\nP2\r\nbody\r\n",
            ),
        ];
        for (operation, text, content, expected) in cases {
            assert_eq!(
                apply(text, &req(*operation, content)).unwrap(),
                *expected,
                "{operation:?} {content:?} on {text:?}"
            );
        }
    }

    #[test]
    fn find_replace_counts() {
        let text = "one two two\nthree";
        let cases: Vec<(EditRequest, Result<&str, EditError>)> = vec![
            (find("one", "1", 1), Ok("1 two two\nthree")),
            (find("two", "2", 2), Ok("one 2 2\nthree")),
            (
                find("two", "2", 1),
                Err(EditError::WrongCount {
                    text: "two".into(),
                    expected: 1,
                    found: 2,
                }),
            ),
            (
                find("four", "4", 1),
                Err(EditError::TextNotFound("four".into())),
            ),
            (
                find("One", "1", 1),
                Err(EditError::TextNotFound("One".into())),
            ),
            (find("two\nthree", "x", 1), Ok("one two x")),
            (find("  ", "x", 1), Err(EditError::MissingFindText)),
            (
                req(Operation::FindReplace, "x"),
                Err(EditError::MissingFindText),
            ),
        ];
        for (request, expected) in cases {
            assert_eq!(
                apply(text, &request),
                expected.map(str::to_string),
                "{request:?}"
            );
        }
        // Non-overlapping, like Python's str.count.
        assert_eq!(apply("aaaa", &find("aa", "b", 2)).unwrap(), "bb");
        // A CRLF file matches `\n` in find_text and keeps its line endings.
        assert_eq!(
            apply("a\r\nb\r\n", &find("a\nb", "x\ny", 1)).unwrap(),
            "x\r\ny\r\n"
        );
    }

    #[test]
    fn section_rules() {
        use Operation::*;
        let fenced = "## A\na\n```\n## B\n```\n~~~~\n## B\n~~~~\n## B\nb";
        let cases: Vec<(&str, EditRequest, Result<&str, EditError>)> = vec![
            // Headings inside ``` and ~~~ fences are neither matches nor section ends.
            (
                fenced,
                section(ReplaceSection, "## A", "x"),
                Ok("## A\nx\n## B\nb"),
            ),
            (
                fenced,
                section(InsertBeforeSection, "B", "x"),
                Ok("## A\na\n```\n## B\n```\n~~~~\n## B\n~~~~\n\nx\n\n## B\nb"),
            ),
            // An indented block of 4 spaces is not a fence; a ``` inside ~~~ does not close it.
            (
                "## A\n~~~\n```\n## B\n~~~\n    ```\n## B\nb",
                section(ReplaceSection, "A", "x"),
                Ok("## A\nx\n## B\nb"),
            ),
            (
                "## A\na\n## A\nb",
                section(ReplaceSection, "## A", "x"),
                Err(EditError::DuplicateSection("## A".into())),
            ),
            (
                "## A\na\n  ## A  \nb",
                section(InsertAfterSection, "A", "x"),
                Err(EditError::DuplicateSection("## A".into())),
            ),
            (
                DOC,
                section(InsertBeforeSection, "Nope", "x"),
                Err(EditError::SectionNotFound("## Nope".into())),
            ),
            (
                DOC,
                section(InsertAfterSection, "### Nope", "x"),
                Err(EditError::SectionNotFound("### Nope".into())),
            ),
            // Section given without `#` means `## `; content repeating the header drops it.
            (
                DOC,
                section(ReplaceSection, "A", "## A\n\nnew"),
                Ok("# Doc\n\n## A\nnew\n## B\nb"),
            ),
            (
                DOC,
                section(ReplaceSection, "A", "  ## A\nnew"),
                Ok("# Doc\n\n## A\nnew\n## B\nb"),
            ),
            // A level-1 target runs to the next level-1 heading; `#x` is not a heading.
            (
                "# One\n#x\n## Sub\n# Two\nt",
                section(ReplaceSection, "# One", "n"),
                Ok("# One\nn\n# Two\nt"),
            ),
            (
                "# One\n#x\n## Sub\n# Two\nt",
                EditRequest {
                    replace_subsections: false,
                    ..section(ReplaceSection, "# One", "n")
                },
                Ok("# One\nn\n## Sub\n# Two\nt"),
            ),
            // Replacing the last section; a missing section is refused, never appended.
            (
                "## A\na\n",
                section(ReplaceSection, "A", "x"),
                Ok("## A\nx"),
            ),
            (
                "t\n",
                section(ReplaceSection, "N", "x"),
                Err(EditError::ReplacedSectionNotFound("## N".into())),
            ),
            (
                "",
                section(ReplaceSection, "N", "x"),
                Err(EditError::ReplacedSectionNotFound("## N".into())),
            ),
            // insert_before: blank line before only when the previous line is not blank.
            (
                "a\n## B\nb",
                section(InsertBeforeSection, "B", "x"),
                Ok("a\n\nx\n\n## B\nb"),
            ),
            (
                "a\n\n## B\nb",
                section(InsertBeforeSection, "B", "x\n"),
                Ok("a\n\nx\n\n## B\nb"),
            ),
            (
                "## B\nb",
                section(InsertBeforeSection, "B", "x"),
                Ok("x\n\n## B\nb"),
            ),
            // insert_after: blank line after only when the next line is not blank.
            (
                "## B\n\nb",
                section(InsertAfterSection, "B", "x"),
                Ok("## B\nx\n\nb"),
            ),
            ("## B", section(InsertAfterSection, "B", "x"), Ok("## B\nx")),
            (
                "## B\n",
                section(InsertAfterSection, "B", "x\n"),
                Ok("## B\nx\n"),
            ),
            // Lines of the front matter are never sections.
            (
                "---\n## A: 1\n---\n## A\na",
                section(ReplaceSection, "## A: 1", "x"),
                Err(EditError::ReplacedSectionNotFound("## A: 1".into())),
            ),
            // CRLF files keep their line endings.
            (
                "## A\r\na\r\n## B\r\nb\r\n",
                section(ReplaceSection, "A", "x\ny"),
                Ok("## A\r\nx\r\ny\r\n## B\r\nb\r\n"),
            ),
            (
                "## A\r\na\r\n",
                section(InsertAfterSection, "A", "x"),
                Ok("## A\r\nx\r\n\r\na\r\n"),
            ),
            (
                DOC,
                section(ReplaceSection, " ", "x"),
                Err(EditError::MissingSection("replace_section")),
            ),
            (
                DOC,
                req(InsertAfterSection, "x"),
                Err(EditError::MissingSection("insert_after_section")),
            ),
        ];
        for (text, request, expected) in cases {
            assert_eq!(
                apply(text, &request),
                expected.map(str::to_string),
                "{request:?} on {text:?}"
            );
        }
    }

    #[test]
    fn error_messages() {
        assert_eq!(
            EditError::WrongCount {
                text: "t".into(),
                expected: 2,
                found: 1
            }
            .to_string(),
            "Expected 2 occurrences of 't', but found 1"
        );
        assert_eq!(
            EditError::SectionNotFound("## X".into()).to_string(),
            "Section '## X' not found in document. Use append with a heading and content to create a new section."
        );
        assert_eq!(
            EditError::ReplacedSectionNotFound("## X".into()).to_string(),
            "Section '## X' not found in document. Read the note and use the exact heading, including any trailing tags or text. Use append with a heading and content to create a new section."
        );
        assert_eq!(
            EditError::MissingSection("insert_before_section").to_string(),
            "section parameter is required for insert_before_section operation"
        );
        assert_eq!(
            EditError::DuplicateSection("## A".into()).to_string(),
            "Multiple sections found with header '## A'. Section replacement requires unique headers."
        );
    }

    #[test]
    fn merge_metadata_edits_only_new_keys() {
        let meta = json!({"title": "X", "type": "Design Spec", "permalink": "p/x", "status": "done", "tags": ["a", "b"], "count": 2});
        let meta = meta.as_object().unwrap();
        let cases = [
            (
                "---\ntitle: T # keep\ntype: note\ntags: [a, b]\ncount: 1\n---\n\nbody\n",
                "---\ntitle: T # keep\ntype: design_spec\ntags: [a, b]\ncount: 2\nstatus: done\n---\n\nbody\n",
            ),
            (
                "body",
                "---\ntype: design_spec\nstatus: done\ntags:\n- a\n- b\ncount: 2\n---\n\nbody",
            ),
            (
                "---\r\ntitle: T\r\n---\r\nbody\r\n",
                "---\r\ntitle: T\r\ntype: design_spec\r\nstatus: done\r\ntags:\r\n- a\r\n- b\r\ncount: 2\r\n---\r\nbody\r\n",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(merge_metadata(text, meta), expected, "{text:?}");
        }
        let only_identity = json!({"title": "X", "type": "note", "permalink": "p"});
        let text = "---\ntitle: T\ntype: note\n---\nbody";
        assert_eq!(
            merge_metadata(text, only_identity.as_object().unwrap()),
            text
        );
    }

    #[test]
    fn first_h1_skips_front_matter_and_fences() {
        let cases: &[(&str, Option<&str>)] = &[
            ("# Title\n## Sub", Some("Title")),
            ("---\ntitle: T\n# c: 1\n---\n\n# Real  \n", Some("Real")),
            (
                "```\n# Code\n```\n~~~\n# Tilde\n~~~\n# After",
                Some("After"),
            ),
            ("## Only sub\n#NoSpace\n    # indented code", None),
            ("#\n# \n   # Three spaces", Some("Three spaces")),
            ("text\r\n# Crlf\r\n", Some("Crlf")),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(first_h1(text).as_deref(), *expected, "{text:?}");
        }
    }

    #[test]
    fn summaries() {
        use Operation::*;
        let cases = [
            (req(Append, "a\nb"), "Added 2 lines to end of note"),
            (req(Prepend, "a"), "Added 1 lines to beginning of note"),
            (find("x", "y", 1), "Find and replace operation completed"),
            (
                section(ReplaceSection, "Notes", "x"),
                "Replaced content under section 'Notes'",
            ),
            (
                section(InsertBeforeSection, "## N", "x"),
                "Inserted content before section '## N'",
            ),
            (
                section(InsertAfterSection, "N", "x"),
                "Inserted content after section 'N'",
            ),
        ];
        for (request, expected) in cases {
            assert_eq!(summary(&request), expected);
        }
    }
}

#[cfg(test)]
mod properties {
    use super::tests::req as request;
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn append_keeps_every_byte_before_it(text in any::<String>(), content in any::<String>()) {
            let out = apply(&text, &request(Operation::Append, &content)).unwrap();
            prop_assert!(out.starts_with(&text));
        }

        #[test]
        fn find_replace_changes_only_the_found_text(
            before in "[a-z \n]{0,40}",
            after in "[a-z \n]{0,40}",
            replacement in "[A-Z \n]{0,20}",
        ) {
            let text = format!("{before}NEEDLE{after}");
            let mut req = request(Operation::FindReplace, &replacement);
            req.find_text = Some("NEEDLE");
            let out = apply(&text, &req).unwrap();
            prop_assert_eq!(out, format!("{before}{replacement}{after}"));
        }

        #[test]
        fn section_edits_never_panic(text in any::<String>(), section in any::<String>(), content in any::<String>()) {
            for operation in [Operation::ReplaceSection, Operation::InsertBeforeSection, Operation::InsertAfterSection, Operation::Prepend] {
                let mut req = request(operation, &content);
                req.section = Some(&section);
                let _ = apply(&text, &req);
            }
        }
    }
}
