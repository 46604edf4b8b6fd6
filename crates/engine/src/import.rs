//! Imports (`gitmem import …`, `memory_import_basic`): the drafts `note::import` makes of an
//! export become notes of a project.
//!
//! Unlike Basic Memory's importers, nothing is overwritten unless asked, and nothing partial
//! is left: the whole input is validated before the first write, and a write that fails
//! takes back the ones before it. Drafts carry stable ids, so importing the same export again
//! creates nothing twice. Everything written is indexed at once and, in a versioned project,
//! committed as one commit.

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use super::error::{ImportError, InternalError};
use super::git::commits::{Change, PathChange};
use super::{authored, Result, ServiceError};
use crate::config::Project;
use crate::{Engine, Store};
use index::OpOutcome;
use note::document::Document;
use note::filename::{foreign_file_stem, note_file_path};
use note::import::{Draft, Parsed, Source};
use note::permalink::note_permalink;
use note::redact::Redactions;
use vault::{self, path::RelPath};

/// How an import treats its target.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    /// The folder the notes go under (default: the format's own, e.g. `conversations`).
    pub folder: Option<String>,
    /// Report what would happen; write nothing.
    pub dry_run: bool,
    /// Replace notes that exist already (same id, or same path).
    pub overwrite: bool,
}

/// A draft that was not written, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    pub path: String,
    pub reason: String,
}

/// What an import did (or, dry, would do).
#[derive(Debug, Clone, PartialEq)]
pub struct ImportReport {
    pub source: String,
    pub project: String,
    pub dry_run: bool,
    /// Paths of new notes.
    pub created: Vec<String>,
    /// Paths of notes replaced (`overwrite`).
    pub overwritten: Vec<String>,
    /// Drafts left out because another note holds their path.
    pub skipped: Vec<Skipped>,
    /// Drafts already imported (same id in the project) or repeated in the input.
    pub deduplicated: usize,
    /// What the input held: ("conversations", 3), ("messages", 17), ...
    pub counts: Vec<(String, usize)>,
    /// Secret-shaped values replaced in what was written (a dry run counts titles only).
    pub redacted: Redactions,
}

/// One note to write.
struct Planned {
    path: String,
    draft: Draft,
    overwrite: bool,
}

/// `gitmem import SOURCE FILE`: reads and converts the whole file, then imports it into
/// `project`.
pub(crate) fn import_file(
    engine: &Engine,
    project: &Project,
    source: Source,
    file: &Path,
    options: &ImportOptions,
    progress: &dyn Fn(usize, usize),
) -> Result<ImportReport> {
    let text = vault::fs::read_text(file).map_err(|source| ImportError::Unreadable {
        path: file.to_path_buf(),
        source,
    })?;
    let parsed =
        note::import::parse(source, &text).map_err(|errors| ImportError::InvalidRecords {
            file: file.display().to_string(),
            errors,
        })?;
    import_drafts(engine, project, source.name(), parsed, options, progress)
}

/// Writes converted drafts into `project`.
pub(crate) fn import_drafts(
    engine: &Engine,
    project: &Project,
    source: &str,
    mut parsed: Parsed,
    options: &ImportOptions,
    progress: &dyn Fn(usize, usize),
) -> Result<ImportReport> {
    let mut redacted = Redactions::default();
    // Names become file names and permalinks, which the text's filter never sees; the
    // file stem repeats the title, so only the title's values are counted.
    for draft in &mut parsed.drafts {
        for (name, counted) in [
            (&mut draft.title, true),
            (&mut draft.folder, true),
            (&mut draft.file_stem, false),
        ] {
            let (clean, found) = crate::authored::redact_title(&engine.store, name);
            *name = clean;
            if counted {
                redacted.merge(&found);
            }
        }
    }
    let folder = options
        .folder
        .clone()
        .unwrap_or_else(|| parsed.default_folder.to_string());
    let Ok(base) = RelPath::parse(folder.trim_matches('/')) else {
        return Err(ImportError::FolderOutside(folder).into());
    };
    if base.as_str().split('/').any(|part| part.starts_with('.')) {
        return Err(ImportError::HiddenFolder(folder).into());
    }
    let mut report = ImportReport {
        source: source.to_string(),
        project: project.name.clone(),
        dry_run: options.dry_run,
        created: Vec::new(),
        overwritten: Vec::new(),
        skipped: Vec::new(),
        deduplicated: parsed.duplicates,
        counts: parsed
            .counts
            .iter()
            .map(|(what, n)| (what.to_string(), *n))
            .collect(),
        redacted,
    };
    let plans = plan(
        &engine.store,
        project,
        &base,
        parsed.drafts,
        options,
        &mut report,
    )?;
    if !options.dry_run && !plans.is_empty() {
        let written = write_planned(engine, project, source, &plans, progress)?;
        report.redacted.merge(&written);
    }
    for plan in plans {
        if plan.overwrite {
            report.overwritten.push(plan.path);
        } else {
            report.created.push(plan.path);
        }
    }
    Ok(report)
}

