//! canvas (compat 2.10): a JSON Canvas file that Obsidian opens, written with two-space
//! indentation as Basic Memory writes it.

use serde_json::{json, Value};

use super::scope::ProjectChoice;
use super::{Outcome, OutsideProject, PathArg, Result};
use crate::Engine;

/// A canvas call after argument parsing.
#[derive(Debug, Clone, Default)]
pub struct CanvasRequest {
    pub nodes: Vec<Value>,
    pub edges: Vec<Value>,
    /// The file name; `.canvas` is appended unless present.
    pub title: String,
    pub directory: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CanvasWritten {
    pub path: String,
    /// False when an existing canvas was replaced.
    pub created: bool,
    /// Secret-shaped values replaced before the file was written.
    pub redacted: note::redact::Redactions,
}

impl CanvasRequest {
    fn path(&self) -> (String, String) {
        let name = if self.title.ends_with(".canvas") {
            self.title.clone()
        } else {
            format!("{}.canvas", self.title)
        };
        let dir = self.directory.trim().trim_matches('/');
        let path = if dir.is_empty() {
            name.clone()
        } else {
            format!("{dir}/{name}")
        };
        (name, path)
    }
}

fn pretty_two_spaces(value: &Value) -> Vec<u8> {
    let mut text = Vec::new();
    let formatter = serde_json::ser::PrettyFormatter::with_indent(b"  ");
    let mut serializer = serde_json::Serializer::with_formatter(&mut text, formatter);
    serde::Serialize::serialize(value, &mut serializer)
        .expect("a JSON value always serialises into memory");
    text
}

pub(crate) fn canvas(
    engine: &Engine,
    choice: &ProjectChoice,
    req: &CanvasRequest,
) -> Result<Outcome<CanvasWritten, OutsideProject>> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    let (name, path) = req.path();
    let refused = || {
        Ok(Outcome::Refused(OutsideProject::new(
            PathArg::Canvas,
            &path,
        )))
    };
    if name.contains('/') {
        return refused();
    }
    let Ok(absolute) = crate::mounts::project_file(&engine.store, &project, &path) else {
        return refused();
    };
    let created = !absolute.exists();
    let text = pretty_two_spaces(&json!({"nodes": req.nodes, "edges": req.edges}));
    let authored =
        crate::authored::author(&engine.store, &path, &String::from_utf8_lossy(&text), None)?;
    super::authored::replace(&absolute, &authored)?;
    crate::notes::index_written_file(engine, &project, &path)?;
    Ok(Outcome::Done(CanvasWritten {
        path,
        created,
        redacted: authored.redacted,
    }))
}
