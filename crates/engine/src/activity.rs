//! recent_activity: what changed in a project within a timeframe (compat 2.9).

use chrono::{DateTime, Utc};

use super::error::QueryError;
use super::read::Page;
use super::scope::ProjectChoice;
use super::Result;
use crate::config::Project;
use crate::search::RowKind;
use crate::Engine;
use crate::NoteRow;
use index::Index;
use index::NoteRecord;
use note::permalink::observation_permalink;

/// How many commits back recent_activity looks for the commit behind each change.
const COMMIT_SEARCH_DEPTH: usize = 1000;

#[derive(Debug, Clone, PartialEq)]
pub struct ActivityItem {
    pub kind: RowKind,
    /// The note's title (observation and relation rows carry their note's title).
    pub title: String,
    pub permalink: Option<String>,
    pub file_path: String,
    pub created_ms: i64,
    /// In a versioned project: the commit that made the note as it is now.
    pub commit: Option<String>,
    pub id: String,
    pub folder: String,
    pub updated_ms: i64,
    pub category: Option<String>,
    pub content: Option<String>,
    /// For relation rows: (relation type, target title or text, resolved).
    pub relation: Option<(String, String, bool)>,
    /// The note's type (front matter `type`).
    pub note_type: String,
    /// The note's session: front matter `session_id`, else a memory's `source.session`.
    pub session: Option<String>,
}

#[derive(Debug, Clone)]
pub struct Activity {
    pub items: Vec<ActivityItem>,
    pub has_more: bool,
}

/// What recent_activity may group its items by.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GroupBy {
    /// The UTC date of the note's last update.
    Day,
    /// The note's type.
    Type,
    /// The note's session.
    Session,
}

/// The key of the group of items that have no session.
pub(crate) const NO_SESSION: &str = "(none)";

impl GroupBy {
    pub fn named(name: &str) -> Result<GroupBy> {
        match name.trim().to_lowercase().as_str() {
            "day" | "date" => Ok(GroupBy::Day),
            "type" | "note_type" => Ok(GroupBy::Type),
            "session" | "session_id" => Ok(GroupBy::Session),
            _ => Err(QueryError::InvalidGroupBy(name.to_string()).into()),
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            GroupBy::Day => "day",
            GroupBy::Type => "type",
            GroupBy::Session => "session",
        }
    }

    fn key(self, item: &ActivityItem) -> String {
        match self {
            GroupBy::Day => DateTime::from_timestamp_millis(item.updated_ms)
                .unwrap_or_default()
                .format("%Y-%m-%d")
                .to_string(),
            GroupBy::Type => item.note_type.clone(),
            GroupBy::Session => item.session.clone().unwrap_or_else(|| NO_SESSION.into()),
        }
    }
}

/// One group of an answer's items: their positions in the answer (in discovery mode, every
/// project's items one after the other), in the answer's order.
#[derive(Debug, Clone, PartialEq)]
pub struct ActivityGroup {
    pub key: String,
    pub items: Vec<usize>,
}

/// Items grouped by `by`; the group with the most recent update first, so days come newest
/// first, and ties in the order the items came.
pub(crate) fn group_items<'a>(
    items: impl IntoIterator<Item = &'a ActivityItem>,
    by: GroupBy,
) -> Vec<ActivityGroup> {
    let mut groups: Vec<(i64, ActivityGroup)> = Vec::new();
    for (position, item) in items.into_iter().enumerate() {
        let key = by.key(item);
        match groups.iter_mut().find(|(_, g)| g.key == key) {
            Some((newest, group)) => {
                *newest = (*newest).max(item.updated_ms);
                group.items.push(position);
            }
            None => groups.push((
                item.updated_ms,
                ActivityGroup {
                    key,
                    items: vec![position],
                },
            )),
        }
    }
    // A stable sort: groups updated in the same millisecond keep their first-seen order.
    groups.sort_by_key(|(newest, _)| std::cmp::Reverse(*newest));
    groups.into_iter().map(|(_, g)| g).collect()
}

