//! Ranked search for natural-language queries: lexical rankings (naming fields, body
//! relevance) fused into one, a vector ranking of notes by their passages, and the hybrid
//! fusion of the two. The naming and body rankings of notes score in one unit, the rarity
//! (IDF) of the query words a note holds, so their evidence adds up, as a title field does in
//! BM25F. Rankings in different units (milli's buckets, cosine similarity) are fused by
//! reciprocal rank (RRF), which needs no calibration between them; the one score read across
//! notes there is the vector ranking's own spread, which sets its vote.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use super::lexical::{BodyScope, Lexical};
use super::query::ParsedQuery;
use super::rows::str_field;
use super::{Fusion, Result, SearchMode, SearchRequest};
use crate::config::Project;
use crate::Engine;
use index::documents::entity_doc_id;
use index::query::{Hit, Query};
use index::vectors::VectorHit;
use index::Index;

/// RRF's constant: how much the first ranks count over the next ones (the usual 60).
const RRF_K: f64 = 60.0;
/// How deep each ranking goes before fusion: a note below this rank in every ranking cannot
/// reach the first page.
const FUSION_DEPTH: usize = 100;

/// Fuses rankings of document ids with their scores (best first): `Σ 1 / (RRF_K + rank)`,
/// best first; ties in the fusion go to the id seen first. Documents a ranking scores alike
/// share their rank: a ranking that cannot tell them apart (every session titled with the same
/// two names) must not order them by chance and outvote the rankings that can.
pub(super) fn rrf(rankings: &[&[(String, f64)]]) -> Vec<(String, f64)> {
    let counted: Vec<(&[(String, f64)], f64)> = rankings.iter().map(|r| (*r, 1.0)).collect();
    rrf_weighted(&counted)
}

/// [`rrf`] with each ranking's votes multiplied by its weight.
fn rrf_weighted(rankings: &[(&[(String, f64)], f64)]) -> Vec<(String, f64)> {
    let mut scores: HashMap<&str, (f64, usize)> = HashMap::new();
    let mut order = 0;
    for &(ranking, weight) in rankings {
        let mut rank = 0;
        for (position, (id, score)) in ranking.iter().enumerate() {
            if position > 0 && ranking[position - 1].1 != *score {
                rank = position;
            }
            let entry = scores.entry(id).or_insert_with(|| {
                order += 1;
                (0.0, order)
            });
            entry.0 += weight / (RRF_K + rank as f64 + 1.0);
        }
    }
    let mut fused: Vec<(String, f64, usize)> = scores
        .into_iter()
        .map(|(id, (score, first))| (id.to_string(), score, first))
        .collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    fused
        .into_iter()
        .map(|(id, score, _)| (id, score))
        .collect()
}

/// Adds up the scores of rankings that score in one unit, best first; ties go to the id seen
/// first. A note that one ranking puts far ahead keeps its lead, where RRF would count only its
/// rank: a note whose body is the only one to say the rare word of the question ("slideshow")
/// must not fall behind notes whose titles hold the question's common words.
pub(super) fn evidence_sum(rankings: &[&[(String, f64)]]) -> Vec<(String, f64)> {
    let mut scores: HashMap<&str, (f64, usize)> = HashMap::new();
    for (id, score) in rankings.iter().flat_map(|r| r.iter()) {
        let seen = scores.len();
        scores.entry(id).or_insert((0.0, seen)).0 += score;
    }
    let mut summed: Vec<(&str, f64, usize)> = scores
        .into_iter()
        .map(|(id, (score, first))| (id, score, first))
        .collect();
    summed.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
    summed
        .into_iter()
        .map(|(id, score, _)| (id.to_string(), score))
        .collect()
}

/// How far the vector ranking's best note must stand above its tenth (in cosine similarity)
/// for the ranking to count as much as the text ranking.
const CONFIDENT_GAP: f64 = 0.15;
/// The most the vector ranking counts against the text ranking's one vote.
const MOST_VECTOR_VOTE: f64 = 1.5;

