//! Schemas suggested by the notes of a type, and a schema's drift from them, as upstream's
//! `picoschema.inference` and `picoschema.diff`: a field's frequency is the share of notes
//! holding its category or relation type at least once; 95% and more makes it required, the
//! threshold and more optional; held several times in more than half of those notes, an array.

use super::SchemaDefinition;
use crate::{Observation, Relation};

/// A required field is in at least this share of the notes.
pub const REQUIRED_THRESHOLD: f64 = 0.95;
/// Drift: an undeclared field this common is new; a declared one rarer than the other is dropped.
const NEW_FIELD_THRESHOLD: f64 = 0.25;
const DROPPED_FIELD_THRESHOLD: f64 = 0.10;
const INFERENCE_SAMPLES: usize = 5;
const DRIFT_SAMPLES: usize = 3;

/// A relation with the type of the note it resolved to.
pub type TypedRelation = (Relation, Option<String>);

/// One note's fields: its observations and its typed relations.
#[derive(Debug, Clone, Copy)]
pub struct NoteFields<'a> {
    pub observations: &'a [Observation],
    pub relations: &'a [TypedRelation],
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldSource {
    Observation,
    Relation,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FieldFrequency {
    pub name: String,
    pub source: FieldSource,
    /// Notes holding the field.
    pub count: usize,
    pub total: usize,
    pub percentage: f64,
    pub sample_values: Vec<String>,
    pub is_array: bool,
    /// For a relation: the type most of its targets have.
    pub target_type: Option<String>,
}

/// A suggested schema with the frequencies it came from.
#[derive(Debug, Clone, PartialEq)]
pub struct Inference {
    pub note_type: String,
    pub notes_analyzed: usize,
    pub field_frequencies: Vec<FieldFrequency>,
    /// Picoschema keys and values, in order (`name: string`, `role?: string`,
    /// `works_at?: Organization`).
    pub suggested_schema: Vec<(String, String)>,
    pub suggested_required: Vec<String>,
    pub suggested_optional: Vec<String>,
    pub excluded: Vec<String>,
}

/// How the notes of a type have moved away from their schema.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drift {
    pub new_fields: Vec<FieldFrequency>,
    pub dropped_fields: Vec<FieldFrequency>,
    pub cardinality_changes: Vec<String>,
}

impl Drift {
    pub fn is_empty(&self) -> bool {
        self.new_fields.is_empty()
            && self.dropped_fields.is_empty()
            && self.cardinality_changes.is_empty()
    }
}

/// Suggests a schema for `notes`; `optional_threshold` is the least share an optional field has.
pub fn infer_schema(note_type: &str, notes: &[NoteFields], optional_threshold: f64) -> Inference {
    let frequencies = frequencies(notes, INFERENCE_SAMPLES);
    let mut inference = Inference {
        note_type: note_type.to_string(),
        notes_analyzed: notes.len(),
        field_frequencies: Vec::new(),
        suggested_schema: Vec::new(),
        suggested_required: Vec::new(),
        suggested_optional: Vec::new(),
        excluded: Vec::new(),
    };
    for freq in &frequencies {
        let required = freq.percentage >= REQUIRED_THRESHOLD;
        if required {
            inference.suggested_required.push(freq.name.clone());
        } else if freq.percentage >= optional_threshold {
            inference.suggested_optional.push(freq.name.clone());
        } else {
            inference.excluded.push(freq.name.clone());
            continue;
        }
        let key = format!(
            "{}{}{}",
            freq.name,
            if required { "" } else { "?" },
            if freq.is_array { "(array)" } else { "" }
        );
        let value = match (&freq.source, &freq.target_type) {
            (FieldSource::Relation, Some(target)) => capitalized(target),
            _ => "string".to_string(),
        };
        // A later field of the same key takes the value and keeps the place, as a dict does.
        match inference
            .suggested_schema
            .iter_mut()
            .find(|(k, _)| *k == key)
        {
            Some(entry) => entry.1 = value,
            None => inference.suggested_schema.push((key, value)),
        }
    }
    inference.field_frequencies = frequencies;
    inference
}

