//! Ranked search for natural-language queries: lexical rankings (naming fields, headings, all
//! text) fused into one, a vector ranking of notes by their passages, and the hybrid fusion of
//! the two. Every fusion is reciprocal-rank fusion (RRF): it needs no calibration between
//! scores of different kinds (milli's bucket ranks, summed IDF, cosine similarity), and a note
//! ranked well by several rankings rises above one ranked well by one.

use std::collections::{HashMap, HashSet};

use super::rows::str_field;
use super::{App, Fusion, Result, SearchMode, SearchRequest};
use crate::config::Project;
use crate::index::search::{entity_doc_id, Hit, Matching, Query};
use crate::index::vectors::VectorHit;

/// RRF's constant: how much the first ranks count over the next ones (the usual 60).
const RRF_K: f64 = 60.0;
/// How deep each ranking goes before fusion: a note below this rank in every ranking cannot
/// reach the first page.
const FUSION_DEPTH: usize = 100;

/// Fuses rankings of document ids (best first): `Σ 1 / (RRF_K + rank)`, best first; ties go
/// to the id seen first.
fn rrf(rankings: &[Vec<String>]) -> Vec<(String, f64)> {
    let mut scores: HashMap<&str, (f64, usize)> = HashMap::new();
    let mut order = 0;
    for ranking in rankings {
        for (rank, id) in ranking.iter().enumerate() {
            let entry = scores.entry(id).or_insert_with(|| {
                order += 1;
                (0.0, order)
            });
            entry.0 += 1.0 / (RRF_K + rank as f64 + 1.0);
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

fn ids(hits: Vec<Hit>) -> Vec<String> {
    hits.iter()
        .filter_map(|h| str_field(&h.doc, "id").map(String::from))
        .collect()
}

/// A ranked search's page.
pub(super) struct Ranked {
    pub total: u64,
    pub total_is_exact: bool,
    pub hits: Vec<Hit>,
    /// Note id -> the passage the vector ranking found most similar.
    pub best_passages: HashMap<String, u32>,
}

impl App {
    /// A natural-language query in `mode` (text, vector or hybrid). `query` carries the
    /// stopword-free text, filters and page; `raw` is the query as asked, which the model
    /// reads whole. `filtered` says whether filters beyond project and row type apply.
    pub(super) fn search_ranked(
        &self,
        project: &Project,
        request: &SearchRequest,
        query: &Query,
        raw: &str,
        mode: SearchMode,
        filtered: bool,
    ) -> Result<Ranked> {
        let window = (query.offset + query.limit).max(FUSION_DEPTH);
        let wants_notes = App::entity_types(request).iter().any(|t| t == "entity");
        // The query's embedding (milliseconds of model work) and the text rankings (a few
        // milli searches) do not depend on each other: run them side by side.
        let (lexical, vector) = std::thread::scope(|scope| {
            let vector = (mode != SearchMode::Text && wants_notes).then(|| {
                scope.spawn(|| -> Result<Option<Vec<VectorHit>>> {
                    let allowed = if filtered {
                        Some(self.notes_passing(query)?)
                    } else {
                        None
                    };
                    self.vector_ranking(
                        project,
                        raw,
                        window,
                        allowed.as_ref(),
                        request.min_similarity.map(|m| m as f32),
                    )
                })
            });
            let lexical = if mode == SearchMode::Vector {
                Ok((0, Vec::new()))
            } else {
                self.lexical_ranking(query, window)
            };
            let vector = match vector {
                Some(handle) => handle.join().unwrap_or_else(|_| {
                    Err(super::super::InternalError::Panicked("the vector ranking").into())
                }),
                None => Ok(None),
            };
            (lexical, vector)
        });
        let (lexical_total, lexical) = lexical?;
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
        let (fused, total, exact) = match vector {
            None => (lexical, lexical_total, true),
            Some(vector) if mode == SearchMode::Vector => {
                let count = vector.len() as u64;
                (vector, count, false)
            }
            Some(vector) => {
                let fused = match request.fusion {
                    Fusion::Rrf => {
                        let lexical_ids: Vec<String> =
                            lexical.into_iter().map(|(id, _)| id).collect();
                        let vector_ids: Vec<String> =
                            vector.into_iter().map(|(id, _)| id).collect();
                        rrf(&[lexical_ids, vector_ids])
                    }
                    Fusion::Score => score_fusion(&lexical, &vector),
                };
                let total = lexical_total.max(fused.len() as u64);
                (fused, total, false)
            }
        };
        let page: Vec<(String, f64)> = fused
            .into_iter()
            .skip(query.offset)
            .take(query.limit)
            .collect();
        let external: Vec<String> = page.iter().map(|(id, _)| id.clone()).collect();
        let docs = self.index.search_documents_by_id(&external)?;
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
        })
    }

    /// Ids of the notes that pass the query's filters (for the vector ranking, which sees
    /// only vectors).
    fn notes_passing(&self, query: &Query) -> Result<HashSet<String>> {
        let all = self.index.search(&Query {
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

    /// The query ranked separately within the fields that name a note (title, aliases, tags,
    /// path), within its headings, and by milli over all its text; the three fused by RRF. A
    /// note whose title names the topic rises above a long note that mentions every word in
    /// passing. Returns milli's count of matching documents and the fused ranking.
    fn lexical_ranking(&self, query: &Query, window: usize) -> Result<(u64, Vec<(String, f64)>)> {
        let everywhere = self.index.search(&Query {
            offset: 0,
            limit: window,
            load_only: Some(&["id"]),
            ..query.clone()
        })?;
        let in_scope = self.index.search(&Query {
            text: String::new(),
            offset: 0,
            limit: 0,
            newest_first: false,
            ..query.clone()
        })?;
        let documents = in_scope.total as f64;
        let names = ["title", "aliases", "tags", "permalink"];
        let rankings = [
            self.short_field_ranking(query, &names, window, documents)?,
            self.short_field_ranking(query, &["headings"], window, documents)?,
            ids(everywhere.hits),
        ];
        Ok((everywhere.total, rrf(&rankings)))
    }

    /// Documents whose short fields (a title, headings) hold words of the query, ranked by the
    /// summed rarity (BM25's IDF) of the words they hold: in a title every word counts, and a
    /// rare word says more than a common one. Among equals, the note with the shorter title is
    /// more about the query.
    fn short_field_ranking(
        &self,
        query: &Query,
        fields: &[&str],
        window: usize,
        documents: f64,
    ) -> Result<Vec<String>> {
        let mut scored: HashMap<u32, (f64, Hit)> = HashMap::new();
        let mut seen_words: Vec<String> = Vec::new();
        for word in query.text.split_whitespace() {
            let word = word.trim_matches('"');
            let lower = word.to_lowercase();
            if lower.is_empty() || seen_words.contains(&lower) {
                continue;
            }
            seen_words.push(lower);
            let found = self.index.search(&Query {
                text: word.to_string(),
                offset: 0,
                limit: window,
                matching: Matching::All,
                fields: Some(fields.iter().map(|f| f.to_string()).collect()),
                load_only: Some(&["id", "title"]),
                ..query.clone()
            })?;
            let with_word = found.total as f64;
            let idf = (1.0 + (documents - with_word + 0.5) / (with_word + 0.5)).ln();
            for hit in found.hits {
                scored.entry(hit.docid).or_insert((0.0, hit)).0 += idf;
            }
        }
        let title_words =
            |hit: &Hit| str_field(&hit.doc, "title").map_or(0, |t| t.split_whitespace().count());
        let mut ranked: Vec<(f64, usize, Hit)> = scored
            .into_values()
            .map(|(score, hit)| (score, title_words(&hit), hit))
            .collect();
        ranked.sort_by(|a, b| {
            b.0.total_cmp(&a.0)
                .then(a.1.cmp(&b.1))
                .then(a.2.docid.cmp(&b.2.docid))
        });
        ranked.truncate(window);
        Ok(ids(ranked.into_iter().map(|(_, _, hit)| hit).collect()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ranking(ids: &[&str]) -> Vec<String> {
        ids.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn rrf_rewards_agreement_and_keeps_first_seen_order_on_ties() {
        let fused = rrf(&[ranking(&["a", "b", "c"]), ranking(&["c", "b", "d"])]);
        let order: Vec<&str> = fused.iter().map(|(id, _)| id.as_str()).collect();
        assert_eq!(order, ["c", "b", "a", "d"]);
        assert!((fused[1].1 - 2.0 / 62.0).abs() < 1e-12);
        let tie = rrf(&[ranking(&["x"]), ranking(&["y"])]);
        assert_eq!(tie[0].0, "x");
        assert!(rrf(&[]).is_empty());
    }
}
