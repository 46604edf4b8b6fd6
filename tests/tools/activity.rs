//! recent_activity's `group_by`: the same items, grouped by day, note type or session.

use std::fs;
use std::time::{Duration, SystemTime};

use serde_json::{json, Value};

use crate::Harness;

const DAY: u64 = 24 * 3600;

/// Yesterday's noon (UTC): notes saved around it fall on known dates at any time of day.
fn noon_yesterday() -> SystemTime {
    let now = chrono::Utc::now();
    let noon = (now.date_naive() - chrono::Days::new(1))
        .and_hms_opt(12, 0, 0)
        .unwrap()
        .and_utc();
    SystemTime::UNIX_EPOCH + Duration::from_secs(noon.timestamp() as u64)
}

/// Notes saved by another program: (file, front matter lines, seconds before yesterday noon).
fn timeline() -> Harness {
    let h = Harness::new();
    fs::create_dir_all(h.main_dir()).unwrap();
    let notes = [
        ("Standup", "type: meeting\nsession_id: s-1", 0),
        ("Retro", "type: meeting\nsession_id: s-2", 60),
        ("Design", "type: spec\nsource:\n  session: s-1", 2 * DAY),
        ("Loose", "type: spec", 3 * DAY),
    ];
    for (title, front, age) in notes {
        let path = h.main_dir().join(format!("{title}.md"));
        fs::write(
            &path,
            format!("---\ntitle: {title}\n{front}\n---\n\n# {title}\n"),
        )
        .unwrap();
        fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(noon_yesterday() - Duration::from_secs(age))
            .unwrap();
    }
    h.sync();
    h
}

/// The UTC date `days` before yesterday noon, as a day group's key.
fn date(days: u64) -> String {
    let when = noon_yesterday() - Duration::from_secs(days * DAY);
    chrono::DateTime::<chrono::Utc>::from(when)
        .format("%Y-%m-%d")
        .to_string()
}

/// Each group's key and its items' titles, in order.
fn groups(v: &Value) -> Vec<(String, Vec<String>)> {
    v["groups"]
        .as_array()
        .unwrap_or_else(|| panic!("groups in {v}"))
        .iter()
        .map(|g| {
            let titles: Vec<String> = g["items"]
                .as_array()
                .unwrap()
                .iter()
                .map(|i| i["title"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(g["count"], titles.len(), "{g}");
            (g["key"].as_str().unwrap().to_string(), titles)
        })
        .collect()
}

/// A group as the tests name it: its key and its items' titles.
type Group<'a> = (&'a str, &'a [&'a str]);

fn owned(rows: &[Group]) -> Vec<(String, Vec<String>)> {
    rows.iter()
        .map(|(k, t)| (k.to_string(), t.iter().map(|s| s.to_string()).collect()))
        .collect()
}

#[test]
fn recent_activity_groups_the_same_items_by_day_type_and_session() {
    let h = timeline();
    let (yesterday, three_days_ago, four_days_ago) = (date(0), date(2), date(3));
    // (group_by, groups newest first: key, titles newest first)
    #[rustfmt::skip]
    let rows: Vec<(&str, Vec<Group>)> = vec![
        ("day", vec![(&yesterday, &["Standup", "Retro"]), (&three_days_ago, &["Design"]), (&four_days_ago, &["Loose"])]),
        ("type", vec![("meeting", &["Standup", "Retro"]), ("spec", &["Design", "Loose"])]),
        // A memory's source.session counts as its session; a note with none is under "(none)".
        ("session", vec![("s-1", &["Standup", "Design"]), ("s-2", &["Retro"]), ("(none)", &["Loose"])]),
    ];
    for (by, expected) in rows {
        let v = h.json("recent_activity", json!({"group_by": by}));
        assert_eq!(v["group_by"], by);
        assert_eq!(v["has_more"], false);
        assert_eq!(groups(&v), owned(&expected), "group_by {by}");
    }
    // Without group_by the answer is the flat list it always was, in the same order.
    let flat = h.json("recent_activity", json!({}));
    let titles: Vec<&str> = flat
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["title"].as_str().unwrap())
        .collect();
    assert_eq!(titles, ["Standup", "Retro", "Design", "Loose"]);
}

#[test]
fn recent_activity_grouped_text_has_a_section_per_group_and_refuses_unknown_keys() {
    let h = timeline();
    let text = h.text("recent_activity", json!({"group_by": "type"}));
    assert!(
        text.starts_with(
            "## Recent Activity: main (7d) by type\n\n### meeting (2)\n  • Standup [id: "
        ),
        "{text}"
    );
    assert!(text.contains("\n### spec (2)\n  • Design [id: "), "{text}");
    assert!(
        text.ends_with("**Activity Summary:** 4 items in 2 groups."),
        "{text}"
    );
    let paged = h.text(
        "recent_activity",
        json!({"group_by": "day", "page_size": 2}),
    );
    assert!(
        paged.ends_with("**Activity Summary:** 2 items in 1 groups. Use page=2 to see more."),
        "{paged}"
    );
    // Grouping an empty answer says what the ungrouped answer says.
    let empty = h.text(
        "recent_activity",
        json!({"group_by": "day", "timeframe": "1d", "page": 5}),
    );
    assert!(
        empty.contains("No recent activity was found on page 5"),
        "{empty}"
    );
    let refused = h.call("recent_activity", json!({"group_by": "week"}));
    assert!(
        refused.is_error()
            && refused
                .text()
                .contains("Invalid group_by: week. Valid options: day, type, session"),
        "{}",
        refused.text()
    );
}
