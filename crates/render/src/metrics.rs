//! `GET /metrics`: a [`MetricsReport`] in Prometheus' text exposition format (version 0.0.4):
//! every family with its `# HELP` and `# TYPE`, the `gitmem_` prefix, counters ending in
//! `_total`, durations in seconds.

use std::fmt::Write;

use engine::metrics::{CallClass, Timings};
use engine::status::MetricsReport;

/// The content type of the text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

fn class_name(class: CallClass) -> &'static str {
    match class {
        CallClass::Write => "write",
        CallClass::Search => "search",
        CallClass::Read => "read",
    }
}

/// The lines of one family: `HELP`, `TYPE`, then its samples.
struct Family<'a> {
    out: &'a mut String,
}

impl<'a> Family<'a> {
    fn new(out: &'a mut String, name: &str, kind: &str, help: &str) -> Self {
        // Writing to a String cannot fail.
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} {kind}");
        Family { out }
    }

    fn sample(&mut self, name: &str, labels: &[(&str, &str)], value: impl std::fmt::Display) {
        let _ = write!(self.out, "{name}");
        if !labels.is_empty() {
            let pairs: Vec<String> = labels
                .iter()
                .map(|(key, value)| format!("{key}=\"{}\"", escape(value)))
                .collect();
            let _ = write!(self.out, "{{{}}}", pairs.join(","));
        }
        let _ = writeln!(self.out, " {value}");
    }

    fn histogram(&mut self, name: &str, label: (&str, &str), timings: &Timings) {
        for (bound, count) in &timings.buckets {
            let bound = bound.to_string();
            self.sample(
                &format!("{name}_bucket"),
                &[label, ("le", bound.as_str())],
                count,
            );
        }
        self.sample(
            &format!("{name}_bucket"),
            &[label, ("le", "+Inf")],
            timings.count,
        );
        self.sample(&format!("{name}_sum"), &[label], timings.sum_seconds);
        self.sample(&format!("{name}_count"), &[label], timings.count);
    }
}

