//! search_notes' `diversify`: Maximal Marginal Relevance over the fused ranking.

use serde_json::{json, Value};

use crate::{titles, Harness};

/// Five near-identical notes about the query, and one that answers it differently.
fn near_duplicates() -> Harness {
    let body = "The kafka consumer rebalance stalls when a consumer leaves the group; \
                we restarted the consumer and the rebalance finished.";
    let mut notes: Vec<(String, String)> = (1..=5)
        .map(|i| (format!("Kafka consumer rebalance {i}"), body.to_string()))
        .collect();
    notes.push((
        "Kafka consumer rebalance with static membership".to_string(),
        "Static group membership keeps partition assignments across restarts, so a \
         kafka consumer rebalance is skipped during rolling deploys of the service."
            .to_string(),
    ));
    let notes: Vec<(&str, &str)> = notes
        .iter()
        .map(|(t, b)| (t.as_str(), b.as_str()))
        .collect();
    Harness::with_notes(&notes)
}

#[test]
fn diversify_lets_a_distinct_note_past_near_duplicates_and_is_off_by_default() {
    let h = near_duplicates();
    let distinct = "Kafka consumer rebalance with static membership";
    let search = |extra: Value| {
        let mut args = json!({"query": "kafka consumer rebalance", "page_size": 6});
        for (k, v) in extra.as_object().unwrap() {
            args[k] = v.clone();
        }
        titles(&h.json("search_notes", args))
    };
    let plain = search(json!({}));
    assert_eq!(plain.len(), 6, "{plain:?}");
    assert!(
        !plain[..3].contains(&distinct.to_string()),
        "the distinct note ranks below the duplicates: {plain:?}"
    );
    assert_eq!(
        search(json!({"diversify": false})),
        plain,
        "off is the default"
    );
    let diverse = search(json!({"diversify": true}));
    assert!(
        diverse[..3].contains(&distinct.to_string()),
        "the distinct note enters the top three: {diverse:?}"
    );
    assert_eq!(diverse[0], plain[0], "the best note stays first");
    let mut same = diverse.clone();
    same.sort();
    let mut all = plain.clone();
    all.sort();
    assert_eq!(same, all, "the same notes, reordered");
    // Pages of a diversified search follow one order.
    let first = search(json!({"diversify": true, "page_size": 2}));
    let second = search(json!({"diversify": true, "page_size": 2, "page": 2}));
    assert_eq!([first, second].concat(), diverse[..4]);
}
