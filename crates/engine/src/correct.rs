//! correct_memory: a correction supersedes a note or a memory. The correction is a new note
//! beside the old one, carrying `supersedes` and `correction_reason`; the old note keeps its
//! text and gains `superseded_by` and `superseded_at`, which hide it from searches, context
//! packs, build_context and the graph until a caller asks (`include_superseded`). read_note
//! shows the whole chain.

use crate::{ChainLink, CorrectionChain, NoteRow};
use std::collections::HashSet;

use serde_json::{json, Map, Value};

use super::error::{InternalError, MemoryError};
use super::memory::{front_matter_of, NewMemory};
use super::notes::Lookup;
use super::scope::ProjectChoice;
use super::write::{WriteNoteRequest, WriteRefusal};
use super::{now_text, Outcome, Result};
use crate::config::Project;
use crate::Engine;
use index::Index;
use index::NoteRecord;
use note::frontmatter;
use note::memory::{version, MemorySource};
use note::redact::Redactions;
use note::supersede::{superseded_by, supersedes};

/// correct_memory's fields.
#[derive(Debug, Clone, Default)]
pub struct CorrectionRequest {
    /// A memory id, permalink, title or path.
    pub identifier: String,
    /// The corrected text.
    pub content: String,
    /// What the correction fixes.
    pub reason: String,
    /// The correction's title; a corrected memory's comes from its content, a note's is the
    /// old title with "(corrected <date>)".
    pub title: Option<String>,
}

/// What correct_memory wrote.
#[derive(Debug, Clone)]
pub struct Corrected {
    pub project: String,
    /// The superseded note, as it is now.
    pub old: NoteRow,
    /// The correction.
    pub new: NoteRow,
    /// The correction's memory id, when a memory was corrected.
    pub memory_id: Option<String>,
    pub reason: String,
    /// What the redaction filter replaced in the correction.
    pub redacted: Redactions,
}

/// What a correction wrote: the new note, its memory id when a memory was corrected, and what
/// the redaction filter replaced in it.
struct Written {
    new: NoteRecord,
    memory_id: Option<String>,
    redacted: Redactions,
}

/// Longest chain followed either way: a loop of hand-edited front matter must end.
const MAX_CHAIN: usize = 100;

fn text_of<'m>(meta: &'m Map<String, Value>, key: &str) -> Option<&'m str> {
    meta.get(key)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// The title a corrected note's successor gets: its own without an earlier correction's mark.
fn corrected_title(old: &str, day: &str, attempt: usize) -> String {
    let base = match old.rfind(" (corrected ") {
        Some(at) if old.ends_with(')') => &old[..at],
        _ => old,
    };
    match attempt {
        0 => format!("{base} (corrected {day})"),
        n => format!("{base} (corrected {day}, {})", n + 1),
    }
}

/// `tags` with `tag` added (once), as a list, whether they were a list or one string.
fn add_tag(meta: &mut Map<String, Value>, tag: &str) {
    let mut tags: Vec<Value> = match meta.get("tags") {
        Some(Value::Array(tags)) => tags.clone(),
        Some(Value::String(one)) if !one.trim().is_empty() => vec![json!(one)],
        _ => Vec::new(),
    };
    if !tags.iter().any(|t| t.as_str() == Some(tag)) {
        tags.push(json!(tag));
    }
    meta.insert("tags".into(), Value::Array(tags));
}

/// Most titles tried when earlier corrections on the same day took the obvious ones.
const TITLE_ATTEMPTS: usize = 20;

/// correct_memory: writes the correction, then marks the old note superseded by it.
pub(crate) fn correct_memory(
    engine: &Engine,
    choice: &ProjectChoice,
    request: &CorrectionRequest,
) -> Result<Outcome<Corrected, WriteRefusal>> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    if request.content.trim().is_empty() {
        return Err(MemoryError::EmptyContent.into());
    }
    if request.reason.trim().is_empty() {
        return Err(MemoryError::EmptyReason.into());
    }
    let old = correction_target(&engine.store.index, &project, &request.identifier)?;
    if let Some(by) = superseded_by(&old.metadata) {
        return Err(MemoryError::AlreadySuperseded {
            identifier: request.identifier.clone(),
            by: by.to_string(),
        }
        .into());
    }
    // The correction and the mark on the old note are one commit in a versioned project.
    let subject = format!("fix(mem): correct {}", old.title);
    let written = engine.history.together(&subject, || {
        write_correction(engine, choice, &project, &old, request)
    })?;
    let Written {
        new,
        memory_id,
        redacted,
    } = match written {
        Outcome::Done(written) => written,
        Outcome::Refused(refusal) => return Ok(Outcome::Refused(refusal)),
    };
    let old = crate::notes::note_by_id(&engine.store.index, &old.id)?.unwrap_or(old);
    Ok(Outcome::Done(Corrected {
        project: project.name,
        old: old.into(),
        new: new.into(),
        memory_id,
        reason: request.reason.trim().to_string(),
        redacted,
    }))
}