/// The vector ranking's vote in hybrid fusion, by how sharply it tells notes apart. A query
/// whose meaning is close to many notes alike (a bag of words about one speaker's chats, every
/// session similar) gives a flat similarity profile: its order is near chance and must not
/// outvote a text ranking that found the rare words. A query that one note answers clearly
/// gives a steep one. The vote grows with the square of the gap between the first and the
/// tenth similarity, so a flat profile counts for little. Measured in docs/search-quality.md
/// ("The vector ranking's vote").
fn vector_vote(vector: &[(String, f64)]) -> f64 {
    let (Some((_, first)), Some((_, tenth))) = (vector.first(), vector.get(9).or(vector.last()))
    else {
        return 0.0;
    };
    ((first - tenth) / CONFIDENT_GAP)
        .powi(2)
        .min(MOST_VECTOR_VOTE)
}

/// Scores scaled to 0..1 within their ranking (best = 1, worst = 0), then averaged; a note
/// missing from one ranking gets 0 there. The alternative to RRF that docs/search-quality.md
/// measures.
fn score_fusion(lexical: &[(String, f64)], vector: &[(String, f64)]) -> Vec<(String, f64)> {
    fn scaled(ranking: &[(String, f64)]) -> HashMap<&str, f64> {
        let max = ranking.iter().map(|r| r.1).fold(f64::MIN, f64::max);
        let min = ranking.iter().map(|r| r.1).fold(f64::MAX, f64::min);
        let span = (max - min).max(f64::EPSILON);
        ranking
            .iter()
            .map(|(id, s)| (id.as_str(), (s - min) / span))
            .collect()
    }
    let (l, v) = (scaled(lexical), scaled(vector));
    let mut fused: Vec<(String, f64)> = lexical
        .iter()
        .chain(vector)
        .map(|(id, _)| id.as_str())
        .collect::<HashSet<&str>>()
        .into_iter()
        .map(|id| {
            let score =
                0.5 * l.get(id).copied().unwrap_or(0.0) + 0.5 * v.get(id).copied().unwrap_or(0.0);
            (id.to_string(), score)
        })
        .collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    fused
}

/// The notes the filters let through (all when unfiltered), computed once by whichever
/// ranking asks first, so that the work runs beside the other ranking's and not before both.
pub(super) struct Passing<'a> {
    index: &'a Index,
    query: &'a Query,
    filtered: bool,
    notes: Mutex<Option<Arc<HashSet<String>>>>,
}

impl Passing<'_> {
    pub(super) fn notes(&self) -> Result<Option<Arc<HashSet<String>>>> {
        if !self.filtered {
            return Ok(None);
        }
        let mut notes = self.notes.lock().unwrap_or_else(|e| e.into_inner());
        if notes.is_none() {
            *notes = Some(Arc::new(notes_passing(self.index, self.query)?));
        }
        Ok(notes.clone())
    }
}

/// A ranked search's page.
pub(super) struct Ranked {
    pub total: u64,
    pub total_is_exact: bool,
    pub hits: Vec<Hit>,
    /// Note id -> the passage the vector ranking found most similar.
    pub best_passages: HashMap<String, u32>,
    /// The rankings behind the page, when asked for.
    pub explanation: Option<Explanation>,
}

/// How a ranked search runs.
#[derive(Debug, Clone, Copy)]
pub(super) struct RankedRun {
    pub mode: SearchMode,
    /// Whether filters beyond project and row type apply.
    pub filtered: bool,
    /// Whether to keep the rankings for `inspect query`.
    pub explain: bool,
}

/// A ranking of search documents (their ids), best first, with each one's score.
pub type Ranking = Vec<(String, f64)>;

