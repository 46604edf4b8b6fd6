//! `gitmem bench`: the sample vault and the search-quality benchmark.

use std::path::Path;

use anyhow::{Context, Result};

use super::{emit, format_of, progress};
use crate::render;
use crate::service::retrieval;

pub(super) fn generate_vault(out: &Path, notes: usize, seed: u64) -> Result<()> {
    let spec = crate::vault::generate::VaultSpec { notes, seed };
    let made = crate::vault::generate::generate(out, spec)
        .with_context(|| format!("writing the vault to {}", out.display()))?;
    emit(render::retrieval::generated(&made, out));
    Ok(())
}

pub(super) fn retrieval(
    vault: &Path,
    golden: &Path,
    search_types: &[String],
    model: Option<&str>,
    misses: bool,
    json: bool,
) -> Result<()> {
    let text = std::fs::read_to_string(golden)
        .with_context(|| format!("reading the golden set {}", golden.display()))?;
    let queries: Vec<retrieval::GoldenQuery> = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a list of graded queries", golden.display()))?;
    emit(render::retrieval::missing_golden(
        &retrieval::missing_paths(vault, &queries),
    ));
    let bar = progress::SyncBar::new("bench");
    let embedding = progress::CountBar::new("embedding", "notes");
    let reports = retrieval::benchmark(
        vault,
        &queries,
        search_types,
        model,
        &|e| bar.event(e),
        &|p| embedding.set(p.done, p.total),
    )?;
    bar.finish();
    embedding.finish();
    emit(render::retrieval::bench(&reports, misses, format_of(json)));
    Ok(())
}
