//! What the arguments of the POSIX-shaped read tools (`cat`, `grep`, `ls`, `find`, `tail`,
//! `man`) can get wrong. The messages are Basic Memory's where it has one.

use crate::note::section::SectionError;
use crate::service::timeframe::TimeframeError;

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
