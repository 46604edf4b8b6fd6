//! Projects as the tools see them: listing, creating (and indexing), deleting, statistics.

pub use git::Prepared;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::error::ImportError;
use super::progress::ProjectSync;
use super::scope::ProjectChoice;
use super::sync::{SyncMode, SyncReport};
use super::{Outcome, Result, ServiceError, UserError};
use crate::config::Project;
use crate::{Engine, Store};
use index::{Index, WriteOp};

#[derive(Debug, Clone)]
pub struct ProjectStatistics {
    pub total_entities: usize,
    pub total_observations: usize,
    pub total_relations: usize,
    pub total_unresolved_relations: usize,
    pub note_types: BTreeMap<String, usize>,
    pub observation_categories: BTreeMap<String, usize>,
    pub relation_types: BTreeMap<String, usize>,
    /// The ten notes with the most relations, in or out, most first.
    pub most_connected_entities: Vec<ConnectedEntity>,
    pub isolated_entities: usize,
}

#[derive(Debug, Clone)]
pub struct ConnectedEntity {
    pub title: String,
    pub permalink: Option<String>,
    pub relation_count: usize,
}

#[derive(Debug, Clone)]
pub struct ProjectCreated {
    pub project: Project,
    pub created: bool,
    pub indexing: SyncReport,
}

/// The projects a call may see, sorted by permalink.
#[derive(Debug, Clone)]
pub struct ProjectListing {
    pub projects: Vec<Project>,
    pub default: Option<String>,
    pub constrained: Option<String>,
}

/// Why a project was not created or deleted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectRefusal {
    /// `serve --project` pins the server to one project.
    Constrained { project: String },
}

/// What `work` did, or the refusal of a server pinned to one project (or a caller limited to
/// several): projects may be neither created nor deleted through it.
fn unless_pinned<T>(
    choice: &ProjectChoice,
    work: impl FnOnce() -> Result<T>,
) -> Result<Outcome<T, ProjectRefusal>> {
    let pinned = choice
        .constrained
        .clone()
        .or(choice.allowed.as_ref().map(|a| a.join(", ")));
    match pinned {
        Some(project) => Ok(Outcome::Refused(ProjectRefusal::Constrained { project })),
        None => work().map(Outcome::Done),
    }
}

/// `gitmem project add`: the project registered, and how it is versioned when that was asked.
#[derive(Debug, Clone)]
pub struct ProjectAdded {
    pub project: Project,
    pub versioned: Option<(Project, git::Prepared)>,
}

