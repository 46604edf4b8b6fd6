//! The schema tools' answers in Basic Memory's words (its `mcp/tools/schema.py`): the
//! validation, inference and drift reports as markdown or as its pydantic JSON (`None`s left
//! out), and the guidance that replaces a report. Upstream's guidance names its own commands
//! (`basic-memory status`, `basic-memory db reindex --search`); these name gitmem's.

use serde_json::{json, Map, Value};

use super::{Format, Rendered};
use engine::schema::{DriftReport, SchemaRefusal, Tally, ValidationReport};
use engine::Outcome;
use note::schema::infer::{FieldFrequency, FieldSource, Inference};
use note::schema::validate::{FieldStatus, NoteValidation};

/// The three tools, for the texts they share.
#[derive(Debug, Clone, Copy)]
enum Tool {
    Validate,
    Infer,
    Diff,
}

impl Tool {
    fn name(self) -> &'static str {
        match self {
            Tool::Validate => "schema_validate",
            Tool::Infer => "schema_infer",
            Tool::Diff => "schema_diff",
        }
    }
}

/// schema_validate's answer.
pub fn validate(outcome: &Outcome<ValidationReport, SchemaRefusal>, format: Format) -> Rendered {
    match outcome {
        Outcome::Done(report) => Rendered::either(
            format,
            || validation_text(report),
            || validation_json(report),
        ),
        Outcome::Refused(refusal) => refused(Tool::Validate, "", refusal, format),
    }
}

/// schema_infer's answer; `note_type` as asked.
pub fn infer(
    note_type: &str,
    outcome: &Outcome<Inference, SchemaRefusal>,
    format: Format,
) -> Rendered {
    match outcome {
        Outcome::Done(inference) => Rendered::either(
            format,
            || inference_text(inference),
            || inference_json(inference),
        ),
        Outcome::Refused(refusal) => refused(Tool::Infer, note_type, refusal, format),
    }
}

/// schema_diff's answer; `note_type` as asked.
pub fn diff(
    note_type: &str,
    outcome: &Outcome<DriftReport, SchemaRefusal>,
    format: Format,
) -> Rendered {
    match outcome {
        Outcome::Done(report) => {
            Rendered::either(format, || drift_text(report), || drift_json(report))
        }
        Outcome::Refused(refusal) => refused(Tool::Diff, note_type, refusal, format),
    }
}

/// Python's `f"{x:.0%}"` (both round half to even).
fn percent(share: f64) -> String {
    format!("{:.0}%", share * 100.0)
}

/// Python's `str.title()`: each run of letters starts upper case and goes on lower case.
fn python_title(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_word = false;
    for c in text.chars() {
        if in_word {
            out.extend(c.to_lowercase());
        } else {
            out.extend(c.to_uppercase());
        }
        in_word = c.is_alphabetic();
    }
    out
}

fn validation_text(report: &ValidationReport) -> String {
    let tally = Tally::of(&report.results);
    let mut lines = vec![
        format!(
            "# Schema Validation: {}",
            report.note_type.as_deref().unwrap_or("all")
        ),
        String::new(),
        format!(
            "Notes: {} | Valid: {} | Warnings: {} | Errors: {}",
            tally.notes, tally.valid, tally.warnings, tally.errors
        ),
        String::new(),
    ];
    if !report.type_summaries.is_empty() {
        lines.extend(["## By Type".to_string(), String::new()]);
        for summary in &report.type_summaries {
            lines.push(if summary.total_entities == 0 {
                format!("- **{}**: no notes", summary.note_type)
            } else {
                format!(
                    "- **{}**: {}/{} valid",
                    summary.note_type, summary.tally.valid, summary.tally.notes
                )
            });
        }
        lines.push(String::new());
    }
    for result in &report.results {
        let status = if result.passed { "valid" } else { "INVALID" };
        lines.push(format!("- **{}** — {status}", result.note_identifier));
        lines.extend(result.warnings.iter().map(|w| format!("  - warning: {w}")));
        lines.extend(result.errors.iter().map(|e| format!("  - error: {e}")));
    }
    lines.join("\n")
}

