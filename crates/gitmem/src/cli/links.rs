//! `gitmem link-folder`, `unlink-folder`, `list-links` and `rescan-links`.

use anyhow::Result;

use super::{emit, format_of, LinkArgs};
use engine::links::{LinkOptions, ScanReport, WatchChoice};
use engine::scope::ProjectChoice;
use engine::App;

pub(super) fn link_folder(app: &App, args: &LinkArgs) -> Result<()> {
    let options = LinkOptions {
        path: args.path.clone(),
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        watch: WatchChoice {
            mode: args.watch_mode.clone(),
            poll_interval_ms: args.poll_interval,
            jitter_pct: args.jitter,
        },
        mount: args.mount.clone(),
    };
    let (link, report) = app.link_folder(&ProjectChoice::named(Some(&args.project)), &options)?;
    emit(render::links::link_folder(
        &link,
        &report,
        format_of(args.json),
    ));
    Ok(())
}

pub(super) fn unlink_folder(
    app: &App,
    project: &str,
    path: Option<&str>,
    json: bool,
) -> Result<()> {
    let removed = app.unlink_folder(&ProjectChoice::named(Some(project)), path)?;
    emit(render::links::unlink_folder(&removed, format_of(json)));
    Ok(())
}

pub(super) fn list_links(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let all = app.list_links(&ProjectChoice::named(project))?;
    emit(render::links::list_links(&all, format_of(json)));
    Ok(())
}

pub(super) fn rescan_links(
    app: &App,
    project: Option<&str>,
    path: Option<&str>,
    json: bool,
) -> Result<()> {
    let reports = app.rescan_links_across(project, path)?;
    emit(render::links::rescan_links(&reports, format_of(json)));
    if reports.iter().any(ScanReport::failed) {
        anyhow::bail!("some linked folders could not be scanned");
    }
    Ok(())
}
