//! search_notes: query preparation, filters, the relaxed retry, and the SearchResponse shape
//! of compat 6.5.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::{json, Map, Value};

use milli_core::heed::{RoTxn, WithoutTls};

use super::{App, Result, ServiceError};
use crate::index::search::{observation_permalink, relation_permalink, Hit, Query};
use crate::index::NoteRecord;
use crate::note::permalink::normalize_note_type;

pub const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "did", "do", "does", "for", "from",
    "had", "has", "have", "how", "i", "in", "is", "it", "of", "on", "or", "our", "that", "the",
    "their", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who",
    "whom", "whose", "why", "will", "with", "you", "your",
];

const CONTENT_LIMIT: usize = 4000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum SearchType {
    #[default]
    Text,
    Title,
}

#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: Option<String>,
    pub project: Option<String>,
    pub page: usize,
    pub page_size: usize,
    pub search_type: SearchType,
    /// `entity`, `observation`, `relation`; default `entity` (or `observation` with categories).
    pub entity_types: Vec<String>,
    pub categories: Vec<String>,
    pub note_types: Vec<String>,
    pub tags: Vec<String>,
    pub status: Option<String>,
}

impl Default for SearchRequest {
    fn default() -> Self {
        Self {
            query: None,
            project: None,
            page: 1,
            page_size: 10,
            search_type: SearchType::Text,
            entity_types: Vec::new(),
            categories: Vec::new(),
            note_types: Vec::new(),
            tags: Vec::new(),
            status: None,
        }
    }
}

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
}

#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct SearchResponse {
    pub results: Vec<SearchResult>,
    pub current_page: usize,
    pub page_size: usize,
    pub total: u64,
    pub total_is_exact: bool,
    pub has_more: bool,
}

/// A string literal for a milli filter expression.
pub fn filter_literal(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

fn any_of(field: &str, values: &[String]) -> String {
    let list: Vec<String> = values.iter().map(|v| filter_literal(v)).collect();
    format!("{field} IN [{}]", list.join(", "))
}

fn str_field<'a>(doc: &'a Map<String, Value>, key: &str) -> Option<&'a str> {
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

/// Turns search hits into rows of compat 6.5, reading what they show from the graph tables.
/// Scores are the negated milli ranking score: as with upstream's BM25, lower is better and
/// every score is <= 0.
struct ResultBuilder<'a> {
    tables: &'a crate::index::Tables,
    txn: &'a RoTxn<'a, WithoutTls>,
    notes: HashMap<String, Option<NoteRecord>>,
}

impl<'a> ResultBuilder<'a> {
    fn note(&mut self, id: &str) -> Result<Option<NoteRecord>> {
        if !self.notes.contains_key(id) {
            let note = self.tables.get_note(self.txn, id)?;
            self.notes.insert(id.to_string(), note);
        }
        Ok(self.notes[id].clone())
    }

    fn build(&mut self, hit: &Hit) -> Result<Option<SearchResult>> {
        let d = &hit.doc;
        let Some(note) = self.note(str_field(d, "note_id").unwrap_or_default())? else {
            // Deleted after the search ran.
            return Ok(None);
        };
        let kind = str_field(d, "type").unwrap_or("entity");
        let index = d.get("index").and_then(Value::as_u64).unwrap_or(0) as usize;
        let note_permalink = note.permalink.clone().unwrap_or_default();
        let mut result = SearchResult {
            title: str_field(d, "title").unwrap_or_default().to_string(),
            kind: kind.to_string(),
            score: -hit.score,
            entity: note.permalink.clone(),
            external_id: note.id.clone(),
            permalink: note.permalink.clone(),
            content: None,
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
        };
        match kind {
            "observation" => {
                let Some(obs) = note.observations.get(index) else {
                    return Ok(None);
                };
                result.permalink = Some(observation_permalink(
                    &note_permalink,
                    &obs.category,
                    &obs.content,
                ));
                result.content = Some(obs.content.clone());
                result.category = Some(obs.category.clone());
                result.observation_id = str_field(d, "id").map(String::from);
                let tags = (!obs.tags.is_empty()).then(|| json!(obs.tags));
                result.metadata = json!({ "tags": tags });
            }
            "relation" => {
                let Some(rel) = note.relations.get(index) else {
                    return Ok(None);
                };
                let to_permalink = match &rel.to_id {
                    Some(to) => self.note(to)?.and_then(|n| n.permalink),
                    None => None,
                };
                result.permalink = Some(relation_permalink(
                    &note_permalink,
                    &rel.relation.relation_type,
                    to_permalink.as_deref().unwrap_or(&rel.relation.target),
                ));
                result.relation_id = str_field(d, "id").map(String::from);
                result.from_entity = note.permalink.clone();
                result.to_entity = to_permalink;
                result.relation_type = Some(rel.relation.relation_type.clone());
                result.metadata = json!({});
            }
            _ => {
                result.content = str_field(d, "content")
                    .filter(|c| !c.is_empty())
                    .map(|c| truncate(c, CONTENT_LIMIT));
            }
        }
        Ok(Some(result))
    }
}

