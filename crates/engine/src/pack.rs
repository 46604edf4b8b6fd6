//! memory_context: a task-focused context pack. Three sections, each line citing the note it
//! comes from: durable facts (decisions, preferences, pinned or high-score notes; those that
//! match the task first), the search hits for the task, and recent activity. The whole pack is
//! cut to a token budget at line boundaries, facts first, so what matters most survives a
//! small budget.

use std::collections::HashSet;

use chrono::{Duration, Utc};
use serde_json::{json, Map, Value};

use super::error::QueryError;
use super::scope::ProjectChoice;
use super::search::{SearchRequest, SearchResult};
use super::Result;
use crate::config::Project;
use crate::Engine;
use note::lines::TokenBudget;
use note::memory::{Reveal, DURABLE_TYPES};

/// The budget of a pack when the caller names none (tokens, as `note::lines` estimates them).
pub const DEFAULT_TOKEN_BUDGET: usize = 4_000;
/// A note whose `score` is at least this is a durable fact.
const HIGH_SCORE: f64 = 0.8;
/// How far back "recent" reaches.
const RECENT_DAYS: i64 = 7;
/// Most entries a section gathers before the budget cuts.
const SECTION_LIMIT: usize = 20;
/// Longest text of one entry, in characters: a pack cites, the note holds the rest.
const ENTRY_CHARS: usize = 280;

/// What memory_context is asked.
#[derive(Debug, Clone, Default)]
pub struct PackRequest {
    pub task: String,
    /// Tokens; [`DEFAULT_TOKEN_BUDGET`] when None, at most `note::lines::MAX_TOKEN_BUDGET`.
    pub token_budget: Option<usize>,
    pub include_recent: bool,
    /// Only notes whose front matter `session_id` is one of these (all notes when empty).
    pub sessions: Vec<String>,
    /// Notes a correction or a compaction superseded may be cited too.
    pub include_superseded: bool,
}

/// The sections of a pack, in the order they are filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PackSection {
    Facts,
    Hits,
    Recent,
}

impl PackSection {
    pub fn key(self) -> &'static str {
        match self {
            PackSection::Facts => "facts",
            PackSection::Hits => "hits",
            PackSection::Recent => "recent",
        }
    }

    pub fn heading(self) -> &'static str {
        match self {
            PackSection::Facts => "## Durable facts",
            PackSection::Hits => "## Relevant to the task",
            PackSection::Recent => "## Recent activity",
        }
    }
}

/// One line of a pack: what it says, and the note it cites.
#[derive(Debug, Clone, PartialEq)]
pub struct PackEntry {
    pub permalink: String,
    pub title: String,
    pub text: String,
}

impl PackEntry {
    /// The line as the pack shows it: the citation first.
    pub fn line(&self) -> String {
        if self.text.is_empty() {
            format!("- [{}] {}", self.permalink, self.title)
        } else {
            format!("- [{}] {}: {}", self.permalink, self.title, self.text)
        }
    }
}

/// A context pack, already cut to its budget.
#[derive(Debug, Clone)]
pub struct ContextPack {
    pub project: String,
    pub task: String,
    pub token_budget: usize,
    /// The pack's estimated size in tokens (never above the budget).
    pub tokens: usize,
    /// Whether the budget left entries out.
    pub truncated: bool,
    pub sections: Vec<(PackSection, Vec<PackEntry>)>,
}

impl ContextPack {
    /// The first line of the pack's text.
    pub fn title_line(task: &str) -> String {
        format!("# Context for: {}", one_line(task, ENTRY_CHARS))
    }

    /// The notes the pack cites, as (title, permalink), without repeats.
    pub fn cited(&self) -> Vec<(String, String)> {
        let mut seen = HashSet::new();
        self.sections
            .iter()
            .flat_map(|(_, entries)| entries)
            .filter(|e| seen.insert(e.permalink.clone()))
            .map(|e| (e.title.clone(), e.permalink.clone()))
            .collect()
    }
}

/// `text` on one line, cut at a word boundary to about `max` characters.
fn one_line(text: &str, max: usize) -> String {
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() <= max {
        return flat;
    }
    let cut: String = flat.chars().take(max).collect();
    let at_word = cut.rfind(' ').filter(|i| *i > max / 2).unwrap_or(cut.len());
    format!("{}…", &cut[..at_word])
}

/// What a note says first: its first line of prose (not a heading, not front matter).
fn summary(content: &str) -> String {
    let line = content
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && *l != "---")
        .unwrap_or("");
    one_line(line, ENTRY_CHARS)
}

fn entry(row: &SearchResult, text: String) -> Option<PackEntry> {
    Some(PackEntry {
        permalink: row.permalink.clone()?,
        title: row.title.clone(),
        text,
    })
}

