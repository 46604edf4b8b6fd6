//! One note checked against a schema, as upstream's `picoschema.validator`: a field is an
//! observation category, or a relation type when its type names an entity; a missing required
//! field or a value outside an enum is a warning, or an error under `validation: strict`.
//! Observations and relations the schema does not declare are reported, never faulted.

use serde_json::{Map, Value};

use super::{python_str, SchemaDefinition, SchemaField, ValidationMode};
use crate::{Observation, Relation};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldStatus {
    Present,
    Missing,
    EnumMismatch,
}

/// What one declared field found in the note.
#[derive(Debug, Clone, PartialEq)]
pub struct FieldResult {
    pub field: SchemaField,
    pub status: FieldStatus,
    pub values: Vec<String>,
    pub message: Option<String>,
}

/// One note's check.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteValidation {
    pub note_identifier: String,
    pub schema_entity: String,
    /// No errors (warnings allowed).
    pub passed: bool,
    pub field_results: Vec<FieldResult>,
    /// Categories the schema does not declare, with their counts, in the note's order.
    pub unmatched_observations: Vec<(String, usize)>,
    pub unmatched_relations: Vec<String>,
    pub warnings: Vec<String>,
    pub errors: Vec<String>,
}

/// Checks a note's observations, relations and (for `settings.frontmatter`) front matter.
pub fn validate_note(
    note_identifier: &str,
    schema: &SchemaDefinition,
    observations: &[Observation],
    relations: &[Relation],
    frontmatter: &Map<String, Value>,
) -> NoteValidation {
    let by_category = grouped(observations.iter().map(|o| (&o.category, &o.content)));
    let by_relation = grouped(relations.iter().map(|r| (&r.relation_type, &r.target)));
    let mut result = NoteValidation {
        note_identifier: note_identifier.to_string(),
        schema_entity: schema.entity.clone(),
        passed: true,
        field_results: Vec::new(),
        unmatched_observations: Vec::new(),
        unmatched_relations: Vec::new(),
        warnings: Vec::new(),
        errors: Vec::new(),
    };
    let mut matched_categories = Vec::new();
    let mut matched_relations = Vec::new();
    for field in &schema.fields {
        let checked = if field.is_entity_ref {
            matched_relations.push(field.name.as_str());
            relation_field(field, &by_relation)
        } else {
            matched_categories.push(field.name.as_str());
            observation_field(field, &by_category)
        };
        let issue = match checked.status {
            FieldStatus::Missing if field.required => Some(missing_message(field)),
            FieldStatus::EnumMismatch => checked.message.clone(),
            _ => None,
        };
        result.field_results.push(checked);
        if let Some(issue) = issue {
            result.record(issue, schema.mode);
        }
    }
    for field in &schema.frontmatter_fields {
        let checked = frontmatter_field(field, frontmatter);
        let issue = match checked.status {
            FieldStatus::Missing if field.required => {
                Some(format!("Missing required frontmatter key: {}", field.name))
            }
            FieldStatus::EnumMismatch => checked.message.clone(),
            _ => None,
        };
        result.field_results.push(checked);
        if let Some(issue) = issue {
            result.record(issue, schema.mode);
        }
    }
    result.unmatched_observations = by_category
        .iter()
        .filter(|(category, _)| !matched_categories.contains(&category.as_str()))
        .map(|(category, values)| (category.clone(), values.len()))
        .collect();
    result.unmatched_relations = by_relation
        .iter()
        .filter(|(kind, _)| !matched_relations.contains(&kind.as_str()))
        .map(|(kind, _)| kind.clone())
        .collect();
    result
}

impl NoteValidation {
    fn record(&mut self, message: String, mode: ValidationMode) {
        match mode {
            ValidationMode::Warn => self.warnings.push(message),
            ValidationMode::Strict => {
                self.errors.push(message);
                self.passed = false;
            }
        }
    }
}

/// Values by key, keys in order of first appearance.
fn grouped<'a>(
    pairs: impl Iterator<Item = (&'a String, &'a String)>,
) -> Vec<(String, Vec<String>)> {
    let mut groups: Vec<(String, Vec<String>)> = Vec::new();
    for (key, value) in pairs {
        match groups.iter_mut().find(|(k, _)| k == key) {
            Some((_, values)) => values.push(value.clone()),
            None => groups.push((key.clone(), vec![value.clone()])),
        }
    }
    groups
}

fn values_of<'a>(groups: &'a [(String, Vec<String>)], name: &str) -> &'a [String] {
    groups
        .iter()
        .find(|(k, _)| k == name)
        .map_or(&[], |(_, values)| values.as_slice())
}

fn result(
    field: &SchemaField,
    status: FieldStatus,
    values: Vec<String>,
    message: Option<String>,
) -> FieldResult {
    FieldResult {
        field: field.clone(),
        status,
        values,
        message,
    }
}

fn relation_field(field: &SchemaField, by_relation: &[(String, Vec<String>)]) -> FieldResult {
    let targets = values_of(by_relation, &field.name);
    if targets.is_empty() {
        let message = format!(
            "Missing relation: {0} (no '{0} [[...]]' relation found)",
            field.name
        );
        return result(field, FieldStatus::Missing, Vec::new(), Some(message));
    }
    result(field, FieldStatus::Present, targets.to_vec(), None)
}

