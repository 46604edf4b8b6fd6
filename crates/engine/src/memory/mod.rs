//! The gitmem memory API (`serve --tools gitmem`): memories are notes, kept in `memories/`,
//! whose front matter carries the API's fields (`note::memory`). Any note is a memory: one
//! without an `id` is known by its permalink, so a Basic Memory note answers memory_get too.
//! `search` finds memories, `basic` imports Basic Memory's notes as memories, `ingest` takes
//! JSON Lines of memory records (`POST /ingest`), and `limits` holds writes to `[limits]`.

pub(crate) mod basic;
pub(crate) mod ingest;
mod limits;
pub(crate) mod search;

use chrono::{DateTime, Utc};
use serde_json::{json, Map, Value};

pub use ingest::{IngestReport, IngestedRecord, Placed, RecordOutcome, INGEST_SOURCE};
pub use search::{MemoryPage, MemoryQuery, MemorySort, MAX_LIMIT};

use super::encryption::{encryption_of, EncryptionInfo};
use super::error::{InternalError, MemoryError, NoteError};
use super::scope::ProjectChoice;
use super::{now_text, Result, ServiceError};
use crate::config::Project;
use crate::{Engine, Store};
use index::Index;
use index::{NoteKind, NoteRecord};
use note::document::Document;
use note::filename::{foreign_file_stem, note_file_path};
use note::frontmatter;
use note::memory::{
    basic_id, expires_at, is_deleted, is_expired, ordered, parse_duration, title_from_content,
    version, MemorySource,
};
use note::permalink::note_permalink;
use note::redact::Redactions;
use vault;

/// Where new memories go.
pub(crate) const MEMORY_FOLDER: &str = "memories";

