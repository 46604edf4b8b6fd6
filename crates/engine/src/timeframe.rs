//! Timeframes of `build_context` / `recent_activity` and the `after_date` filter of
//! `search_notes` (compat 5.5 and 6.3).
//!
//! Upstream hands these strings to Python's `dateparser`. We implement a deterministic parser
//! for the documented forms instead:
//!
//! * keywords: `now`, `today`, `yesterday`, `tomorrow`;
//! * relative amounts: `7d`, `24h`, `30m` (minutes, as dateparser reads it), `2mo`, `1y`,
//!   `2 days`, `1 week ago`, `a week`, `an hour`, `two weeks ago`, `1 week 2 days ago`,
//!   `in 3 days`, `3 days from now`; months are 30 days and years 365 days;
//! * `last week` / `past month` / `previous year` (one unit back), `last 3 days`, `next week`;
//! * ISO dates and date-times: `2024-01-01`, `2024-01-01T10:30`, `2024-01-01 10:30:00.5+02:00`,
//!   `2024-01-01T10:30:00Z` (no zone means UTC; a date alone means 00:00 UTC);
//! * month-name dates: `January 1st`, `Jan 1`, `1 January`, `1st of Jan`, `January 1, 2024`,
//!   `March 3rd 2025`. Without a year the most recent such date that is not in the future is
//!   meant (dateparser is asked to prefer the past).
//!
//! Input is trimmed and case-insensitive.

use std::sync::LazyLock;

use chrono::{DateTime, Datelike, Duration, FixedOffset, NaiveDate, NaiveTime, Utc};
use regex::Regex;

/// Why a timeframe was refused. The messages are upstream's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TimeframeError {
    #[error("Could not parse timeframe: {0}")]
    Unparseable(String),
    #[error("Timeframe should be <= 1 year (got {0} days)")]
    TooLong(i64),
}

/// A validated timeframe: whole days of look-back, 1..=365 (compat 5.5).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timeframe {
    pub days: i64,
}

const SECONDS_PER_DAY: i64 = 86_400;
const MAXIMUM_DAYS: i64 = 365;

impl Timeframe {
    /// Parses relative to `now` (see the module documentation for the accepted forms).
    ///
    /// A parsed instant later than `now - 24h` becomes `now - 24h` (so `"1h"`, `"today"`,
    /// `"tomorrow"` and `"0d"` all mean one day); the look-back is rounded to whole days the
    /// way Python's `round` does (halves to even); more than 365 days is refused.
    pub fn parse(input: &str, now: DateTime<Utc>) -> Result<Timeframe, TimeframeError> {
        let unparseable = || TimeframeError::Unparseable(input.to_owned());
        let floor = now - Duration::days(1);
        let parsed = if input.trim().eq_ignore_ascii_case("today") {
            floor
        } else {
            resolve(input, now).ok_or_else(unparseable)?
        };
        let parsed = parsed.min(floor);
        let nanos = (now - parsed)
            .num_nanoseconds()
            .map(i128::from)
            .unwrap_or_else(|| i128::from((now - parsed).num_seconds()) * 1_000_000_000);
        let days = round_half_even(nanos, i128::from(SECONDS_PER_DAY) * 1_000_000_000);
        let days = i64::try_from(days).unwrap_or(i64::MAX);
        if days > MAXIMUM_DAYS {
            return Err(TimeframeError::TooLong(days));
        }
        Ok(Timeframe { days })
    }

    /// The start of the window: now - days.
    pub fn since(&self, now: DateTime<Utc>) -> DateTime<Utc> {
        now - Duration::days(self.days)
    }

    /// "7d" style text.
    pub fn label(&self) -> String {
        format!("{}d", self.days)
    }
}

/// search_notes `after_date`: the looser parser of compat 6.3 — same input forms, but no
/// minimum and no 1-year cap; returns the instant (e.g. "1 week" -> now - 7 days, "2d" -> now -
/// 2 days, "2024-01-01" -> that date at 00:00 UTC). `"today"` is `now`, as in dateparser.
pub fn parse_instant(input: &str, now: DateTime<Utc>) -> Result<DateTime<Utc>, TimeframeError> {
    resolve(input, now).ok_or_else(|| TimeframeError::Unparseable(input.to_owned()))
}

