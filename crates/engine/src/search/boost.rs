//! search_notes' optional boosts of a ranked search's fused list: `recency` weighs each note by
//! its age with a half-life of its kind (`note::memory::recency_half_life_days`), `score` by
//! its importance (front matter `score`, or the decayed relevance of a decaying memory).
//! Without a boost the ranking is left exactly as it was.

use chrono::{DateTime, Utc};

use super::super::error::QueryError;
use super::Result;
use index::documents::note_id_of_doc;
use index::Index;
use index::NoteRecord;
use note::memory::{decayed, importance, meta_time, recency_half_life_days};

/// The share of its score a boost always leaves a note: a boost reorders notes of similar
/// evidence, it does not bury an old or unscored note the query clearly names.
const FLOOR: f64 = 0.5;

const DAY_MS: f64 = 86_400_000.0;

/// Which boosts a search applies (none by default).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Boost {
    pub recency: bool,
    pub score: bool,
}

impl Boost {
    /// The boosts named (`recency`, `score`); an unknown name is refused.
    pub fn named(names: &[String]) -> Result<Boost> {
        let mut boost = Boost::default();
        for name in names {
            match name.trim().to_lowercase().as_str() {
                "recency" => boost.recency = true,
                "score" => boost.score = true,
                "" => {}
                _ => return Err(QueryError::InvalidBoost(name.clone()).into()),
            }
        }
        Ok(boost)
    }

    pub fn is_none(self) -> bool {
        !self.recency && !self.score
    }
}

/// A weight in 0..=1 as a factor of a score: FLOOR at 0, whole at 1.
fn factor(weight: f64) -> f64 {
    FLOOR + (1.0 - FLOOR) * weight.clamp(0.0, 1.0)
}

/// Multiplies each fused score by the boosts' factors and sorts again; notes of equal
/// boosted score keep their order.
pub(super) fn boost(index: &Index, fused: &mut [(String, f64)], boost: Boost) -> Result<()> {
    if boost.is_none() {
        return Ok(());
    }
    let now = Utc::now();
    for (doc_id, score) in fused.iter_mut() {
        let Some(note) = note_id_of_doc(doc_id)
            .map(|id| crate::notes::note_by_id(index, &id))
            .transpose()?
            .flatten()
        else {
            continue;
        };
        *score *= boost_factor(index, &note, boost, now)?;
    }
    fused.sort_by(|a, b| b.1.total_cmp(&a.1));
    Ok(())
}

fn boost_factor(index: &Index, note: &NoteRecord, boost: Boost, now: DateTime<Utc>) -> Result<f64> {
    let mut f = 1.0;
    if boost.recency {
        let updated = meta_time(&note.metadata, "updated_at")
            .map_or(note.updated_ms, |t| t.timestamp_millis());
        let half_life = recency_half_life_days(&note.note_type) * DAY_MS;
        let age = now.timestamp_millis() - updated;
        f *= factor(decayed(1.0, age, half_life as i64));
    }
    if boost.score {
        let weight = match crate::uses::relevance_of(index, note, now)? {
            Some(relevance) => relevance,
            None => importance(&note.metadata),
        };
        f *= factor(weight);
    }
    Ok(f)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn boosts_are_named_once_or_in_a_list() {
        let names = |n: &[&str]| n.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let cases = [
            (names(&[]), Some(Boost::default())),
            (
                names(&["recency"]),
                Some(Boost {
                    recency: true,
                    score: false,
                }),
            ),
            (
                names(&["Score", "recency"]),
                Some(Boost {
                    recency: true,
                    score: true,
                }),
            ),
            (names(&["freshness"]), None),
        ];
        for (given, expected) in cases {
            assert_eq!(Boost::named(&given).ok(), expected, "{given:?}");
        }
    }

    #[test]
    fn a_factor_never_falls_below_the_floor() {
        assert_eq!(factor(1.0), 1.0);
        assert_eq!(factor(0.0), FLOOR);
        assert_eq!(factor(0.5), 0.75);
        assert_eq!(factor(7.0), 1.0);
    }
}