/// Words of a query worth an OR retry: no stopwords, no duplicates (case-insensitive).
fn relaxed_terms(query: &str) -> Option<Vec<String>> {
    if query.contains('"') {
        return None;
    }
    let words: Vec<&str> = query.split_whitespace().collect();
    let has_cjk = query
        .chars()
        .any(|c| ('\u{4E00}'..='\u{9FFF}').contains(&c) || ('\u{3040}'..='\u{30FF}').contains(&c));
    let min_words = if has_cjk { 2 } else { 3 };
    if words.len() < min_words || words.iter().any(|w| w.chars().all(|c| c.is_ascii_digit())) {
        return None;
    }
    let mut terms: Vec<String> = Vec::new();
    for w in words {
        let w = w.trim_matches(|c: char| "?!.,;:".contains(c));
        let lower = w.to_lowercase();
        if w.is_empty()
            || STOPWORDS.contains(&lower.as_str())
            || terms.iter().any(|t| t.to_lowercase() == lower)
        {
            continue;
        }
        terms.push(w.to_string());
    }
    (!terms.is_empty()).then_some(terms)
}

impl App {
    pub fn search(&self, request: &SearchRequest) -> Result<SearchResponse> {
        if request.page < 1 {
            return Err(ServiceError::Invalid(format!(
                "page must be >= 1, got {}",
                request.page
            )));
        }
        if request.page_size < 1 {
            return Err(ServiceError::Invalid(format!(
                "page_size must be >= 1, got {}",
                request.page_size
            )));
        }
        let project = self.project(request.project.as_deref())?;
        let mut entity_types = request.entity_types.clone();
        if entity_types.is_empty() {
            entity_types.push(
                if request.categories.is_empty() {
                    "entity"
                } else {
                    "observation"
                }
                .to_string(),
            );
        }
        for t in &entity_types {
            if !["entity", "observation", "relation"].contains(&t.as_str()) {
                return Err(ServiceError::Invalid(format!(
                    "invalid entity type '{t}'; use entity, observation or relation"
                )));
            }
        }
        let mut filters = vec![
            format!("project = {}", filter_literal(&project.name)),
            any_of("type", &entity_types),
        ];
        if !request.categories.is_empty() {
            filters.push(any_of("category", &request.categories));
        }
        if !request.note_types.is_empty() {
            let canonical: Vec<String> = request
                .note_types
                .iter()
                .map(|t| crate::note::permalink::normalize_note_type(t))
                .collect();
            filters.push(any_of("note_type", &canonical));
        }
        for tag in &request.tags {
            filters.push(format!("note_tags = {}", filter_literal(tag)));
        }
        if let Some(status) = &request.status {
            filters.push(format!("status = {}", filter_literal(status)));
        }
        let text = request.query.as_deref().unwrap_or("").trim();
        let text = if text == "*" { "" } else { text };
        let offset = (request.page - 1) * request.page_size;
        let base = Query {
            text: text.to_string(),
            filter: Some(filters.join(" AND ")),
            offset,
            limit: request.page_size,
            all_words: true,
            fields: (request.search_type == SearchType::Title).then(|| vec!["title".to_string()]),
            newest_first: text.is_empty(),
        };
        let strict = self.index.search(&base)?;
        let (total, hits) = if strict.total == 0 && !text.is_empty() {
            match relaxed_terms(text) {
                Some(terms) => self.search_any(&base, &terms)?,
                None => (0, Vec::new()),
            }
        } else {
            (strict.total, strict.hits)
        };
        let txn = self.index.read_txn()?;
        let mut builder = ResultBuilder {
            tables: self.index.tables(),
            txn: &txn,
            notes: HashMap::new(),
        };
        let mut results = Vec::with_capacity(hits.len());
        for hit in &hits {
            results.extend(builder.build(hit)?);
        }
        Ok(SearchResponse {
            has_more: (offset + results.len()) < total as usize,
            results,
            current_page: request.page,
            page_size: request.page_size,
            total,
            total_is_exact: true,
        })
    }

    /// The relaxed retry: notes matching any of `terms`, best combined score first.
    fn search_any(&self, base: &Query, terms: &[String]) -> Result<(u64, Vec<Hit>)> {
        let window = base.offset + base.limit;
        let mut merged: HashMap<String, (f64, Hit)> = HashMap::new();
        let mut matching = roaring::RoaringBitmap::new();
        for term in terms {
            let q = Query {
                text: term.clone(),
                offset: 0,
                limit: window,
                ..base.clone()
            };
            let hits = self.index.search(&q)?;
            matching |= &hits.candidates;
            for hit in hits.hits {
                let id = str_field(&hit.doc, "id").unwrap_or_default().to_string();
                let entry = merged.entry(id).or_insert((0.0, hit.clone()));
                entry.0 += hit.score;
            }
        }
        let mut ranked: Vec<(f64, Hit)> = merged.into_values().collect();
        ranked.sort_by(|a, b| b.0.total_cmp(&a.0));
        let page = ranked
            .into_iter()
            .skip(base.offset)
            .take(base.limit)
            .map(|(score, mut hit)| {
                hit.score = score / terms.len() as f64;
                hit
            })
            .collect();
        Ok((matching.len(), page))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relaxed_terms_follow_compat() {
        let cases: &[(&str, Option<Vec<&str>>)] = &[
            (
                "alice tea acme zebra",
                Some(vec!["alice", "tea", "acme", "zebra"]),
            ),
            ("what is the sync watcher", Some(vec!["sync", "watcher"])),
            ("two words", None),
            ("\"quoted phrase here\"", None),
            ("release 2024 notes", None),
            ("Sync sync SYNC", Some(vec!["Sync"])),
            ("the and of", None),
            ("日本語 メモ", Some(vec!["日本語", "メモ"])),
        ];
        for (query, expected) in cases {
            let got = relaxed_terms(query);
            let expected = expected
                .as_ref()
                .map(|v| v.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            assert_eq!(got, expected, "{query}");
        }
    }

    #[test]
    fn filter_literals_escape_quotes() {
        assert_eq!(filter_literal(r#"a "b" \c"#), r#""a \"b\" \\c""#);
    }
}
