//! The memory API's view of a note (the original gitmem specification): `id`, `version`,
//! `score`, `ttl`, `decay`, `created_at`, `updated_at`, `deleted_at`, `source` and
//! `compat.basic_id` in front matter.
//! A soft-deleted memory (`deleted_at`), an expired one (`created_at` + `ttl` in the past) and
//! a superseded note (`superseded_by`, written by a correction or a compaction) are hidden
//! from every search unless asked for. A decaying memory (`decay`, a half-life) loses
//! relevance with the time since it was last updated or used.

use chrono::{DateTime, Months, TimeDelta, Utc};
use serde_json::{Map, Value};

/// The front matter keys of a memory, in the order they are written (after `title`, `type`
/// and `permalink`); a note's other keys follow them.
pub const KEYS: &[&str] = &[
    "id",
    "version",
    "source",
    "tags",
    "score",
    "ttl",
    "decay",
    "created_at",
    "updated_at",
    "deleted_at",
    "compat",
];

/// `meta` with the memory keys first, in their order, then the rest as they were.
pub fn ordered(meta: Map<String, Value>) -> Map<String, Value> {
    let mut out = Map::new();
    for key in KEYS {
        if let Some(value) = meta.get(*key) {
            out.insert(key.to_string(), value.clone());
        }
    }
    for (key, value) in meta {
        if !KEYS.contains(&key.as_str()) {
            out.insert(key, value);
        }
    }
    out
}

/// A memory's version: 1 when written, one more with every update. A note the memory API
/// never wrote has none, and is at its first.
pub fn version(meta: &Map<String, Value>) -> u64 {
    meta.get("version")
        .and_then(Value::as_u64)
        .unwrap_or(1)
        .max(1)
}

/// The keys of a memory's `source`, in the specification's order.
pub const SOURCE_KEYS: [&str; 4] = ["agent", "session", "origin", "app"];

/// Where a memory comes from: the specification's `source {agent, session, origin, app}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemorySource {
    pub agent: Option<String>,
    pub session: Option<String>,
    pub origin: Option<String>,
    pub app: Option<String>,
}

/// A `source` that is neither a string nor an object of the source keys with string values.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SourceError {
    // Worded as serde words an unknown field, so that callers report it as they report theirs.
    #[error("unknown field `{0}`, expected one of `agent`, `session`, `origin`, `app`")]
    UnknownKey(String),
    #[error("source.{0} is not a string")]
    NotAString(String),
    #[error("source is not a string or an object of agent, session, origin, app")]
    Shape,
}

impl MemorySource {
    /// A source as callers, records and front matter give it: a string is its origin (what
    /// gitmem and its importers have always written), an object names its keys (null or
    /// blank ones are unset).
    pub fn parse(value: &Value) -> Result<MemorySource, SourceError> {
        let text = |v: &Value| {
            Some(v.as_str()?.trim())
                .filter(|s| !s.is_empty())
                .map(String::from)
        };
        match value {
            Value::String(_) => Ok(MemorySource {
                origin: text(value),
                ..Default::default()
            }),
            Value::Object(fields) => {
                let mut source = MemorySource::default();
                for (key, v) in fields {
                    let slot = match key.as_str() {
                        "agent" => &mut source.agent,
                        "session" => &mut source.session,
                        "origin" => &mut source.origin,
                        "app" => &mut source.app,
                        _ => return Err(SourceError::UnknownKey(key.clone())),
                    };
                    if !v.is_null() && !v.is_string() {
                        return Err(SourceError::NotAString(key.clone()));
                    }
                    *slot = text(v);
                }
                Ok(source)
            }
            _ => Err(SourceError::Shape),
        }
    }

    /// The source a note's front matter holds, if it holds one this reads.
    pub fn of(meta: &Map<String, Value>) -> Option<MemorySource> {
        MemorySource::parse(meta.get("source")?)
            .ok()
            .filter(|s| !s.is_empty())
    }

    pub fn is_empty(&self) -> bool {
        self.fields().iter().all(|(_, v)| v.is_none())
    }

