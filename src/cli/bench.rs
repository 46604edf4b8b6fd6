//! `gitmem bench`: the sample vault and the search-quality benchmark.

use anyhow::{Context, Result};

use super::{print_json, progress};

pub(super) fn generate_vault(out: &std::path::Path, notes: usize, seed: u64) -> Result<()> {
    let spec = crate::vault::generate::VaultSpec { notes, seed };
    let made = crate::vault::generate::generate(out, spec)
        .with_context(|| format!("writing the vault to {}", out.display()))?;
    println!(
        "wrote {} notes and {} attachments to {}",
        made.notes,
        made.attachments,
        out.display()
    );
    Ok(())
}

pub(super) fn retrieval(
    vault: &std::path::Path,
    golden: &std::path::Path,
    search_types: &[String],
    model: Option<&str>,
    misses: bool,
    json: bool,
) -> Result<()> {
    use crate::service::retrieval;
    let text = std::fs::read_to_string(golden)
        .with_context(|| format!("reading the golden set {}", golden.display()))?;
    let queries: Vec<retrieval::GoldenQuery> = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a list of graded queries", golden.display()))?;
    let missing = retrieval::missing_paths(vault, &queries);
    if !missing.is_empty() {
        eprintln!(
            "warning: {} golden paths name no file of the vault, e.g. {}",
            missing.len(),
            missing[0]
        );
    }
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
    if json {
        return print_json(&reports);
    }
    print!("{}", crate::render::retrieval::report(&reports, misses));
    Ok(())
}