/// Every ranking a ranked search fused and the fused order, as the search ran them: what
/// `inspect query` shows. Filled by [`search_ranked`] itself when asked, so it cannot
/// drift from what search_notes does.
#[derive(Debug, Clone)]
pub struct Explanation {
    pub mode: SearchMode,
    /// By what a note is named: the summed IDF of the query's words in its title, aliases,
    /// tags and permalink (empty in vector mode).
    pub names: Ranking,
    /// By what a note says: BM25 over its body (empty in vector mode).
    pub said: Ranking,
    /// `names` and `said` fused: their scores summed.
    pub lexical: Ranking,
    pub vector: VectorRanking,
    pub fused_by: FusedBy,
    /// The final order, reranked when `reranked`.
    pub fused: Ranking,
    pub reranked: bool,
}

/// The vector ranking, or why there was none.
#[derive(Debug, Clone)]
pub enum VectorRanking {
    Ranked(Ranking),
    /// The search ran as a text search (no model is chosen, or text was asked for).
    TextSearch,
    /// A model is chosen but could not be loaded (not installed yet).
    ModelUnavailable,
}

/// How the final order was made.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FusedBy {
    /// The lexical ranking alone.
    Lexical,
    /// The vector ranking alone (vector mode).
    Vector,
    /// Both, fused; `vector_weight` is the vector ranking's vote (RRF) where it has one.
    Hybrid {
        fusion: Fusion,
        vector_weight: Option<f64>,
    },
}

