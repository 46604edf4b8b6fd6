//! `gitmem link-folder`, `unlink-folder`, `list-links` and `rescan-links`.

use anyhow::Result;

use super::{print_json, LinkArgs};
use crate::service::scope::ProjectChoice;
use crate::service::App;

fn print_link(link: &crate::vault::links::LinkRecord) {
    let v = crate::service::links::link_json(link);
    println!(
        "{} -> {}/{}  [{}]  {}",
        link.display_path,
        link.project,
        link.mount,
        v["status"].as_str().unwrap_or(""),
        link.id
    );
    println!(
        "  files: {}  bytes: {}  last scan: {} ({} ms)  watch: {} every {} ms",
        link.file_count,
        link.total_bytes,
        link.last_scan.as_deref().unwrap_or("never"),
        link.last_runtime_ms,
        v["watch"]["mode"].as_str().unwrap_or(""),
        v["watch"]["effectivePollIntervalMs"]
    );
    let [created, updated, deleted, moved] = link.last_changes;
    println!(
        "  last changes: {created} created, {updated} updated, {deleted} deleted, {moved} moved"
    );
    if let Some(e) = &link.last_error {
        println!("  last error: {e}");
    }
}

fn print_report(r: &crate::service::links::ScanReport) {
    println!(
        "{}: scanned {} files ({} bytes) in {} ms: {} created, {} updated, {} deleted, {} moved{}",
        r.display_path,
        r.scanned,
        r.total_bytes,
        r.runtime_ms,
        r.created,
        r.updated,
        r.deleted,
        r.moved,
        r.last_error
            .as_ref()
            .map(|e| format!("; error: {e}"))
            .unwrap_or_default()
    );
    for w in &r.warnings {
        eprintln!("warning: {}: {}", w.path, w.message);
    }
}

pub(super) fn link_folder(app: &App, args: &LinkArgs) -> Result<()> {
    let options = crate::service::links::LinkOptions {
        path: args.path.clone(),
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        watch_mode: args.watch_mode.clone(),
        poll_interval_ms: args.poll_interval,
        jitter_pct: args.jitter,
        mount: args.mount.clone(),
    };
    let (link, report) = app.link_folder(&ProjectChoice::named(Some(&args.project)), &options)?;
    if args.json {
        let mut v = crate::service::links::link_json(&link);
        v["report"] = serde_json::to_value(&report)?;
        return print_json(&v);
    }
    print_link(&link);
    print_report(&report);
    Ok(())
}

pub(super) fn unlink_folder(
    app: &App,
    project: &str,
    path: Option<&str>,
    json: bool,
) -> Result<()> {
    let removed = app.unlink_folder(&ProjectChoice::named(Some(project)), path)?;
    if json {
        let v: Vec<_> = removed
            .iter()
            .map(crate::service::links::link_json)
            .collect();
        return print_json(&serde_json::json!({ "unlinked": v }));
    }
    for link in &removed {
        println!(
            "unlinked {} from {} (its files are untouched)",
            link.display_path, link.project
        );
    }
    Ok(())
}

pub(super) fn list_links(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let all = app.list_links(&ProjectChoice::named(project))?;
    if json {
        let v: Vec<_> = all.iter().map(crate::service::links::link_json).collect();
        return print_json(&serde_json::json!({ "links": v }));
    }
    if all.is_empty() {
        println!("no linked folders");
    }
    for link in &all {
        print_link(link);
    }
    Ok(())
}

pub(super) fn rescan_links(
    app: &App,
    project: Option<&str>,
    path: Option<&str>,
    json: bool,
) -> Result<()> {
    let reports = app.rescan_links_across(project, path)?;
    let failed = reports.iter().any(|r| r.last_error.is_some());
    if json {
        print_json(&serde_json::json!({ "reports": reports }))?;
    } else {
        for r in &reports {
            print_report(r);
        }
    }
    if failed {
        anyhow::bail!("some linked folders could not be scanned");
    }
    Ok(())
}
