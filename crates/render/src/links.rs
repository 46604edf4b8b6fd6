//! Linked folders as the link tools (link_folder, unlink_folder, list_links, sync external)
//! and the `gitmem` link commands show them: camelCase JSON (design 6), without the mappings.

use serde_json::{json, Value};

use super::{Format, Output, Stream};
use engine::links::ScanReport;
use engine::links::{effective_interval_ms, LinkRecord};

/// One link.
pub fn link(link: &LinkRecord) -> Value {
    json!({
        "project": link.project,
        "path": link.resolved_path,
        "displayPath": link.display_path,
        "resolvedPath": link.resolved_path,
        "linkId": link.id,
        "mount": link.mount,
        "include": link.include,
        "exclude": link.exclude,
        "watch": {
            "mode": link.watch.mode,
            "pollIntervalMs": link.watch.poll_interval_ms,
            "jitterPct": link.watch.jitter_pct,
            "effectivePollIntervalMs": effective_interval_ms(link.watch.poll_interval_ms, link.watch.jitter_pct, &link.id),
            "platform": link.watch.platform,
        },
        "createdAt": link.created_at,
        "lastScan": link.last_scan,
        "lastError": link.last_error,
        "fileCount": link.file_count,
        "totalBytes": link.total_bytes,
        "lastRuntimeMs": link.last_runtime_ms,
        "lastChanges": {
            "created": link.last_changes[0],
            "updated": link.last_changes[1],
            "deleted": link.last_changes[2],
            "moved": link.last_changes[3],
        },
        "status": link.status,
    })
}

/// One scan of a linked folder (its warnings are not part of it).
pub fn scan_report(report: &ScanReport) -> Value {
    json!({
        "project": report.project,
        "linkId": report.link_id,
        "path": report.path,
        "displayPath": report.display_path,
        "include": report.include,
        "exclude": report.exclude,
        "scanned": report.scanned,
        "created": report.created,
        "updated": report.updated,
        "deleted": report.deleted,
        "moved": report.moved,
        "totalBytes": report.total_bytes,
        "runtimeMs": report.runtime_ms,
        "lastError": report.last_error,
    })
}

/// A link just made or updated, with the report of its first scan.
pub fn linked(linked: &LinkRecord, report: &ScanReport) -> Value {
    let mut v = link(linked);
    v["report"] = scan_report(report);
    v
}

pub fn unlinked(removed: &[LinkRecord]) -> Value {
    json!({ "unlinked": removed.iter().map(link).collect::<Vec<_>>() })
}

pub fn links(all: &[LinkRecord]) -> Value {
    json!({ "links": all.iter().map(link).collect::<Vec<_>>() })
}

pub fn reports(reports: &[ScanReport]) -> Value {
    json!({ "reports": reports.iter().map(scan_report).collect::<Vec<_>>() })
}

/// `gitmem link-folder`: the link and its first scan.
pub fn link_folder(link: &LinkRecord, report: &ScanReport, format: Format) -> Output {
    if format == Format::Json {
        return Output::json(&linked(link, report));
    }
    let mut output = Output::out(link_text(link));
    output.append(scan_text(report));
    output
}

/// `gitmem unlink-folder`.
pub fn unlink_folder(removed: &[LinkRecord], format: Format) -> Output {
    Output::either(
        format,
        || {
            removed
                .iter()
                .map(|link| {
                    format!(
                        "unlinked {} from {} (its files are untouched)\n",
                        link.display_path, link.project
                    )
                })
                .collect()
        },
        || unlinked(removed),
    )
}

/// `gitmem list-links`.
pub fn list_links(all: &[LinkRecord], format: Format) -> Output {
    Output::listing(format, all, "no linked folders\n", link_text, || links(all))
}

/// `gitmem rescan-links`: a line per scan, each followed by its warnings on stderr.
pub fn rescan_links(scans: &[ScanReport], format: Format) -> Output {
    if format == Format::Json {
        return Output::json(&reports(scans));
    }
    let mut output = Output::default();
    for report in scans {
        output.append(scan_text(report));
    }
    output
}

fn link_text(link: &LinkRecord) -> String {
    let v = self::link(link);
    let [created, updated, deleted, moved] = link.last_changes;
    let mut out = format!(
        "{} -> {}/{}  [{}]  {}\n",
        link.display_path,
        link.project,
        link.mount,
        v["status"].as_str().unwrap_or(""),
        link.id
    );
    out.push_str(&format!(
        "  files: {}  bytes: {}  last scan: {} ({} ms)  watch: {} every {} ms\n",
        link.file_count,
        link.total_bytes,
        link.last_scan.as_deref().unwrap_or("never"),
        link.last_runtime_ms,
        v["watch"]["mode"].as_str().unwrap_or(""),
        v["watch"]["effectivePollIntervalMs"]
    ));
    out.push_str(&format!(
        "  last changes: {created} created, {updated} updated, {deleted} deleted, {moved} moved\n"
    ));
    if let Some(e) = &link.last_error {
        out.push_str(&format!("  last error: {e}\n"));
    }
    out
}

fn scan_text(r: &ScanReport) -> Output {
    let mut output = Output::out(format!(
        "{}: scanned {} files ({} bytes) in {} ms: {} created, {} updated, {} deleted, {} moved{}\n",
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
    ));
    for w in &r.warnings {
        output.push(
            Stream::Stderr,
            format!("warning: {}: {}\n", w.path, w.message),
        );
    }
    output
}
