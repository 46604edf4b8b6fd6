//! What the naming ranking reads from milli, all from one snapshot: the documents each query
//! word matches (with milli's typo, prefix and split derivations, but without its ranking
//! rules), which of them hold the word as written, how many words their titles have, and the
//! ids of the few the ranking keeps. One snapshot, because milli reuses the internal ids of
//! deleted documents: ids from one read transaction must not be resolved in another.

use std::cell::{OnceCell, RefCell};

use milli_core::heed::types::Bytes;
use milli_core::heed::RoTxn;
use milli_core::tokenizer::Tokenize;
use milli_core::{CboRoaringBitmapCodec, FieldsIdsMap, Index as Milli, SearchContext};
use roaring::RoaringBitmap;

use super::query::{candidates_in, load_documents, scope, searched_fields};
use super::IndexError;

/// milli counts the words of a field up to this many; a longer title is counted as one more.
pub const MAX_COUNTED_WORDS: usize = 30;

/// A read of milli for the naming ranking: one snapshot, one filter, one set of fields.
pub struct Naming<'t> {
    milli: &'t Milli,
    rtxn: &'t RoTxn<'t>,
    /// milli's field ids, read once (a read decodes JSON).
    fields: OnceCell<FieldsIdsMap>,
    scope: RoaringBitmap,
    /// One search context for every word: the filter is evaluated and milli's settings are
    /// decoded once, and the words' lookups are cached across them.
    words: RefCell<SearchContext<'t>>,
}

/// Runs `read` on one snapshot of milli, for the documents `filter` passes (every document
/// without one) and words in `fields`.
pub fn read<T, E: From<IndexError>>(
    milli: &Milli,
    filter: Option<&str>,
    fields: &[String],
    read: impl FnOnce(&Naming) -> Result<T, E>,
) -> Result<T, E> {
    // Declared first, so that it outlives the search context that borrows it.
    let known: Option<Vec<String>>;
    let rtxn = milli.read_txn().map_err(IndexError::from)?;
    let mut scope = scope(milli, &rtxn, filter)?;
    let mut words = SearchContext::new(milli, &rtxn).map_err(IndexError::from)?;
    if !fields.is_empty() {
        known = searched_fields(milli, &rtxn, fields)?;
        match &known {
            Some(known) => words
                .attributes_to_search_on(known)
                .map_err(IndexError::from)?,
            // No document has these fields yet (an empty root): none can match.
            None => scope.clear(),
        }
    }
    let naming = Naming {
        milli,
        rtxn: &rtxn,
        fields: OnceCell::new(),
        scope,
        words: RefCell::new(words),
    };
    read(&naming)
}

impl Naming<'_> {
    /// The documents the filter passes.
    pub fn scope(&self) -> &RoaringBitmap {
        &self.scope
    }

    /// The documents of the scope whose fields hold `word` (typos, prefix and split words as
    /// milli matches them).
    pub fn word_matches(&self, word: &str) -> Result<RoaringBitmap, IndexError> {
        if self.scope.is_empty() {
            return Ok(RoaringBitmap::new());
        }
        candidates_in(&mut self.words.borrow_mut(), word, self.scope.clone())
    }

    /// The documents whose `fields` hold `word` as written (normalized as milli normalizes
    /// it), without typos or prefixes; `None` when the word is not one word to milli.
    pub fn exact_matches(
        &self,
        word: &str,
        fields: &[&str],
    ) -> Result<Option<RoaringBitmap>, IndexError> {
        let mut words = word.tokenize().filter(|t| t.is_word());
        let (Some(token), None) = (words.next(), words.next()) else {
            return Ok(None);
        };
        let ids = self.fields()?;
        let mut docs = RoaringBitmap::new();
        for fid in fields.iter().filter_map(|f| ids.id(f)) {
            if let Some(with) = self
                .milli
                .word_fid_docids
                .get(self.rtxn, &(token.lemma(), fid))?
            {
                docs |= with;
            }
        }
        Ok(Some(docs))
    }

    /// `docs` by the number of words of their title as milli counts them (shortest first,
    /// empty parts left out); a title of more than `MAX_COUNTED_WORDS` words, or none, counts
    /// `MAX_COUNTED_WORDS + 1`. Each count's documents are intersected as stored, never
    /// decoded whole: a count holds most of the index, `docs` a few of them.
    pub fn by_title_length(
        &self,
        docs: &RoaringBitmap,
    ) -> Result<Vec<(usize, RoaringBitmap)>, IndexError> {
        let title = self.fields()?.id("title");
        let mut rest = docs.clone();
        let mut parts = Vec::new();
        if let Some(title) = title {
            let counts = self
                .milli
                .field_id_word_count_docids
                .remap_data_type::<Bytes>();
            for words in 0..=MAX_COUNTED_WORDS {
                if rest.is_empty() {
                    break;
                }
                let Some(stored) = counts.get(self.rtxn, &(title, words as u8))? else {
                    continue;
                };
                let part = CboRoaringBitmapCodec::intersection_with_serialized(stored, &rest)
                    .map_err(|e| IndexError::from(milli_core::heed::Error::Io(e)))?;
                if !part.is_empty() {
                    rest -= &part;
                    parts.push((words, part));
                }
            }
        }
        if !rest.is_empty() {
            parts.push((MAX_COUNTED_WORDS + 1, rest));
        }
        Ok(parts)
    }

    fn fields(&self) -> Result<&FieldsIdsMap, IndexError> {
        if let Some(fields) = self.fields.get() {
            return Ok(fields);
        }
        let read = self.milli.fields_ids_map(self.rtxn)?;
        Ok(self.fields.get_or_init(|| read))
    }

    /// The ids of `docids`' documents, with their internal ids.
    pub fn ids(&self, docids: &[u32]) -> Result<Vec<(u32, String)>, IndexError> {
        Ok(
            load_documents(self.milli, self.rtxn, docids, Some(&["id"]))?
                .into_iter()
                .filter_map(|(docid, doc)| {
                    let id = doc.get("id")?.as_str()?.to_string();
                    Some((docid, id))
                })
                .collect(),
        )
    }
}
