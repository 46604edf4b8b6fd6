//! `gitmem search`, `gitmem context` and `gitmem inspect`.

use std::io::IsTerminal;

use anyhow::Result;

use super::{emit, format_of, progress::Bars, ContextArgs, InspectCommand, SearchArgs};
use engine::pack::PackRequest;
use engine::scope::ProjectChoice;
use engine::search::SearchRequest;
use engine::App;

pub(super) fn search(app: &App, args: &SearchArgs) -> Result<()> {
    let request = SearchRequest {
        query: Some(args.query.clone()),
        page: args.page,
        page_size: args.page_size,
        ..Default::default()
    };
    let exe = std::env::current_exe()?;
    let searched = app
        .oneshot(&Bars::default())
        .search(args.project.as_deref(), &request, &exe)?;
    emit(render::search::command(
        &searched,
        &args.query,
        format_of(args.json),
        std::io::stderr().is_terminal(),
    ));
    Ok(())
}

pub(super) fn context(app: &App, args: &ContextArgs) -> Result<()> {
    if args.token_budget == 0 {
        anyhow::bail!("--token-budget must be at least 1");
    }
    let request = PackRequest {
        task: args.task.clone(),
        token_budget: Some(args.token_budget),
        include_recent: !args.no_recent,
        sessions: args.sessions.clone(),
        include_superseded: args.include_superseded,
    };
    let pack = app
        .oneshot(&Bars::default())
        .memory_context(args.project.as_deref(), &request)?;
    emit(render::Output::either(
        format_of(args.json),
        || render::pack::text(&pack),
        || render::pack::json(&pack),
    ));
    Ok(())
}

pub(super) fn inspect(app: &App, command: InspectCommand) -> Result<()> {
    let rendered = match command {
        InspectCommand::Note {
            identifier,
            project,
            json,
        } => {
            let outcome =
                app.inspect_note(&ProjectChoice::named(project.as_deref()), &identifier)?;
            render::inspect::note(&outcome, format_of(json))
        }
        InspectCommand::Query {
            query,
            project,
            json,
            limit,
        } => {
            let inspection =
                app.oneshot(&Bars::default())
                    .inspect_query(project.as_deref(), &query, limit)?;
            render::inspect::query(&inspection, format_of(json))
        }
    };
    emit(rendered.into());
    Ok(())
}
