//! Passage vectors of every note, for semantic search: their own LMDB environment under
//! `<root>/index/vectors/`, written only by the embedding worker. Each note records the checksum
//! of the text its vectors were made from, so the worker finds its work by comparing with the
//! graph (no outbox to lose), and the model they were made with, so a new model starts over.
//!
//! Search is exact: a dot product with every passage of the project, over a copy of the
//! project's vectors in memory that is read again after any commit (of this process or
//! another). Walking LMDB's B-tree for every query cost more than the arithmetic (a sampling
//! profile at 10,000 notes, docs/performance-embedding.md); an approximate index would buy little at
//! this size and would cost its build time on every write.

use std::collections::{HashMap, HashSet};
use std::path::Path;
use std::sync::{Arc, Mutex, RwLock};

use milli_core::heed::types::{Bytes, Str};
use milli_core::heed::{self, Database, Env, WithoutTls};
use serde::{Deserialize, Serialize};

use super::IndexError;

const MAP_SIZE: usize = 16 << 30;
const SEP: char = '\0';

/// What the vectors of one note were made from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Embedded {
    pub checksum: String,
    pub passages: u32,
    /// When they were stored (ms since the epoch); `None` for vectors stored before this
    /// was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub embedded_ms: Option<i64>,
}

/// One note's passage vectors and the checksum of the text they came from.
#[derive(Debug, Clone)]
pub struct NoteVectors {
    pub project: String,
    pub note_id: String,
    pub checksum: String,
    pub vectors: Vec<Vec<f32>>,
}

/// A note a vector search found: its similarity to the query and its best passage.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorHit {
    pub note_id: String,
    pub similarity: f32,
    pub passage: u32,
}

/// The passages of one project, as of one commit of the environment.
struct Matrix {
    txn_id: usize,
    dims: usize,
    /// Row-major, `dims` values a passage.
    values: Vec<f32>,
    /// Per row: (index into `notes`, passage number); `REMOVED` for a row replaced since.
    rows: Vec<(u32, u32)>,
    notes: Vec<String>,
    note_index: HashMap<String, u32>,
    /// Per note: its live rows.
    rows_of: Vec<Vec<usize>>,
    /// Per note, `dims` values: the sum of its live passages' vectors, the direction of the
    /// note as a whole.
    sums: Vec<f32>,
    /// Per note: the length of its sum (0 without live passages).
    sum_norms: Vec<f32>,
    removed: usize,
}

const REMOVED: u32 = u32::MAX;
/// How much of a note's similarity is the whole note's rather than its best passage's.
const WHOLE_NOTE_SHARE: f32 = 0.3;

impl Matrix {
    fn new(txn_id: usize, dims: usize) -> Self {
        Matrix {
            txn_id,
            dims,
            values: Vec::new(),
            rows: Vec::new(),
            notes: Vec::new(),
            note_index: HashMap::new(),
            rows_of: Vec::new(),
            sums: Vec::new(),
            sum_norms: Vec::new(),
            removed: 0,
        }
    }

    fn note(&mut self, note_id: &str) -> u32 {
        if let Some(&i) = self.note_index.get(note_id) {
            return i;
        }
        let i = self.notes.len() as u32;
        self.notes.push(note_id.to_string());
        self.note_index.insert(note_id.to_string(), i);
        self.rows_of.push(Vec::new());
        self.sums.extend(std::iter::repeat_n(0.0, self.dims));
        self.sum_norms.push(0.0);
        i
    }

    fn push(&mut self, note: u32, passage: u32, values: impl Iterator<Item = f32>) {
        self.rows_of[note as usize].push(self.rows.len());
        self.rows.push((note, passage));
        let start = self.values.len();
        self.values.extend(values);
        let sum = &mut self.sums[note as usize * self.dims..][..self.dims];
        for (total, value) in sum.iter_mut().zip(&self.values[start..]) {
            *total += value;
        }
        self.sum_norms[note as usize] = dot(sum, sum).sqrt();
    }

    /// How similar the note as a whole is to `query`: the cosine of its passages' sum.
    fn note_similarity(&self, note: usize, query: &[f32]) -> f32 {
        let norm = self.sum_norms[note];
        if norm == 0.0 {
            return 0.0;
        }
        dot(&self.sums[note * self.dims..][..self.dims], query) / norm
    }

    fn remove_note(&mut self, note_id: &str) {
        let Some(&note) = self.note_index.get(note_id) else {
            return;
        };
        for row in std::mem::take(&mut self.rows_of[note as usize]) {
            self.rows[row].0 = REMOVED;
            self.removed += 1;
        }
        self.sums[note as usize * self.dims..][..self.dims].fill(0.0);
        self.sum_norms[note as usize] = 0.0;
    }

