//! Picoschema, as Basic Memory reads it (its `picoschema` package): a schema is a note with
//! `type: schema`, `entity: <note type>` and a `schema:` mapping of field declarations
//! (`name: string, description`, `role?: string`, `tags?(array): string`,
//! `status?(enum): [a, b]`, `works_at?: Organization` for a relation); a note may also carry its
//! own `schema:` mapping, or name a schema note by a string. A note's fields are its observation
//! categories and relation types; `settings.frontmatter` declares front matter keys. `validate`
//! checks one note against a schema, `infer` suggests a schema from notes and reports drift.
//! Pure: the notes and schema notes come from the caller.

pub mod infer;
pub mod validate;

use serde_json::{Map, Value};

/// One declared field.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaField {
    pub name: String,
    /// `string`, `integer`, `number`, `boolean`, `any`, `enum`, `object`, or an entity name.
    pub field_type: String,
    pub required: bool,
    pub is_array: bool,
    pub is_enum: bool,
    pub enum_values: Vec<String>,
    pub description: Option<String>,
    /// A capitalised type that is no scalar: the field is a relation to such a note.
    pub is_entity_ref: bool,
    pub children: Vec<SchemaField>,
}

/// `settings.validation`: what a failed check is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValidationMode {
    /// A warning; the note passes.
    Warn,
    /// An error; the note fails (and write_note refuses it).
    Strict,
}

/// A schema ready to check notes with.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaDefinition {
    /// The note type it describes (the schema note's `entity`, an inline schema's note `type`).
    pub entity: String,
    pub fields: Vec<SchemaField>,
    pub mode: ValidationMode,
    /// `settings.frontmatter`: front matter keys declared like fields.
    pub frontmatter_fields: Vec<SchemaField>,
}

/// A schema its author must fix, in Basic Memory's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SchemaError {
    #[error("Schema note missing required 'entity' field in frontmatter")]
    MissingEntity,
    #[error("Schema note missing required 'schema' dict in frontmatter")]
    MissingSchema,
    /// The value as Python's `repr` shows it, as upstream's message does.
    #[error("Invalid settings.validation value {0}; expected one of: 'warn', 'strict', or 'error' (alias for 'strict')")]
    InvalidMode(String),
}

const SCALAR_TYPES: [&str; 5] = ["string", "integer", "number", "boolean", "any"];

/// Parses a `schema:` mapping into its fields, in order.
pub fn parse_picoschema(schema: &Map<String, Value>) -> Vec<SchemaField> {
    schema
        .iter()
        .map(|(key, value)| parse_field(key, value))
        .collect()
}

fn parse_field(key: &str, value: &Value) -> SchemaField {
    let (key, modifier, key_description) = split_modifier(key);
    let (name, required) = match key.strip_suffix('?') {
        Some(name) => (name.trim(), false),
        None => (key.trim(), true),
    };
    let field = SchemaField {
        name: name.to_string(),
        field_type: String::new(),
        required,
        is_array: modifier == Some("array"),
        is_enum: false,
        enum_values: Vec::new(),
        description: key_description.clone(),
        is_entity_ref: false,
        children: Vec::new(),
    };
    if modifier == Some("enum") {
        let (enum_values, value_description) = match value {
            Value::Array(items) => (items.iter().map(python_str).collect(), None),
            other => enum_string(&python_str(other)),
        };
        return SchemaField {
            field_type: "enum".into(),
            is_enum: true,
            enum_values,
            description: key_description.or(value_description),
            ..field
        };
    }
    if modifier == Some("object") || value.is_object() {
        return SchemaField {
            field_type: "object".into(),
            is_array: false,
            children: value.as_object().map(parse_picoschema).unwrap_or_default(),
            ..field
        };
    }
    let text = python_str(value);
    let (field_type, value_description) = match text.split_once(',') {
        Some((t, d)) => (t.trim().to_string(), Some(d.trim().to_string())),
        None => (text.trim().to_string(), None),
    };
    let is_entity_ref = !SCALAR_TYPES.contains(&field_type.as_str())
        && field_type.chars().next().is_some_and(char::is_uppercase);
    SchemaField {
        field_type,
        description: key_description.or(value_description),
        is_entity_ref,
        ..field
    }
}

