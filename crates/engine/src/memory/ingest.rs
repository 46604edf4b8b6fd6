//! `POST /ingest`: memory records as JSON Lines, each line judged on its own. Every line is
//! validated (by the one reader of `gitmem import jsonl`) and checked against the project
//! before anything is written; the records that pass are written together, as an import is
//! (all of them or none, one batch for the index, one commit), and each line gets its outcome.
//! A line whose id the project holds with the same content is a retry, and is answered as
//! done without writing it again.

use std::collections::{HashMap, HashSet};

use serde_json::{json, Value};

use super::super::error::{MemoryError, UserError};
use super::super::scope::ProjectChoice;
use super::super::{now_text, Result, ServiceError};
use super::MEMORY_FOLDER;
use crate::config::Project;
use crate::{Engine, Store};
use index::{NoteKind, NoteRecord};
use note::filename::{foreign_file_stem, note_file_path};
use note::import::{Draft, RecordProblem};
use note::memory::ordered;
use note::redact::Redactions;

/// The `source` of an ingested record that names none.
pub const INGEST_SOURCE: &str = "ingest";

/// What one ingest did, line by line.
#[derive(Debug)]
pub struct IngestReport {
    pub project: String,
    /// One per non-blank line, in line order.
    pub records: Vec<IngestedRecord>,
    /// Secret-shaped values replaced in what was written.
    pub redacted: Redactions,
}

#[derive(Debug)]
pub struct IngestedRecord {
    /// 1-based line of the body.
    pub line: usize,
    pub outcome: RecordOutcome,
}

/// Where a written (or already present) memory is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Placed {
    pub id: String,
    pub permalink: Option<String>,
    pub file_path: String,
}

#[derive(Debug)]
pub enum RecordOutcome {
    Created(Placed),
    /// The project holds a memory of this id with this content already.
    Unchanged(Placed),
    /// The line is not a memory record.
    Invalid(RecordProblem),
    /// The project holds a memory of this id with other content.
    Conflict(Placed),
    /// Not written: `Repeated` (an earlier line has its id), `TooLarge` (over `[limits]
    /// max_memory_size`) or `DailyLimit` (the records to write were, together, over
    /// `max_total_daily`).
    Refused(MemoryError),
}

/// A valid record, and what it must be checked against.
struct Candidate {
    index: usize,
    draft: Draft,
}

/// `POST /ingest`: the records of `body` (JSON Lines) into `choice`'s project. A body that
/// is not JSON Lines at all is refused whole (`MemoryError::NotJsonLines`).
pub(crate) fn memory_ingest(
    engine: &Engine,
    choice: &ProjectChoice,
    body: &[u8],
) -> Result<IngestReport> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    let text = std::str::from_utf8(body)
        .map_err(|_| MemoryError::NotJsonLines("the body is not UTF-8 text"))?;
    let judged = note::import::record_lines(text, INGEST_SOURCE);
    if judged.is_empty() {
        return Err(MemoryError::NotJsonLines("the body holds no record").into());
    }
    let not_json = |r: &std::result::Result<Draft, note::import::RecordError>| matches!(r, Err(e) if matches!(e.problem, RecordProblem::Syntax { .. }));
    if judged.iter().all(not_json) {
        return Err(MemoryError::NotJsonLines("no line of the body is JSON").into());
    }
    let known = MemoryIndex::of(crate::notes::all_notes(&engine.store.index, &project)?);
    let mut records = Vec::with_capacity(judged.len());
    let mut candidates = Vec::new();
    let mut first_line: HashMap<String, usize> = HashMap::new();
    for (index, judgement) in judged.into_iter().enumerate() {
        let (line, outcome) = match judgement {
            Err(e) => (e.line, Some(RecordOutcome::Invalid(e.problem))),
            Ok(draft) => {
                let line = draft.line;
                let outcome = precheck(&engine.store, &project, &known, &mut first_line, &draft)?;
                if outcome.is_none() {
                    candidates.push(Candidate { index, draft });
                }
                (line, outcome)
            }
        };
        records.push((line, outcome));
    }
    let mut redacted = Redactions::default();
    if !candidates.is_empty() {
        match write_candidates(engine, &project, &mut candidates) {
            Ok((written, found)) => {
                redacted = found;
                for (candidate, placed) in candidates.iter().zip(written) {
                    records[candidate.index].1 = Some(RecordOutcome::Created(placed));
                }
            }
            Err(ServiceError::User(UserError::Memory(MemoryError::DailyLimit {
                size,
                written,
                limit,
                resets_at,
            }))) => {
                for candidate in &candidates {
                    let over = MemoryError::DailyLimit {
                        size,
                        written,
                        limit,
                        resets_at: resets_at.clone(),
                    };
                    records[candidate.index].1 = Some(RecordOutcome::Refused(over));
                }
            }
            Err(e) => return Err(e),
        }
    }
    Ok(IngestReport {
        project: project.name.clone(),
        records: records
            .into_iter()
            .map(|(line, outcome)| IngestedRecord {
                line,
                outcome: outcome.expect("every record has its outcome"),
            })
            .collect(),
        redacted,
    })
}