    /// Whether replaced rows have come to outweigh live ones (then it is read afresh).
    fn worn(&self) -> bool {
        self.removed > self.rows.len() / 2
    }
}

/// A dot product in independent lanes, which the compiler turns into SIMD; a plain sum of
/// products is one serial chain of additions.
fn dot(a: &[f32], b: &[f32]) -> f32 {
    const LANES: usize = 8;
    let split = a.len() / LANES * LANES;
    let mut acc = [0f32; LANES];
    for (x, y) in a[..split]
        .chunks_exact(LANES)
        .zip(b[..split].chunks_exact(LANES))
    {
        for i in 0..LANES {
            acc[i] += x[i] * y[i];
        }
    }
    let rest: f32 = a[split..].iter().zip(&b[split..]).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + rest
}

#[derive(Clone)]
pub struct VectorStore {
    env: Env<WithoutTls>,
    /// Project -> its passages in memory (see `matrix`).
    loaded: Arc<Mutex<HashMap<String, Arc<RwLock<Matrix>>>>>,
    /// `model` -> name, `dimensions` -> u32 LE.
    meta: Database<Str, Bytes>,
    /// `project \0 note_id` -> `Embedded` (JSON).
    notes: Database<Str, Bytes>,
    /// `project \0 note_id \0 passage (u32, 8 hex digits)` -> f32 LE.
    passages: Database<Str, Bytes>,
}

fn note_key(project: &str, note_id: &str) -> String {
    format!("{project}{SEP}{note_id}")
}

impl VectorStore {
    pub fn open(dir: &Path) -> Result<Self, IndexError> {
        std::fs::create_dir_all(dir)?;
        let mut options = super::env_options(MAP_SIZE);
        options.max_dbs(3);
        // SAFETY: the environment is opened once per process (the App owns it) and its files
        // are not touched by anything else.
        let env = unsafe { options.open(dir) }?;
        let mut wtxn = env.write_txn()?;
        let meta = env.create_database(&mut wtxn, Some("meta"))?;
        let notes = env.create_database(&mut wtxn, Some("notes"))?;
        let passages = env.create_database(&mut wtxn, Some("passages"))?;
        wtxn.commit()?;
        Ok(VectorStore {
            env,
            loaded: Arc::default(),
            meta,
            notes,
            passages,
        })
    }

    /// The model the stored vectors were made with, and its dimensions.
    pub fn model(&self) -> Result<Option<(String, usize)>, IndexError> {
        let rtxn = self.env.read_txn()?;
        let name = self.meta.get(&rtxn, "model")?;
        let dims = self.meta.get(&rtxn, "dimensions")?;
        Ok(match (name, dims) {
            (Some(name), Some(dims)) if dims.len() == 4 => Some((
                String::from_utf8_lossy(name).into_owned(),
                u32::from_le_bytes(dims.try_into().expect("four bytes")) as usize,
            )),
            _ => None,
        })
    }

    /// Drops every vector and records the model the next ones will be made with.
    pub fn reset(&self, model: &str, dimensions: usize) -> Result<(), IndexError> {
        let mut wtxn = self.env.write_txn()?;
        self.notes.clear(&mut wtxn)?;
        self.passages.clear(&mut wtxn)?;
        self.meta.put(&mut wtxn, "model", model.as_bytes())?;
        self.meta
            .put(&mut wtxn, "dimensions", &(dimensions as u32).to_le_bytes())?;
        wtxn.commit()?;
        self.loaded
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
        Ok(())
    }

    /// Every embedded note: (project, note id) -> what its vectors were made from.
    pub fn embedded(&self) -> Result<HashMap<(String, String), Embedded>, IndexError> {
        let rtxn = self.env.read_txn()?;
        let mut out = HashMap::new();
        for entry in self.notes.iter(&rtxn)? {
            let (key, value) = entry?;
            let Some((project, id)) = key.split_once(SEP) else {
                continue;
            };
            out.insert(
                (project.to_string(), id.to_string()),
                serde_json::from_slice(value)?,
            );
        }
        Ok(out)
    }

    /// What one note's vectors were made from, if it has any.
    pub fn embedded_note(
        &self,
        project: &str,
        note_id: &str,
    ) -> Result<Option<Embedded>, IndexError> {
        let rtxn = self.env.read_txn()?;
        match self.notes.get(&rtxn, &note_key(project, note_id))? {
            Some(value) => Ok(Some(serde_json::from_slice(value)?)),
            None => Ok(None),
        }
    }

