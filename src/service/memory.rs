//! The gitmem memory API (`serve --tools gitmem`): memories are notes, kept in `memories/`,
//! whose front matter carries the API's fields (`note::memory`). Any note is a memory: one
//! without an `id` is known by its permalink, so a Basic Memory note answers memory_get too.

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

use super::error::{ImportError, InternalError, MemoryError, NoteError, PageError};
use super::import::{ImportOptions, ImportReport};
use super::scope::ProjectChoice;
use super::search::SearchRequest;
use super::{now_text, App, Result, ServiceError};
use crate::config::Project;
use crate::index::{NoteKind, NoteRecord};
use crate::note::document::Document;
use crate::note::filename::{foreign_file_stem, note_file_path};
use crate::note::frontmatter;
use crate::note::memory::{
    basic_id, expires_at, is_deleted, is_expired, meta_time, ordered, parse_duration,
    title_from_content,
};
use crate::note::permalink::note_permalink;
use crate::vault;

/// Where new memories go.
pub const MEMORY_FOLDER: &str = "memories";

/// A memory as the API answers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Memory {
    pub id: String,
    pub title: String,
    pub content: String,
    pub memory_type: String,
    pub tags: Vec<String>,
    pub score: Option<f64>,
    pub ttl: Option<String>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub deleted_at: Option<String>,
    /// When the ttl runs out.
    pub expires_at: Option<DateTime<Utc>>,
    pub expired: bool,
    pub source: Option<String>,
    /// The permalink of the Basic Memory note it was imported from.
    pub basic_id: Option<String>,
    pub permalink: Option<String>,
    pub file_path: String,
    pub project: String,
}

/// memory_save's fields.
#[derive(Debug, Clone, Default)]
pub struct NewMemory {
    pub id: Option<String>,
    pub title: Option<String>,
    pub content: String,
    pub memory_type: Option<String>,
    pub tags: Vec<String>,
    pub score: Option<f64>,
    pub ttl: Option<String>,
    pub source: Option<String>,
    pub basic_id: Option<String>,
    pub created_at: Option<String>,
}

/// memory_update's patch: `None` leaves a field alone; `Some(None)` clears it.
#[derive(Debug, Clone, Default)]
pub struct MemoryPatch {
    pub title: Option<String>,
    pub content: Option<String>,
    pub memory_type: Option<String>,
    pub tags: Option<Vec<String>>,
    pub score: Option<Option<f64>>,
    pub ttl: Option<Option<String>>,
    pub source: Option<Option<String>>,
    pub basic_id: Option<Option<String>>,
    /// `Some(None)` restores a soft-deleted memory.
    pub deleted_at: Option<Option<String>>,
}

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
    pub include_deleted: bool,
}

#[derive(Debug, Clone, PartialEq)]
pub struct MemoryPage {
    pub results: Vec<Memory>,
    /// Memories that matched, before limit and offset.
    pub total: usize,
    pub limit: usize,
    pub offset: usize,
    pub sort: MemorySort,
}

/// What memory_delete did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoryDeleted {
    pub id: String,
    pub mode: DeleteMode,
    pub deleted_at: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeleteMode {
    /// Marked `deleted_at`; searches no longer show it.
    Soft,
    /// The file is gone.
    Hard,
}

/// The largest page memory_search returns.
pub const MAX_LIMIT: usize = 100;

fn check_score(score: Option<f64>) -> Result<()> {
    match score {
        Some(s) if !(0.0..=1.0).contains(&s) => Err(MemoryError::Score(s).into()),
        _ => Ok(()),
    }
}

fn check_ttl(ttl: Option<&str>) -> Result<()> {
    match ttl {
        Some(t) if parse_duration(t).is_none() => Err(MemoryError::Ttl(t.to_string()).into()),
        _ => Ok(()),
    }
}

fn check_time(field: &'static str, value: Option<&str>) -> Result<()> {
    match value {
        Some(v) if DateTime::parse_from_rfc3339(v).is_err() => Err(MemoryError::Time {
            field,
            value: v.to_string(),
        }
        .into()),
        _ => Ok(()),
    }
}

fn not_found(id: &str) -> ServiceError {
    MemoryError::NotFound(id.to_string()).into()
}

fn set(meta: &mut Map<String, Value>, key: &str, value: Option<Value>) {
    match value {
        Some(v) => {
            meta.insert(key.to_string(), v);
        }
        None => {
            meta.shift_remove(key);
        }
    }
}