    /// The keys in the specification's order, with their values.
    pub fn fields(&self) -> [(&'static str, &Option<String>); 4] {
        [
            ("agent", &self.agent),
            ("session", &self.session),
            ("origin", &self.origin),
            ("app", &self.app),
        ]
    }

    /// As front matter: an origin alone stays a plain string, as every earlier writer wrote
    /// it; otherwise a mapping of the keys set. `None` for an empty source.
    pub fn to_meta(&self) -> Option<Value> {
        let set: Map<String, Value> = self
            .fields()
            .into_iter()
            .filter_map(|(key, v)| Some((key.to_string(), Value::String(v.clone()?))))
            .collect();
        match (set.len(), &self.origin) {
            (0, _) => None,
            (1, Some(origin)) => Some(Value::String(origin.clone())),
            _ => Some(Value::Object(set)),
        }
    }
}

/// A memory's Basic Memory id (`compat.basic_id`, or `basic_id`).
pub fn basic_id(meta: &Map<String, Value>) -> Option<&str> {
    meta.get("compat")
        .and_then(|c| c.get("basic_id"))
        .or_else(|| meta.get("basic_id"))
        .and_then(Value::as_str)
}

/// A title for a memory without one: its first non-blank line (a heading's `#` dropped),
/// cut at a word boundary to at most 60 characters and marked `…` when cut. This is how the
/// memory API titles a memory saved without a title.
/// The longest title made from content.
const TITLE_CHARS: usize = 60;

pub fn title_from_content(content: &str) -> String {
    let first = content
        .lines()
        .map(|line| line.trim().trim_start_matches('#').trim())
        .find(|line| !line.is_empty())
        .unwrap_or("");
    let chars: Vec<char> = first.chars().collect();
    if chars.len() <= TITLE_CHARS {
        return first.to_string();
    }
    let end = if chars[TITLE_CHARS].is_whitespace() {
        TITLE_CHARS
    } else {
        // A boundary early in the line would leave a stub of a title: cut the word instead.
        chars[..TITLE_CHARS]
            .iter()
            .rposition(|c| c.is_whitespace())
            .filter(|&i| i > TITLE_CHARS / 2)
            .unwrap_or(TITLE_CHARS)
    };
    let title: String = chars[..end].iter().collect();
    format!("{}…", title.trim_end())
}

/// An ISO 8601 duration, `P[nY][nM][nW][nD][T[nH][nM][nS]]`, with whole-number parts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct IsoDuration {
    pub years: u32,
    pub months: u32,
    pub weeks: u32,
    pub days: u32,
    pub hours: u32,
    pub minutes: u32,
    pub seconds: u32,
}

impl IsoDuration {
    /// `t` plus this duration: years and months as calendar months (a month from January
    /// 31st is the last day of February), the rest as exact seconds. `None` past the end of
    /// chrono's calendar.
    pub fn add_to(&self, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let months = self.years.checked_mul(12)?.checked_add(self.months)?;
        t.checked_add_months(Months::new(months))?
            .checked_add_signed(TimeDelta::try_seconds(self.exact_seconds())?)
    }

    /// `t` less this duration, counted as [`IsoDuration::add_to`] counts it.
    pub fn subtract_from(&self, t: DateTime<Utc>) -> Option<DateTime<Utc>> {
        let months = self.years.checked_mul(12)?.checked_add(self.months)?;
        t.checked_sub_months(Months::new(months))?
            .checked_sub_signed(TimeDelta::try_seconds(self.exact_seconds())?)
    }

    fn exact_seconds(&self) -> i64 {
        i64::from(self.weeks) * 7 * 86_400
            + i64::from(self.days) * 86_400
            + i64::from(self.hours) * 3_600
            + i64::from(self.minutes) * 60
            + i64::from(self.seconds)
    }
}

