//! search_notes: queries, filters, boolean operators, search types, paging, projects; and how
//! observations and relations of a note become searchable rows.

mod chinese;
mod diversity;
mod parts;
mod rerank;

use std::collections::BTreeSet;

use serde_json::{json, Value};

use crate::{titles, total, write_test_note, Harness, ReplyExt};

fn sorted(mut v: Vec<String>) -> Vec<String> {
    v.sort();
    v
}

/// Compat 13, item 12.
#[test]
fn search_notes_answers_in_text_and_json_and_filters_by_permalink_and_tag() {
    let h = Harness::new();
    write_test_note(&h);

    let text = h.text("search_notes", json!({"query": "search"}));
    assert!(
        text.starts_with("No results found for 'search' in project 'main'"),
        "{text}"
    );
    let text = h.text("search_notes", json!({"query": "test"}));
    assert!(
        text.starts_with("# Search Results: test\n*project: main*"),
        "{text}"
    );
    let json = h
        .call(
            "search_notes",
            json!({"query": "test", "output_format": "json"}),
        )
        .ok()
        .json();
    let first = &json["results"][0];
    assert_eq!(first["type"], "entity");
    assert!(first["score"].as_f64().unwrap() <= 0.0);
    assert_eq!(first["permalink"], "main/test/test-note");
    assert_eq!(first["file_path"], "test/Test Note.md");
    assert!(first["external_id"].is_string());
    assert_eq!(json["total_is_exact"], true);
    assert!(h
        .text("search_notes", json!({}))
        .starts_with("# No Search Criteria"));
    let by_permalink = h
        .call(
            "search_notes",
            json!({"query": "main/test/*", "search_type": "permalink", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(by_permalink["total"], 1);
    // gitmem also accepts the pattern without the project prefix (upstream finds nothing).
    let short = h
        .call(
            "search_notes",
            json!({"query": "test/*", "search_type": "permalink", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(short["total"], 1);
    let tagged = h
        .call(
            "search_notes",
            json!({"tags": "test", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(tagged["total"], 1);
    let failed = h.text(
        "search_notes",
        json!({"query": "x", "search_type": "bogus"}),
    );
    assert!(
        failed.starts_with("# Search Failed")
            && failed.contains("Valid options: hybrid, permalink, semantic, text, title, vector"),
        "{failed}"
    );
}

#[test]
fn search_notes_supports_filters_boolean_queries_and_pagination() {
    let h = Harness::new();
    h.write_with(
        "Fruit One",
        "fruit",
        "apple banana",
        json!({"tags": ["sweet", "yellow"], "metadata": {"status": "active", "priority": 3}}),
    );
    h.write_with(
        "Fruit Two",
        "fruit",
        "apple cherry",
        json!({"tags": ["sweet"], "metadata": {"status": "draft", "priority": 1}}),
    );
    h.write_with(
        "Fruit Three",
        "fruit",
        "banana cherry",
        json!({"tags": ["sour"], "metadata": {"status": "archived", "priority": 5}}),
    );
    h.write_with(
        "Alice",
        "people",
        "Alice grows kiwi\n\n- [hobby] Gardening on weekends\n- [role] Farmer",
        json!({"note_type": "person"}),
    );

    let search = |args: Value| h.json("search_notes", args);
    // (arguments, titles found, in any order)
    #[rustfmt::skip]
    let rows: Vec<(Value, &[&str])> = vec![
        (json!({"query": "tag:yellow"}), &["Fruit One"]),
        (json!({"query": "tag:sweet"}), &["Fruit One", "Fruit Two"]),
        (json!({"query": "tag:sweet apple"}), &["Fruit One", "Fruit Two"]),
        (json!({"query": "tag:sweet AND tag:yellow"}), &["Fruit One"]),
        (json!({"tags": ["sweet", "yellow"]}), &["Fruit One"]),
        (json!({"query": "apple AND banana"}), &["Fruit One"]),
        (json!({"query": "apple OR banana"}), &["Fruit One", "Fruit Two", "Fruit Three"]),
        (json!({"query": "apple NOT banana"}), &["Fruit Two"]),
        (json!({"query": "Fruit", "search_type": "title"}), &["Fruit One", "Fruit Two", "Fruit Three"]),
        (json!({"query": "cherry", "search_type": "title"}), &[]),
        (json!({"query": "main/fruit/*", "search_type": "permalink"}), &["Fruit One", "Fruit Two", "Fruit Three"]),
        (json!({"query": "main/fruit/fruit-t*", "search_type": "permalink"}), &["Fruit Two", "Fruit Three"]),
        (json!({"query": "main/fruit/fruit-one", "search_type": "permalink"}), &["Fruit One"]),
        (json!({"note_types": ["Person"]}), &["Alice"]),
        (json!({"note_types": ["note"], "query": "apple"}), &["Fruit One", "Fruit Two"]),
        (json!({"after_date": "2000-01-01", "query": "cherry"}), &["Fruit Two", "Fruit Three"]),
        (json!({"after_date": "tomorrow", "query": "cherry"}), &[]),
        (json!({"metadata_filters": {"priority": {"$gt": 2}}}), &["Fruit One", "Fruit Three"]),
        (json!({"metadata_filters": {"status": {"$in": ["active", "draft"]}}}), &["Fruit One", "Fruit Two"]),
        (json!({"metadata_filters": {"priority": {"$between": [1, 3]}}}), &["Fruit One", "Fruit Two"]),
        (json!({"metadata_filters": {"status": "archived"}}), &["Fruit Three"]),
        (json!({"status": "draft"}), &["Fruit Two"]),
        (json!({"status": "draft", "query": "banana"}), &[]),
    ];
    for (args, expected) in rows {
        let found = search(args.clone());
        let want: Vec<String> = expected.iter().map(|s| s.to_string()).collect();
        assert_eq!(sorted(titles(&found)), sorted(want), "{args}: {found}");
    }

    // Categories select observations.
    let hobbies = search(json!({"categories": ["hobby"]}));
    assert_eq!(hobbies["results"].as_array().unwrap().len(), 1, "{hobbies}");
    assert_eq!(hobbies["results"][0]["type"], "observation");
    assert_eq!(hobbies["results"][0]["category"], "hobby");
    assert_eq!(hobbies["results"][0]["content"], "Gardening on weekends");

    // Semantic search types answer with a text search and say so.
    for kind in ["vector", "hybrid", "semantic"] {
        let r = h.call(
            "search_notes",
            json!({"query": "kiwi", "search_type": kind}),
        );
        assert!(!r.is_error(), "{kind}: {}", r.text());
        assert!(
            r.text().contains("# Search Results: kiwi"),
            "{kind}: {}",
            r.text()
        );
        assert!(r.text().contains("text search"), "{kind}: {}", r.text());
        let j = search(json!({"query": "kiwi", "search_type": kind}));
        assert_eq!(titles(&j), ["Alice"], "{kind}");
    }

    // Pagination.
    let page1 = search(json!({"query": "fruit", "page_size": 2}));
    assert_eq!(page1["results"].as_array().unwrap().len(), 2);
    assert_eq!(
        (page1["total"].clone(), page1["has_more"].clone()),
        (json!(3), json!(true)),
        "{page1}"
    );
    let page2 = search(json!({"query": "fruit", "page_size": 2, "page": 2}));
    assert_eq!(page2["results"].as_array().unwrap().len(), 1);
    assert_eq!(page2["has_more"], false);
    let mut all = titles(&page1);
    all.extend(titles(&page2));
    assert_eq!(sorted(all), ["Fruit One", "Fruit Three", "Fruit Two"]);
    let text = h.text("search_notes", json!({"query": "fruit", "page_size": 2}));
    assert!(
        text.ends_with("*2 results | page 1, page_size 2 | more available*"),
        "{text}"
    );

    // search_all_projects spans projects.
    let elsewhere = tempfile::tempdir().unwrap();
    h.text(
        "create_memory_project",
        json!({"project_name": "orchard", "project_path": elsewhere.path().to_str().unwrap()}),
    );
    h.write_with(
        "Orchard Apple",
        "o",
        "apple trees",
        json!({"project": "orchard"}),
    );
    let here = search(json!({"query": "apple"}));
    assert_eq!(total(&here), 2, "{here}");
    let everywhere = search(json!({"query": "apple", "search_all_projects": true}));
    assert_eq!(total(&everywhere), 3, "{everywhere}");
    let projects: BTreeSet<&str> = everywhere["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["project"].as_str().unwrap())
        .collect();
    assert_eq!(projects, BTreeSet::from(["main", "orchard"]));
    let all_text = h.text(
        "search_notes",
        json!({"query": "apple", "search_all_projects": true}),
    );
    assert!(all_text.contains("*project: all projects*"), "{all_text}");
    let only_orchard = search(json!({"query": "apple", "project": "orchard"}));
    assert_eq!(titles(&only_orchard), ["Orchard Apple"]);
}

/// `total` counts the notes the rankings found, so a page never promises what no page holds:
/// a word that matches only by a typo in a body, which no ranking reads, counts nothing.
/// Past the rankings' window (the best 100) it is a lower bound, and says so.
#[test]
fn total_counts_the_notes_found_and_says_when_it_is_a_lower_bound() {
    let h = Harness::new();
    h.write("One", "zoo", "the zanzibar quokka");
    for i in 2..=6 {
        h.write(
            &format!("N{i}"),
            "zoo",
            &format!("a quokka lives here, {i}"),
        );
    }
    let search = |args: Value| h.json("search_notes", args);
    let both = search(json!({"query": "zanzibar quokka"}));
    assert_eq!(titles(&both).len(), 6, "{both}");
    assert_eq!(
        (total(&both), &both["total_is_exact"], &both["has_more"]),
        (6, &json!(true), &json!(false)),
        "every note holding either word, the rare one first: {both}"
    );
    let paged = search(json!({"query": "zanzibar quokka", "page_size": 2}));
    assert_eq!((total(&paged), &paged["has_more"]), (6, &json!(true)));
    let typo = search(json!({"query": "zanzibr"}));
    assert_eq!(
        (total(&typo), &typo["has_more"]),
        (0, &json!(false)),
        "{typo}"
    );

    for i in 0..105 {
        h.write(&format!("Day {i}"), "log", "wombat tracks by the creek");
    }
    let first = search(json!({"query": "wombat"}));
    assert_eq!(first["total_is_exact"], false, "{first}");
    assert!(total(&first) > 100, "{first}");
    assert_eq!(first["has_more"], true);
    let everywhere = search(json!({"query": "wombat", "search_all_projects": true}));
    assert_eq!(
        everywhere["total_is_exact"], false,
        "a project's lower bound keeps the sum one: {everywhere}"
    );
    let last = search(json!({"query": "wombat", "page": 11}));
    assert_eq!(titles(&last).len(), 5, "{last}");
    assert_eq!(
        (total(&last), &last["total_is_exact"], &last["has_more"]),
        (105, &json!(true), &json!(false)),
        "a window past every match holds them all: {last}"
    );
}

#[test]
fn boolean_query_pages_are_consistent() {
    let h = Harness::new();
    h.write("Fruit One", "fruit", "apple banana");
    h.write("Fruit Two", "fruit", "apple cherry");
    h.write("Fruit Three", "fruit", "banana cherry");
    let all = h.json("search_notes", json!({"query": "apple OR banana"}));
    assert_eq!(
        sorted(titles(&all)),
        ["Fruit One", "Fruit Three", "Fruit Two"]
    );
    for page_size in [1, 2] {
        let mut paged = Vec::new();
        for page in 1..=3 {
            let v = h.json(
                "search_notes",
                json!({"query": "apple OR banana", "page": page, "page_size": page_size}),
            );
            paged.extend(titles(&v));
        }
        assert_eq!(
            sorted(paged),
            ["Fruit One", "Fruit Three", "Fruit Two"],
            "page_size {page_size}: every note once"
        );
    }
    // A note's score does not depend on the page size asked for.
    let one = h.json(
        "search_notes",
        json!({"query": "apple OR banana", "page_size": 1}),
    );
    assert_eq!(one["results"][0]["title"], all["results"][0]["title"]);
    assert_eq!(one["results"][0]["score"], all["results"][0]["score"]);
}

/// Compat 13, items 6 and 7.
#[test]
fn bullets_become_observations_and_relations_that_search_finds() {
    let h = Harness::new();
    let body = "- [tech] Uses SQLite FTS5 #search #db (fast enough)\n- plain bullet with #tag\n- [x] done task\n- [00:00:11] Speaker: hi\n\n> [!info] callout\n\n- implements [[Search UI]]\n- depends_on [[DB Schema]] (storage)\n- \"based on\" [[Prior Art]]\n- Added [[A]] to [[B]]\n\nSee also [[C]].";
    h.text(
        "write_note",
        json!({"title": "Parsing", "directory": "p", "content": body}),
    );
    let ctx = h
        .call(
            "build_context",
            json!({"url": "memory://p/parsing", "output_format": "json"}),
        )
        .ok()
        .json();
    let obs: Vec<(String, String)> = ctx["results"][0]["observations"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| {
            (
                o["category"].as_str().unwrap().to_string(),
                o["content"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        obs,
        vec![
            ("tech".into(), "Uses SQLite FTS5 #search #db".into()),
            ("note".into(), "plain bullet with #tag".into())
        ]
    );
    let rows = h
        .call(
            "search_notes",
            json!({"query": "SQLite", "entity_types": ["observation"], "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(
        rows["results"][0]["title"],
        "tech: Uses SQLite FTS5 #search #db..."
    );

    let rels = h
        .call("search_notes", json!({"query": "Parsing", "entity_types": ["relation"], "page_size": 20, "output_format": "json"}))
        .ok()
        .json();
    let mut found: Vec<(String, Option<String>)> = rels["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["relation_type"].as_str().unwrap().to_string(),
                r["to_entity"].as_str().map(String::from),
            )
        })
        .collect();
    found.sort();
    let mut kinds: Vec<&str> = found.iter().map(|(k, _)| k.as_str()).collect();
    kinds.sort();
    assert_eq!(
        kinds,
        [
            "based on",
            "depends_on",
            "implements",
            "links_to",
            "links_to",
            "links_to"
        ]
    );
    assert!(
        found.iter().all(|(_, to)| to.is_none()),
        "all unresolved: {found:?}"
    );

    // Creating "Search UI" resolves `implements`.
    h.text(
        "write_note",
        json!({"title": "Search UI", "directory": "specs", "content": "ui"}),
    );
    let rels = h
        .call("search_notes", json!({"query": "Parsing", "entity_types": ["relation"], "page_size": 20, "output_format": "json"}))
        .ok()
        .json();
    let implements = rels["results"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["relation_type"] == "implements")
        .unwrap();
    assert_eq!(implements["to_entity"], "main/specs/search-ui");
    assert_eq!(implements["title"], "Parsing -> Search UI");
}

/// Accented, CJK and Cyrillic text is found by its words in natural-language queries, as in
/// strict ones.
#[test]
fn accented_and_cjk_text_is_found_by_natural_language_queries() {
    let h = Harness::new();
    h.write(
        "Café crème",
        "unicode",
        "Un café crème au comptoir, s'il vous plaît.",
    );
    h.write("東京の天気", "unicode", "東京は今日は晴れです。");
    h.write("Größe", "unicode", "Die Größe der Straße ist überraschend.");
    h.write("Погода", "unicode", "Сегодня в Москве солнечно.");
    let cases = [
        ("café crème", "Café crème"),
        ("where can I get a café crème", "Café crème"),
        ("東京", "東京の天気"),
        ("天気", "東京の天気"),
        ("how big is the größe of the straße", "Größe"),
        ("погода в москве", "Погода"),
    ];
    for (query, want) in cases {
        let found = h
            .call(
                "search_notes",
                json!({"query": query, "output_format": "json"}),
            )
            .ok()
            .json();
        assert_eq!(found["results"][0]["title"], want, "{query}: {found}");
    }
}

#[test]
fn a_note_row_shows_the_section_that_best_matches_the_query() {
    let h = Harness::new();
    let content = "Overview of the garden.\n\n## Watering\nWater the tomatoes at dawn.\n\n## Pests\nAphids on the tomatoes: spray soapy water.\n";
    h.call(
        "write_note",
        json!({"title": "Garden", "directory": "home", "content": content}),
    )
    .ok();
    let found = |query: &str| {
        h.call(
            "search_notes",
            json!({"query": query, "output_format": "json"}),
        )
        .ok()
        .json()["results"][0]
            .clone()
    };
    let cases = [
        (
            "aphids on tomatoes",
            "Aphids on the tomatoes: spray soapy water.",
        ),
        ("when to water tomatoes", "Water the tomatoes at dawn."),
        ("garden overview", "Overview of the garden."),
    ];
    for (query, section) in cases {
        let row = found(query);
        assert_eq!(row["title"], "Garden", "{query}: {row}");
        assert_eq!(row["matched_chunk"], section, "{query}: {row}");
        assert!(
            row["content"]
                .as_str()
                .unwrap()
                .trim_start()
                .starts_with("Overview"),
            "content stays the note's text: {row}"
        );
    }
    let text = h.text("search_notes", json!({"query": "aphids"}));
    assert!(
        text.contains("- match: Aphids on the tomatoes: spray soapy water.\n"),
        "{text}"
    );
    let by_title = h
        .call(
            "search_notes",
            json!({"query": "Garden", "search_type": "title", "output_format": "json"}),
        )
        .ok()
        .json();
    assert_eq!(
        by_title["results"][0]["matched_chunk"], "Overview of the garden.",
        "a title match shows the note's opening"
    );
}

/// Body relevance (BM25): among long notes whose titles say nothing, the one that says most
/// about the rarer words of the question comes first; a name in every note weighs nothing, and
/// a word said once in a short note counts more than once in a long one.
#[test]
fn among_notes_whose_titles_say_nothing_the_body_decides() {
    let h = Harness::new();
    let filler = "We talked about the weather and the week ahead, nothing much. ";
    let write = |title: &str, body: String| {
        h.call(
            "write_note",
            json!({"title": title, "directory": "sessions", "content": body}),
        )
        .ok();
    };
    for n in 1..=12 {
        let lines: String = (0..20)
            .map(|i| {
                format!(
                    "Caroline: {filler}{}\n",
                    if i == n { "Caroline again." } else { "" }
                )
            })
            .collect();
        write(&format!("Session {n}"), lines);
    }
    // Pottery is mentioned once in a long session and three times in another of the same length.
    let mut once: String = (0..20).map(|_| format!("Caroline: {filler}\n")).collect();
    once.push_str("Caroline: I tried pottery class last week.\n");
    write("Session 13", once);
    let mut often: String = (0..20).map(|_| format!("Caroline: {filler}\n")).collect();
    often.push_str("Caroline: pottery again! My pottery teacher says my pottery improves.\n");
    write("Session 14", often);
    // And once in a short note.
    write("Session 15", "Caroline: pottery, finally.\n".to_string());

    let found = h
        .call(
            "search_notes",
            json!({"query": "What did Caroline say about pottery?", "output_format": "json"}),
        )
        .ok()
        .json();
    let order = titles(&found);
    let rank = |title: &str| order.iter().position(|t| t == title);
    assert!(
        rank("Session 14") < rank("Session 13") && rank("Session 15") < rank("Session 13"),
        "more often, or in a shorter note, ranks higher: {order:?}"
    );
    assert!(
        order
            .iter()
            .take(3)
            .all(|t| ["Session 13", "Session 14", "Session 15"].contains(&t.as_str())),
        "the name in every session must not outweigh the rare word: {order:?}"
    );
}

/// A note's words follow its text: an edit takes its old words out of body relevance, a
/// delete takes the note out.
#[test]
fn body_relevance_follows_edits_and_deletes() {
    let h = Harness::new();
    let found = |query: &str| {
        let json = h
            .call(
                "search_notes",
                json!({"query": query, "output_format": "json"}),
            )
            .ok()
            .json();
        titles(&json)
    };
    h.call(
        "write_note",
        json!({"title": "Log", "directory": "days", "content": "The zephyr blew all day."}),
    )
    .ok();
    assert_eq!(found("zephyr wind"), ["Log"]);
    h.call(
        "edit_note",
        json!({"identifier": "days/log", "operation": "find_replace", "find_text": "zephyr", "content": "gale"}),
    )
    .ok();
    assert!(found("zephyr wind").is_empty(), "the old word is gone");
    assert_eq!(found("gale"), ["Log"]);
    h.call("delete_note", json!({"identifier": "days/log"}))
        .ok();
    assert!(found("gale").is_empty(), "the deleted note is gone");
}

/// Names and body add up: a note whose body alone holds the question's rare words comes before
/// notes whose titles hold its common words ("create", "markdown", "notes"), where counting
/// only ranks would put the notes found by both rankings first.
#[test]
fn a_body_that_alone_says_the_rare_word_outranks_titles_of_common_words() {
    let h = Harness::new();
    let write = |title: &str, body: &str| {
        h.call(
            "write_note",
            json!({"title": title, "directory": "help", "content": body}),
        )
        .ok();
    };
    for part in 1..=6 {
        write(
            &format!("Create markdown notes, part {part}"),
            "Create notes in markdown; notes link to notes.",
        );
    }
    for topic in 1..=20 {
        write(
            &format!("Topic {topic}"),
            &format!("Notes about topic {topic}, created in markdown."),
        );
    }
    write(
        "Slides",
        "A slideshow turns a note into a presentation: each presentation slide ends at a rule.",
    );
    let found = h
        .call(
            "search_notes",
            json!({"query": "create a slideshow presentation from markdown notes", "output_format": "json"}),
        )
        .ok()
        .json();
    let order = titles(&found);
    assert_eq!(
        order.first().map(String::as_str),
        Some("Slides"),
        "{order:?}"
    );
}
