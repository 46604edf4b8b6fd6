//! search_notes: query preparation, filters, the relaxed retry, permalink search, and the
//! SearchResponse shape of compat 6.5.

use std::collections::{HashMap, HashSet};
use std::sync::LazyLock;

use chrono::{DateTime, Utc};
use milli_core::heed::{RoTxn, WithoutTls};
use regex::Regex;
use serde::Serialize;
use serde_json::{json, Map, Value};

use super::{App, Result, ServiceError};
use crate::config::Project;
use crate::index::search::{observation_permalink, relation_permalink, Hit, Query};
use crate::index::{NoteKind, NoteRecord};
use crate::note::permalink::{generate_permalink, normalize_note_type};

pub const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "but", "by", "did", "do", "does", "for", "from",
    "had", "has", "have", "how", "i", "in", "is", "it", "of", "on", "or", "our", "that", "the",
    "their", "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who",
    "whom", "whose", "why", "will", "with", "you", "your",
];

const CONTENT_LIMIT: usize = 4000;
pub const SEARCH_TYPES: &str = "hybrid, permalink, semantic, text, title, vector";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SearchMode {
    Text,
    Title,
    Permalink,
}

/// Parameters of search_notes after the MCP layer has coerced them.
#[derive(Debug, Clone)]
pub struct SearchRequest {
    pub query: Option<String>,
    pub page: usize,
    pub page_size: usize,
    pub search_type: Option<String>,
    /// `entity`, `observation`, `relation`; default `entity` (or `observation` with categories).
    pub entity_types: Vec<String>,
    pub categories: Vec<String>,
    pub note_types: Vec<String>,
    pub tags: Vec<String>,
    pub status: Option<String>,
    pub after_date: Option<DateTime<Utc>>,
    pub metadata_filters: Option<Map<String, Value>>,
}

impl Default for SearchRequest {
    fn default() -> Self {
        Self {
            query: None,
            page: 1,
            page_size: 10,
            search_type: None,
            entity_types: Vec::new(),
            categories: Vec::new(),
            note_types: Vec::new(),
            tags: Vec::new(),
            status: None,
            after_date: None,
            metadata_filters: None,
        }
    }
}

impl SearchRequest {
    pub fn has_criteria(&self) -> bool {
        self.query.as_deref().is_some_and(|q| !q.trim().is_empty())
            || self
                .metadata_filters
                .as_ref()
                .is_some_and(|m| !m.is_empty())
            || !self.tags.is_empty()
            || self.status.is_some()
            || !self.note_types.is_empty()
            || !self.entity_types.is_empty()
            || !self.categories.is_empty()
            || self.after_date.is_some()
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

/// Which row of a note a result is.
#[derive(Debug, Clone, Copy)]
enum Row {
    Entity,
    Observation(usize),
    Relation(usize),
}

/// Builds result rows from graph records. Scores are the negated milli ranking score: as with
/// upstream's BM25, lower is better and every score is <= 0.
struct ResultBuilder<'a> {
    app: &'a App,
    txn: &'a RoTxn<'a, WithoutTls>,
    notes: HashMap<String, Option<NoteRecord>>,
}

impl<'a> ResultBuilder<'a> {
    fn note(&mut self, id: &str) -> Result<Option<NoteRecord>> {
        if !self.notes.contains_key(id) {
            let note = self.app.index.tables().get_note(self.txn, id)?;
            self.notes.insert(id.to_string(), note);
        }
        Ok(self.notes[id].clone())
    }

    fn hit_row(&mut self, hit: &Hit) -> Result<Option<SearchResult>> {
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

    fn row(
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

static TAG_TOKEN: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"(?i)(^|\s)tag:(\S+)").unwrap());
static BOOLEAN_WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"\b(AND|OR|NOT)\b").unwrap());

