//! `gitmem search`.

use std::io::IsTerminal;

use anyhow::Result;

use super::{print_json, progress, SearchArgs};
use crate::service::search::{SearchRequest, SearchResponse};
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
        eprintln!(
            "note: {} files in '{}' have warnings; `gitmem status` lists them",
            report.warnings.len(),
            project.name
        );
    }
    let request = SearchRequest {
        query: Some(args.query.clone()),
        page: args.page,
        page_size: args.page_size,
        ..Default::default()
    };
    let response: SearchResponse = app.search(&project, &request)?;
    if args.json {
        return print_json(&response);
    }
    println!(
        "{}",
        crate::render::search::text(&response, Some(&args.query), &project.name, false)
    );
    Ok(())
}
