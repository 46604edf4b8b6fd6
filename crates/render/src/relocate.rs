//! move_note and delete_note answers.

use serde_json::json;

use super::notes::{directory_summary, identifier_suggestions, moved, refused};
use super::{Format, Rendered};
use engine::relocate::{DeleteRefusal, Deleted, FolderBatch, MoveRefusal, Moved};
use engine::Outcome;

/// The guidance title, the explanation and the JSON error code of a refused move.
fn move_refusal(refusal: &MoveRefusal) -> (&'static str, String, &'static str) {
    match refusal {
        MoveRefusal::BothDestinations => (
            "Move Failed - Invalid Parameters",
            "Cannot specify both destination_path and destination_folder. Use one or the other.".into(),
            "MUTUALLY_EXCLUSIVE_PARAMS",
        ),
        MoveRefusal::MissingDestination => (
            "Move Failed - Missing Destination",
            "Either destination_path or destination_folder must be provided.".into(),
            "MISSING_DESTINATION",
        ),
        MoveRefusal::FolderDestinationForDirectory => (
            "Move Failed - Invalid Parameters",
            "destination_folder is only supported for single-file moves, not directory moves.".into(),
            "DESTINATION_FOLDER_NOT_FOR_DIRECTORIES",
        ),
        MoveRefusal::OutsideProject(o) => (
            "Move Failed - Security Validation Error",
            o.to_string(),
            "SECURITY_VALIDATION_ERROR",
        ),
        MoveRefusal::CrossProject { other, project } => (
            "Move Failed - Cross-Project Move Not Supported",
            format!("'{other}' is another project; move_note moves notes within project '{project}' only."),
            "CROSS_PROJECT_MOVE_NOT_SUPPORTED",
        ),
        MoveRefusal::NoFilesFound { folder } => (
            "Directory Move Failed - No Files Found",
            format!("No files found in directory `{folder}`."),
            "NO_FILES_FOUND",
        ),
        MoveRefusal::NotFound { identifier } => {
            let (title, permalink) = identifier_suggestions(identifier);
            let ident = note::identifier::normalize_identifier(identifier);
            (
                "Move Failed - Note Not Found",
                format!(
                    "Could not find a note matching '{identifier}'.\n\nTry:\n- `{title}`\n- `{permalink}`\n- `search_notes(query=\"{ident}\")` to find the exact identifier"
                ),
                "ENTITY_RESOLUTION_FAILED",
            )
        }
        MoveRefusal::SameAsSource { destination } => (
            "Move Failed - Destination Same As Source",
            format!("'{destination}' is where the note already is."),
            "DESTINATION_SAME_AS_SOURCE",
        ),
        MoveRefusal::ExtensionRequired { destination } => (
            "Move Failed - File Extension Required",
            format!("The destination '{destination}' needs a file extension, e.g. '{destination}.md'."),
            "FILE_EXTENSION_REQUIRED",
        ),
        MoveRefusal::ExtensionMismatch {
            destination,
            source,
        } => (
            "Move Failed - File Extension Mismatch",
            format!("The destination extension '.{destination}' does not match the note's '.{source}'."),
            "FILE_EXTENSION_MISMATCH",
        ),
        MoveRefusal::DestinationExists { destination } => (
            "Move Failed - Destination Already Exists",
            format!("A file already exists at '{destination}'; move_note never overwrites."),
            "DESTINATION_EXISTS",
        ),
    }
}

fn folder_summary(batch: &FolderBatch, moved: bool) -> String {
    let (verb, done, labels) = if moved {
        ("Move", "Moved", ("Successfully moved", "Moved Files"))
    } else {
        (
            "Delete",
            "Deleted",
            ("Successfully deleted", "Deleted Files"),
        )
    };
    // A batch in which files failed never reads as a success.
    let header = match (batch.failed.is_empty(), batch.done.is_empty()) {
        (true, _) => format!("Directory {done} Successfully"),
        (false, true) => format!("Directory {verb} Failed"),
        (false, false) => format!("Directory {verb} Partially Failed"),
    };
    let mut lines = vec![];
    match &batch.destination {
        Some(destination) => {
            lines.push(("Source", batch.folder.clone()));
            lines.push(("Destination", destination.clone()));
        }
        None => lines.push(("Directory", batch.folder.clone())),
    }
    directory_summary(
        &header,
        labels,
        &lines,
        batch.total,
        &batch.done,
        &batch.failed,
        &batch.project,
    )
}

