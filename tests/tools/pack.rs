//! Context packs (memory_context) and build_context's token budget: a pack gathers durable
//! facts, the task's search hits and recent activity, every line citing its note, and never
//! estimates above its budget; build_context sheds what does not fit and says so.

use mcp::tools::ToolReply;
use serde_json::{json, Value};

use crate::{Harness, ReplyExt};

/// A project with durable facts of every kind, one note of a session, and ordinary notes.
fn knowledge() -> Harness {
    let h = Harness::new().serving_tools("basic,gitmem");
    let meta = |m: Value| json!({ "metadata": m });
    h.write_with(
        "Release cadence",
        "decisions",
        "We cut releases on Fridays, after the freeze.",
        json!({"note_type": "decision"}),
    );
    h.write_with(
        "Editor theme",
        "prefs",
        "The user prefers dark mode everywhere.",
        json!({"note_type": "preference"}),
    );
    h.write_with(
        "Deploy keys",
        "ops",
        "Deploy keys rotate every quarter.",
        meta(json!({"pinned": true})),
    );
    h.write_with(
        "Coffee order",
        "misc",
        "A flat white, no sugar.",
        meta(json!({"score": 0.9})),
    );
    h.write_with(
        "Release checklist",
        "ops",
        "Tag the release, build the packages, announce the release on the list.",
        json!({}),
    );
    h.write_with(
        "Standup notes",
        "sessions",
        "Talked about the release freeze and the flaky test.",
        meta(json!({"session_id": "s-42"})),
    );
    h
}

/// The pack's structured content and text.
fn pack(h: &Harness, args: Value) -> (Value, String) {
    match h.call("memory_context", args).ok() {
        ToolReply::Linked(reply, _) => match *reply {
            ToolReply::Structured { text, content } => (content, text),
            other => panic!("a pack is structured: {other:?}"),
        },
        ToolReply::Structured { text, content } => (content, text),
        other => panic!("a pack is structured: {other:?}"),
    }
}

