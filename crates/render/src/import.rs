//! Reports of imports: `gitmem import …` and `gitmem project import-basic-memory`.

use serde_json::{json, Value};

use super::{Format, Rendered};
use engine::import::ImportReport;
use engine::projects::{BasicMemoryImport, BasicProject};

/// What an import did, or would do (`--dry-run`).
pub fn import_report(report: &ImportReport, format: Format) -> Rendered {
    Rendered::either(
        format,
        || {
            let would = if report.dry_run { "would be " } else { "" };
            let held: Vec<String> = report
                .counts
                .iter()
                .map(|(what, n)| format!("{n} {what}"))
                .collect();
            let mut out = format!(
                "Import from {} into project '{}'{}\n",
                report.source,
                report.project,
                if report.dry_run {
                    " (dry run: nothing written)"
                } else {
                    ""
                }
            );
            if !held.is_empty() {
                out.push_str(&format!("read: {}\n", held.join(", ")));
            }
            out.push_str(&format!(
                "{} notes {would}created, {} {would}overwritten, {} skipped, {} deduplicated\n",
                report.created.len(),
                report.overwritten.len(),
                report.skipped.len(),
                report.deduplicated
            ));
            for skipped in &report.skipped {
                out.push_str(&format!("skipped {}: {}\n", skipped.path, skipped.reason));
            }
            out.push_str(&super::notes::redacted_line(&report.redacted));
            out
        },
        || report_json(report),
    )
}

/// An import's report: what it wrote, left out and read.
pub fn report_json(report: &ImportReport) -> Value {
    let answer = json!({
        "source": report.source,
        "project": report.project,
        "dry_run": report.dry_run,
        "created": report.created,
        "overwritten": report.overwritten,
        "skipped": report.skipped.iter().map(|s| json!({"path": s.path, "reason": s.reason})).collect::<Vec<_>>(),
        "deduplicated": report.deduplicated,
        "counts": report.counts.iter().map(|(what, n)| json!([what, n])).collect::<Vec<_>>(),
    });
    super::with_redacted(answer, &report.redacted)
}

/// The projects taken over from Basic Memory.
pub fn basic_memory_import(report: &BasicMemoryImport, format: Format) -> Rendered {
    Rendered::either(
        format,
        || {
            let mut out = format!("Basic Memory configuration: {}\n", report.config);
            for p in &report.projects {
                match &p.detail {
                    Some(detail) => out.push_str(&format!(
                        "{}: {} ({}) at {}\n",
                        p.name, p.outcome, detail, p.path
                    )),
                    None => out.push_str(&format!("{}: {} at {}\n", p.name, p.outcome, p.path)),
                }
            }
            match &report.default_project {
                Some(name) => out.push_str(&format!("default project is now '{name}'\n")),
                None => out.push_str("the default project is unchanged\n"),
            }
            out
        },
        || {
            json!({
                "config": report.config,
                "projects": report.projects.iter().map(basic_project).collect::<Vec<_>>(),
                "default_project": report.default_project,
            })
        },
    )
}

fn basic_project(p: &BasicProject) -> Value {
    let mut v = json!({"name": p.name, "path": p.path, "outcome": p.outcome});
    if let Some(detail) = &p.detail {
        v["detail"] = json!(detail);
    }
    v
}
