//! What a running server counts for `GET /metrics`: tool calls by class, conflicts, rate-limit
//! refusals, failed pushes, and how long tool calls and HTTP requests take. One `Metrics` per
//! `App`, fed where the events happen (the tool dispatcher, `/ingest`, the HTTP guard, the
//! pushes of `git::exchange` and `git::commits`); the gauges (index lag, embedding backlog)
//! are read when a report is asked for. Plain atomics: counting costs a call nothing it would
//! notice. `render::metrics` writes the report in Prometheus' text format.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::Duration;

/// Prometheus' default buckets, in seconds: from a cached read to a slow embedding search.
pub(crate) const BUCKETS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

/// What a tool call does, as its tool declares it (`mcp::tools::Hints`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CallClass {
    /// Changes notes, projects or settings.
    Write,
    /// Runs a query over the index.
    Search,
    /// Reads without a query.
    Read,
}

impl CallClass {
    pub const ALL: [CallClass; 3] = [CallClass::Write, CallClass::Search, CallClass::Read];
}

/// A refusal worth an operator's attention, counted apart from other failures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// `E_CONFLICT`: the memory exists already, or its file kept changing under the write.
    Conflict,
    /// `E_RATE_LIMIT`: over `[limits] max_total_daily`.
    RateLimit,
}

/// Observations in [`BUCKETS`]: each bucket counts only its own range, so a report, summing
/// them, always agrees with its count.
#[derive(Default)]
struct Histogram {
    /// One more than the buckets: the observations above the last bound.
    buckets: [AtomicU64; BUCKETS.len() + 1],
    sum_micros: AtomicU64,
}

impl Histogram {
    fn observe(&self, elapsed: Duration) {
        let seconds = elapsed.as_secs_f64();
        let bucket = BUCKETS
            .iter()
            .position(|&bound| seconds <= bound)
            .unwrap_or(BUCKETS.len());
        self.buckets[bucket].fetch_add(1, Ordering::Relaxed);
        let micros = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        self.sum_micros.fetch_add(micros, Ordering::Relaxed);
    }

    fn snapshot(&self) -> Timings {
        let mut cumulative = Vec::with_capacity(BUCKETS.len());
        let mut seen = 0;
        for (bound, bucket) in BUCKETS.iter().zip(&self.buckets) {
            seen += bucket.load(Ordering::Relaxed);
            cumulative.push((*bound, seen));
        }
        Timings {
            buckets: cumulative,
            count: seen + self.buckets[BUCKETS.len()].load(Ordering::Relaxed),
            sum_seconds: self.sum_micros.load(Ordering::Relaxed) as f64 / 1e6,
        }
    }
}

/// A histogram as read: cumulative counts per upper bound (the `+Inf` bucket is `count`).
#[derive(Debug, Clone, PartialEq)]
pub struct Timings {
    pub buckets: Vec<(f64, u64)>,
    pub count: u64,
    pub sum_seconds: f64,
}

/// The counters of one process.
#[derive(Default)]
pub struct Metrics {
    /// Per class (in [`CallClass::ALL`] order): calls answered, and those that were errors.
    calls: [(AtomicU64, AtomicU64); 3],
    conflicts: AtomicU64,
    rate_limited: AtomicU64,
    push_failures: AtomicU64,
    call_timings: [Histogram; 3],
    /// HTTP requests by route, as the transport names its routes.
    request_timings: Mutex<BTreeMap<&'static str, Histogram>>,
}

fn slot(class: CallClass) -> usize {
    match class {
        CallClass::Write => 0,
        CallClass::Search => 1,
        CallClass::Read => 2,
    }
}

impl Metrics {
    /// One answered tool call.
    pub fn tool_call(&self, class: CallClass, elapsed: Duration, failed: bool) {
        let (calls, errors) = &self.calls[slot(class)];
        calls.fetch_add(1, Ordering::Relaxed);
        if failed {
            errors.fetch_add(1, Ordering::Relaxed);
        }
        self.call_timings[slot(class)].observe(elapsed);
    }

