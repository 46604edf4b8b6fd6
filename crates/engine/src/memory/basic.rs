//! memory_import_basic: Basic Memory's notes as memories, from a project directory of
//! markdown notes or from an export of its notes as JSON (an array, or an object holding one)
//! or JSON Lines.

use std::path::Path;

use serde_json::{Map, Value};

use super::super::error::ImportError;
use super::super::import::{ImportOptions, ImportReport};
use super::super::note_input::is_markdown;
use super::super::scope::ProjectChoice;
use super::super::Result;
use crate::Engine;
use vault;

/// memory_import_basic: every note of a Basic Memory project directory, or of an export
/// of its notes (a `.json` or `.jsonl` file), becomes a memory here, under `memories/`,
/// with its permalink kept as `compat.basic_id` and its type renamed by `map_types`.
pub(crate) fn memory_import_basic(
    engine: &Engine,
    choice: &ProjectChoice,
    path: &Path,
    dry_run: bool,
    map_types: &Map<String, Value>,
) -> Result<ImportReport> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    let lines = match path.extension().and_then(|e| e.to_str()) {
        _ if path.is_dir() => None,
        Some(ext) if path.is_file() && ext.eq_ignore_ascii_case("json") => Some(false),
        Some(ext) if path.is_file() && ext.eq_ignore_ascii_case("jsonl") => Some(true),
        _ => return Err(ImportError::NotABasicExport(path.to_path_buf()).into()),
    };
    let canonical = path.canonicalize()?;
    crate::links::refuse_known_folder(&engine.store, &canonical, "import from it", None)?;
    let parsed = match lines {
        None => note::import::basic::parse(&markdown_files(path)?, map_types),
        Some(lines) => {
            let text = vault::fs::read_text(path).map_err(|source| ImportError::Unreadable {
                path: path.to_path_buf(),
                source,
            })?;
            note::import::basic::parse_export(&text, lines, map_types).map_err(|errors| {
                ImportError::InvalidRecords {
                    file: path.display().to_string(),
                    errors,
                }
            })?
        }
    };
    let options = ImportOptions {
        folder: None,
        dry_run,
        overwrite: false,
    };
    crate::import::import_drafts(
        engine,
        &project,
        "basic-memory",
        parsed,
        &options,
        &|_, _| {},
    )
}

/// The markdown files of a Basic Memory project directory, hidden ones left out: (path
/// relative to it, text).
fn markdown_files(directory: &Path) -> Result<Vec<(String, String)>> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(directory)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
    {
        let entry = entry.map_err(ImportError::Walk)?;
        let relative = entry
            .path()
            .strip_prefix(directory)
            .unwrap_or(entry.path())
            .to_string_lossy()
            .replace('\\', "/");
        if entry.file_type().is_file() && is_markdown(&relative) {
            let bytes =
                vault::fs::read(entry.path()).map_err(|source| ImportError::Unreadable {
                    path: entry.path().to_path_buf(),
                    source,
                })?;
            // As a scan reads a file: invalid bytes become U+FFFD rather than stop it all.
            files.push((relative, String::from_utf8_lossy(&bytes).into_owned()));
        }
    }
    Ok(files)
}