    /// Replaces several notes' vectors in one commit: a commit is a disk sync, which costs
    /// more than embedding a short note with a static model.
    pub fn put_many(&self, notes: &[NoteVectors]) -> Result<(), IndexError> {
        let mut wtxn = self.env.write_txn()?;
        let now = chrono::Utc::now().timestamp_millis();
        for note in notes {
            self.remove_in(&mut wtxn, &note.project, &note.note_id)?;
            let key = note_key(&note.project, &note.note_id);
            let record = Embedded {
                checksum: note.checksum.clone(),
                passages: note.vectors.len() as u32,
                embedded_ms: Some(now),
            };
            self.notes
                .put(&mut wtxn, &key, &serde_json::to_vec(&record)?)?;
            for (i, vector) in note.vectors.iter().enumerate() {
                let bytes: Vec<u8> = vector.iter().flat_map(|x| x.to_le_bytes()).collect();
                self.passages
                    .put(&mut wtxn, &format!("{key}{SEP}{i:08x}"), &bytes)?;
            }
        }
        let committed = wtxn.id();
        wtxn.commit()?;
        self.after_commit(committed, |project, matrix| {
            for note in notes.iter().filter(|n| n.project == project) {
                matrix.remove_note(&note.note_id);
                let index = matrix.note(&note.note_id);
                for (i, vector) in note.vectors.iter().enumerate() {
                    if vector.len() == matrix.dims {
                        matrix.push(index, i as u32, vector.iter().copied());
                    }
                }
            }
        });
        Ok(())
    }

    /// Brings the in-memory copies up to the commit just made (`committed`, its transaction
    /// id), when it is the only one since they were read; any other commit (another
    /// process's) leaves them to be read again.
    fn after_commit(&self, committed: usize, apply: impl Fn(&str, &mut Matrix)) {
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        loaded.retain(|project, matrix| {
            let mut matrix = matrix.write().unwrap_or_else(|e| e.into_inner());
            if matrix.txn_id + 1 != committed {
                return true;
            }
            apply(project, &mut matrix);
            matrix.txn_id = committed;
            !matrix.worn()
        });
    }

    /// Drops one note's vectors.
    pub fn remove(&self, project: &str, note_id: &str) -> Result<(), IndexError> {
        let mut wtxn = self.env.write_txn()?;
        self.remove_in(&mut wtxn, project, note_id)?;
        let committed = wtxn.id();
        wtxn.commit()?;
        self.after_commit(committed, |in_project, matrix| {
            if in_project == project {
                matrix.remove_note(note_id);
            }
        });
        Ok(())
    }

    fn remove_in(
        &self,
        wtxn: &mut heed::RwTxn,
        project: &str,
        note_id: &str,
    ) -> Result<(), IndexError> {
        let key = note_key(project, note_id);
        self.notes.delete(wtxn, &key)?;
        let prefix = format!("{key}{SEP}");
        let mut iter = self.passages.prefix_iter_mut(wtxn, &prefix)?;
        while iter.next().transpose()?.is_some() {
            // SAFETY: nothing borrowed from the database is kept across the deletion.
            unsafe { iter.del_current()? };
        }
        Ok(())
    }

    /// The passages of `project` in memory: kept up to date by this process's own commits,
    /// read again when any other commit happened since.
    fn matrix(&self, project: &str, dims: usize) -> Result<Arc<RwLock<Matrix>>, IndexError> {
        let last = self.env.info().last_txn_id;
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = loaded.get(project).filter(|m| {
            let m = m.read().unwrap_or_else(|e| e.into_inner());
            m.txn_id == last && m.dims == dims
        }) {
            return Ok(m.clone());
        }
        // Labelled with the snapshot it is read from, not with `last`: while a commit is
        // being written, the environment can name it before new readers see it, and a copy
        // of the older data labelled with the newer commit would be trusted for good.
        let rtxn = self.env.read_txn()?;
        let prefix = format!("{project}{SEP}");
        let mut matrix = Matrix::new(rtxn.id(), dims);
        for entry in self.passages.prefix_iter(&rtxn, &prefix)? {
            let (key, bytes) = entry?;
            let Some((note_id, passage)) = key[prefix.len()..].split_once(SEP) else {
                continue;
            };
            if bytes.len() != dims * 4 {
                continue;
            }
            let note = matrix.note(note_id);
            let passage = u32::from_str_radix(passage, 16).unwrap_or(0);
            matrix.push(
                note,
                passage,
                bytes
                    .chunks_exact(4)
                    .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            );
        }
        let matrix = Arc::new(RwLock::new(matrix));
        loaded.insert(project.to_string(), matrix.clone());
        Ok(matrix)
    }