/// Splits `tag:` shorthand out of a query: (remaining text, tags).
pub fn extract_tags(query: &str) -> (String, Vec<String>) {
    if !TAG_TOKEN.is_match(query) {
        return (query.to_string(), Vec::new());
    }
    let mut tags = Vec::new();
    for caps in TAG_TOKEN.captures_iter(query) {
        tags.extend(
            caps[2]
                .split(',')
                .map(|t| t.trim().trim_start_matches('#').to_string())
                .filter(|t| !t.is_empty()),
        );
    }
    let without_tags = TAG_TOKEN.replace_all(query, " ");
    let text = BOOLEAN_WORD.replace_all(&without_tags, " ");
    (text.split_whitespace().collect::<Vec<_>>().join(" "), tags)
}

/// Most branches a boolean query may expand to.
const MAX_BRANCHES: usize = 32;

/// A boolean query as milli queries whose results are united: the query in disjunctive normal
/// form, each conjunction one milli query (`-word` excludes). `(a OR b) AND c NOT d` ->
/// [`a c -d`, `b c -d`]. Parentheses group; adjacent terms are ANDed.
pub fn boolean_branches(query: &str) -> Option<Vec<String>> {
    if !(query.contains(" AND ")
        || query.contains(" OR ")
        || query.contains(" NOT ")
        || query.starts_with("NOT "))
    {
        return None;
    }
    let tokens = tokenize(query);
    let mut pos = 0;
    let dnf = parse_or(&tokens, &mut pos);
    let branches: Vec<String> = dnf
        .into_iter()
        .take(MAX_BRANCHES)
        .map(|conj| {
            conj.into_iter()
                .map(|(term, negated)| if negated { format!("-{term}") } else { term })
                .collect::<Vec<_>>()
                .join(" ")
        })
        .filter(|b| !b.trim().is_empty())
        .collect();
    Some(branches)
}

type Conjunction = Vec<(String, bool)>;

fn tokenize(query: &str) -> Vec<String> {
    let mut tokens = Vec::new();
    let mut chars = query.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '(' | ')' => {
                tokens.push(c.to_string());
                chars.next();
            }
            '"' => {
                let mut phrase = String::from('"');
                chars.next();
                for c in chars.by_ref() {
                    phrase.push(c);
                    if c == '"' {
                        break;
                    }
                }
                tokens.push(phrase);
            }
            _ => {
                let mut word = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || c == '(' || c == ')' {
                        break;
                    }
                    word.push(c);
                    chars.next();
                }
                tokens.push(word);
            }
        }
    }
    tokens
}

fn parse_or(tokens: &[String], pos: &mut usize) -> Vec<Conjunction> {
    let mut result = parse_and(tokens, pos);
    while tokens.get(*pos).map(String::as_str) == Some("OR") {
        *pos += 1;
        result.extend(parse_and(tokens, pos));
    }
    result
}

fn parse_and(tokens: &[String], pos: &mut usize) -> Vec<Conjunction> {
    let mut result: Vec<Conjunction> = vec![Vec::new()];
    loop {
        match tokens.get(*pos).map(String::as_str) {
            None | Some(")") | Some("OR") => return result,
            Some("AND") => *pos += 1,
            Some(_) => {
                let operand = parse_unary(tokens, pos);
                result = cross(&result, &operand);
            }
        }
    }
}

fn parse_unary(tokens: &[String], pos: &mut usize) -> Vec<Conjunction> {
    match tokens.get(*pos).map(String::as_str) {
        Some("NOT") => {
            *pos += 1;
            negate(&parse_unary(tokens, pos))
        }
        Some("(") => {
            *pos += 1;
            let inner = parse_or(tokens, pos);
            if tokens.get(*pos).map(String::as_str) == Some(")") {
                *pos += 1;
            }
            inner
        }
        Some(term) => {
            *pos += 1;
            vec![vec![(term.to_string(), false)]]
        }
        None => vec![Vec::new()],
    }
}

fn cross(a: &[Conjunction], b: &[Conjunction]) -> Vec<Conjunction> {
    let mut out = Vec::new();
    for x in a {
        for y in b {
            if out.len() >= MAX_BRANCHES {
                return out;
            }
            out.push(x.iter().chain(y.iter()).cloned().collect());
        }
    }
    out
}

