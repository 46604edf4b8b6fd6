//! Reranking: a cross-encoder reads a query and a passage together, as one tokenizer pair, and
//! gives one logit for how relevant the passage is. Two heads sit on the encoder's first (CLS)
//! state, the same maths under two sets of names: BERT's pooler (`bert.pooler.dense`, tanh)
//! and `classifier` (`cross-encoder/ms-marco-MiniLM-L-6-v2`), and RoBERTa's classification
//! head (`classifier.dense`, tanh, `classifier.out_proj`; `BAAI/bge-reranker-base`).

use std::path::Path;

use candle_core::Tensor;
use candle_nn::{Linear, Module, VarBuilder};
use serde_json::Value;
use tokenizers::Tokenizer;

use super::encoder::{self, Encoder};
use super::{tokenizer_error, Backend, EmbedError};

/// Pairs scored in one forward pass; pairs are sorted by length first so little is padded.
const BATCH: usize = 8;
/// The longest pair read: what the families' models were trained on, and a bound on the cost.
const MAX_TOKENS: usize = 512;

struct Head {
    dense: Linear,
    out: Linear,
}

impl Head {
    fn load(weights: &VarBuilder, hidden: usize, roberta_head: bool) -> Result<Self, EmbedError> {
        let (dense, out) = if roberta_head {
            let head = weights.pp("classifier");
            (head.pp("dense"), head.pp("out_proj"))
        } else if weights.contains_tensor("bert.pooler.dense.weight") {
            (weights.pp("bert.pooler.dense"), weights.pp("classifier"))
        } else {
            (weights.pp("pooler.dense"), weights.pp("classifier"))
        };
        Ok(Head {
            dense: candle_nn::linear(hidden, hidden, dense)?,
            out: candle_nn::linear(hidden, 1, out)?,
        })
    }

    /// (batch, tokens, hidden) -> one logit per row.
    fn forward(&self, hidden: &Tensor) -> Result<Vec<f32>, EmbedError> {
        let first = hidden.narrow(1, 0, 1)?.squeeze(1)?;
        let pooled = self.dense.forward(&first)?.tanh()?;
        Ok(self.out.forward(&pooled)?.squeeze(1)?.to_vec1::<f32>()?)
    }
}

/// How many labels a sequence classifier's config declares (one when it says nothing).
fn labels(config: &Value) -> usize {
    config["id2label"]
        .as_object()
        .map(|m| m.len())
        .or_else(|| config["num_labels"].as_u64().map(|n| n as usize))
        .unwrap_or(1)
}

/// Whether the model in `dir` is a cross-encoder; false when its files cannot be read.
pub fn is_reranker(dir: &Path) -> bool {
    match (encoder::read_config(dir), encoder::read_weights(dir)) {
        (Ok(config), Ok(weights)) => encoder::is_cross_encoder(&config, &weights),
        _ => false,
    }
}

pub struct CrossEncoder {
    name: String,
    encoder: Encoder,
    head: Head,
    tokenizer: Tokenizer,
    max_tokens: usize,
}

impl CrossEncoder {
    pub fn load(dir: &Path, name: &str) -> Result<Self, EmbedError> {
        Self::load_with(dir, name, Backend::Fused)
    }

    /// `load` with the forward pass chosen.
    pub fn load_with(dir: &Path, name: &str, backend: Backend) -> Result<Self, EmbedError> {
        let config = encoder::read_config(dir)?;
        let weights = encoder::read_weights(dir)?;
        if !encoder::is_cross_encoder(&config, &weights) {
            return Err(EmbedError::NotAReranker);
        }
        match labels(&config) {
            1 => {}
            n => return Err(EmbedError::Labels(n)),
        }
        let encoder = Encoder::load(&config, &weights, backend)?;
        let roberta_head = weights.contains_tensor("classifier.out_proj.weight");
        let head = Head::load(&weights, encoder.hidden_size, roberta_head)?;
        let max_tokens = encoder.max_tokens.min(MAX_TOKENS);
        let tokenizer = encoder::read_tokenizer(dir, max_tokens)?;
        Ok(CrossEncoder {
            name: name.to_string(),
            encoder,
            head,
            tokenizer,
            max_tokens,
        })
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn hidden_size(&self) -> usize {
        self.encoder.hidden_size
    }

    pub fn max_tokens(&self) -> usize {
        self.max_tokens
    }

    /// The model's logit for `query` with each passage, in the passages' order: higher is more
    /// relevant. Logits are what the model was trained to order by; they are not probabilities.
    pub fn score(&self, query: &str, passages: &[&str]) -> Result<Vec<f32>, EmbedError> {
        let mut order: Vec<usize> = (0..passages.len()).collect();
        order.sort_by_key(|&i| passages[i].len());
        let mut scores = vec![0f32; passages.len()];
        for chunk in order.chunks(BATCH) {
            let pairs: Vec<(&str, &str)> = chunk.iter().map(|&i| (query, passages[i])).collect();
            let encodings = self
                .tokenizer
                .encode_batch(pairs, true)
                .map_err(tokenizer_error)?;
            let (ids, types, mask) = encoder::batch(&encodings)?;
            let hidden = self.encoder.forward(&ids, &types, &mask)?;
            for (&i, logit) in chunk.iter().zip(self.head.forward(&hidden)?) {
                scores[i] = logit;
            }
        }
        Ok(scores)
    }
}
