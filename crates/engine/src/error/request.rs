//! What the arguments of a single call can get wrong: paging, what a query asks for, an edit's
//! parameters, a note's title and size.

use serde_json::Value;

use note::edit::{EditError, Operation};

/// A page, page size or limit out of its range.
#[derive(Debug, thiserror::Error)]
pub enum PageError {
    #[error("page must be >= 1, got {0}")]
    PageBelowOne(i64),
    #[error("page_size must be >= 1, got {0}")]
    SizeBelowOne(i64),
    #[error("page_size must be <= {max}, got {size}")]
    SizeAboveMax { max: i64, size: i64 },
    #[error("page_size must be between 1 and {max}, got {size}")]
    SizeOutOfRange { max: usize, size: usize },
    #[error("limit must be between 1 and {max}, got {limit}")]
    LimitOutOfRange { max: usize, limit: usize },
}

/// What a search, an activity listing, a directory listing or a context asks for.
#[derive(Debug, thiserror::Error)]
pub enum QueryError {
    #[error("no search criteria: give a query or at least one filter")]
    NoSearchCriteria,
    #[error("Invalid search_type '{given}'. Valid options: {valid}")]
    InvalidSearchType { given: String, valid: &'static str },
    #[error("Invalid entity type '{0}'. Valid types are: entity, observation, relation")]
    InvalidEntityType(String),
    #[error("Invalid boost '{0}'. Valid boosts are: recency, score")]
    InvalidBoost(String),
    #[error("Unsupported metadata filter key: {0}")]
    UnsupportedMetadataKey(String),
    #[error("Unsupported metadata filter operator for {key}: {operator} {argument}")]
    UnsupportedMetadataOperator {
        key: String,
        operator: String,
        argument: Value,
    },
    #[error("Invalid type: {0}. Valid types are: ['entity', 'observation', 'relation']")]
    InvalidActivityType(String),
    #[error("Invalid group_by: {0}. Valid options: day, type, session")]
    InvalidGroupBy(String),
    #[error("Invalid sort '{0}'. Valid options: title_asc, title_desc, updated_asc, updated_desc")]
    InvalidSort(String),
    #[error("depth must be at most {max}, got {depth}")]
    DepthTooLarge { max: usize, depth: usize },
    /// memory_context was given no task to gather context for.
    #[error("task must say what the context is for (a few words at least)")]
    EmptyTask,
    #[error("token_budget must be >= 1, got {0}")]
    TokenBudgetBelowOne(i64),
    /// The call was cancelled or ran past its deadline while the context was gathered.
    #[error("build_context was stopped (cancelled, or past the call's deadline)")]
    ContextStopped,
}

/// The parameters of an edit_note call, checked before the note is read.
#[derive(Debug, thiserror::Error)]
pub enum EditInputError {
    #[error("Invalid operation '{0}'. Must be one of: {ops}", ops = Operation::ALL.join(", "))]
    UnknownOperation(String),
    /// The operation lacks the find text or the section it works on (Basic Memory's words).
    #[error(transparent)]
    MissingParameter(EditError),
    #[error("metadata values cannot be null (key deletion is not supported): {keys}", keys = .0.join(", "))]
    NullMetadata(Vec<String>),
    #[error("metadata type must be a string")]
    TypeNotText,
    #[error("expected_replacements must be >= 1, got {0}")]
    ExpectedReplacements(i64),
}

/// A note that cannot be written as asked, or a file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum NoteError {
    #[error("title must not be empty")]
    EmptyTitle,
    #[error("title '{0}' has no characters usable in a file name")]
    UnusableTitle(String),
    #[error("{0} already exists")]
    AlreadyExists(String),
    /// A line read returns content; a metadata read returns none.
    #[error("include_content=False cannot be combined with start_line/end_line")]
    LinesWithoutContent,
    #[error("start_line must be >= 1, got {0}")]
    StartBelowOne(i64),
    #[error("end_line must be >= start_line, got {0}")]
    EndBeforeStart(i64),
    #[error("start_line {start} is past the end of the document ({total} lines)")]
    LinesPastEnd { start: usize, total: usize },
    /// A create has no revision before it: a checksum conditions only a replacement.
    #[error("expected_checksum requires overwrite=True")]
    ChecksumWithoutOverwrite,
    #[error("content is {size} bytes; a note may hold at most {max} bytes (32 MiB)")]
    TooLarge { size: usize, max: usize },
    #[error("Resource not found: {0}")]
    ResourceNotFound(String),
    /// An overwrite would drop the other keys of front matter it cannot read.
    #[error("{path} is not overwritten: its {source}; fix its front matter first, so that its keys are kept")]
    FrontMatter {
        path: String,
        source: note::frontmatter::FrontmatterError,
    },
    /// A file name is never rewritten, and never shown here: it holds the secret.
    #[error("the file name would hold secret-shaped text ({kind}), which must not reach history; choose a title or path without it")]
    SecretInPath { kind: String },
    /// Bytes that are not text cannot be redacted, only refused.
    #[error("this version is not text and holds secret-shaped bytes ({kind}); it is not restored")]
    SecretInBinary { kind: String },
}
