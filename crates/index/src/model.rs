//! The records the index stores and the write operations it accepts.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use note::{Observation, Relation};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum NoteKind {
    /// A markdown note: parsed, permalinked, full-text indexed.
    Markdown,
    /// Any other file (image, PDF, canvas, a binary `.md`): listed and findable by name only.
    File,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct StoredRelation {
    pub relation: Relation,
    /// The note the target resolved to, if any.
    pub to_id: Option<String>,
}

/// One note (or resource file) as the graph tables keep it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct NoteRecord {
    pub id: String,
    pub project: String,
    pub path: String,
    pub permalink: Option<String>,
    pub kind: NoteKind,
    pub title: String,
    pub note_type: String,
    pub content_type: String,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub status: Option<String>,
    #[serde(with = "json_text")]
    pub metadata: Map<String, Value>,
    pub created_ms: i64,
    pub updated_ms: i64,
    pub checksum: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub observations: Vec<Observation>,
    pub relations: Vec<StoredRelation>,
    pub warnings: Vec<String>,
}

/// Records are stored with bincode (compact, fast); free-form front matter rides along as JSON
/// text because bincode cannot carry self-describing values.
mod json_text {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::{Map, Value};

    pub fn serialize<S: Serializer>(map: &Map<String, Value>, s: S) -> Result<S::Ok, S::Error> {
        serde_json::to_string(map)
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Map<String, Value>, D::Error> {
        let text = String::deserialize(d)?;
        serde_json::from_str(&text).map_err(serde::de::Error::custom)
    }
}

impl NoteRecord {
    pub fn encode(&self) -> Vec<u8> {
        bincode::serialize(self).expect("a note record always serialises")
    }

    pub fn decode(bytes: &[u8]) -> Result<Self, bincode::Error> {
        bincode::deserialize(bytes)
    }

    pub fn folder(&self) -> &str {
        note::parent_folder(&self.path)
    }

    /// Where a note of a linked folder comes from (design 6): the `source` its scan recorded.
    pub fn linked_source(&self) -> Option<&serde_json::Value> {
        note::linked_source(&self.metadata)
    }
}

/// A note as a scan or a tool hands it to the index. The writer decides its id and permalink.
#[derive(Debug, Clone, PartialEq)]
pub struct NoteInput {
    pub project: String,
    pub path: String,
    pub kind: NoteKind,
    pub title: String,
    pub note_type: String,
    pub content_type: String,
    /// A permalink the file itself asks for (front matter); used when no other note has it.
    pub requested_permalink: Option<String>,
    /// The permalink derived from the path, used otherwise (suffixed `-1`, `-2` when taken).
    pub generated_permalink: Option<String>,
    pub tags: Vec<String>,
    pub aliases: Vec<String>,
    pub status: Option<String>,
    pub metadata: Map<String, Value>,
    pub created_ms: i64,
    pub updated_ms: i64,
    pub checksum: String,
    pub size: u64,
    pub mtime_ns: i64,
    pub observations: Vec<Observation>,
    pub relations: Vec<Relation>,
    pub warnings: Vec<String>,
    /// The text full-text search sees (the body, capped).
    pub search_text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum WriteOp {
    Upsert(Box<NoteInput>),
    /// A file renamed on disk or by a tool: the note keeps its id, permalink and relations.
    Move {
        project: String,
        from: String,
        to: String,
    },
    /// Same bytes, new stat.
    Touch {
        project: String,
        path: String,
        size: u64,
        mtime_ns: i64,
    },
    Delete {
        project: String,
        path: String,
    },
    DeleteProject {
        project: String,
    },
    /// Re-index every note of a project for search (used by `reindex`).
    RefreshSearch {
        project: String,
    },
    /// Re-index these notes for search; ids without a note lose their search documents.
    RefreshSearchOf {
        ids: Vec<String>,
    },
    SetProjectState {
        project: String,
        state: ProjectState,
    },
    /// Adds to the uses of notes (`index::uses`); changes nothing search sees.
    RecordUses(Vec<(String, super::uses::NoteUse)>),
    /// Sent by the search indexer after a milli commit; not for other callers.
    SearchDone(SearchDone),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum OpOutcome {
    Upserted {
        id: String,
        permalink: Option<String>,
        created: bool,
        /// False when the index already had these exact bytes.
        changed: bool,
    },
    Moved {
        id: String,
    },
    Deleted {
        id: Option<String>,
    },
    Done,
}

/// What the last scan of a project found, for `status`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ProjectState {
    pub last_scan: Option<String>,
    pub last_scan_ms: Option<u64>,
    pub files: u64,
    pub warnings: Vec<FileWarning>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileWarning {
    pub path: String,
    pub message: String,
}

/// What a search commit did, for the graph writer to record: which outbox entries it served
/// (with the token it read, so an entry dirtied again meanwhile stays), what each note now has in
/// the search index, and which notes lost their body (with the checksum of the text lost).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SearchDone {
    pub entries: Vec<(String, String, Option<Vec<u8>>)>,
    pub stale: Vec<(String, String)>,
    /// The body-relevance terms of notes whose text this commit indexed anew (`None`: the
    /// note is gone), recorded with the rest so that they follow milli's text.
    pub terms: Vec<(String, Option<super::terms::NoteTerms>)>,
}
