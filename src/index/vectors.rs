//! Passage vectors of every note, for semantic search: their own LMDB environment under
//! `<root>/index/vectors/`, written only by the embedding worker. Each note records the checksum
//! of the text its vectors were made from, so the worker finds its work by comparing with the
//! graph (no outbox to lose), and the model they were made with, so a new model starts over.
//!
//! Search is exact: a dot product with every passage of the project. At 10,000 notes of a few
//! passages each that is a few milliseconds; an approximate index would buy nothing at this
//! size and would cost its build time on every write.

use std::collections::HashMap;
use std::path::Path;

use milli_core::heed::types::{Bytes, Str};
use milli_core::heed::{self, Database, Env, EnvOpenOptions, WithoutTls};
use serde::{Deserialize, Serialize};

use super::IndexError;

const MAP_SIZE: usize = 16 << 30;
const SEP: char = '\0';

/// What the vectors of one note were made from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Embedded {
    pub checksum: String,
    pub passages: u32,
}

/// The best passage of a note for a query.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorHit {
    pub note_id: String,
    pub similarity: f32,
    pub passage: u32,
}

#[derive(Clone)]
pub struct VectorStore {
    env: Env<WithoutTls>,
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
        let mut options = EnvOpenOptions::new().read_txn_without_tls();
        options.map_size(MAP_SIZE).max_dbs(3);
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

    /// Replaces one note's vectors.
    pub fn put(
        &self,
        project: &str,
        note_id: &str,
        checksum: &str,
        vectors: &[Vec<f32>],
    ) -> Result<(), IndexError> {
        let mut wtxn = self.env.write_txn()?;
        self.remove_in(&mut wtxn, project, note_id)?;
        let key = note_key(project, note_id);
        let record = Embedded {
            checksum: checksum.to_string(),
            passages: vectors.len() as u32,
        };
        self.notes
            .put(&mut wtxn, &key, &serde_json::to_vec(&record)?)?;
        for (i, vector) in vectors.iter().enumerate() {
            let bytes: Vec<u8> = vector.iter().flat_map(|x| x.to_le_bytes()).collect();
            self.passages
                .put(&mut wtxn, &format!("{key}{SEP}{i:08x}"), &bytes)?;
        }
        wtxn.commit()?;
        Ok(())
    }

    /// Drops one note's vectors.
    pub fn remove(&self, project: &str, note_id: &str) -> Result<(), IndexError> {
        let mut wtxn = self.env.write_txn()?;
        self.remove_in(&mut wtxn, project, note_id)?;
        wtxn.commit()?;
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

    /// The notes of `project` whose best passage is most similar to `query` (a normalised
    /// vector), best first, at most `limit`; `allowed` restricts the notes considered.
    pub fn search(
        &self,
        project: &str,
        query: &[f32],
        limit: usize,
        allowed: Option<&std::collections::HashSet<String>>,
    ) -> Result<Vec<VectorHit>, IndexError> {
        let rtxn = self.env.read_txn()?;
        let prefix = format!("{project}{SEP}");
        let mut best: HashMap<&str, (f32, u32)> = HashMap::new();
        for entry in self.passages.prefix_iter(&rtxn, &prefix)? {
            let (key, bytes) = entry?;
            let rest = &key[prefix.len()..];
            let Some((note_id, passage)) = rest.split_once(SEP) else {
                continue;
            };
            if allowed.is_some_and(|a| !a.contains(note_id)) {
                continue;
            }
            if bytes.len() != query.len() * 4 {
                continue;
            }
            let similarity: f32 = bytes
                .chunks_exact(4)
                .zip(query)
                .map(|(b, q)| f32::from_le_bytes([b[0], b[1], b[2], b[3]]) * q)
                .sum();
            let passage = u32::from_str_radix(passage, 16).unwrap_or(0);
            let slot = best.entry(note_id).or_insert((f32::MIN, 0));
            if similarity > slot.0 {
                *slot = (similarity, passage);
            }
        }
        let mut hits: Vec<VectorHit> = best
            .into_iter()
            .map(|(id, (similarity, passage))| VectorHit {
                note_id: id.to_string(),
                similarity,
                passage,
            })
            .collect();
        hits.sort_by(|a, b| {
            b.similarity
                .total_cmp(&a.similarity)
                .then(a.note_id.cmp(&b.note_id))
        });
        hits.truncate(limit);
        Ok(hits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(v: &[f32]) -> Vec<f32> {
        let n = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.iter().map(|x| x / n).collect()
    }

    #[test]
    fn the_best_passage_ranks_a_note_and_replacing_or_removing_a_note_takes_effect() {
        let dir = tempfile::tempdir().unwrap();
        let store = VectorStore::open(dir.path()).unwrap();
        store.reset("m", 2).unwrap();
        store
            .put("p", "a", "c1", &[unit(&[1.0, 0.0]), unit(&[0.0, 1.0])])
            .unwrap();
        store.put("p", "b", "c2", &[unit(&[1.0, 1.0])]).unwrap();
        store.put("other", "c", "c3", &[unit(&[0.0, 1.0])]).unwrap();
        let hits = store.search("p", &unit(&[0.0, 1.0]), 10, None).unwrap();
        assert_eq!(hits[0].note_id, "a");
        assert_eq!(hits[0].passage, 1);
        assert_eq!(hits.len(), 2, "other projects are not searched");

        store.put("p", "a", "c4", &[unit(&[1.0, 0.0])]).unwrap();
        let hits = store.search("p", &unit(&[0.0, 1.0]), 10, None).unwrap();
        assert_eq!(hits[0].note_id, "b", "a's old passages are gone");
        store.remove("p", "b").unwrap();
        let ids: Vec<String> = store
            .search("p", &unit(&[0.0, 1.0]), 10, None)
            .unwrap()
            .into_iter()
            .map(|h| h.note_id)
            .collect();
        assert_eq!(ids, ["a"]);
        assert_eq!(store.embedded().unwrap().len(), 2);
        assert_eq!(store.model().unwrap(), Some(("m".to_string(), 2)));
        store.reset("n", 3).unwrap();
        assert!(store.embedded().unwrap().is_empty());
    }
}
