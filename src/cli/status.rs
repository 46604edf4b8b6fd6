//! `gitmem reindex`, `status` and `repair`: the index and its health.

use anyhow::Result;

use super::{models::embed, print_json, progress};
use crate::service::sync::SyncReport;
use crate::service::App;

fn print_warnings(report: &SyncReport) {
    for w in &report.warnings {
        if w.path.is_empty() {
            eprintln!("warning: {}", w.message);
        } else {
            eprintln!("warning: {}: {}", w.path, w.message);
        }
    }
}

pub(super) fn reindex(app: &App, project: Option<&str>) -> Result<()> {
    for p in app.projects(project)? {
        let bar = progress::SyncBar::new(&p.name);
        let report = app.rebuild_project(&p, &|e| bar.event(e))?;
        bar.finish();
        print_warnings(&report);
        println!(
            "{}: indexed {} files in {:.2} s ({} warnings)",
            report.project,
            report.scanned,
            report.runtime_ms as f64 / 1000.0,
            report.warnings.len()
        );
    }
    embed(app)
}

pub(super) fn check(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let health = app.check(project)?;
    if json {
        print_json(&health)?;
    } else {
        print_health(&health);
    }
    if !health.is_clean() {
        anyhow::bail!("the index has drifted from the files; `gitmem repair` fixes it");
    }
    Ok(())
}

pub(super) fn repair(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let (before, after) = app.repair(project)?;
    if json {
        return print_json(&serde_json::json!({ "before": before, "after": after }));
    }
    println!("before:");
    print_health(&before);
    println!("after:");
    print_health(&after);
    if !after.is_clean() {
        anyhow::bail!("some drift remains; see the report above");
    }
    Ok(())
}

fn print_health(health: &crate::service::health::Health) {
    for p in &health.projects {
        if p.is_clean() {
            println!("  {}: consistent", p.project);
            continue;
        }
        println!("  {}:", p.project);
        let lists = [
            ("files not indexed", &p.not_indexed),
            ("files changed since indexed", &p.changed),
            ("index entries without a file", &p.stale),
            ("notes missing from search", &p.not_searchable),
            ("notes whose text the index lost", &p.text_lost),
            ("temp files of interrupted writes", &p.temp_files),
        ];
        for (what, paths) in lists {
            if !paths.is_empty() {
                let shown: Vec<&str> = paths.iter().take(5).map(String::as_str).collect();
                let more = paths.len().saturating_sub(shown.len());
                let more = if more > 0 {
                    format!(", and {more} more")
                } else {
                    String::new()
                };
                println!("    {} {what}: {}{more}", paths.len(), shown.join(", "));
            }
        }
        if p.pending_search > 0 {
            println!("    {} notes waiting for search indexing", p.pending_search);
        }
        if p.interrupted_reindex {
            println!("    a reindex stopped half-way");
        }
    }
    if health.orphan_search_documents > 0 {
        println!(
            "  {} search documents of notes that no longer exist",
            health.orphan_search_documents
        );
    }
}

pub(super) fn status(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let status = app.status(project)?;
    if json {
        return print_json(&status);
    }
    for p in &status.projects {
        println!(
            "{}{}  {}",
            p.project,
            if p.is_default { " (default)" } else { "" },
            p.path
        );
        println!(
            "  notes: {}  other files: {}  observations: {}  relations: {} ({} unresolved)",
            p.notes, p.files, p.observations, p.relations, p.unresolved_relations
        );
        match &p.last_scan {
            Some(at) => println!("  last scan: {at} ({} ms)", p.last_scan_ms.unwrap_or(0)),
            None => println!("  last scan: never (run `gitmem reindex`)"),
        }
        println!("  warnings: {}", p.warnings.len());
        for w in &p.warnings {
            println!("    {}: {}", w.path, w.message);
        }
    }
    println!(
        "index: {:.1} MB in {}/index",
        status.index_bytes as f64 / 1e6,
        status.root
    );
    println!("{}", status.semantic.describe());
    Ok(())
}
