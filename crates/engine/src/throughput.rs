//! Embedding throughput (`gitmem bench embed`): an installed transformer embeds the same
//! passages with each forward pass, f32 and int8; passages and tokens a second for each, and
//! how close the int8 vectors stay to the f32 ones.

use std::path::Path;
use std::time::Instant;

use serde::Serialize;

use super::error::ModelError;
use super::models::models_dir;
use super::Result;
use crate::Store;
use embed::{int8_kernel, Backend, Embedder};
use note::{chunk, frontmatter};

/// What to embed.
#[derive(Debug, Clone)]
pub struct ThroughputSpec<'a> {
    /// An installed model; the default one when `None`.
    pub model: Option<&'a str>,
    /// Generated passages to embed (a fixed text for a seed).
    pub passages: usize,
    /// Words in a generated passage.
    pub words: usize,
    /// Times each pass embeds all the passages; the fastest counts.
    pub rounds: usize,
    /// Embed the passages of this folder's markdown files instead, as indexing cuts them.
    pub from: Option<&'a Path>,
}

/// One forward pass's run over the passages.
#[derive(Debug, Clone, Serialize)]
pub struct ThroughputRun {
    /// `f32` or `int8`.
    pub backend: String,
    /// Loading the model, quantising included.
    pub load_seconds: f64,
    /// The fastest round.
    pub seconds: f64,
    pub passages_per_second: f64,
    pub tokens_per_second: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct ThroughputReport {
    pub model: String,
    pub passages: usize,
    pub rounds: usize,
    /// Tokens the model read, special tokens included, after its length limit.
    pub tokens: usize,
    pub threads: usize,
    /// Which code ran int8's products: `avx512-vnni` or `scalar`.
    pub int8_kernel: String,
    pub runs: Vec<ThroughputRun>,
    /// Cosine between each passage's int8 and f32 vectors: the least and the mean (none
    /// without passages).
    pub cosine_min: Option<f64>,
    pub cosine_mean: Option<f64>,
}

/// The seed of the generated passages: the sample vault's, so both read alike.
const SEED: u64 = vault::generate::DEFAULT_SEED;

/// Embeds the passages with the f32 forward pass and with the int8 one, `rounds` times
/// each; each first warms up on a few passages, so the timed runs measure steady work.
pub(crate) fn embedding_throughput(
    store: &Store,
    spec: &ThroughputSpec,
) -> Result<ThroughputReport> {
    let name = match spec.model {
        Some(name) => name.to_string(),
        None => crate::models::chosen_model(store).ok_or(ModelError::NoModel)?,
    };
    let dir = models_dir(&store.config().root).join(&name);
    if !dir.is_dir() {
        let installed = crate::models::models(store)?
            .into_iter()
            .map(|m| m.name)
            .collect();
        return Err(ModelError::NotInstalled { name, installed }.into());
    }
    let texts = match spec.from {
        Some(folder) => folder_passages(folder)?,
        None => vault::generate::passages(spec.passages, spec.words, SEED),
    };
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let mut passes = Vec::new();
    for (label, backend) in [("f32", Backend::Fused), ("int8", Backend::Int8)] {
        let started = Instant::now();
        let embedder = Embedder::load_with(&dir, &name, backend)?;
        let load_seconds = started.elapsed().as_secs_f64();
        if embedder.is_static() {
            return Err(ModelError::Static(name).into());
        }
        embedder.embed_passages(&texts[..texts.len().min(16)])?;
        passes.push((label, embedder, load_seconds, f64::INFINITY));
    }
    let tokens = passes[0].1.passage_tokens(&texts)?;
    let mut vectors = Vec::new();
    // Rounds alternate the passes, and each keeps its best: work that shares the cores
    // for a while then slows both alike, or neither.
    for round in 0..spec.rounds.max(1) {
        for (_, embedder, _, best) in &mut passes {
            let started = Instant::now();
            let made = embedder.embed_passages(&texts)?;
            *best = best.min(started.elapsed().as_secs_f64().max(1e-9));
            if round == 0 {
                vectors.push(made);
            }
        }
    }
    let runs = passes
        .iter()
        .map(|&(label, _, load_seconds, seconds)| ThroughputRun {
            backend: label.to_string(),
            load_seconds,
            seconds,
            passages_per_second: texts.len() as f64 / seconds,
            tokens_per_second: tokens as f64 / seconds,
        })
        .collect();
    let cosines: Vec<f64> = vectors[0]
        .iter()
        .zip(&vectors[1])
        .map(|(a, b)| a.iter().zip(b).map(|(x, y)| f64::from(x * y)).sum())
        .collect();
    let cosine_mean =
        (!cosines.is_empty()).then(|| cosines.iter().sum::<f64>() / cosines.len() as f64);
    Ok(ThroughputReport {
        model: name,
        passages: texts.len(),
        rounds: spec.rounds.max(1),
        tokens,
        threads: rayon::current_num_threads(),
        int8_kernel: int8_kernel().to_string(),
        runs,
        cosine_min: cosines.iter().copied().reduce(f64::min),
        cosine_mean,
    })
}

/// The passages of every markdown file under `folder` (hidden folders left out), each file's
/// name as its title.
fn folder_passages(folder: &Path) -> std::io::Result<Vec<String>> {
    let mut out = Vec::new();
    let hidden = |e: &walkdir::DirEntry| e.file_name().to_string_lossy().starts_with('.');
    let mut files: Vec<_> = walkdir::WalkDir::new(folder)
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !hidden(e))
        .collect::<std::result::Result<_, _>>()
        .map_err(std::io::Error::from)?;
    files.retain(|e| e.file_type().is_file() && e.path().extension() == Some("md".as_ref()));
    files.sort_by(|a, b| a.path().cmp(b.path()));
    for file in files {
        let text = vault::fs::read_text(file.path())?;
        let title = file
            .path()
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy();
        let body = frontmatter::body(&text);
        out.extend(chunk::passages(&title, body).into_iter().map(|p| p.text));
    }
    Ok(out)
}