/// De Morgan: NOT (c1 OR c2) = NOT c1 AND NOT c2; NOT (l1 AND l2) = NOT l1 OR NOT l2.
fn negate(dnf: &[Conjunction]) -> Vec<Conjunction> {
    let mut result: Vec<Conjunction> = vec![Vec::new()];
    for conj in dnf {
        let alternatives: Vec<Conjunction> =
            conj.iter().map(|(t, n)| vec![(t.clone(), !n)]).collect();
        result = cross(&result, &alternatives);
    }
    result
}

static METADATA_KEY: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$").unwrap());

/// A front matter value as upstream compares it: Python `str()` of scalars.
fn scalar_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(true) => Some("True".into()),
        Value::Bool(false) => Some("False".into()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn lookup_path<'a>(map: &'a Map<String, Value>, key: &str) -> Option<&'a Value> {
    let mut parts = key.split('.');
    let mut current = map.get(parts.next()?)?;
    for part in parts {
        current = current.as_object()?.get(part)?;
    }
    Some(current)
}

fn compare(actual: &Value, op: &str, bound: &Value) -> bool {
    let (Some(a), Some(b)) = (scalar_text(actual), scalar_text(bound)) else {
        return false;
    };
    let ordering = match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.partial_cmp(&y),
        _ => Some(a.cmp(&b)),
    };
    let Some(ordering) = ordering else {
        return false;
    };
    match op {
        "$gt" => ordering.is_gt(),
        "$gte" => ordering.is_ge(),
        "$lt" => ordering.is_lt(),
        "$lte" => ordering.is_le(),
        _ => false,
    }
}

fn contains(actual: &Value, wanted: &Value) -> bool {
    let Some(w) = scalar_text(wanted) else {
        return false;
    };
    match actual {
        Value::Array(items) => items
            .iter()
            .any(|i| scalar_text(i).as_deref() == Some(w.as_str())),
        Value::String(s) => s.contains(&format!("\"{w}\"")) || s.split(',').any(|p| p.trim() == w),
        other => scalar_text(other).as_deref() == Some(w.as_str()),
    }
}

/// Checks metadata filters (compat 6.3) before running them, so bad input is reported.
pub fn validate_metadata_filters(filters: &Map<String, Value>) -> Result<()> {
    for (key, condition) in filters {
        if !METADATA_KEY.is_match(key) {
            return Err(ServiceError::Invalid(format!(
                "Unsupported metadata filter key: {key}"
            )));
        }
        if let Value::Object(ops) = condition {
            for (op, arg) in ops {
                let ok = match op.as_str() {
                    "$in" => arg.as_array().is_some_and(|a| !a.is_empty()),
                    "$gt" | "$gte" | "$lt" | "$lte" => scalar_text(arg).is_some(),
                    "$between" => arg.as_array().is_some_and(|a| a.len() == 2),
                    _ => false,
                };
                if !ok {
                    return Err(ServiceError::Invalid(format!(
                        "Unsupported metadata filter operator for {key}: {op} {arg}"
                    )));
                }
            }
        }
    }
    Ok(())
}

/// Whether a note's front matter satisfies every filter.
pub fn metadata_matches(metadata: &Map<String, Value>, filters: &Map<String, Value>) -> bool {
    filters.iter().all(|(key, condition)| {
        let key = if key == "note_type" {
            "type"
        } else {
            key.as_str()
        };
        let Some(actual) = lookup_path(metadata, key) else {
            return false;
        };
        match condition {
            Value::Array(wanted) => wanted.iter().all(|w| contains(actual, w)),
            Value::Object(ops) => ops.iter().all(|(op, arg)| match op.as_str() {
                "$in" => arg.as_array().is_some_and(|options| {
                    options.iter().any(|o| {
                        scalar_text(o).is_some_and(|o| {
                            scalar_text(actual).as_deref() == Some(o.as_str())
                                || contains(actual, &Value::String(o))
                        })
                    })
                }),
                "$between" => arg.as_array().is_some_and(|b| {
                    b.len() == 2 && compare(actual, "$gte", &b[0]) && compare(actual, "$lte", &b[1])
                }),
                other => compare(actual, other, arg),
            }),
            scalar => match (scalar_text(actual), scalar_text(scalar)) {
                (Some(a), Some(b)) => a == b,
                _ => false,
            },
        }
    })
}