/// Why `gitmem project add` added nothing.
#[derive(Debug, thiserror::Error)]
pub enum AddProjectError {
    #[error(transparent)]
    Service(#[from] ServiceError),
    /// The project could not be versioned, so its registration was taken back.
    #[error("project '{name}' was not added")]
    NotVersioned {
        name: String,
        #[source]
        source: Box<ServiceError>,
    },
}

/// A project directory as a tool names it: `~/` is the home directory.
fn expand_home(path: &str) -> PathBuf {
    match path.strip_prefix("~/") {
        Some(rest) => dirs::home_dir().unwrap_or_default().join(rest),
        None => PathBuf::from(path),
    }
}

/// list_memory_projects.
pub(crate) fn list_projects(store: &Store, choice: &ProjectChoice) -> Result<ProjectListing> {
    let mut projects = crate::scope::projects(store, None)?;
    projects.retain(|p| choice.allows(p));
    projects.sort_by(|a, b| a.permalink.cmp(&b.permalink));
    Ok(ProjectListing {
        projects,
        default: crate::scope::project(store, None).ok().map(|p| p.name),
        constrained: choice.constrained.clone(),
    })
}

/// create_memory_project: registers and indexes a project, unless the server is pinned.
pub(crate) fn create_project_from_tool(
    engine: &Engine,
    choice: &ProjectChoice,
    name: &str,
    path: &str,
    set_default: bool,
) -> Result<Outcome<ProjectCreated, ProjectRefusal>> {
    unless_pinned(choice, || {
        let created = create_project(engine, name, &expand_home(path), set_default)?;
        engine
            .store
            .progress
            .set(&created.project.name, ProjectSync::Done);
        Ok(created)
    })
}

/// delete_project: unregisters a project other than the default, unless the server is
/// pinned.
pub(crate) fn delete_project_from_tool(
    store: &Store,
    choice: &ProjectChoice,
    name: &str,
    delete_notes: bool,
) -> Result<Outcome<Project, ProjectRefusal>> {
    unless_pinned(choice, || {
        let names: Vec<String> = crate::scope::projects(store, None)?
            .into_iter()
            .map(|p| p.name)
            .collect();
        let Ok(project) = crate::scope::project(store, Some(name)) else {
            return Err(UserError::UnknownProjectToDelete {
                name: name.to_string(),
                available: names,
            }
            .into());
        };
        if project.is_default {
            let others = names.into_iter().filter(|n| *n != project.name).collect();
            return Err(UserError::DeleteDefaultProject {
                name: project.name,
                others,
            }
            .into());
        }
        let removed = remove_project(store, &project.name, delete_notes)?;
        store.progress.remove(&removed.name);
        Ok(removed)
    })
}

/// Registers a project and, with `git`, versions it (cloning `remote` into an empty
/// directory); a project that cannot be versioned is not left half set up.
pub(crate) fn add_project_versioned(
    store: &Store,
    name: &str,
    path: &Path,
    make_default: bool,
    git: bool,
    remote: Option<&str>,
) -> std::result::Result<ProjectAdded, AddProjectError> {
    let project = add_project(store, name, path, make_default)?;
    if !git {
        return Ok(ProjectAdded {
            project,
            versioned: None,
        });
    }
    match crate::git::versioned::version_project(store, name, remote) {
        Ok(versioned) => Ok(ProjectAdded {
            project,
            versioned: Some(versioned),
        }),
        Err(source) => {
            remove_project(store, name, false)?;
            Err(AddProjectError::NotVersioned {
                name: name.to_string(),
                source: Box::new(source),
            })
        }
    }
}

/// Registers a project and indexes it; an existing name (any case) is re-indexed instead.
pub(crate) fn create_project(
    engine: &Engine,
    name: &str,
    path: &Path,
    set_default: bool,
) -> Result<ProjectCreated> {
    if let Ok(existing) = crate::scope::project(&engine.store, Some(name)) {
        if existing.name.eq_ignore_ascii_case(name)
            || existing.permalink == note::permalink::generate_permalink(name, false)
        {
            let indexing =
                crate::sync::sync_and_wait(engine, &existing, SyncMode::Incremental, &|_| {})?;
            return Ok(ProjectCreated {
                project: existing,
                created: false,
                indexing,
            });
        }
    }
    let project = add_project(&engine.store, name, path, set_default)?;
    let indexing = crate::sync::sync_and_wait(engine, &project, SyncMode::Incremental, &|_| {})?;
    Ok(ProjectCreated {
        project,
        created: true,
        indexing,
    })
}

pub(crate) fn project_statistics(index: &Index, project: &Project) -> Result<ProjectStatistics> {
    let notes = crate::notes::all_notes(index, project)?;
    let mut stats = ProjectStatistics {
        total_entities: notes.len(),
        total_observations: 0,
        total_relations: 0,
        total_unresolved_relations: 0,
        note_types: BTreeMap::new(),
        observation_categories: BTreeMap::new(),
        relation_types: BTreeMap::new(),
        most_connected_entities: Vec::new(),
        isolated_entities: 0,
    };
    let mut degree: BTreeMap<String, usize> = BTreeMap::new();
    for note in &notes {
        *stats.note_types.entry(note.note_type.clone()).or_default() += 1;
        stats.total_observations += note.observations.len();
        for obs in &note.observations {
            *stats
                .observation_categories
                .entry(obs.category.clone())
                .or_default() += 1;
        }
        for rel in &note.relations {
            stats.total_relations += 1;
            *stats
                .relation_types
                .entry(rel.relation.relation_type.clone())
                .or_default() += 1;
            *degree.entry(note.id.clone()).or_default() += 1;
            match &rel.to_id {
                Some(to) => *degree.entry(to.clone()).or_default() += 1,
                None => stats.total_unresolved_relations += 1,
            }
        }
    }
    stats.isolated_entities = notes.iter().filter(|n| !degree.contains_key(&n.id)).count();
    let mut ranked: Vec<_> = notes
        .iter()
        .filter_map(|n| degree.get(&n.id).map(|d| (*d, n)))
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.title.cmp(&b.1.title)));
    stats.most_connected_entities = ranked
        .into_iter()
        .take(10)
        .map(|(relation_count, n)| ConnectedEntity {
            title: n.title.clone(),
            permalink: n.permalink.clone(),
            relation_count,
        })
        .collect();
    Ok(stats)
}