/// Parses an ISO 8601 duration such as `P30D`, `PT12H` or `P1Y2M`; `None` when `text` is not
/// one (no part at all, parts out of order or repeated, fractions, a `T` with nothing after).
pub fn parse_duration(text: &str) -> Option<IsoDuration> {
    let rest = text.trim().strip_prefix(['P', 'p'])?;
    let (date, time) = match rest.split_once(['T', 't']) {
        Some((_, "")) => return None,
        Some((date, time)) => (date, time),
        None => (rest, ""),
    };
    let (date_parts, [years, months, weeks, days]) = read_parts(date, ['Y', 'M', 'W', 'D'])?;
    let (time_parts, [hours, minutes, seconds]) = read_parts(time, ['H', 'M', 'S'])?;
    (date_parts + time_parts > 0).then_some(IsoDuration {
        years,
        months,
        weeks,
        days,
        hours,
        minutes,
        seconds,
    })
}

/// Reads `<number><designator>` parts such as `1Y2M`, whose designators must come in the
/// order given: how many parts there were, and the number of each designator (0 without it).
fn read_parts<const N: usize>(mut text: &str, designators: [char; N]) -> Option<(usize, [u32; N])> {
    let mut numbers = [0; N];
    let mut next = 0;
    let mut parts = 0;
    while !text.is_empty() {
        let digits = text.find(|c: char| !c.is_ascii_digit())?;
        let designator = text[digits..].chars().next()?;
        let at = next
            + designators[next..]
                .iter()
                .position(|d| d.eq_ignore_ascii_case(&designator))?;
        numbers[at] = text[..digits].parse().ok()?;
        next = at + 1;
        parts += 1;
        text = &text[digits + designator.len_utf8()..];
    }
    Some((parts, numbers))
}

/// A front matter time: RFC 3339, or what the note parser accepts for `created`.
pub fn meta_time(meta: &Map<String, Value>, key: &str) -> Option<DateTime<Utc>> {
    let raw = meta.get(key)?.as_str()?;
    super::parse_timestamp(raw).map(|t| t.with_timezone(&Utc))
}

/// When a memory expires: `created_at` (else `created_ms`, the file's own time) plus `ttl`.
pub fn expires_at(meta: &Map<String, Value>, created_ms: i64) -> Option<DateTime<Utc>> {
    let ttl = parse_duration(meta.get("ttl")?.as_str()?)?;
    let created =
        meta_time(meta, "created_at").or_else(|| DateTime::from_timestamp_millis(created_ms))?;
    ttl.add_to(created)
}

/// Whether a memory was soft-deleted (`deleted_at` set).
pub fn is_deleted(meta: &Map<String, Value>) -> bool {
    meta.get("deleted_at")
        .is_some_and(|v| !v.is_null() && v.as_str() != Some(""))
}

/// Whether a memory is past its time to live at `now`.
pub fn is_expired(meta: &Map<String, Value>, created_ms: i64, now: DateTime<Utc>) -> bool {
    expires_at(meta, created_ms).is_some_and(|t| t <= now)
}

/// What a caller asked to see among the notes answers hide by default. Expired memories are
/// never shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Reveal {
    /// Soft-deleted memories (`include_deleted`).
    pub deleted: bool,
    /// Notes a correction or a compaction superseded (`include_superseded`).
    pub superseded: bool,
}

/// Whether answers hide this note at `now`: soft-deleted, past its time to live, or
/// superseded.
pub fn is_hidden(meta: &Map<String, Value>, created_ms: i64, now: DateTime<Utc>) -> bool {
    is_hidden_unless(meta, created_ms, now, Reveal::default())
}

/// `is_hidden`, showing what `reveal` asks for.
pub fn is_hidden_unless(
    meta: &Map<String, Value>,
    created_ms: i64,
    now: DateTime<Utc>,
    reveal: Reveal,
) -> bool {
    is_expired(meta, created_ms, now)
        || (!reveal.deleted && is_deleted(meta))
        || (!reveal.superseded && super::supersede::is_superseded(meta))
}

/// A memory's importance: its `score`, else 1.0 (an unscored memory counts in full; the
/// memory API's scores run from 0 to 1).
pub fn importance(meta: &Map<String, Value>) -> f64 {
    meta.get("score")
        .and_then(Value::as_f64)
        .map_or(1.0, |s| s.clamp(0.0, 1.0))
}

