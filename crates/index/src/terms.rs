//! Body relevance (BM25): how often each word occurs in a note, in how many notes of its
//! project it occurs, and how long the note is. milli ranks by buckets (how many query words
//! match, how close, in which field) and knows no word counts; on long notes whose titles say
//! little (session logs, imported chats) those buckets tie, and a word in nearly every note (a
//! speaker's name) weighs as much as a rare one. BM25 settles both.
//!
//! The search indexer counts the terms of each text it indexes, beside milli and off the write
//! path; the graph writer records them with the rest of that search commit (the outbox entries
//! it served), so they follow milli's text, and a crash before that record leaves the entries
//! in the outbox to be done again. The tables live in the graph environment:
//! - `postings`: `project \0 term \0 block (u32 BE)` -> the term's postings for the notes
//!   numbered in that block (see [`BLOCK_SHIFT`]), behind the block's bounds (see
//!   [`encode_block`]): one 10-byte item per note, its number (u32 BE), the term's frequency
//!   (u16 LE), the note's length (u32 LE). Postings keyed by the note's 36-byte id took five
//!   times the room (73 MB for 10,000 notes, not 14); one LMDB item per posting cost a cursor
//!   step each, a hundred thousand for a common word at 100,000 notes;
//! - `note_terms`: `note id` -> its number (u32 BE), its length (u32 LE), `project \0`, then each
//!   distinct term as frequency (u16 LE), term, `\0`: what a rewrite must remove;
//! - `note_ids`: `note number (u32 BE)` -> note id, for the notes a ranking keeps;
//! - meta `bm25 \0 project` -> number of notes (u64 LE), total length (u64 LE).

use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};

use milli_core::heed::types::{Bytes, Str};
use milli_core::heed::{Database, RoTxn, RwTxn};

use super::IndexError;

mod words;
pub use words::{each_word, term, terms, words_and_terms, STOPWORDS};

const SEP: char = '\0';
/// BM25's saturation: the third occurrence of a word adds less than the second.
const K1: f64 = 1.2;
/// BM25's length normalisation: a word in a short note says more than in a long one.
const B: f64 = 0.75;
/// A note's terms as the index records them: each distinct term with how often it occurs, and
/// the note's length in terms. Counted by the search indexer, off the write path; a search
/// commit holds thousands of these, so the terms are one string (sorted, `\0`-separated).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct NoteTerms {
    pub project: String,
    distinct: String,
    counts: Vec<u16>,
    pub length: u32,
}

impl NoteTerms {
    pub fn of(project: &str, text: &str) -> Self {
        let mut all = terms(text);
        let length = u32::try_from(all.len()).unwrap_or(u32::MAX);
        all.sort_unstable();
        let mut distinct = String::new();
        let mut counts: Vec<u16> = Vec::new();
        for run in all.chunk_by(|a, b| a == b) {
            if !counts.is_empty() {
                distinct.push(SEP);
            }
            distinct.push_str(&run[0]);
            counts.push(u16::try_from(run.len()).unwrap_or(u16::MAX));
        }
        NoteTerms {
            project: project.to_string(),
            distinct,
            counts,
            length,
        }
    }

    fn pairs(&self) -> impl Iterator<Item = (&str, u16)> {
        self.distinct.split(SEP).zip(self.counts.iter().copied())
    }
}

#[derive(Clone)]
pub struct TermTables {
    pub postings: Database<Bytes, Bytes>,
    pub note_terms: Database<Str, Bytes>,
    pub note_ids: Database<Bytes, Str>,
    /// The graph's `meta` table, where each project's totals live.
    pub meta: Database<Str, Bytes>,
}

/// A project's totals: how many notes have terms, and how many terms they have together.
#[derive(Default, Clone, Copy)]
struct Totals {
    notes: u64,
    length: u64,
}

fn totals_key(project: &str) -> String {
    format!("bm25{SEP}{project}")
}

/// Note numbers per block of postings, as a shift: a write rewrites one block per term it
/// changes, so blocks stay small (at most 128 postings, 1.3 kB), and a common word at
/// 100,000 notes is still read as under a thousand values.
const BLOCK_SHIFT: u32 = 7;
const BLOCK_NOTES: usize = 1 << BLOCK_SHIFT;
// A block's count of bounds is one byte.
const _: () = assert!(BLOCK_NOTES <= u8::MAX as usize);

fn term_prefix(project: &str, term: &str) -> Vec<u8> {
    let mut key = Vec::new();
    write_term_prefix(&mut key, project, term);
    key
}

