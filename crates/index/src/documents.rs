//! The milli full-text index: one document per note, and the indexing of them (queries are
//! `index::query`).

use std::io::Write;

use milli_core::heed::{RoTxn, RwTxn};
use milli_core::progress::Progress;
use milli_core::update::new::indexer;
use milli_core::update::{IndexerConfig, Settings};
use milli_core::vector::EmbeddingConfigs;
use milli_core::{FilterableAttributesRule, Index as Milli};
use serde_json::{json, Map, Value};

use super::graph::Tables;
use super::model::{NoteKind, NoteRecord, SearchDone};
use super::query::Document;
use super::terms::NoteTerms;
use super::IndexError;
use note::permalink::normalize_note_type;

/// Threads milli indexes with (the machine budget is two cores).
const INDEXING_THREADS: usize = 2;

/// Text beyond this many bytes of one note is not full-text indexed.
pub const MAX_SEARCH_TEXT: usize = 1 << 20;

/// Searchable fields, most telling first: milli's attribute rule ranks a match in an earlier
/// field above one in a later field, so the words that name a note (title, aliases, headings,
/// path) outweigh words that merely occur in its body.
pub const SEARCHABLE: &[&str] = &[
    "title",
    "aliases",
    "headings",
    "tags",
    "permalink",
    "content",
];
const FILTERABLE: &[&str] = &[
    "note_id",
    "project",
    "folder",
    "note_type",
    "note_tags",
    "category",
    "status",
    "created",
    "updated",
    "deleted",
    "superseded",
    "expires",
];

pub fn configure<'t>(index: &'t Milli, wtxn: &mut RwTxn<'t>) -> Result<(), IndexError> {
    let config = IndexerConfig::default();
    let mut settings = Settings::new(wtxn, index, &config);
    settings.set_primary_key("id".into());
    settings.set_searchable_fields(SEARCHABLE.iter().map(|s| s.to_string()).collect());
    // Only what a query filters on: every front matter key filterable (`meta.*`) cost a facet
    // per key and note, unique values (titles, dates) among them, for one query's sake.
    settings.set_filterable_fields(
        FILTERABLE
            .iter()
            .map(|f| FilterableAttributesRule::Field(f.to_string()))
            .collect(),
    );
    settings.set_sortable_fields(
        ["created".to_string(), "updated".to_string()]
            .into_iter()
            .collect(),
    );
    settings.set_pagination_max_total_hits(100_000);
    // Facet search (searching the values of a filter field) is a Meilisearch API gitmem never
    // calls, and its per-field FSTs are rebuilt at every commit: at 100,000 notes about 6 % of a
    // cold index's CPU, and a cost of every small commit behind concurrent writers.
    settings.set_facet_search(false);
    // Word-pair proximity per attribute instead of per word: indexing is several times
    // cheaper, and notes are short enough that "in the same field" ranks well.
    settings.set_proximity_precision(milli_core::proximity::ProximityPrecision::ByAttribute);
    settings
        .execute(|_| (), || false)
        .map_err(IndexError::from)?;
    Ok(())
}

/// The id of a note's search document: `n-` and the note's UUID without dashes.
pub fn entity_doc_id(note_id: &str) -> String {
    format!("n-{}", note_id.replace('-', ""))
}

/// The note a search document belongs to, read from its id (notes' ids are UUIDs).
pub fn note_id_of_doc(doc_id: &str) -> Option<String> {
    let simple = doc_id.split('-').nth(1)?;
    Some(uuid::Uuid::try_parse(simple).ok()?.to_string())
}

fn seconds(ms: i64) -> f64 {
    ms as f64 / 1000.0
}