/// A decaying memory's half-life (`decay`, an ISO 8601 duration); `None` for a memory that
/// does not decay, or whose `decay` is no duration.
pub fn half_life(meta: &Map<String, Value>) -> Option<IsoDuration> {
    parse_duration(meta.get("decay")?.as_str()?)
}

/// `importance × 0.5^(age / half-life)`: a half-life after its last touch a memory counts half
/// as much. Nothing ages before it was touched, and a zero half-life forgets at once.
pub fn decayed(importance: f64, age_ms: i64, half_life_ms: i64) -> f64 {
    match (age_ms.max(0), half_life_ms) {
        (0, _) => importance,
        (_, h) if h <= 0 => 0.0,
        (age, h) => importance * 0.5f64.powf(age as f64 / h as f64),
    }
}

/// A decaying memory's relevance at `now`: its importance decayed over the time since it was
/// last touched, the later of its update (`updated_at`, else `updated_ms`, the file's time)
/// and its last use (`last_use_ms`, a read or a search that found it). `None` when the
/// memory does not decay.
pub fn relevance(
    meta: &Map<String, Value>,
    updated_ms: i64,
    last_use_ms: Option<i64>,
    now: DateTime<Utc>,
) -> Option<f64> {
    let half_life = half_life(meta)?;
    let updated = meta_time(meta, "updated_at").map_or(updated_ms, |t| t.timestamp_millis());
    let touched = updated.max(last_use_ms.unwrap_or(i64::MIN));
    let anchor = DateTime::from_timestamp_millis(touched)?;
    // Months are calendar months from the last touch, as a ttl counts them from creation.
    let half_life_ms = half_life
        .add_to(anchor)
        .map_or(i64::MAX, |end| (end - anchor).num_milliseconds());
    Some(decayed(
        importance(meta),
        now.timestamp_millis() - touched,
        half_life_ms,
    ))
}

/// Note types whose notes are durable facts: memory_context's first section, kept current
/// longest by the recency boost, never compacted.
pub const DURABLE_TYPES: [&str; 3] = ["decision", "preference", "fact"];

/// Whether a note of `note_type` is a durable fact.
pub fn is_durable(note_type: &str) -> bool {
    DURABLE_TYPES.contains(&super::permalink::normalize_note_type(note_type).as_str())
}