/// A permalink glob (`*` = anything, `?` = one character), matched case-insensitively.
fn permalink_glob(pattern: &str) -> Regex {
    let mut re = String::from("(?i)^");
    for c in pattern.chars() {
        match c {
            '*' => re.push_str(".*"),
            '?' => re.push('.'),
            other => re.push_str(&regex::escape(&other.to_string())),
        }
    }
    re.push('$');
    Regex::new(&re).expect("an escaped glob is a valid regex")
}

impl App {
    /// search_notes in one project.
    pub fn search(&self, project: &Project, request: &SearchRequest) -> Result<SearchResponse> {
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
        if !request.has_criteria() {
            return Err(ServiceError::NoSearchCriteria);
        }
        let (mode, notice) = match request
            .search_type
            .as_deref()
            .map(str::to_lowercase)
            .as_deref()
        {
            None | Some("text") => (SearchMode::Text, None),
            Some("title") => (SearchMode::Title, None),
            Some("permalink") => (SearchMode::Permalink, None),
            Some(kind @ ("vector" | "semantic" | "hybrid")) => (
                SearchMode::Text,
                Some(format!(
                    "gitmem has no semantic search yet: this {kind} search ran as a text search."
                )),
            ),
            Some(_) => {
                return Err(ServiceError::InvalidSearchType(
                    request.search_type.clone().unwrap_or_default(),
                ));
            }
        };
        let mut request = request.clone();
        let raw = request.query.clone().unwrap_or_default();
        let (text, shorthand_tags) = extract_tags(raw.trim());
        request.tags.extend(shorthand_tags);
        let (mode, text) = match text.strip_prefix("memory://") {
            Some(path) => (SearchMode::Permalink, path.to_string()),
            None => (mode, text),
        };
        for t in &request.entity_types {
            if !["entity", "observation", "relation"].contains(&t.as_str()) {
                return Err(ServiceError::Invalid(format!(
                    "Invalid entity type '{t}'. Valid types are: entity, observation, relation"
                )));
            }
        }
        if let Some(filters) = &request.metadata_filters {
            validate_metadata_filters(filters)?;
        }
        let mut response = match mode {
            SearchMode::Permalink => self.search_permalinks(project, &request, &text)?,
            SearchMode::Text | SearchMode::Title => {
                self.search_text(project, &request, &text, mode)?
            }
        };
        response.notice = notice;
        Ok(response)
    }

    /// search_notes over several projects, merged by score.
    pub fn search_projects(
        &self,
        projects: &[Project],
        request: &SearchRequest,
    ) -> Result<SearchResponse> {
        let mut per_project = request.clone();
        per_project.page = 1;
        per_project.page_size = request.page * request.page_size;
        let mut rows = Vec::new();
        let mut total = 0;
        let mut exact = true;
        let mut notice = None;
        for project in projects {
            match self.search(project, &per_project) {
                Ok(response) => {
                    total += response.total;
                    notice = notice.or(response.notice);
                    rows.extend(response.results.into_iter().map(|mut r| {
                        r.project = Some(project.name.clone());
                        r
                    }));
                }
                Err(e) if e.is_user_error() => return Err(e),
                Err(e) => {
                    tracing::warn!("search in project '{}' failed: {e}", project.name);
                    exact = false;
                }
            }
        }
        rows.sort_by(|a, b| a.score.total_cmp(&b.score));
        let offset = (request.page - 1) * request.page_size;
        let results: Vec<_> = rows
            .into_iter()
            .skip(offset)
            .take(request.page_size)
            .collect();
        Ok(SearchResponse {
            has_more: (offset + results.len()) < total as usize,
            results,
            current_page: request.page,
            page_size: request.page_size,
            total,
            total_is_exact: exact,
            notice,
        })
    }

