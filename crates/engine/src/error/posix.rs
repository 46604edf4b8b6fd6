//! What the arguments of the POSIX-shaped read tools (`cat`, `grep`, `ls`, `find`, `tail`,
//! `man`) can get wrong. The messages are Basic Memory's where it has one.

use crate::timeframe::TimeframeError;
use note::section::SectionError;

#[derive(Debug, thiserror::Error)]
pub enum PosixError {
    #[error("cat: 'section' cannot be combined with start_line/end_line; use the returned start_line/end_line for follow-up range reads")]
    SectionWithLines,
    #[error("start_line must be >= 1, got {0}")]
    StartBelowOne(i64),
    #[error("end_line must be >= start_line, got {0}")]
    EndBeforeStart(i64),
    #[error("max_tokens must be >= 1, got {0}")]
    TokensBelowOne(i64),
    #[error("cat: max_tokens with start_line/end_line requires include_frontmatter=True — those ranges address the full document (frontmatter included); drop max_tokens for a body-relative range, or keep include_frontmatter=True")]
    BodyRangeWithTokens,
    #[error("cat: start_line {start} is past the end of the note ({total} lines)")]
    PastEnd { start: usize, total: usize },
    #[error("cat: '{0}' names a project, not a note")]
    ProjectNotNote(String),
    #[error("cat: note not found: '{0}'")]
    NoteNotFound(String),
    #[error("cat: {0}")]
    Section(#[from] SectionError),
    #[error("pattern must not be empty")]
    EmptyPattern,
    #[error("grep: context_lines cannot be combined with semantic=True")]
    ContextWithSemantic,
    #[error("grep: literal=True cannot be combined with semantic=True")]
    LiteralWithSemantic,
    #[error("grep: context_lines must be between 0 and 10")]
    ContextOutOfRange,
    #[error("grep: line scanning requires a single-line pattern")]
    MultiLinePattern,
    #[error("grep: line scanning page_size must be <= 100")]
    LinePageTooLarge,
    #[error("grep: max_matches requires context_lines")]
    MaxMatchesWithoutLines,
    #[error("grep: max_matches must be between 1 and 100")]
    MaxMatchesOutOfRange,
    #[error("depth must be between 1 and {max}, got {depth}")]
    DepthOutOfRange { max: usize, depth: i64 },
    #[error("find: 'meta' must carry at least one predicate — omit 'meta' entirely for the plain directory listing")]
    EmptyMeta,
    #[error("find: 'name' cannot combine with 'meta' — the metadata search has no filename glob; scope with 'path' instead")]
    NameWithMeta,
    #[error("find: 'depth' cannot combine with 'meta' — the metadata search scopes by whole subtree; scope with 'path' instead")]
    DepthWithMeta,
    #[error("find: 'fields' requires 'meta' predicates — without predicates find returns the plain directory listing")]
    FieldsWithoutMeta,
    #[error("find: 'fields' entries must be non-empty frontmatter field names")]
    EmptyField,
    #[error("find: malformed field path '{0}'; field paths are dot-separated names of letters, digits, '_' or '-' (e.g. 'title' or 'review.approved')")]
    MalformedField(String),
    #[error("find: unsupported predicate operator in '{predicate}'; supported: {supported}")]
    UnsupportedOperator {
        predicate: String,
        supported: &'static str,
    },
    #[error("find: unsupported predicate operator in '{predicate}'; supported: {supported}; quote the value as \"{text}\" to match text that starts with that character")]
    OperatorInValue {
        predicate: String,
        text: String,
        supported: &'static str,
    },
    #[error("find: predicate '{0}' has an unterminated quoted value; close the quote — 'status=\"active\"' forces a literal string, and 'label in \"a,b\",c' protects a comma inside a list element")]
    UnterminatedQuote(String),
    #[error("find: predicate '{predicate}' has a non-finite number '{text}'; predicate values must be finite numbers; quote the value as \"{text}\" to match that literal text")]
    NonFinite { predicate: String, text: String },
    #[error("find: predicate '{0}' has an empty list element")]
    EmptyListElement(String),
    #[error("find: predicate '{predicate}' uses null with '{op}'; null matches only as equality ('owner=null' finds notes carrying no owner); quote the value as \"null\" to match that literal text")]
    NullOutsideEquality { predicate: String, op: String },
    #[error("find: malformed predicate key '{key}' in '{predicate}'; keys are dot-separated names of letters, digits, '_' or '-' (e.g. 'status' or 'review.approved')")]
    MalformedKey { key: String, predicate: String },
    #[error("find: duplicate predicate key '{key}' in '{predicate}'; use 'between' for ranges (e.g. 'score between 0.3,0.8')")]
    DuplicateKey { key: String, predicate: String },
    #[error("find: 'between' needs exactly min,max in '{0}'")]
    BetweenArity(String),
    #[error("find: predicate '{0}' has no value")]
    NoValue(String),
    #[error("lines must be between 1 and {max}, got {lines}")]
    TailLines { max: usize, lines: i64 },
    #[error("{0}")]
    Timeframe(#[from] TimeframeError),
    #[error("man: pass either 'page' or 'query', not both")]
    PageAndQuery,
    #[error("No manual entry for {0}")]
    NoManualEntry(String),
    #[error("man: no manual project '{0}' to search; create it (its pages are notes with `type: manpage`) or name a project")]
    NoManualProject(String),
}