fn validation_json(report: &ValidationReport) -> Value {
    let tally = Tally::of(&report.results);
    let mut answer = Map::new();
    if let Some(note_type) = &report.note_type {
        answer.insert("note_type".into(), json!(note_type));
    }
    let summaries: Vec<Value> = report
        .type_summaries
        .iter()
        .map(|s| {
            json!({
                "note_type": s.note_type,
                "total_notes": s.tally.notes,
                "total_entities": s.total_entities,
                "valid_count": s.tally.valid,
                "warning_count": s.tally.warnings,
                "error_count": s.tally.errors,
            })
        })
        .collect();
    for (key, value) in [
        ("total_notes", json!(tally.notes)),
        ("total_entities", json!(report.total_entities)),
        ("valid_count", json!(tally.valid)),
        ("warning_count", json!(tally.warnings)),
        ("error_count", json!(tally.errors)),
        (
            "results",
            Value::Array(report.results.iter().map(note_json).collect()),
        ),
        ("type_summaries", Value::Array(summaries)),
    ] {
        answer.insert(key.into(), value);
    }
    Value::Object(answer)
}

fn note_json(result: &NoteValidation) -> Value {
    let fields: Vec<Value> = result
        .field_results
        .iter()
        .map(|f| {
            let mut field = json!({
                "field_name": f.field.name,
                "field_type": f.field.field_type,
                "required": f.field.required,
                "status": match f.status {
                    FieldStatus::Present => "present",
                    FieldStatus::Missing => "missing",
                    FieldStatus::EnumMismatch => "enum_mismatch",
                },
                "values": f.values,
            });
            if let Some(message) = &f.message {
                field["message"] = json!(message);
            }
            field
        })
        .collect();
    let unmatched: Map<String, Value> = result
        .unmatched_observations
        .iter()
        .map(|(category, count)| (category.clone(), json!(count)))
        .collect();
    json!({
        "note_identifier": result.note_identifier,
        "schema_entity": result.schema_entity,
        "passed": result.passed,
        "field_results": fields,
        "unmatched_observations": unmatched,
        "unmatched_relations": result.unmatched_relations,
        "warnings": result.warnings,
        "errors": result.errors,
    })
}

fn source(source: FieldSource) -> &'static str {
    match source {
        FieldSource::Observation => "observation",
        FieldSource::Relation => "relation",
    }
}

fn inference_text(report: &Inference) -> String {
    let mut lines = vec![
        format!("# Schema Inference: {}", report.note_type),
        String::new(),
        format!("Notes analyzed: {}", report.notes_analyzed),
        String::new(),
    ];
    if !report.suggested_schema.is_empty() {
        lines.extend(
            [
                "## Suggested Schema",
                "",
                "```yaml",
                "---",
                &format!("title: {}", python_title(&report.note_type)),
                "type: schema",
                &format!("entity: {}", report.note_type),
                "version: 1",
                "schema:",
            ]
            .map(String::from),
        );
        lines.extend(
            report
                .suggested_schema
                .iter()
                .map(|(key, value)| format!("  {key}: {value}")),
        );
        lines.extend(["---", "```", ""].map(String::from));
    }
    if !report.field_frequencies.is_empty() {
        lines.extend(["## Field Frequencies".to_string(), String::new()]);
        for f in &report.field_frequencies {
            let marker = if report.suggested_required.contains(&f.name) {
                "required"
            } else {
                "optional"
            };
            let samples: Vec<&str> = f.sample_values.iter().take(3).map(String::as_str).collect();
            let samples = if samples.is_empty() {
                String::new()
            } else {
                format!(" (e.g. {})", samples.join(", "))
            };
            lines.push(format!(
                "- **{}** ({}) — {} ({}/{}) [{marker}]{samples}",
                f.name,
                source(f.source),
                percent(f.percentage),
                f.count,
                f.total
            ));
        }
        lines.push(String::new());
    }
    if !report.excluded.is_empty() {
        lines.extend(["## Excluded (below threshold)".to_string(), String::new()]);
        lines.extend(report.excluded.iter().map(|name| format!("- {name}")));
        lines.push(String::new());
    }
    lines.join("\n")
}

fn inference_json(report: &Inference) -> Value {
    let frequencies: Vec<Value> = report
        .field_frequencies
        .iter()
        .map(|f| {
            let mut freq = json!({
                "name": f.name,
                "source": source(f.source),
                "count": f.count,
                "total": f.total,
                "percentage": f.percentage,
                "sample_values": f.sample_values,
                "is_array": f.is_array,
            });
            if let Some(target) = &f.target_type {
                freq["target_type"] = json!(target);
            }
            freq
        })
        .collect();
    let schema: Map<String, Value> = report
        .suggested_schema
        .iter()
        .map(|(key, value)| (key.clone(), json!(value)))
        .collect();
    json!({
        "note_type": report.note_type,
        "notes_analyzed": report.notes_analyzed,
        "field_frequencies": frequencies,
        "suggested_schema": schema,
        "suggested_required": report.suggested_required,
        "suggested_optional": report.suggested_optional,
        "excluded": report.excluded,
    })
}