/// The half-life of the `recency` search boost for a note of `note_type`, in days: durable
/// kinds (decisions, preferences, facts) stay current for a year, the passing ones (sessions,
/// conversations, events, logs, tasks) for a week, everything else for a month.
pub fn recency_half_life_days(note_type: &str) -> f64 {
    if is_durable(note_type) {
        return 365.0;
    }
    match super::permalink::normalize_note_type(note_type).as_str() {
        "session" | "conversation" | "event" | "log" | "task" => 7.0,
        _ => 30.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn memory_keys_come_first_in_their_order() {
        let meta = json!({"custom": 1, "ttl": "P1D", "id": "x", "tags": ["a"]});
        let keys: Vec<String> = ordered(meta.as_object().unwrap().clone())
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["id", "tags", "ttl", "custom"]);
        let meta = json!({"version": 3, "id": "x"});
        let keys: Vec<String> = ordered(meta.as_object().unwrap().clone())
            .keys()
            .cloned()
            .collect();
        assert_eq!(keys, ["id", "version"]);
    }

    #[test]
    fn a_source_is_a_string_or_an_object_and_round_trips_through_front_matter() {
        let origin = |o: &str| MemorySource {
            origin: Some(o.into()),
            ..Default::default()
        };
        let full = MemorySource {
            agent: Some("claude".into()),
            session: Some("s-1".into()),
            origin: Some("chat".into()),
            app: Some("desktop".into()),
        };
        let cases = [
            (
                json!("memory_save"),
                Ok(origin("memory_save")),
                Some(json!("memory_save")),
            ),
            (
                json!({"origin": "chat"}),
                Ok(origin("chat")),
                Some(json!("chat")),
            ),
            (
                json!({"agent": "claude", "session": "s-1", "origin": "chat", "app": "desktop"}),
                Ok(full),
                Some(
                    json!({"agent": "claude", "session": "s-1", "origin": "chat", "app": "desktop"}),
                ),
            ),
            (
                json!({"agent": "a", "app": null}),
                Ok(MemorySource {
                    agent: Some("a".into()),
                    ..Default::default()
                }),
                Some(json!({"agent": "a"})),
            ),
            (json!({}), Ok(MemorySource::default()), None),
            (
                json!({"agnt": "a"}),
                Err(SourceError::UnknownKey("agnt".into())),
                None,
            ),
            (
                json!({"agent": 1}),
                Err(SourceError::NotAString("agent".into())),
                None,
            ),
            (json!(7), Err(SourceError::Shape), None),
        ];
        for (value, parsed, meta) in cases {
            let got = MemorySource::parse(&value);
            assert_eq!(got, parsed, "{value}");
            if let Ok(source) = got {
                assert_eq!(source.to_meta(), meta, "{value}");
                if let Some(meta) = meta {
                    assert_eq!(
                        MemorySource::parse(&meta),
                        Ok(source),
                        "{value} round-trips"
                    );
                }
            }
        }
    }

    #[test]
    fn a_memory_expires_its_ttl_after_it_was_created() {
        let meta = |v: Value| v.as_object().unwrap().clone();
        let now: DateTime<Utc> = "2026-03-10T00:00:00Z".parse().unwrap();
        let cases = [
            (
                json!({"ttl": "P7D", "created_at": "2026-03-01T00:00:00Z"}),
                true,
            ),
            (
                json!({"ttl": "P30D", "created_at": "2026-03-01T00:00:00Z"}),
                false,
            ),
            (
                json!({"ttl": "P1M", "created_at": "2026-02-09T00:00:00Z"}),
                true,
            ),
            (
                json!({"ttl": "not a duration", "created_at": "2026-01-01T00:00:00Z"}),
                false,
            ),
            (json!({"created_at": "2000-01-01T00:00:00Z"}), false),
            (json!({"deleted_at": "2026-03-02T00:00:00Z"}), true),
            (json!({"deleted_at": null}), false),
        ];
        for (fm, hidden) in cases {
            assert_eq!(is_hidden(&meta(fm.clone()), 0, now), hidden, "{fm}");
        }
        let file_time = DateTime::parse_from_rfc3339("2026-03-09T00:00:00Z").unwrap();
        let without_created_at = meta(json!({"ttl": "PT12H"}));
        assert!(is_hidden(
            &without_created_at,
            file_time.timestamp_millis(),
            now
        ));
    }

    #[test]
    fn a_superseded_note_is_hidden_unless_revealed() {
        let meta = |v: Value| v.as_object().unwrap().clone();
        let now: DateTime<Utc> = "2026-03-10T00:00:00Z".parse().unwrap();
        let both = Reveal {
            deleted: true,
            superseded: true,
        };
        let superseded = Reveal {
            superseded: true,
            ..Reveal::default()
        };
        // (front matter, hidden by default, hidden with superseded revealed, with both)
        let cases = [
            (json!({"superseded_by": "notes/new"}), true, false, false),
            (json!({"superseded_by": " "}), false, false, false),
            (json!({"superseded_by": null}), false, false, false),
            (json!({"supersedes": "notes/old"}), false, false, false),
            (
                json!({"superseded_by": "notes/new", "deleted_at": "2026-03-02T00:00:00Z"}),
                true,
                true,
                false,
            ),
            (
                json!({"superseded_by": "n", "ttl": "P1D", "created_at": "2026-01-01T00:00:00Z"}),
                true,
                true,
                true,
            ),
        ];
        for (fm, default, with_superseded, with_both) in cases {
            let m = meta(fm.clone());
            assert_eq!(is_hidden(&m, 0, now), default, "{fm}");
            assert_eq!(
                is_hidden_unless(&m, 0, now, superseded),
                with_superseded,
                "{fm}"
            );
            assert_eq!(is_hidden_unless(&m, 0, now, both), with_both, "{fm}");
        }
    }

    #[test]
    fn relevance_halves_every_half_life_since_the_last_touch() {
        let meta = |v: Value| v.as_object().unwrap().clone();
        let at = |s: &str| s.parse::<DateTime<Utc>>().unwrap().timestamp_millis();
        let now: DateTime<Utc> = "2026-03-31T00:00:00Z".parse().unwrap();
        let updated = json!("2026-03-01T00:00:00Z");
        let cases: [(&str, Value, Option<i64>, Option<f64>); 9] = [
            ("no decay", json!({"updated_at": updated}), None, None),
            (
                "one half-life, unscored",
                json!({"decay": "P30D", "updated_at": updated}),
                None,
                Some(0.5),
            ),
            (
                "two half-lives, scored",
                json!({"decay": "P15D", "score": 0.8, "updated_at": updated}),
                None,
                Some(0.2),
            ),
            (
                "used ten days ago",
                json!({"decay": "P10D", "updated_at": updated}),
                Some(at("2026-03-21T00:00:00Z")),
                Some(0.5),
            ),
            (
                "a use older than the update counts for nothing",
                json!({"decay": "P30D", "updated_at": updated}),
                Some(at("2026-01-01T00:00:00Z")),
                Some(0.5),
            ),
            (
                "touched in the future: no age",
                json!({"decay": "P1D", "updated_at": "2026-04-02T00:00:00Z"}),
                None,
                Some(1.0),
            ),
            (
                "a zero half-life forgets at once",
                json!({"decay": "P0D", "updated_at": updated}),
                None,
                Some(0.0),
            ),
            (
                "a calendar month from the last touch: March has 31 days",
                json!({"decay": "P1M", "updated_at": updated}),
                None,
                Some(0.5f64.powf(30.0 / 31.0)),
            ),
            (
                "not a duration",
                json!({"decay": "soon", "updated_at": updated}),
                None,
                None,
            ),
        ];
        for (what, fm, used, expected) in cases {
            let got = relevance(&meta(fm), 0, used, now);
            match (got, expected) {
                (Some(g), Some(e)) => assert!((g - e).abs() < 1e-9, "{what}: {g} != {e}"),
                (g, e) => assert_eq!(g, e, "{what}"),
            }
        }
        let file_time = at("2026-03-24T00:00:00Z");
        let without_updated_at = meta(json!({"decay": "P7D"}));
        let got = relevance(&without_updated_at, file_time, None, now).unwrap();
        assert!((got - 0.5).abs() < 1e-9, "the file's time stands in: {got}");
    }

    #[test]
    fn importance_is_the_score_else_whole() {
        let meta = |v: Value| v.as_object().unwrap().clone();
        let cases = [
            (json!({}), 1.0),
            (json!({"score": 0.3}), 0.3),
            (json!({"score": 7}), 1.0),
            (json!({"score": "high"}), 1.0),
        ];
        for (fm, expected) in cases {
            assert_eq!(importance(&meta(fm.clone())), expected, "{fm}");
        }
    }

    #[test]
    fn recency_half_lives_follow_the_kind_of_note() {
        let cases = [
            ("decision", 365.0),
            ("Preference", 365.0),
            ("fact", 365.0),
            ("session", 7.0),
            ("conversation", 7.0),
            ("memory", 30.0),
            ("note", 30.0),
        ];
        for (kind, days) in cases {
            assert_eq!(recency_half_life_days(kind), days, "{kind}");
        }
    }

    #[test]
    fn a_title_is_the_first_line_cut_at_a_word() {
        let words = "word ".repeat(20);
        let long_word = "x".repeat(70);
        let early_space = format!("ab {}", "y".repeat(70));
        let exact = format!("{} next", "z".repeat(60));
        let accented = "ünïcödé ".repeat(10);
        let cases = [
            (
                "Prefers dark mode\nin every editor",
                "Prefers dark mode".to_string(),
            ),
            ("\n\n## Heading first\nbody", "Heading first".into()),
            (
                words.as_str(),
                format!("{}…", "word ".repeat(12).trim_end()),
            ),
            (long_word.as_str(), format!("{}…", "x".repeat(60))),
            (early_space.as_str(), format!("ab {}…", "y".repeat(57))),
            (exact.as_str(), format!("{}…", "z".repeat(60))),
            (
                accented.as_str(),
                format!("{}…", "ünïcödé ".repeat(7).trim_end()),
            ),
        ];
        for (content, title) in cases {
            assert_eq!(title_from_content(content), title, "{content:?}");
        }
    }

    #[test]
    fn iso_durations_parse_as_the_standard_writes_them() {
        let d = |y, mo, w, d, h, mi, s| IsoDuration {
            years: y,
            months: mo,
            weeks: w,
            days: d,
            hours: h,
            minutes: mi,
            seconds: s,
        };
        let cases = [
            ("P30D", Some(d(0, 0, 0, 30, 0, 0, 0))),
            ("PT12H", Some(d(0, 0, 0, 0, 12, 0, 0))),
            ("P1Y2M", Some(d(1, 2, 0, 0, 0, 0, 0))),
            ("P2W", Some(d(0, 0, 2, 0, 0, 0, 0))),
            ("P1Y2M3W4DT5H6M7S", Some(d(1, 2, 3, 4, 5, 6, 7))),
            ("PT5M", Some(d(0, 0, 0, 0, 0, 5, 0))),
            ("P1M", Some(d(0, 1, 0, 0, 0, 0, 0))),
            ("p1dt1h", Some(d(0, 0, 0, 1, 1, 0, 0))),
            ("P0D", Some(d(0, 0, 0, 0, 0, 0, 0))),
            ("P", None),
            ("PT", None),
            ("P1DT", None),
            ("30D", None),
            ("P1H", None),
            ("PD", None),
            ("P1D1Y", None),
            ("P1D1D", None),
            ("P1.5D", None),
            ("P-1D", None),
            ("P1", None),
            ("P99999999999D", None),
            ("soon", None),
            ("", None),
        ];
        for (text, expected) in cases {
            assert_eq!(parse_duration(text), expected, "{text}");
        }
    }

    #[test]
    fn a_duration_adds_calendar_months_and_exact_seconds() {
        let at = |s: &str| s.parse::<DateTime<Utc>>().unwrap();
        let cases = [
            ("P30D", "2025-01-01T00:00:00Z", Some("2025-01-31T00:00:00Z")),
            ("P1M", "2025-01-31T10:00:00Z", Some("2025-02-28T10:00:00Z")),
            ("P1Y", "2024-02-29T00:00:00Z", Some("2025-02-28T00:00:00Z")),
            (
                "P1Y2M",
                "2025-01-15T00:00:00Z",
                Some("2026-03-15T00:00:00Z"),
            ),
            (
                "PT36H",
                "2025-03-30T00:00:00Z",
                Some("2025-03-31T12:00:00Z"),
            ),
            (
                "P1WT1S",
                "2025-01-01T00:00:00Z",
                Some("2025-01-08T00:00:01Z"),
            ),
            ("P4000000000Y", "2025-01-01T00:00:00Z", None),
            ("P300000Y", "2025-01-01T00:00:00Z", None),
        ];
        for (duration, start, end) in cases {
            let got = parse_duration(duration).unwrap().add_to(at(start));
            assert_eq!(got, end.map(at), "{duration} after {start}");
        }
        let back = [
            ("P30D", "2025-01-31T00:00:00Z", "2025-01-01T00:00:00Z"),
            ("P1M", "2025-03-31T10:00:00Z", "2025-02-28T10:00:00Z"),
            ("PT36H", "2025-03-31T12:00:00Z", "2025-03-30T00:00:00Z"),
        ];
        for (duration, end, start) in back {
            let got = parse_duration(duration).unwrap().subtract_from(at(end));
            assert_eq!(got, Some(at(start)), "{duration} before {end}");
        }
    }
}
