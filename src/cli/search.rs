//! `gitmem search`.

use std::io::IsTerminal;

use anyhow::Result;

use super::{emit, format_of, progress::Bars, SearchArgs};
use crate::render;
use crate::service::search::SearchRequest;
use crate::service::App;

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