    fn entity_types(request: &SearchRequest) -> Vec<String> {
        if request.entity_types.is_empty() {
            vec![if request.categories.is_empty() {
                "entity"
            } else {
                "observation"
            }
            .to_string()]
        } else {
            request.entity_types.clone()
        }
    }

    /// Note ids of a project whose front matter passes the metadata filters.
    fn notes_matching_metadata(
        &self,
        project: &Project,
        filters: &Map<String, Value>,
    ) -> Result<Vec<String>> {
        Ok(self
            .all_notes(project)?
            .into_iter()
            .filter(|n| metadata_matches(&n.metadata, filters))
            .map(|n| n.id)
            .collect())
    }

    fn search_text(
        &self,
        project: &Project,
        request: &SearchRequest,
        text: &str,
        mode: SearchMode,
    ) -> Result<SearchResponse> {
        let mut filters = vec![
            format!("project = {}", filter_literal(&project.name)),
            any_of("type", &Self::entity_types(request)),
        ];
        if !request.categories.is_empty() {
            filters.push(any_of("category", &request.categories));
        }
        if !request.note_types.is_empty() {
            let canonical: Vec<String> = request
                .note_types
                .iter()
                .map(|t| normalize_note_type(t))
                .collect();
            filters.push(any_of("note_type", &canonical));
        }
        for tag in &request.tags {
            filters.push(format!("note_tags = {}", filter_literal(tag)));
        }
        if let Some(status) = &request.status {
            filters.push(format!("status = {}", filter_literal(status)));
        }
        if let Some(after) = request.after_date {
            filters.push(format!(
                "updated > {}",
                after.timestamp_millis() as f64 / 1000.0
            ));
        }
        let offset = (request.page - 1) * request.page_size;
        let empty = |request: &SearchRequest| SearchResponse {
            results: Vec::new(),
            current_page: request.page,
            page_size: request.page_size,
            total: 0,
            total_is_exact: true,
            has_more: false,
            notice: None,
        };
        if let Some(meta) = request.metadata_filters.as_ref().filter(|m| !m.is_empty()) {
            let ids = self.notes_matching_metadata(project, meta)?;
            if ids.is_empty() {
                return Ok(empty(request));
            }
            filters.push(any_of("note_id", &ids));
        }
        let text = if text.trim() == "*" { "" } else { text.trim() };
        let base = Query {
            text: text.to_string(),
            filter: Some(filters.join(" AND ")),
            offset,
            limit: request.page_size,
            all_words: true,
            fields: (mode == SearchMode::Title).then(|| vec!["title".to_string()]),
            newest_first: text.is_empty(),
        };
        let (total, hits) = match boolean_branches(text) {
            Some(branches) => self.search_union(&base, &branches)?,
            None => {
                let strict = self.index.search(&base)?;
                if strict.total == 0 && !text.is_empty() {
                    match relaxed_terms(text) {
                        Some(terms) => self.search_union(&base, &terms)?,
                        None => (0, Vec::new()),
                    }
                } else {
                    (strict.total, strict.hits)
                }
            }
        };
        let txn = self.index.read_txn()?;
        let mut builder = ResultBuilder {
            app: self,
            txn: &txn,
            notes: HashMap::new(),
        };
        let mut results = Vec::with_capacity(hits.len());
        for hit in &hits {
            results.extend(builder.hit_row(hit)?);
        }
        Ok(SearchResponse {
            has_more: (offset + results.len()) < total as usize,
            results,
            current_page: request.page,
            page_size: request.page_size,
            total,
            total_is_exact: true,
            notice: None,
        })
    }