fn write_term_prefix(key: &mut Vec<u8>, project: &str, term: &str) {
    key.extend_from_slice(project.as_bytes());
    key.push(SEP as u8);
    key.extend_from_slice(term.as_bytes());
    key.push(SEP as u8);
}

fn write_block_key(key: &mut Vec<u8>, project: &str, term: &str, number: u32) {
    write_term_prefix(key, project, term);
    key.extend_from_slice(&(number >> BLOCK_SHIFT).to_be_bytes());
}

/// A note's new posting in a block (its number, then tf and length), or `None` when it goes.
type PostingChange = (u32, Option<(u16, u32)>);

/// Changes to postings by block, each block's in the order made (a note's new (tf, length), or
/// `None` when it goes): a search commit changes each block once, however many of its notes it
/// holds. Hashed, not ordered, while they are gathered: a commit makes one edit per distinct
/// term of each of its notes, and ordering each was a fifth of recording a commit (profiled).
#[derive(Default)]
struct BlockEdits {
    blocks: std::collections::HashMap<Vec<u8>, Vec<PostingChange>>,
    key: Vec<u8>,
}

impl BlockEdits {
    fn edit(&mut self, project: &str, term: &str, number: u32, change: Option<(u16, u32)>) {
        self.key.clear();
        write_block_key(&mut self.key, project, term, number);
        match self.blocks.get_mut(self.key.as_slice()) {
            Some(changes) => changes.push((number, change)),
            None => {
                self.blocks.insert(self.key.clone(), vec![(number, change)]);
            }
        }
    }

    /// The blocks in key order, the order LMDB writes cheapest.
    fn in_key_order(self) -> Vec<(Vec<u8>, Vec<PostingChange>)> {
        let mut blocks: Vec<_> = self.blocks.into_iter().collect();
        blocks.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        blocks
    }
}

/// Bytes of one posting in a block.
const POSTING_BYTES: usize = 10;

fn posting(number: u32, tf: u16, length: u32) -> [u8; POSTING_BYTES] {
    let mut item = [0u8; POSTING_BYTES];
    item[..4].copy_from_slice(&number.to_be_bytes());
    item[4..6].copy_from_slice(&tf.to_le_bytes());
    item[6..].copy_from_slice(&length.to_le_bytes());
    item
}

fn read_posting(item: &[u8; POSTING_BYTES]) -> (u32, u16, u32) {
    let [n0, n1, n2, n3, t0, t1, l0, l1, l2, l3] = *item;
    (
        u32::from_be_bytes([n0, n1, n2, n3]),
        u16::from_le_bytes([t0, t1]),
        u32::from_le_bytes([l0, l1, l2, l3]),
    )
}

/// Bytes of one of a block's bounds: tf (u16 LE), length (u32 LE).
const BOUND_BYTES: usize = 6;

/// A block of postings (sorted by number) behind its bounds: their count (u8), then each
/// (tf, length) no other posting of the block beats in both, a higher tf and a shorter note.
/// BM25 rises with tf and falls with length, so the block's best score is one of theirs,
/// whatever the project's totals: a ranking knows it without reading the postings.
fn encode_block(postings: &[(u32, u16, u32)]) -> Vec<u8> {
    let mut bounds: Vec<(u16, u32)> = postings.iter().map(|&(_, tf, len)| (tf, len)).collect();
    bounds.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    let mut shortest = u32::MAX;
    bounds.retain(|&(_, len)| {
        let kept = len < shortest;
        shortest = shortest.min(len);
        kept
    });
    let mut bytes =
        Vec::with_capacity(1 + bounds.len() * BOUND_BYTES + postings.len() * POSTING_BYTES);
    bytes.push(bounds.len() as u8);
    for (tf, len) in bounds {
        bytes.extend_from_slice(&tf.to_le_bytes());
        bytes.extend_from_slice(&len.to_le_bytes());
    }
    for &(number, tf, len) in postings {
        bytes.extend_from_slice(&posting(number, tf, len));
    }
    bytes
}

struct Block<'a> {
    bounds: &'a [u8],
    postings: &'a [u8],
}

impl<'a> Block<'a> {
    fn decode(bytes: &'a [u8]) -> Option<Self> {
        let split = 1 + usize::from(*bytes.first()?) * BOUND_BYTES;
        Some(Block {
            bounds: bytes.get(1..split)?,
            postings: bytes.get(split..)?,
        })
    }

    fn len(&self) -> usize {
        self.postings.len() / POSTING_BYTES
    }

