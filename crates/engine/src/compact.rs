//! memory_compact (`gitmem compact`): old, low-value memories folded into one summary note
//! that lists each of them. Nothing is deleted: each original is tagged `compacted` and marked
//! `superseded_by` the summary, which hides it by default; the summary carries `supersedes`.
//! In a versioned project the summary and every marked original are one commit.

use chrono::{DateTime, Utc};
use serde_json::{json, Value};

use super::decay::check_fraction;
use super::error::{InternalError, MemoryError};
use super::scope::ProjectChoice;
use super::{now_text, Result};
use crate::config::Project;
use crate::Engine;
use index::Index;
use index::{NoteKind, NoteRecord};
use note::document::Document;
use note::frontmatter;
use note::memory::{
    importance, is_deleted, is_durable, meta_time, parse_duration, title_from_content,
};
use note::permalink::note_permalink;
use note::supersede::{is_superseded, supersedes};
use vault;

/// Where summaries go.
pub(crate) const COMPACTED_FOLDER: &str = "compacted";
/// The tag every folded original gets.
pub(crate) const COMPACTED_TAG: &str = "compacted";
/// Without `max_score`, memories of at most this importance are folded: an unscored memory
/// (importance 1) is folded only when asked for with `max_score` 1.
pub(crate) const DEFAULT_MAX_SCORE: f64 = 0.5;

/// memory_compact's request.
#[derive(Debug, Clone, Default)]
pub struct CompactRequest {
    /// An ISO 8601 duration (`P30D`) or a relative time (`30d`, `12h`, `2w`): memories last
    /// updated or used before that long ago are folded.
    pub older_than: String,
    pub max_score: Option<f64>,
    pub dry_run: bool,
}

/// One memory folded (or that would be).
#[derive(Debug, Clone, PartialEq)]
pub struct Folded {
    pub permalink: String,
    pub title: String,
    pub file_path: String,
    /// Its first line, as the summary lists it.
    pub first_line: String,
    /// Its score, or a decaying memory's relevance.
    pub importance: f64,
}

/// What memory_compact did.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactOutcome {
    pub project: String,
    pub cutoff: DateTime<Utc>,
    pub max_score: f64,
    pub dry_run: bool,
    /// The summary note's permalink and path (none when nothing was folded or on a dry run).
    pub summary: Option<(String, String)>,
    pub folded: Vec<Folded>,
}

/// When `older_than` ago was, from `now`.
fn cutoff(older_than: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>> {
    let refused = || MemoryError::OlderThan(older_than.to_string());
    let at = match parse_duration(older_than) {
        Some(duration) => duration.subtract_from(now),
        None => super::timeframe::parse_instant(older_than, now).ok(),
    };
    Ok(at.filter(|t| *t <= now).ok_or_else(refused)?)
}

/// memory_compact: folds every memory last touched (updated, read or found) before the
/// cutoff whose importance is at most `max_score`, and which is not pinned, not a durable
/// kind (decision, preference, fact), not deleted and not superseded or superseding, into
/// one new summary note. A dry run lists them and changes nothing.
pub(crate) fn memory_compact(
    engine: &Engine,
    choice: &ProjectChoice,
    request: &CompactRequest,
) -> Result<CompactOutcome> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    let now = Utc::now();
    let cutoff = cutoff(&request.older_than, now)?;
    let max_score = check_fraction("max_score", request.max_score.unwrap_or(DEFAULT_MAX_SCORE))?;
    let mut folded = Vec::new();
    let mut originals = Vec::new();
    for note in crate::notes::all_notes(&engine.store.index, &project)? {
        let Some(importance) = foldable(&engine.store.index, &note, cutoff, max_score, now)? else {
            continue;
        };
        let text = vault::fs::read_text(&crate::mounts::project_file(
            &engine.store,
            &project,
            &note.path,
        )?)?;
        folded.push(Folded {
            permalink: note.permalink.clone().unwrap_or_default(),
            title: note.title.clone(),
            file_path: note.path.clone(),
            first_line: title_from_content(frontmatter::body(&text)),
            importance,
        });
        originals.push(note);
    }
    folded.sort_by(|a, b| a.file_path.cmp(&b.file_path));
    originals.sort_by(|a, b| a.path.cmp(&b.path));
    let summary = if request.dry_run || folded.is_empty() {
        None
    } else {
        let subject = format!("chore(mem): compact {} memories", folded.len());
        let summary = engine.history.together(&subject, || -> Result<_> {
            let summary = write_summary(engine, &project, cutoff, max_score, &folded)?;
            for note in &originals {
                // Tagged, and pointed at the summary, which hides it.
                crate::correct::mark_superseded(
                    engine,
                    &project,
                    note,
                    &summary.0,
                    Some(COMPACTED_TAG),
                )?;
            }
            Ok(summary)
        })?;
        Some(summary)
    };
    Ok(CompactOutcome {
        project: project.name,
        cutoff,
        max_score,
        dry_run: request.dry_run,
        summary,
        folded,
    })
}