/// The outcome of a valid record that will not be written, or `None` for one to write.
fn precheck(
    store: &Store,
    project: &Project,
    known: &MemoryIndex,
    first_line: &mut HashMap<String, usize>,
    draft: &Draft,
) -> Result<Option<RecordOutcome>> {
    if let Some(&first) = first_line.get(&draft.id) {
        return Ok(Some(RecordOutcome::Refused(MemoryError::Repeated {
            id: draft.id.clone(),
            first_line: first,
        })));
    }
    first_line.insert(draft.id.clone(), draft.line);
    if let Err(over) = crate::memory::limits::check_memory_size(store, draft.body.trim_end().len())
    {
        return Ok(Some(RecordOutcome::Refused(over)));
    }
    let Some(note) = known.get(&draft.id) else {
        return Ok(None);
    };
    let placed = Placed {
        id: draft.id.clone(),
        permalink: note.permalink.clone(),
        file_path: note.path.clone(),
    };
    let held = crate::memory::memory_of(store, project, note)?.content;
    let sent = store.config().redactor.redact(&draft.body).text;
    Ok(Some(if held.trim_end() == sent.trim_end() {
        RecordOutcome::Unchanged(placed)
    } else {
        RecordOutcome::Conflict(placed)
    }))
}

/// Writes the candidates as memories (the memory API's keys filled in as memory_save
/// fills them), within the day's limit, and says where each went.
fn write_candidates(
    engine: &Engine,
    project: &Project,
    candidates: &mut [Candidate],
) -> Result<(Vec<Placed>, Redactions)> {
    let now = now_text();
    let mut redacted = Redactions::default();
    let mut claimed: HashSet<String> = HashSet::new();
    let mut placed = Vec::with_capacity(candidates.len());
    let mut bytes = 0;
    for candidate in candidates.iter_mut() {
        let draft = &mut candidate.draft;
        let (title, found) = crate::authored::redact_title(&engine.store, &draft.title);
        redacted.merge(&found);
        draft.title = title;
        let meta = &mut draft.metadata;
        meta.entry("version").or_insert_with(|| json!(1));
        let created = meta.get("created_at").cloned();
        meta.entry("created_at").or_insert_with(|| json!(now));
        let updated = created.unwrap_or_else(|| json!(now));
        meta.entry("updated_at").or_insert(updated);
        draft.metadata = ordered(std::mem::take(&mut draft.metadata));
        let path = free_memory_path(
            &engine.store,
            project,
            &draft.title,
            &draft.id,
            &mut claimed,
        )?;
        bytes += draft.body.trim_end().len();
        placed.push((path, draft.clone()));
    }
    let paths: Vec<String> = placed.iter().map(|(path, _)| path.clone()).collect();
    let written = crate::memory::limits::within_daily_limit(engine, project, bytes, || {
        crate::import::write_new_notes(engine, project, "POST /ingest", placed)
    })?;
    redacted.merge(&written);
    let mut answers = Vec::with_capacity(paths.len());
    for (candidate, path) in candidates.iter().zip(paths) {
        let permalink = crate::notes::note_by_path(&engine.store.index, project, &path)?
            .and_then(|note| note.permalink);
        answers.push(Placed {
            id: candidate.draft.id.clone(),
            permalink,
            file_path: path,
        });
    }
    Ok((answers, redacted))
}

/// A path in `memories/` for a memory titled `title`, as memory_save names it, that no
/// file and no other record of the batch holds.
fn free_memory_path(
    store: &Store,
    project: &Project,
    title: &str,
    id: &str,
    claimed: &mut HashSet<String>,
) -> Result<String> {
    let short: String = id.chars().filter(|c| c.is_alphanumeric()).take(8).collect();
    let stem = foreign_file_stem(title).unwrap_or_else(|| format!("memory {short}"));
    let mut tries = [stem.clone(), format!("{stem} ({short})")].into_iter();
    let mut n = 2;
    loop {
        let candidate = tries
            .next()
            .unwrap_or_else(|| format!("{stem} ({short}) ({n})"));
        let path = note_file_path(MEMORY_FOLDER, &candidate, false);
        if !claimed.contains(&path.to_lowercase())
            && !crate::mounts::project_file(store, project, &path)?.exists()
        {
            claimed.insert(path.to_lowercase());
            return Ok(path);
        }
        n += 1;
    }
}

/// The project's notes by the ids memory_save would find them by: front matter `id`, else a
/// markdown note's permalink.
struct MemoryIndex {
    by_id: HashMap<String, NoteRecord>,
    by_permalink: HashMap<String, NoteRecord>,
}

impl MemoryIndex {
    fn of(notes: Vec<NoteRecord>) -> Self {
        let mut index = MemoryIndex {
            by_id: HashMap::new(),
            by_permalink: HashMap::new(),
        };
        for note in notes {
            if let Some(id) = note.metadata.get("id").and_then(Value::as_str) {
                index.by_id.entry(id.to_string()).or_insert(note.clone());
            }
            match note.permalink.clone() {
                Some(permalink) if note.kind == NoteKind::Markdown => {
                    index.by_permalink.insert(permalink, note);
                }
                _ => {}
            }
        }
        index
    }

    fn get(&self, id: &str) -> Option<&NoteRecord> {
        self.by_id.get(id).or_else(|| self.by_permalink.get(id))
    }
}