    fn postings(&self) -> impl Iterator<Item = (u32, u16, u32)> + 'a {
        self.postings
            .as_chunks::<POSTING_BYTES>()
            .0
            .iter()
            .map(read_posting)
    }

    /// The (tf, length) pairs no other posting of the block beats in both.
    fn bounds(&self) -> impl Iterator<Item = (u16, u32)> + 'a {
        self.bounds.chunks_exact(BOUND_BYTES).map(|b| {
            (
                u16::from_le_bytes([b[0], b[1]]),
                u32::from_le_bytes([b[2], b[3], b[4], b[5]]),
            )
        })
    }

    /// The best score a posting of this block reaches for a term of this weight.
    fn bound(&self, weight: &Weight) -> f64 {
        self.bounds()
            .map(|(tf, len)| weight.score(tf, len))
            .fold(0.0, f64::max)
    }
}

/// A term's block as a ranking holds it: the block's range of numbers, the term's place in
/// the query, the block.
type Placed<'a> = (u32, usize, Block<'a>);

/// A block's number, the last four bytes of its key.
fn block_number(key: &[u8]) -> Option<u32> {
    let at = key.len().checked_sub(4)?;
    Some(u32::from_be_bytes(key.get(at..)?.try_into().ok()?))
}

/// What `note_terms` holds for a note.
struct Stored {
    number: u32,
    length: u32,
    project: String,
    pairs: Vec<(String, u16)>,
}

impl Stored {
    fn encode(number: u32, terms: &NoteTerms) -> Vec<u8> {
        let mut bytes = number.to_be_bytes().to_vec();
        bytes.extend_from_slice(&terms.length.to_le_bytes());
        bytes.extend_from_slice(terms.project.as_bytes());
        bytes.push(0);
        for (term, tf) in terms.pairs() {
            bytes.extend_from_slice(&tf.to_le_bytes());
            bytes.extend_from_slice(term.as_bytes());
            bytes.push(0);
        }
        bytes
    }

    fn decode(bytes: &[u8]) -> Option<Self> {
        let number = u32::from_be_bytes(bytes.get(..4)?.try_into().ok()?);
        let length = u32::from_le_bytes(bytes.get(4..8)?.try_into().ok()?);
        let mut rest = bytes.get(8..)?;
        let take_text = |rest: &mut &[u8]| -> Option<String> {
            let end = rest.iter().position(|b| *b == 0)?;
            let text = std::str::from_utf8(&rest[..end]).ok()?.to_string();
            *rest = &rest[end + 1..];
            Some(text)
        };
        let project = take_text(&mut rest)?;
        let mut pairs = Vec::new();
        while !rest.is_empty() {
            let tf = u16::from_le_bytes(rest.get(..2)?.try_into().ok()?);
            rest = &rest[2..];
            pairs.push((take_text(&mut rest)?, tf));
        }
        Some(Stored {
            number,
            length,
            project,
            pairs,
        })
    }
}

impl TermTables {
    fn totals(&self, txn: &RoTxn, project: &str) -> Result<Totals, IndexError> {
        Ok(match self.meta.get(txn, &totals_key(project))? {
            Some(b) if b.len() == 16 => Totals {
                notes: u64::from_le_bytes(b[..8].try_into().unwrap_or_default()),
                length: u64::from_le_bytes(b[8..].try_into().unwrap_or_default()),
            },
            _ => Totals::default(),
        })
    }

    fn put_totals(&self, txn: &mut RwTxn, project: &str, t: Totals) -> Result<(), IndexError> {
        let key = totals_key(project);
        if t.notes == 0 {
            self.meta.delete(txn, &key)?;
        } else {
            let mut bytes = t.notes.to_le_bytes().to_vec();
            bytes.extend_from_slice(&t.length.to_le_bytes());
            self.meta.put(txn, &key, &bytes)?;
        }
        Ok(())
    }

    /// Forgets the terms of note `id`, wherever it was, and returns its number.
    fn remove(
        &self,
        txn: &mut RwTxn,
        id: &str,
        edits: &mut BlockEdits,
    ) -> Result<Option<u32>, IndexError> {
        let Some(stored) = self.note_terms.get(txn, id)?.and_then(Stored::decode) else {
            return Ok(None);
        };
        let project = stored.project.as_str();
        for (term, _) in &stored.pairs {
            edits.edit(project, term, stored.number, None);
        }
        self.note_terms.delete(txn, id)?;
        let mut totals = self.totals(txn, project)?;
        totals.notes = totals.notes.saturating_sub(1);
        totals.length = totals.length.saturating_sub(u64::from(stored.length));
        self.put_totals(txn, project, totals)?;
        Ok(Some(stored.number))
    }