    /// Whether no note has vectors.
    pub fn is_empty(&self) -> Result<bool, IndexError> {
        let rtxn = self.env.read_txn()?;
        Ok(self.notes.is_empty(&rtxn)?)
    }

    /// The notes of `project` that have vectors.
    pub fn notes(&self, project: &str) -> Result<HashSet<String>, IndexError> {
        let Some((_, dims)) = self.model()? else {
            return Ok(HashSet::new());
        };
        let matrix = self.matrix(project, dims)?;
        let matrix = matrix.read().unwrap_or_else(|e| e.into_inner());
        Ok(matrix
            .notes
            .iter()
            .zip(&matrix.rows_of)
            .filter(|(_, rows)| !rows.is_empty())
            .map(|(note, _)| note.clone())
            .collect())
    }

    /// Each note's direction, for comparing notes with each other: the vector of the given
    /// passage when the note has it, else its passages' sum, normalised; `None` for a note
    /// without vectors (or when no model has stored any).
    pub fn directions(
        &self,
        project: &str,
        notes: &[(&str, Option<u32>)],
    ) -> Result<Vec<Option<Vec<f32>>>, IndexError> {
        let Some((_, dims)) = self.model()? else {
            return Ok(vec![None; notes.len()]);
        };
        let matrix = self.matrix(project, dims)?;
        let m = matrix.read().unwrap_or_else(|e| e.into_inner());
        let direction = |&(note_id, passage): &(&str, Option<u32>)| -> Option<Vec<f32>> {
            let note = *m.note_index.get(note_id)? as usize;
            let rows = &m.rows_of[note];
            let row = passage.and_then(|p| rows.iter().find(|&&r| m.rows[r].1 == p));
            let values = match row {
                Some(&r) => m.values[r * m.dims..][..m.dims].to_vec(),
                None if m.sum_norms[note] > 0.0 => m.sums[note * m.dims..][..m.dims].to_vec(),
                None => return None,
            };
            let norm = dot(&values, &values).sqrt();
            (norm > 0.0).then(|| values.iter().map(|v| v / norm).collect())
        };
        Ok(notes.iter().map(direction).collect())
    }

