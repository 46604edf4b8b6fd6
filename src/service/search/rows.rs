//! Result rows: the SearchResult and SearchResponse shapes of compat 6.5, built from graph
//! records for milli hits.

use std::collections::HashMap;

use milli_core::heed::{RoTxn, WithoutTls};
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::super::{App, Result};
use crate::index::search::Hit;
use crate::index::{NoteKind, NoteRecord};
use crate::note::permalink::normalize_note_type;
use crate::note::permalink::{observation_permalink, relation_permalink};

const CONTENT_LIMIT: usize = 4000;

/// One row of a SearchResponse; absent fields are omitted from JSON.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SearchResult {
    pub title: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub score: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub entity: Option<String>,
    pub external_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub permalink: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
    /// The note's passage that best matches the query (a note row of a search with words).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub matched_chunk: Option<String>,
    pub file_path: String,
    pub updated_at: String,
    pub metadata: Value,
    pub entity_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub observation_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relation_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub category: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_entity: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_entity: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub relation_type: Option<String>,
    /// The project of the row (set by search_all_projects).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub project: Option<String>,
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SearchResponse {
    pub results: Vec<SearchResult>,
    pub current_page: usize,
    pub page_size: usize,
    pub total: u64,
    pub total_is_exact: bool,
    pub has_more: bool,
    /// Said to the user in text output (semantic search asked for, text search given).
    #[serde(skip)]
    pub notice: Option<String>,
}

impl SearchResponse {
    /// The page of `request` that starts at `offset` among `total` results.
    pub(super) fn page(
        results: Vec<SearchResult>,
        request: &super::SearchRequest,
        offset: usize,
        total: u64,
        total_is_exact: bool,
    ) -> Self {
        SearchResponse {
            has_more: (offset + results.len()) < total as usize,
            results,
            current_page: request.page,
            page_size: request.page_size,
            total,
            total_is_exact,
            notice: None,
        }
    }
}

pub(super) fn str_field<'a>(doc: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
    doc.get(key).and_then(Value::as_str)
}

/// ISO-8601 UTC with milliseconds, the form every JSON output uses.
pub fn iso_from_ms(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .unwrap_or_default()
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

fn truncate(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// Which row of a note a result is.
#[derive(Debug, Clone, Copy)]
pub(super) enum Row {
    Entity,
    Observation(usize),
    Relation(usize),
}

/// Builds result rows from graph records. Scores are the negated milli ranking score: as with
/// upstream's BM25, lower is better and every score is <= 0.
pub(super) struct ResultBuilder<'a> {
    app: &'a App,
    txn: &'a RoTxn<'a, WithoutTls>,
    notes: HashMap<String, Option<NoteRecord>>,
}

impl<'a> ResultBuilder<'a> {
    pub(super) fn new(app: &'a App, txn: &'a RoTxn<'a, WithoutTls>) -> Self {
        ResultBuilder {
            app,
            txn,
            notes: HashMap::new(),
        }
    }

    fn note(&mut self, id: &str) -> Result<Option<NoteRecord>> {
        if !self.notes.contains_key(id) {
            let note = self.app.index.tables().get_note(self.txn, id)?;
            self.notes.insert(id.to_string(), note);
        }
        Ok(self.notes[id].clone())
    }

    pub(super) fn hit_row(&mut self, hit: &Hit) -> Result<Option<SearchResult>> {
        let d = &hit.doc;
        let Some(note) = self.note(str_field(d, "note_id").unwrap_or_default())? else {
            return Ok(None);
        };
        let index = d.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        let row = match str_field(d, "type") {
            Some("observation") => Row::Observation(index),
            Some("relation") => Row::Relation(index),
            _ => Row::Entity,
        };
        let content = str_field(d, "content").map(String::from);
        self.row(&note, row, -hit.score, content)
    }

    pub(super) fn row(
        &mut self,
        note: &NoteRecord,
        row: Row,
        score: f64,
        entity_content: Option<String>,
    ) -> Result<Option<SearchResult>> {
        let note_permalink = note.permalink.clone().unwrap_or_default();
        let mut result = SearchResult {
            title: note.title.clone(),
            kind: "entity".into(),
            score,
            entity: note.permalink.clone(),
            external_id: note.id.clone(),
            permalink: note.permalink.clone(),
            content: None,
            matched_chunk: None,
            file_path: note.path.clone(),
            updated_at: iso_from_ms(note.updated_ms),
            metadata: json!({ "note_type": normalize_note_type(&note.note_type) }),
            entity_id: note.id.clone(),
            observation_id: None,
            relation_id: None,
            category: None,
            from_entity: None,
            to_entity: None,
            relation_type: None,
            project: None,
        };
        match row {
            Row::Observation(i) => {
                let Some(obs) = note.observations.get(i) else {
                    return Ok(None);
                };
                result.kind = "observation".into();
                result.title = crate::index::search::observation_title(&obs.category, &obs.content);
                result.permalink = Some(observation_permalink(
                    &note_permalink,
                    &obs.category,
                    &obs.content,
                ));
                result.content = Some(obs.content.clone());
                result.category = Some(obs.category.clone());
                result.observation_id = Some(format!("{}-o{i}", note.id));
                let tags = (!obs.tags.is_empty()).then(|| json!(obs.tags));
                result.metadata = json!({ "tags": tags });
            }
            Row::Relation(i) => {
                let Some(rel) = note.relations.get(i) else {
                    return Ok(None);
                };
                let target = match &rel.to_id {
                    Some(to) => self.note(to)?,
                    None => None,
                };
                result.kind = "relation".into();
                result.title = match &target {
                    Some(t) => format!("{} -> {}", note.title, t.title),
                    None => note.title.clone(),
                };
                let to_permalink = target.and_then(|t| t.permalink);
                result.permalink = Some(relation_permalink(
                    &note_permalink,
                    &rel.relation.relation_type,
                    to_permalink.as_deref().unwrap_or(&rel.relation.target),
                ));
                result.relation_id = Some(format!("{}-r{i}", note.id));
                result.from_entity = note.permalink.clone();
                result.to_entity = to_permalink;
                result.relation_type = Some(rel.relation.relation_type.clone());
                result.metadata = json!({});
            }
            Row::Entity => {
                if note.kind == NoteKind::File {
                    result.metadata = json!({ "note_type": "file" });
                }
                // Notes of linked folders say where they come from (design 6).
                if let Some(source) = note
                    .metadata
                    .get("source")
                    .filter(|s| s["origin"] == "linked_folder")
                {
                    result.metadata["source"] = source.clone();
                    result.metadata["tags"] = json!(note.tags);
                }
                result.content = entity_content
                    .filter(|c| !c.is_empty())
                    .map(|c| truncate(&c, CONTENT_LIMIT));
            }
        }
        Ok(Some(result))
    }
}