    /// Records what a search commit indexed: each note's new terms, or its removal. A note
    /// keeps its number while it has terms; a note without any gives its number up.
    pub fn record(
        &self,
        txn: &mut RwTxn,
        notes: &[(String, Option<NoteTerms>)],
    ) -> Result<(), IndexError> {
        let mut edits = BlockEdits::default();
        for (id, terms) in notes {
            let number = self.remove(txn, id, &mut edits)?;
            match (terms.as_ref().filter(|t| !t.counts.is_empty()), number) {
                (Some(terms), Some(number)) => self.insert(txn, id, number, terms, &mut edits)?,
                (Some(terms), None) => {
                    let number = self.new_number(txn)?;
                    self.note_ids.put(txn, &number.to_be_bytes(), id)?;
                    self.insert(txn, id, number, terms, &mut edits)?;
                }
                (None, Some(number)) => {
                    self.note_ids.delete(txn, &number.to_be_bytes())?;
                }
                (None, None) => {}
            }
        }
        self.write_blocks(txn, edits)
    }

    fn write_blocks(&self, txn: &mut RwTxn, edits: BlockEdits) -> Result<(), IndexError> {
        for (key, changes) in edits.in_key_order() {
            let mut postings: BTreeMap<u32, (u16, u32)> = match self.postings.get(txn, &key)? {
                Some(bytes) => Block::decode(bytes)
                    .iter()
                    .flat_map(Block::postings)
                    .map(|(number, tf, len)| (number, (tf, len)))
                    .collect(),
                None => BTreeMap::new(),
            };
            for (number, change) in changes {
                match change {
                    Some(posting) => postings.insert(number, posting),
                    None => postings.remove(&number),
                };
            }
            if postings.is_empty() {
                self.postings.delete(txn, &key)?;
            } else {
                let postings: Vec<(u32, u16, u32)> = postings
                    .into_iter()
                    .map(|(number, (tf, len))| (number, tf, len))
                    .collect();
                self.postings.put(txn, &key, &encode_block(&postings))?;
            }
        }
        Ok(())
    }

    /// One past the highest number in use: a number given up is taken again only from the
    /// top, which is safe because no posting names a number nobody holds.
    fn new_number(&self, txn: &RoTxn) -> Result<u32, IndexError> {
        let Some((highest, _)) = self.note_ids.last(txn)? else {
            return Ok(0);
        };
        highest
            .try_into()
            .ok()
            .map(u32::from_be_bytes)
            .and_then(|n| n.checked_add(1))
            .ok_or(IndexError::NoteNumbersExhausted)
    }

    fn insert(
        &self,
        txn: &mut RwTxn,
        id: &str,
        number: u32,
        terms: &NoteTerms,
        edits: &mut BlockEdits,
    ) -> Result<(), IndexError> {
        let project = terms.project.as_str();
        for (term, tf) in terms.pairs() {
            edits.edit(project, term, number, Some((tf, terms.length)));
        }
        self.note_terms
            .put(txn, id, &Stored::encode(number, terms))?;
        let mut totals = self.totals(txn, project)?;
        totals.notes += 1;
        totals.length += u64::from(terms.length);
        self.put_totals(txn, project, totals)
    }

