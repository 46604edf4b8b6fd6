//! Retrieval quality: runs graded queries through search_notes (default arguments, as an agent
//! calls it) and scores the ranked notes with the metrics of obsidian-hybrid-search's
//! evaluation: nDCG@5/@10, MRR, Hit@1/3/5 and Recall@10, overall and by category.

pub use vault::generate::GeneratedVault;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::{Deserialize, Serialize};

use super::search::{Fusion, SearchRequest};
use super::semantic::EmbedProgress;
use super::sync::SyncEvent;
use super::{Result, UserError};
use crate::config::Project;
use crate::Engine;

/// One graded query: paths relative to the project root.
#[derive(Debug, Clone, Deserialize)]
pub struct GoldenQuery {
    #[serde(default)]
    pub id: String,
    pub query: String,
    /// Relevance 1.0.
    pub relevant_paths: Vec<String>,
    /// Relevance 0.5.
    #[serde(default)]
    pub partial_paths: Vec<String>,
    #[serde(default = "uncategorized")]
    pub category: String,
}

fn uncategorized() -> String {
    "all".to_string()
}

/// The metrics of one query, or their mean over several.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct Scores {
    pub ndcg_at_5: f64,
    pub ndcg_at_10: f64,
    pub mrr: f64,
    pub hit_at_1: f64,
    pub hit_at_3: f64,
    pub hit_at_5: f64,
    /// The share of the relevant notes in the top 5 (the same as Hit@5 when one is relevant).
    pub recall_at_5: f64,
    pub recall_at_10: f64,
}

impl Scores {
    fn mean<'a>(all: impl IntoIterator<Item = &'a Scores>) -> Scores {
        let mut sum = Scores::default();
        let mut n = 0.0;
        for s in all {
            sum.ndcg_at_5 += s.ndcg_at_5;
            sum.ndcg_at_10 += s.ndcg_at_10;
            sum.mrr += s.mrr;
            sum.hit_at_1 += s.hit_at_1;
            sum.hit_at_3 += s.hit_at_3;
            sum.hit_at_5 += s.hit_at_5;
            sum.recall_at_5 += s.recall_at_5;
            sum.recall_at_10 += s.recall_at_10;
            n += 1.0;
        }
        if n == 0.0 {
            return sum;
        }
        Scores {
            ndcg_at_5: sum.ndcg_at_5 / n,
            ndcg_at_10: sum.ndcg_at_10 / n,
            mrr: sum.mrr / n,
            hit_at_1: sum.hit_at_1 / n,
            hit_at_3: sum.hit_at_3 / n,
            hit_at_5: sum.hit_at_5 / n,
            recall_at_5: sum.recall_at_5 / n,
            recall_at_10: sum.recall_at_10 / n,
        }
    }
}

fn ndcg(gains: &[f64], ideal: &[f64], k: usize) -> f64 {
    let dcg = |g: &[f64]| -> f64 {
        g.iter()
            .take(k)
            .enumerate()
            .map(|(i, rel)| rel / (i as f64 + 2.0).log2())
            .sum()
    };
    let best = dcg(ideal);
    if best == 0.0 {
        0.0
    } else {
        dcg(gains) / best
    }
}

/// Scores one ranked list of note paths. Repeated paths count once, at their first rank.
pub fn score(ranked: &[String], query: &GoldenQuery) -> Scores {
    let mut distinct: Vec<&str> = Vec::new();
    for path in ranked {
        if !distinct.contains(&path.as_str()) {
            distinct.push(path);
        }
    }
    let relevant = |p: &str| query.relevant_paths.iter().any(|r| r == p);
    let partial = |p: &str| query.partial_paths.iter().any(|r| r == p);
    let gains: Vec<f64> = distinct
        .iter()
        .map(|p| {
            if relevant(p) {
                1.0
            } else if partial(p) {
                0.5
            } else {
                0.0
            }
        })
        .collect();
    let ideal: Vec<f64> = std::iter::repeat_n(1.0, query.relevant_paths.len())
        .chain(std::iter::repeat_n(0.5, query.partial_paths.len()))
        .collect();
    let first_relevant = distinct.iter().take(10).position(|p| relevant(p));
    let hit = |k: usize| f64::from(u8::from(first_relevant.is_some_and(|i| i < k)));
    let recall = |k: usize| {
        let found = distinct.iter().take(k).filter(|p| relevant(p)).count();
        if query.relevant_paths.is_empty() {
            0.0
        } else {
            found as f64 / query.relevant_paths.len() as f64
        }
    };
    Scores {
        ndcg_at_5: ndcg(&gains, &ideal, 5),
        ndcg_at_10: ndcg(&gains, &ideal, 10),
        mrr: first_relevant.map_or(0.0, |i| 1.0 / (i as f64 + 1.0)),
        hit_at_1: hit(1),
        hit_at_3: hit(3),
        hit_at_5: hit(5),
        recall_at_5: recall(5),
        recall_at_10: recall(10),
    }
}