fn drift_field_line(f: &FieldFrequency) -> String {
    format!(
        "- **{}** ({}) — {} ({}/{})",
        f.name,
        source(f.source),
        percent(f.percentage),
        f.count,
        f.total
    )
}

fn drift_text(report: &DriftReport) -> String {
    let drift = &report.drift;
    let mut lines = vec![
        format!("# Schema Drift: {}", report.note_type),
        String::new(),
    ];
    if drift.is_empty() {
        lines.push("No drift detected — schema matches actual usage.".into());
        return lines.join("\n");
    }
    for (heading, fields) in [
        (
            "## New Fields (in notes but not in schema)",
            &drift.new_fields,
        ),
        (
            "## Dropped Fields (in schema but rare in notes)",
            &drift.dropped_fields,
        ),
    ] {
        if !fields.is_empty() {
            lines.extend([heading.to_string(), String::new()]);
            lines.extend(fields.iter().map(drift_field_line));
            lines.push(String::new());
        }
    }
    if !drift.cardinality_changes.is_empty() {
        lines.extend(["## Cardinality Changes".to_string(), String::new()]);
        lines.extend(drift.cardinality_changes.iter().map(|c| format!("- {c}")));
        lines.push(String::new());
    }
    lines.join("\n")
}

fn drift_json(report: &DriftReport) -> Value {
    let fields = |list: &[FieldFrequency]| -> Vec<Value> {
        list.iter()
            .map(|f| {
                json!({
                    "name": f.name,
                    "source": source(f.source),
                    "count": f.count,
                    "total": f.total,
                    "percentage": f.percentage,
                })
            })
            .collect()
    };
    json!({
        "note_type": report.note_type,
        "schema_found": true,
        "new_fields": fields(&report.drift.new_fields),
        "dropped_fields": fields(&report.drift.dropped_fields),
        "cardinality_changes": report.drift.cardinality_changes,
    })
}

/// The guidance (or, as JSON, `{"error": ...}`) that replaces a report.
fn refused(tool: Tool, asked: &str, refusal: &SchemaRefusal, format: Format) -> Rendered {
    let name = tool.name();
    let (text, error) = match refusal {
        SchemaRefusal::NoSchemasDefined => (
            no_schemas_defined(name),
            "No schemas defined in this project".to_string(),
        ),
        SchemaRefusal::NoNotesOfType(t) => {
            (no_notes(t, name), format!("No notes found of type '{t}'"))
        }
        SchemaRefusal::NoSchemaFound(t) => (
            no_schema(t, name),
            format!("No schema found for type '{t}'"),
        ),
        SchemaRefusal::NoPattern {
            note_type,
            notes_analyzed,
            threshold,
        } => (
            no_pattern(note_type, *notes_analyzed, *threshold),
            format!(
                "No schema pattern found for '{note_type}' (threshold: {})",
                percent(*threshold)
            ),
        ),
        SchemaRefusal::Invalid(e) => failed(tool, asked, &e.to_string()),
    };
    Rendered::either(format, || text, || json!({ "error": error }))
}

fn no_notes(note_type: &str, tool: &str) -> String {
    format!(
        "# No Notes Found of Type '{note_type}'\n\n\
         `{tool}` found no notes with type '{note_type}' in the project.\n\n\
         ## Next Steps\n\n\
         1. **Create notes of this type** — use `write_note` with `note_type=\"{note_type}\"` to create notes\n\
         2. **Check existing types** — use `search_notes` with `note_types` filter to see what types exist\n\
         3. **Browse content** — use `list_directory` or `recent_activity` to see what's in the project\n"
    )
}

fn no_schemas_defined(tool: &str) -> String {
    format!(
        "# No Schemas Defined\n\n\
         `{tool}` was called without `note_type` or `identifier`, which validates every note type \
         that has a schema — but this project has no schema notes yet, so there is nothing to validate.\n\n\
         ## Next Steps\n\n\
         1. **Infer a schema** — run `schema_infer(\"<note_type>\")` to analyze existing notes and get a suggested schema\n\
         2. **Create a schema note** — write a note with `type: schema` and an `entity` field naming the note type it validates\n\
         3. **Re-run** — call `{tool}()` again once a schema exists\n"
    )
}

