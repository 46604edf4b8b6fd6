//! The note as workflows hand it to render: what a client may see of an indexed note. The
//! index's stored record stays behind this line, so a change to how the index keeps a note
//! changes no answer a client reads.

use serde_json::{Map, Value};

use index::{NoteRecord, StoredRelation};
use note::{Observation, Relation};

#[derive(Debug, Clone, PartialEq)]
pub struct NoteRow {
    pub id: String,
    pub project: String,
    pub path: String,
    pub permalink: Option<String>,
    pub title: String,
    pub note_type: String,
    pub content_type: String,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub status: Option<String>,
    pub metadata: Map<String, Value>,
    pub created_ms: i64,
    pub updated_ms: i64,
    /// The checksum of the file as the index last read it.
    pub checksum: String,
    pub size: u64,
    pub observations: Vec<Observation>,
    pub relations: Vec<RelationRow>,
}

/// A relation as written in its note, with the note its target resolved to.
#[derive(Debug, Clone, PartialEq)]
pub struct RelationRow {
    pub relation: Relation,
    pub to_id: Option<String>,
}

impl NoteRow {
    /// Where a note of a linked folder comes from (design 6): the `source` its scan recorded.
    pub fn linked_source(&self) -> Option<&Value> {
        note::linked_source(&self.metadata)
    }
}

impl From<NoteRecord> for NoteRow {
    fn from(record: NoteRecord) -> Self {
        NoteRow {
            id: record.id,
            project: record.project,
            path: record.path,
            permalink: record.permalink,
            title: record.title,
            note_type: record.note_type,
            content_type: record.content_type,
            tags: record.tags,
            aliases: record.aliases,
            status: record.status,
            metadata: record.metadata,
            created_ms: record.created_ms,
            updated_ms: record.updated_ms,
            checksum: record.checksum,
            size: record.size,
            observations: record.observations,
            relations: record
                .relations
                .into_iter()
                .map(RelationRow::from)
                .collect(),
        }
    }
}

impl From<StoredRelation> for RelationRow {
    fn from(stored: StoredRelation) -> Self {
        RelationRow {
            relation: stored.relation,
            to_id: stored.to_id,
        }
    }
}

/// One note of a correction chain.
#[derive(Debug, Clone, PartialEq)]
pub struct ChainLink {
    pub title: String,
    pub permalink: Option<String>,
    pub file_path: String,
    /// Why this note corrected the one before it (none for the first).
    pub reason: Option<String>,
    /// When the next note superseded it (none for the current one).
    pub superseded_at: Option<String>,
}

/// The notes a chain of corrections links, oldest first.
#[derive(Debug, Clone, PartialEq)]
pub struct CorrectionChain {
    pub links: Vec<ChainLink>,
    /// Which link is the note that was read.
    pub this: usize,
}

impl CorrectionChain {
    /// The link that supersedes every other: the note to trust.
    pub fn current(&self) -> &ChainLink {
        self.links
            .last()
            .expect("a chain holds the note it was built for")
    }
}

/// What write_note refuses under `validation: strict`.
#[derive(Debug, Clone, PartialEq)]
pub struct SchemaViolation {
    pub schema_entity: String,
    pub errors: Vec<String>,
}
