//! build_context: a note (or the notes a wildcard names), its observations, and the notes
//! around it in the graph (compat 5.3).

use crate::NoteRow;
use std::collections::{BTreeSet, HashMap};

use chrono::{DateTime, Utc};

use super::notes::Lookup;
use super::read::Page;
use super::scope::ProjectChoice;
use super::Result;
use crate::config::Project;
use crate::Store;
use index::Index;
use index::NoteRecord;
use note::memory::{is_hidden_unless, Reveal};
use note::permalink::generate_permalink;

pub(crate) const CONTENT_LIMIT: usize = 4000;
/// Deepest graph walk of build_context. Each hop can multiply the notes visited, and agents
/// rarely need more than two or three.
pub(crate) const MAX_DEPTH: usize = 10;

#[derive(Debug, Clone)]
pub struct ContextRequest {
    /// The canonical path: project-prefixed permalink, possibly with `*`.
    pub uri: String,
    pub depth: usize,
    /// Only related notes updated since then (given only when the caller asked).
    pub since: Option<DateTime<Utc>>,
    pub page: usize,
    pub page_size: usize,
    pub max_related: usize,
    /// Superseded notes (corrected or compacted) are walked and matched too.
    pub include_superseded: bool,
    /// Set by the caller when the answer is no longer wanted (the client cancelled, or the
    /// call's deadline passed): the walk stops at the next note.
    pub stop: Option<std::sync::Arc<std::sync::atomic::AtomicBool>>,
}

/// What build_context found (compat 2.10): a page of primary notes, each with the notes and
/// relations around it.
#[derive(Debug, Clone)]
pub struct GraphContext {
    /// The canonical path asked for.
    pub uri: String,
    pub depth: usize,
    pub since: Option<DateTime<Utc>>,
    pub generated_at: DateTime<Utc>,
    pub results: Vec<ContextResult>,
    pub page: usize,
    pub page_size: usize,
    pub has_more: bool,
}

/// One primary note and the walk around it.
#[derive(Debug, Clone)]
pub struct ContextResult {
    pub primary: NoteRow,
    /// The primary's body, cut to [`CONTENT_LIMIT`] characters.
    pub content: String,
    /// What the walk met, nearest first: at most `max_related` rows.
    pub related: Vec<Related>,
    /// The primary's relations as (type, the target's title, else the link as written), sorted.
    pub relations: Vec<(String, String)>,
}

/// A row of the walk: a relation (the note holding it, its index there, the note it points
/// to when that resolves), or a note reached through one.
#[derive(Debug, Clone)]
pub enum Related {
    Relation {
        from: NoteRow,
        index: usize,
        to: Option<Box<NoteRow>>,
    },
    Note(NoteRow),
}

impl GraphContext {
    /// The notes a client may want to open: each primary, then the notes its walk reached,
    /// as (title, permalink) without repeats.
    pub fn notes_named(&self) -> Vec<(String, String)> {
        let mut named: Vec<(String, String)> = Vec::new();
        for result in &self.results {
            let reached = result.related.iter().filter_map(|row| match row {
                Related::Note(note) => Some(note),
                Related::Relation { .. } => None,
            });
            for note in std::iter::once(&result.primary).chain(reached) {
                if let Some(permalink) = &note.permalink {
                    if !named.iter().any(|(_, p)| p == permalink) {
                        named.push((note.title.clone(), permalink.clone()));
                    }
                }
            }
        }
        named
    }
}

impl GraphContext {
    /// Makes the context smaller by one step, for an answer that must fit a token budget
    /// `excess` characters too large: the last related row goes first (rows are nearest
    /// first), then lines from the end of the last primary's content (enough for `excess`),
    /// then whole primaries after the first. False when nothing is left to shed.
    pub fn shed(&mut self, excess: usize) -> bool {
        if let Some(result) = self
            .results
            .iter_mut()
            .rev()
            .find(|r| !r.related.is_empty())
        {
            result.related.pop();
            return true;
        }
        if let Some(result) = self
            .results
            .iter_mut()
            .rev()
            .find(|r| !r.content.is_empty())
        {
            let mut cut = result.content.len();
            let mut shed = 0;
            while shed < excess.max(1) && cut > 0 {
                let start = result.content[..cut]
                    .trim_end_matches('\n')
                    .rfind('\n')
                    .map_or(0, |i| i + 1);
                shed += result.content[start..cut].chars().count();
                cut = start;
            }
            result.content.truncate(cut);
            return true;
        }
        if self.results.len() > 1 {
            self.results.pop();
            self.has_more = true;
            return true;
        }
        false
    }
}