/// Writes drafts as new notes at the paths given (each free, as the caller has checked),
/// all or nothing as an import is: one batch for the index, one commit.
pub(super) fn write_new_notes(
    engine: &Engine,
    project: &Project,
    source: &str,
    placed: Vec<(String, Draft)>,
) -> Result<Redactions> {
    let plans: Vec<Planned> = placed
        .into_iter()
        .map(|(path, draft)| Planned {
            path,
            draft,
            overwrite: false,
        })
        .collect();
    write_planned(engine, project, source, &plans, &|_, _| {})
}

/// Where each draft goes, and which are left out.
fn plan(
    store: &Store,
    project: &Project,
    base: &RelPath,
    drafts: Vec<Draft>,
    options: &ImportOptions,
    report: &mut ImportReport,
) -> Result<Vec<Planned>> {
    let mut by_id: HashMap<String, String> = HashMap::new();
    for note in crate::notes::all_notes(&store.index, project)? {
        if let Some(id) = note.metadata.get("id").and_then(Value::as_str) {
            by_id.insert(id.to_string(), note.path);
        }
    }
    let mut claimed: HashSet<String> = HashSet::new();
    let mut plans = Vec::new();
    for draft in drafts {
        if let Some(path) = by_id.get(&draft.id) {
            if options.overwrite && claimed.insert(path.to_lowercase()) {
                plans.push(Planned {
                    path: path.clone(),
                    draft,
                    overwrite: true,
                });
            } else {
                report.deduplicated += 1;
            }
            continue;
        }
        let folder = [base.as_str(), draft.folder.trim_matches('/')]
            .into_iter()
            .filter(|p| !p.is_empty())
            .collect::<Vec<_>>()
            .join("/");
        let stem = foreign_file_stem(&draft.file_stem).unwrap_or_else(|| "untitled".into());
        let mut path = note_file_path(&folder, &stem, false);
        let mut n = 2;
        while claimed.contains(&path.to_lowercase()) {
            path = note_file_path(&folder, &format!("{stem} ({n})"), false);
            n += 1;
        }
        // The export names the folder; this is where its path enters.
        if RelPath::parse(&path).is_err() {
            return Err(ImportError::PathOutside {
                line: draft.line,
                path,
            }
            .into());
        }
        let exists = crate::mounts::project_file(store, project, &path)?.exists();
        if exists && !options.overwrite {
            report.skipped.push(Skipped {
                path,
                reason: "another note exists at this path (--overwrite replaces it)".into(),
            });
            continue;
        }
        claimed.insert(path.to_lowercase());
        plans.push(Planned {
            path,
            draft,
            overwrite: exists,
        });
    }
    Ok(plans)
}

/// Writes the planned notes, indexes them and queues one commit. A failure at any step
/// takes back every write (files, and the folders made for them) and leaves the index as
/// the files are.
fn write_planned(
    engine: &Engine,
    project: &Project,
    source: &str,
    plans: &[Planned],
    progress: &dyn Fn(usize, usize),
) -> Result<Redactions> {
    let mut undo = Undo::default();
    let outcome = write_files(&engine.store, project, plans, progress, &mut undo)
        .and_then(|redacted| index_imported(&engine.store, project, plans).map(|()| redacted));
    let redacted = match outcome {
        Ok(redacted) => redacted,
        Err(e) => {
            take_back(&engine.store, project, undo);
            return Err(e);
        }
    };
    let paths = plans
        .iter()
        .filter(|plan| {
            crate::mounts::project_file(&engine.store, project, &plan.path)
                .is_ok_and(|file| file.starts_with(&project.path))
        })
        .map(|plan| PathChange {
            path: plan.path.clone(),
            present: true,
        })
        .collect();
    if let Some(change) = Change::imported(project, source, paths) {
        engine.history.record(change);
    }
    Ok(redacted)
}

