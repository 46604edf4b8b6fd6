//! The helpers every tool handler shares: argument parsing and its errors, the reply of an
//! engine call (as rendered text, or as the memory API's coded JSON), and the output schemas
//! several families declare. Tool modules import from here and from `args`, never from each
//! other.

use rmcp::schemars::{self, JsonSchema};
use serde::de::DeserializeOwned;
use serde_json::{json, Map, Value};

use super::args::{FormatArgs, PageArgs};
use super::{specs, ToolReply};
use engine::error::PageError;
use engine::ServiceError;
use render::memory::ErrorCode;
use render::Format;

/// Unwraps a `Result<T, ToolReply>`, returning the reply from the tool on `Err`.
macro_rules! tri {
    ($result:expr) => {
        match $result {
            Ok(value) => value,
            Err(reply) => return reply,
        }
    };
}

pub(crate) use tri;

/// An output schema's object with these properties.
pub fn object(properties: Value) -> Value {
    json!({"type": "object", "properties": properties})
}

/// An output schema's array of these items.
pub fn array(items: Value) -> Value {
    json!({"type": "array", "items": items})
}

/// An object holding one list of objects under `key`.
pub fn list_of(key: &str) -> Value {
    object(json!({ key: array(json!({"type": "object"})) }))
}

/// The JSON schema of an argument struct, as `tools/list` shows it.
pub fn schema_of<T: JsonSchema>() -> Map<String, Value> {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .into_generator()
        .into_root_schema_for::<T>();
    let mut value = serde_json::to_value(schema).unwrap_or_else(|_| json!({"type": "object"}));
    if let Some(map) = value.as_object_mut() {
        map.remove("$schema");
        map.remove("title");
        map.entry("type").or_insert(json!("object"));
        map.entry("properties").or_insert(json!({}));
    }
    match value {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

/// Parses a tool's arguments; a schema violation is an MCP error result naming the parameter.
/// The tools whose argument structs deny unknown fields (the memory API's, the graph tools')
/// refuse a field they do not know, naming it, where it is and what is known there.
pub fn parse<T: DeserializeOwned>(tool: &str, args: &Map<String, Value>) -> Result<T, ToolReply> {
    let value = Value::Object(args.clone());
    let error = match serde_path_to_error::deserialize::<_, T>(&value) {
        Ok(parsed) => return Ok(parsed),
        Err(e) => e,
    };
    if let Some(message) = unknown_field(tool, &error) {
        return Err(ToolReply::Error(format!(
            "Error calling tool '{tool}': {message}"
        )));
    }
    let error = error.into_inner().to_string();
    if error.starts_with("missing field") {
        return Err(ToolReply::Error(format!(
            "Error calling tool '{tool}': invalid arguments: {error}"
        )));
    }
    // serde does not say which field a custom coercion rejected: the culprit is the argument
    // whose removal changes the error.
    let culprit = args.keys().find(|key| {
        let mut without = args.clone();
        without.remove(*key);
        match serde_json::from_value::<T>(Value::Object(without)) {
            Ok(_) => true,
            Err(e) => e.to_string() != error,
        }
    });
    Err(ToolReply::Error(match culprit {
        Some(key) => format!("Error calling tool '{tool}': invalid argument '{key}': {error}"),
        None => format!("Error calling tool '{tool}': invalid arguments: {error}"),
    }))
}

/// serde's refusal of an unknown field, as `unknown field `x` in patch; expected one of a,
/// b`. A struct with flattened fields does not list what it expects, so the names come from
/// the tool's schema there.
fn unknown_field(
    tool: &str,
    error: &serde_path_to_error::Error<serde_json::Error>,
) -> Option<String> {
    let message = error.inner().to_string();
    let rest = message.strip_prefix("unknown field `")?;
    let (field, rest) = rest.split_once('`')?;
    let mut expected: Vec<String> = rest
        .split('`')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect();
    // The path ends with the field itself; where it was is the object around it.
    let path = error.path().to_string();
    let place = path
        .strip_suffix(field)
        .unwrap_or(&path)
        .trim_end_matches('.');
    let at_top = place.is_empty();
    if expected.is_empty() && at_top {
        let spec = specs().iter().find(|s| s.name == tool)?;
        expected = (spec.schema)()
            .get("properties")
            .and_then(Value::as_object)
            .map(|properties| properties.keys().cloned().collect())
            .unwrap_or_default();
    }
    let place = if at_top {
        String::new()
    } else {
        format!(" in {place}")
    };
    Some(format!(
        "unknown field `{field}`{place}; expected one of {}",
        expected.join(", ")
    ))
}

/// A service error as the MCP error result of `tool`. Failures of gitmem itself (not of the
/// caller's input) are logged with the tool's name first.
pub fn service_error(tool: &str, e: ServiceError) -> ToolReply {
    if !e.is_user_error() {
        tracing::error!("tool '{tool}' failed: {e}");
    }
    ToolReply::Error(format!("Error calling tool '{tool}': {e}"))
}

/// The reply of a service call: its rendered outcome, or an MCP error result.
pub fn answer<T, R: Into<ToolReply>>(
    tool: &str,
    result: engine::Result<T>,
    render: impl FnOnce(&T) -> R,
) -> ToolReply {
    match result {
        Ok(outcome) => render(&outcome).into(),
        Err(e) => service_error(tool, e),
    }
}

impl FormatArgs {
    /// The output format asked for, or `default`.
    pub fn format(&self, default: Format) -> Result<Format, ToolReply> {
        match self.output_format.as_deref().map(str::trim) {
            None | Some("") => Ok(default),
            Some("text") => Ok(Format::Text),
            Some("json") => Ok(Format::Json),
            Some(other) => Err(ToolReply::Error(format!(
                "output_format must be 'text' or 'json', got '{other}'"
            ))),
        }
    }
}

impl PageArgs {
    /// (page, page_size), with `default_size` and an optional largest size.
    pub fn checked(
        &self,
        tool: &str,
        default_size: i64,
        max: Option<i64>,
    ) -> Result<(usize, usize), ToolReply> {
        let page = self.page.unwrap_or(1);
        let size = self.page_size.unwrap_or(default_size);
        let invalid = |e: PageError| Err(service_error(tool, e.into()));
        if page < 1 {
            return invalid(PageError::PageBelowOne(page));
        }
        if size < 1 {
            return invalid(PageError::SizeBelowOne(size));
        }
        match max {
            Some(max) if size > max => invalid(PageError::SizeAboveMax { max, size }),
            _ => Ok((page as usize, size as usize)),
        }
    }
}

/// An error result of a memory tool, with `code` in its structured content.
pub(super) fn coded(reply: ToolReply, code: ErrorCode) -> ToolReply {
    match reply {
        ToolReply::Error(text) => ToolReply::Failed {
            content: render::memory::error(code, &text),
            text,
        },
        other => other,
    }
}

/// Arguments that do not parse: E_VALIDATION.
pub(super) fn invalid(reply: ToolReply) -> ToolReply {
    coded(reply, ErrorCode::Validation)
}

/// A tool's arguments, or the E_VALIDATION error result that refuses them.
pub(super) fn arguments<T: serde::de::DeserializeOwned>(
    tool: &str,
    raw: &Map<String, Value>,
) -> Result<T, ToolReply> {
    parse(tool, raw).map_err(invalid)
}

/// The reply of a service call: its JSON, or an error result with the error's code.
pub(super) fn json_answer<T>(
    tool: &str,
    result: engine::Result<T>,
    render: impl FnOnce(&T) -> Value,
) -> ToolReply {
    match result {
        Ok(outcome) => render(&outcome).into(),
        Err(e) => failed(tool, e),
    }
}

/// The error result of a service call, with the error's code.
pub(super) fn failed(tool: &str, e: engine::ServiceError) -> ToolReply {
    let code = render::memory::error_code(&e);
    coded(service_error(tool, e), code)
}

pub(super) fn entity_schema() -> Value {
    object(json!({
        "name": {"type": "string"},
        "entityType": {"type": "string"},
        "observations": {"type": "array", "items": {"type": "string"}},
    }))
}

pub(super) fn relation_schema() -> Value {
    object(json!({
        "from": {"type": "string"},
        "to": {"type": "string"},
        "relationType": {"type": "string"},
    }))
}

pub(super) fn relations_created(_: bool) -> Value {
    object(json!({ "relations": array(relation_schema()) }))
}

pub(super) fn graph(_: bool) -> Value {
    object(json!({"entities": array(entity_schema()), "relations": array(relation_schema())}))
}