/// What one query returned, for reading the misses.
#[derive(Debug, Clone, Serialize)]
pub struct QueryOutcome {
    pub id: String,
    pub query: String,
    pub category: String,
    pub scores: Scores,
    pub top: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct RetrievalReport {
    pub search_type: String,
    /// Set when the search ran in another mode than asked (no model installed, say).
    pub notice: Option<String>,
    pub queries: usize,
    pub overall: Scores,
    pub by_category: BTreeMap<String, Scores>,
    pub latency_p50_ms: f64,
    pub latency_p95_ms: f64,
    pub outcomes: Vec<QueryOutcome>,
}

/// A golden set read from its file and checked against the vault it grades.
#[derive(Debug, Clone)]
pub struct GoldenSet {
    pub queries: Vec<GoldenQuery>,
    /// Golden paths that name no file of the vault: a golden set made for another copy of it.
    pub missing: Vec<String>,
}

/// Why a golden set could not be read.
#[derive(Debug, thiserror::Error)]
pub enum GoldenError {
    #[error("reading the golden set {}", .file.display())]
    Read {
        file: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is not a list of graded queries", .file.display())]
    NotGraded {
        file: PathBuf,
        #[source]
        source: serde_json::Error,
    },
}

/// Reads the graded queries of `file` (a JSON list of {query, relevant_paths, partial_paths,
/// category}) and finds the paths that name no file of `vault`.
pub fn golden_set(file: &Path, vault: &Path) -> std::result::Result<GoldenSet, GoldenError> {
    let text = vault::fs::read_text(file).map_err(|source| GoldenError::Read {
        file: file.to_path_buf(),
        source,
    })?;
    let queries: Vec<GoldenQuery> =
        serde_json::from_str(&text).map_err(|source| GoldenError::NotGraded {
            file: file.to_path_buf(),
            source,
        })?;
    Ok(GoldenSet {
        missing: missing_paths(vault, &queries),
        queries,
    })
}

fn missing_paths(vault: &Path, golden: &[GoldenQuery]) -> Vec<String> {
    let mut missing: Vec<String> = golden
        .iter()
        .flat_map(|q| q.relevant_paths.iter().chain(&q.partial_paths))
        .filter(|p| !vault.join(p).is_file())
        .cloned()
        .collect();
    missing.sort();
    missing.dedup();
    missing
}

/// Indexes a copy of `vault` as the default project of a fresh data root (the vault itself is
/// only read), with `model` installed there when given (a model source, as `gitmem model
/// install` takes), then evaluates each search type on it.
pub fn benchmark(
    vault: &Path,
    golden: &[GoldenQuery],
    search_types: &[String],
    model: Option<&str>,
    keep_root: Option<&Path>,
    on_event: &(dyn Fn(SyncEvent) + Sync),
    on_embed: &dyn Fn(EmbedProgress),
) -> Result<Vec<RetrievalReport>> {
    if !vault.is_dir() {
        return Err(UserError::VaultNotAFolder(vault.to_path_buf()).into());
    }
    let temporary = tempfile::tempdir()?;
    let root = keep_root.unwrap_or(temporary.path());
    let copy = root.join("projects/main");
    copy_tree(vault, &copy)?;
    let engine = Engine::open(root)?;
    if let Some(source) = model {
        crate::models::install_model(&engine, source, None, &|_| {})?;
    }
    let project = crate::scope::project(&engine.store, None)?;
    crate::sync::rebuild_project(&engine, &project, on_event)?;
    crate::semantic::embed_pending(&engine, on_embed)?;
    let reports = search_types
        .iter()
        .map(|kind| evaluate_retrieval(&engine, &project, golden, kind))
        .collect();
    engine.close();
    reports
}

/// Copies the files of `from` (not its hidden folders, which gitmem never indexes) to `to`.
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    let hidden =
        |e: &walkdir::DirEntry| e.depth() > 0 && e.file_name().to_string_lossy().starts_with('.');
    for entry in walkdir::WalkDir::new(from)
        .into_iter()
        .filter_entry(|e| !hidden(e))
    {
        let entry = entry?;
        let target = to.join(entry.path().strip_prefix(from).unwrap_or(entry.path()));
        if entry.file_type().is_dir() {
            vault::fs::make_dirs(&target)?;
        } else if entry.file_type().is_file() {
            vault::fs::copy_file(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// Runs every golden query through search_notes with default arguments (ten results) in
/// `search_type` mode and scores the notes it returned.
pub(crate) fn evaluate_retrieval(
    engine: &Engine,
    project: &Project,
    golden: &[GoldenQuery],
    search_type: &str,
) -> Result<RetrievalReport> {
    // `hybrid:score` measures score fusion against the default RRF, `hybrid:w25` RRF with
    // the vector ranking's votes weighted 0.25.
    // `+mmr` after any of them (`hybrid+mmr`) diversifies the results.
    let label = search_type;
    let (search_type, diversify) = match search_type.strip_suffix("+mmr") {
        Some(kind) => (kind, true),
        None => (search_type, false),
    };
    let weight = |w: &str| w.strip_prefix('w')?.parse().ok().filter(|&w: &u8| w <= 100);
    let (kind, fusion) = match search_type.split_once(':') {
        Some((kind, "score")) => (kind, Fusion::Score),
        Some((kind, variant)) => match weight(variant) {
            Some(w) => (kind, Fusion::VectorWeighted(w)),
            None => (search_type, Fusion::Rrf),
        },
        None => (search_type, Fusion::Rrf),
    };
    let mut outcomes = Vec::with_capacity(golden.len());
    let mut latencies = Vec::with_capacity(golden.len());
    let mut notice = None;
    for query in golden {
        let request = SearchRequest {
            query: Some(query.query.clone()),
            search_type: Some(kind.to_string()),
            fusion,
            diversify,
            ..SearchRequest::default()
        };
        let started = Instant::now();
        let response = crate::search::search(engine, project, &request)?;
        latencies.push(started.elapsed().as_secs_f64() * 1000.0);
        notice = notice.or(response.notice);
        let top: Vec<String> = response.results.into_iter().map(|r| r.file_path).collect();
        outcomes.push(QueryOutcome {
            id: query.id.clone(),
            query: query.query.clone(),
            category: query.category.clone(),
            scores: score(&top, query),
            top,
        });
    }
    let mut categories: BTreeMap<String, Vec<Scores>> = BTreeMap::new();
    for outcome in &outcomes {
        categories
            .entry(outcome.category.clone())
            .or_default()
            .push(outcome.scores);
    }
    latencies.sort_by(f64::total_cmp);
    let percentile = |p: f64| -> f64 {
        if latencies.is_empty() {
            return 0.0;
        }
        let rank = ((p * latencies.len() as f64).ceil() as usize).clamp(1, latencies.len());
        latencies[rank - 1]
    };
    Ok(RetrievalReport {
        search_type: label.to_string(),
        notice,
        queries: outcomes.len(),
        overall: Scores::mean(outcomes.iter().map(|o| &o.scores)),
        by_category: categories
            .iter()
            .map(|(name, scores)| (name.clone(), Scores::mean(scores)))
            .collect(),
        latency_p50_ms: percentile(0.50),
        latency_p95_ms: percentile(0.95),
        outcomes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn golden(relevant: &[&str], partial: &[&str]) -> GoldenQuery {
        GoldenQuery {
            id: "q".into(),
            query: "q".into(),
            relevant_paths: relevant.iter().map(|s| s.to_string()).collect(),
            partial_paths: partial.iter().map(|s| s.to_string()).collect(),
            category: "all".into(),
        }
    }

    fn ranked(paths: &[&str]) -> Vec<String> {
        paths.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn metrics_follow_the_published_definitions() {
        let log = |i: f64| 1.0 / (i + 2.0).log2();
        struct Case {
            name: &'static str,
            ranked: &'static [&'static str],
            relevant: &'static [&'static str],
            partial: &'static [&'static str],
            ndcg5: f64,
            mrr: f64,
            hits: [f64; 3],
            recall: f64,
        }
        let cases = [
            Case {
                name: "relevant first",
                ranked: &["a", "x"],
                relevant: &["a"],
                partial: &[],
                ndcg5: 1.0,
                mrr: 1.0,
                hits: [1.0, 1.0, 1.0],
                recall: 1.0,
            },
            Case {
                name: "relevant third, partial first",
                ranked: &["p", "x", "a"],
                relevant: &["a"],
                partial: &["p"],
                ndcg5: (0.5 * log(0.0) + log(2.0)) / (log(0.0) + 0.5 * log(1.0)),
                mrr: 1.0 / 3.0,
                hits: [0.0, 1.0, 1.0],
                recall: 1.0,
            },
            Case {
                name: "repeated paths count once",
                ranked: &["x", "x", "x", "a"],
                relevant: &["a"],
                partial: &[],
                ndcg5: log(1.0),
                mrr: 0.5,
                hits: [0.0, 1.0, 1.0],
                recall: 1.0,
            },
            Case {
                name: "relevant sixth: no hit at 5, still in MRR",
                ranked: &["1", "2", "3", "4", "5", "a"],
                relevant: &["a", "b"],
                partial: &[],
                ndcg5: 0.0,
                mrr: 1.0 / 6.0,
                hits: [0.0, 0.0, 0.0],
                recall: 0.5,
            },
            Case {
                name: "only a partial found",
                ranked: &["p"],
                relevant: &["a"],
                partial: &["p"],
                ndcg5: 0.5 / (1.0 + 0.5 * log(1.0)),
                mrr: 0.0,
                hits: [0.0, 0.0, 0.0],
                recall: 0.0,
            },
            Case {
                name: "nothing found",
                ranked: &[],
                relevant: &["a"],
                partial: &[],
                ndcg5: 0.0,
                mrr: 0.0,
                hits: [0.0, 0.0, 0.0],
                recall: 0.0,
            },
        ];
        for case in cases {
            let s = score(&ranked(case.ranked), &golden(case.relevant, case.partial));
            let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
            assert!(close(s.ndcg_at_5, case.ndcg5), "{}: {s:?}", case.name);
            assert!(close(s.mrr, case.mrr), "{}: {s:?}", case.name);
            assert_eq!(
                [s.hit_at_1, s.hit_at_3, s.hit_at_5],
                case.hits,
                "{}",
                case.name
            );
            assert!(close(s.recall_at_10, case.recall), "{}: {s:?}", case.name);
        }
    }

    #[test]
    fn recall_is_the_share_of_relevant_notes_found_in_the_top_k() {
        let s = score(
            &ranked(&["x", "a", "x2", "x3", "x4", "x5", "b"]),
            &golden(&["a", "b"], &[]),
        );
        assert_eq!((s.recall_at_5, s.recall_at_10), (0.5, 1.0));
        assert_eq!(s.hit_at_5, 1.0, "a hit needs one relevant note, recall all");
    }

    #[test]
    fn means_are_per_metric() {
        let a = score(&ranked(&["a"]), &golden(&["a"], &[]));
        let b = score(&ranked(&["x"]), &golden(&["a"], &[]));
        let m = Scores::mean([&a, &b]);
        assert_eq!(m.hit_at_1, 0.5);
        assert_eq!(m.mrr, 0.5);
    }
}