fn write_files(
    store: &Store,
    project: &Project,
    plans: &[Planned],
    progress: &dyn Fn(usize, usize),
    undo: &mut Undo,
) -> Result<Redactions> {
    let mut redacted = Redactions::default();
    let include = store.config().compat.permalinks_include_project;
    let mut permalinks: HashSet<String> = HashSet::new();
    for (done, plan) in plans.iter().enumerate() {
        // A replaced note keeps its permalink, so links and memory:// URLs to it still hold.
        let replaced = match plan.overwrite {
            true => crate::notes::equivalent_note(store, project, &plan.path)?,
            false => None,
        };
        let wanted = match replaced.as_ref().and_then(|note| note.permalink.clone()) {
            Some(permalink) => permalink,
            None => note_permalink(&project.name, &plan.path, include),
        };
        let mut permalink = crate::notes::free_permalink(
            &store.index,
            project,
            &wanted,
            replaced.as_ref().map(|n| n.id.as_str()),
        )?;
        let mut n = 1;
        while !permalinks.insert(permalink.clone()) {
            permalink = crate::notes::free_permalink(
                &store.index,
                project,
                &format!("{wanted}-{n}"),
                None,
            )?;
            n += 1;
        }
        let authored =
            crate::authored::author(store, &plan.path, &note_text(&plan.draft, &permalink), None)?;
        redacted.merge(&authored.redacted);
        let absolute = crate::mounts::project_file(store, project, &plan.path)?;
        undo.dirs
            .extend(vault::fs::missing_dirs(&absolute, &project.path));
        // Only --overwrite replaces a file; any other file, even one another program
        // created since the plan was made, stops the import.
        let attempt = match plan.overwrite {
            true => vault::fs::read_optional(&absolute)
                .and_then(|before| authored::replace(&absolute, &authored).map(|_| before)),
            false => authored::create(&absolute, &authored).map(|()| None),
        };
        match attempt {
            Ok(before) => undo.files.push((plan.path.clone(), absolute, before)),
            Err(e) => {
                return Err(ServiceError::from(std::io::Error::new(
                    e.kind(),
                    format!("cannot write {}: {e}; nothing was imported", plan.path),
                )))
            }
        }
        progress(done + 1, plans.len());
    }
    Ok(redacted)
}

fn index_imported(store: &Store, project: &Project, plans: &[Planned]) -> Result<()> {
    let ops = plans
        .iter()
        .map(|plan| crate::note_input::upsert_op(store, project, &plan.path))
        .collect::<Result<Vec<_>>>()?;
    for outcome in store.index.write(ops)? {
        match outcome {
            Ok(OpOutcome::Upserted { .. }) => {}
            Ok(other) => return Err(InternalError::UnexpectedAnswer(other).into()),
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}

/// Puts back what an import wrote before it failed, and tells the index: a file the
/// import created is gone again, a replaced one holds its old text.
fn take_back(store: &Store, project: &Project, undo: Undo) {
    let mut ops = Vec::new();
    for (relative, path, before) in undo.files.into_iter().rev() {
        let undone = match &before {
            Some(bytes) => vault::fs::atomic_write(&path, bytes),
            None => vault::fs::delete_file(&path),
        };
        if let Err(e) = undone {
            tracing::error!(
                "could not take back {} after a failed import: {e}",
                path.display()
            );
            continue;
        }
        let op = match before {
            Some(_) => crate::note_input::upsert_op(store, project, &relative).ok(),
            None => Some(index::WriteOp::Delete {
                project: project.name.clone(),
                path: relative,
            }),
        };
        ops.extend(op);
    }
    for dir in undo.dirs.iter().rev() {
        // Only folders left empty go: anything else put there meanwhile stays.
        let _ = vault::fs::remove_empty_dir(dir);
    }
    match store.index.write(ops) {
        Ok(outcomes) => {
            for message in outcomes.into_iter().filter_map(|o| o.err()) {
                tracing::warn!("re-indexing after a failed import: {message}");
            }
        }
        Err(e) => tracing::error!("re-indexing after a failed import: {e}"),
    }
}

/// What an import wrote, to take back if it fails: each file (project-relative path,
/// absolute path, bytes before) and the folders made for them, outermost first.
#[derive(Default)]
struct Undo {
    files: Vec<(String, std::path::PathBuf, Option<Vec<u8>>)>,
    dirs: Vec<std::path::PathBuf>,
}

/// A draft's file: front matter `title`, `type`, `permalink`, then the draft's own keys.
pub fn note_text(draft: &Draft, permalink: &str) -> String {
    Document::headed(
        &draft.title,
        &draft.note_type,
        permalink,
        &draft.metadata,
        draft.body.as_str(),
    )
    .render()
}