/// Where Basic Memory keeps its `config.json` (compat 7.1): `$BASIC_MEMORY_CONFIG_DIR`, else
/// `$XDG_CONFIG_HOME/basic-memory`, else `~/.basic-memory`. The first of these that holds a
/// `config.json` wins, since an installation older than the XDG rule kept it in the home
/// directory whatever `XDG_CONFIG_HOME` said; when none holds one, the first (for the error).
pub(crate) fn basic_memory_config() -> Option<PathBuf> {
    let set = |name: &str| std::env::var_os(name).filter(|d| !d.is_empty());
    let candidates: Vec<PathBuf> = [
        set("BASIC_MEMORY_CONFIG_DIR").map(PathBuf::from),
        set("XDG_CONFIG_HOME").map(|d| PathBuf::from(d).join("basic-memory")),
        dirs::home_dir().map(|h| h.join(".basic-memory")),
    ]
    .into_iter()
    .flatten()
    .map(|dir| dir.join("config.json"))
    .collect();
    candidates
        .iter()
        .find(|file| file.is_file())
        .or(candidates.first())
        .cloned()
}

/// One project of a Basic Memory configuration, and what became of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BasicProject {
    pub name: String,
    pub path: String,
    /// `registered`, `already registered`, or `skipped`.
    pub outcome: &'static str,
    /// Why it was skipped, or the gitmem project it already is.
    pub detail: Option<String>,
}

/// What `project import-basic-memory` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BasicMemoryImport {
    pub config: String,
    pub projects: Vec<BasicProject>,
    /// The default project now, when Basic Memory's default was taken over.
    pub default_project: Option<String>,
}

/// `gitmem project import-basic-memory`: registers the projects of a Basic Memory
/// `config.json` and takes over its default project. Notes are not touched: gitmem reads
/// them where they are, with their permalinks.
pub(crate) fn import_basic_memory(
    store: &Store,
    config: Option<&Path>,
) -> Result<BasicMemoryImport> {
    let file = match config {
        Some(file) => file.to_path_buf(),
        None => basic_memory_config().ok_or(ImportError::NoBasicMemoryConfig)?,
    };
    let text =
        vault::fs::read_text(&file).map_err(|source| ImportError::UnreadableBasicMemoryConfig {
            path: file.clone(),
            source,
        })?;
    let parsed: Value =
        serde_json::from_str(&text).map_err(|source| ImportError::BasicMemoryConfigNotJson {
            path: file.clone(),
            source,
        })?;
    let mut projects = parsed
        .get("projects")
        .and_then(Value::as_object)
        .cloned()
        .ok_or_else(|| ImportError::NoProjectsInBasicMemoryConfig(file.clone()))?;
    // Without projects, Basic Memory works in its default project directory (compat 7.1).
    if projects.is_empty() {
        let home = std::env::var_os("BASIC_MEMORY_HOME")
            .filter(|h| !h.is_empty())
            .map(PathBuf::from)
            .or_else(|| dirs::home_dir().map(|h| h.join("basic-memory")));
        if let Some(home) = home {
            projects.insert("main".into(), Value::String(home.display().to_string()));
        }
    }
    let mut report = BasicMemoryImport {
        config: file.display().to_string(),
        projects: Vec::new(),
        default_project: None,
    };
    // Basic Memory's default: the environment wins over the file (compat 7.2).
    let wanted_default = std::env::var("BASIC_MEMORY_DEFAULT_PROJECT")
        .ok()
        .filter(|d| !d.is_empty())
        .or_else(|| {
            parsed
                .get("default_project")
                .and_then(Value::as_str)
                .map(String::from)
        });
    let mut default_as: Option<String> = None;
    for (name, entry) in &projects {
        // The old format maps a name to its path; the new one to an object.
        let path = match entry {
            Value::String(path) => Some(path.as_str()),
            other => other.get("path").and_then(Value::as_str),
        }
        .unwrap_or("");
        let cloud = entry.get("mode").and_then(Value::as_str) == Some("cloud");
        // Basic Memory expands `~` in the paths it is given.
        let expanded = match path.strip_prefix("~/").zip(dirs::home_dir()) {
            Some((rest, home)) => home.join(rest),
            None => PathBuf::from(path),
        };
        let skipped = |detail: &str| BasicProject {
            name: name.clone(),
            path: path.to_string(),
            outcome: "skipped",
            detail: Some(detail.to_string()),
        };
        let outcome = if cloud || path.is_empty() {
            skipped("a cloud project (no local path)")
        } else if !expanded.is_absolute() {
            skipped("not an absolute path")
        } else {
            register_basic_project(store, name, &expanded)
        };
        let registered_as = match outcome.outcome {
            "registered" => Some(outcome.name.clone()),
            "already registered" => outcome.detail.clone(),
            _ => None,
        };
        if wanted_default.as_deref() == Some(name.as_str()) {
            default_as = registered_as;
        }
        report.projects.push(outcome);
    }
    if let Some(name) = default_as {
        set_default_project(store, &name)?;
        report.default_project = Some(name);
    }
    Ok(report)
}

