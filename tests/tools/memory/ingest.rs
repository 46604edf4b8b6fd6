//! `POST /ingest`'s workflow in process (`App::memory_ingest`, rendered as the 207 body): each
//! line judged on its own, the good ones written as one batch and one commit, retries answered
//! as done. The statuses, auth and limits a process shows are in `tests/http_ingest.rs`.

use engine::scope::ProjectChoice;
use render::memory::ingested;
use serde_json::{json, Value};

use crate::common::assert_mentions;
use crate::common::git::log;
use crate::{versioned, Harness, ReplyExt};

fn ingest(h: &Harness, body: &str) -> Value {
    let report = h
        .app()
        .memory_ingest(&ProjectChoice::named(None), body.as_bytes())
        .unwrap_or_else(|e| panic!("{e}"));
    ingested(&report)
}

/// (line, status) of each result.
fn statuses(answer: &Value) -> Vec<(u64, u64)> {
    answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["line"].as_u64().unwrap(), r["status"].as_u64().unwrap()))
        .collect()
}

#[test]
fn each_line_gets_its_outcome_and_the_good_ones_are_memories() {
    let h = Harness::new().serving_tools("basic,gitmem");
    h.value(
        "memory_save",
        json!({"id": "held", "content": "The staging database moved to eu-west-1"}),
    );
    h.value(
        "memory_save",
        json!({"id": "kept", "content": "The release train leaves at noon"}),
    );
    let body = [
        r#"{"id": "m1", "content": "Deploys happen on Tuesdays", "type": "fact", "tags": ["ops"], "score": 0.7}"#,
        "",
        r#"{"content": "The on-call rota changes every Monday", "source": {"agent": "importer"}}"#,
        "not json at all",
        r#"{"content": "x", "score": 3}"#,
        r#"{"id": "m1", "content": "Deploys happen on Tuesdays"}"#,
        r#"{"id": "held", "content": "The staging database moved to eu-west-1"}"#,
        r#"{"id": "kept", "content": "The release train leaves at one"}"#,
        r#"{"title": "no content"}"#,
    ]
    .join("\n");
    let answer = ingest(&h, &body);
    assert_eq!(
        statuses(&answer),
        [
            (1, 201),
            (3, 201),
            (4, 400),
            (5, 400),
            (6, 409),
            (7, 200),
            (8, 409),
            (9, 400)
        ],
        "{answer}"
    );
    assert_eq!(
        (&answer["created"], &answer["unchanged"], &answer["failed"]),
        (&json!(2), &json!(1), &json!(5))
    );
    let results = answer["results"].as_array().unwrap();
    let messages: Vec<&str> = results
        .iter()
        .filter_map(|r| r["error"]["message"].as_str())
        .collect();
    assert_eq!(
        messages,
        [
            "not valid JSON: expected ident at column 2",
            "score 3 is not a number from 0 to 1",
            "line 1 has the id 'm1' already; one body holds each memory once",
            "a memory with id 'kept' exists already; memory_update changes it",
            "content is missing",
        ]
    );
    assert_eq!(results[4]["error"]["code"], "E_CONFLICT");
    assert_eq!(results[2]["error"]["code"], "E_VALIDATION");
    assert_eq!(
        (&results[0]["id"], &results[0]["file_path"]),
        (
            &json!("m1"),
            &json!("memories/Deploys happen on Tuesdays.md")
        )
    );
    assert_eq!(results[5]["id"], "held");

    // What was written reads back through the memory API with every field the line held.
    let m1 = h.value("memory_get", json!({"id": "m1"}));
    assert_eq!(
        (
            &m1["type"],
            &m1["tags"],
            &m1["score"],
            &m1["version"],
            &m1["source"]["origin"]
        ),
        (
            &json!("fact"),
            &json!(["ops"]),
            &json!(0.7),
            &json!(1),
            &json!("ingest")
        )
    );
    assert!(m1["created_at"].is_string(), "{m1}");
    let rota_id = results[1]["id"].as_str().unwrap();
    let rota = h.value("memory_get", json!({"id": rota_id}));
    assert_eq!(rota["source"]["agent"], "importer");
    assert_eq!(rota["permalink"], results[1]["permalink"]);
    let found = h.text("search_notes", json!({"query": "on-call rota"}));
    assert_mentions(&found, "The on-call rota changes every Monday");
    let kept = h.value("memory_get", json!({"id": "kept"}));
    assert_mentions(kept["content"].as_str().unwrap(), "at noon");

    // The same body again writes nothing: what it created is there with the same content.
    let again = ingest(&h, &body);
    assert_eq!(
        (&again["created"], &again["unchanged"]),
        (&json!(0), &json!(3))
    );
    let memories = h.main_dir().join("memories").read_dir().unwrap().count();
    assert_eq!(memories, 4);
}

#[test]
fn a_batch_is_one_commit_and_titles_that_meet_get_their_own_files() {
    let h = versioned();
    let before = log(&h.main_dir()).len();
    let body = (1..=3)
        .map(|n| json!({"id": format!("same-{n}"), "title": "Standup", "content": format!("Standup note {n}")}).to_string())
        .collect::<Vec<_>>()
        .join("\n");
    let answer = ingest(&h, &body);
    let paths: Vec<&str> = answer["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["file_path"].as_str().unwrap())
        .collect();
    assert_eq!(
        paths,
        [
            "memories/Standup.md",
            "memories/Standup (same2).md",
            "memories/Standup (same3).md"
        ]
    );
    h.call("note_history", json!({"identifier": "memories/Standup.md"}))
        .ok();
    let log = log(&h.main_dir());
    assert_eq!(log.len(), before + 1, "{log:?}");
    assert_mentions(&log[0], "feat(mem): import 3 notes from POST /ingest");
}

#[test]
fn a_body_that_is_not_json_lines_is_refused_whole() {
    let h = Harness::new();
    for (body, why) in [
        (&b"\xff\xfe"[..], "not UTF-8"),
        (b"\n \n", "holds no record"),
        (b"hello\nworld", "no line of the body is JSON"),
    ] {
        let e = h
            .app()
            .memory_ingest(&ProjectChoice::named(None), body)
            .unwrap_err();
        assert!(e.is_user_error(), "{e}");
        assert_mentions(&e.to_string(), why);
    }
    assert!(!h.main_dir().join("memories").exists());
}

#[test]
fn limits_refuse_a_record_or_the_records_of_a_day() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("config.toml"),
        "[limits]\nmax_memory_size = 100\nmax_total_daily = 150\n",
    )
    .unwrap();
    let h = Harness::prepared(dir);
    let line = |c: char, n: usize| json!({"content": c.to_string().repeat(n)}).to_string();
    let answer = ingest(&h, &[line('a', 101), line('b', 100)].join("\n"));
    assert_eq!(statuses(&answer), [(1, 413), (2, 201)], "{answer}");
    assert_eq!(answer["results"][0]["error"]["code"], "E_VALIDATION");
    // 100 bytes written today; two more records of 40 would pass 150 together: neither is.
    let answer = ingest(&h, &[line('c', 40), line('d', 40)].join("\n"));
    assert_eq!(statuses(&answer), [(1, 429), (2, 429)], "{answer}");
    assert_eq!(answer["results"][1]["error"]["code"], "E_RATE_LIMIT");
    let memories = h.main_dir().join("memories").read_dir().unwrap().count();
    assert_eq!(memories, 1);
}
