//! Which project a call works in (compat 1.6 and 5.2): the constrained project of
//! `serve --project`, else `project_id`, else `project`, else the default; a `memory://` URL whose
//! first segment names a project routes there.

use super::{Result, UserError};
use crate::config::Project;
use crate::Store;
use note::permalink::generate_permalink;

/// The project arguments of a call, before they are looked up.
#[derive(Debug, Clone, Default)]
pub struct ProjectChoice {
    /// `serve --project NAME`: every call uses this project.
    pub constrained: Option<String>,
    /// A caller limited to several projects (a token's `--project`s): only these may be used.
    pub allowed: Option<Vec<String>>,
    pub project: Option<String>,
    pub project_id: Option<String>,
}

impl ProjectChoice {
    /// A call that names at most one project, as the CLI's `--project NAME` does.
    pub fn named(project: Option<&str>) -> Self {
        ProjectChoice {
            project: project.map(String::from),
            ..Default::default()
        }
    }

    /// The project named by the call itself: `project_id` wins over `project`; blanks name none.
    fn named_project(&self) -> Option<&str> {
        fn given(s: &Option<String>) -> Option<&str> {
            s.as_deref().filter(|s| !s.trim().is_empty())
        }
        given(&self.project_id).or(given(&self.project))
    }

    /// True when `project` may be used by this call.
    pub fn allows(&self, project: &Project) -> bool {
        self.allowed
            .as_ref()
            .is_none_or(|allowed| allowed.contains(&project.name))
    }

    /// `project`, or the refusal of a caller limited to other projects.
    fn permitted(&self, project: Project) -> Result<Project> {
        match &self.allowed {
            Some(allowed) if !allowed.contains(&project.name) => {
                Err(UserError::ProjectNotAllowed {
                    allowed: allowed.clone(),
                    project: project.name,
                }
                .into())
            }
            _ => Ok(project),
        }
    }

    /// True when the call or the server picked a project, so no default or discovery applies.
    pub(crate) fn is_explicit(&self) -> bool {
        self.constrained.is_some() || self.project.is_some() || self.project_id.is_some()
    }
}

/// The project a call works in.
pub(crate) fn select_project(store: &Store, choice: &ProjectChoice) -> Result<Project> {
    select_project_unchecked(store, choice).and_then(|p| choice.permitted(p))
}

fn select_project_unchecked(store: &Store, choice: &ProjectChoice) -> Result<Project> {
    if let Some(constrained) = &choice.constrained {
        return project(store, Some(constrained));
    }
    match choice.named_project() {
        Some(name) => project(store, Some(name)),
        None => project(store, None).map_err(|_| {
            let available = projects(store, None)
                .unwrap_or_default()
                .into_iter()
                .map(|p| p.name)
                .collect();
            UserError::NoProjectSelected { available }.into()
        }),
    }
}

/// The projects a call may see: the constrained one, else every project.
pub(crate) fn visible_projects(store: &Store, choice: &ProjectChoice) -> Result<Vec<Project>> {
    let mut projects = projects(store, choice.constrained.as_deref())?;
    projects.retain(|p| choice.allows(p));
    Ok(projects)
}

/// The project of a note identifier: a `memory://` URL may name its project.
pub(crate) fn project_for_identifier(
    store: &Store,
    choice: &ProjectChoice,
    identifier: &str,
) -> Result<Project> {
    match identifier.trim().strip_prefix("memory://") {
        Some(path) => project_for_url(store, choice, path),
        None => select_project(store, choice),
    }
}

/// The project named by the first segment of a memory URL's path, when the call named none.
pub(crate) fn project_for_url(
    store: &Store,
    choice: &ProjectChoice,
    path: &str,
) -> Result<Project> {
    project_for_url_unchecked(store, choice, path).and_then(|p| choice.permitted(p))
}

fn project_for_url_unchecked(store: &Store, choice: &ProjectChoice, path: &str) -> Result<Project> {
    let first = path.split('/').next().unwrap_or("");
    if let Some(constrained) = &choice.constrained {
        let constrained = project(store, Some(constrained))?;
        if let Ok(other) = project(store, Some(first)) {
            if other.name != constrained.name {
                return Err(UserError::ProjectConstrained {
                    constrained: constrained.name,
                    requested: other.name,
                }
                .into());
            }
        }
        return Ok(constrained);
    }
    if choice.project.is_none() && choice.project_id.is_none() {
        let wanted = generate_permalink(first, false);
        if let Some(p) = projects(store, None)?
            .into_iter()
            .find(|p| p.permalink == wanted)
        {
            return Ok(p);
        }
    }
    select_project(store, choice)
}

/// The named project, or the default one.
pub(crate) fn project(store: &Store, name: Option<&str>) -> Result<Project> {
    Ok(store.config().project_or_default(name)?.clone())
}

/// The projects a command addresses: one by name, or all.
pub(crate) fn projects(store: &Store, name: Option<&str>) -> Result<Vec<Project>> {
    let config = store.config();
    match name {
        Some(n) => Ok(vec![config.project(n)?.clone()]),
        None => Ok(config.projects().to_vec()),
    }
}
