//! `gitmem git` and `gitmem sync`: versioning a project, a note's history, the remote.

use anyhow::{Context, Result};

use super::{emit, format_of, GitCommand};
use crate::render::{self, Format, Rendered};
use crate::service::gitsync::Direction;
use crate::service::scope::ProjectChoice;
use crate::service::sync::SyncMode;
use crate::service::App;

pub(super) fn git(app: &App, cmd: GitCommand) -> Result<()> {
    match cmd {
        GitCommand::Init { project, remote } => version(app, &project, remote.as_deref()),
        GitCommand::History {
            identifier,
            project,
            limit,
            json,
        } => history(app, project.as_deref(), |choice| {
            let history = app.note_history(choice, &identifier, limit)?;
            Ok(render::history::note_history(&history, format_of(json)))
        }),
        GitCommand::Diff {
            identifier,
            project,
            from,
            to,
        } => history(app, project.as_deref(), |choice| {
            let diff = app.note_diff(choice, &identifier, from.as_deref(), to.as_deref())?;
            Ok(render::history::note_diff(&diff, Format::Text))
        }),
        GitCommand::Restore {
            identifier,
            version,
            project,
        } => history(app, project.as_deref(), |choice| {
            let restored = app.restore_note(choice, &identifier, &version)?;
            Ok(render::history::restored(&restored, Format::Text))
        }),
    }
}

fn version(app: &App, project: &str, remote: Option<&str>) -> Result<()> {
    let (project, prepared) = app.version_project(project, remote)?;
    emit(render::projects::versioned(&project, prepared));
    Ok(())
}

/// Runs a history command once the project's index knows its current files (notes are named
/// as read_note names them).
fn history(
    app: &App,
    project: Option<&str>,
    run: impl FnOnce(&ProjectChoice) -> crate::service::Result<Rendered>,
) -> Result<()> {
    let choice = ProjectChoice::named(project);
    let selected = app.select_project(&choice)?;
    app.sync_project(&selected, SyncMode::Incremental, &|_| {})?;
    emit(run(&choice)?.into());
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
    let selected = app.select_project(&choice)?;
    app.sync_project(&selected, SyncMode::Incremental, &|_| {})?;
    let report = app.git_sync(&choice, direction)?;
    emit(render::gitsync::sync(&report, format_of(json)));
    Ok(())
}