/// Splits `name(modifier, description)` into the key before it, the modifier and the
/// description. Only the parenthesis paired with the final `)` opens a modifier, and only
/// `array`, `enum` and `object` are modifiers, so `risk(score)` stays a name.
fn split_modifier(key: &str) -> (&str, Option<&str>, Option<String>) {
    let stripped = key.trim_end();
    if !stripped.ends_with(')') {
        return (key, None, None);
    }
    let mut depth = 0usize;
    let mut open = None;
    for (index, byte) in stripped.bytes().enumerate().rev() {
        match byte {
            b')' => depth += 1,
            b'(' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    open = Some(index);
                    break;
                }
            }
            _ => {}
        }
    }
    let Some(open) = open else {
        return (key, None, None);
    };
    let inner = stripped[open + 1..stripped.len() - 1].trim();
    let (modifier, description) = match inner.split_once(',') {
        Some((m, d)) => (m.trim(), Some(d.trim()).filter(|d| !d.is_empty())),
        None => (inner, None),
    };
    match modifier {
        "array" | "enum" | "object" => (
            stripped[..open].trim_end(),
            Some(modifier),
            description.map(String::from),
        ),
        _ => (key, None, None),
    }
}

/// An enum given as text: `[a, b], description` (quoted in YAML because of the description),
/// `[a, b]`, or one value.
fn enum_string(text: &str) -> (Vec<String>, Option<String>) {
    if let Some(rest) = text.strip_prefix('[') {
        if let Some(close) = rest.find(']').filter(|&close| close > 0) {
            let items = rest[..close].split(',').map(|i| i.trim().to_string());
            let after = rest[close + 1..].trim_start();
            let description = after
                .strip_prefix(',')
                .map(str::trim)
                .filter(|d| !d.is_empty())
                .map(String::from);
            return (items.collect(), description);
        }
    }
    (vec![text.trim().to_string()], None)
}

/// `settings.validation`; `error` is upstream's old name for `strict`. Anything else (`off`
/// included: upstream dropped it) is refused rather than read as no validation.
fn validation_mode(settings: Option<&Value>) -> Result<ValidationMode, SchemaError> {
    let Some(settings) = settings.and_then(Value::as_object) else {
        return Ok(ValidationMode::Warn);
    };
    match settings.get("validation") {
        None => Ok(ValidationMode::Warn),
        Some(Value::String(s)) if s == "warn" => Ok(ValidationMode::Warn),
        Some(Value::String(s)) if s == "strict" || s == "error" => Ok(ValidationMode::Strict),
        Some(other) => Err(SchemaError::InvalidMode(python_repr(other))),
    }
}

/// A schema note's definition, from its front matter.
pub fn parse_schema_note(
    frontmatter: &Map<String, Value>,
) -> Result<SchemaDefinition, SchemaError> {
    let entity = frontmatter
        .get("entity")
        .filter(|e| python_truthy(e))
        .ok_or(SchemaError::MissingEntity)?;
    let schema = frontmatter
        .get("schema")
        .and_then(Value::as_object)
        .filter(|s| !s.is_empty())
        .ok_or(SchemaError::MissingSchema)?;
    let settings = frontmatter.get("settings");
    let mode = validation_mode(settings)?;
    let frontmatter_fields = settings
        .and_then(|s| s.get("frontmatter"))
        .and_then(Value::as_object)
        .map(parse_picoschema)
        .unwrap_or_default();
    Ok(SchemaDefinition {
        entity: python_str(entity),
        fields: parse_picoschema(schema),
        mode,
        frontmatter_fields,
    })
}

/// A note's own `schema:` mapping: its entity is the note's `type`, its mode the note's
/// `settings.validation`.
pub fn inline_schema(
    schema: &Map<String, Value>,
    frontmatter: &Map<String, Value>,
) -> Result<SchemaDefinition, SchemaError> {
    Ok(SchemaDefinition {
        entity: frontmatter
            .get("type")
            .map_or_else(|| "unknown".to_string(), python_str),
        fields: parse_picoschema(schema),
        mode: validation_mode(frontmatter.get("settings"))?,
        frontmatter_fields: Vec::new(),
    })
}

/// How a note names its schema, in upstream's order of precedence.
#[derive(Debug, Clone, PartialEq)]
pub enum SchemaSource<'a> {
    /// `schema:` is a mapping in the note itself.
    Inline(&'a Map<String, Value>),
    /// `schema: <name>`, then, if nothing has that name, the note's type.
    Reference {
        reference: &'a str,
        note_type: Option<String>,
    },
    /// The note's type alone.
    Type(String),
    None,
}