/// Compares `schema` with how `notes` use their fields.
pub fn diff_schema(schema: &SchemaDefinition, notes: &[NoteFields]) -> Drift {
    let total = notes.len();
    let mut drift = Drift::default();
    if total == 0 {
        return drift;
    }
    let frequencies = frequencies(notes, DRIFT_SAMPLES);
    let declared = |name: &str| schema.fields.iter().any(|f| f.name == name);
    // A relation type named like a category stands for both, as upstream's merged lookup has it.
    let usage = |name: &str| frequencies.iter().rev().find(|f| f.name == name);
    drift.new_fields = frequencies
        .iter()
        .filter(|f| !declared(&f.name) && f.percentage >= NEW_FIELD_THRESHOLD)
        .cloned()
        .collect();
    for field in &schema.fields {
        match usage(&field.name) {
            None => drift.dropped_fields.push(FieldFrequency {
                name: field.name.clone(),
                source: if field.is_entity_ref {
                    FieldSource::Relation
                } else {
                    FieldSource::Observation
                },
                count: 0,
                total,
                percentage: 0.0,
                sample_values: Vec::new(),
                is_array: false,
                target_type: None,
            }),
            Some(freq) if freq.percentage < DROPPED_FIELD_THRESHOLD => {
                drift.dropped_fields.push(freq.clone())
            }
            Some(_) => {}
        }
    }
    for field in &schema.fields {
        let Some(freq) = usage(&field.name) else {
            continue;
        };
        if field.is_array && !freq.is_array {
            drift.cardinality_changes.push(format!(
                "{}: schema declares array but usage is typically single-value",
                field.name
            ));
        } else if !field.is_array && freq.is_array {
            drift.cardinality_changes.push(format!(
                "{}: schema declares single-value but usage is typically array",
                field.name
            ));
        }
    }
    drift
}

/// Observation categories, then relation types, each most frequent first (ties in order of
/// first appearance).
fn frequencies(notes: &[NoteFields], samples: usize) -> Vec<FieldFrequency> {
    let observations = notes.iter().map(|n| {
        n.observations
            .iter()
            .map(|o| (o.category.as_str(), o.content.as_str(), None))
            .collect::<Vec<_>>()
    });
    let relations = notes.iter().map(|n| {
        n.relations
            .iter()
            .map(|(r, target)| {
                (
                    r.relation_type.as_str(),
                    r.target.as_str(),
                    target.as_deref(),
                )
            })
            .collect::<Vec<_>>()
    });
    let mut all = tally(observations, notes.len(), samples, FieldSource::Observation);
    all.extend(tally(
        relations,
        notes.len(),
        samples,
        FieldSource::Relation,
    ));
    all
}

/// Per field name: the notes holding it, those holding it more than once, its first distinct
/// values and its targets' types.
#[derive(Default)]
struct Tally<'a> {
    notes: usize,
    multi: usize,
    samples: Vec<String>,
    targets: Vec<(&'a str, usize)>,
}

fn tally<'a>(
    per_note: impl Iterator<Item = Vec<(&'a str, &'a str, Option<&'a str>)>>,
    total: usize,
    samples: usize,
    source: FieldSource,
) -> Vec<FieldFrequency> {
    let mut fields: Vec<(&str, Tally)> = Vec::new();
    for items in per_note {
        let mut in_note: Vec<(&str, usize)> = Vec::new();
        for (name, value, target) in items {
            let index = match fields.iter().position(|(n, _)| *n == name) {
                Some(index) => index,
                None => {
                    fields.push((name, Tally::default()));
                    fields.len() - 1
                }
            };
            match in_note.iter_mut().find(|(n, _)| *n == name) {
                Some(seen) => seen.1 += 1,
                None => in_note.push((name, 1)),
            }
            let tally = &mut fields[index].1;
            if !tally.samples.iter().any(|s| s == value) && tally.samples.len() < samples {
                tally.samples.push(value.to_string());
            }
            if let Some(target) = target {
                match tally.targets.iter_mut().find(|(t, _)| *t == target) {
                    Some(seen) => seen.1 += 1,
                    None => tally.targets.push((target, 1)),
                }
            }
        }
        for (name, count) in in_note {
            if let Some((_, tally)) = fields.iter_mut().find(|(n, _)| *n == name) {
                tally.notes += 1;
                tally.multi += usize::from(count > 1);
            }
        }
    }
    // Stable: equal counts keep their order of first appearance, as Counter.most_common.
    fields.sort_by_key(|(_, tally)| std::cmp::Reverse(tally.notes));
    fields
        .into_iter()
        .map(|(name, tally)| FieldFrequency {
            name: name.to_string(),
            source,
            count: tally.notes,
            total,
            percentage: tally.notes as f64 / total as f64,
            sample_values: tally.samples,
            is_array: tally.multi * 2 > tally.notes,
            target_type: most_common(&tally.targets),
        })
        .collect()
}