    /// The notes of `project` most similar to `query` (a normalised vector), best first, at
    /// most `limit`; only notes `admit` lets through are considered. A note's similarity is
    /// mostly its best passage's, and partly the whole note's (its passages' sum): of two
    /// notes with an equally close passage, the one that is about the query throughout comes
    /// first, and a long note is not ranked by one passage alone.
    /// docs/search-quality.md, "A note-level vector", measures the share.
    pub fn search(
        &self,
        project: &str,
        query: &[f32],
        limit: usize,
        admit: impl Fn(&str) -> bool,
    ) -> Result<Vec<VectorHit>, IndexError> {
        let matrix = self.matrix(project, query.len())?;
        let matrix = matrix.read().unwrap_or_else(|e| e.into_inner());
        let permitted: Vec<bool> = matrix.notes.iter().map(|n| admit(n)).collect();
        let mut best: Vec<Option<(f32, u32)>> = vec![None; matrix.notes.len()];
        for (&(note, passage), values) in matrix
            .rows
            .iter()
            .zip(matrix.values.chunks_exact(matrix.dims.max(1)))
        {
            if note == REMOVED {
                continue;
            }
            let note = note as usize;
            if !permitted[note] {
                continue;
            }
            let similarity = dot(values, query);
            if best[note].is_none_or(|(s, _)| similarity > s) {
                best[note] = Some((similarity, passage));
            }
        }
        let mut found: Vec<(usize, f32, u32)> = best
            .into_iter()
            .enumerate()
            .filter_map(|(note, b)| {
                b.map(|(passage_similarity, passage)| {
                    let whole = matrix.note_similarity(note, query);
                    let similarity =
                        (1.0 - WHOLE_NOTE_SHARE) * passage_similarity + WHOLE_NOTE_SHARE * whole;
                    (note, similarity, passage)
                })
            })
            .collect();
        found.sort_by(|a, b| {
            b.1.total_cmp(&a.1)
                .then_with(|| matrix.notes[a.0].cmp(&matrix.notes[b.0]))
        });
        Ok(found
            .into_iter()
            .take(limit)
            .map(|(note, similarity, passage)| VectorHit {
                note_id: matrix.notes[note].clone(),
                similarity,
                passage,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(store: &VectorStore, project: &str, id: &str, checksum: &str, vectors: &[Vec<f32>]) {
        store
            .put_many(&[NoteVectors {
                project: project.into(),
                note_id: id.into(),
                checksum: checksum.into(),
                vectors: vectors.to_vec(),
            }])
            .unwrap();
    }

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn of_two_notes_with_an_equally_close_passage_the_one_about_the_query_throughout_wins() {
        let dir = tempfile::tempdir().unwrap();
        let store = VectorStore::open(dir.path()).unwrap();
        store.reset("m", 2).unwrap();
        let query = unit(&[0.0, 1.0]);
        put(
            &store,
            "p",
            "aside",
            "c1",
            &[query.clone(), unit(&[1.0, 0.0])],
        );
        put(
            &store,
            "p",
            "about",
            "c2",
            &[query.clone(), unit(&[1.0, 2.0])],
        );
        put(&store, "p", "single", "c3", &[unit(&[1.0, 2.0])]);
        let hits = store.search("p", &query, 10, |_| true).unwrap();
        let order: Vec<&str> = hits.iter().map(|h| h.note_id.as_str()).collect();
        assert_eq!(order, ["about", "aside", "single"]);
        assert_eq!(
            hits[0].passage, 0,
            "the best passage is still the one reported"
        );
        let single = unit(&[1.0, 2.0])[1];
        assert!(
            (hits[2].similarity - single).abs() < 1e-6,
            "a note of one passage scores that passage's similarity"
        );
        store.remove("p", "about").unwrap();
        put(&store, "p", "about", "c4", &[unit(&[1.0, 0.0])]);
        let hits = store.search("p", &query, 10, |_| true).unwrap();
        assert_eq!(
            hits[2].note_id, "about",
            "a replaced note's old passages no longer count"
        );
        assert!(hits[2].similarity.abs() < 1e-6);
    }

    #[test]
    fn the_best_passage_ranks_a_note_and_replacing_or_removing_a_note_takes_effect() {
        let dir = tempfile::tempdir().unwrap();
        let store = VectorStore::open(dir.path()).unwrap();
        store.reset("m", 2).unwrap();
        put(
            &store,
            "p",
            "a",
            "c1",
            &[unit(&[1.0, 0.0]), unit(&[0.0, 1.0])],
        );
        put(&store, "p", "b", "c2", &[unit(&[1.0, 1.0])]);
        put(&store, "other", "c", "c3", &[unit(&[0.0, 1.0])]);
        let hits = store.search("p", &unit(&[0.0, 1.0]), 10, |_| true).unwrap();
        assert_eq!(hits[0].note_id, "a");
        assert_eq!(hits[0].passage, 1);
        assert_eq!(hits.len(), 2, "other projects are not searched");

        put(&store, "p", "a", "c4", &[unit(&[1.0, 0.0])]);
        let hits = store.search("p", &unit(&[0.0, 1.0]), 10, |_| true).unwrap();
        assert_eq!(hits[0].note_id, "b", "a's old passages are gone");
        store.remove("p", "b").unwrap();
        let ids: Vec<String> = store
            .search("p", &unit(&[0.0, 1.0]), 10, |_| true)
            .unwrap()
            .into_iter()
            .map(|h| h.note_id)
            .collect();
        assert_eq!(ids, ["a"]);
        put(
            &store,
            "p",
            "d",
            "c5",
            &[unit(&[0.0, 1.0]), unit(&[1.0, 0.0])],
        );
        let query = unit(&[0.2, 1.0]);
        let kept_up = store.search("p", &query, 10, |_| true).unwrap();
        assert_eq!(kept_up[0].note_id, "d");
        assert_eq!(kept_up[0].passage, 0);
        assert_eq!(store.embedded().unwrap().len(), 3);
        let notes = store.notes("p").unwrap();
        assert_eq!(notes, HashSet::from(["a".to_string(), "d".to_string()]));
        let others: Vec<String> = store
            .search("p", &query, 10, |id| id != "d")
            .unwrap()
            .into_iter()
            .map(|h| h.note_id)
            .collect();
        assert_eq!(others, ["a"], "notes not admitted are not ranked");
        drop(store);
        let store = VectorStore::open(dir.path()).unwrap();
        assert_eq!(
            store.search("p", &query, 10, |_| true).unwrap(),
            kept_up,
            "the copy kept up to date in memory equals one read afresh"
        );
        assert_eq!(store.model().unwrap(), Some(("m".to_string(), 2)));
        assert!(!store.is_empty().unwrap());
        store.reset("n", 3).unwrap();
        assert!(store.embedded().unwrap().is_empty());
        assert!(store.is_empty().unwrap());
    }
}