fn truncate(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((i, _)) => s[..i].to_string(),
        None => s.to_string(),
    }
}

/// The primary notes a canonical path names.
fn context_primaries(
    index: &Index,
    project: &Project,
    uri: &str,
    reveal: Reveal,
) -> Result<Vec<NoteRecord>> {
    if uri.contains('*') {
        let now = chrono::Utc::now();
        let pattern: String = uri
            .split('*')
            .map(|part| {
                // Slug each part but keep the separators around the wildcard, so that
                // `specs/*` means the folder `specs` only.
                let lead = if part.starts_with('/') { "/" } else { "" };
                let trail = if part.ends_with('/') && part.len() > 1 {
                    "/"
                } else {
                    ""
                };
                let slug = generate_permalink(part.trim_matches('/'), false);
                if slug.is_empty() {
                    lead.to_string()
                } else {
                    format!("{lead}{slug}{trail}")
                }
            })
            .collect::<Vec<_>>()
            .join("*");
        let re = regex::Regex::new(&format!(
            "(?i)^{}$",
            pattern
                .split('*')
                .map(regex::escape)
                .collect::<Vec<_>>()
                .join(".*")
        ))
        .expect("an escaped pattern is a valid regex");
        let mut notes: Vec<NoteRecord> = crate::notes::all_notes(index, project)?
            .into_iter()
            .filter(|n| n.permalink.as_deref().is_some_and(|p| re.is_match(p)))
            .filter(|n| !is_hidden_unless(&n.metadata, n.created_ms, now, reveal))
            .collect();
        notes.sort_by(|a, b| a.path.cmp(&b.path));
        return Ok(notes);
    }
    let slug = generate_permalink(uri, false);
    let snap = index.snapshot()?;
    for candidate in [uri.to_string(), slug] {
        if let Some(id) = snap.id_by_permalink(&project.name, &candidate)? {
            if let Some(note) = snap.note(&id)? {
                return Ok(vec![note]);
            }
        }
    }
    drop(snap);
    let without_project = uri
        .strip_prefix(&format!("{}/", project.permalink))
        .unwrap_or(uri);
    match crate::notes::resolve(index, project, without_project)? {
        Lookup::Found(note) => Ok(vec![*note]),
        Lookup::Ambiguous(mut notes) => Ok(vec![notes.remove(0)]),
        Lookup::NotFound => Ok(Vec::new()),
    }
}

fn note_content(store: &Store, project: &Project, note: &NoteRecord) -> String {
    crate::notes::read_note_file(store, project, note)
        .map(|f| truncate(note::frontmatter::body(&f.text), CONTENT_LIMIT))
        .unwrap_or_default()
}