/// A natural-language query in `run.mode` (text, vector or hybrid). `query` carries the
/// stopword-free text, filters and page; `parsed` the query as asked, which the model
/// reads whole, and its terms.
pub(super) fn search_ranked(
    engine: &Engine,
    project: &Project,
    request: &SearchRequest,
    query: &Query,
    parsed: &ParsedQuery,
    run: RankedRun,
) -> Result<Ranked> {
    let RankedRun {
        mode,
        filtered,
        explain,
    } = run;
    // Hybrid and vector results are reranked when a reranker is chosen, text results never
    // (as in Basic Memory): the fusion must reach as deep as the reranker reads.
    let reranking = mode != SearchMode::Text && engine.store.config().search.reranker.is_some();
    let rerank_depth = if reranking {
        crate::reranker::reranker_candidates(&engine.store)
    } else {
        0
    };
    let window = (query.offset + query.limit)
        .max(FUSION_DEPTH)
        .max(rerank_depth);
    let passing = Passing {
        index: &engine.store.index,
        query,
        filtered,
        notes: Mutex::new(None),
    };
    // The query's embedding (milliseconds of model work) and the text rankings (a few
    // milli searches) do not depend on each other: run them side by side.
    // The side thread is the same client (read-your-writes).
    let client = index::horizon::current();
    let (lexical, vector) = std::thread::scope(|scope| {
        let vector = (mode != SearchMode::Text).then(|| {
            scope.spawn(|| -> Result<Option<Vec<VectorHit>>> {
                index::horizon::scope(&client, || {
                    let allowed = passing.notes()?;
                    crate::semantic::vector_ranking(
                        engine,
                        project,
                        &parsed.text,
                        window,
                        allowed.as_deref(),
                        request.min_similarity.map(|m| m as f32),
                    )
                })
            })
        });
        let lexical = if mode == SearchMode::Vector {
            Ok(Lexical {
                total: 0,
                complete: true,
                names: Vec::new(),
                said: Vec::new(),
                fused: Vec::new(),
            })
        } else {
            let body = BodyScope {
                project: &project.name,
                terms: &parsed.terms,
                passing: &passing,
            };
            crate::search::lexical::lexical_ranking(&engine.store.index, query, body, window)
        };
        let vector = match vector {
            Some(handle) => handle.join().unwrap_or_else(|_| {
                Err(super::super::InternalError::Panicked("the vector ranking").into())
            }),
            None => Ok(None),
        };
        (lexical, vector)
    });
    let lexical = lexical?;
    let vector_hits = vector?;
    let best_passages: HashMap<String, u32> = vector_hits
        .iter()
        .flatten()
        .map(|h| (h.note_id.clone(), h.passage))
        .collect();
    let vector: Option<Vec<(String, f64)>> = vector_hits.map(|hits| {
        hits.into_iter()
            .map(|h| (entity_doc_id(&h.note_id), f64::from(h.similarity)))
            .collect()
    });
    let (fused, total, exact, fused_by) = match &vector {
        None => (
            lexical.fused.clone(),
            lexical.total,
            lexical.complete,
            FusedBy::Lexical,
        ),
        Some(vector) if mode == SearchMode::Vector => {
            let count = vector.len() as u64;
            (vector.clone(), count, false, FusedBy::Vector)
        }
        Some(vector) => {
            let vector_weight = match request.fusion {
                Fusion::Rrf => Some(vector_vote(vector)),
                Fusion::Score => None,
                Fusion::VectorWeighted(w) => Some(f64::from(w) / 100.0),
            };
            let fused = match vector_weight {
                Some(weight) => rrf_weighted(&[(&lexical.fused, 1.0), (vector, weight)]),
                None => score_fusion(&lexical.fused, vector),
            };
            let total = lexical.total.max(fused.len() as u64);
            let fused_by = FusedBy::Hybrid {
                fusion: request.fusion,
                vector_weight,
            };
            (fused, total, false, fused_by)
        }
    };
    let mut fused = fused;
    if reranking {
        crate::search::rerank::rerank(
            engine,
            &parsed.text,
            &parsed.snippet_terms,
            &best_passages,
            &mut fused,
        )?;
    }
    // Boosts change the relevance that diversity then trades against redundancy.
    crate::search::boost::boost(&engine.store.index, &mut fused, request.boost)?;
    if request.diversify {
        crate::search::diverse::diversify(
            &engine.store.index,
            &project.name,
            &mut fused,
            &best_passages,
            &parsed.snippet_terms,
            window,
            query.offset + query.limit,
        )?;
    }
    let explanation = explain.then(|| Explanation {
        mode,
        vector: match vector {
            Some(vector) => VectorRanking::Ranked(vector),
            None if mode == SearchMode::Text => VectorRanking::TextSearch,
            None => VectorRanking::ModelUnavailable,
        },
        names: lexical.names,
        said: lexical.said,
        lexical: lexical.fused,
        fused_by,
        fused: fused.clone(),
        reranked: reranking,
    });
    let page: Vec<(String, f64)> = fused
        .into_iter()
        .skip(query.offset)
        .take(query.limit)
        .collect();
    let external: Vec<String> = page.iter().map(|(id, _)| id.clone()).collect();
    let docs = engine.store.index.search_documents_by_id(&external)?;
    let hits = page
        .into_iter()
        .zip(docs)
        .filter_map(|((_, score), doc)| doc.map(|(docid, doc)| Hit { doc, score, docid }))
        .collect();
    Ok(Ranked {
        total,
        total_is_exact: exact,
        hits,
        best_passages,
        explanation,
    })
}