    /// Documents matching any of `queries`, ranked by their best score in any of them. Taking
    /// the top `offset + limit` of each query gives the exact top of the union, so pages are
    /// consistent with each other.
    fn search_union(&self, base: &Query, queries: &[String]) -> Result<(u64, Vec<Hit>)> {
        let window = base.offset + base.limit;
        let mut merged: HashMap<String, Hit> = HashMap::new();
        let mut matching = roaring::RoaringBitmap::new();
        for text in queries {
            let q = Query {
                text: text.clone(),
                offset: 0,
                limit: window,
                ..base.clone()
            };
            let hits = self.index.search(&q)?;
            matching |= &hits.candidates;
            for hit in hits.hits {
                let id = str_field(&hit.doc, "id").unwrap_or_default().to_string();
                match merged.get(&id) {
                    Some(best) if best.score >= hit.score => {}
                    _ => {
                        merged.insert(id, hit);
                    }
                }
            }
        }
        // Same order as milli's within each query (score, then internal id), so the top of the
        // union is exact.
        let mut ranked: Vec<Hit> = merged.into_values().collect();
        ranked.sort_by(|a, b| b.score.total_cmp(&a.score).then(a.docid.cmp(&b.docid)));
        let page = ranked
            .into_iter()
            .skip(base.offset)
            .take(base.limit)
            .collect();
        Ok((matching.len(), page))
    }