fn observation_field(field: &SchemaField, by_category: &[(String, Vec<String>)]) -> FieldResult {
    let values = values_of(by_category, &field.name);
    if values.is_empty() {
        return result(
            field,
            FieldStatus::Missing,
            Vec::new(),
            Some(missing_message(field)),
        );
    }
    let invalid: Vec<&str> = values
        .iter()
        .filter(|v| field.is_enum && !field.enum_values.contains(v))
        .map(String::as_str)
        .collect();
    if invalid.is_empty() {
        return result(field, FieldStatus::Present, values.to_vec(), None);
    }
    let message = format!(
        "Field '{}' has invalid value(s): {} (allowed: {})",
        field.name,
        invalid.join(", "),
        field.enum_values.join(", ")
    );
    result(
        field,
        FieldStatus::EnumMismatch,
        values.to_vec(),
        Some(message),
    )
}

fn frontmatter_field(field: &SchemaField, frontmatter: &Map<String, Value>) -> FieldResult {
    let value = match frontmatter.get(&field.name) {
        None | Some(Value::Null) => {
            let message = format!("Missing frontmatter key: {}", field.name);
            return result(field, FieldStatus::Missing, Vec::new(), Some(message));
        }
        Some(value) => value,
    };
    if field.is_enum {
        let text = python_str(value);
        if !field.enum_values.contains(&text) {
            let message = format!(
                "Frontmatter key '{}' has invalid value: {text} (allowed: {})",
                field.name,
                field.enum_values.join(", ")
            );
            return result(field, FieldStatus::EnumMismatch, vec![text], Some(message));
        }
        return result(field, FieldStatus::Present, vec![text], None);
    }
    let values = match value {
        Value::Array(items) => items.iter().map(python_str).collect(),
        other => vec![python_str(other)],
    };
    result(field, FieldStatus::Present, values, None)
}

fn missing_message(field: &SchemaField) -> String {
    let kind = if field.required {
        "required"
    } else {
        "optional"
    };
    if field.is_entity_ref {
        format!(
            "Missing {kind} field: {0} (no '{0} [[...]]' relation found)",
            field.name
        )
    } else {
        format!(
            "Missing {kind} field: {0} (expected [{0}] observation)",
            field.name
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse::parse_body;
    use crate::schema::parse_schema_note;
    use serde_json::json;

    fn schema(mode: &str) -> SchemaDefinition {
        let fm = json!({
            "entity": "Person",
            "schema": {
                "name": "string, full name",
                "role?": "string",
                "works_at?": "Organization",
                "mentor": "Person",
                "level?(enum)": ["junior", "senior"],
            },
            "settings": {"validation": mode, "frontmatter": {"status(enum)": ["active"], "tags?": "string"}},
        });
        parse_schema_note(fm.as_object().unwrap()).unwrap()
    }

    fn check(mode: &str, body: &str, fm: Value) -> NoteValidation {
        let (observations, relations) = parse_body(body, "");
        validate_note(
            "Ada",
            &schema(mode),
            &observations,
            &relations,
            fm.as_object().unwrap(),
        )
    }

    #[test]
    fn missing_required_fields_warn_or_fail_by_mode() {
        let body = "- [role] engineer\n- [hobby] chess\n- [hobby] go\n- knows [[Bob]]\n";
        let warned = check("warn", body, json!({"status": "active"}));
        assert!(warned.passed);
        assert_eq!(
            warned.warnings,
            [
                "Missing required field: name (expected [name] observation)",
                "Missing required field: mentor (no 'mentor [[...]]' relation found)",
            ]
        );
        assert!(warned.errors.is_empty());
        assert_eq!(warned.unmatched_observations, [("hobby".to_string(), 2)]);
        assert_eq!(warned.unmatched_relations, ["knows"]);
        let statuses: Vec<_> = warned
            .field_results
            .iter()
            .map(|r| (r.field.name.as_str(), r.status))
            .collect();
        assert_eq!(
            statuses,
            [
                ("name", FieldStatus::Missing),
                ("role", FieldStatus::Present),
                ("works_at", FieldStatus::Missing),
                ("mentor", FieldStatus::Missing),
                ("level", FieldStatus::Missing),
                ("status", FieldStatus::Present),
                ("tags", FieldStatus::Missing),
            ]
        );
        assert_eq!(
            warned.field_results[2].message.as_deref(),
            Some("Missing relation: works_at (no 'works_at [[...]]' relation found)")
        );

        let failed = check("strict", body, json!({}));
        assert!(!failed.passed);
        assert_eq!(failed.errors.len(), 3, "{:?}", failed.errors);
        assert_eq!(failed.errors[2], "Missing required frontmatter key: status");
        assert!(failed.warnings.is_empty());
    }

    #[test]
    fn enum_values_outside_the_set_are_issues_even_when_optional() {
        let body = "- [name] Ada\n- [level] guru\n- mentor [[Babbage]]\n";
        let checked = check("warn", body, json!({"status": "retired"}));
        assert_eq!(
            checked.warnings,
            [
                "Field 'level' has invalid value(s): guru (allowed: junior, senior)",
                "Frontmatter key 'status' has invalid value: retired (allowed: active)",
            ]
        );
        let valid = check(
            "strict",
            "- [name] Ada\n- [level] senior\n- mentor [[B]]\n",
            json!({"status": "active", "tags": ["a", "b"]}),
        );
        assert!(valid.passed, "{:?}", valid.errors);
        assert_eq!(valid.field_results[6].values, ["a", "b"]);
    }
}
