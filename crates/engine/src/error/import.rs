//! What an import refuses: an export with bad records, a file or folder it cannot read, a
//! folder it must not write to, and Basic Memory configurations it cannot take over.

use std::path::PathBuf;

use note::import::RecordError;

/// At most this many bad records are listed; the rest are counted.
const LISTED_RECORDS: usize = 20;

#[derive(Debug, thiserror::Error)]
pub enum ImportError {
    /// Every bad record of an input, the first 20 listed: nothing was imported.
    #[error("{file}: {count} invalid record(s); nothing was imported:\n{listed}", count = .errors.len(), listed = listed(.errors))]
    InvalidRecords {
        file: String,
        errors: Vec<RecordError>,
    },
    #[error("cannot read {}: {source}", .path.display())]
    Unreadable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// A folder of the export cannot be walked.
    #[error(transparent)]
    Walk(walkdir::Error),
    #[error("{} is neither a directory nor a .json or .jsonl file (give the folder of a Basic Memory project, or an export of its notes)", .0.display())]
    NotABasicExport(PathBuf),
    #[error("folder '{0}' is not a folder inside the project")]
    FolderOutside(String),
    #[error("folder '{0}' is hidden, and gitmem does not index hidden folders; name another")]
    HiddenFolder(String),
    #[error("line {line}: '{path}' is not a path inside the project")]
    PathOutside { line: usize, path: String },
    #[error("cannot tell where Basic Memory's config.json is; give --config FILE")]
    NoBasicMemoryConfig,
    #[error("cannot read Basic Memory's configuration {}: {source}", .path.display())]
    UnreadableBasicMemoryConfig {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{} is not valid JSON: {source}", .path.display())]
    BasicMemoryConfigNotJson {
        path: PathBuf,
        source: serde_json::Error,
    },
    #[error("{} has no \"projects\" object; is it Basic Memory's config.json?", .0.display())]
    NoProjectsInBasicMemoryConfig(PathBuf),
}

fn listed(errors: &[RecordError]) -> String {
    let mut lines: Vec<String> = errors
        .iter()
        .take(LISTED_RECORDS)
        .map(|e| format!("  {e}"))
        .collect();
    if errors.len() > LISTED_RECORDS {
        lines.push(format!("  ... and {} more", errors.len() - LISTED_RECORDS));
    }
    lines.join("\n")
}
