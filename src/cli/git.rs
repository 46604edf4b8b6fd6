//! `gitmem git` and `gitmem sync`: versioning a project, a note's history, the remote.

use anyhow::{Context, Result};

use super::{emit, format_of, GitCommand};
use crate::render::{self, Format};
use crate::service::gitsync::Direction;
use crate::service::oneshot::Unobserved;
use crate::service::scope::ProjectChoice;
use crate::service::App;

pub(super) fn git(app: &App, cmd: GitCommand) -> Result<()> {
    let oneshot = app.oneshot(&Unobserved);
    let rendered = match cmd {
        GitCommand::Init { project, remote } => {
            let (project, prepared) = app.version_project(&project, remote.as_deref())?;
            emit(render::projects::versioned(&project, prepared));
            return Ok(());
        }
        GitCommand::History {
            identifier,
            project,
            limit,
            json,
        } => {
            let choice = ProjectChoice::named(project.as_deref());
            let history = oneshot
                .on_current_files(&choice, |app| app.note_history(&choice, &identifier, limit))?;
            render::history::note_history(&history, format_of(json))
        }
        GitCommand::Diff {
            identifier,
            project,
            from,
            to,
        } => {
            let choice = ProjectChoice::named(project.as_deref());
            let diff = oneshot.on_current_files(&choice, |app| {
                app.note_diff(&choice, &identifier, from.as_deref(), to.as_deref())
            })?;
            render::history::note_diff(&diff, Format::Text)
        }
        GitCommand::Restore {
            identifier,
            version,
            project,
        } => {
            let choice = ProjectChoice::named(project.as_deref());
            let restored = oneshot.on_current_files(&choice, |app| {
                app.restore_note(&choice, &identifier, &version)
            })?;
            render::history::restored(&restored, Format::Text)
        }
    };
    emit(rendered.into());
    Ok(())
}

pub(super) fn git_sync(
    app: &App,
    direction: &str,
    project: Option<&str>,
    json: bool,
) -> Result<()> {
    let direction = Direction::parse(direction).context("direction is push, pull or both")?;
    let choice = ProjectChoice::named(project);
    let report = app
        .oneshot(&Unobserved)
        .on_current_files(&choice, |app| app.git_sync(&choice, direction))?;
    emit(render::gitsync::sync(&report, format_of(json)));
    Ok(())
}
