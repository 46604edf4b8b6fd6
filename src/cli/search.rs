//! `gitmem search`.

use std::io::IsTerminal;

use anyhow::Result;

use super::{emit, format_of, progress, SearchArgs};
use crate::render;
use crate::service::search::SearchRequest;
use crate::service::sync::SyncMode;
use crate::service::App;

pub(super) fn search(app: &App, args: &SearchArgs) -> Result<()> {
    let project = app.project(args.project.as_deref())?;
    let bar = progress::SyncBar::new(&project.name);
    let report = app.sync_project(&project, SyncMode::Incremental, &|e| bar.event(e))?;
    bar.finish();
    let bar = progress::CountBar::new("embedding", "notes");
    app.embed_pending(&|p| bar.set(p.done, p.total))?;
    bar.finish();
    if !report.warnings.is_empty() && std::io::stderr().is_terminal() {
        emit(render::search::warnings_note(
            report.warnings.len(),
            &project.name,
        ));
    }
    let request = SearchRequest {
        query: Some(args.query.clone()),
        page: args.page,
        page_size: args.page_size,
        ..Default::default()
    };
    let response = app.search(&project, &request)?;
    emit(render::search::command(
        &response,
        &args.query,
        &project.name,
        format_of(args.json),
    ));
    Ok(())
}
