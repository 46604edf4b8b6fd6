//! Queries of the milli full-text index: ranked searches, counts, and documents by id.

use std::collections::HashMap;

use milli_core::heed::RoTxn;
use milli_core::score_details::ScoringStrategy;
use milli_core::{Index as Milli, TermsMatchingStrategy};
use serde_json::{Map, Value};

use super::IndexError;

/// A full-text query against the index.
#[derive(Debug, Clone, Default)]
pub struct Query {
    pub text: String,
    /// A milli filter expression.
    pub filter: Option<String>,
    pub offset: usize,
    pub limit: usize,
    /// Which words a document must match.
    pub matching: Matching,
    /// Restrict matching to these searchable fields.
    pub fields: Option<Vec<String>>,
    /// Order by `updated` descending instead of relevance.
    pub newest_first: bool,
    /// Only these fields of each hit, when a ranking needs a few fields and not the text.
    pub load_only: Option<&'static [&'static str]>,
}

/// Which words of a query a document must match.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Matching {
    /// Every word.
    #[default]
    All,
    /// As many as possible: documents matching fewer words rank lower, and the words dropped
    /// first are the ones most documents contain (they tell the least).
    MostSpecific,
}

#[derive(Debug, Clone)]
pub struct Hit {
    pub doc: Map<String, Value>,
    pub score: f64,
    /// milli's internal id: its order among equal scores.
    pub docid: u32,
}

#[derive(Debug, Clone, Default)]
pub struct Hits {
    pub total: u64,
    pub hits: Vec<Hit>,
    /// Every matching document (internal ids), for unions across queries.
    pub candidates: roaring::RoaringBitmap,
}

/// A search document as JSON fields.
pub type Document = Map<String, Value>;

/// Documents by internal id, whole or only some fields.
pub(super) fn load_documents(
    milli: &Milli,
    rtxn: &RoTxn,
    docids: &[u32],
    only: Option<&[&str]>,
) -> Result<Vec<(u32, Document)>, IndexError> {
    let fields = milli.fields_ids_map(rtxn)?;
    let mut docs = Vec::with_capacity(docids.len());
    for (docid, obkv) in milli.documents(rtxn, docids.iter().copied())? {
        let doc = match only {
            None => milli_core::all_obkv_to_json(obkv, &fields)?,
            Some(names) => {
                let mut doc = Map::new();
                for name in names {
                    let value = fields.id(name).and_then(|id| obkv.get(id));
                    if let Some(bytes) = value {
                        doc.insert(name.to_string(), serde_json::from_slice(bytes)?);
                    }
                }
                doc
            }
        };
        docs.push((docid, doc));
    }
    Ok(docs)
}

/// Whole documents by their ids, in the order given, with milli's internal ids; `None` for an
/// id the index does not hold.
pub fn documents_by_external_id(
    milli: &Milli,
    ids: &[String],
) -> Result<Vec<Option<(u32, Document)>>, IndexError> {
    let rtxn = milli.read_txn()?;
    let external = milli.external_documents_ids();
    let docids: Vec<Option<u32>> = ids
        .iter()
        .map(|id| external.get(&rtxn, id))
        .collect::<Result<_, _>>()?;
    let found: Vec<u32> = docids.iter().flatten().copied().collect();
    let mut docs: HashMap<u32, Document> = load_documents(milli, &rtxn, &found, None)?
        .into_iter()
        .collect();
    // An id asked for twice gets its document twice: only its last request takes it.
    Ok((0..docids.len())
        .map(|i| {
            let d = docids[i]?;
            let again = docids[i + 1..].contains(&Some(d));
            let doc = if again {
                docs.get(&d).cloned()
            } else {
                docs.remove(&d)
            };
            doc.map(|doc| (d, doc))
        })
        .collect())
}

