//! The gitmem memory API's JSON: a memory, a page of a search, a delete, and the error codes
//! of the specification (`{"error": {"code", "message"}}`).

use chrono::SecondsFormat;
use serde_json::{json, Map, Value};

use engine::error::{InternalError, MemoryError, UserError};
use engine::memory::{
    DeleteMode, IngestReport, Memory, MemoryDeleted, MemoryPage, Placed, RecordOutcome,
};
use engine::metrics::Refusal;
use engine::ServiceError;

pub fn memory(m: &Memory) -> Value {
    let source = m.source.clone().unwrap_or_default();
    let source: Map<String, Value> = source
        .fields()
        .into_iter()
        .map(|(key, value)| (key.to_string(), json!(value)))
        .collect();
    let answer = json!({
        "id": m.id,
        "version": m.version,
        "title": m.title,
        "content": m.content,
        "type": m.memory_type,
        "tags": m.tags,
        "score": m.score,
        "ttl": m.ttl,
        "created_at": m.created_at,
        "updated_at": m.updated_at,
        "deleted_at": m.deleted_at,
        "expires_at": m.expires_at.map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true)),
        "expired": m.expired,
        "source": source,
        "encryption": {
            "algo": m.encryption.algo,
            "kid": m.encryption.kid,
            "encrypted": m.encryption.encrypted,
        },
        "compat": { "basic_id": m.basic_id, "aliases": m.aliases },
        "permalink": m.permalink,
        "file_path": m.file_path,
        "project": m.project,
    });
    let mut answer = answer;
    // Only a decaying memory has these, so the specification's shape stays as it was.
    if let (Some(decay), Some(object)) = (&m.decay, answer.as_object_mut()) {
        object.insert("decay".into(), json!(decay));
        object.insert("relevance".into(), json!(m.relevance));
    }
    super::with_redacted(answer, &m.redacted)
}

/// memory_search's page: `items` and `total` (the matches before paging), with the paging
/// and order it was read with.
pub fn page(page: &MemoryPage) -> Value {
    json!({
        "items": page.items.iter().map(memory).collect::<Vec<_>>(),
        "total": page.total,
        "limit": page.limit,
        "offset": page.offset,
        "sort": page.sort.as_str(),
    })
}

pub fn deleted(deleted: &MemoryDeleted) -> Value {
    json!({
        "ok": true,
        "id": deleted.id,
        "mode": match deleted.mode {
            DeleteMode::Soft => "soft",
            DeleteMode::Hard => "hard",
        },
        "deleted_at": deleted.deleted_at,
    })
}

/// `POST /ingest`'s 207 body: each line's outcome with its own HTTP status (201 created, 200
/// already there with this content, 400 not a valid record, 409 the id is taken or repeated,
/// 413 over `max_memory_size`, 429 over `max_total_daily`), then the counts.
pub fn ingested(report: &IngestReport) -> Value {
    let mut counts = [0usize; 3];
    let results: Vec<Value> = report
        .records
        .iter()
        .map(|record| {
            let (status, placed, failure) = outcome(&record.outcome);
            counts[match status {
                201 => 0,
                200 => 1,
                _ => 2,
            }] += 1;
            let mut answer = json!({"line": record.line, "status": status});
            let object = answer.as_object_mut().expect("an object");
            if let Some(placed) = placed {
                object.insert("id".into(), json!(placed.id));
                object.insert("permalink".into(), json!(placed.permalink));
                object.insert("file_path".into(), json!(placed.file_path));
            }
            if let Some((code, message)) = failure {
                object.insert("error".into(), error(code, &message)["error"].take());
            }
            answer
        })
        .collect();
    let answer = json!({
        "project": report.project,
        "results": results,
        "created": counts[0],
        "unchanged": counts[1],
        "failed": counts[2],
    });
    super::with_redacted(answer, &report.redacted)
}

/// The error code of a line's outcome, if it failed.
pub fn record_code(record: &RecordOutcome) -> Option<ErrorCode> {
    outcome(record).2.map(|(code, _)| code)
}

/// The refusal `/metrics` counts for an error code, by its name (`E_CONFLICT`, ...).
pub fn counted_refusal(code: &str) -> Option<Refusal> {
    [
        (ErrorCode::Conflict, Refusal::Conflict),
        (ErrorCode::RateLimit, Refusal::RateLimit),
    ]
    .into_iter()
    .find(|(counted, _)| counted.as_str() == code)
    .map(|(_, refusal)| refusal)
}

/// A line's HTTP status, where its memory is, and its error.
fn outcome(outcome: &RecordOutcome) -> (u16, Option<&Placed>, Option<(ErrorCode, String)>) {
    match outcome {
        RecordOutcome::Created(placed) => (201, Some(placed), None),
        RecordOutcome::Unchanged(placed) => (200, Some(placed), None),
        RecordOutcome::Invalid(problem) => (
            400,
            None,
            Some((ErrorCode::Validation, problem.to_string())),
        ),
        RecordOutcome::Conflict(placed) => {
            let taken = MemoryError::Exists(placed.id.clone());
            (
                409,
                Some(placed),
                Some((ErrorCode::Conflict, taken.to_string())),
            )
        }
        RecordOutcome::Refused(why) => {
            let (status, code) = match why {
                MemoryError::TooLarge { .. } => (413, ErrorCode::Validation),
                MemoryError::DailyLimit { .. } => (429, ErrorCode::RateLimit),
                _ => (409, ErrorCode::Conflict),
            };
            (status, None, Some((code, why.to_string())))
        }
    }
}

/// The specification's error codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    NotFound,
    /// The input is wrong: a field, a value, a size over `[limits] max_memory_size`.
    Validation,
    /// The memory exists already, or its file kept changing under the write.
    Conflict,
    /// The project's encrypted remote cannot be used (`UserError::Encryption`).
    Encryption,
    /// gitmem or the disk failed.
    StorageIo,
    /// Over `[limits] max_total_daily`.
    RateLimit,
}

impl ErrorCode {
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::NotFound => "E_NOT_FOUND",
            ErrorCode::Validation => "E_VALIDATION",
            ErrorCode::Conflict => "E_CONFLICT",
            ErrorCode::Encryption => "E_ENCRYPTION",
            ErrorCode::StorageIo => "E_STORAGE_IO",
            ErrorCode::RateLimit => "E_RATE_LIMIT",
        }
    }
}

/// The code of a failed memory API call: the one place service errors map to the
/// specification's codes.
pub fn error_code(e: &ServiceError) -> ErrorCode {
    match e {
        ServiceError::User(user) => match user {
            UserError::Memory(
                MemoryError::NotFound(_)
                | MemoryError::NoBasicId(_)
                | MemoryError::NothingToCorrect(_),
            )
            | UserError::Project(engine::config::ConfigError::UnknownProject(..)) => {
                ErrorCode::NotFound
            }
            UserError::Memory(MemoryError::Exists(_) | MemoryError::AlreadySuperseded { .. }) => {
                ErrorCode::Conflict
            }
            UserError::Memory(MemoryError::DailyLimit { .. }) => ErrorCode::RateLimit,
            UserError::Encryption(_) => ErrorCode::Encryption,
            _ => ErrorCode::Validation,
        },
        ServiceError::Internal(InternalError::KeptChanging(_)) => ErrorCode::Conflict,
        ServiceError::Internal(_) => ErrorCode::StorageIo,
    }
}

/// A memory API error as structured content: `{"error": {"code", "message"}}`.
pub fn error(code: ErrorCode, message: &str) -> Value {
    json!({"error": {"code": code.as_str(), "message": message}})
}
