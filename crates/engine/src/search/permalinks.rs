//! search_notes' permalink mode: notes, observations and relations whose permalinks match an
//! exact permalink or a glob, read from the graph.

use std::collections::HashSet;

use chrono::Utc;

use super::metadata::metadata_matches;
use super::query::permalink_glob;
use super::rows::{ResultBuilder, Row};
use super::{Result, SearchRequest, SearchResponse};
use crate::config::Project;
use index::Index;
use index::NoteRecord;
use note::permalink::{generate_permalink, normalize_note_type};
use note::permalink::{observation_permalink, relation_permalink};
use regex::Regex;

/// Permalink search: exact, or a glob with `*`. A pattern without the project prefix is
/// also tried with it.
pub(super) fn search_permalinks(
    index: &Index,
    project: &Project,
    request: &SearchRequest,
    pattern: &str,
) -> Result<SearchResponse> {
    let pattern = pattern.trim().trim_start_matches("memory://");
    let mut patterns = vec![pattern.to_string()];
    let prefix = format!("{}/", project.permalink);
    if !pattern.starts_with(&prefix) {
        patterns.push(format!("{prefix}{pattern}"));
    }
    let globs: Vec<Regex> = patterns
        .iter()
        .map(|p| {
            if p.contains('*') || p.contains('?') {
                permalink_glob(p)
            } else {
                permalink_glob(&generate_permalink(p, false))
            }
        })
        .collect();
    let matches = |p: &str| globs.iter().any(|g| g.is_match(p));
    let types = crate::search::entity_types(request);
    let wanted: HashSet<&str> = types.iter().map(String::as_str).collect();
    let meta = request.metadata_filters.as_ref().filter(|m| !m.is_empty());
    let mut notes = crate::notes::all_notes(index, project)?;
    let now = Utc::now();
    notes.retain(|n| {
        request
            .within
            .as_ref()
            .is_none_or(|ids| ids.contains(&n.id))
            && !note::memory::is_hidden_unless(&n.metadata, n.created_ms, now, request.reveal)
            && meta.is_none_or(|m| metadata_matches(&n.metadata, m))
            && request.tags.iter().all(|t| n.tags.contains(t))
            && request
                .status
                .as_ref()
                .is_none_or(|s| n.status.as_ref() == Some(s))
            && request
                .after_date
                .is_none_or(|d| n.updated_ms > d.timestamp_millis())
            && (request.note_types.is_empty()
                || request
                    .note_types
                    .iter()
                    .any(|t| normalize_note_type(t) == normalize_note_type(&n.note_type)))
    });
    notes.sort_by(|a, b| b.updated_ms.cmp(&a.updated_ms).then(a.path.cmp(&b.path)));
    let mut rows: Vec<(NoteRecord, Row)> = Vec::new();
    for note in notes {
        let permalink = note.permalink.clone().unwrap_or_default();
        if wanted.contains("entity") && !permalink.is_empty() && matches(&permalink) {
            rows.push((note.clone(), Row::Entity));
        }
        if wanted.contains("observation") {
            for (i, obs) in note.observations.iter().enumerate() {
                let category_ok =
                    request.categories.is_empty() || request.categories.contains(&obs.category);
                if category_ok
                    && matches(&observation_permalink(
                        &permalink,
                        &obs.category,
                        &obs.content,
                    ))
                {
                    rows.push((note.clone(), Row::Observation(i)));
                }
            }
        }
        if wanted.contains("relation") {
            for (i, rel) in note.relations.iter().enumerate() {
                let to = rel
                    .to_id
                    .as_deref()
                    .and_then(|id| crate::notes::note_by_id(index, id).ok().flatten())
                    .and_then(|n| n.permalink);
                let p = relation_permalink(
                    &permalink,
                    &rel.relation.relation_type,
                    to.as_deref().unwrap_or(&rel.relation.target),
                );
                if matches(&p) {
                    rows.push((note.clone(), Row::Relation(i)));
                }
            }
        }
    }
    let total = rows.len() as u64;
    let offset = (request.page - 1) * request.page_size;
    let snap = index.snapshot()?;
    let mut builder = ResultBuilder::new(&snap);
    let mut results = Vec::new();
    for (note, row) in rows.into_iter().skip(offset).take(request.page_size) {
        let content = match row {
            Row::Entity => index.stored_body(&note.id)?,
            _ => None,
        };
        results.extend(builder.row(&note, row, 0.0, content)?);
    }
    Ok(SearchResponse::page(results, request, offset, total, true))
}
