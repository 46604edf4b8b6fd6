//! `gitmem bench`: the sample vault, the search-quality benchmark and embedding throughput.

use std::path::Path;

use anyhow::{Context, Result};

use super::{emit, format_of, progress};
use engine::throughput::ThroughputSpec;
use engine::{retrieval, App};

pub(super) fn generate_vault(out: &Path, notes: usize, seed: u64) -> Result<()> {
    let spec = vault::generate::VaultSpec { notes, seed };
    let made = vault::generate::generate(out, spec)
        .with_context(|| format!("writing the vault to {}", out.display()))?;
    emit(render::retrieval::generated(&made, out));
    Ok(())
}

/// The golden set is checked before the benchmark runs, so a mismatched one is told at once.
pub(super) fn retrieval(
    vault: &Path,
    golden: &Path,
    search_types: &[String],
    model: Option<&str>,
    keep_root: Option<&Path>,
    misses: bool,
    json: bool,
) -> Result<()> {
    let golden = retrieval::golden_set(golden, vault)?;
    emit(render::retrieval::missing_golden(&golden.missing));
    let bar = progress::SyncBar::new("bench");
    let embedding = progress::CountBar::new("embedding", "notes");
    let reports = retrieval::benchmark(
        vault,
        &golden.queries,
        search_types,
        model,
        keep_root,
        &|e| bar.event(e),
        &|p| embedding.set(p.done, p.total),
    )?;
    bar.finish();
    embedding.finish();
    emit(render::retrieval::bench(&reports, misses, format_of(json)));
    Ok(())
}

pub(super) fn embed(app: &App, spec: &ThroughputSpec, json: bool) -> Result<()> {
    let report = app.embedding_throughput(spec)?;
    emit(render::retrieval::throughput(&report, format_of(json)));
    Ok(())
}