fn no_schema(note_type: &str, tool: &str) -> String {
    format!(
        "# No Schema Found for '{note_type}'\n\n\
         `{tool}` requires a schema note to exist for type '{note_type}'.\n\n\
         ## How to Create a Schema\n\n\
         1. **Infer from existing notes** — run `schema_infer(\"{note_type}\")` to analyze your notes and get a suggested schema\n\
         2. **Create a schema note** — write a markdown file with this frontmatter:\n\n\
         ```yaml\n---\ntitle: {title}\ntype: schema\nentity: {note_type}\nversion: 1\nschema:\n  name: string, full name\n  role?: string, job title\nsettings:\n  validation: warn\n---\n```\n\n\
         Schema fields use Picoschema notation:\n\
         - `field_name: type, description` — required field\n\
         - `field_name?: type, description` — optional field\n\
         - Supported types: `string`, `number`, `boolean`, `string[]`\n\n\
         3. **Index** — run `gitmem reindex` or wait for the file watcher to pick up the new schema note\n\
         4. **Re-run** — call `{tool}(\"{note_type}\")` again\n",
        title = python_title(note_type)
    )
}

fn no_pattern(note_type: &str, analyzed: usize, threshold: f64) -> String {
    format!(
        "# No Schema Pattern Found\n\n\
         Analyzed {analyzed} notes of type '{note_type}', but no observation or relation appeared in \
         enough notes to suggest a schema (threshold: {pct}).\n\n\
         This usually means '{note_type}' is too broad — the notes don't share a consistent structure.\n\n\
         ## Suggestions\n\
         1. **Use a more specific type** — try `search_notes` with `note_types` filter to see what types exist\n\
         2. **Lower the threshold** — `schema_infer(\"{note_type}\", threshold=0.1)` to include rarer fields\n\
         3. **Create typed notes** — use `write_note` with a specific `note_type` (e.g., \"person\", \"meeting\") to build consistent structure\n",
        pct = percent(threshold)
    )
}

/// A schema that cannot be read: the text and the JSON error of the tool's failure.
fn failed(tool: Tool, note_type: &str, error: &str) -> (String, String) {
    match tool {
        Tool::Validate => (
            format!(
                "# Schema Validation Failed\n\n\
                 Error validating schemas: {error}\n\n\
                 ## Troubleshooting\n\
                 1. Ensure schema notes exist (type: schema) for the target note type\n\
                 2. Check that notes have the correct type in frontmatter\n\
                 3. Verify the project has been indexed: `gitmem status`\n"
            ),
            format!("Schema validation failed: {error}"),
        ),
        Tool::Infer => (
            format!(
                "# Schema Inference Failed\n\n\
                 Error inferring schema for type '{note_type}': {error}\n\n\
                 ## Troubleshooting\n\
                 1. Ensure notes of type '{note_type}' exist in the project\n\
                 2. Try searching: `search_notes(\"{note_type}\", note_types=[\"{note_type}\"])`\n\
                 3. Verify the project has been indexed: `gitmem status`\n"
            ),
            format!("Schema inference failed: {error}"),
        ),
        Tool::Diff => (
            format!(
                "# Schema Diff Failed\n\n\
                 Error detecting drift for type '{note_type}': {error}\n\n\
                 ## Troubleshooting\n\
                 1. Ensure a schema note exists for type '{note_type}'\n\
                 2. Ensure notes of type '{note_type}' exist in the project\n\
                 3. Verify the project has been indexed: `gitmem status`\n"
            ),
            format!("Schema diff failed: {error}"),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentages_and_titles_format_as_python_does() {
        for (share, text) in [
            (0.125, "12%"),
            (0.375, "38%"),
            (2.0 / 3.0, "67%"),
            (1.0, "100%"),
            (0.25, "25%"),
        ] {
            assert_eq!(percent(share), text, "{share}");
        }
        for (raw, titled) in [
            ("person", "Person"),
            ("software_project", "Software_Project"),
            ("2nd type", "2Nd Type"),
            ("ÉCOLE", "École"),
        ] {
            assert_eq!(python_title(raw), titled);
        }
    }
}