pub(crate) fn build_context(
    store: &Store,
    project: &Project,
    request: &ContextRequest,
) -> Result<GraphContext> {
    let reveal = Reveal {
        superseded: request.include_superseded,
        ..Reveal::default()
    };
    let all = context_primaries(&store.index, project, &request.uri, reveal)?;
    let page = Page {
        page: request.page,
        page_size: request.page_size,
    };
    let (primaries, has_more) = page.of(all);
    let since_ms = request.since.map(|s| s.timestamp_millis());
    let mut cache: HashMap<String, Option<NoteRecord>> = HashMap::new();
    let now = chrono::Utc::now();
    // A soft-deleted, expired or superseded note is left out of the walk as if it were not
    // there.
    let mut load = |store: &Store, id: &str| -> Result<Option<NoteRecord>> {
        if !cache.contains_key(id) {
            let note = crate::notes::note_by_id(&store.index, id)?
                .filter(|n| !is_hidden_unless(&n.metadata, n.created_ms, now, reveal));
            cache.insert(id.to_string(), note);
        }
        Ok(cache[id].clone())
    };
    let mut results = Vec::new();
    for primary in &primaries {
        let content = note_content(store, project, primary);

        // Breadth-first over links in both directions; a relation is one step, the note
        // at its other end is one more.
        let mut visited: BTreeSet<String> = BTreeSet::from([primary.id.clone()]);
        let mut seen_relations: BTreeSet<(String, usize)> = BTreeSet::new();
        let mut frontier = vec![primary.clone()];
        // Sorted by (distance, notes after relations at one distance, id).
        let mut related: Vec<(usize, u8, String, Related)> = Vec::new();
        for hop in 1..=request.depth {
            let mut next = Vec::new();
            for note in &frontier {
                if request
                    .stop
                    .as_ref()
                    .is_some_and(|stop| stop.load(std::sync::atomic::Ordering::Relaxed))
                {
                    return Err(super::error::QueryError::ContextStopped.into());
                }
                let mut edges: Vec<(NoteRecord, usize, Option<NoteRecord>)> = Vec::new();
                for (i, rel) in note.relations.iter().enumerate() {
                    let target = match &rel.to_id {
                        Some(id) => load(store, id)?,
                        None => None,
                    };
                    edges.push((note.clone(), i, target));
                }
                let snap = store.index.snapshot()?;
                let sources = snap.incoming_ids(&project.name, &note.id)?;
                drop(snap);
                for source_id in sources {
                    if let Some(source) = load(store, &source_id)? {
                        for (i, rel) in source.relations.iter().enumerate() {
                            if rel.to_id.as_deref() == Some(note.id.as_str()) {
                                edges.push((source.clone(), i, Some(note.clone())));
                            }
                        }
                    }
                }
                for (from, i, to) in edges {
                    if !seen_relations.insert((from.id.clone(), i)) {
                        continue;
                    }
                    let other = if from.id == note.id {
                        to.clone()
                    } else {
                        Some(from.clone())
                    };
                    if let (Some(since), Some(o)) = (since_ms, &other) {
                        if o.updated_ms < since {
                            continue;
                        }
                    }
                    related.push((
                        2 * hop - 1,
                        1,
                        format!("{}-r{i}", from.id),
                        Related::Relation {
                            from: from.clone().into(),
                            index: i,
                            to: to.clone().map(|to| Box::new(to.into())),
                        },
                    ));
                    if let Some(other) = other {
                        if visited.insert(other.id.clone()) {
                            related.push((
                                2 * hop,
                                0,
                                other.id.clone(),
                                Related::Note(other.clone().into()),
                            ));
                            next.push(other);
                        }
                    }
                }
            }
            frontier = next;
            // Rows found at later hops sort after every row found so far, so once a hop
            // fills max_related the rest of the walk could only be truncated away.
            if related.len() >= request.max_related {
                break;
            }
        }
        related.sort_by(|a, b| (a.0, a.1, &a.2).cmp(&(b.0, b.1, &b.2)));
        related.truncate(request.max_related);
        let mut relations_shown = Vec::new();
        for rel in &primary.relations {
            let shown = match &rel.to_id {
                Some(id) => load(store, id)?
                    .map(|t| t.title)
                    .unwrap_or_else(|| rel.relation.target.clone()),
                None => rel.relation.target.clone(),
            };
            relations_shown.push((rel.relation.relation_type.clone(), shown));
        }
        relations_shown.sort();
        results.push(ContextResult {
            primary: primary.clone().into(),
            content,
            related: related.into_iter().map(|row| row.3).collect(),
            relations: relations_shown,
        });
    }
    Ok(GraphContext {
        uri: request.uri.clone(),
        depth: request.depth,
        since: request.since,
        generated_at: Utc::now(),
        results,
        page: request.page,
        page_size: request.page_size,
        has_more,
    })
}

/// build_context for the path of a memory:// URL: picks the project (the URL may name it),
/// and prefixes the path with the project's permalink when permalinks carry it.
pub(crate) fn build_context_at(
    store: &Store,
    choice: &ProjectChoice,
    path: &str,
    mut request: ContextRequest,
) -> Result<(Project, GraphContext)> {
    if request.depth > MAX_DEPTH {
        return Err(super::error::QueryError::DepthTooLarge {
            max: MAX_DEPTH,
            depth: request.depth,
        }
        .into());
    }
    let project = crate::scope::project_for_url(store, choice, path)?;
    let include = store.config().compat.permalinks_include_project;
    let prefixed =
        path == project.permalink || path.starts_with(&format!("{}/", project.permalink));
    request.uri = if include && !prefixed {
        format!("{}/{path}", project.permalink)
    } else {
        path.to_string()
    };
    let context = build_context(store, &project, &request)?;
    Ok((project, context))
}