    /// Notes of `project` ranked by BM25 for `query_terms` (as [`terms`] gives them), best
    /// first, at most `limit`, among those `keep` accepts. Ties go to the smaller note id, so
    /// the order is stable.
    ///
    /// Blocks of all terms cover the same numbers, so a range of numbers has a bound: the sum
    /// of its blocks' bounds. Ranges are scored best bound first, and the ranking stops once
    /// `limit` kept notes score above every bound left: no note unread could beat or tie them.
    pub fn rank(
        &self,
        txn: &RoTxn,
        project: &str,
        query_terms: &[String],
        keep: impl Fn(&str) -> bool,
        limit: usize,
    ) -> Result<Vec<(String, f64)>, IndexError> {
        let totals = self.totals(txn, project)?;
        if totals.notes == 0 || limit == 0 {
            return Ok(Vec::new());
        }
        let bm25 = Bm25::new(totals);
        let mut asked: Vec<&str> = Vec::new();
        for term in query_terms {
            if !asked.contains(&term.as_str()) {
                asked.push(term);
            }
        }
        let mut blocks: Vec<Placed> = Vec::new();
        let mut weights: Vec<Weight> = Vec::with_capacity(asked.len());
        for (place, term) in asked.iter().enumerate() {
            let first = blocks.len();
            for item in self
                .postings
                .prefix_iter(txn, &term_prefix(project, term))?
            {
                let (key, value) = item?;
                if let (Some(range), Some(block)) = (block_number(key), Block::decode(value)) {
                    blocks.push((range, place, block));
                }
            }
            let with_term = blocks[first..].iter().map(|b| b.2.len()).sum();
            weights.push(bm25.weight(bm25.idf(with_term)));
        }
        blocks.sort_by_key(|&(range, place, _)| (range, place));
        // A bound is summed in the order scores are, and raised by a hair so that rounding
        // can never put it under a score it bounds.
        let mut ranges: Vec<(f64, &[Placed])> = blocks
            .chunk_by(|a, b| a.0 == b.0)
            .map(|range| {
                let bound = range.iter().fold(0.0, |sum, (_, place, block)| {
                    sum + block.bound(&weights[*place])
                });
                (bound * (1.0 + 1e-9), range)
            })
            .collect();
        ranges.sort_by(|a, b| b.0.total_cmp(&a.0));
        let mut scored: Vec<(u32, f64)> = Vec::new();
        let mut best = BestScores::new(limit);
        let mut names: HashMap<u32, Option<&str>> = HashMap::new();
        let mut visited = 0;
        let mut batch = 1;
        loop {
            let until = (visited + batch).min(ranges.len());
            for (_, range) in &ranges[visited..until] {
                let from = scored.len();
                score_range(range, &weights, &mut scored);
                best.offer(&scored[from..]);
            }
            visited = until;
            batch *= 2;
            let unread = ranges.get(visited).map_or(f64::NEG_INFINITY, |r| r.0);
            let done = visited == ranges.len();
            // Kept notes are scored notes: while fewer than `limit` of those beat every unread
            // bound, no page can be sure, and the scored notes need not be sifted.
            if !done && !best.all_above(unread) {
                continue;
            }
            let mut sure: Vec<(u32, f64)> =
                scored.iter().copied().filter(|s| s.1 > unread).collect();
            if sure.len() < limit && !done {
                continue;
            }
            let ranked = self.best_kept(txn, &mut sure, &keep, limit, &mut names)?;
            if ranked.len() == limit || done {
                return Ok(ranked);
            }
        }
    }

    /// The best `limit` of `scored` that `keep` accepts, ties by note id; `names` remembers
    /// each note's id, if kept, across the calls of one ranking.
    fn best_kept<'t>(
        &self,
        txn: &'t RoTxn,
        scored: &mut [(u32, f64)],
        keep: &impl Fn(&str) -> bool,
        limit: usize,
        names: &mut HashMap<u32, Option<&'t str>>,
    ) -> Result<Vec<(String, f64)>, IndexError> {
        let mut ranked: Vec<(String, f64)> = Vec::new();
        best_first(scored, limit, |equal| {
            let mut named: Vec<&str> = Vec::with_capacity(equal.len());
            for (number, _) in equal {
                let name = match names.entry(*number) {
                    Entry::Occupied(e) => *e.get(),
                    Entry::Vacant(e) => *e.insert(
                        self.note_ids
                            .get(txn, &number.to_be_bytes())?
                            .filter(|id| keep(id)),
                    ),
                };
                named.extend(name);
            }
            named.sort_unstable();
            let wanted = limit - ranked.len();
            let score = equal[0].1;
            ranked.extend(
                named
                    .into_iter()
                    .take(wanted)
                    .map(|id| (id.to_string(), score)),
            );
            Ok::<bool, IndexError>(ranked.len() < limit)
        })?;
        Ok(ranked)
    }
}

/// Scores the notes of one range of numbers, from its blocks in the order of the query's
/// terms. A note's first term sets its score rather than adding it to 0.0 (the same value),
/// so that a slot left at -inf marks a note no term reached.
fn score_range(range: &[Placed], weights: &[Weight], scored: &mut Vec<(u32, f64)>) {
    let Some(&(number, _, _)) = range.first() else {
        return;
    };
    let first = number << BLOCK_SHIFT;
    let mut slots = [f64::NEG_INFINITY; BLOCK_NOTES];
    for (_, place, block) in range {
        let weight = &weights[*place];
        for item in block.postings.as_chunks::<POSTING_BYTES>().0 {
            let (number, tf, len) = read_posting(item);
            let Some(slot) = slots.get_mut(number.wrapping_sub(first) as usize) else {
                continue;
            };
            let score = weight.score(tf, len);
            if *slot == f64::NEG_INFINITY {
                *slot = score;
            } else {
                *slot += score;
            }
        }
    }
    for (offset, score) in slots.into_iter().enumerate() {
        if score != f64::NEG_INFINITY {
            scored.push((first + offset as u32, score));
        }
    }
}

