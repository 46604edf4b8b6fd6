//! Diversity (issue 26, part 5): Maximal Marginal Relevance over a ranked search's fused list,
//! so that five near-identical notes do not fill the first five places. Each place goes to the
//! candidate with the best `λ · relevance − (1 − λ) · similarity to the places already
//! filled`. Notes are compared by their vectors when every candidate has one (the best passage
//! the vector ranking found, else the note as a whole), else by the words of the passage the
//! reranker would read (Jaccard over `index::terms`).

use std::collections::{HashMap, HashSet};

use super::rerank::candidate_text;
use super::rows::str_field;
use super::Result;
use index::terms::terms;
use index::Index;

/// MMR's trade-off: the share of relevance against novelty. 0.7 is the usual choice when the
/// source server gives none (docs/compat-tools.md, "Diversity").
pub(crate) const LAMBDA: f64 = 0.7;

/// The order in which MMR fills the first `places` of a ranking: positions into it. Relevance
/// is taken relative to the best candidate's (scores of every fusion are positive), so λ
/// weighs it against a similarity on the same 0..1 scale whatever the depth of the pool;
/// scores that are not all positive are scaled over their range. Ties go to the candidate
/// ranked first.
pub(crate) fn mmr_order(
    relevance: &[f64],
    similarity: impl Fn(usize, usize) -> f64,
    lambda: f64,
    places: usize,
) -> Vec<usize> {
    let max = relevance.iter().copied().fold(f64::MIN, f64::max);
    let min = relevance.iter().copied().fold(f64::MAX, f64::min);
    let scaled: Vec<f64> = if min >= 0.0 && max > 0.0 {
        relevance.iter().map(|r| r / max).collect()
    } else {
        let span = (max - min).max(f64::EPSILON);
        relevance.iter().map(|r| (r - min) / span).collect()
    };
    let mut closest = vec![f64::MIN; relevance.len()];
    let mut taken = vec![false; relevance.len()];
    let mut order = Vec::with_capacity(places.min(relevance.len()));
    while order.len() < places.min(relevance.len()) {
        let mut best: Option<(usize, f64)> = None;
        for (i, &rel) in scaled.iter().enumerate() {
            if taken[i] {
                continue;
            }
            let redundancy = if order.is_empty() { 0.0 } else { closest[i] };
            let value = lambda * rel - (1.0 - lambda) * redundancy;
            if best.is_none_or(|(_, b)| value > b) {
                best = Some((i, value));
            }
        }
        let Some((pick, _)) = best else { break };
        taken[pick] = true;
        order.push(pick);
        for (i, c) in closest.iter_mut().enumerate() {
            if !taken[i] {
                *c = c.max(similarity(i, pick));
            }
        }
    }
    order
}

/// Jaccard similarity of two sets of terms (0 when both are empty).
fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    let union = a.union(b).count();
    if union == 0 {
        return 0.0;
    }
    a.intersection(b).count() as f64 / union as f64
}

/// Reorders the first `places` of `fused` (document ids, best first) by MMR over the
/// first `pool`; the rest keep their order below. Scores are capped at the one above, so
/// that results merged by score across projects keep this order.
pub(super) fn diversify(
    index: &Index,
    project: &str,
    fused: &mut Vec<(String, f64)>,
    best_passages: &HashMap<String, u32>,
    terms_of_query: &[String],
    pool: usize,
    places: usize,
) -> Result<()> {
    let pool = pool.min(fused.len());
    if pool < 2 {
        return Ok(());
    }
    let ids: Vec<String> = fused[..pool].iter().map(|(id, _)| id.clone()).collect();
    let docs = index.search_documents_by_id(&ids)?;
    let note_ids: Vec<Option<&str>> = docs
        .iter()
        .map(|d| d.as_ref().and_then(|(_, doc)| str_field(doc, "note_id")))
        .collect();
    let vectors: Option<Vec<Vec<f32>>> = match note_ids.iter().copied().collect::<Option<Vec<_>>>()
    {
        Some(notes) => {
            let asked: Vec<(&str, Option<u32>)> = notes
                .iter()
                .map(|&n| (n, best_passages.get(n).copied()))
                .collect();
            index
                .vectors
                .directions(project, &asked)?
                .into_iter()
                .collect()
        }
        None => None,
    };
    let relevance: Vec<f64> = fused[..pool].iter().map(|(_, s)| *s).collect();
    let order = match vectors {
        Some(vectors) => mmr_order(
            &relevance,
            |a, b| {
                vectors[a]
                    .iter()
                    .zip(&vectors[b])
                    .map(|(x, y)| f64::from(x * y))
                    .sum()
            },
            LAMBDA,
            places,
        ),
        None => {
            let words: Vec<HashSet<String>> = docs
                .iter()
                .map(|d| match d {
                    Some((_, doc)) => terms(&candidate_text(doc, best_passages, terms_of_query))
                        .into_iter()
                        .collect(),
                    None => HashSet::new(),
                })
                .collect();
            mmr_order(
                &relevance,
                |a, b| jaccard(&words[a], &words[b]),
                LAMBDA,
                places,
            )
        }
    };
    let mut head: Vec<(String, f64)> = order.iter().map(|&i| fused[i].clone()).collect();
    let picked: HashSet<usize> = order.into_iter().collect();
    head.extend(
        (0..pool)
            .filter(|i| !picked.contains(i))
            .map(|i| fused[i].clone()),
    );
    fused.splice(..pool, head);
    let mut above = f64::INFINITY;
    for (_, score) in fused.iter_mut() {
        *score = score.min(above);
        above = *score;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mmr_lets_a_distinct_candidate_past_near_duplicates() {
        // Five near-duplicates (0..5) ranked first, a distinct candidate (5) sixth, a weak
        // one (6) last.
        let relevance = [1.0, 0.98, 0.96, 0.94, 0.92, 0.90, 0.50];
        let similar = |a: usize, b: usize| if a < 5 && b < 5 { 0.95 } else { 0.05 };
        #[rustfmt::skip]
        let rows: [(f64, usize, &[usize]); 4] = [
            // (λ, places, order)
            (1.0, 7, &[0, 1, 2, 3, 4, 5, 6]),    // relevance alone: the ranking as it was
            (LAMBDA, 3, &[0, 5, 1]),              // the distinct one second
            (LAMBDA, 7, &[0, 5, 1, 2, 3, 4, 6]),  // then the duplicates in their order
            (LAMBDA, 0, &[]),
        ];
        for (lambda, places, want) in rows {
            assert_eq!(
                mmr_order(&relevance, similar, lambda, places),
                want,
                "λ {lambda}, {places} places"
            );
        }
    }

    #[test]
    fn without_redundancy_mmr_keeps_the_ranking_and_equal_relevance_keeps_first_seen_order() {
        let apart = |_: usize, _: usize| 0.0;
        assert_eq!(mmr_order(&[3.0, 2.0, 1.0], apart, LAMBDA, 3), [0, 1, 2]);
        assert_eq!(mmr_order(&[1.0, 1.0, 1.0], apart, LAMBDA, 3), [0, 1, 2]);
    }

    #[test]
    fn jaccard_is_shared_terms_over_all_terms() {
        let set = |s: &str| terms(s).into_iter().collect::<HashSet<_>>();
        assert_eq!(jaccard(&set("alpha beta"), &set("beta alpha")), 1.0);
        assert_eq!(jaccard(&set("alpha beta"), &set("beta gamma")), 1.0 / 3.0);
        assert_eq!(jaccard(&set(""), &set("")), 0.0);
    }
}
