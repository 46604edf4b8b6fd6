//! `gitmem git` and `gitmem sync`: versioning a project, a note's history, the remote.

use anyhow::{Context, Result};

use super::{emit, format_of, CryptoCommand, GitCommand};
use engine::git::exchange::Direction;
use engine::oneshot::Unobserved;
use engine::scope::ProjectChoice;
use engine::App;
use render::{self, Format, Output};

pub(super) fn git(app: &App, cmd: GitCommand) -> Result<()> {
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
            let history = on_current_files(app, project.as_deref(), |app, choice| {
                app.note_history(choice, &identifier, limit)
            })?;
            render::history::note_history(&history, format_of(json))
        }
        GitCommand::Diff {
            identifier,
            project,
            from,
            to,
        } => {
            let diff = on_current_files(app, project.as_deref(), |app, choice| {
                app.note_diff(choice, &identifier, from.as_deref(), to.as_deref())
            })?;
            render::history::note_diff(&diff, Format::Text)
        }
        GitCommand::Restore {
            identifier,
            version,
            project,
        } => {
            let restored = on_current_files(app, project.as_deref(), |app, choice| {
                app.restore_note(choice, &identifier, &version)
            })?;
            render::history::restored(&restored, Format::Text)
        }
    };
    emit(rendered.into());
    Ok(())
}

pub(super) fn crypto(app: &App, cmd: CryptoCommand) -> Result<()> {
    let (change, json) = match cmd {
        CryptoCommand::Keygen { out } => {
            let identity = app.crypto_keygen(out.as_deref())?;
            emit(Output::line(&render::crypto::new_identity(&identity)));
            return Ok(());
        }
        CryptoCommand::Enable {
            project,
            recipients,
            json,
        } => {
            let recipients = (!recipients.is_empty()).then_some(recipients);
            let change = on_current_files(app, project.as_deref(), |app, choice| {
                app.crypto_enable(choice, recipients)
            })?;
            (change, json)
        }
        CryptoCommand::Disable { project, json } => {
            let change = on_current_files(app, project.as_deref(), |app, choice| {
                app.crypto_disable(choice)
            })?;
            (change, json)
        }
    };
    emit(Output::either(
        format_of(json),
        || format!("{}\n", render::crypto::change_text(&change)),
        || render::crypto::change(&change),
    ));
    Ok(())
}

pub(super) fn git_sync(
    app: &App,
    direction: &str,
    project: Option<&str>,
    json: bool,
    allow_secrets: &[String],
) -> Result<()> {
    let direction = Direction::parse(direction).context("direction is push, pull or both")?;
    if direction == Direction::Pull && !allow_secrets.is_empty() {
        anyhow::bail!("--allow-secrets allows a push: use it with `sync push` or `sync both`");
    }
    let report = on_current_files(app, project, |app, choice| {
        app.exchange_allowing(choice, direction, allow_secrets)
    })?;
    emit(render::git::exchange(&report, format_of(json)));
    Ok(())
}

/// Runs `work` on the named project (or the default one) once its index knows the files on
/// disk: a note's history and the exchange with a remote both start from what git commits.
fn on_current_files<T>(
    app: &App,
    project: Option<&str>,
    work: impl FnOnce(&App, &ProjectChoice) -> engine::Result<T>,
) -> engine::Result<T> {
    let choice = ProjectChoice::named(project);
    app.oneshot(&Unobserved)
        .on_current_files(&choice, |app| work(app, &choice))
}