/// The best `limit` scores offered so far, to tell cheaply whether `limit` notes beat a bound.
struct BestScores {
    limit: usize,
    /// Scores are never negative, so their bits order as they do.
    lowest_first: std::collections::BinaryHeap<std::cmp::Reverse<u64>>,
}

impl BestScores {
    fn new(limit: usize) -> Self {
        BestScores {
            limit,
            lowest_first: std::collections::BinaryHeap::with_capacity(limit + 1),
        }
    }

    fn offer(&mut self, scored: &[(u32, f64)]) {
        for &(_, score) in scored {
            let bits = score.max(0.0).to_bits();
            if self.lowest_first.len() < self.limit {
                self.lowest_first.push(std::cmp::Reverse(bits));
            } else if self.lowest_first.peek().is_some_and(|low| low.0 < bits) {
                self.lowest_first.pop();
                self.lowest_first.push(std::cmp::Reverse(bits));
            }
        }
    }

    /// Whether `limit` scores offered are above `bound`.
    fn all_above(&self, bound: f64) -> bool {
        self.lowest_first.len() == self.limit
            && self
                .lowest_first
                .peek()
                .is_some_and(|low| f64::from_bits(low.0) > bound)
    }
}

/// BM25 over one project's totals.
struct Bm25 {
    notes: f64,
    average: f64,
}

impl Bm25 {
    fn new(totals: Totals) -> Self {
        let notes = totals.notes as f64;
        Bm25 {
            notes,
            average: (totals.length as f64 / notes).max(1.0),
        }
    }

    /// How rare a term is, from how many notes have it.
    fn idf(&self, with_term: usize) -> f64 {
        let with_term = with_term as f64;
        (1.0 + (self.notes - with_term + 0.5) / (with_term + 0.5)).ln()
    }

    /// A term's BM25 as a function of a note's tf and length, its constants worked out once.
    fn weight(&self, idf: f64) -> Weight {
        Weight {
            scale: idf * (K1 + 1.0),
            base: K1 * (1.0 - B),
            per_length: K1 * B / self.average,
        }
    }
}

/// One term's BM25: `scale · tf / (tf + base + per_length · length)`, which is
/// `idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avglen))`.
struct Weight {
    scale: f64,
    base: f64,
    per_length: f64,
}

impl Weight {
    fn score(&self, tf: u16, len: u32) -> f64 {
        let tf = f64::from(tf);
        self.scale * tf / (tf + self.base + self.per_length * f64::from(len))
    }
}

/// Hands `visit` the scored notes best first, one group of equal scores at a time, until it
/// returns false. Ids are read only for the groups visited, and only those are sorted: a
/// common word scores most of the project, a page wants a hundred, and `keep` may reject some,
/// so the best are selected in batches that grow until `visit` has enough. A batch never
/// splits a group: the notes tied with its last are taken with it.
fn best_first<E>(
    scored: &mut [(u32, f64)],
    limit: usize,
    mut visit: impl FnMut(&[(u32, f64)]) -> Result<bool, E>,
) -> Result<(), E> {
    let better = |a: &(u32, f64), b: &(u32, f64)| b.1.total_cmp(&a.1);
    let mut rest = scored;
    let mut batch = limit.max(16);
    while !rest.is_empty() {
        let mut take = batch.min(rest.len());
        if take < rest.len() {
            rest.select_nth_unstable_by(take - 1, better);
            let last = rest[take - 1].1;
            // Notes tied with the last one selected join the batch, after it.
            let selected = take;
            for i in selected..rest.len() {
                if rest[i].1.total_cmp(&last).is_eq() {
                    rest.swap(i, take);
                    take += 1;
                }
            }
        }
        let (head, tail) = std::mem::take(&mut rest).split_at_mut(take);
        head.sort_unstable_by(better);
        for equal in head.chunk_by(|a, b| a.1.total_cmp(&b.1).is_eq()) {
            if !visit(equal)? {
                return Ok(());
            }
        }
        rest = tail;
        batch = batch.saturating_mul(4);
    }
    Ok(())
}

#[cfg(test)]
mod tests;