/// The importance of a note compaction may fold, or `None` when it must stay.
fn foldable(
    index: &Index,
    note: &NoteRecord,
    cutoff: DateTime<Utc>,
    max_score: f64,
    now: DateTime<Utc>,
) -> Result<Option<f64>> {
    let meta = &note.metadata;
    let kept = note.kind != NoteKind::Markdown
        || note.permalink.is_none()
        || meta.get("pinned").and_then(Value::as_bool) == Some(true)
        || is_durable(&note.note_type)
        || is_deleted(meta)
        || is_superseded(meta)
        || !supersedes(meta).is_empty();
    if kept {
        return Ok(None);
    }
    let updated = meta_time(meta, "updated_at").map_or(note.updated_ms, |t| t.timestamp_millis());
    let used = index.note_use(&note.id)?.map_or(i64::MIN, |u| u.last_ms);
    if updated.max(used) >= cutoff.timestamp_millis() {
        return Ok(None);
    }
    let importance =
        crate::uses::relevance_of(index, note, now)?.unwrap_or_else(|| importance(meta));
    Ok((importance <= max_score).then_some(importance))
}

/// Writes the summary note; answers its permalink and path.
fn write_summary(
    engine: &Engine,
    project: &Project,
    cutoff: DateTime<Utc>,
    max_score: f64,
    folded: &[Folded],
) -> Result<(String, String)> {
    let day = Utc::now().format("%Y-%m-%d").to_string();
    let mut stem = format!("{day}-summary");
    let mut n = 1;
    while crate::mounts::project_file(
        &engine.store,
        project,
        &format!("{COMPACTED_FOLDER}/{stem}.md"),
    )?
    .exists()
    {
        n += 1;
        stem = format!("{day}-summary-{n}");
    }
    let path = format!("{COMPACTED_FOLDER}/{stem}.md");
    let include = engine.store.config().compat.permalinks_include_project;
    let permalink = crate::notes::free_permalink(
        &engine.store.index,
        project,
        &note_permalink(&project.name, &path, include),
        None,
    )?;
    let now = now_text();
    let mut meta = serde_json::Map::new();
    meta.insert(
        "supersedes".into(),
        json!(folded.iter().map(|f| &f.permalink).collect::<Vec<_>>()),
    );
    meta.insert("created_at".into(), json!(now));
    meta.insert("updated_at".into(), json!(now));
    let mut body = format!(
        "Folded {} memories last updated or used before {}, of importance at most {max_score}. \
         The originals are kept, tagged `{COMPACTED_TAG}`.\n\n",
        folded.len(),
        cutoff.format("%Y-%m-%d"),
    );
    for f in folded {
        body.push_str(&format!(
            "- [[{}]] {}: {}\n",
            f.permalink, f.title, f.first_line
        ));
    }
    let title = format!("Compacted memories {stem}");
    let text = Document::headed(&title, "summary", &permalink, &meta, body).render();
    let written = crate::notes::create_note_file(engine, project, &path, &text)?;
    let note = crate::notes::note_by_id(&engine.store.index, &written.id)?
        .ok_or_else(|| InternalError::Vanished(path.clone()))?;
    Ok((note.permalink.unwrap_or(permalink), path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_than_is_a_duration_or_a_relative_time() {
        let now: DateTime<Utc> = "2026-03-31T00:00:00Z".parse().unwrap();
        let at = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
        let cases = [
            ("P30D", Some(at("2026-03-01T00:00:00Z"))),
            ("P1M", Some(at("2026-02-28T00:00:00Z"))),
            ("30d", Some(at("2026-03-01T00:00:00Z"))),
            ("2w", Some(at("2026-03-17T00:00:00Z"))),
            ("in 3 days", None),
            ("soon", None),
        ];
        for (given, expected) in cases {
            assert_eq!(cutoff(given, now).ok(), expected, "{given}");
        }
    }
}