    pub fn refused(&self, refusal: Refusal) {
        let counter = match refusal {
            Refusal::Conflict => &self.conflicts,
            Refusal::RateLimit => &self.rate_limited,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    /// A push that did not happen: the remote refused it or could not be reached, or the
    /// push gate held it.
    pub fn push_failed(&self) {
        self.push_failures.fetch_add(1, Ordering::Relaxed);
    }

    /// One HTTP request answered, on `route`.
    pub fn request(&self, route: &'static str, elapsed: Duration) {
        let mut timings = self
            .request_timings
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        timings.entry(route).or_default().observe(elapsed);
    }

    pub fn counts(&self) -> Counts {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        Counts {
            calls: CallClass::ALL
                .iter()
                .map(|&class| {
                    let (calls, errors) = &self.calls[slot(class)];
                    let timings = self.call_timings[slot(class)].snapshot();
                    CallCounts {
                        class,
                        calls: load(calls),
                        errors: load(errors),
                        timings,
                    }
                })
                .collect(),
            conflicts: load(&self.conflicts),
            rate_limited: load(&self.rate_limited),
            push_failures: load(&self.push_failures),
            requests: self
                .request_timings
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .iter()
                .map(|(route, histogram)| (*route, histogram.snapshot()))
                .collect(),
        }
    }
}

/// The tool calls of one class, as read.
#[derive(Debug, Clone, PartialEq)]
pub struct CallCounts {
    pub class: CallClass,
    pub calls: u64,
    /// The calls answered with an error result.
    pub errors: u64,
    pub timings: Timings,
}

/// The counters as read at one moment.
#[derive(Debug, Clone, PartialEq)]
pub struct Counts {
    /// One per class, in [`CallClass::ALL`] order.
    pub calls: Vec<CallCounts>,
    pub conflicts: u64,
    pub rate_limited: u64,
    pub push_failures: u64,
    /// Per HTTP route, in the order of their names.
    pub requests: Vec<(&'static str, Timings)>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_histogram_counts_each_duration_in_every_bucket_that_holds_it() {
        let histogram = Histogram::default();
        for millis in [1, 5, 7, 300, 20_000] {
            histogram.observe(Duration::from_millis(millis));
        }
        let timings = histogram.snapshot();
        let at = |bound: f64| {
            timings
                .buckets
                .iter()
                .find(|(b, _)| *b == bound)
                .map(|(_, n)| *n)
        };
        let cases = [(0.005, 2), (0.01, 3), (0.25, 3), (0.5, 4), (10.0, 4)];
        for (bound, expected) in cases {
            assert_eq!(at(bound), Some(expected), "le={bound}");
        }
        assert_eq!(timings.count, 5);
        assert!((timings.sum_seconds - 20.313).abs() < 1e-9, "{timings:?}");
    }

    #[test]
    fn calls_errors_and_refusals_are_counted_apart() {
        let metrics = Metrics::default();
        metrics.tool_call(CallClass::Write, Duration::from_millis(2), false);
        metrics.tool_call(CallClass::Write, Duration::from_millis(2), true);
        metrics.tool_call(CallClass::Search, Duration::from_millis(2), false);
        metrics.refused(Refusal::Conflict);
        metrics.refused(Refusal::RateLimit);
        metrics.refused(Refusal::RateLimit);
        metrics.push_failed();
        metrics.request("mcp", Duration::from_millis(3));
        let counts = metrics.counts();
        let calls: Vec<(CallClass, u64, u64)> = counts
            .calls
            .iter()
            .map(|c| (c.class, c.calls, c.errors))
            .collect();
        assert_eq!(
            calls,
            [
                (CallClass::Write, 2, 1),
                (CallClass::Search, 1, 0),
                (CallClass::Read, 0, 0)
            ]
        );
        assert_eq!(
            (counts.conflicts, counts.rate_limited, counts.push_failures),
            (1, 2, 1)
        );
        assert_eq!(counts.requests.len(), 1);
        assert_eq!(counts.requests[0].1.count, 1);
    }
}