/// Of `fields`, those milli can search: a field no document has had yet (any field, on an
/// empty root) is not one, and milli refuses a search that names it. `None` when none is left:
/// nothing can match.
pub(super) fn searched_fields(
    milli: &Milli,
    rtxn: &RoTxn,
    fields: &[String],
) -> Result<Option<Vec<String>>, IndexError> {
    let searchable = milli.searchable_fields_and_weights(rtxn)?;
    let known: Vec<String> = fields
        .iter()
        .filter(|field| searchable.iter().any(|(name, _, _)| name == field.as_str()))
        .cloned()
        .collect();
    Ok((!known.is_empty()).then_some(known))
}

pub fn run(milli: &Milli, query: &Query) -> Result<Hits, IndexError> {
    let rtxn = milli.read_txn()?;
    let Some(result) = execute(milli, &rtxn, query)? else {
        return Ok(Hits::default());
    };
    let docs = load_documents(milli, &rtxn, &result.documents_ids, query.load_only)?;
    let hits = docs
        .into_iter()
        .zip(result.document_scores.iter())
        .map(|((docid, doc), scores)| Hit {
            doc,
            score: milli_core::score_details::ScoreDetails::global_score(scores.iter()),
            docid,
        })
        .collect();
    Ok(Hits {
        total: result.candidates.len(),
        hits,
        candidates: result.candidates,
    })
}

/// milli's answer to `query` in `rtxn`; `None` when the index holds no documents yet.
pub(super) fn execute(
    milli: &Milli,
    rtxn: &RoTxn,
    query: &Query,
) -> Result<Option<milli_core::SearchResult>, IndexError> {
    if milli.primary_key(rtxn)?.is_none() || milli.number_of_documents(rtxn)? == 0 {
        return Ok(None);
    }
    let mut search = milli_core::Search::new(rtxn, milli);
    if !query.text.trim().is_empty() {
        search.query(query.text.clone());
    }
    search
        .offset(query.offset)
        .limit(query.limit)
        .exhaustive_number_hits(true)
        .scoring_strategy(ScoringStrategy::Detailed)
        .terms_matching_strategy(match query.matching {
            Matching::All => TermsMatchingStrategy::All,
            Matching::MostSpecific => TermsMatchingStrategy::Frequency,
        });
    let fields = match &query.fields {
        Some(fields) => match searched_fields(milli, rtxn, fields)? {
            Some(known) => Some(known),
            None => return Ok(None),
        },
        None => None,
    };
    if let Some(fields) = &fields {
        search.searchable_attributes(fields);
    }
    if query.newest_first {
        search.sort_criteria(vec![milli_core::AscDesc::Desc(milli_core::Member::Field(
            "updated".into(),
        ))]);
    }
    let filter_text = query.filter.clone().unwrap_or_default();
    if let Some(filter) = milli_core::Filter::from_str(&filter_text)? {
        search.filter(filter);
    }
    Ok(Some(search.execute()?))
}

/// The documents `filter` passes (every document without one).
pub(super) fn scope(
    milli: &Milli,
    rtxn: &RoTxn,
    filter: Option<&str>,
) -> Result<roaring::RoaringBitmap, IndexError> {
    if milli.primary_key(rtxn)?.is_none() {
        return Ok(roaring::RoaringBitmap::new());
    }
    let filter = milli_core::Filter::from_str(filter.unwrap_or_default())?;
    Ok(milli_core::filtered_universe(milli, rtxn, &filter)?)
}

/// The documents of `universe` that match every word of `text` (typos, split words and a
/// prefix on the last word, as milli matches them), in a search context the caller reuses
/// across the queries of one snapshot. No ranking rule runs: the page starts past every match.
pub(super) fn candidates_in(
    ctx: &mut milli_core::SearchContext,
    text: &str,
    universe: roaring::RoaringBitmap,
) -> Result<roaring::RoaringBitmap, IndexError> {
    let found = milli_core::execute_search(
        ctx,
        Some(text),
        TermsMatchingStrategy::All,
        ScoringStrategy::Skip,
        true,
        universe,
        &None,
        &None,
        Default::default(),
        u32::MAX as usize,
        0,
        Some(10),
        &mut milli_core::DefaultSearchLogger,
        &mut milli_core::DefaultSearchLogger,
        milli_core::TimeBudget::max(),
        None,
        None,
    )?;
    Ok(found.candidates)
}