/// A memory as the API answers it.
#[derive(Debug, Clone, PartialEq)]
pub struct Memory {
    pub id: String,
    /// 1 when saved, one more with every update.
    pub version: u64,
    pub title: String,
    pub content: String,
    pub memory_type: String,
    pub tags: Vec<String>,
    pub score: Option<f64>,
    pub ttl: Option<String>,
    /// The half-life of a decaying memory.
    pub decay: Option<String>,
    /// A decaying memory's relevance when it was asked for (before this read reinforced it).
    pub relevance: Option<f64>,
    pub created_at: Option<String>,
    pub updated_at: Option<String>,
    pub deleted_at: Option<String>,
    /// When the ttl runs out.
    pub expires_at: Option<DateTime<Utc>>,
    pub expired: bool,
    pub source: Option<MemorySource>,
    /// Whether the project's remote is encrypted.
    pub encryption: EncryptionInfo,
    /// The permalink of the Basic Memory note it was imported from.
    pub basic_id: Option<String>,
    /// The note's other names (front matter `aliases`), by which links find it too.
    pub aliases: Vec<String>,
    /// What the redaction filter replaced in the write that answers with this memory.
    pub redacted: Redactions,
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
    pub decay: Option<String>,
    pub source: Option<MemorySource>,
    pub basic_id: Option<String>,
    pub aliases: Vec<String>,
    pub created_at: Option<String>,
    /// Front matter keys beyond the memory's own, written after them (a correction's
    /// `supersedes`).
    pub extra: Map<String, Value>,
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
    pub decay: Option<Option<String>>,
    pub source: Option<Option<MemorySource>>,
    pub basic_id: Option<Option<String>>,
    /// `Some(None)` restores a soft-deleted memory.
    pub deleted_at: Option<Option<String>>,
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

impl DeleteMode {
    pub fn of(hard: bool) -> DeleteMode {
        if hard {
            DeleteMode::Hard
        } else {
            DeleteMode::Soft
        }
    }
}

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

fn check_decay(decay: Option<&str>) -> Result<()> {
    match decay {
        Some(d) if parse_duration(d).is_none() => Err(MemoryError::Decay(d.to_string()).into()),
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

/// A note file's front matter, for an edit in place. Front matter that cannot be parsed is
/// refused, never taken for empty: its keys would be lost.
pub(crate) fn front_matter_of(note: &NoteRecord, text: &str) -> Result<Map<String, Value>> {
    Document::parse(text).map(|doc| doc.meta).map_err(|source| {
        MemoryError::FrontMatter {
            path: note.path.clone(),
            source,
        }
        .into()
    })
}

/// The note a memory id names: the note whose front matter `id` it is, else the note
/// with that permalink.
pub(crate) fn memory_note(
    index: &Index,
    project: &Project,
    id: &str,
) -> Result<Option<NoteRecord>> {
    let id = id.trim();
    if id.is_empty() {
        return Err(MemoryError::EmptyId.into());
    }
    let notes = crate::notes::all_notes(index, project)?;
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

fn memory_of(store: &Store, project: &Project, note: &NoteRecord) -> Result<Memory> {
    let text = vault::fs::read_text(&crate::mounts::project_file(store, project, &note.path)?)?;
    let meta = &note.metadata;
    let text_of = |key: &str| meta.get(key).and_then(Value::as_str).map(String::from);
    Ok(Memory {
        id: text_of("id")
            .or_else(|| note.permalink.clone())
            .unwrap_or_else(|| note.id.clone()),
        version: version(meta),
        title: note.title.clone(),
        content: frontmatter::body(&text)
            .trim_start_matches('\n')
            .to_string(),
        memory_type: note.note_type.clone(),
        tags: note.tags.clone(),
        score: meta.get("score").and_then(Value::as_f64),
        ttl: text_of("ttl"),
        decay: text_of("decay"),
        relevance: crate::uses::relevance_of(&store.index, note, Utc::now())?,
        created_at: text_of("created_at"),
        updated_at: text_of("updated_at"),
        deleted_at: text_of("deleted_at"),
        expires_at: expires_at(meta, note.created_ms),
        expired: is_expired(meta, note.created_ms, Utc::now()),
        source: MemorySource::of(meta),
        encryption: encryption_of(project),
        basic_id: basic_id(meta).map(String::from),
        aliases: note.aliases.clone(),
        redacted: Redactions::default(),
        permalink: note.permalink.clone(),
        file_path: note.path.clone(),
        project: project.name.clone(),
    })
}

/// memory_save: a new memory in `memories/`.
pub(crate) fn memory_save(
    engine: &Engine,
    choice: &ProjectChoice,
    new: &NewMemory,
) -> Result<Memory> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    if new.content.trim().is_empty() {
        return Err(MemoryError::EmptyContent.into());
    }
    check_score(new.score)?;
    check_ttl(new.ttl.as_deref())?;
    check_decay(new.decay.as_deref())?;
    check_time("created_at", new.created_at.as_deref())?;
    let created_at = new.created_at.clone().unwrap_or_else(now_text);
    let id = match new.id.as_deref().map(str::trim) {
        Some("") => return Err(MemoryError::EmptyId.into()),
        Some(id) => id.to_string(),
        None => note::import::stable_id("memory", &new.content, &created_at),
    };
    if memory_note(&engine.store.index, &project, &id)?.is_some() {
        return Err(MemoryError::Exists(id).into());
    }
    let title = match new.title.as_deref().map(str::trim) {
        Some(t) if !t.is_empty() => t.to_string(),
        _ => title_from_content(&new.content),
    };
    let (title, mut redacted) = crate::authored::redact_title(&engine.store, &title);
    let mut meta = Map::new();
    meta.insert("id".into(), json!(id));
    meta.insert("version".into(), json!(1));
    let source = new
        .source
        .as_ref()
        .and_then(MemorySource::to_meta)
        .unwrap_or_else(|| json!("memory_save"));
    meta.insert("source".into(), source);
    if !new.tags.is_empty() {
        meta.insert("tags".into(), json!(new.tags));
    }
    if !new.aliases.is_empty() {
        meta.insert("aliases".into(), json!(new.aliases));
    }
    set(&mut meta, "score", new.score.map(|s| json!(s)));
    set(&mut meta, "ttl", new.ttl.clone().map(Value::String));
    set(&mut meta, "decay", new.decay.clone().map(Value::String));
    meta.insert("created_at".into(), json!(created_at));
    meta.insert("updated_at".into(), json!(created_at));
    set_basic_id(&mut meta, new.basic_id.as_deref());
    for (key, value) in &new.extra {
        meta.entry(key.clone()).or_insert_with(|| value.clone());
    }
    let short: String = id.chars().filter(|c| c.is_alphanumeric()).take(8).collect();
    let stem = foreign_file_stem(&title).unwrap_or_else(|| format!("memory {short}"));
    let mut path = note_file_path(MEMORY_FOLDER, &stem, false);
    if crate::mounts::project_file(&engine.store, &project, &path)?.exists() {
        path = note_file_path(MEMORY_FOLDER, &format!("{stem} ({short})"), false);
    }
    let include = engine.store.config().compat.permalinks_include_project;
    let permalink = crate::notes::free_permalink(
        &engine.store.index,
        &project,
        &note_permalink(&project.name, &path, include),
        None,
    )?;
    let note_type = new.memory_type.as_deref().unwrap_or("memory");
    let body = format!("{}\n", new.content.trim_end());
    let text = Document::headed(&title, note_type, &permalink, &ordered(meta), body).render();
    let written =
        crate::memory::limits::within_limits(engine, &project, new.content.len(), || {
            crate::notes::create_note_file(engine, &project, &path, &text)
        })?;
    let note = crate::notes::note_by_id(&engine.store.index, &written.id)?
        .ok_or_else(|| InternalError::Vanished(path))?;
    redacted.merge(&written.redacted);
    Ok(Memory {
        redacted,
        ..memory_of(&engine.store, &project, &note)?
    })
}

/// memory_get: a memory by id, soft-deleted or expired ones included (they say so). The
/// read is a use of the memory.
pub(crate) fn memory_get(store: &Store, choice: &ProjectChoice, id: &str) -> Result<Memory> {
    let project = crate::scope::select_project(store, choice)?;
    let note = memory_note(&store.index, &project, id)?.ok_or_else(|| not_found(id))?;
    let memory = memory_of(store, &project, &note)?;
    crate::uses::record_uses(&store.index, std::slice::from_ref(&note.id));
    Ok(memory)
}

/// memory_update: applies a patch to a memory's front matter and content.
pub(crate) fn memory_update(
    engine: &Engine,
    choice: &ProjectChoice,
    id: &str,
    patch: &MemoryPatch,
) -> Result<Memory> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    let note = memory_note(&engine.store.index, &project, id)?.ok_or_else(|| not_found(id))?;
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
    check_decay(patch.decay.clone().flatten().as_deref())?;
    check_time("deleted_at", patch.deleted_at.clone().flatten().as_deref())?;
    let now = now_text();
    let written = patch.content.as_ref().map_or(0, String::len);
    let redacted = crate::memory::limits::within_limits(engine, &project, written, || {
        patch_memory(engine, &project, &note, patch, Some(&now))
    })?;
    let note =
        crate::notes::note_by_id(&engine.store.index, &note.id)?.ok_or_else(|| not_found(id))?;
    Ok(Memory {
        redacted,
        ..memory_of(&engine.store, &project, &note)?
    })
}

/// Writes a patch into a memory's file, setting `updated_at` to `now` when given;
/// answers what the redaction filter replaced.
fn patch_memory(
    engine: &Engine,
    project: &Project,
    note: &NoteRecord,
    patch: &MemoryPatch,
    now: Option<&str>,
) -> Result<Redactions> {
    // The rewrite decodes lossily, which would replace every invalid byte: a file that is
    // not UTF-8 is refused here.
    vault::fs::read_text(&crate::mounts::project_file(
        &engine.store,
        project,
        &note.path,
    )?)?;
    // Only the keys the patch changes are edited in place (design 1.2): any note is a
    // memory, and its author's comments, quoting and key order stay. Front matter that
    // cannot be parsed is refused, never taken for empty: its keys would be lost.
    crate::notes::try_rewrite_note(engine, project, note, |text| {
        let before = front_matter_of(note, text)?;
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
        if let Some(decay) = &patch.decay {
            set(&mut meta, "decay", decay.clone().map(Value::String));
        }
        if let Some(source) = &patch.source {
            set(
                &mut meta,
                "source",
                source.as_ref().and_then(MemorySource::to_meta),
            );
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
        if let Some(now) = now {
            meta.insert("updated_at".into(), json!(now));
        }
        meta.insert("version".into(), json!(version(&before) + 1));
        let edited = frontmatter::apply_changes(text, &before, &meta);
        Ok(Some(match &patch.content {
            Some(content) => {
                let head = frontmatter::locate(&edited).map_or(0, |b| b.body_start);
                format!("{}\n{}\n", &edited[..head], content.trim_end())
            }
            None => edited,
        }))
    })
}

/// memory_delete: soft (marks `deleted_at`; searches hide it) unless `hard`, which
/// deletes the note's file.
pub(crate) fn memory_delete(
    engine: &Engine,
    choice: &ProjectChoice,
    id: &str,
    hard: bool,
) -> Result<MemoryDeleted> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    let note = memory_note(&engine.store.index, &project, id)?.ok_or_else(|| not_found(id))?;
    delete_memory_note(engine, &project, &note, id, DeleteMode::of(hard), true)
}

/// Deletes the memory `note` (known to the caller as `id`): soft (marks `deleted_at`,
/// once; `touch` also sets `updated_at`) or hard.
pub(crate) fn delete_memory_note(
    engine: &Engine,
    project: &Project,
    note: &NoteRecord,
    id: &str,
    mode: DeleteMode,
    touch: bool,
) -> Result<MemoryDeleted> {
    let hard = mode == DeleteMode::Hard;
    if hard {
        crate::notes::delete_note_file(engine, project, note)?;
        return Ok(MemoryDeleted {
            id: id.to_string(),
            mode: DeleteMode::Hard,
            deleted_at: None,
        });
    }
    let deleted_at = match note.metadata.get("deleted_at").and_then(Value::as_str) {
        Some(when) if is_deleted(&note.metadata) => when.to_string(),
        _ => {
            let now = now_text();
            let patch = MemoryPatch {
                deleted_at: Some(Some(now.clone())),
                ..Default::default()
            };
            patch_memory(engine, project, note, &patch, touch.then_some(now.as_str()))?;
            now
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
pub(crate) fn memory_lookup_basic_id(
    store: &Store,
    choice: &ProjectChoice,
    basic: &str,
) -> Result<Memory> {
    let project = crate::scope::select_project(store, choice)?;
    let basic = basic.trim();
    let notes = crate::notes::all_notes(&store.index, &project)?;
    let found = notes
        .iter()
        .find(|n| basic_id(&n.metadata) == Some(basic))
        .or_else(|| notes.iter().find(|n| n.permalink.as_deref() == Some(basic)))
        .ok_or_else(|| MemoryError::NoBasicId(basic.to_string()))?;
    memory_of(store, &project, found)
}
