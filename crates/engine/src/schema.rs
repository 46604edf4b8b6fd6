//! Basic Memory's schema tools as workflows (its schema router and the guards of its
//! `schema.py` tools): schema_validate of one note, of a type, or of every type a schema
//! covers; schema_infer over the notes of a type; schema_diff between a type's schema note and
//! its notes; and the check write_note makes under `validation: strict`. Schema notes are read
//! from the index (front matter as it was last indexed) and picked in path order; the tools
//! read every note of the project, write_note only the schema notes (`notes_of_type`), so a
//! write scans nothing.

use std::collections::HashMap;

use super::notes::Lookup;
use super::scope::ProjectChoice;
use super::{Outcome, Result};
use crate::config::Project;
use crate::schema_notes::Schemas;
use crate::Store;
use index::Index;
use index::{NoteKind, NoteRecord};
use note::permalink::normalize_note_type;
use note::schema::infer::{diff_schema, infer_schema, Drift, Inference, NoteFields, TypedRelation};
use note::schema::validate::NoteValidation;
use note::schema::SchemaError;

/// The notes checked, and how many notes of the type(s) there were.
#[derive(Debug, Clone, PartialEq)]
pub struct ValidationReport {
    /// The type asked for (snake-cased), the identified note's type, or none for all types.
    pub note_type: Option<String>,
    /// Notes of the type(s), with or without a schema.
    pub total_entities: usize,
    /// One per note that has a schema.
    pub results: Vec<NoteValidation>,
    /// Validating every type: one per type a schema covers.
    pub type_summaries: Vec<TypeSummary>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct TypeSummary {
    /// As the schema note's `entity` (or the first note's `type`) spells it.
    pub note_type: String,
    pub total_entities: usize,
    pub tally: Tally,
}

/// Counts over checked notes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tally {
    pub notes: usize,
    pub valid: usize,
    pub warnings: usize,
    pub errors: usize,
}

impl Tally {
    pub fn of(results: &[NoteValidation]) -> Tally {
        Tally {
            notes: results.len(),
            valid: results.iter().filter(|r| r.passed).count(),
            warnings: results.iter().map(|r| r.warnings.len()).sum(),
            errors: results.iter().map(|r| r.errors.len()).sum(),
        }
    }
}

/// schema_diff's answer: the type as asked, and its drift.
#[derive(Debug, Clone, PartialEq)]
pub struct DriftReport {
    pub note_type: String,
    pub drift: Drift,
}

/// The guidance the schema tools answer with instead of a report.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaRefusal {
    /// Validating every type, and no schema exists.
    NoSchemasDefined,
    /// No note has the type (or the identifier named none).
    NoNotesOfType(String),
    /// Notes of the type exist, but no schema for them.
    NoSchemaFound(String),
    /// Notes were analysed but no field reached the threshold.
    NoPattern {
        note_type: String,
        notes_analyzed: usize,
        threshold: f64,
    },
    /// A schema that applies cannot be read.
    Invalid(SchemaError),
}

/// schema_validate: one note (`identifier` wins), the notes of `note_type`, or every type
/// a schema covers.
pub(crate) fn schema_validate(
    store: &Store,
    choice: &ProjectChoice,
    note_type: Option<&str>,
    identifier: Option<&str>,
) -> Result<Outcome<ValidationReport, SchemaRefusal>> {
    let project = crate::scope::select_project(store, choice)?;
    let notes = markdown_notes(&store.index, &project)?;
    let schemas = Schemas::new(&notes);
    let note_type = note_type.filter(|t| !t.is_empty());
    let identifier = identifier.filter(|i| !i.is_empty());
    let report = match identifier {
        Some(identifier) => {
            let found = match crate::notes::resolve(&store.index, &project, identifier)? {
                Lookup::Found(note) => Some(note),
                Lookup::Ambiguous(_) | Lookup::NotFound => None,
            };
            let Some(note) = found else {
                let wanted = note_type.unwrap_or("unknown").to_string();
                return Ok(Outcome::Refused(SchemaRefusal::NoNotesOfType(wanted)));
            };
            let results = match schemas.check(&note) {
                Ok(checked) => checked.into_iter().collect(),
                Err(e) => return Ok(Outcome::Refused(SchemaRefusal::Invalid(e))),
            };
            ValidationReport {
                note_type: Some(
                    note_type.map_or_else(|| normalize_note_type(&note.note_type), String::from),
                ),
                total_entities: 1,
                results,
                type_summaries: Vec::new(),
            }
        }
        None => match note_type {
            Some(wanted) => {
                let canonical = normalize_note_type(wanted);
                let of_type = of_type(&notes, &canonical);
                let results = match schemas.check_all(&of_type) {
                    Ok(results) => results,
                    Err(e) => return Ok(Outcome::Refused(SchemaRefusal::Invalid(e))),
                };
                ValidationReport {
                    note_type: Some(canonical),
                    total_entities: of_type.len(),
                    results,
                    type_summaries: Vec::new(),
                }
            }
            None => {
                let covered = schemas.covered_types(&notes);
                if covered.is_empty() {
                    return Ok(Outcome::Refused(SchemaRefusal::NoSchemasDefined));
                }
                let mut report = ValidationReport {
                    note_type: None,
                    total_entities: 0,
                    results: Vec::new(),
                    type_summaries: Vec::new(),
                };
                for label in covered {
                    let of_type = of_type(&notes, &normalize_note_type(&label));
                    let results = match schemas.check_all(&of_type) {
                        Ok(results) => results,
                        Err(e) => return Ok(Outcome::Refused(SchemaRefusal::Invalid(e))),
                    };
                    report.type_summaries.push(TypeSummary {
                        note_type: label,
                        total_entities: of_type.len(),
                        tally: Tally::of(&results),
                    });
                    report.total_entities += of_type.len();
                    report.results.extend(results);
                }
                return Ok(Outcome::Done(report));
            }
        },
    };
    let wanted = note_type
        .map(String::from)
        .or_else(|| report.note_type.clone())
        .unwrap_or_else(|| "unknown".into());
    Ok(if report.total_entities == 0 {
        Outcome::Refused(SchemaRefusal::NoNotesOfType(wanted))
    } else if report.results.is_empty() {
        Outcome::Refused(SchemaRefusal::NoSchemaFound(wanted))
    } else {
        Outcome::Done(report)
    })
}

