//! memory_search: memories by words and filters, sorted and paged.

use chrono::{DateTime, Utc};
use serde_json::Value;

use super::super::error::PageError;
use super::super::scope::ProjectChoice;
use super::super::search::SearchRequest;
use super::super::Result;
use super::Memory;
use crate::Engine;
use index::{NoteKind, NoteRecord};
use note::memory::{is_hidden_unless, meta_time, Reveal};

/// The largest page memory_search returns.
pub const MAX_LIMIT: usize = 100;

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum MemorySort {
    #[default]
    Relevance,
    Recency,
    Score,
}

impl MemorySort {
    /// The name memory_search takes and answers the order by.
    pub fn as_str(self) -> &'static str {
        match self {
            MemorySort::Relevance => "relevance",
            MemorySort::Recency => "recency",
            MemorySort::Score => "score",
        }
    }

    /// The order `name` names, if any.
    pub fn named(name: &str) -> Option<MemorySort> {
        [
            MemorySort::Relevance,
            MemorySort::Recency,
            MemorySort::Score,
        ]
        .into_iter()
        .find(|sort| sort.as_str() == name)
    }
}

/// memory_search's request.
#[derive(Debug, Clone, Default)]
pub struct MemoryQuery {
    pub query: Option<String>,
    pub types: Vec<String>,
    pub tags: Vec<String>,
    /// Created within [from, to].
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    pub limit: usize,
    pub offset: usize,
    pub sort: MemorySort,
    /// Soft-deleted memories or superseded ones too.
    pub reveal: Reveal,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MemoryPage {
    pub items: Vec<Memory>,
    /// Memories that matched, before limit and offset.
    pub total: usize,
    pub limit: usize,
    pub offset: usize,
    pub sort: MemorySort,
}

/// memory_search: memories by words (ranked as search_notes ranks) and filters, sorted by
/// relevance, recency or score. Expired memories are never found; soft-deleted ones only
/// when asked for.
pub(crate) fn memory_search(
    engine: &Engine,
    choice: &ProjectChoice,
    query: &MemoryQuery,
) -> Result<MemoryPage> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    if query.limit == 0 || query.limit > MAX_LIMIT {
        return Err(PageError::LimitOutOfRange {
            max: MAX_LIMIT,
            limit: query.limit,
        }
        .into());
    }
    let now = Utc::now();
    let words = query
        .query
        .as_deref()
        .map(str::trim)
        .filter(|q| !q.is_empty());
    let candidates: Vec<NoteRecord> = match words {
        Some(words) => {
            let request = SearchRequest {
                query: Some(words.to_string()),
                page_size: 1000,
                note_types: query.types.clone(),
                tags: query.tags.clone(),
                reveal: query.reveal,
                ..Default::default()
            };
            let response = crate::search::search(engine, &project, &request)?;
            let mut notes = Vec::new();
            for row in response.results {
                notes.extend(crate::notes::note_by_path(
                    &engine.store.index,
                    &project,
                    &row.file_path,
                )?);
            }
            notes
        }
        None => {
            let types: Vec<String> = query
                .types
                .iter()
                .map(|t| note::permalink::normalize_note_type(t))
                .collect();
            crate::notes::all_notes(&engine.store.index, &project)?
                .into_iter()
                .filter(|n| {
                    n.kind == NoteKind::Markdown
                        && (types.is_empty()
                            || types.contains(&note::permalink::normalize_note_type(&n.note_type)))
                        && query.tags.iter().all(|t| n.tags.contains(t))
                })
                .collect()
        }
    };
    let created = |n: &NoteRecord| {
        meta_time(&n.metadata, "created_at")
            .or_else(|| DateTime::from_timestamp_millis(n.created_ms))
    };
    let updated = |n: &NoteRecord| {
        meta_time(&n.metadata, "updated_at")
            .or_else(|| DateTime::from_timestamp_millis(n.updated_ms))
    };
    let mut notes: Vec<NoteRecord> = candidates
        .into_iter()
        .filter(|n| {
            !is_hidden_unless(&n.metadata, n.created_ms, now, query.reveal)
                && query
                    .from
                    .is_none_or(|from| created(n).is_some_and(|c| c >= from))
                && query
                    .to
                    .is_none_or(|to| created(n).is_some_and(|c| c <= to))
        })
        .collect();
    match (query.sort, words) {
        (MemorySort::Recency, _) | (MemorySort::Relevance, None) => {
            notes.sort_by_key(|n| std::cmp::Reverse(updated(n)))
        }
        (MemorySort::Score, _) => notes.sort_by(|a, b| {
            let score = |n: &NoteRecord| n.metadata.get("score").and_then(Value::as_f64);
            score(b)
                .unwrap_or(f64::NEG_INFINITY)
                .total_cmp(&score(a).unwrap_or(f64::NEG_INFINITY))
        }),
        (MemorySort::Relevance, Some(_)) => {}
    }
    let total = notes.len();
    let page: Vec<&NoteRecord> = notes.iter().skip(query.offset).take(query.limit).collect();
    let items = page
        .iter()
        .map(|n| crate::memory::memory_of(&engine.store, &project, n))
        .collect::<Result<Vec<_>>>()?;
    let found: Vec<String> = page.iter().map(|n| n.id.clone()).collect();
    crate::uses::record_uses(&engine.store.index, &found);
    Ok(MemoryPage {
        items,
        total,
        limit: query.limit,
        offset: query.offset,
        sort: query.sort,
    })
}
