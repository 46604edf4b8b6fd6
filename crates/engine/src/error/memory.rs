//! What the memory API and the knowledge-graph tools refuse.

use note::frontmatter::FrontmatterError;

/// A memory that does not exist, or a value a memory cannot hold.
#[derive(Debug, thiserror::Error)]
pub enum MemoryError {
    #[error("no memory with id '{0}' (memory_search finds memories; a note without an id is known by its permalink)")]
    NotFound(String),
    #[error("no memory has the Basic Memory id '{0}' (memory_import_basic imports a Basic Memory project)")]
    NoBasicId(String),
    #[error("a memory with id '{0}' exists already; memory_update changes it")]
    Exists(String),
    /// A second record of one ingest with an id an earlier line has.
    #[error("line {first_line} has the id '{id}' already; one body holds each memory once")]
    Repeated { id: String, first_line: usize },
    #[error("id must not be empty")]
    EmptyId,
    #[error("content must not be empty")]
    EmptyContent,
    #[error("score must be between 0 and 1, got {0}")]
    Score(f64),
    #[error("ttl must be an ISO 8601 duration such as P30D, PT12H or P1Y2M, got '{0}'")]
    Ttl(String),
    #[error("decay must be an ISO 8601 duration, the half-life, such as P7D or P1M, got '{0}'")]
    Decay(String),
    #[error("{field} must be between 0 and 1, got {value}")]
    Fraction { field: &'static str, value: f64 },
    #[error("older_than must be a duration such as P30D, PT12H or 30d, got '{0}'")]
    OlderThan(String),
    #[error("{field} must be an RFC 3339 time such as 2026-01-31T09:00:00Z, got '{value}'")]
    Time { field: &'static str, value: String },
    /// Over `[limits] max_memory_size`.
    #[error("content is {size} bytes; a memory may hold at most {limit} bytes ([limits] max_memory_size in config.toml)")]
    TooLarge { size: u64, limit: u64 },
    /// Over `[limits] max_total_daily`: the caller may write again once the day is over.
    #[error("writing {size} bytes of memory content would take this project's writes today to {total} bytes, past the daily limit of {limit} ([limits] max_total_daily in config.toml); the count resets at {resets_at}", total = .written + .size)]
    DailyLimit {
        size: u64,
        written: u64,
        limit: u64,
        resets_at: String,
    },
    #[error("no note or memory '{0}' to correct: name it by memory id, permalink, title or path")]
    NothingToCorrect(String),
    #[error("'{identifier}' names several notes ({}); name one by its permalink or path", .paths.join(", "))]
    AmbiguousCorrection {
        identifier: String,
        paths: Vec<String>,
    },
    #[error("'{identifier}' was corrected already: {by} supersedes it; correct that note instead")]
    AlreadySuperseded { identifier: String, by: String },
    #[error("reason must not be empty: say what the correction fixes")]
    EmptyReason,
    /// `POST /ingest`'s body as a whole: nothing in it can be read as a record.
    #[error("the body is not JSON Lines ({0}); send one memory record, a JSON object, per line")]
    NotJsonLines(&'static str),
    /// The memory's file has front matter that its patch could not be merged into.
    #[error("the front matter of {path} is not valid YAML ({source}); fix the file, then update the memory")]
    FrontMatter {
        path: String,
        source: FrontmatterError,
    },
}

/// An entity or relation of the knowledge-graph tools that cannot be written.
#[derive(Debug, thiserror::Error)]
pub enum GraphError {
    #[error("entities[{0}]: name must not be empty")]
    UnnamedEntity(usize),
    #[error("entities[{index}]: the name '{name}' makes no file name (too long, hidden or only punctuation)")]
    UnusableName { index: usize, name: String },
    #[error("entities[{index}]: '{name}' would be written to {path}, which holds another note; choose another name")]
    PathTaken {
        index: usize,
        name: String,
        path: String,
    },
    #[error("relations[{index}]: {field} must not be empty")]
    EmptyRelationField { index: usize, field: &'static str },
    #[error("relations[{index}]: to '{to}' cannot be the target of a [[link]] (it holds #, |, [ or ]); rename the entity")]
    UnlinkableTarget { index: usize, to: String },
    #[error("Entity with name {from} not found (relations[{index}].from); create it first with create_entities")]
    MissingSource { index: usize, from: String },
    #[error("Entity with name {0} not found")]
    EntityNotFound(String),
    #[error(
        "Entity '{name}' was superseded by {by} and is hidden; pass include_superseded to see it"
    )]
    Superseded { name: String, by: String },
    #[error("Source entity '{0}' not found")]
    SourceNotFound(String),
    #[error("Target entity '{0}' not found")]
    TargetNotFound(String),
    #[error("depth too large (max {max})")]
    DepthTooLarge { max: usize },
}