/// move_note's answer; `source` is the identifier the call named.
pub fn move_note(source: &str, outcome: &Outcome<Moved, MoveRefusal>, format: Format) -> Rendered {
    match outcome {
        Outcome::Done(Moved::Note(m)) => Rendered::either(
            format,
            || {
                moved(
                    &m.title,
                    &m.note.path,
                    m.note.permalink.as_deref().unwrap_or(""),
                    &m.project,
                )
            },
            || {
                json!({
                    "moved": true, "title": m.note.title, "permalink": m.note.permalink,
                    "file_path": m.note.path, "source": source, "destination": m.destination,
                })
            },
        ),
        Outcome::Done(Moved::Folder(batch)) => Rendered::either(
            format,
            || folder_summary(batch, true),
            || {
                json!({
                    "moved": batch.failed.is_empty(), "title": null, "permalink": null, "file_path": null,
                    "source": batch.folder, "destination": batch.destination, "is_directory": true,
                    "total_files": batch.total, "successful_moves": batch.done.len(),
                    "failed_moves": batch.failed.len(),
                })
            },
        ),
        Outcome::Refused(refusal) => {
            let (title, body, code) = move_refusal(refusal);
            refused(format, title, &body, || {
                json!({
                    "moved": false, "title": null, "permalink": null, "file_path": null,
                    "source": source, "destination": null, "error": code,
                })
            })
        }
    }
}

/// delete_note's answer: `true` / `false` as Basic Memory answers, summaries for folders.
pub fn delete_note(outcome: &Outcome<Deleted, DeleteRefusal>, format: Format) -> Rendered {
    let failed = |title: &str, body: String, code: &str| {
        refused(
            format,
            title,
            &body,
            || json!({"deleted": false, "title": null, "permalink": null, "file_path": null, "error": code}),
        )
    };
    match outcome {
        Outcome::Done(Deleted::Note(note)) => Rendered::either(
            format,
            || "true".into(),
            || json!({"deleted": true, "title": note.title, "permalink": note.permalink, "file_path": note.path}),
        ),
        Outcome::Done(Deleted::Folder(batch)) => Rendered::either(
            format,
            || folder_summary(batch, false),
            || {
                json!({
                    "deleted": batch.failed.is_empty(), "is_directory": true, "identifier": batch.folder,
                    "total_files": batch.total, "successful_deletes": batch.done.len(),
                    "failed_deletes": batch.failed.len(), "deleted_files": batch.done, "errors": batch.failed,
                })
            },
        ),
        Outcome::Refused(DeleteRefusal::NotFound) => Rendered::either(
            format,
            || "false".into(),
            || json!({"deleted": false, "title": null, "permalink": null, "file_path": null}),
        ),
        Outcome::Refused(DeleteRefusal::OutsideProject(o)) => failed(
            "Delete Failed - Security Validation Error",
            o.to_string(),
            "SECURITY_VALIDATION_ERROR",
        ),
        Outcome::Refused(DeleteRefusal::Ambiguous { identifier }) => failed(
            "Delete Failed - Ambiguous Identifier",
            format!(
                "'{identifier}' matches several notes. Pass an exact permalink or external_id."
            ),
            "AMBIGUOUS_IDENTIFIER",
        ),
        Outcome::Refused(DeleteRefusal::Failed { identifier, error }) => failed(
            "Delete Failed",
            format!("Error deleting note '{identifier}': {error}"),
            "DELETE_FAILED",
        ),
        Outcome::Refused(DeleteRefusal::NoFilesFound { project, folder }) => Rendered::either(
            format,
            || {
                format!("# Directory Delete Failed - No Files Found\n\nNo files found for directory `{folder}`.\nTotal files: 0.\n\n<!-- Project: {project} -->")
            },
            || {
                json!({
                    "deleted": false, "is_directory": true, "identifier": folder, "total_files": 0,
                    "successful_deletes": 0, "failed_deletes": 0, "deleted_files": [], "errors": [],
                    "error": "NO_FILES_FOUND",
                })
            },
        ),
    }
}