/// A note's session: the `session_id` search_notes filters by, else the session of a
/// memory's `source`.
fn session_of(note: &NoteRecord) -> Option<String> {
    let direct = note
        .metadata
        .get("session_id")
        .and_then(|v| match v {
            serde_json::Value::String(s) => Some(s.trim().to_string()),
            serde_json::Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
        .filter(|s| !s.is_empty());
    direct.or_else(|| note::memory::MemorySource::of(&note.metadata)?.session)
}

/// Validates the `type` filter: notes when it is empty.
pub(crate) fn activity_types(types: &[String]) -> Result<Vec<RowKind>> {
    if types.is_empty() {
        return Ok(vec![RowKind::Entity]);
    }
    types
        .iter()
        .map(|t| {
            RowKind::named(&t.trim().to_lowercase())
                .ok_or_else(|| QueryError::InvalidActivityType(t.clone()).into())
        })
        .collect()
}

/// A page of a project's notes with a permalink, newest first: `limit` notes after the
/// first `offset`, and whether more follow. For resource listings and completions.
pub(crate) fn note_page(
    index: &Index,
    project: &Project,
    offset: usize,
    limit: usize,
) -> Result<(Vec<NoteRow>, bool)> {
    let snap = index.snapshot()?;
    let mut notes = Vec::with_capacity(limit.min(1024));
    let mut skipped = 0;
    for stamp in snap.newest_first(&project.name)? {
        let Some(note) = snap.note(&stamp?.id)? else {
            continue;
        };
        if note.permalink.is_none() {
            continue;
        }
        if skipped < offset {
            skipped += 1;
            continue;
        }
        if notes.len() == limit {
            return Ok((notes, true));
        }
        notes.push(NoteRow::from(note));
    }
    Ok((notes, false))
}

/// Every note's last update (ms) by note id, over all projects, from the activity keys
/// alone: what a change notifier compares between two commits.
pub(crate) fn note_stamps(index: &Index) -> Result<std::collections::HashMap<String, i64>> {
    let snap = index.snapshot()?;
    Ok(snap.stamps()?)
}

/// Notes of a project updated after `since`, newest first.
pub(crate) fn notes_updated_since(
    index: &Index,
    project: &Project,
    since: DateTime<Utc>,
) -> Result<Vec<NoteRow>> {
    let records = records_updated_since(index, project, since)?;
    Ok(records.into_iter().map(NoteRow::from).collect())
}

fn records_updated_since(
    index: &Index,
    project: &Project,
    since: DateTime<Utc>,
) -> Result<Vec<NoteRecord>> {
    let since_ms = since.timestamp_millis();
    let snap = index.snapshot()?;
    let mut notes = Vec::new();
    for stamp in snap.newest_first(&project.name)? {
        let stamp = stamp?;
        if stamp.updated_ms <= since_ms {
            break;
        }
        notes.extend(snap.note(&stamp.id)?);
    }
    Ok(notes)
}

/// Activity rows of the given types, newest first, paginated.
pub(crate) fn recent_activity(
    engine: &Engine,
    project: &Project,
    types: &[RowKind],
    since: DateTime<Utc>,
    page: usize,
    page_size: usize,
) -> Result<Activity> {
    let mut items = Vec::new();
    let wanted = |kind: RowKind| types.contains(&kind);
    let now = Utc::now();
    for note in records_updated_since(&engine.store.index, project, since)? {
        // A soft-deleted or expired memory is not activity anyone should be shown.
        if note::memory::is_hidden(&note.metadata, note.created_ms, now) {
            continue;
        }
        let permalink = note.permalink.clone();
        let base = ActivityItem {
            kind: RowKind::Entity,
            title: note.title.clone(),
            permalink: permalink.clone(),
            file_path: note.path.clone(),
            created_ms: note.created_ms,
            commit: None,
            id: note.id.clone(),
            folder: note.folder().to_string(),
            updated_ms: note.updated_ms,
            category: None,
            content: None,
            relation: None,
            note_type: note.note_type.clone(),
            session: session_of(&note),
        };
        if wanted(RowKind::Entity) {
            items.push(base.clone());
        }
        if wanted(RowKind::Observation) {
            for obs in &note.observations {
                items.push(ActivityItem {
                    kind: RowKind::Observation,
                    permalink: Some(observation_permalink(
                        permalink.as_deref().unwrap_or(""),
                        &obs.category,
                        &obs.content,
                    )),
                    category: Some(obs.category.clone()),
                    content: Some(obs.content.clone()),
                    ..base.clone()
                });
            }
        }
        if wanted(RowKind::Relation) {
            for rel in &note.relations {
                let target = match &rel.to_id {
                    Some(id) => crate::notes::note_by_id(&engine.store.index, id)?,
                    None => None,
                };
                let shown = target
                    .as_ref()
                    .map(|t| t.title.clone())
                    .unwrap_or_else(|| rel.relation.target.clone());
                items.push(ActivityItem {
                    kind: RowKind::Relation,
                    permalink: None,
                    relation: Some((rel.relation.relation_type.clone(), shown, target.is_some())),
                    ..base.clone()
                });
            }
        }
    }
    let (mut items, has_more) = Page { page, page_size }.of(items);
    name_commits(engine, project, &mut items)?;
    Ok(Activity { items, has_more })
}

/// Sets each item's commit: the newest commit of its file, when the file is still as that
/// commit left it (a change not committed yet has no commit to name).
fn name_commits(engine: &Engine, project: &Project, items: &mut [ActivityItem]) -> Result<()> {
    if project.git.is_none() || items.is_empty() {
        return Ok(());
    }
    engine.history.flush();
    let mut paths: Vec<&str> = items.iter().map(|i| i.file_path.as_str()).collect();
    paths.sort_unstable();
    paths.dedup();
    let found = git::log::latest_commits(&project.path, &paths, COMMIT_SEARCH_DEPTH)?;
    for item in items.iter_mut() {
        let Some(version) = found.get(&item.file_path) else {
            continue;
        };
        let current = git::hash_file(&project.path.join(&item.file_path));
        if current.is_some() && current == version.blob {
            item.commit = Some(version.commit.chars().take(10).collect());
        }
    }
    Ok(())
}

/// recent_activity's answer: one project's page, or, with no project named and no default
/// (discovery mode), the first page of every project.
#[derive(Debug, Clone)]
pub enum ActivityScope {
    Project {
        project: Box<Project>,
        activity: Activity,
    },
    Discovery(Vec<(String, Vec<ActivityItem>)>),
}

impl ActivityScope {
    /// The answer's items in order: in discovery mode, every project's one after the other.
    pub fn items(&self) -> Box<dyn Iterator<Item = (Option<&str>, &ActivityItem)> + '_> {
        match self {
            ActivityScope::Project { activity, .. } => {
                Box::new(activity.items.iter().map(|item| (None, item)))
            }
            ActivityScope::Discovery(per_project) => {
                Box::new(per_project.iter().flat_map(|(name, items)| {
                    items.iter().map(move |item| (Some(name.as_str()), item))
                }))
            }
        }
    }
}

/// The answer's items grouped as the call asked.
#[derive(Debug, Clone)]
pub struct Grouped {
    pub by: GroupBy,
    pub groups: Vec<ActivityGroup>,
}

#[derive(Debug, Clone)]
pub struct ActivityAnswer {
    pub scope: ActivityScope,
    pub grouped: Option<Grouped>,
}

pub(crate) fn recent_activity_for(
    engine: &Engine,
    choice: &ProjectChoice,
    types: &[String],
    since: DateTime<Utc>,
    page: usize,
    page_size: usize,
    group_by: Option<&str>,
) -> Result<ActivityAnswer> {
    let types = activity_types(types)?;
    let group_by = group_by.map(GroupBy::named).transpose()?;
    let project = if choice.is_explicit() {
        Some(crate::scope::select_project(&engine.store, choice)?)
    } else {
        crate::scope::project(&engine.store, None)
            .ok()
            .filter(|p| choice.allows(p))
    };
    let scope = match project {
        Some(project) => {
            let activity = recent_activity(engine, &project, &types, since, page, page_size)?;
            ActivityScope::Project {
                project: Box::new(project),
                activity,
            }
        }
        None => {
            let mut per_project = Vec::new();
            for p in crate::scope::visible_projects(&engine.store, choice)? {
                let activity = recent_activity(engine, &p, &types, since, 1, page_size)?;
                per_project.push((p.name, activity.items));
            }
            ActivityScope::Discovery(per_project)
        }
    };
    let grouped = group_by.map(|by| Grouped {
        by,
        groups: group_items(scope.items().map(|(_, item)| item), by),
    });
    Ok(ActivityAnswer { scope, grouped })
}