fn truncate_chars(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// Fields every document of a note shares: what filters need, and the way back to the note.
/// Everything else a result shows is read from the graph tables, which keeps the search
/// documents (and milli's work per document) small.
fn common_fields(note: &NoteRecord) -> Map<String, Value> {
    let mut m = Map::new();
    m.insert("note_id".into(), json!(note.id));
    m.insert("project".into(), json!(note.project));
    m.insert("folder".into(), json!(note.folder()));
    m.insert(
        "note_type".into(),
        json!(normalize_note_type(&note.note_type)),
    );
    m.insert("note_tags".into(), json!(note.tags));
    if let Some(status) = &note.status {
        m.insert("status".into(), json!(status));
    }
    m.insert("created".into(), json!(seconds(note.created_ms)));
    m.insert("updated".into(), json!(seconds(note.updated_ms)));
    // What hides a memory from searches: the time is the query's, so expiry is a bound.
    if note::memory::is_deleted(&note.metadata) {
        m.insert("deleted".into(), json!(true));
    }
    if note::supersede::is_superseded(&note.metadata) {
        m.insert("superseded".into(), json!(true));
    }
    if let Some(expires) = note::memory::expires_at(&note.metadata, note.created_ms) {
        m.insert("expires".into(), json!(seconds(expires.timestamp_millis())));
    }
    m
}

/// An observation's search title: `category: first 100 chars...` (compat 6.1).
pub fn observation_title(category: &str, content: &str) -> String {
    format!("{category}: {}...", truncate_chars(content, 100))
}

/// The search document of a note. Its observations and relations have none of their own: their
/// text is part of the note's (its body, or its title), so the note's document finds them and
/// `engine::search::parts` picks them out of their note's record. Observation categories are
/// a filter field of the note's document, so a search for observations of a category reads
/// only the notes that have one. A document per observation and relation was about nine a note,
/// nearly half of a cold index's work (docs/performance.md).
pub fn document(note: &NoteRecord, body: &str) -> Value {
    let mut doc = common_fields(note);
    let markdown = note.kind == NoteKind::Markdown;
    let content = if markdown { body } else { "" };
    let categories: std::collections::BTreeSet<&str> = if markdown {
        note.observations
            .iter()
            .map(|o| o.category.as_str())
            .collect()
    } else {
        Default::default()
    };
    let own = json!({
        "id": entity_doc_id(&note.id),
        "title": note.title,
        "aliases": note.aliases,
        "headings": note::parse::headings(content),
        "content": content,
        "permalink": note.permalink,
        "tags": note.tags,
        "category": categories,
    });
    if let Value::Object(own) = own {
        doc.extend(own);
    }
    Value::Object(doc)
}

/// A note's search document as the search index holds it.
#[derive(Debug, Clone, Default)]
pub struct IndexedNote {
    /// The checksum of the text it was indexed from (`None`: the text was lost).
    pub checksum: Option<String>,
    pub document: Option<Document>,
}

/// The checksum of the body a search document entry (`search_docs`) was indexed from: the
/// entry is that checksum, empty when the text was lost.
pub fn indexed_checksum(entry: &[u8]) -> String {
    String::from_utf8_lossy(entry).into_owned()
}

/// The body milli stored for a note the last time it was indexed.
pub fn stored_body(
    milli: &Milli,
    rtxn: &RoTxn,
    note_id: &str,
) -> Result<Option<String>, IndexError> {
    let Some(internal) = milli
        .external_documents_ids()
        .get(rtxn, entity_doc_id(note_id))?
    else {
        return Ok(None);
    };
    let fields = milli.fields_ids_map(rtxn)?;
    let Some(content_field) = fields.id("content") else {
        return Ok(None);
    };
    let docs = milli.documents(rtxn, [internal])?;
    let Some((_, obkv)) = docs.first() else {
        return Ok(None);
    };
    Ok(obkv
        .get(content_field)
        .and_then(|raw| serde_json::from_slice::<String>(raw).ok()))
}

/// A body a write handed over to the search indexer, since the graph does not keep bodies.
pub(super) struct Handed {
    /// The graph commit that wrote it (the number its outbox entry carries).
    pub stamp: u64,
    pub checksum: String,
    pub text: String,
}

impl Handed {
    /// Whether the outbox entry `token` (`owner#stamp`) was marked by this body's write or a
    /// later one of the same writer, i.e. a snapshot holding that token sees the write.
    fn seen_by(&self, token: &str, owner: &str) -> bool {
        token
            .rsplit_once('#')
            .filter(|(marked_by, _)| *marked_by == owner)
            .and_then(|(_, stamp)| stamp.parse::<u64>().ok())
            .is_some_and(|stamp| self.stamp <= stamp)
    }
}

/// Bodies handed over and not yet indexed, by note id.
pub(super) type Bodies = std::sync::Mutex<std::collections::HashMap<String, Handed>>;

/// Applies the search outbox: re-indexes up to `limit` dirty notes in one milli transaction.
/// Bodies come from `bodies` (handed over by this process's writes) or, for a note whose file
/// did not change, from milli's own stored copy. The graph tables never keep bodies. A note
/// whose new body is unknown (the process stopped between its two commits) is reported stale,
/// so that its checksum is cleared and the next scan reads the file again. Notes in `recording`
/// (a search commit whose record the graph writer has not committed yet) are left alone.
/// Returns `None` when the outbox holds nothing else for this writer.
pub(super) fn flush(
    env: &milli_core::heed::Env<milli_core::heed::WithoutTls>,
    tables: &Tables,
    milli: &Milli,
    bodies: &Bodies,
    owner: &super::owner::Owner,
    (limit, recording): (usize, &std::collections::HashSet<String>),
) -> Result<Option<SearchDone>, IndexError> {
    let gtxn = env.read_txn()?;
    let mut dirty: Vec<String> = Vec::new();
    let mut tokens: Vec<String> = Vec::new();
    let mut takeable: std::collections::HashMap<String, bool> = Default::default();
    for item in tables.search_dirty.iter(&gtxn)? {
        let (id, token) = item?;
        if recording.contains(id) {
            continue;
        }
        let entry_owner = token.split('#').next().unwrap_or(token);
        let may_take = *takeable
            .entry(entry_owner.to_string())
            .or_insert_with(|| owner.may_take(entry_owner));
        if may_take {
            dirty.push(id.to_string());
            tokens.push(token.to_string());
            if dirty.len() >= limit {
                break;
            }
        }
    }
    if dirty.is_empty() {
        return Ok(None);
    }
    let mut bodies = bodies.lock().unwrap_or_else(|e| e.into_inner());
    let mut payload = tempfile::tempfile()?;
    let mut writer = std::io::BufWriter::new(&mut payload);
    let mut deletions: Vec<String> = Vec::new();
    // What each note's entry becomes: the checksum of the text indexed, or gone.
    let mut indexed: Vec<(String, Option<String>)> = Vec::with_capacity(dirty.len());
    let mut stale: Vec<(String, String)> = Vec::new();
    let mut terms: Vec<(String, Option<NoteTerms>)> = Vec::new();
    // Notes whose handed text gets its terms counted: id, project, text.
    let mut to_count: Vec<(String, String, String)> = Vec::new();
    let mut replaced = 0usize;
    {
        let mrtxn = milli.read_txn()?;
        for (id, token) in dirty.iter().zip(&tokens) {
            let previous = tables.search_docs.get(&gtxn, id)?.map(indexed_checksum);
            match tables.get_note(&gtxn, id)? {
                Some(note) => {
                    // Only the body of the text this snapshot sees: a write that has handed
                    // over its body but is not visible here yet leaves it for the next pass.
                    let handed = match bodies.get(id) {
                        Some(handed) if handed.checksum == note.checksum => {
                            bodies.remove(id).map(|handed| handed.text)
                        }
                        _ => None,
                    };
                    let counted = handed.is_some();
                    let text = match handed {
                        Some(body) => Some(body),
                        None if note.kind == NoteKind::File => Some(String::new()),
                        // The record says milli holds this text; it may not, if a process
                        // died between a milli commit (that deleted the document) and the
                        // graph commit recording it: then the text is lost like any other.
                        None if previous.as_ref() == Some(&note.checksum) => {
                            stored_body(milli, &mrtxn, id)?
                        }
                        None => None,
                    };
                    let lost = text.is_none();
                    let body = match text {
                        Some(body) => body,
                        // Indexed meanwhile from what milli has (older), until the file is
                        // read again.
                        None => {
                            stale.push((id.clone(), note.checksum.clone()));
                            stored_body(milli, &mrtxn, id)?.unwrap_or_default()
                        }
                    };
                    serde_json::to_writer(&mut writer, &document(&note, &body))?;
                    writer.write_all(b"\n")?;
                    replaced += 1;
                    if counted {
                        to_count.push((id.clone(), note.project.clone(), body));
                    }
                    // A lost text is recorded as the text of no checksum: the body indexed
                    // instead is older than the note, and must never pass for its text.
                    let checksum = if lost {
                        String::new()
                    } else {
                        note.checksum.clone()
                    };
                    indexed.push((id.clone(), Some(checksum)));
                }
                None => {
                    // The body of a write this snapshot sees is obsolete; one of a later
                    // write (the note written again since) waits for the pass that sees it.
                    if bodies
                        .get(id)
                        .is_some_and(|handed| handed.seen_by(token, &owner.name))
                    {
                        bodies.remove(id);
                    }
                    deletions.push(entity_doc_id(id));
                    indexed.push((id.clone(), None));
                    terms.push((id.clone(), None));
                }
            }
        }
    }
    writer.flush()?;
    drop(writer);
    drop(gtxn);
    drop(bodies);

    let mmap = unsafe { memmap2::Mmap::map(&payload)? };
    // Counting terms needs neither milli nor a transaction: it runs beside milli's indexing,
    // whose merging and writing leave a core idle. The texts sit in a mutex rather than in the
    // closure, which a refused thread drops: then this thread still finds them.
    let to_count = std::sync::Mutex::new(to_count);
    let count = || -> Vec<(String, Option<NoteTerms>)> {
        std::mem::take(&mut *to_count.lock().unwrap_or_else(|e| e.into_inner()))
            .into_iter()
            .map(|(id, project, text)| (id, Some(NoteTerms::of(&project, &text))))
            .collect()
    };
    let (indexed_by_milli, counted) = std::thread::scope(|scope| {
        // A thread the system refuses leaves the counting to this one, after milli.
        let counting = std::thread::Builder::new()
            .name("gitmem-terms".into())
            .spawn_scoped(scope, count)
            .ok();
        let indexed = index_payload(milli, &mmap, replaced > 0, &deletions);
        let counted = match counting {
            Some(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            None => count(),
        };
        (indexed, counted)
    });
    indexed_by_milli?;
    terms.extend(counted);
    tracing::debug!(
        notes = dirty.len(),
        documents = replaced,
        deletions = deletions.len(),
        "search commit"
    );

    Ok(Some(SearchDone {
        entries: indexed
            .into_iter()
            .zip(tokens)
            .map(|((id, checksum), token)| (id, token, checksum.map(String::into_bytes)))
            .collect(),
        stale,
        terms,
    }))
}

/// Replaces milli's documents with those of `payload` (when `replacing`) and deletes
/// `deletions`, in one milli commit.
fn index_payload(
    milli: &Milli,
    payload: &memmap2::Mmap,
    replacing: bool,
    deletions: &[String],
) -> Result<(), IndexError> {
    let config = IndexerConfig::default();
    let mut wtxn = milli.write_txn()?;
    {
        let rtxn = milli.read_txn()?;
        let fields = milli.fields_ids_map(&rtxn)?;
        let mut new_fields = fields.clone();
        let alloc = bumpalo::Bump::new();
        let delete_refs: Vec<&str> = deletions.iter().map(String::as_str).collect();
        let delete_refs = alloc.alloc_slice_copy(&delete_refs);
        let mut op = indexer::DocumentOperation::new();
        if replacing {
            op.replace_documents(payload)?;
        }
        if !delete_refs.is_empty() {
            op.delete_documents(delete_refs);
        }
        let (changes, stats, primary_key) = op.into_changes(
            &alloc,
            milli,
            &rtxn,
            None,
            &mut new_fields,
            &|| false,
            Progress::default(),
        )?;
        if let Some(e) = stats.into_iter().find_map(|s| s.error) {
            return Err(milli_core::Error::from(e).into());
        }
        let pool = milli_core::ThreadPoolNoAbortBuilder::new()
            .num_threads(INDEXING_THREADS)
            .build()?;
        indexer::index(
            &mut wtxn,
            milli,
            &pool,
            config.grenad_parameters(),
            &fields,
            new_fields,
            primary_key,
            &changes,
            EmbeddingConfigs::default(),
            &|| false,
            &Progress::default(),
        )?;
    }
    wtxn.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn observation_titles_follow_compat() {
        assert_eq!(
            observation_title("tech", "Uses SQLite FTS5 #search #db"),
            "tech: Uses SQLite FTS5 #search #db..."
        );
    }
}