fn set_basic_id(meta: &mut Map<String, Value>, value: Option<&str>) {
    meta.shift_remove("basic_id");
    let mut compat = meta
        .get("compat")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    set(&mut compat, "basic_id", value.map(|v| json!(v)));
    set(
        meta,
        "compat",
        (!compat.is_empty()).then_some(Value::Object(compat)),
    );
}

impl App {
    /// The note a memory id names: the note whose front matter `id` it is, else the note
    /// with that permalink.
    fn memory_note(&self, project: &Project, id: &str) -> Result<Option<NoteRecord>> {
        let id = id.trim();
        if id.is_empty() {
            return Err(MemoryError::EmptyId.into());
        }
        let notes = self.all_notes(project)?;
        if let Some(note) = notes
            .iter()
            .find(|n| n.metadata.get("id").and_then(Value::as_str) == Some(id))
        {
            return Ok(Some(note.clone()));
        }
        Ok(notes
            .into_iter()
            .find(|n| n.kind == NoteKind::Markdown && n.permalink.as_deref() == Some(id)))
    }

    fn memory_of(&self, project: &Project, note: &NoteRecord) -> Result<Memory> {
        let text = vault::fs::read_text(&self.project_file(project, &note.path)?)?;
        let meta = &note.metadata;
        let text_of = |key: &str| meta.get(key).and_then(Value::as_str).map(String::from);
        Ok(Memory {
            id: text_of("id")
                .or_else(|| note.permalink.clone())
                .unwrap_or_else(|| note.id.clone()),
            title: note.title.clone(),
            content: frontmatter::body(&text)
                .trim_start_matches('\n')
                .to_string(),
            memory_type: note.note_type.clone(),
            tags: note.tags.clone(),
            score: meta.get("score").and_then(Value::as_f64),
            ttl: text_of("ttl"),
            created_at: text_of("created_at"),
            updated_at: text_of("updated_at"),
            deleted_at: text_of("deleted_at"),
            expires_at: expires_at(meta, note.created_ms),
            expired: is_expired(meta, note.created_ms, Utc::now()),
            source: text_of("source"),
            basic_id: basic_id(meta).map(String::from),
            permalink: note.permalink.clone(),
            file_path: note.path.clone(),
            project: project.name.clone(),
        })
    }

    /// memory_save: a new memory in `memories/`.
    pub fn memory_save(&self, choice: &ProjectChoice, new: &NewMemory) -> Result<Memory> {
        let project = self.select_project(choice)?;
        if new.content.trim().is_empty() {
            return Err(MemoryError::EmptyContent.into());
        }
        check_score(new.score)?;
        check_ttl(new.ttl.as_deref())?;
        check_time("created_at", new.created_at.as_deref())?;
        let created_at = new.created_at.clone().unwrap_or_else(now_text);
        let id = match new.id.as_deref().map(str::trim) {
            Some("") => return Err(MemoryError::EmptyId.into()),
            Some(id) => id.to_string(),
            None => crate::import::stable_id("memory", &new.content, &created_at),
        };
        if self.memory_note(&project, &id)?.is_some() {
            return Err(MemoryError::Exists(id).into());
        }
        let title = match new.title.as_deref().map(str::trim) {
            Some(t) if !t.is_empty() => t.to_string(),
            _ => title_from_content(&new.content),
        };
        let (title, _) = self.redact_title(&title);
        let mut meta = Map::new();
        meta.insert("id".into(), json!(id));
        meta.insert(
            "source".into(),
            json!(new.source.as_deref().unwrap_or("memory_save")),
        );
        if !new.tags.is_empty() {
            meta.insert("tags".into(), json!(new.tags));
        }
        set(&mut meta, "score", new.score.map(|s| json!(s)));
        set(&mut meta, "ttl", new.ttl.clone().map(Value::String));
        meta.insert("created_at".into(), json!(created_at));
        meta.insert("updated_at".into(), json!(created_at));
        set_basic_id(&mut meta, new.basic_id.as_deref());
        let short: String = id.chars().filter(|c| c.is_alphanumeric()).take(8).collect();
        let stem = foreign_file_stem(&title).unwrap_or_else(|| format!("memory {short}"));
        let mut path = note_file_path(MEMORY_FOLDER, &stem, false);
        if self.project_file(&project, &path)?.exists() {
            path = note_file_path(MEMORY_FOLDER, &format!("{stem} ({short})"), false);
        }
        let include = self.config().compat.permalinks_include_project;
        let permalink = self.free_permalink(
            &project,
            &note_permalink(&project.name, &path, include),
            None,
        )?;
        let note_type = new.memory_type.as_deref().unwrap_or("memory");
        let body = format!("{}\n", new.content.trim_end());
        let text = Document::headed(&title, note_type, &permalink, &ordered(meta), body).render();
        let written = self.create_note_file(&project, &path, &text)?;
        let note = self
            .note_by_id(&written.id)?
            .ok_or_else(|| InternalError::Vanished(path))?;
        self.memory_of(&project, &note)
    }