/// The first of the most frequent, as Counter.most_common(1).
fn most_common(counts: &[(&str, usize)]) -> Option<String> {
    let best = counts.iter().map(|(_, c)| *c).max()?;
    counts
        .iter()
        .find(|(_, c)| *c == best)
        .map(|(t, _)| t.to_string())
}

fn capitalized(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_body;
    use crate::schema::parse_schema_note;
    use serde_json::json;

    type Note = (Vec<Observation>, Vec<TypedRelation>);

    /// Notes from bodies; every relation's target is a note of type `organization`.
    fn notes(bodies: &[&str]) -> Vec<Note> {
        bodies
            .iter()
            .map(|body| {
                let (observations, relations) = parse_body(body, "");
                let typed = relations
                    .into_iter()
                    .map(|r| (r, Some("organization".to_string())))
                    .collect();
                (observations, typed)
            })
            .collect()
    }

    fn fields(notes: &[Note]) -> Vec<NoteFields<'_>> {
        notes
            .iter()
            .map(|(o, r)| NoteFields {
                observations: o,
                relations: r,
            })
            .collect()
    }

    #[test]
    fn frequencies_split_fields_into_required_optional_and_excluded() {
        let mut bodies = vec!["- [name] A\n- [role] x\n- works_at [[Acme]]\n"; 3];
        bodies.push("- [name] B\n- [expertise] a\n- [expertise] b\n");
        bodies.push("- [name] C\n- [expertise] c\n- [expertise] d\n- [expertise] e\n");
        bodies.extend(["- [name] D\n"; 15]);
        let notes = notes(&bodies);
        // name 20/20, role 3/20 = 15%, works_at 3/20, expertise 2/20 = 10%.
        type Case<'a> = (f64, &'a [(&'a str, &'a str)], &'a [&'a str]);
        let cases: [Case; 3] = [
            (
                0.25,
                &[("name", "string")],
                &["role", "expertise", "works_at"],
            ),
            (
                0.15,
                &[
                    ("name", "string"),
                    ("role?", "string"),
                    ("works_at?", "Organization"),
                ],
                &["expertise"],
            ),
            (
                0.10,
                &[
                    ("name", "string"),
                    ("role?", "string"),
                    ("expertise?(array)", "string"),
                    ("works_at?", "Organization"),
                ],
                &[],
            ),
        ];
        for (threshold, schema, excluded) in cases {
            let inferred = infer_schema("person", &fields(&notes), threshold);
            let got: Vec<(&str, &str)> = inferred
                .suggested_schema
                .iter()
                .map(|(k, v)| (k.as_str(), v.as_str()))
                .collect();
            assert_eq!(got, schema, "{threshold}");
            assert_eq!(inferred.excluded, excluded, "{threshold}");
            assert_eq!(inferred.suggested_required, ["name"]);
            assert_eq!(inferred.notes_analyzed, 20);
        }
        let inferred = infer_schema("person", &fields(&notes), 0.25);
        let name = &inferred.field_frequencies[0];
        assert_eq!((name.count, name.total, name.percentage), (20, 20, 1.0));
        assert_eq!(name.sample_values, ["A", "B", "C", "D"]);
        assert_eq!(
            inferred.field_frequencies[3].target_type.as_deref(),
            Some("organization")
        );
    }

    #[test]
    fn drift_reports_new_dropped_and_cardinality_changes() {
        let fm = json!({"entity": "Person", "schema": {
            "name": "string", "email?": "string", "tags?(array)": "string", "role": "string", "boss?": "Person",
        }});
        let schema = parse_schema_note(fm.as_object().unwrap()).unwrap();
        let mut bodies = vec!["- [name] A\n- [role] x\n- [role] y\n- [tags] t\n- [hobby] h\n"; 5];
        bodies.extend(["- [name] B\n- [email] e\n"; 5]);
        bodies.extend(["- [name] C\n"; 10]);
        let notes = notes(&bodies);
        let drift = diff_schema(&schema, &fields(&notes));
        let names = |list: &[FieldFrequency]| {
            list.iter()
                .map(|f| (f.name.clone(), f.count))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&drift.new_fields), [("hobby".to_string(), 5)]);
        assert_eq!(names(&drift.dropped_fields), [("boss".to_string(), 0)]);
        assert_eq!(drift.dropped_fields[0].source, FieldSource::Relation);
        assert_eq!(
            drift.cardinality_changes,
            [
                "tags: schema declares array but usage is typically single-value",
                "role: schema declares single-value but usage is typically array",
            ]
        );
        assert!(diff_schema(&schema, &[]).is_empty());
    }
}
