//! The naming ranking: notes by the query words their naming fields (title, aliases, tags,
//! path) hold, each word worth its rarity (BM25's IDF). milli finds each word's matches, typos
//! and prefixes included, but does not rank them: a match is a match, whatever milli's ranking
//! rules would say about it, so every matching note is scored and the best `window` kept.

use roaring::RoaringBitmap;

use super::ranked::Ranking;
use super::Result;
use index::names::Naming;
use index::query::Query;

/// The fields that name a note.
pub(super) const NAMING_FIELDS: [&str; 4] = ["title", "aliases", "tags", "permalink"];

/// Below this much, two grades could be the same sum of rarities with other title nudges.
const NUDGES: f64 = 2e-6;

/// The words of the query the naming ranking looks for, each once (case aside).
fn name_words(text: &str) -> Vec<&str> {
    let mut seen: Vec<String> = Vec::new();
    let mut words = Vec::new();
    for word in text.split_whitespace() {
        let word = word.trim_matches('"');
        let lower = word.to_lowercase();
        if lower.is_empty() || seen.contains(&lower) {
            continue;
        }
        seen.push(lower);
        words.push(word);
    }
    words
}

/// Among equal sums of rarities the shorter title is more about the query. The nudge is far
/// below any difference of rarity, so it orders equals only, and equal lengths stay tied.
fn nudge(title_words: usize) -> f64 {
    1e-6 / (1.0 + title_words as f64)
}