/// `n / d` rounded to the nearest integer, ties to even (Python's `round`). `d > 0`.
fn round_half_even(n: i128, d: i128) -> i128 {
    let q = n.div_euclid(d);
    let r = n.rem_euclid(d);
    match (2 * r).cmp(&d) {
        std::cmp::Ordering::Less => q,
        std::cmp::Ordering::Greater => q + 1,
        std::cmp::Ordering::Equal => q + (q & 1),
    }
}

/// Any accepted form, as an instant; `None` when nothing matches.
fn resolve(input: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let text = input.trim().to_lowercase();
    let text = collapse_whitespace(&text);
    if text.is_empty() {
        return None;
    }
    match text.as_str() {
        "now" | "just now" | "right now" | "today" => return Some(now),
        "yesterday" => return now.checked_sub_signed(Duration::days(1)),
        "tomorrow" => return now.checked_add_signed(Duration::days(1)),
        _ => {}
    }
    relative(&text, now)
        .or_else(|| iso(&text))
        .or_else(|| month_name_date(&text, now))
}

fn collapse_whitespace(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

// ---------------------------------------------------------------------------------------------
// Relative forms

/// One "<amount> <unit>" component at the start of the text, with its trailing separator.
static COMPONENT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(?:(\d+) ?|(an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve) )",
        r"(seconds|second|secs|sec|s|minutes|minute|mins|min|m|hours|hour|hrs|hr|h",
        r"|days|day|d|weeks|week|wks|wk|w|months|month|mos|mo|years|year|yrs|yr|y)\b",
        r"(?: ?, ?| and | )?",
    ))
    .unwrap()
});

fn word_number(word: &str) -> Option<i64> {
    Some(match word {
        "a" | "an" | "one" => 1,
        "two" => 2,
        "three" => 3,
        "four" => 4,
        "five" => 5,
        "six" => 6,
        "seven" => 7,
        "eight" => 8,
        "nine" => 9,
        "ten" => 10,
        "eleven" => 11,
        "twelve" => 12,
        _ => return None,
    })
}

/// Seconds in one unit (months are 30 days, years 365 days).
fn unit_seconds(unit: &str) -> Option<i64> {
    Some(match unit {
        "seconds" | "second" | "secs" | "sec" | "s" => 1,
        "minutes" | "minute" | "mins" | "min" | "m" => 60,
        "hours" | "hour" | "hrs" | "hr" | "h" => 3_600,
        "days" | "day" | "d" => SECONDS_PER_DAY,
        "weeks" | "week" | "wks" | "wk" | "w" => 7 * SECONDS_PER_DAY,
        "months" | "month" | "mos" | "mo" => 30 * SECONDS_PER_DAY,
        "years" | "year" | "yrs" | "yr" | "y" => 365 * SECONDS_PER_DAY,
        _ => return None,
    })
}

/// A sum of "<amount> <unit>" components, in seconds; `None` unless the whole text is that.
fn components_seconds(text: &str) -> Option<i64> {
    let mut rest = text;
    let mut total: i64 = 0;
    let mut count = 0;
    while !rest.is_empty() {
        let caps = COMPONENT.captures(rest)?;
        let amount = match (caps.get(1), caps.get(2)) {
            (Some(digits), _) => digits.as_str().parse::<i64>().ok()?,
            (None, Some(word)) => word_number(word.as_str())?,
            (None, None) => return None,
        };
        let seconds = amount.checked_mul(unit_seconds(&caps[3])?)?;
        total = total.checked_add(seconds)?;
        count += 1;
        rest = &rest[caps.get(0)?.end()..];
    }
    (count > 0).then_some(total)
}

