//! `gitmem project`: the project registry.

use anyhow::Result;

use super::{emit, format_of, progress::Bars, ProjectCommand};
use engine::App;

pub(super) fn project(app: &App, cmd: ProjectCommand) -> Result<()> {
    match cmd {
        ProjectCommand::Add {
            name,
            path,
            default,
            git,
            remote,
        } => {
            let added = app.add_project_versioned(&name, &path, default, git, remote.as_deref())?;
            emit(render::projects::added(&added));
        }
        ProjectCommand::List { json } => {
            let projects = app.projects(None)?;
            emit(render::projects::projects(&projects, format_of(json)));
        }
        ProjectCommand::Remove { name, delete_notes } => {
            let p = app.remove_project(&name, delete_notes)?;
            emit(render::projects::removed(&p, delete_notes));
        }
        ProjectCommand::Default { name } => {
            let p = app.set_default_project(&name)?;
            emit(render::projects::default_set(&p));
        }
        ProjectCommand::ImportBasicMemory { config, json } => {
            let report = app
                .oneshot(&Bars::default())
                .import_basic_memory(config.as_deref())?;
            emit(render::import::basic_memory_import(&report, format_of(json)).into());
        }
    }
    Ok(())
}