fn register_basic_project(store: &Store, name: &str, path: &Path) -> BasicProject {
    let outcome = |outcome, detail: Option<String>| BasicProject {
        name: name.to_string(),
        path: path.display().to_string(),
        outcome,
        detail,
    };
    let canonical = vault::path::canonicalize_existing_prefix(path);
    if let Some(same) = store
        .config()
        .projects()
        .iter()
        .find(|p| p.path == canonical)
    {
        return outcome("already registered", Some(same.name.clone()));
    }
    if !canonical.is_dir() {
        return outcome("skipped", Some("the directory does not exist".to_string()));
    }
    // A fresh root's `main` holds nothing yet (no file, no linked folder, no history);
    // Basic Memory's default project is usually `main` too, and its permalinks and
    // memory:// URLs carry that name, so it takes the empty project's place rather than
    // being refused.
    let empty_namesake = store
        .config()
        .project(name)
        .ok()
        .filter(|p| holds_no_files(&p.path) && p.git.is_none())
        .cloned();
    let empty_namesake = match empty_namesake {
        Some(project)
            if crate::links::links(store, &project).is_ok_and(|links| links.is_empty()) =>
        {
            Some(project.name)
        }
        _ => None,
    };
    if let Some(namesake) = empty_namesake {
        return match relocate_project(store, &namesake, &canonical) {
            Ok(_) => outcome(
                "registered",
                Some(format!("in place of the empty gitmem project '{namesake}'")),
            ),
            Err(e) => outcome("skipped", Some(e.to_string())),
        };
    }
    if let Ok(namesake) = store.config().project(name) {
        return outcome(
            "skipped",
            Some(format!(
                "gitmem's project '{name}' at {} is in use; register this one under another name with `gitmem project add NAME {}`",
                namesake.path.display(),
                canonical.display()
            )),
        );
    }
    match add_project(store, name, &canonical, false) {
        Ok(_) => outcome("registered", None),
        Err(e) => outcome("skipped", Some(e.to_string())),
    }
}

/// Whether `dir` is missing or has no file at any depth.
fn holds_no_files(dir: &Path) -> bool {
    walkdir::WalkDir::new(dir)
        .into_iter()
        .flatten()
        .all(|entry| !entry.file_type().is_file())
}

pub(crate) fn add_project(
    store: &Store,
    name: &str,
    path: &Path,
    make_default: bool,
) -> Result<Project> {
    Ok(store.config_mut().add_project(name, path, make_default)?)
}

/// Points a project at another directory; what the index held of the old one is dropped.
pub(crate) fn relocate_project(store: &Store, name: &str, path: &Path) -> Result<Project> {
    let project = store.config_mut().relocate_project(name, path)?;
    store.index.write(vec![WriteOp::DeleteProject {
        project: project.name.clone(),
    }])?;
    Ok(project)
}

/// Unregisters a project and drops it from the index; with `delete_notes`, its directory
/// too.
pub(crate) fn remove_project(store: &Store, name: &str, delete_notes: bool) -> Result<Project> {
    let project = store.config_mut().remove_project(name)?;
    store.index.write(vec![WriteOp::DeleteProject {
        project: project.name.clone(),
    }])?;
    // Its linked folders go with it (their files stay where they are).
    let meta = store.config().meta_dir().join(&project.name);
    if meta.exists() {
        vault::fs::remove_tree(&meta)?;
    }
    if delete_notes && project.path.exists() {
        vault::fs::remove_tree(&project.path)?;
    }
    Ok(project)
}

pub(crate) fn set_default_project(store: &Store, name: &str) -> Result<Project> {
    Ok(store.config_mut().set_default(name)?)
}