/// `7d`, `2 days ago`, `in 3 days`, `3 days from now`, `last week`, `past 3 days`, `next month`.
fn relative(text: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let unprefixed = text.strip_prefix("the ").unwrap_or(text);
    let (future, body, one_unit_allowed) = if let Some(body) = text.strip_prefix("in ") {
        (true, body, false)
    } else if let Some(body) = text.strip_suffix(" from now") {
        (true, body, false)
    } else if let Some(body) = text.strip_suffix(" ago") {
        (false, body, false)
    } else if let Some(body) = unprefixed.strip_prefix("next ") {
        (true, body, true)
    } else if let Some(body) = ["last ", "past ", "previous "]
        .iter()
        .find_map(|p| unprefixed.strip_prefix(p))
    {
        (false, body, true)
    } else {
        (false, text, false)
    };
    // "last week": after last/past/previous/next, a bare unit word means one unit.
    let seconds = components_seconds(body).or_else(|| {
        if one_unit_allowed && body.len() > 2 {
            unit_seconds(body)
        } else {
            None
        }
    })?;
    let delta = Duration::try_seconds(seconds)?;
    if future {
        now.checked_add_signed(delta)
    } else {
        now.checked_sub_signed(delta)
    }
}

// ---------------------------------------------------------------------------------------------
// ISO dates and date-times

static ISO: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(concat!(
        r"^(\d{4})[-/](\d{1,2})[-/](\d{1,2})",
        r"(?:(?:t| )(\d{1,2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?",
        r" ?(z|utc|gmt|[+-]\d{2}(?::?\d{2})?)?)?$",
    ))
    .unwrap()
});

fn iso(text: &str) -> Option<DateTime<Utc>> {
    let caps = ISO.captures(text)?;
    let num = |i: usize| -> Option<u32> {
        caps.get(i)
            .map(|m| m.as_str().parse().ok())
            .unwrap_or(Some(0))
    };
    let year: i32 = caps[1].parse().ok()?;
    let date = NaiveDate::from_ymd_opt(year, num(2)?, num(3)?)?;
    let nanos = match caps.get(7) {
        Some(frac) => format!("{:0<9}", frac.as_str()).parse().ok()?,
        None => 0,
    };
    let time = NaiveTime::from_hms_nano_opt(num(4)?, num(5)?, num(6)?, nanos)?;
    let offset_seconds = match caps.get(8).map(|m| m.as_str()) {
        None | Some("z" | "utc" | "gmt") => 0,
        Some(zone) => {
            let sign = if zone.starts_with('-') { -1 } else { 1 };
            let digits: String = zone.chars().filter(char::is_ascii_digit).collect();
            let hours: i32 = digits[..2].parse().ok()?;
            let minutes: i32 = if digits.len() > 2 {
                digits[2..].parse().ok()?
            } else {
                0
            };
            if minutes > 59 {
                return None;
            }
            sign * (hours * 3_600 + minutes * 60)
        }
    };
    let offset = FixedOffset::east_opt(offset_seconds)?;
    let local = date.and_time(time).and_local_timezone(offset).single()?;
    Some(local.with_timezone(&Utc))
}

// ---------------------------------------------------------------------------------------------
// Month-name dates

static MONTH_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^([a-z]+)\.? (\d{1,2})(?:st|nd|rd|th)?(?: ?,? (\d{4}))?$").unwrap()
});

static DAY_FIRST: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"^(\d{1,2})(?:st|nd|rd|th)? (?:of )?([a-z]+)\.?(?: ?,? (\d{4}))?$").unwrap()
});

fn month_number(name: &str) -> Option<u32> {
    Some(match name {
        "january" | "jan" => 1,
        "february" | "feb" => 2,
        "march" | "mar" => 3,
        "april" | "apr" => 4,
        "may" => 5,
        "june" | "jun" => 6,
        "july" | "jul" => 7,
        "august" | "aug" => 8,
        "september" | "sept" | "sep" => 9,
        "october" | "oct" => 10,
        "november" | "nov" => 11,
        "december" | "dec" => 12,
        _ => return None,
    })
}