/// Documents whose naming fields hold words of `query`, ranked by the summed rarity of the
/// words they hold (in a title every word counts, and a rare word says more than a common
/// one), then by the shorter title; equals by document id, so that the order does not depend
/// on the order notes were indexed in.
pub(super) fn name_ranking(naming: &Naming, query: &Query, window: usize) -> Result<Ranking> {
    let documents = naming.scope().len() as f64;
    let queries = name_words(&query.text);
    let mut words = Vec::with_capacity(queries.len());
    for word in &queries {
        let matches = naming.word_matches(word)?;
        let with_word = matches.len() as f64;
        let idf = (1.0 + (documents - with_word + 0.5) / (with_word + 0.5)).ln();
        words.push((idf, matches));
    }
    let kept = best_named(
        &words,
        |docs| Ok(naming.by_title_length(docs)?),
        |word| {
            Ok(naming
                .exact_matches(queries[word], &NAMING_FIELDS)?
                .unwrap_or_else(|| words[word].1.clone()))
        },
        window,
    )?;
    let docids: Vec<u32> = kept.iter().map(|&(docid, _)| docid).collect();
    let ids: std::collections::HashMap<u32, String> = naming.ids(&docids)?.into_iter().collect();
    let mut ranked: Vec<(String, f64)> = kept
        .into_iter()
        .filter_map(|(docid, grade)| Some((ids.get(&docid)?.clone(), grade)))
        .collect();
    ranked.sort_by(|a, b| b.1.total_cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Ok(ranked)
}

/// Documents that hold the same query words and whose titles are as long.
struct Part {
    grade: f64,
    held: Vec<usize>,
    docs: RoaringBitmap,
}

/// The best `window` documents (internal ids, with their grades) of `words` (each word's
/// rarity and matches): by the rarities summed over the words a document holds, plus the
/// nudge of its title's length (`title_lengths` splits documents by it). Where the window
/// cuts through documents of one grade, those that hold their words as written
/// (`exact(word)`: the word's matches without typos or prefixes) go first, then the lowest
/// internal ids.
fn best_named(
    words: &[(f64, RoaringBitmap)],
    mut title_lengths: impl FnMut(&RoaringBitmap) -> Result<Vec<(usize, RoaringBitmap)>>,
    mut exact: impl FnMut(usize) -> Result<RoaringBitmap>,
    window: usize,
) -> Result<Vec<(u32, f64)>> {
    // Documents by the words they hold: as many groups as distinct sets of words held.
    let mut pieces: Vec<(f64, Vec<usize>, RoaringBitmap)> = Vec::new();
    let all = words
        .iter()
        .fold(RoaringBitmap::new(), |all, (_, m)| all | m);
    if !all.is_empty() {
        pieces.push((0.0, Vec::new(), all));
    }
    for (word, (idf, matches)) in words.iter().enumerate() {
        let mut split = Vec::with_capacity(pieces.len() * 2);
        for (score, held, docs) in pieces {
            let with = &docs & matches;
            if !with.is_empty() {
                let mut held_too = held.clone();
                held_too.push(word);
                split.push((score + idf, held_too, with));
            }
            let without = docs - matches;
            if !without.is_empty() {
                split.push((score, held, without));
            }
        }
        pieces = split;
    }
    pieces.sort_by(|a, b| b.0.total_cmp(&a.0));
    // Only pieces the title nudge could lift into the window need their titles counted.
    let mut seen = 0;
    let mut last = f64::NEG_INFINITY;
    for (score, _, docs) in &pieces {
        seen += docs.len() as usize;
        if seen >= window {
            last = *score - NUDGES;
            break;
        }
    }
    let mut parts = Vec::new();
    for (score, held, docs) in pieces.into_iter().take_while(|p| p.0 >= last) {
        for (title_words, docs) in title_lengths(&docs)? {
            parts.push(Part {
                grade: score + nudge(title_words),
                held: held.clone(),
                docs,
            });
        }
    }
    parts.sort_by(|a, b| b.grade.total_cmp(&a.grade));
    let mut exact_of: Vec<Option<RoaringBitmap>> = vec![None; words.len()];
    let mut kept = Vec::with_capacity(window);
    let mut start = 0;
    while start < parts.len() && kept.len() < window {
        let grade = parts[start].grade;
        let end = start
            + parts[start..]
                .iter()
                .take_while(|p| p.grade == grade)
                .count();
        let tied = &parts[start..end];
        let room = window - kept.len();
        let docs = tied
            .iter()
            .fold(RoaringBitmap::new(), |all, p| all | &p.docs);
        if docs.len() as usize <= room {
            kept.extend(docs.iter().map(|d| (d, grade)));
        } else {
            let mut as_written = RoaringBitmap::new();
            for part in tied {
                let mut held_exactly = part.docs.clone();
                for &word in &part.held {
                    if exact_of[word].is_none() {
                        exact_of[word] = Some(exact(word)?);
                    }
                    held_exactly &= exact_of[word].as_ref().expect("just read");
                }
                as_written |= held_exactly;
            }
            let rest = &docs - &as_written;
            kept.extend(
                as_written
                    .iter()
                    .chain(rest.iter())
                    .take(room)
                    .map(|d| (d, grade)),
            );
        }
        start = end;
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bitmap(ids: &[u32]) -> RoaringBitmap {
        ids.iter().copied().collect()
    }

    /// Every document's grade computed one by one, sorted (grade, held as written, internal
    /// id), cut at the window: what `best_named` must keep.
    fn one_by_one(
        words: &[(f64, RoaringBitmap)],
        title_words: &dyn Fn(u32) -> usize,
        exact: &[RoaringBitmap],
        window: usize,
    ) -> Vec<(u32, f64)> {
        let all = words
            .iter()
            .fold(RoaringBitmap::new(), |all, (_, m)| all | m);
        let mut graded: Vec<(f64, bool, u32)> = all
            .iter()
            .map(|d| {
                let mut score = 0.0;
                let mut written = true;
                for (word, (idf, matches)) in words.iter().enumerate() {
                    if matches.contains(d) {
                        score += idf;
                        written &= exact[word].contains(d);
                    }
                }
                (score + nudge(title_words(d)), written, d)
            })
            .collect();
        graded.sort_by(|a, b| b.0.total_cmp(&a.0).then(b.1.cmp(&a.1)).then(a.2.cmp(&b.2)));
        graded.truncate(window);
        let mut kept: Vec<(u32, f64)> = graded.into_iter().map(|(g, _, d)| (d, g)).collect();
        kept.sort_by_key(|&(d, _)| d);
        kept
    }

    fn picked(
        words: &[(f64, RoaringBitmap)],
        title_words: &dyn Fn(u32) -> usize,
        exact: &[RoaringBitmap],
        window: usize,
    ) -> Vec<(u32, f64)> {
        let lengths = |docs: &RoaringBitmap| -> Result<Vec<(usize, RoaringBitmap)>> {
            let mut by: std::collections::BTreeMap<usize, RoaringBitmap> = Default::default();
            for d in docs {
                by.entry(title_words(d)).or_default().insert(d);
            }
            Ok(by.into_iter().collect())
        };
        let mut kept =
            best_named(words, lengths, |w| Ok(exact[w].clone()), window).expect("no reads fail");
        kept.sort_by_key(|&(d, _)| d);
        kept
    }

    #[test]
    fn the_rarer_word_and_then_the_shorter_title_win() {
        let words = [(2.0, bitmap(&[1, 2, 3])), (0.5, bitmap(&[3, 4, 5, 6]))];
        let title_words = |d: u32| if d == 2 { 1 } else { 4 };
        let exact = [bitmap(&[1, 2, 3]), bitmap(&[3, 4, 5, 6])];
        let kept = picked(&words, &title_words, &exact, 3);
        let ids: Vec<u32> = kept.iter().map(|k| k.0).collect();
        assert_eq!(ids, [1, 2, 3]);
        let grade = |d: u32| kept.iter().find(|k| k.0 == d).expect("kept").1;
        assert!(grade(3) > grade(2) && grade(2) > grade(1), "{kept:?}");
    }

    #[test]
    fn at_the_cut_words_as_written_go_before_typos_and_prefixes() {
        let words = [(1.0, bitmap(&[1, 2, 3, 4]))];
        let exact = [bitmap(&[3, 4])];
        let kept = picked(&words, &|_| 2, &exact, 2);
        assert_eq!(kept.iter().map(|k| k.0).collect::<Vec<_>>(), [3, 4]);
    }

    #[test]
    fn keeps_what_grading_every_document_one_by_one_keeps() {
        // A small deterministic generator: many shapes of overlap, ties and cuts.
        let mut state = 0x2545_f491_u64;
        let mut next = move |below: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % below
        };
        for _ in 0..300 {
            let word_count = 1 + next(4) as usize;
            let mut words = Vec::new();
            let mut exact = Vec::new();
            for _ in 0..word_count {
                // Equal rarities are frequent: they make ties across different words.
                let idf = [0.5, 1.0, 1.0, 2.25][next(4) as usize];
                let matches: RoaringBitmap = (0..60).filter(|_| next(3) == 0).collect();
                let written: RoaringBitmap = matches.iter().filter(|_| next(2) == 0).collect();
                words.push((idf, matches));
                exact.push(written);
            }
            let lengths: Vec<usize> = (0..60).map(|_| 1 + next(3) as usize).collect();
            let title_words = |d: u32| lengths[d as usize];
            let window = 1 + next(40) as usize;
            assert_eq!(
                picked(&words, &title_words, &exact, window),
                one_by_one(&words, &title_words, &exact, window),
                "window {window}"
            );
        }
    }
}