    /// Permalink search: exact, or a glob with `*`. A pattern without the project prefix is
    /// also tried with it.
    fn search_permalinks(
        &self,
        project: &Project,
        request: &SearchRequest,
        pattern: &str,
    ) -> Result<SearchResponse> {
        let pattern = pattern.trim().trim_start_matches("memory://");
        let mut patterns = vec![pattern.to_string()];
        let prefix = format!("{}/", project.permalink);
        if !pattern.starts_with(&prefix) {
            patterns.push(format!("{prefix}{pattern}"));
        }
        let globs: Vec<Regex> = patterns
            .iter()
            .map(|p| {
                if p.contains('*') || p.contains('?') {
                    permalink_glob(p)
                } else {
                    permalink_glob(&generate_permalink(p, false))
                }
            })
            .collect();
        let matches = |p: &str| globs.iter().any(|g| g.is_match(p));
        let types = Self::entity_types(request);
        let wanted: HashSet<&str> = types.iter().map(String::as_str).collect();
        let meta = request.metadata_filters.as_ref().filter(|m| !m.is_empty());
        let mut notes = self.all_notes(project)?;
        notes.retain(|n| {
            meta.is_none_or(|m| metadata_matches(&n.metadata, m))
                && request.tags.iter().all(|t| n.tags.contains(t))
                && request
                    .status
                    .as_ref()
                    .is_none_or(|s| n.status.as_ref() == Some(s))
                && request
                    .after_date
                    .is_none_or(|d| n.updated_ms > d.timestamp_millis())
                && (request.note_types.is_empty()
                    || request
                        .note_types
                        .iter()
                        .any(|t| normalize_note_type(t) == normalize_note_type(&n.note_type)))
        });
        notes.sort_by(|a, b| b.updated_ms.cmp(&a.updated_ms).then(a.path.cmp(&b.path)));
        let mut rows: Vec<(NoteRecord, Row)> = Vec::new();
        for note in notes {
            let permalink = note.permalink.clone().unwrap_or_default();
            if wanted.contains("entity") && !permalink.is_empty() && matches(&permalink) {
                rows.push((note.clone(), Row::Entity));
            }
            if wanted.contains("observation") {
                for (i, obs) in note.observations.iter().enumerate() {
                    let category_ok =
                        request.categories.is_empty() || request.categories.contains(&obs.category);
                    if category_ok
                        && matches(&observation_permalink(
                            &permalink,
                            &obs.category,
                            &obs.content,
                        ))
                    {
                        rows.push((note.clone(), Row::Observation(i)));
                    }
                }
            }
            if wanted.contains("relation") {
                for (i, rel) in note.relations.iter().enumerate() {
                    let to = rel
                        .to_id
                        .as_deref()
                        .and_then(|id| self.note_by_id(id).ok().flatten())
                        .and_then(|n| n.permalink);
                    let p = relation_permalink(
                        &permalink,
                        &rel.relation.relation_type,
                        to.as_deref().unwrap_or(&rel.relation.target),
                    );
                    if matches(&p) {
                        rows.push((note.clone(), Row::Relation(i)));
                    }
                }
            }
        }
        let total = rows.len() as u64;
        let offset = (request.page - 1) * request.page_size;
        let txn = self.index.read_txn()?;
        let mut builder = ResultBuilder {
            app: self,
            txn: &txn,
            notes: HashMap::new(),
        };
        let mut results = Vec::new();
        for (note, row) in rows.into_iter().skip(offset).take(request.page_size) {
            let content = match row {
                Row::Entity => self.index.stored_body(&note.id)?,
                _ => None,
            };
            results.extend(builder.row(&note, row, 0.0, content)?);
        }
        Ok(SearchResponse {
            has_more: (offset + results.len()) < total as usize,
            results,
            current_page: request.page,
            page_size: request.page_size,
            total,
            total_is_exact: true,
            notice: None,
        })
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
    fn tag_shorthand_and_booleans() {
        assert_eq!(
            extract_tags("tag:coffee"),
            (String::new(), vec!["coffee".to_string()])
        );
        assert_eq!(
            extract_tags("tag:a,b brewing"),
            (
                "brewing".to_string(),
                vec!["a".to_string(), "b".to_string()]
            )
        );
        assert_eq!(
            extract_tags("tag:x AND tag:y"),
            (String::new(), vec!["x".to_string(), "y".to_string()])
        );
        assert_eq!(
            extract_tags("plain words"),
            ("plain words".to_string(), vec![])
        );
        let cases: &[(&str, Option<&[&str]>)] = &[
            ("a AND b NOT c OR d", Some(&["a b -c", "d"])),
            (
                "(coffee OR tea) AND milk",
                Some(&["coffee milk", "tea milk"]),
            ),
            ("coffee AND NOT (tea OR milk)", Some(&["coffee -tea -milk"])),
            ("NOT (a AND b) AND c", Some(&["-a c", "-b c"])),
            (
                "\"exact phrase\" OR other",
                Some(&["\"exact phrase\"", "other"]),
            ),
            ("and or not", None),
        ];
        for (query, expected) in cases {
            let expected = expected.map(|e| e.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            assert_eq!(boolean_branches(query), expected, "{query}");
        }
    }

    #[test]
    fn metadata_filters_follow_compat() {
        let meta = json!({"status": "active", "priority": 3, "done": true, "tags": ["a", "b"], "due": "2025-03-01", "nested": {"k": "v"}, "type": "person"});
        let meta = meta.as_object().unwrap();
        let cases = [
            (json!({"status": "active"}), true),
            (json!({"status": "draft"}), false),
            (json!({"priority": 3}), true),
            (json!({"done": true}), true),
            (json!({"tags": ["a", "b"]}), true),
            (json!({"tags": ["a", "z"]}), false),
            (json!({"status": {"$in": ["draft", "active"]}}), true),
            (json!({"priority": {"$gt": 2}}), true),
            (json!({"priority": {"$gte": 4}}), false),
            (json!({"priority": {"$between": [1, 3]}}), true),
            (json!({"due": {"$lt": "2025-04-01"}}), true),
            (json!({"nested.k": "v"}), true),
            (json!({"note_type": "person"}), true),
            (json!({"missing": "x"}), false),
        ];
        for (filter, expected) in cases {
            assert_eq!(
                metadata_matches(meta, filter.as_object().unwrap()),
                expected,
                "{filter}"
            );
        }
        for bad in [
            json!({"bad key!": 1}),
            json!({"k": {"$regex": "x"}}),
            json!({"k": {"$in": []}}),
        ] {
            assert!(
                validate_metadata_filters(bad.as_object().unwrap()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn filter_literals_escape_quotes() {
        assert_eq!(filter_literal(r#"a "b" \c"#), r#""a \"b\" \\c""#);
    }
}