fn month_name_date(text: &str, now: DateTime<Utc>) -> Option<DateTime<Utc>> {
    let (month, day, year) = if let Some(caps) = MONTH_FIRST.captures(text) {
        (
            month_number(&caps[1])?,
            caps[2].parse::<u32>().ok()?,
            caps.get(3),
        )
    } else if let Some(caps) = DAY_FIRST.captures(text) {
        (
            month_number(&caps[2])?,
            caps[1].parse::<u32>().ok()?,
            caps.get(3),
        )
    } else {
        return None;
    };
    let midnight = |y: i32| -> Option<DateTime<Utc>> {
        Some(
            NaiveDate::from_ymd_opt(y, month, day)?
                .and_hms_opt(0, 0, 0)?
                .and_utc(),
        )
    };
    match year {
        Some(y) => midnight(y.as_str().parse().ok()?),
        None => {
            // The most recent such date not in the future (Feb 29 may need a few years back).
            // An impossible day (e.g. April 31) never matches.
            (0..=8)
                .filter_map(|back| midnight(now.year() - back))
                .find(|candidate| *candidate <= now)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    fn now() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 21, 12, 0, 0).unwrap()
    }

    fn at(y: i32, m: u32, d: u32, h: u32, min: u32, s: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(y, m, d, h, min, s).unwrap()
    }

    #[test]
    fn timeframes_in_days() {
        // 2026-01-01T00:00Z .. 2026-11-21T12:00Z is 324.5 days; Python's round() gives 324.
        // 2025-12-25T00:00Z .. now is 331.5 days -> 332 (ties to even).
        let cases: &[(&str, i64)] = &[
            // compat 5.5 examples
            ("7d", 7),
            ("24h", 1),
            ("1 week", 7),
            ("1 week ago", 7),
            ("last week", 7),
            ("yesterday", 1),
            ("2 days ago", 2),
            ("January 1st", 324),
            ("today", 1),
            ("TODAY", 1),
            ("1h", 1),
            ("tomorrow", 1),
            ("0d", 1),
            ("365d", 365),
            // further forms
            ("1d", 1),
            ("  7D  ", 7),
            ("30m", 1),
            ("36h", 2),
            ("35h", 1),
            ("2w", 14),
            ("2mo", 60),
            ("1y", 365),
            ("a week", 7),
            ("an hour", 1),
            ("an hour ago", 1),
            ("a day ago", 1),
            ("two weeks ago", 14),
            ("3 days", 3),
            ("1 day", 1),
            ("5 hours", 1),
            ("48 hours ago", 2),
            ("3 months ago", 90),
            ("1 month", 30),
            ("1 year ago", 365),
            ("1 week 2 days ago", 9),
            ("1 week and 2 days", 9),
            ("last month", 30),
            ("last year", 365),
            ("last day", 1),
            ("past 3 days", 3),
            ("the past week", 7),
            ("next week", 1),
            ("in 3 days", 1),
            ("3 days from now", 1),
            ("now", 1),
            ("Jan 1", 324),
            ("1 January", 324),
            ("1st of January", 324),
            ("January 1, 2026", 324),
            ("Jan. 1 2026", 324),
            ("March 3rd 2026", 264),
            ("December 25", 332),
            ("November 21", 1),
            ("November 20", 2),
            ("2026-11-01", 20),
            ("2026-11-20T12:00:00Z", 1),
            ("2026-11-14T12:00:00", 7),
            ("2026-11-14 14:00:00+02:00", 7),
            ("2026-11-14t12:00:00.250z", 7),
            ("2026-12-25", 1),
        ];
        for (input, days) in cases {
            assert_eq!(
                Timeframe::parse(input, now()),
                Ok(Timeframe { days: *days }),
                "input {input:?}"
            );
        }
    }

    #[test]
    fn timeframe_errors() {
        let too_long = [
            "2024-01-01",
            "366d",
            "2 years ago",
            "March 3rd 2025",
            "13 months",
        ];
        for input in too_long {
            let err = Timeframe::parse(input, now()).unwrap_err();
            assert!(
                matches!(err, TimeframeError::TooLong(d) if d > 365),
                "{input:?}: {err:?}"
            );
            assert!(err.to_string().contains("Timeframe should be <= 1 year"));
        }
        assert_eq!(
            Timeframe::parse("366d", now()),
            Err(TimeframeError::TooLong(366))
        );
        assert_eq!(
            Timeframe::parse("2 years ago", now()),
            Err(TimeframeError::TooLong(730))
        );
        let unparseable = [
            "garbage",
            "",
            "   ",
            "not-a-real-timeframe",
            "7x",
            "ad",
            "d",
            "week",
            "last",
            "last d",
            "-3d",
            "in 3 days ago",
            "Jan 32",
            "April 31",
            "Smarch 3",
            "2024-13-01",
            "2024-02-30",
            "2024-01-01T25:00",
            "99999999999999999999d",
            "9999999999999999 years",
        ];
        for input in unparseable {
            assert_eq!(
                Timeframe::parse(input, now()),
                Err(TimeframeError::Unparseable(input.to_owned())),
                "input {input:?}"
            );
        }
        assert_eq!(
            Timeframe::parse("garbage", now()).unwrap_err().to_string(),
            "Could not parse timeframe: garbage"
        );
        assert_eq!(
            Timeframe::parse("", now()).unwrap_err().to_string(),
            "Could not parse timeframe: "
        );
    }

    #[test]
    fn since_and_label() {
        let tf = Timeframe::parse("1 week ago", now()).unwrap();
        assert_eq!(tf.label(), "7d");
        assert_eq!(tf.since(now()), at(2026, 11, 14, 12, 0, 0));
        let today = Timeframe::parse("today", now()).unwrap();
        assert_eq!(today.label(), "1d");
        assert_eq!(today.since(now()), at(2026, 11, 20, 12, 0, 0));
        assert_eq!(Timeframe { days: 365 }.label(), "365d");
    }

    #[test]
    fn instants() {
        let cases: &[(&str, DateTime<Utc>)] = &[
            ("1 week", at(2026, 11, 14, 12, 0, 0)),
            ("2d", at(2026, 11, 19, 12, 0, 0)),
            ("2024-01-01", at(2024, 1, 1, 0, 0, 0)),
            ("1h", at(2026, 11, 21, 11, 0, 0)),
            ("30m", at(2026, 11, 21, 11, 30, 0)),
            ("0d", now()),
            ("today", now()),
            ("yesterday", at(2026, 11, 20, 12, 0, 0)),
            ("tomorrow", at(2026, 11, 22, 12, 0, 0)),
            ("2 years ago", at(2024, 11, 21, 12, 0, 0)),
            ("400d", now() - Duration::days(400)),
            ("January 1st", at(2026, 1, 1, 0, 0, 0)),
            ("Feb 29", at(2024, 2, 29, 0, 0, 0)),
            ("29 February 2028", at(2028, 2, 29, 0, 0, 0)),
            ("2024-01-01T10:30:00+02:00", at(2024, 1, 1, 8, 30, 0)),
            ("2024-01-01 10:30", at(2024, 1, 1, 10, 30, 0)),
            ("2024/01/01", at(2024, 1, 1, 0, 0, 0)),
        ];
        for (input, expected) in cases {
            assert_eq!(
                parse_instant(input, now()),
                Ok(*expected),
                "input {input:?}"
            );
        }
        assert_eq!(
            parse_instant("garbage", now()),
            Err(TimeframeError::Unparseable("garbage".to_owned()))
        );
        assert_eq!(
            parse_instant("", now()).unwrap_err().to_string(),
            "Could not parse timeframe: "
        );
    }

    #[test]
    fn rounding_is_half_even() {
        let day = i128::from(SECONDS_PER_DAY);
        assert_eq!(round_half_even(day / 2, day), 0);
        assert_eq!(round_half_even(3 * day / 2, day), 2);
        assert_eq!(round_half_even(5 * day / 2, day), 2);
        assert_eq!(round_half_even(5 * day / 2 + 1, day), 3);
        assert_eq!(round_half_even(day - 1, day), 1);
    }
}
