//! Chinese notes in simplified and traditional script: words found inside sentences (no
//! spaces), across the two scripts, and mixed with English.

use serde_json::json;

use crate::{titles, Harness};

fn chinese_notes() -> Harness {
    Harness::with_notes(&[
        // Simplified: "Weekly meeting minutes" / "This week's meeting discussed the database
        // migration plan, and everyone agreed to finish it next month."
        (
            "周会纪要",
            "本周的会议讨论了数据库迁移计划，大家同意下个月完成。",
        ),
        // Traditional: "Study notes" / "I study mathematics every evening and review the
        // exercises of the previous day."
        ("讀書筆記", "我每天晚上學習數學，並且複習前一天的練習。"),
        // Mixed: "Deploy checklist" / "Check the Kubernetes cluster before deploying; the
        // monitoring alerts go to the on-call engineer."
        (
            "部署清单",
            "部署前检查 Kubernetes 集群，监控告警发送给值班工程师。",
        ),
        ("Gardening", "Tomatoes need sun and water every day."),
    ])
}

#[test]
fn chinese_words_are_found_inside_sentences_in_either_script_and_mixed_with_english() {
    let h = chinese_notes();
    // (query, what it tests, the note found first)
    #[rustfmt::skip]
    let rows: [(&str, &str, &str); 10] = [
        ("会议", "a simplified word inside a sentence", "周会纪要"),
        ("数据库", "a three-character simplified word", "周会纪要"),
        ("迁移计划", "two words run together", "周会纪要"),
        ("学习", "a traditional note asked in simplified", "讀書筆記"),
        ("學習", "a traditional word inside a sentence", "讀書筆記"),
        ("數學", "another traditional word", "讀書筆記"),
        ("會議", "a simplified note asked in traditional", "周会纪要"),
        ("Kubernetes 集群", "mixed Chinese and English", "部署清单"),
        ("监控 alerts", "a Chinese word and an English word not in the note", "部署清单"),
        ("kubernetes", "an English word in a Chinese sentence", "部署清单"),
    ];
    for (query, what, note) in rows {
        let found = titles(&h.json("search_notes", json!({"query": query})));
        assert_eq!(
            found.first().map(String::as_str),
            Some(note),
            "{what}: {query} → {found:?}"
        );
    }
    // A word the notes do not hold finds none of them, in either script.
    for query in ["图书馆", "圖書館"] {
        let found = titles(&h.json("search_notes", json!({"query": query})));
        assert!(found.is_empty(), "{query} → {found:?}");
    }
}

#[test]
fn a_chinese_title_is_found_by_its_words() {
    let h = chinese_notes();
    for (query, note) in [
        ("纪要", "周会纪要"),
        ("筆記", "讀書筆記"),
        ("清单", "部署清单"),
    ] {
        let found = titles(&h.json("search_notes", json!({"query": query})));
        assert_eq!(
            found.first().map(String::as_str),
            Some(note),
            "{query} → {found:?}"
        );
    }
}