/// Writes the correction of `old` and marks `old` superseded by it.
fn write_correction(
    engine: &Engine,
    choice: &ProjectChoice,
    project: &Project,
    old: &NoteRecord,
    request: &CorrectionRequest,
) -> Result<Outcome<Written, WriteRefusal>> {
    let old_link = old.permalink.clone().unwrap_or_else(|| old.path.clone());
    let mut extra = Map::new();
    extra.insert("supersedes".into(), json!(old_link));
    extra.insert("correction_reason".into(), json!(request.reason.trim()));
    let (new_id, memory_id, redacted) = if old.metadata.contains_key("id") {
        let memory =
            crate::memory::memory_save(engine, choice, &corrected_memory(old, request, extra))?;
        (
            crate::memory::memory_note(&engine.store.index, project, &memory.id)?
                .map(|n| n.id)
                .ok_or_else(|| InternalError::Vanished(memory.file_path.clone()))?,
            Some(memory.id),
            memory.redacted,
        )
    } else {
        match corrected_note(engine, choice, old, request, extra)? {
            Outcome::Done(written) => (written.id, None, written.redacted),
            Outcome::Refused(refusal) => return Ok(Outcome::Refused(refusal)),
        }
    };
    let new = crate::notes::note_by_id(&engine.store.index, &new_id)?
        .ok_or_else(|| InternalError::Vanished(new_id.clone()))?;
    let new_link = new.permalink.clone().unwrap_or_else(|| new.path.clone());
    mark_superseded(engine, project, old, &new_link, None)?;
    Ok(Outcome::Done(Written {
        new,
        memory_id,
        redacted,
    }))
}

/// The note an identifier names for a correction: a memory id first, then what read_note
/// resolves.
fn correction_target(index: &Index, project: &Project, identifier: &str) -> Result<NoteRecord> {
    if identifier.trim().is_empty() {
        return Err(MemoryError::NothingToCorrect(identifier.to_string()).into());
    }
    if let Some(note) = crate::memory::memory_note(index, project, identifier)? {
        return Ok(note);
    }
    match crate::notes::resolve(index, project, identifier)? {
        Lookup::Found(note) => Ok(*note),
        Lookup::Ambiguous(notes) => Err(MemoryError::AmbiguousCorrection {
            identifier: identifier.to_string(),
            paths: notes.into_iter().map(|n| n.path).collect(),
        }
        .into()),
        Lookup::NotFound => Err(MemoryError::NothingToCorrect(identifier.to_string()).into()),
    }
}

/// A corrected memory's successor: a memory of the same type, tags, score and source.
fn corrected_memory(
    old: &NoteRecord,
    request: &CorrectionRequest,
    extra: Map<String, Value>,
) -> NewMemory {
    let meta = &old.metadata;
    NewMemory {
        title: request.title.clone(),
        content: request.content.clone(),
        memory_type: Some(old.note_type.clone()),
        tags: old.tags.clone(),
        score: meta.get("score").and_then(Value::as_f64),
        ttl: text_of(meta, "ttl").map(String::from),
        source: meta.get("source").and_then(|s| MemorySource::parse(s).ok()),
        extra,
        ..NewMemory::default()
    }
}

/// A corrected note's successor, in its folder with its type and tags: under the title
/// asked for, else the first free "(corrected <date>)" title.
fn corrected_note(
    engine: &Engine,
    choice: &ProjectChoice,
    old: &NoteRecord,
    request: &CorrectionRequest,
    extra: Map<String, Value>,
) -> Result<Outcome<super::notes::NoteWritten, WriteRefusal>> {
    let day = chrono::Utc::now().format("%Y-%m-%d").to_string();
    let attempts = if request.title.is_some() {
        1
    } else {
        TITLE_ATTEMPTS
    };
    let mut last = None;
    for attempt in 0..attempts {
        let title = match &request.title {
            Some(title) => title.clone(),
            None => corrected_title(&old.title, &day, attempt),
        };
        let write = WriteNoteRequest {
            title,
            content: request.content.clone(),
            directory: old.folder().to_string(),
            tags: Some(old.tags.clone()),
            note_type: Some(old.note_type.clone()),
            metadata: Some(extra.clone()),
            overwrite: Some(false),
            expected_checksum: None,
        };
        match crate::write::write_note(engine, choice, &write)? {
            Outcome::Refused(WriteRefusal::AlreadyExists { .. }) if request.title.is_none() => {
                last = Some(write.title);
            }
            outcome => return Ok(outcome),
        }
    }
    Err(InternalError::KeptChanging(last.unwrap_or_default()).into())
}