/// Where a note's schema comes from.
pub fn schema_source(frontmatter: &Map<String, Value>) -> SchemaSource<'_> {
    let note_type = frontmatter
        .get("type")
        .filter(|t| python_truthy(t))
        .map(python_str);
    match frontmatter.get("schema") {
        Some(Value::Object(inline)) => SchemaSource::Inline(inline),
        Some(Value::String(reference)) => SchemaSource::Reference {
            reference,
            note_type,
        },
        _ => note_type.map_or(SchemaSource::None, SchemaSource::Type),
    }
}

/// Python's `str()` of a YAML value, as upstream turns values into text.
pub fn python_str(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => python_repr(other),
    }
}

/// Python's `repr()` of a YAML value.
fn python_repr(value: &Value) -> String {
    match value {
        Value::Null => "None".into(),
        Value::Bool(true) => "True".into(),
        Value::Bool(false) => "False".into(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => format!("'{s}'"),
        Value::Array(items) => format!(
            "[{}]",
            items.iter().map(python_repr).collect::<Vec<_>>().join(", ")
        ),
        Value::Object(map) => format!(
            "{{{}}}",
            map.iter()
                .map(|(k, v)| format!("'{k}': {}", python_repr(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
}

fn python_truthy(value: &Value) -> bool {
    match value {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(items) => !items.is_empty(),
        Value::Object(map) => !map.is_empty(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn field(key: &str, value: Value) -> SchemaField {
        parse_field(key, &value)
    }

    #[test]
    fn field_declarations_parse_as_upstreams_picoschema() {
        // key, value -> name, type, required, array, enum values, description, entity ref
        type Expected<'a> = (
            &'a str,
            &'a str,
            bool,
            bool,
            &'a [&'a str],
            Option<&'a str>,
            bool,
        );
        let cases: [(&str, Value, Expected); 14] = [
            (
                "name",
                json!("string"),
                ("name", "string", true, false, &[], None, false),
            ),
            (
                "name",
                json!("string, full name"),
                ("name", "string", true, false, &[], Some("full name"), false),
            ),
            (
                "role?",
                json!("string"),
                ("role", "string", false, false, &[], None, false),
            ),
            (
                "works_at?",
                json!("Organization, employer"),
                (
                    "works_at",
                    "Organization",
                    false,
                    false,
                    &[],
                    Some("employer"),
                    true,
                ),
            ),
            (
                "tags?(array)",
                json!("string"),
                ("tags", "string", false, true, &[], None, false),
            ),
            (
                "tags?(array, labels)",
                json!("string"),
                ("tags", "string", false, true, &[], Some("labels"), false),
            ),
            (
                "attendees(array)",
                json!("string, who"),
                ("attendees", "string", true, true, &[], Some("who"), false),
            ),
            (
                "status?(enum)",
                json!(["active", "done"]),
                (
                    "status",
                    "enum",
                    false,
                    false,
                    &["active", "done"],
                    None,
                    false,
                ),
            ),
            (
                "status(enum)",
                json!("[a, b], current state"),
                (
                    "status",
                    "enum",
                    true,
                    false,
                    &["a", "b"],
                    Some("current state"),
                    false,
                ),
            ),
            (
                "status(enum, phase)",
                json!("[a, b], ignored"),
                (
                    "status",
                    "enum",
                    true,
                    false,
                    &["a", "b"],
                    Some("phase"),
                    false,
                ),
            ),
            (
                "level?(enum)",
                json!("high"),
                ("level", "enum", false, false, &["high"], None, false),
            ),
            (
                "risk(score)",
                json!("number"),
                ("risk(score)", "number", true, false, &[], None, false),
            ),
            (
                "year",
                json!(1999),
                ("year", "1999", true, false, &[], None, false),
            ),
            (
                "count?",
                json!("integer"),
                ("count", "integer", false, false, &[], None, false),
            ),
        ];
        for (key, value, (name, ty, required, array, enums, description, entity)) in cases {
            let f = field(key, value);
            assert_eq!(f.name, name, "{key}");
            assert_eq!(f.field_type, ty, "{key}");
            assert_eq!(f.required, required, "{key}");
            assert_eq!(f.is_array, array, "{key}");
            assert_eq!(f.enum_values, enums, "{key}");
            assert_eq!(f.description.as_deref(), description, "{key}");
            assert_eq!(f.is_entity_ref, entity, "{key}");
        }
    }

    #[test]
    fn objects_parse_their_children() {
        let f = field(
            "address?(object)",
            json!({"city": "string", "zip?": "string"}),
        );
        assert_eq!(f.field_type, "object");
        assert!(!f.required);
        let names: Vec<_> = f
            .children
            .iter()
            .map(|c| (c.name.as_str(), c.required))
            .collect();
        assert_eq!(names, [("city", true), ("zip", false)]);
        assert_eq!(field("meta", json!({"a": "string"})).field_type, "object");
    }

    #[test]
    fn schema_notes_need_an_entity_and_a_schema_and_a_known_mode() {
        let note = |extra: Value| {
            let mut fm =
                json!({"type": "schema", "entity": "Person", "schema": {"name": "string"}});
            for (k, v) in extra.as_object().unwrap() {
                fm[k] = v.clone();
            }
            parse_schema_note(fm.as_object().unwrap())
        };
        let cases: [(Value, Result<ValidationMode, SchemaError>); 10] = [
            (json!({}), Ok(ValidationMode::Warn)),
            (
                json!({"settings": {"validation": "warn"}}),
                Ok(ValidationMode::Warn),
            ),
            (
                json!({"settings": {"validation": "strict"}}),
                Ok(ValidationMode::Strict),
            ),
            (
                json!({"settings": {"validation": "error"}}),
                Ok(ValidationMode::Strict),
            ),
            (
                json!({"settings": "not a mapping"}),
                Ok(ValidationMode::Warn),
            ),
            (
                json!({"settings": {"validation": "off"}}),
                Err(SchemaError::InvalidMode("'off'".into())),
            ),
            (
                json!({"settings": {"validation": false}}),
                Err(SchemaError::InvalidMode("False".into())),
            ),
            (
                json!({"settings": {"validation": null}}),
                Err(SchemaError::InvalidMode("None".into())),
            ),
            (json!({"entity": ""}), Err(SchemaError::MissingEntity)),
            (json!({"schema": "Person"}), Err(SchemaError::MissingSchema)),
        ];
        for (extra, expected) in cases {
            assert_eq!(note(extra.clone()).map(|s| s.mode), expected, "{extra}");
        }
        let fm = json!({"entity": "Person", "schema": {"name": "string"}, "settings": {"frontmatter": {"status?(enum)": ["a"]}}});
        let schema = parse_schema_note(fm.as_object().unwrap()).unwrap();
        assert_eq!(schema.entity, "Person");
        assert_eq!(schema.frontmatter_fields[0].name, "status");
        assert!(SchemaError::InvalidMode("'off'".into())
            .to_string()
            .contains("expected one of: 'warn', 'strict', or 'error'"));
    }

    #[test]
    fn a_note_names_its_schema_inline_by_reference_or_by_type() {
        let source = |fm: Value| {
            let fm = fm.as_object().unwrap().clone();
            match schema_source(&fm) {
                SchemaSource::Inline(map) => format!("inline {}", map.len()),
                SchemaSource::Reference {
                    reference,
                    note_type,
                } => format!("ref {reference} then {note_type:?}"),
                SchemaSource::Type(t) => format!("type {t}"),
                SchemaSource::None => "none".into(),
            }
        };
        let cases = [
            (
                json!({"type": "Person", "schema": {"a": "string"}}),
                "inline 1",
            ),
            (
                json!({"type": "Person", "schema": "Meeting"}),
                "ref Meeting then Some(\"Person\")",
            ),
            (json!({"type": "Person"}), "type Person"),
            (json!({"schema": "Meeting"}), "ref Meeting then None"),
            (json!({"type": ""}), "none"),
            (json!({"type": "note", "schema": 3}), "type note"),
        ];
        for (fm, expected) in cases {
            assert_eq!(source(fm.clone()), expected, "{fm}");
        }
        let fm = json!({"type": "Review", "settings": {"validation": "strict"}});
        let inline = inline_schema(&Map::new(), fm.as_object().unwrap()).unwrap();
        assert_eq!(
            (inline.entity.as_str(), inline.mode),
            ("Review", ValidationMode::Strict)
        );
    }
}
