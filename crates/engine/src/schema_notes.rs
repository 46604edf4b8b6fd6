//! The schema notes of a project (notes of type `schema`) and how a note finds its schema
//! among them: what schema_validate, schema_infer and schema_diff read, and what write_note's
//! strict check refuses.

use serde_json::{Map, Value};

use crate::config::Project;
use crate::{Result, SchemaViolation};
use index::Index;
use index::NoteRecord;
use note::permalink::{generate_permalink, normalize_note_type};
use note::schema::validate::{validate_note, NoteValidation};
use note::schema::{
    inline_schema, parse_schema_note, schema_source, SchemaDefinition, SchemaError, SchemaSource,
    ValidationMode,
};
use note::{Observation, Relation};

/// The markdown notes of a project whose type is `note_type` (compared snake-cased), in
/// path order, from the graph: a note just written is seen, without waiting for the search
/// index (every write_note asks this for the project's schemas).
pub(crate) fn notes_of_type(
    index: &Index,
    project: &Project,
    note_type: &str,
) -> Result<Vec<NoteRecord>> {
    let wanted = normalize_note_type(note_type);
    let mut notes = Vec::new();
    let snap = index.snapshot()?;
    for id in index.ids_of_type(&project.name, &wanted)? {
        notes.extend(snap.note(&id)?);
    }
    notes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(notes)
}

/// The errors a strict schema finds in a note about to be written (its front matter and
/// parsed body); `None` when it has no schema, a lenient one, or one that cannot be read
/// (which schema_validate reports: a broken schema note must not block every write), and
/// for a schema note, whose `schema:` mapping defines other notes, not itself.
pub(crate) fn schema_violation(
    index: &Index,
    project: &Project,
    frontmatter: &Map<String, Value>,
    observations: &[Observation],
    relations: &[Relation],
) -> Result<Option<SchemaViolation>> {
    let is_schema = frontmatter
        .get("type")
        .and_then(Value::as_str)
        .is_some_and(|t| normalize_note_type(t) == "schema");
    if is_schema {
        return Ok(None);
    }
    let schema_notes = notes_of_type(index, project, "schema")?;
    let Ok(Some(schema)) = Schemas::new(&schema_notes).resolve(frontmatter) else {
        return Ok(None);
    };
    if schema.mode != ValidationMode::Strict {
        return Ok(None);
    }
    let checked = validate_note("", &schema, observations, relations, frontmatter);
    if checked.passed {
        return Ok(None);
    }
    Ok(Some(SchemaViolation {
        schema_entity: checked.schema_entity,
        errors: checked.errors,
    }))
}

/// The schema notes of a project, and the resolution of a note's schema among them.
pub(crate) struct Schemas<'a> {
    schemas: Vec<&'a NoteRecord>,
}

impl<'a> Schemas<'a> {
    /// The schema notes among `notes`, in their order.
    pub(crate) fn new(notes: &'a [NoteRecord]) -> Self {
        let schemas = notes
            .iter()
            .filter(|n| normalize_note_type(&n.note_type) == "schema")
            .collect();
        Schemas { schemas }
    }

