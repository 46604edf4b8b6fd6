//! The one place where a scan's changes become index operations, for project directories and
//! linked folders alike: new and modified files are parsed (in parallel) into upserts, touched
//! files only refresh their stat, deletes and checksum-detected moves pass through.

use rayon::prelude::*;

use super::note_input;
use index::{FileWarning, NoteInput, WriteOp};
use vault::file::Observed;
use vault::scan::{Change, Scan};

/// How the scanned paths of one root become notes of a project.
pub struct Target<'a> {
    pub project: &'a str,
    pub include_project_prefix: bool,
    /// The project path of a scanned path (a linked folder mounts its files under a folder).
    pub place: &'a (dyn Fn(&str) -> String + Sync),
    /// Adds what the root knows to a parsed note (a linked folder records its source).
    pub annotate: &'a (dyn Fn(&str, &Observed, &mut NoteInput) + Sync),
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ChangeCounts {
    pub created: usize,
    pub modified: usize,
    pub deleted: usize,
    pub moved: usize,
}

/// The operations for a set of changes.
pub(crate) struct Planned {
    /// Stat refreshes, deletes and moves first, then the upserts.
    pub ops: Vec<WriteOp>,
    /// The scanned path behind each op that is an upsert, aligned with `ops`, so outcomes (the
    /// notes' ids) can be mapped back.
    pub upserted: Vec<Option<String>>,
    pub counts: ChangeCounts,
    /// What parsing the new and modified files found wrong, by project path.
    pub warnings: Vec<FileWarning>,
}

/// A scan's changes sorted out, before any file is parsed: what `plan` does in one go, and what
/// a bulk load parses batch by batch (`parse`) so that it never holds the whole vault parsed.
pub(crate) struct Sorted<'c> {
    /// Stat refreshes, deletes and moves: they need the whole diff, and go before any upsert.
    pub ops: Vec<WriteOp>,
    /// The new and modified files, in the order of the changes.
    pub to_parse: Vec<&'c str>,
    pub counts: ChangeCounts,
}

pub fn sort<'c>(target: &Target, changes: &'c [Change], scan: &Scan) -> Sorted<'c> {
    let place = target.place;
    let mut counts = ChangeCounts::default();
    let mut ops = Vec::new();
    let mut to_parse: Vec<&str> = Vec::new();
    for change in changes {
        match change {
            Change::Created(path) => {
                counts.created += 1;
                to_parse.push(path);
            }
            Change::Modified(path) => {
                counts.modified += 1;
                to_parse.push(path);
            }
            Change::Touched(path) => {
                let stat = scan.files[path].stat;
                ops.push(WriteOp::Touch {
                    project: target.project.to_string(),
                    path: place(path),
                    size: stat.size,
                    mtime_ns: stat.mtime_ns,
                });
            }
            Change::Deleted(path) => {
                counts.deleted += 1;
                ops.push(WriteOp::Delete {
                    project: target.project.to_string(),
                    path: place(path),
                });
            }
            Change::Moved { from, to } => {
                counts.moved += 1;
                ops.push(WriteOp::Move {
                    project: target.project.to_string(),
                    from: place(from),
                    to: place(to),
                });
            }
        }
    }
    Sorted {
        ops,
        to_parse,
        counts,
    }
}

/// Parses scanned files (in parallel) into upserts, with what parsing found wrong.
pub fn parse(target: &Target, scan: &Scan, paths: &[&str]) -> (Vec<WriteOp>, Vec<FileWarning>) {
    let inputs: Vec<NoteInput> = paths
        .par_iter()
        .map(|path| {
            let observed = &scan.files[*path];
            let bytes = observed.bytes.as_deref().unwrap_or_default();
            let mut input = note_input::from_file(
                target.project,
                target.include_project_prefix,
                &(target.place)(path),
                observed,
                bytes,
            );
            (target.annotate)(path, observed, &mut input);
            input
        })
        .collect();
    let warnings = inputs
        .iter()
        .flat_map(|input| {
            input.warnings.iter().map(|message| FileWarning {
                path: input.path.clone(),
                message: message.clone(),
            })
        })
        .collect();
    let ops = inputs
        .into_iter()
        .map(|i| WriteOp::Upsert(Box::new(i)))
        .collect();
    (ops, warnings)
}

pub fn plan(target: &Target, changes: &[Change], scan: &Scan) -> Planned {
    let Sorted {
        mut ops,
        to_parse,
        counts,
    } = sort(target, changes, scan);
    let (upserts, warnings) = parse(target, scan, &to_parse);
    let mut upserted: Vec<Option<String>> = vec![None; ops.len()];
    upserted.extend(to_parse.iter().map(|p| Some(p.to_string())));
    ops.extend(upserts);
    Planned {
        ops,
        upserted,
        counts,
        warnings,
    }
}
