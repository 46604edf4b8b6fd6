//! The gitmem memory API's JSON: a memory, a page of a search, a delete.

use chrono::SecondsFormat;
use serde_json::{json, Value};

use crate::service::memory::{DeleteMode, Memory, MemoryDeleted, MemoryPage};

pub fn memory(m: &Memory) -> Value {
    json!({
        "id": m.id,
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
        "source": m.source,
        "compat": { "basic_id": m.basic_id },
        "permalink": m.permalink,
        "file_path": m.file_path,
        "project": m.project,
    })
}

/// memory_search's page.
pub fn page(page: &MemoryPage) -> Value {
    json!({
        "results": page.results.iter().map(memory).collect::<Vec<_>>(),
        "total": page.total,
        "limit": page.limit,
        "offset": page.offset,
        "sort": page.sort.as_str(),
    })
}

pub fn deleted(deleted: &MemoryDeleted) -> Value {
    json!({
        "id": deleted.id,
        "mode": match deleted.mode {
            DeleteMode::Soft => "soft",
            DeleteMode::Hard => "hard",
        },
        "deleted_at": deleted.deleted_at,
    })
}
