//! Result rows: the SearchResult and SearchResponse shapes of compat 6.5, built from graph
//! records for milli hits.

use std::collections::HashMap;

use index::Snapshot;
use serde_json::{Map, Value};

use super::super::Result;
use index::query::Hit;
use index::{NoteKind, NoteRecord};
use note::permalink::normalize_note_type;
use note::permalink::{observation_permalink, relation_permalink};

const CONTENT_LIMIT: usize = 4000;

/// What a row of a search or of recent_activity stands for: a note, one of its observations
/// or one of its relations.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowKind {
    Entity,
    Observation,
    Relation,
}

impl RowKind {
    /// The name Basic Memory gives the kind: in `type` filters, search documents and answers.
    pub fn as_str(self) -> &'static str {
        match self {
            RowKind::Entity => "entity",
            RowKind::Observation => "observation",
            RowKind::Relation => "relation",
        }
    }

    /// The kind `name` names, if any.
    pub fn named(name: &str) -> Option<RowKind> {
        [RowKind::Entity, RowKind::Observation, RowKind::Relation]
            .into_iter()
            .find(|kind| kind.as_str() == name)
    }
}

/// The characters of the content a row was cut from, and whether the cut left some out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContentSize {
    pub length: usize,
    pub truncated: bool,
}

/// One row of a search.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchResult {
    pub title: String,
    pub kind: RowKind,
    pub score: f64,
    pub entity: Option<String>,
    pub external_id: String,
    pub permalink: Option<String>,
    pub content: Option<String>,
    /// How much of the indexed content `content` shows (Basic Memory 0.24).
    pub content_size: Option<ContentSize>,
    /// The note's passage that best matches the query (a note row of a search with words).
    pub matched_chunk: Option<String>,
    pub file_path: String,
    pub updated_ms: i64,
    /// The note's type (`file` for a file that is not markdown); shown for note rows.
    pub note_type: String,
    /// An observation row's tags; for a note of a linked folder, the note's.
    pub tags: Vec<String>,
    /// Where a note of a linked folder comes from (design 6): its front matter's `source`.
    pub linked_source: Option<Value>,
    pub entity_id: String,
    pub observation_id: Option<String>,
    pub relation_id: Option<String>,
    pub category: Option<String>,
    pub from_entity: Option<String>,
    pub to_entity: Option<String>,
    pub relation_type: Option<String>,
    /// The project of the row (set by search_all_projects).
    pub project: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct SearchResponse {
    pub results: Vec<SearchResult>,
    pub current_page: usize,
    pub page_size: usize,
    pub total: u64,
    pub total_is_exact: bool,
    pub has_more: bool,
    /// Said to the user in text output (semantic search asked for, text search given).
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

impl SearchResult {
    /// Shows `content` cut to `CONTENT_LIMIT` characters, with its length before the cut.
    fn set_content(&mut self, content: String) {
        let length = content.chars().count();
        self.content = Some(truncate(&content, CONTENT_LIMIT));
        self.content_size = Some(ContentSize {
            length,
            truncated: length > CONTENT_LIMIT,
        });
    }
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
    snap: &'a Snapshot<'a>,
    notes: HashMap<String, Option<NoteRecord>>,
}

impl<'a> ResultBuilder<'a> {
    pub(super) fn new(snap: &'a Snapshot<'a>) -> Self {
        ResultBuilder {
            snap,
            notes: HashMap::new(),
        }
    }

    fn note(&mut self, id: &str) -> Result<Option<NoteRecord>> {
        if !self.notes.contains_key(id) {
            let note = self.snap.note(id)?;
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
        let row = match str_field(d, "type").and_then(RowKind::named) {
            Some(RowKind::Observation) => Row::Observation(index),
            Some(RowKind::Relation) => Row::Relation(index),
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
            kind: RowKind::Entity,
            score,
            entity: note.permalink.clone(),
            external_id: note.id.clone(),
            permalink: note.permalink.clone(),
            content: None,
            content_size: None,
            matched_chunk: None,
            file_path: note.path.clone(),
            updated_ms: note.updated_ms,
            note_type: normalize_note_type(&note.note_type),
            tags: Vec::new(),
            linked_source: None,
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
                result.kind = RowKind::Observation;
                result.title = index::documents::observation_title(&obs.category, &obs.content);
                result.permalink = Some(observation_permalink(
                    &note_permalink,
                    &obs.category,
                    &obs.content,
                ));
                result.set_content(obs.content.clone());
                result.category = Some(obs.category.clone());
                result.observation_id = Some(format!("{}-o{i}", note.id));
                result.tags = obs.tags.clone();
            }
            Row::Relation(i) => {
                let Some(rel) = note.relations.get(i) else {
                    return Ok(None);
                };
                let target = match &rel.to_id {
                    Some(to) => self.note(to)?,
                    None => None,
                };
                result.kind = RowKind::Relation;
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
            }
            Row::Entity => {
                if note.kind == NoteKind::File {
                    result.note_type = "file".into();
                }
                if let Some(source) = note.linked_source() {
                    result.linked_source = Some(source.clone());
                    result.tags = note.tags.clone();
                }
                if let Some(content) = entity_content.filter(|c| !c.is_empty()) {
                    result.set_content(content);
                }
            }
        }
        Ok(Some(result))
    }
}
