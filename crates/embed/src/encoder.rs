//! The transformer that embedding and reranking both run: a BERT-family checkpoint's config,
//! weights and tokenizer read from its folder, and its forward pass to one hidden state per
//! token. BERT checkpoints (weights at the root or under `bert.`) and RoBERTa-family ones
//! (XLM-RoBERTa, under `roberta.`) share the layers; RoBERTa numbers positions from its
//! padding id + 1, as its training did.

use std::path::Path;

use candle_core::{Device, Tensor};
use candle_nn::VarBuilder;
use candle_transformers::models::bert::{BertModel, Config, DTYPE};
use candle_transformers::models::xlm_roberta::{self, XLMRobertaModel};
use serde_json::Value;
use tokenizers::{PaddingParams, PaddingStrategy, Tokenizer, TruncationParams};

use super::fast::FastBert;
use super::int8::Kernel;
use super::{read_json, tokenizer_error, Backend, EmbedError};

/// The tensor every encoder has, which tells where its weights start.
const WORD_EMBEDDINGS: &str = "embeddings.word_embeddings.weight";

/// The model_type values of the RoBERTa family in Hugging Face configs.
const ROBERTA_TYPES: &[&str] = &["roberta", "xlm-roberta", "camembert"];

enum Forward {
    Fused(FastBert),
    Bert(BertModel),
    Roberta(XLMRobertaModel),
}

pub(super) struct Encoder {
    forward: Forward,
    pub(super) hidden_size: usize,
    /// The longest input it reads, in tokens.
    pub(super) max_tokens: usize,
}

/// A model folder's `config.json`, as written.
pub(super) fn read_config(dir: &Path) -> Result<Value, EmbedError> {
    let path = dir.join("config.json");
    read_json(&path)?.ok_or_else(|| EmbedError::File {
        file: path.display().to_string(),
        message: "missing".into(),
    })
}

/// A model folder's weights, from the root of the checkpoint (heads sit beside the encoder).
pub(super) fn read_weights(dir: &Path) -> Result<VarBuilder<'static>, EmbedError> {
    let device = Device::Cpu;
    let safetensors = dir.join("model.safetensors");
    Ok(if safetensors.is_file() {
        // SAFETY: the weights are mapped read-only; gitmem never writes an installed
        // model's files while it is loaded (install writes a new folder and renames it).
        unsafe { VarBuilder::from_mmaped_safetensors(&[safetensors], DTYPE, &device)? }
    } else {
        VarBuilder::from_pth(dir.join("pytorch_model.bin"), DTYPE, &device)?
    })
}

/// Whether a checkpoint is a cross-encoder (a sequence classifier, as rerankers are) rather
/// than a sentence model: its config says so, or it carries a classifier head.
pub(super) fn is_cross_encoder(config: &Value, weights: &VarBuilder) -> bool {
    let declared = config["architectures"].as_array().is_some_and(|all| {
        all.iter()
            .filter_map(Value::as_str)
            .any(|a| a.ends_with("ForSequenceClassification"))
    });
    declared
        || weights.contains_tensor("classifier.weight")
        || weights.contains_tensor("classifier.out_proj.weight")
}

fn is_roberta(config: &Value, weights: &VarBuilder) -> bool {
    config["model_type"]
        .as_str()
        .is_some_and(|t| ROBERTA_TYPES.contains(&t))
        || weights.contains_tensor(&format!("roberta.{WORD_EMBEDDINGS}"))
}

fn config_error(e: serde_json::Error) -> EmbedError {
    EmbedError::Model(format!("config.json is not a BERT-family config: {e}"))
}

impl Encoder {
    /// The encoder of a checkpoint, wherever its weights start.
    pub(super) fn load(
        config: &Value,
        weights: &VarBuilder,
        backend: Backend,
    ) -> Result<Self, EmbedError> {
        let bert: Config = serde_json::from_value(config.clone()).map_err(config_error)?;
        let roberta = is_roberta(config, weights);
        let root = if weights.contains_tensor(WORD_EMBEDDINGS) {
            weights.clone()
        } else if roberta {
            weights.pp("roberta")
        } else {
            weights.pp("bert")
        };
        if !root.contains_tensor(WORD_EMBEDDINGS) {
            return Err(EmbedError::Model(format!(
                "no encoder in the weights (no {WORD_EMBEDDINGS}, at the root or under bert. or roberta.)"
            )));
        }
        let first_position = if roberta { bert.pad_token_id + 1 } else { 0 };
        let forward = match (backend, roberta) {
            (Backend::Fused, _) => {
                Forward::Fused(FastBert::load(root, &bert, first_position as u32, None)?)
            }
            (Backend::Int8, _) => Forward::Fused(FastBert::load(
                root,
                &bert,
                first_position as u32,
                Some(Kernel::best()),
            )?),
            (Backend::Reference, false) => Forward::Bert(BertModel::load(root, &bert)?),
            (Backend::Reference, true) => {
                let config: xlm_roberta::Config =
                    serde_json::from_value(config.clone()).map_err(config_error)?;
                Forward::Roberta(XLMRobertaModel::new(&config, root)?)
            }
        };
        Ok(Encoder {
            forward,
            hidden_size: bert.hidden_size,
            max_tokens: bert.max_position_embeddings.saturating_sub(first_position),
        })
    }

    /// ids, type ids, mask: (batch, tokens) u32, padded on the right. Returns the last
    /// hidden states (batch, tokens, hidden).
    pub(super) fn forward(
        &self,
        ids: &Tensor,
        types: &Tensor,
        mask: &Tensor,
    ) -> Result<Tensor, EmbedError> {
        Ok(match &self.forward {
            Forward::Fused(m) => m.forward(ids, types, mask)?,
            Forward::Bert(m) => m.forward(ids, types, Some(mask))?,
            Forward::Roberta(m) => m.forward(ids, mask, types, None, None, None)?,
        })
    }
}

/// A model folder's tokenizer, padding each batch to its longest text (some packages ship one
/// that pads every text to a fixed length) and cutting at `max_tokens`: a pair loses tokens
/// from its longer text first.
pub(super) fn read_tokenizer(dir: &Path, max_tokens: usize) -> Result<Tokenizer, EmbedError> {
    let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
        .map_err(|e| EmbedError::Model(format!("tokenizer.json: {e}")))?;
    let padding = tokenizer.get_padding().cloned().unwrap_or_default();
    tokenizer.with_padding(Some(PaddingParams {
        strategy: PaddingStrategy::BatchLongest,
        ..padding
    }));
    tokenizer
        .with_truncation(Some(TruncationParams {
            max_length: max_tokens,
            ..Default::default()
        }))
        .map_err(tokenizer_error)?;
    Ok(tokenizer)
}

/// Encodings laid out as a batch: ids, type ids and mask, each (rows, width).
pub(super) fn batch(
    encodings: &[tokenizers::Encoding],
) -> Result<(Tensor, Tensor, Tensor), EmbedError> {
    let rows = encodings.len();
    let width = encodings.first().map_or(0, |e| e.get_ids().len());
    let mut ids = Vec::with_capacity(rows * width);
    let mut types = Vec::with_capacity(rows * width);
    let mut mask = Vec::with_capacity(rows * width);
    for e in encodings {
        ids.extend_from_slice(e.get_ids());
        types.extend_from_slice(e.get_type_ids());
        mask.extend_from_slice(e.get_attention_mask());
    }
    let device = &Device::Cpu;
    Ok((
        Tensor::from_vec(ids, (rows, width), device)?,
        Tensor::from_vec(types, (rows, width), device)?,
        Tensor::from_vec(mask, (rows, width), device)?,
    ))
}