    /// The schema note for `query`: one whose `entity` names that type, else (for an explicit
    /// reference) one whose title, permalink or permalink's last segment slugs like it.
    pub(crate) fn find(&self, query: &str, by_reference: bool) -> Option<&'a NoteRecord> {
        let wanted = normalize_note_type(query);
        let by_entity = self.schemas.iter().copied().find(|s| {
            s.metadata
                .get("entity")
                .and_then(Value::as_str)
                .is_some_and(|e| normalize_note_type(e) == wanted)
        });
        if by_entity.is_some() || !by_reference {
            return by_entity;
        }
        let reference = generate_permalink(query, true);
        self.schemas.iter().copied().find(|s| {
            let permalink = s.permalink.as_deref().unwrap_or_default();
            let last = permalink.rsplit('/').next().unwrap_or_default();
            [s.title.as_str(), permalink, last]
                .iter()
                .any(|r| !r.is_empty() && generate_permalink(r, true) == reference)
        })
    }

    /// The schema note of a type (`reference`: the note's own `schema:` string).
    pub(crate) fn by_type(
        &self,
        note_type: &str,
        reference: Option<&str>,
    ) -> std::result::Result<Option<SchemaDefinition>, SchemaError> {
        self.find(note_type, reference == Some(note_type))
            .map(|s| parse_schema_note(&s.metadata))
            .transpose()
    }

    /// A note's schema: inline, else the one it names, else its type's.
    pub(crate) fn resolve(
        &self,
        frontmatter: &Map<String, Value>,
    ) -> std::result::Result<Option<SchemaDefinition>, SchemaError> {
        match schema_source(frontmatter) {
            SchemaSource::Inline(schema) => inline_schema(schema, frontmatter).map(Some),
            SchemaSource::Reference {
                reference,
                note_type,
            } => match self.find(reference, true) {
                Some(schema) => parse_schema_note(&schema.metadata).map(Some),
                None => match note_type {
                    Some(t) => self.by_type(&t, Some(reference)),
                    None => Ok(None),
                },
            },
            SchemaSource::Type(t) => self.by_type(&t, None),
            SchemaSource::None => Ok(None),
        }
    }

    /// A note checked against its schema, if it has one.
    pub(crate) fn check(
        &self,
        note: &NoteRecord,
    ) -> std::result::Result<Option<NoteValidation>, SchemaError> {
        let frontmatter = frontmatter_of(note);
        let Some(schema) = self.resolve(&frontmatter)? else {
            return Ok(None);
        };
        let relations: Vec<Relation> = note.relations.iter().map(|r| r.relation.clone()).collect();
        Ok(Some(validate_note(
            &note.title,
            &schema,
            &note.observations,
            &relations,
            &frontmatter,
        )))
    }

    /// The notes that have a schema, checked; the others are left out.
    pub(crate) fn check_all(
        &self,
        notes: &[&NoteRecord],
    ) -> std::result::Result<Vec<NoteValidation>, SchemaError> {
        let mut results = Vec::new();
        for note in notes {
            results.extend(self.check(note)?);
        }
        Ok(results)
    }

    /// Every type a schema covers, by its first spelling, ordered by its snake_case form: the
    /// `entity` of each schema note, and the (snake-cased) type of each note that has its own
    /// schema or names one.
    pub(crate) fn covered_types(&self, notes: &[NoteRecord]) -> Vec<String> {
        let mut targets: Vec<(String, String)> = Vec::new();
        let mut add = |label: String| {
            let key = normalize_note_type(&label);
            if !targets.iter().any(|(k, _)| *k == key) {
                targets.push((key, label));
            }
        };
        for schema in &self.schemas {
            if let Some(entity) = schema.metadata.get("entity").and_then(Value::as_str) {
                if !entity.is_empty() {
                    add(entity.to_string());
                }
            }
        }
        for note in notes {
            let direct = match note.metadata.get("schema") {
                Some(Value::Object(_)) => true,
                Some(Value::String(s)) => !s.is_empty(),
                _ => false,
            };
            if direct
                && normalize_note_type(&note.note_type) != "schema"
                && !note.note_type.is_empty()
            {
                add(normalize_note_type(&note.note_type));
            }
        }
        targets.sort_by(|a, b| a.0.cmp(&b.0));
        targets.into_iter().map(|(_, label)| label).collect()
    }
}

/// A note's front matter as the resolver reads it: its `type` is the index's when it has none.
fn frontmatter_of(note: &NoteRecord) -> Map<String, Value> {
    let mut fm = note.metadata.clone();
    fm.entry("type")
        .or_insert_with(|| Value::String(note.note_type.clone()));
    fm
}