/// schema_infer: a schema suggested by the notes of `note_type`.
pub(crate) fn schema_infer(
    store: &Store,
    choice: &ProjectChoice,
    note_type: &str,
    threshold: f64,
) -> Result<Outcome<Inference, SchemaRefusal>> {
    let project = crate::scope::select_project(store, choice)?;
    let notes = markdown_notes(&store.index, &project)?;
    let canonical = normalize_note_type(note_type);
    let of_type = of_type(&notes, &canonical);
    let typed = typed_relations(&store.index, &notes, &of_type)?;
    let inference = infer_schema(&canonical, &fields(&of_type, &typed), threshold);
    if inference.notes_analyzed > 0 && inference.suggested_schema.is_empty() {
        return Ok(Outcome::Refused(SchemaRefusal::NoPattern {
            note_type: note_type.to_string(),
            notes_analyzed: inference.notes_analyzed,
            threshold,
        }));
    }
    Ok(Outcome::Done(inference))
}

/// schema_diff: the schema note of `note_type` against its notes.
pub(crate) fn schema_diff(
    store: &Store,
    choice: &ProjectChoice,
    note_type: &str,
) -> Result<Outcome<DriftReport, SchemaRefusal>> {
    let project = crate::scope::select_project(store, choice)?;
    let notes = markdown_notes(&store.index, &project)?;
    let canonical = normalize_note_type(note_type);
    let schema = match Schemas::new(&notes).by_type(&canonical, None) {
        Ok(Some(schema)) => schema,
        Ok(None) => {
            return Ok(Outcome::Refused(SchemaRefusal::NoSchemaFound(
                note_type.into(),
            )))
        }
        Err(e) => return Ok(Outcome::Refused(SchemaRefusal::Invalid(e))),
    };
    let of_type = of_type(&notes, &canonical);
    let typed = typed_relations(&store.index, &notes, &of_type)?;
    Ok(Outcome::Done(DriftReport {
        note_type: note_type.to_string(),
        drift: diff_schema(&schema, &fields(&of_type, &typed)),
    }))
}

fn markdown_notes(index: &Index, project: &Project) -> Result<Vec<NoteRecord>> {
    let mut notes: Vec<NoteRecord> = crate::notes::all_notes(index, project)?
        .into_iter()
        .filter(|n| n.kind == NoteKind::Markdown)
        .collect();
    notes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(notes)
}

/// Each note's relations with the type of the note each resolved to.
fn typed_relations(
    index: &Index,
    notes: &[NoteRecord],
    of_type: &[&NoteRecord],
) -> Result<Vec<Vec<TypedRelation>>> {
    let types: HashMap<&str, &str> = notes
        .iter()
        .map(|n| (n.id.as_str(), n.note_type.as_str()))
        .collect();
    let mut typed = Vec::with_capacity(of_type.len());
    for note in of_type {
        let mut relations = Vec::with_capacity(note.relations.len());
        for stored in &note.relations {
            let target_type = match stored.to_id.as_deref() {
                None => None,
                Some(id) => match types.get(id) {
                    Some(t) => Some(normalize_note_type(t)),
                    // A target in another project.
                    None => crate::notes::note_by_id(index, id)?
                        .map(|n| normalize_note_type(&n.note_type)),
                },
            };
            relations.push((stored.relation.clone(), target_type));
        }
        typed.push(relations);
    }
    Ok(typed)
}

fn of_type<'a>(notes: &'a [NoteRecord], canonical: &str) -> Vec<&'a NoteRecord> {
    notes
        .iter()
        .filter(|n| normalize_note_type(&n.note_type) == canonical)
        .collect()
}

fn fields<'a>(notes: &[&'a NoteRecord], typed: &'a [Vec<TypedRelation>]) -> Vec<NoteFields<'a>> {
    notes
        .iter()
        .zip(typed)
        .map(|(note, relations)| NoteFields {
            observations: &note.observations,
            relations,
        })
        .collect()
}
