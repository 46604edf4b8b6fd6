//! `gitmem inspect` and the diagnostics tools: how the index sees a note (its search
//! documents, its passages and their vectors, its checksums) and why a search ranked what it
//! ranked (each ranking search_notes fused, and the fused order, from the search itself).

use crate::NoteRow;
use serde_json::{Map, Value};

use super::read::{check_identifier, ReadRefusal};
use super::scope::ProjectChoice;
use super::search::{Explanation, SearchRequest, SearchResponse};
use super::{Outcome, PathArg, Result};
use crate::Engine;
use index::documents::entity_doc_id;
use index::Index;
use note::chunk::passages;
use vault::file::sha256_hex;

/// How many entries of each ranking `inspect query` shows.
pub(crate) const RANKING_DEPTH: usize = 10;

/// A note as the index sees it.
#[derive(Debug, Clone)]
pub struct NoteInspection {
    pub project: String,
    /// The graph's record: id, permalink, path, title, and the checksum of the file it read.
    pub note: NoteRow,
    /// The checksum of the file as it is now; `None` when it cannot be read.
    pub file_checksum: Option<String>,
    /// The checksum of the text the search index holds; `None` when it holds none (not
    /// indexed yet, or its text was lost and waits for a scan).
    pub indexed_checksum: Option<String>,
    /// The note's search documents as indexed: its own, its observations', its relations'.
    pub documents: Vec<Map<String, Value>>,
    /// The passages the indexed text is cut into for embedding.
    pub passages: Vec<PassageInspection>,
    pub vectors: VectorsInspection,
}

impl NoteInspection {
    /// Whether the index holds the file as it is now (graph and search index alike).
    pub fn fresh(&self) -> bool {
        self.file_checksum.as_deref() == Some(self.note.checksum.as_str())
            && self.indexed_checksum.as_deref() == Some(self.note.checksum.as_str())
    }
}

/// One passage of a note, as embedding cuts it.
#[derive(Debug, Clone)]
pub struct PassageInspection {
    pub heading: Option<String>,
    /// The text embedded (the note's title and the heading, then the passage).
    pub text: String,
    /// SHA-256 of `text`.
    pub checksum: String,
    /// Whether the vector store holds a vector for this passage.
    pub has_vector: bool,
}

/// The note's vectors in the vector store.
#[derive(Debug, Clone)]
pub struct VectorsInspection {
    /// The model the store's vectors were made with, and its dimensions.
    pub model: Option<(String, usize)>,
    /// The checksum of the text the note's vectors were made from; `None` without vectors.
    pub checksum: Option<String>,
    pub passages: u32,
    /// When they were stored (ms); `None` for vectors stored before gitmem recorded it.
    pub embedded_ms: Option<i64>,
}

impl VectorsInspection {
    /// Whether the vectors were made from the text the search index holds.
    pub fn current(&self, indexed: Option<&str>) -> bool {
        self.checksum.is_some() && self.checksum.as_deref() == indexed
    }
}

/// Why a search ranked what it ranked.
#[derive(Debug, Clone)]
pub struct QueryInspection {
    pub project: String,
    pub query: String,
    /// Each ranking's first entries, with the notes they name; `None` for a query that is not
    /// ranked (boolean, or of stopwords only), whose results are in milli's order.
    pub rankings: Option<Rankings>,
    /// The search_notes page for the query, in its order.
    pub response: SearchResponse,
}

/// The rankings of an explained search, each cut to its first entries.
#[derive(Debug, Clone)]
pub struct Rankings {
    pub explanation: Explanation,
    pub names: Vec<RankedNote>,
    pub said: Vec<RankedNote>,
    pub lexical: Vec<RankedNote>,
    /// Empty when there is no vector ranking (the explanation says why).
    pub vector: Vec<RankedNote>,
    pub fused: Vec<RankedNote>,
}

/// One entry of a ranking.
#[derive(Debug, Clone, PartialEq)]
pub struct RankedNote {
    /// From 1.
    pub rank: usize,
    pub score: f64,
    /// The search document's id.
    pub document: String,
    pub title: String,
    pub permalink: Option<String>,
    pub file_path: Option<String>,
}

