//! `gitmem schema validate|infer|diff`: the schema tools' answers, once the project's index
//! knows its current files.

use anyhow::Result;

use super::{emit, format_of, SchemaCommand};
use engine::oneshot::Unobserved;
use engine::scope::ProjectChoice;
use engine::App;
use render::{self, Output};

pub(super) fn schema(app: &App, cmd: SchemaCommand) -> Result<()> {
    let rendered = match cmd {
        SchemaCommand::Validate {
            note_type,
            identifier,
            project,
            json,
        } => {
            let choice = ProjectChoice::named(project.as_deref());
            let outcome = app.oneshot(&Unobserved).on_current_files(&choice, |app| {
                app.schema_validate(&choice, note_type.as_deref(), identifier.as_deref())
            })?;
            render::schema::validate(&outcome, format_of(json))
        }
        SchemaCommand::Infer {
            note_type,
            threshold,
            project,
            json,
        } => {
            let choice = ProjectChoice::named(project.as_deref());
            let outcome = app.oneshot(&Unobserved).on_current_files(&choice, |app| {
                app.schema_infer(&choice, &note_type, threshold)
            })?;
            render::schema::infer(&note_type, &outcome, format_of(json))
        }
        SchemaCommand::Diff {
            note_type,
            project,
            json,
        } => {
            let choice = ProjectChoice::named(project.as_deref());
            let outcome = app
                .oneshot(&Unobserved)
                .on_current_files(&choice, |app| app.schema_diff(&choice, &note_type))?;
            render::schema::diff(&note_type, &outcome, format_of(json))
        }
    };
    emit(Output::from(rendered));
    Ok(())
}