    /// memory_get: a memory by id, soft-deleted or expired ones included (they say so).
    pub fn memory_get(&self, choice: &ProjectChoice, id: &str) -> Result<Memory> {
        let project = self.select_project(choice)?;
        let note = self
            .memory_note(&project, id)?
            .ok_or_else(|| not_found(id))?;
        self.memory_of(&project, &note)
    }

    /// memory_update: applies a patch to a memory's front matter and content.
    pub fn memory_update(
        &self,
        choice: &ProjectChoice,
        id: &str,
        patch: &MemoryPatch,
    ) -> Result<Memory> {
        let project = self.select_project(choice)?;
        let note = self
            .memory_note(&project, id)?
            .ok_or_else(|| not_found(id))?;
        if let Some(content) = &patch.content {
            if content.trim().is_empty() {
                return Err(MemoryError::EmptyContent.into());
            }
        }
        if matches!(&patch.title, Some(t) if t.trim().is_empty()) {
            return Err(NoteError::EmptyTitle.into());
        }
        check_score(patch.score.flatten())?;
        check_ttl(patch.ttl.clone().flatten().as_deref())?;
        check_time("deleted_at", patch.deleted_at.clone().flatten().as_deref())?;
        let now = now_text();
        // The rewrite decodes lossily, which would replace every invalid byte: a file that is
        // not UTF-8 is refused here.
        vault::fs::read_text(&self.project_file(&project, &note.path)?)?;
        // Only the keys the patch changes are edited in place (design 1.2): any note is a
        // memory, and its author's comments, quoting and key order stay. Front matter that
        // cannot be parsed is refused, never taken for empty: its keys would be lost.
        self.try_rewrite_note(&project, &note, |text| {
            let before = Document::parse(text)
                .map_err(|source| MemoryError::FrontMatter {
                    path: note.path.clone(),
                    source,
                })?
                .meta;
            let mut meta = before.clone();
            if let Some(title) = &patch.title {
                meta.insert("title".into(), json!(title.trim()));
            }
            if let Some(kind) = &patch.memory_type {
                meta.insert("type".into(), json!(kind));
            }
            if let Some(tags) = &patch.tags {
                set(&mut meta, "tags", (!tags.is_empty()).then(|| json!(tags)));
            }
            if let Some(score) = patch.score {
                set(&mut meta, "score", score.map(|s| json!(s)));
            }
            if let Some(ttl) = &patch.ttl {
                set(&mut meta, "ttl", ttl.clone().map(Value::String));
            }
            if let Some(source) = &patch.source {
                set(&mut meta, "source", source.clone().map(Value::String));
            }
            if let Some(basic) = &patch.basic_id {
                set_basic_id(&mut meta, basic.as_deref());
            }
            if let Some(deleted_at) = &patch.deleted_at {
                set(
                    &mut meta,
                    "deleted_at",
                    deleted_at.clone().map(Value::String),
                );
            }
            meta.insert("updated_at".into(), json!(now));
            let edited = frontmatter::apply_changes(text, &before, &meta);
            Ok(Some(match &patch.content {
                Some(content) => {
                    let head = frontmatter::locate(&edited).map_or(0, |b| b.body_start);
                    format!("{}\n{}\n", &edited[..head], content.trim_end())
                }
                None => edited,
            }))
        })?;
        let note = self.note_by_id(&note.id)?.ok_or_else(|| not_found(id))?;
        self.memory_of(&project, &note)
    }

    /// memory_delete: soft (marks `deleted_at`; searches hide it) unless `hard`, which
    /// deletes the note's file.
    pub fn memory_delete(
        &self,
        choice: &ProjectChoice,
        id: &str,
        hard: bool,
    ) -> Result<MemoryDeleted> {
        let project = self.select_project(choice)?;
        let note = self
            .memory_note(&project, id)?
            .ok_or_else(|| not_found(id))?;
        if hard {
            self.delete_note_file(&project, &note)?;
            return Ok(MemoryDeleted {
                id: id.to_string(),
                mode: DeleteMode::Hard,
                deleted_at: None,
            });
        }
        let deleted_at = match note.metadata.get("deleted_at").and_then(Value::as_str) {
            Some(when) if is_deleted(&note.metadata) => when.to_string(),
            _ => {
                let patch = MemoryPatch {
                    deleted_at: Some(Some(now_text())),
                    ..Default::default()
                };
                let updated = self.memory_update(choice, id, &patch)?;
                updated.deleted_at.unwrap_or_default()
            }
        };
        Ok(MemoryDeleted {
            id: id.to_string(),
            mode: DeleteMode::Soft,
            deleted_at: Some(deleted_at),
        })
    }