/// inspect_note: the note `identifier` names, resolved as read_note resolves it, as the
/// index sees it.
pub(crate) fn inspect_note(
    engine: &Engine,
    choice: &ProjectChoice,
    identifier: &str,
) -> Result<Outcome<NoteInspection, ReadRefusal>> {
    let project = crate::scope::project_for_identifier(&engine.store, choice, identifier)?;
    if let Err(refusal) = check_identifier(identifier, PathArg::Identifier) {
        return Ok(Outcome::Refused(ReadRefusal::OutsideProject(refusal)));
    }
    let Some(note) = crate::read::find_for_read(engine, &project, identifier)? else {
        return Ok(Outcome::Refused(ReadRefusal::NotFound {
            project: project.name,
            identifier: identifier.to_string(),
            related: Vec::new(),
        }));
    };
    let file_checksum = crate::mounts::project_file(&engine.store, &project, &note.path)
        .and_then(|path| Ok(vault::fs::read(&path)?))
        .ok()
        .map(|bytes| sha256_hex(&bytes));
    let indexed = engine
        .store
        .index
        .indexed_document(&note.id)?
        .unwrap_or_default();
    let (indexed_checksum, documents) = (indexed.checksum, Vec::from_iter(indexed.document));
    let body = documents
        .first()
        .and_then(|doc| doc.get("content"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let embedded = engine
        .store
        .index
        .vectors
        .embedded_note(&project.name, &note.id)?;
    let stored = embedded.as_ref().map_or(0, |e| e.passages) as usize;
    let passages = passages(&note.title, body)
        .into_iter()
        .enumerate()
        .map(|(i, passage)| PassageInspection {
            heading: passage.heading,
            checksum: sha256_hex(passage.text.as_bytes()),
            text: passage.text,
            has_vector: i < stored,
        })
        .collect();
    let vectors = VectorsInspection {
        model: engine.store.index.vectors.model()?,
        checksum: embedded.as_ref().map(|e| e.checksum.clone()),
        passages: embedded.as_ref().map_or(0, |e| e.passages),
        embedded_ms: embedded.and_then(|e| e.embedded_ms),
    };
    Ok(Outcome::Done(NoteInspection {
        project: project.name,
        note: note.into(),
        file_checksum,
        indexed_checksum,
        documents,
        passages,
        vectors,
    }))
}

/// inspect_query: search_notes' default search for `query`, with each ranking it fused.
pub(crate) fn inspect_query(
    engine: &Engine,
    choice: &ProjectChoice,
    query: &str,
    limit: usize,
) -> Result<QueryInspection> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    let request = SearchRequest {
        query: Some(query.to_string()),
        page_size: limit,
        ..Default::default()
    };
    let (response, explanation) =
        crate::search::search_explained(engine, &project, &request, true)?;
    let rankings = match explanation {
        Some(explanation) => Some(Rankings {
            names: ranked_notes(&engine.store.index, &explanation.names, RANKING_DEPTH)?,
            said: ranked_notes(&engine.store.index, &explanation.said, RANKING_DEPTH)?,
            lexical: ranked_notes(&engine.store.index, &explanation.lexical, RANKING_DEPTH)?,
            vector: match &explanation.vector {
                super::search::VectorRanking::Ranked(ranking) => {
                    ranked_notes(&engine.store.index, ranking, RANKING_DEPTH)?
                }
                _ => Vec::new(),
            },
            fused: ranked_notes(&engine.store.index, &explanation.fused, limit)?,
            explanation,
        }),
        None => None,
    };
    Ok(QueryInspection {
        project: project.name,
        query: query.to_string(),
        rankings,
        response,
    })
}

/// The first `depth` entries of a ranking, with the notes (or rows) they name.
fn ranked_notes(index: &Index, ranking: &[(String, f64)], depth: usize) -> Result<Vec<RankedNote>> {
    let top = &ranking[..ranking.len().min(depth)];
    let ids: Vec<String> = top.iter().map(|(id, _)| id.clone()).collect();
    let docs = index.search_documents_by_id(&ids)?;
    let mut out = Vec::with_capacity(top.len());
    for (i, ((document, score), doc)) in top.iter().zip(docs).enumerate() {
        let doc = doc.map(|(_, doc)| doc).unwrap_or_default();
        let field = |name: &str| doc.get(name).and_then(Value::as_str).map(String::from);
        let note = match field("note_id") {
            Some(id) => crate::notes::note_by_id(index, &id)?,
            None => None,
        };
        // A note's own document is titled by the note; an observation's or relation's
        // by its own title.
        let own = note
            .as_ref()
            .is_some_and(|n| entity_doc_id(&n.id) == *document);
        out.push(RankedNote {
            rank: i + 1,
            score: *score,
            document: document.clone(),
            title: match (&note, own) {
                (Some(n), true) => n.title.clone(),
                _ => field("title").unwrap_or_default(),
            },
            permalink: note.as_ref().and_then(|n| n.permalink.clone()),
            file_path: note.map(|n| n.path),
        });
    }
    Ok(out)
}