/// Marks `old` superseded by `by` (`superseded_by`, `superseded_at`), adding `tag` to its
/// tags when given, and edits only those keys (a memory's version and update time move on
/// with them): a correction's and a compaction's mark.
pub(super) fn mark_superseded(
    engine: &Engine,
    project: &Project,
    old: &NoteRecord,
    by: &str,
    tag: Option<&str>,
) -> Result<()> {
    let now = now_text();
    let is_memory = old.metadata.contains_key("id");
    crate::notes::try_rewrite_note(engine, project, old, |text| {
        let before = front_matter_of(old, text)?;
        let mut meta = before.clone();
        meta.insert("superseded_by".into(), json!(by));
        meta.insert("superseded_at".into(), json!(now));
        if let Some(tag) = tag {
            add_tag(&mut meta, tag);
        }
        if is_memory {
            meta.insert("updated_at".into(), json!(now));
            meta.insert("version".into(), json!(version(&before) + 1));
        }
        Ok(Some(frontmatter::apply_changes(text, &before, &meta)))
    })?;
    Ok(())
}

/// The chain of corrections a note is part of, oldest first; `None` when it is in none.
/// It follows `supersedes` back while a note supersedes exactly one (a compaction's
/// summary supersedes many, and its list is in its front matter), and `superseded_by`
/// forward.
pub(crate) fn correction_chain(
    index: &Index,
    project: &Project,
    note: &NoteRecord,
) -> Result<Option<CorrectionChain>> {
    let follow = |target: &str| -> Result<Option<NoteRecord>> {
        Ok(match crate::notes::resolve(index, project, target)? {
            Lookup::Found(found) => Some(*found),
            _ => None,
        })
    };
    let mut seen: HashSet<String> = HashSet::from([note.id.clone()]);
    let mut before = Vec::new();
    let mut cursor = Some(note.clone());
    while let Some(current) = cursor.take() {
        let back = supersedes(&current.metadata);
        if back.len() != 1 || before.len() >= MAX_CHAIN {
            break;
        }
        if let Some(prev) = follow(&back[0])?.filter(|p| seen.insert(p.id.clone())) {
            before.push(prev.clone());
            cursor = Some(prev);
        }
    }
    let mut after = Vec::new();
    let mut cursor = Some(note.clone());
    while let Some(current) = cursor.take() {
        let Some(next) = superseded_by(&current.metadata) else {
            break;
        };
        if after.len() >= MAX_CHAIN {
            break;
        }
        if let Some(next) = follow(next)?.filter(|n| seen.insert(n.id.clone())) {
            after.push(next.clone());
            cursor = Some(next);
        }
    }
    if before.is_empty() && after.is_empty() {
        return Ok(None);
    }
    let this = before.len();
    let links = before
        .into_iter()
        .rev()
        .chain(std::iter::once(note.clone()))
        .chain(after)
        .map(|n| ChainLink {
            reason: text_of(&n.metadata, "correction_reason").map(String::from),
            superseded_at: text_of(&n.metadata, "superseded_at").map(String::from),
            title: n.title,
            permalink: n.permalink,
            file_path: n.path,
        })
        .collect();
    Ok(Some(CorrectionChain { links, this }))
}

#[cfg(test)]
mod tests {
    use super::corrected_title;

    #[test]
    fn a_correction_is_titled_after_what_it_corrects() {
        let cases = [
            ("Release day", 0, "Release day (corrected 2026-11-26)"),
            ("Release day", 2, "Release day (corrected 2026-11-26, 3)"),
            (
                "Release day (corrected 2026-11-20)",
                0,
                "Release day (corrected 2026-11-26)",
            ),
            (
                "(corrected) notes",
                0,
                "(corrected) notes (corrected 2026-11-26)",
            ),
        ];
        for (old, attempt, expected) in cases {
            assert_eq!(
                corrected_title(old, "2026-11-26", attempt),
                expected,
                "{old}"
            );
        }
    }
}