fn permalinks(section: &Value) -> Vec<String> {
    section
        .as_array()
        .map(|rows| {
            rows.iter()
                .map(|r| r["permalink"].as_str().unwrap().to_string())
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn a_pack_cites_every_line_and_puts_the_facts_that_match_the_task_first() {
    let h = knowledge();
    let (content, text) = pack(&h, json!({"task": "when do we cut a release"}));
    let facts = permalinks(&content["sections"]["facts"]);
    assert_eq!(facts[0], "main/decisions/release-cadence", "{content}");
    for durable in [
        "main/prefs/editor-theme",
        "main/ops/deploy-keys",
        "main/misc/coffee-order",
    ] {
        assert!(facts.contains(&durable.to_string()), "{durable}: {facts:?}");
    }
    let hits = permalinks(&content["sections"]["hits"]);
    assert!(
        hits.contains(&"main/ops/release-checklist".to_string()),
        "{hits:?}"
    );
    // A note is cited once, in the first section that has it.
    let recent = permalinks(&content["sections"]["recent"]);
    let all: Vec<&String> = facts.iter().chain(&hits).chain(&recent).collect();
    let unique: std::collections::HashSet<&&String> = all.iter().collect();
    assert_eq!(all.len(), unique.len(), "{all:?}");
    // Every line under a heading cites its note.
    for line in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        assert!(line.starts_with("- [main/"), "{line}");
    }
    assert!(text.starts_with("# Context for: when do we cut a release\n"));
    assert_eq!(content["truncated"], false, "{content}");
    assert_eq!(
        content["sections"]["facts"][0]["uri"],
        "memory://main/decisions/release-cadence"
    );
}

#[test]
fn a_pack_never_estimates_above_its_budget_and_cuts_whole_lines() {
    let h = knowledge();
    for budget in [40, 80, 150, 16_000, 100_000] {
        let (content, text) = pack(
            &h,
            json!({"task": "release freeze", "token_budget": budget}),
        );
        let capped = budget.min(16_000);
        assert_eq!(content["token_budget"], capped);
        let estimated = text.chars().count().div_ceil(4);
        assert!(estimated <= capped, "{estimated} > {capped}: {text}");
        assert!(content["tokens"].as_u64().unwrap() as usize <= capped);
        for line in text.lines().filter(|l| l.starts_with("- ")) {
            let cited = line.trim_start_matches("- [").split(']').next().unwrap();
            assert!(
                ["facts", "hits", "recent"]
                    .iter()
                    .any(|s| permalinks(&content["sections"][s]).contains(&cited.to_string())),
                "a cut line: {line}"
            );
        }
        if budget == 40 {
            assert_eq!(content["truncated"], true, "{content}");
        }
    }
}

#[test]
fn sessions_keep_only_their_notes_and_recent_activity_can_be_left_out() {
    let h = knowledge();
    let (content, _) = pack(
        &h,
        json!({"task": "release freeze", "sessions": ["s-42"], "include_recent": false}),
    );
    let cited: Vec<String> = ["facts", "hits", "recent"]
        .iter()
        .flat_map(|s| permalinks(&content["sections"][s]))
        .collect();
    assert_eq!(cited, ["main/sessions/standup-notes"], "{content}");
    assert!(content["sections"].get("recent").is_none(), "{content}");

    // search_notes filters by session the same way, one id or a list.
    for sessions in [json!("s-42"), json!(["s-41", "s-42"])] {
        let found = h.json(
            "search_notes",
            json!({"query": "release", "session_id": sessions}),
        );
        assert_eq!(crate::titles(&found), ["Standup notes"], "{found}");
    }
    let none = h.json(
        "search_notes",
        json!({"query": "release", "sessions": ["s-1"]}),
    );
    assert_eq!(crate::titles(&none), Vec::<String>::new(), "{none}");
}

#[test]
fn a_pack_refuses_an_empty_task_or_budget_with_its_code() {
    let h = knowledge();
    for (args, says) in [
        (
            json!({"task": "  "}),
            "task must say what the context is for",
        ),
        (
            json!({"task": "release", "token_budget": 0}),
            "token_budget must be >= 1, got 0",
        ),
        (json!({"task": "release", "budget": 10}), "budget"),
    ] {
        let reply = h.call("memory_context", args.clone());
        assert!(reply.is_error(), "{args}");
        assert!(reply.text().contains(says), "{args}: {}", reply.text());
        let ToolReply::Failed { content, .. } = reply else {
            panic!("a coded error: {args}")
        };
        assert_eq!(content["error"]["code"], "E_VALIDATION", "{args}");
    }
}

#[test]
fn build_context_sheds_to_its_token_budget_and_says_so() {
    let h = Harness::new();
    let long: String = (0..200)
        .map(|i| format!("Line {i} of the hub note, about releases.\n"))
        .collect();
    h.write("Hub", "graph", &format!("{long}\n- links_to [[Spoke]]\n"));
    h.write("Spoke", "graph", "A spoke note.\n- links_to [[Hub]]\n");
    let full = h.json("build_context", json!({"url": "memory://main/graph/hub"}));
    assert!(full["metadata"].get("truncated").is_none(), "{full}");

    let cut = h.json(
        "build_context",
        json!({"url": "memory://main/graph/hub", "token_budget": 600}),
    );
    assert!(cut.to_string().chars().count().div_ceil(4) <= 600, "{cut}");
    assert_eq!(cut["metadata"]["truncated"], true);
    assert_eq!(cut["metadata"]["token_budget"], 600);
    let content = cut["results"][0]["primary_result"]["content"]
        .as_str()
        .unwrap();
    assert!(
        content.trim_start().starts_with("Line 0 of the hub note"),
        "{content}"
    );
    assert!(
        content.is_empty() || content.ends_with('\n'),
        "cut at a line boundary: {content:?}"
    );

    let text = h.text(
        "build_context",
        json!({"url": "memory://main/graph/hub", "token_budget": 300, "output_format": "text"}),
    );
    assert!(text.chars().count().div_ceil(4) <= 300, "{text}");
    assert!(
        text.ends_with("*cut to the token budget of 300 tokens*"),
        "{text}"
    );
    let refused = h.call(
        "build_context",
        json!({"url": "memory://main/graph/hub", "token_budget": -1}),
    );
    assert!(refused.text().contains("token_budget must be >= 1, got -1"));
}