/// Ids of the notes that pass the query's filters (for the vector ranking, which sees
/// only vectors).
fn notes_passing(index: &Index, query: &Query) -> Result<HashSet<String>> {
    let all = index.search(&Query {
        text: String::new(),
        offset: 0,
        limit: usize::MAX / 2,
        newest_first: false,
        load_only: Some(&["note_id"]),
        ..query.clone()
    })?;
    Ok(all
        .hits
        .iter()
        .filter_map(|h| str_field(&h.doc, "note_id").map(String::from))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A ranking with distinct scores, best first.
    fn ranking(ids: &[&str]) -> Vec<(String, f64)> {
        ids.iter()
            .enumerate()
            .map(|(i, s)| (s.to_string(), -(i as f64)))
            .collect()
    }

    #[test]
    fn rrf_rewards_agreement_and_keeps_first_seen_order_on_ties() {
        let fused = rrf(&[&ranking(&["a", "b", "c"]), &ranking(&["c", "b", "d"])]);
        let order: Vec<&str> = fused.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(order, ["c", "b", "a", "d"]);
        assert!((fused[1].1 - 2.0 / 62.0).abs() < 1e-12);
        let tie = rrf(&[&ranking(&["x"]), &ranking(&["y"])]);
        assert_eq!(tie[0].0, "x");
        assert!(rrf(&[]).is_empty());
    }

    #[test]
    fn evidence_adds_up_so_a_clear_lead_in_one_ranking_holds() {
        let names = vec![("create".to_string(), 3.0), ("markdown".to_string(), 2.5)];
        let body = vec![("slides".to_string(), 8.0), ("create".to_string(), 1.0)];
        let summed = evidence_sum(&[&names, &body]);
        let order: Vec<(&str, f64)> = summed.iter().map(|(id, s)| (id.as_str(), *s)).collect();
        assert_eq!(order, [("slides", 8.0), ("create", 4.0), ("markdown", 2.5)]);
        assert_eq!(
            rrf(&[&names, &body])[0].0,
            "create",
            "ranks alone would lose the lead"
        );
        let tie = evidence_sum(&[&ranking(&["x"]), &ranking(&["y"])]);
        assert_eq!(tie[0].0, "x", "a tie goes to the first seen");
        assert!(evidence_sum(&[]).is_empty());
    }

    #[test]
    fn a_weighted_rankings_votes_count_by_its_weight() {
        let text = ranking(&["a", "b"]);
        let vector = ranking(&["b", "a"]);
        let even = rrf_weighted(&[(&text, 1.0), (&vector, 1.0)]);
        assert_eq!(even[0].0, "a", "a tie goes to the first seen");
        let light = rrf_weighted(&[(&text, 1.0), (&vector, 0.25)]);
        let order: Vec<&str> = light.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(order, ["a", "b"]);
        assert!((light[0].1 - (1.0 / 61.0 + 0.25 / 62.0)).abs() < 1e-12);
        let heavy = rrf_weighted(&[(&text, 0.25), (&vector, 1.0)]);
        assert_eq!(heavy[0].0, "b");
    }

    #[test]
    fn the_vector_vote_follows_how_sharply_the_ranking_separates_notes() {
        let similarities = |s: &[f64]| -> Vec<(String, f64)> {
            s.iter()
                .enumerate()
                .map(|(i, &v)| (i.to_string(), v))
                .collect()
        };
        let ten = |first: f64, tenth: f64| {
            let mut s = vec![first];
            s.extend(std::iter::repeat_n(tenth, 9));
            s
        };
        let cases: [(&str, Vec<f64>, f64); 6] = [
            ("no hits", vec![], 0.0),
            ("a flat profile", ten(0.50, 0.50), 0.0),
            ("half the confident gap", ten(0.60, 0.525), 0.25),
            ("the confident gap", ten(0.70, 0.55), 1.0),
            ("a steep profile, capped", ten(0.90, 0.20), MOST_VECTOR_VOTE),
            ("fewer than ten hits: the last", vec![0.80, 0.65], 1.0),
        ];
        for (what, profile, vote) in cases {
            let got = vector_vote(&similarities(&profile));
            assert!((got - vote).abs() < 1e-9, "{what}: {got} != {vote}");
        }
    }

    #[test]
    fn documents_a_ranking_scores_alike_share_its_rank() {
        let tied = vec![
            ("a".to_string(), 2.0),
            ("b".to_string(), 2.0),
            ("c".to_string(), 1.0),
        ];
        let fused = rrf(&[&tied, &ranking(&["b", "a"])]);
        let order: Vec<&str> = fused.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(order, ["b", "a", "c"], "the second ranking decides the tie");
        assert!(
            (fused[2].1 - 1.0 / 63.0).abs() < 1e-12,
            "c ranks third, after two equals"
        );
    }
}
