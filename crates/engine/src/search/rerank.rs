//! Reranking, as Basic Memory 0.23 does it: the chosen cross-encoder reads the query with each
//! of the first N fused results (N = `[search] reranker_candidates`) and reorders them by its
//! score; the results below N keep their fused order under them. The same first N are
//! reranked whatever page is asked, so pages stay consistent with each other.

use std::collections::HashMap;

use super::rows::str_field;
use crate::Engine;
use index::query::Document;
use note::chunk::{best_matching, passages};

/// Logits beyond this say no more about order, and the sigmoid of one further out rounds to 0
/// or 1 (ties).
const LOGIT_LIMIT: f32 = 30.0;

/// What the cross-encoder reads of a result: a note's passage the vector ranking found most
/// like the query, else the one holding most query terms, else its first (each with the note's
/// title and heading, as embedding reads it).
pub(super) fn candidate_text(
    doc: &Document,
    best_passages: &HashMap<String, u32>,
    terms: &[String],
) -> String {
    let title = str_field(doc, "title").unwrap_or_default();
    let content = str_field(doc, "content").unwrap_or_default();
    let mut all = passages(title, content);
    let best = str_field(doc, "note_id")
        .and_then(|id| best_passages.get(id))
        .map(|&p| p as usize)
        .filter(|&p| p < all.len())
        .or_else(|| best_matching(&all, terms))
        .unwrap_or(0);
    if best < all.len() {
        all.swap_remove(best).text
    } else {
        title.to_string()
    }
}

/// A logit as a relevance in (0, 1), comparable between projects reranked by the same model.
fn relevance(logit: f32) -> f64 {
    let x = f64::from(logit.clamp(-LOGIT_LIMIT, LOGIT_LIMIT));
    1.0 / (1.0 + (-x).exp())
}

/// Reorders the first `reranker_candidates` of `fused` (document ids, best first) by the
/// reranker's score for `query`; their scores become its relevance, and the scores of
/// the rest are put below the lowest of those in the same order, so that results merged
/// by score across projects keep each project's order. Without a working reranker
/// `fused` is left as it is.
pub(super) fn rerank(
    engine: &Engine,
    query: &str,
    terms: &[String],
    best_passages: &HashMap<String, u32>,
    fused: &mut [(String, f64)],
) -> super::Result<()> {
    let Some(reranker) = crate::reranker::reranker(engine) else {
        return Ok(());
    };
    let count = crate::reranker::reranker_candidates(&engine.store).min(fused.len());
    if count == 0 {
        return Ok(());
    }
    let ids: Vec<String> = fused[..count].iter().map(|(id, _)| id.clone()).collect();
    let texts: Vec<String> = engine
        .store
        .index
        .search_documents_by_id(&ids)?
        .iter()
        .map(|doc| {
            doc.as_ref()
                .map(|(_, doc)| candidate_text(doc, best_passages, terms))
                .unwrap_or_default()
        })
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let logits = match reranker.score(query, &texts) {
        Ok(logits) => logits,
        Err(e) => {
            crate::reranker::reranker_failed(engine, &format!("{} failed: {e}", reranker.name()));
            return Ok(());
        }
    };
    let (head, tail) = fused.split_at_mut(count);
    for ((_, score), logit) in head.iter_mut().zip(logits) {
        *score = relevance(logit);
    }
    // Stable: equal scores keep their fused order.
    head.sort_by(|a, b| b.1.total_cmp(&a.1));
    let floor = head.last().map_or(0.0, |(_, s)| *s);
    let below = tail.len() as f64 + 1.0;
    for (i, (_, score)) in tail.iter_mut().enumerate() {
        *score = floor * (below - 1.0 - i as f64) / below;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relevance_orders_as_the_logits_do_and_stays_inside_zero_and_one() {
        let logits = [-1000.0, -31.0, -3.0, 0.0, 2.5, 31.0, 1000.0];
        let scores: Vec<f64> = logits.iter().map(|&l| relevance(l)).collect();
        assert!(scores.windows(2).all(|w| w[0] <= w[1]), "{scores:?}");
        assert!(scores.iter().all(|&s| s > 0.0 && s < 1.0), "{scores:?}");
        assert!((relevance(0.0) - 0.5).abs() < 1e-12);
    }
}