/// memory_context for one project.
pub(crate) fn memory_context(
    engine: &Engine,
    choice: &ProjectChoice,
    request: &PackRequest,
) -> Result<ContextPack> {
    let project = crate::scope::select_project(&engine.store, choice)?;
    if !request.task.chars().any(char::is_alphanumeric) {
        return Err(QueryError::EmptyTask.into());
    }
    // Every search of the pack looks within the same notes.
    let scope = SearchRequest {
        page_size: SECTION_LIMIT,
        sessions: request.sessions.clone(),
        reveal: Reveal {
            superseded: request.include_superseded,
            ..Reveal::default()
        },
        ..SearchRequest::default()
    };
    let mut cited: HashSet<String> = HashSet::new();
    let mut sections = Vec::new();
    let facts = durable_facts(engine, &project, &request.task, &scope)?;
    sections.push((PackSection::Facts, keep_new(facts, &mut cited)));
    let hits = pack_search(engine, &project, Some(&request.task), &scope, None)?
        .iter()
        .filter_map(|row| {
            let text = row.matched_chunk.as_deref().or(row.content.as_deref());
            entry(row, text.map(summary).unwrap_or_default())
        })
        .collect();
    sections.push((PackSection::Hits, keep_new(hits, &mut cited)));
    if request.include_recent {
        let since = Utc::now() - Duration::days(RECENT_DAYS);
        let mut rows = pack_search(engine, &project, None, &scope, Some(since))?;
        rows.sort_by_key(|row| std::cmp::Reverse(row.updated_ms));
        let recent = rows
            .iter()
            .filter_map(|row| {
                let day = chrono::DateTime::from_timestamp_millis(row.updated_ms)
                    .map(|t| format!("updated {}", t.format("%Y-%m-%d")))
                    .unwrap_or_default();
                entry(row, day)
            })
            .collect();
        sections.push((PackSection::Recent, keep_new(recent, &mut cited)));
    }
    Ok(cut_to_budget(project.name.clone(), request, sections))
}

/// The durable facts: those the task finds first, then the rest, newest first.
fn durable_facts(
    engine: &Engine,
    project: &Project,
    task: &str,
    scope: &SearchRequest,
) -> Result<Vec<PackEntry>> {
    let mut matching = Vec::new();
    let mut others = Vec::new();
    for durable in durable_requests(scope) {
        let with_task = SearchRequest {
            query: Some(task.to_string()),
            ..durable.clone()
        };
        matching.extend(crate::search::search(engine, project, &with_task)?.results);
        others.extend(crate::search::search(engine, project, &durable)?.results);
    }
    others.sort_by_key(|row| std::cmp::Reverse(row.updated_ms));
    Ok(matching
        .iter()
        .chain(&others)
        .filter_map(|row| entry(row, row.content.as_deref().map(summary).unwrap_or_default()))
        .collect())
}

/// One page of notes (not observations or relations) for a pack's section.
fn pack_search(
    engine: &Engine,
    project: &Project,
    query: Option<&str>,
    scope: &SearchRequest,
    after: Option<chrono::DateTime<Utc>>,
) -> Result<Vec<SearchResult>> {
    let request = SearchRequest {
        query: query.map(String::from),
        after_date: after,
        entity_types: vec!["entity".into()],
        ..scope.clone()
    };
    Ok(crate::search::search(engine, project, &request)?.results)
}

/// The searches that find durable facts, one per kind (their union is the facts): by type,
/// pinned, and a high score; each within the pack's scope.
fn durable_requests(base: &SearchRequest) -> Vec<SearchRequest> {
    let with = |key: &str, condition: Value| {
        let mut metadata = Map::new();
        metadata.insert(key.into(), condition);
        Some(metadata)
    };
    vec![
        SearchRequest {
            note_types: DURABLE_TYPES.map(String::from).to_vec(),
            ..base.clone()
        },
        SearchRequest {
            metadata_filters: with("pinned", json!(true)),
            ..base.clone()
        },
        SearchRequest {
            metadata_filters: with("score", json!({"$gte": HIGH_SCORE})),
            ..base.clone()
        },
    ]
}

/// The entries whose note no earlier entry cites.
fn keep_new(entries: Vec<PackEntry>, cited: &mut HashSet<String>) -> Vec<PackEntry> {
    entries
        .into_iter()
        .filter(|e| cited.insert(e.permalink.clone()))
        .take(SECTION_LIMIT)
        .collect()
}

/// The share of the budget each section may have used by its end: facts are kept to a part
/// of it so the task's hits always have room, and recent activity has what the others leave
/// (at least its own share). What a section does not use flows on to the next.
fn share_until(section: PackSection, include_recent: bool) -> f64 {
    match section {
        PackSection::Facts => 0.4,
        PackSection::Hits if include_recent => 0.85,
        PackSection::Hits | PackSection::Recent => 1.0,
    }
}

/// The sections as far as the budget goes, the title and each heading counted: a heading is
/// kept only with at least one entry under it.
fn cut_to_budget(
    project: String,
    request: &PackRequest,
    sections: Vec<(PackSection, Vec<PackEntry>)>,
) -> ContextPack {
    let token_budget = request
        .token_budget
        .unwrap_or(DEFAULT_TOKEN_BUDGET)
        .min(note::lines::MAX_TOKEN_BUDGET);
    let mut budget = TokenBudget::new(token_budget);
    let mut truncated = !budget.take(&ContextPack::title_line(&request.task));
    let mut kept = Vec::new();
    for (section, entries) in sections {
        if entries.is_empty() {
            continue;
        }
        let until = (token_budget as f64 * share_until(section, request.include_recent)) as usize;
        let mut part = budget.part(until.saturating_sub(budget.spent_tokens()));
        let mut fitted = Vec::new();
        if part.take("") && part.take(section.heading()) {
            for entry in entries.iter() {
                if !part.take(&entry.line()) {
                    break;
                }
                fitted.push(entry.clone());
            }
        }
        truncated |= fitted.len() < entries.len();
        if !fitted.is_empty() {
            budget.settle(&part);
            kept.push((section, fitted));
        }
    }
    ContextPack {
        project,
        task: request.task.clone(),
        token_budget,
        tokens: budget.spent_tokens(),
        truncated,
        sections: kept,
    }
}