    /// memory_lookup_basic_id: the memory imported from a Basic Memory note (its
    /// `compat.basic_id`), else the note that has that permalink here.
    pub fn memory_lookup_basic_id(&self, choice: &ProjectChoice, basic: &str) -> Result<Memory> {
        let project = self.select_project(choice)?;
        let basic = basic.trim();
        let notes = self.all_notes(&project)?;
        let found = notes
            .iter()
            .find(|n| basic_id(&n.metadata) == Some(basic))
            .or_else(|| notes.iter().find(|n| n.permalink.as_deref() == Some(basic)))
            .ok_or_else(|| MemoryError::NoBasicId(basic.to_string()))?;
        self.memory_of(&project, found)
    }

    /// memory_search: memories by words (ranked as search_notes ranks) and filters, sorted by
    /// relevance, recency or score. Expired memories are never found; soft-deleted ones only
    /// when asked for.
    pub fn memory_search(&self, choice: &ProjectChoice, query: &MemoryQuery) -> Result<MemoryPage> {
        let project = self.select_project(choice)?;
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
                    include_deleted: query.include_deleted,
                    ..Default::default()
                };
                let response = self.search(&project, &request)?;
                let mut notes = Vec::new();
                for row in response.results {
                    notes.extend(self.note_by_path(&project, &row.file_path)?);
                }
                notes
            }
            None => {
                let types: Vec<String> = query
                    .types
                    .iter()
                    .map(|t| crate::note::permalink::normalize_note_type(t))
                    .collect();
                self.all_notes(&project)?
                    .into_iter()
                    .filter(|n| {
                        n.kind == NoteKind::Markdown
                            && (types.is_empty()
                                || types.contains(&crate::note::permalink::normalize_note_type(
                                    &n.note_type,
                                )))
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
                !is_expired(&n.metadata, n.created_ms, now)
                    && (query.include_deleted || !is_deleted(&n.metadata))
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
        let results = notes
            .iter()
            .skip(query.offset)
            .take(query.limit)
            .map(|n| self.memory_of(&project, n))
            .collect::<Result<Vec<_>>>()?;
        Ok(MemoryPage {
            results,
            total,
            limit: query.limit,
            offset: query.offset,
            sort: query.sort,
        })
    }

    /// memory_import_basic: every note of a Basic Memory project directory becomes a memory
    /// here, under `memories/`, with its permalink kept as `compat.basic_id` and its type
    /// renamed by `map_types`.
    pub fn memory_import_basic(
        &self,
        choice: &ProjectChoice,
        directory: &std::path::Path,
        dry_run: bool,
        map_types: &Map<String, Value>,
    ) -> Result<ImportReport> {
        let project = self.select_project(choice)?;
        if !directory.is_dir() {
            return Err(ImportError::NotAFolder(directory.to_path_buf()).into());
        }
        let canonical = directory.canonicalize()?;
        self.refuse_known_folder(&canonical, "import from it", None)?;
        let mut files: Vec<(String, String)> = Vec::new();
        for entry in walkdir::WalkDir::new(directory)
            .sort_by_file_name()
            .into_iter()
            .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        {
            let entry = entry.map_err(ImportError::Walk)?;
            let relative = entry
                .path()
                .strip_prefix(directory)
                .unwrap_or(entry.path())
                .to_string_lossy()
                .replace('\\', "/");
            if entry.file_type().is_file() && super::ingest::is_markdown(&relative) {
                let bytes =
                    vault::fs::read(entry.path()).map_err(|source| ImportError::Unreadable {
                        path: entry.path().to_path_buf(),
                        source,
                    })?;
                // As a scan reads a file: invalid bytes become U+FFFD rather than stop it all.
                files.push((relative, String::from_utf8_lossy(&bytes).into_owned()));
            }
        }
        let parsed = crate::import::basic::parse(&files, map_types);
        let options = ImportOptions {
            folder: None,
            dry_run,
            overwrite: false,
        };
        self.import_drafts(&project, "basic-memory", parsed, &options, &|_, _| {})
    }
}
