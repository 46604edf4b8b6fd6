//! What `gitmem bench` prints: the sample vault written, `bench retrieval` as a table (one
//! block per search type, a row per category), and `bench embed`'s throughput.

use std::fmt::Write;
use std::path::Path;

use serde_json::json;

use super::{Format, Output};
use engine::retrieval::GeneratedVault;
use engine::retrieval::{RetrievalReport, Scores};
use engine::throughput::ThroughputReport;

fn row(out: &mut String, name: &str, count: usize, s: &Scores) {
    let _ = writeln!(
        out,
        "  {name:<14} {count:>4}  {:>6.3} {:>7.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3} {:>6.3}",
        s.ndcg_at_5,
        s.ndcg_at_10,
        s.mrr,
        s.hit_at_1,
        s.hit_at_3,
        s.hit_at_5,
        s.recall_at_5,
        s.recall_at_10
    );
}

/// The reports as a table; with `misses`, each query that missed a perfect nDCG@5 with its
/// top five paths.
pub fn report(reports: &[RetrievalReport], misses: bool) -> String {
    let mut out = String::new();
    for r in reports {
        let _ = writeln!(
            out,
            "{}: {} queries, latency p50 {:.2} ms, p95 {:.2} ms",
            r.search_type, r.queries, r.latency_p50_ms, r.latency_p95_ms
        );
        if let Some(notice) = &r.notice {
            let _ = writeln!(out, "  note: {notice}");
        }
        let _ = writeln!(
            out,
            "  {:<14} {:>4}  {:>6} {:>7} {:>6} {:>6} {:>6} {:>6} {:>6} {:>6}",
            "category", "n", "nDCG@5", "nDCG@10", "MRR", "Hit@1", "Hit@3", "Hit@5", "R@5", "R@10"
        );
        row(&mut out, "overall", r.queries, &r.overall);
        for (category, scores) in &r.by_category {
            let count = r
                .outcomes
                .iter()
                .filter(|o| &o.category == category)
                .count();
            row(&mut out, category, count, scores);
        }
        if misses {
            for o in r.outcomes.iter().filter(|o| o.scores.ndcg_at_5 < 1.0) {
                let _ = writeln!(
                    out,
                    "  miss {} [{}] nDCG@5 {:.2}: {}",
                    o.id, o.category, o.scores.ndcg_at_5, o.query
                );
                for path in o.top.iter().take(5) {
                    let _ = writeln!(out, "      {path}");
                }
            }
        }
        out.push('\n');
    }
    out
}

/// `gitmem bench retrieval`.
pub fn bench(reports: &[RetrievalReport], misses: bool, format: Format) -> Output {
    Output::either(format, || report(reports, misses), || json!(reports))
}

/// The golden set names files the vault does not have: its scores would be wrong.
pub fn missing_golden(missing: &[String]) -> Output {
    let Some(first) = missing.first() else {
        return Output::default();
    };
    Output::err(format!(
        "warning: {} golden paths name no file of the vault, e.g. {first}\n",
        missing.len()
    ))
}

/// `gitmem bench generate`.
pub fn generated(made: &GeneratedVault, out: &Path) -> Output {
    Output::line(&format!(
        "wrote {} notes and {} attachments to {}",
        made.notes,
        made.attachments,
        out.display()
    ))
}

/// `gitmem bench embed`: a row per forward pass, then how close int8 stayed to f32.
pub fn throughput(report: &ThroughputReport, format: Format) -> Output {
    let text = || {
        let mut out = format!(
            "{}: {} passages, {} tokens ({:.0} a passage), best of {} rounds, {} threads, int8 kernel {}\n",
            report.model,
            report.passages,
            report.tokens,
            report.tokens as f64 / report.passages.max(1) as f64,
            report.rounds,
            report.threads,
            report.int8_kernel
        );
        let _ = writeln!(
            out,
            "  {:<8} {:>8} {:>10} {:>10} {:>9}",
            "backend", "load s", "passages/s", "tokens/s", "seconds"
        );
        for run in &report.runs {
            let _ = writeln!(
                out,
                "  {:<8} {:>8.2} {:>10.1} {:>10.0} {:>9.2}",
                run.backend,
                run.load_seconds,
                run.passages_per_second,
                run.tokens_per_second,
                run.seconds
            );
        }
        if let (Some(min), Some(mean)) = (report.cosine_min, report.cosine_mean) {
            let _ = writeln!(out, "  cosine int8 vs f32: min {min:.4}, mean {mean:.4}");
        }
        out
    };
    Output::either(format, text, || json!(report))
}
