//! `gitmem project`: the project registry.

use anyhow::Result;

use super::{emit, format_of, progress, ProjectCommand};
use crate::render;
use crate::service::sync::SyncMode;
use crate::service::App;

pub(super) fn project(app: &App, cmd: ProjectCommand) -> Result<()> {
    match cmd {
        ProjectCommand::Add {
            name,
            path,
            default,
            git,
            remote,
        } => {
            let p = app.add_project(&name, &path, default)?;
            // Nothing is said of the project until it is versioned: one that cannot be is
            // not left half set up, nor announced as added.
            let versioned = if git {
                match app.version_project(&name, remote.as_deref()) {
                    Ok(versioned) => Some(versioned),
                    Err(e) => {
                        app.remove_project(&name, false)?;
                        let e = anyhow::Error::from(e);
                        return Err(e.context(format!("project '{name}' was not added")));
                    }
                }
            } else {
                None
            };
            emit(render::projects::added(&p));
            if let Some((project, prepared)) = versioned {
                emit(render::projects::versioned(&project, prepared));
            }
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
            let report = app.import_basic_memory(config.as_deref())?;
            // The notes are indexed now, so their memory:// URLs resolve at once.
            for imported in report.projects.iter().filter(|p| p.outcome == "registered") {
                let project = app.project(Some(&imported.name))?;
                let bar = progress::SyncBar::new(&project.name);
                app.sync_project(&project, SyncMode::Incremental, &|e| bar.event(e))?;
                bar.finish();
            }
            emit(render::import::basic_memory_import(&report, format_of(json)).into());
        }
    }
    Ok(())
}