/// A label value with `\`, `"` and newlines escaped, as the format asks.
fn escape(value: &str) -> String {
    value
        .replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

pub fn prometheus(report: &MetricsReport) -> String {
    let mut out = String::new();
    let counts = &report.counts;
    let mut family = Family::new(
        &mut out,
        "gitmem_tool_calls_total",
        "counter",
        "Tool calls answered, by class: write (changes something), search (runs a query), read.",
    );
    for call in &counts.calls {
        family.sample(
            "gitmem_tool_calls_total",
            &[("class", class_name(call.class))],
            call.calls,
        );
    }
    let mut family = Family::new(
        &mut out,
        "gitmem_tool_errors_total",
        "counter",
        "Tool calls answered with an error result, by class.",
    );
    for call in &counts.calls {
        family.sample(
            "gitmem_tool_errors_total",
            &[("class", class_name(call.class))],
            call.errors,
        );
    }
    let singles: [(&str, &str, &str, u64); 6] = [
        (
            "gitmem_conflicts_total",
            "counter",
            "Writes refused with E_CONFLICT: the memory exists with other content, or its file kept changing.",
            counts.conflicts,
        ),
        (
            "gitmem_rate_limited_total",
            "counter",
            "Writes refused with E_RATE_LIMIT (429 on /ingest): over [limits] max_total_daily.",
            counts.rate_limited,
        ),
        (
            "gitmem_push_failures_total",
            "counter",
            "Pushes to a git remote that failed: refused, unreachable, or held by the secret gate.",
            counts.push_failures,
        ),
        (
            "gitmem_index_lag_commits",
            "gauge",
            "Graph commits of this server that search does not see yet.",
            report.index_lag_commits,
        ),
        (
            "gitmem_search_outbox_notes",
            "gauge",
            "Notes written to the graph and waiting for the search index.",
            report.search_outbox_notes,
        ),
        (
            "gitmem_embedding_backlog_notes",
            "gauge",
            "Notes waiting for the chosen model's vectors (0 when semantic search is off).",
            report.embedding_backlog_notes,
        ),
    ];
    for (name, kind, help, value) in singles {
        Family::new(&mut out, name, kind, help).sample(name, &[], value);
    }
    let name = "gitmem_tool_call_duration_seconds";
    let mut family = Family::new(
        &mut out,
        name,
        "histogram",
        "Time to answer a tool call, by class.",
    );
    for call in &counts.calls {
        family.histogram(name, ("class", class_name(call.class)), &call.timings);
    }
    let name = "gitmem_http_request_duration_seconds";
    let mut family = Family::new(
        &mut out,
        name,
        "histogram",
        "Time to answer an HTTP request, by route.",
    );
    for (route, timings) in &counts.requests {
        family.histogram(name, ("route", route), timings);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::time::Duration;

    use super::*;
    use engine::metrics::{Metrics, Refusal};

    fn report() -> MetricsReport {
        let metrics = Metrics::default();
        for (class, millis, failed) in [
            (CallClass::Write, 3, false),
            (CallClass::Write, 700, true),
            (CallClass::Search, 40, false),
        ] {
            metrics.tool_call(class, Duration::from_millis(millis), failed);
        }
        metrics.refused(Refusal::Conflict);
        metrics.push_failed();
        metrics.request("mcp", Duration::from_millis(12));
        metrics.request("ingest", Duration::from_secs(30));
        MetricsReport {
            counts: metrics.counts(),
            index_lag_commits: 2,
            search_outbox_notes: 5,
            embedding_backlog_notes: 7,
        }
    }

    /// Sample lines by name and labels, as written.
    fn samples(text: &str) -> BTreeMap<String, String> {
        text.lines()
            .filter(|l| !l.starts_with('#'))
            .map(|l| {
                let (key, value) = l.rsplit_once(' ').expect("a sample: name value");
                (key.to_string(), value.to_string())
            })
            .collect()
    }

    #[test]
    fn every_family_says_its_help_and_type_before_its_samples() {
        let text = prometheus(&report());
        let mut declared: Vec<(String, String)> = Vec::new();
        for line in text.lines() {
            if let Some(rest) = line.strip_prefix("# TYPE ") {
                let (name, kind) = rest.split_once(' ').unwrap();
                declared.push((name.to_string(), kind.to_string()));
                continue;
            }
            if let Some(rest) = line.strip_prefix("# HELP ") {
                assert!(rest.split_once(' ').is_some_and(|(_, h)| !h.is_empty()));
                continue;
            }
            let name = line.split(['{', ' ']).next().unwrap();
            let (family, kind) = declared.last().expect("a TYPE before any sample");
            let own = match kind.as_str() {
                "histogram" => ["_bucket", "_sum", "_count"]
                    .iter()
                    .any(|s| name.strip_suffix(s) == Some(family)),
                _ => name == family,
            };
            assert!(own, "{name} follows the TYPE of {family}");
        }
        for (name, kind) in &declared {
            assert!(name.starts_with("gitmem_"), "{name}");
            assert_eq!(name.ends_with("_total"), kind == "counter", "{name}");
            let help = format!("# HELP {name} ");
            assert!(text.contains(&help), "{name} has no HELP");
        }
        assert_eq!(declared.len(), 10, "{text}");
    }

    #[test]
    fn samples_carry_the_counts_and_gauges() {
        let samples = samples(&prometheus(&report()));
        let cases = [
            ("gitmem_tool_calls_total{class=\"write\"}", "2"),
            ("gitmem_tool_calls_total{class=\"search\"}", "1"),
            ("gitmem_tool_calls_total{class=\"read\"}", "0"),
            ("gitmem_tool_errors_total{class=\"write\"}", "1"),
            ("gitmem_conflicts_total", "1"),
            ("gitmem_rate_limited_total", "0"),
            ("gitmem_push_failures_total", "1"),
            ("gitmem_index_lag_commits", "2"),
            ("gitmem_search_outbox_notes", "5"),
            ("gitmem_embedding_backlog_notes", "7"),
            (
                "gitmem_tool_call_duration_seconds_count{class=\"write\"}",
                "2",
            ),
            (
                "gitmem_tool_call_duration_seconds_sum{class=\"write\"}",
                "0.703",
            ),
            (
                "gitmem_http_request_duration_seconds_bucket{route=\"ingest\",le=\"+Inf\"}",
                "1",
            ),
            (
                "gitmem_http_request_duration_seconds_bucket{route=\"ingest\",le=\"10\"}",
                "0",
            ),
        ];
        for (key, value) in cases {
            assert_eq!(samples.get(key).map(String::as_str), Some(value), "{key}");
        }
    }

    #[test]
    fn histogram_buckets_are_cumulative_and_end_with_inf_at_the_count() {
        let text = prometheus(&report());
        let series = [
            ("gitmem_tool_call_duration_seconds", "class=\"write\""),
            ("gitmem_tool_call_duration_seconds", "class=\"read\""),
            ("gitmem_http_request_duration_seconds", "route=\"mcp\""),
        ];
        for (name, label) in series {
            let prefix = format!("{name}_bucket{{{label},le=\"");
            let buckets: Vec<(String, u64)> = text
                .lines()
                .filter_map(|l| l.strip_prefix(&prefix))
                .map(|rest| {
                    let (bound, count) = rest.split_once("\"} ").unwrap();
                    (bound.to_string(), count.parse().unwrap())
                })
                .collect();
            assert_eq!(buckets.len(), 12, "{name} {label}");
            assert!(buckets.windows(2).all(|w| w[0].1 <= w[1].1), "{buckets:?}");
            let bounds: Vec<f64> = buckets[..11].iter().map(|b| b.0.parse().unwrap()).collect();
            assert!(bounds.windows(2).all(|w| w[0] < w[1]), "{bounds:?}");
            let (last, inf) = buckets.last().unwrap();
            assert_eq!(last, "+Inf");
            let count = samples(&text)[&format!("{name}_count{{{label}}}")].clone();
            assert_eq!(inf.to_string(), count, "{name} {label}");
        }
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(escape("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
