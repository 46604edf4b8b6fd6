//! The gitmem memory API's JSON: a memory, a page of a search, a delete, and the error codes
//! of the specification (`{"error": {"code", "message"}}`).

use chrono::SecondsFormat;
use serde_json::{json, Map, Value};

use crate::service::error::{InternalError, MemoryError, UserError};
use crate::service::memory::{DeleteMode, Memory, MemoryDeleted, MemoryPage};
use crate::service::ServiceError;

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
    super::notes::with_redacted(answer, &m.redacted)
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
            UserError::Memory(MemoryError::NotFound(_) | MemoryError::NoBasicId(_))
            | UserError::Project(crate::config::ConfigError::UnknownProject(..)) => {
                ErrorCode::NotFound
            }
            UserError::Memory(MemoryError::Exists(_)) => ErrorCode::Conflict,
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
