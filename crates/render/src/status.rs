//! `gitmem status`, `status --check`, `repair` and `reindex`: the index and its health.

use serde_json::{json, Value};

use super::{Format, Output, Stream};
use engine::error::HeldSecret;
use engine::health::Health;
use engine::oneshot::Reindexed;
use engine::semantic::SemanticStatus;
use engine::status::Status;

/// What the index holds, project by project, and semantic search's state.
pub fn status(status: &Status, format: Format) -> Output {
    Output::either(
        format,
        || {
            let mut out = String::new();
            for p in &status.projects {
                out.push_str(&format!(
                    "{}{}  {}\n",
                    p.project,
                    if p.is_default { " (default)" } else { "" },
                    p.path
                ));
                out.push_str(&format!(
                    "  notes: {}  other files: {}  observations: {}  relations: {} ({} unresolved)\n",
                    p.notes, p.files, p.observations, p.relations, p.unresolved_relations
                ));
                match &p.last_scan {
                    Some(at) => out.push_str(&format!(
                        "  last scan: {at} ({} ms)\n",
                        p.last_scan_ms.unwrap_or(0)
                    )),
                    None => out.push_str("  last scan: never (run `gitmem reindex`)\n"),
                }
                out.push_str(&format!("  warnings: {}\n", p.warnings.len()));
                for w in &p.warnings {
                    out.push_str(&format!("    {}: {}\n", w.path, w.message));
                }
                if !p.held.is_empty() {
                    out.push_str("  push held: secret-shaped text in commits not pushed yet (`gitmem sync push` says what to do)\n");
                    for h in &p.held {
                        out.push_str(&format!("    {h}\n"));
                    }
                }
            }
            out.push_str(&format!(
                "index: {:.1} MB in {}/index\n",
                status.index_bytes as f64 / 1e6,
                status.root
            ));
            out.push_str(&format!(
                "{}\n",
                super::models::semantic_line(&status.semantic)
            ));
            if let Some(line) = super::models::reranker_line(&status.reranker) {
                out.push_str(&format!("{line}\n"));
            }
            out
        },
        || status_json(status),
    )
}

fn status_json(status: &Status) -> Value {
    let projects: Vec<Value> = status
        .projects
        .iter()
        .map(|p| {
            json!({
                "project": p.project,
                "path": p.path,
                "is_default": p.is_default,
                "notes": p.notes,
                "files": p.files,
                "observations": p.observations,
                "relations": p.relations,
                "unresolved_relations": p.unresolved_relations,
                "last_scan": p.last_scan,
                "last_scan_ms": p.last_scan_ms,
                "warnings": p.warnings.iter().map(|w| json!({"path": w.path, "message": w.message})).collect::<Vec<_>>(),
                "held": p.held.iter().map(held_json).collect::<Vec<_>>(),
            })
        })
        .collect();
    json!({
        "version": status.version,
        "root": status.root,
        "index_bytes": status.index_bytes,
        "projects": projects,
        "semantic": semantic_json(&status.semantic),
        "reranker": super::models::reranker_json(&status.reranker),
    })
}

/// One secret-shaped value that held a push: where, and what kind; never the value.
pub fn held_json(h: &HeldSecret) -> Value {
    json!({"path": h.path, "line": h.line, "kind": h.kind, "commit": h.commit})
}

/// Semantic search's state, tagged by `state` (`off`, `not_fetched`, `fetching`, `missing`,
/// `on`, `broken`).
fn semantic_json(semantic: &SemanticStatus) -> Value {
    match semantic {
        SemanticStatus::Off => json!({"state": "off"}),
        SemanticStatus::NotFetched { model, hub, failed } => {
            json!({"state": "not_fetched", "model": model, "hub": hub, "error": failed})
        }
        SemanticStatus::Fetching {
            model,
            hub,
            progress,
        } => json!({
            "state": "fetching", "model": model, "hub": hub,
            "file": progress.as_ref().map(|d| &d.file),
            "bytes_done": progress.as_ref().map(|d| d.done),
            "bytes_total": progress.as_ref().and_then(|d| d.total),
        }),
        SemanticStatus::Missing { model } => json!({"state": "missing", "model": model}),
        SemanticStatus::On {
            model,
            dimensions,
            notes_embedded,
            notes,
            quick_notes,
        } => json!({
            "state": "on", "model": model, "dimensions": dimensions,
            "notes_embedded": notes_embedded, "notes": notes,
            "quick_stage": {"notes_embedded": quick_notes, "notes": notes - notes_embedded},
        }),
        SemanticStatus::Broken { model, error } => {
            json!({"state": "broken", "model": model, "error": error})
        }
    }
}

/// `status --check`: files, graph and search compared.
pub fn health(health: &Health, format: Format) -> Output {
    Output::either(format, || health_text(health), || health_json(health))
}

/// `repair`: the drift found, and what is left after the repair.
pub fn repair(before: &Health, after: &Health, format: Format) -> Output {
    Output::either(
        format,
        || {
            format!(
                "before:\n{}after:\n{}",
                health_text(before),
                health_text(after)
            )
        },
        || json!({ "before": health_json(before), "after": health_json(after) }),
    )
}

fn health_json(health: &Health) -> Value {
    let projects: Vec<Value> = health
        .projects
        .iter()
        .map(|p| {
            json!({
                "project": p.project,
                "not_indexed": p.not_indexed,
                "changed": p.changed,
                "stale": p.stale,
                "not_searchable": p.not_searchable,
                "text_lost": p.text_lost,
                "pending_search": p.pending_search,
                "temp_files": p.temp_files,
                "interrupted_reindex": p.interrupted_reindex,
            })
        })
        .collect();
    json!({
        "projects": projects,
        "orphan_search_documents": health.orphan_search_documents,
    })
}

fn health_text(health: &Health) -> String {
    let mut out = String::new();
    for p in &health.projects {
        if p.is_clean() {
            out.push_str(&format!("  {}: consistent\n", p.project));
            continue;
        }
        out.push_str(&format!("  {}:\n", p.project));
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
                out.push_str(&format!(
                    "    {} {what}: {}{more}\n",
                    paths.len(),
                    shown.join(", ")
                ));
            }
        }
        if p.pending_search > 0 {
            out.push_str(&format!(
                "    {} notes waiting for search indexing\n",
                p.pending_search
            ));
        }
        if p.interrupted_reindex {
            out.push_str("    a reindex stopped half-way\n");
        }
    }
    if health.orphan_search_documents > 0 {
        out.push_str(&format!(
            "  {} search documents of notes that no longer exist\n",
            health.orphan_search_documents
        ));
    }
    out
}

/// `gitmem reindex`: each project's warnings on stderr, then its line; the model fetched (or
/// why not); the notes embedded.
pub fn reindexed(reindexed: &Reindexed) -> Output {
    let mut output = Output::default();
    for report in &reindexed.reports {
        for w in &report.warnings {
            let warning = if w.path.is_empty() {
                format!("warning: {}\n", w.message)
            } else {
                format!("warning: {}: {}\n", w.path, w.message)
            };
            output.push(Stream::Stderr, warning);
        }
        output.push(
            Stream::Stdout,
            format!(
                "{}: indexed {} files in {:.2} s ({} warnings)\n",
                report.project,
                report.scanned,
                report.runtime_ms as f64 / 1000.0,
                report.warnings.len()
            ),
        );
    }
    output.append(super::models::fetched(&reindexed.fetch));
    output.append(super::models::embedded(reindexed.embedded));
    output
}
