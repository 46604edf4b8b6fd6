//! Semantic search: the chosen model, loaded once; the work of keeping every note's passage
//! vectors in step with its text (off the reply path: a background worker in `serve`, and
//! `reindex`/`search` on the command line), with a quick stage first for a large backlog
//! (`quick`); and the vector ranking that search fuses.

pub mod quick;

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;

use super::error::InternalError;
use super::models::ModelChoice;
use super::Result;
use crate::config::Project;
use crate::models::hub::FetchState;
use crate::{Engine, Store};
use embed::Embedder;
use index::vectors::{NoteVectors, VectorHit, VectorStore};
use index::{NoteKind, NoteRecord};
use note::chunk::passages;

/// Most notes stored in one commit of the vector store.
const BATCH_NOTES: usize = 256;
/// Longest the transformer embeds before the plan is made again, so that notes written
/// meanwhile reach the quick stage within about this long.
const ROUND_TIME: Duration = Duration::from_secs(30);
/// Longest a batch of embedded notes waits before it is stored.
const BATCH_TIME: Duration = Duration::from_secs(1);
/// How often the idle worker looks at the stop flag.
const IDLE_CHECK: Duration = Duration::from_secs(2);
/// First and longest pause before a failed embedding pass is tried again.
const RETRY_FIRST: Duration = Duration::from_secs(1);
const RETRY_LAST: Duration = Duration::from_secs(60);

/// This process's semantic state.
#[derive(Default)]
pub struct Semantic {
    /// The default model, loaded on first use; cleared when the choice changes.
    loaded: LoadedModel,
    /// The quick stage's model, distilled from the default one.
    quick: LoadedModel,
    /// Set when the quick stage failed for the default model (until the choice changes).
    quick_failed: AtomicBool,
    /// Serialises embedding work within the process (the worker, a CLI command).
    working: Mutex<()>,
    /// Raised at shutdown: embedding stops between notes.
    stop: AtomicBool,
    /// Counts changes of the chosen model, so the background worker embeds again after one.
    choices: AtomicU64,
}

/// A model kept loaded between uses, until another is asked for or the choice changes.
#[derive(Default)]
struct LoadedModel(Mutex<Option<Arc<Embedder>>>);

impl LoadedModel {
    /// The model named `name`: the one loaded, or what `load` gives (kept when there is one).
    /// `load` runs unlocked: a distillation takes the better part of a minute, and a search
    /// asking meanwhile must not wait for it.
    fn get_or_load(
        &self,
        name: &str,
        load: impl FnOnce() -> Result<Option<Embedder>>,
    ) -> Result<Option<Arc<Embedder>>> {
        if let Some(model) = self.lock().as_ref().filter(|m| m.name() == name) {
            return Ok(Some(model.clone()));
        }
        let model = load()?.map(Arc::new);
        if model.is_some() {
            self.lock().clone_from(&model);
        }
        Ok(model)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Arc<Embedder>>> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn clear(&self) {
        *self.lock() = None;
    }
}

#[derive(Default)]
struct EmbeddingPlan {
    notes: usize,
    todo: Vec<NoteRecord>,
    gone: Vec<(String, String)>,
    /// Notes of `todo` whose quick vectors are current.
    quick_done: HashSet<(String, String)>,
    /// Whether the quick store holds any vectors (the quick stage is under way).
    quick_under_way: bool,
}

/// What embedding is doing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EmbedStage {
    /// Making the quick stage's model from the chosen one (counting tokens).
    Distilling,
    /// Embedding the backlog with the quick stage's model (counting notes).
    Quick,
    /// Embedding with the chosen model (counting notes).
    #[default]
    Full,
}

/// How far embedding has come.
#[derive(Debug, Clone, Copy, Default, Serialize)]
pub struct EmbedProgress {
    pub stage: EmbedStage,
    pub done: usize,
    pub total: usize,
}

/// What `gitmem status` and sync_status say about semantic search.
#[derive(Debug, Clone)]
pub enum SemanticStatus {
    /// Turned off: `[search] model = "none"`, or the default model was removed.
    Off,
    /// The hub model to use is not installed yet; `failed` is why the last fetch failed.
    NotFetched {
        model: String,
        hub: String,
        failed: Option<String>,
    },
    /// The hub model is being fetched.
    Fetching {
        model: String,
        hub: String,
        progress: Option<crate::models::hub::Download>,
    },
    /// `[search] model` names a model that is not installed and cannot be fetched.
    Missing { model: String },
    On {
        model: String,
        dimensions: usize,
        notes_embedded: usize,
        notes: usize,
        /// Notes not embedded yet that the quick stage's vectors make searchable meanwhile.
        quick_notes: usize,
    },
    /// The chosen model could not be loaded.
    Broken { model: String, error: String },
}

impl Semantic {
    /// Forgets the loaded model, so the next use loads the new default.
    pub(crate) fn forget_model(&self) {
        self.loaded.clear();
        self.quick.clear();
        self.quick_failed.store(false, Ordering::Relaxed);
        self.choices.fetch_add(1, Ordering::Relaxed);
    }
}

/// The default model, loaded; `None` when no model is chosen.
pub(crate) fn embedder(engine: &Engine) -> Result<Option<Arc<Embedder>>> {
    let Some(name) = crate::models::chosen_model(&engine.store) else {
        return Ok(None);
    };
    engine.semantic.loaded.get_or_load(&name, || {
        let dir = engine.store.config().root.join("models").join(&name);
        Ok(Some(
            Embedder::load(&dir, &name).map_err(InternalError::from)?,
        ))
    })
}

pub(crate) fn semantic_status(engine: &Engine) -> Result<SemanticStatus> {
    let name = match crate::models::model_choice(&engine.store) {
        ModelChoice::Installed(name) => name,
        ModelChoice::Off => return Ok(SemanticStatus::Off),
        ModelChoice::Missing(model) => return Ok(SemanticStatus::Missing { model }),
        ModelChoice::ToFetch(model) => {
            let hub = crate::models::hub::hub(&engine.store);
            return Ok(
                match crate::models::hub::fetch_state(&engine.store, &model) {
                    Some(FetchState::Fetching { progress, .. }) => SemanticStatus::Fetching {
                        model,
                        hub,
                        progress,
                    },
                    Some(FetchState::Failed { error, .. }) => SemanticStatus::NotFetched {
                        model,
                        hub,
                        failed: Some(error),
                    },
                    None => SemanticStatus::NotFetched {
                        model,
                        hub,
                        failed: None,
                    },
                },
            );
        }
    };
    let embedder = match embedder(engine) {
        Ok(Some(e)) => e,
        Ok(None) => return Ok(SemanticStatus::Off),
        Err(e) => {
            return Ok(SemanticStatus::Broken {
                model: name,
                error: e.to_string(),
            })
        }
    };
    let plan = embedding_plan(&engine.store, &embedder)?;
    Ok(SemanticStatus::On {
        model: name,
        dimensions: embedder.dimensions(),
        notes_embedded: plan.notes - plan.todo.len(),
        notes: plan.notes,
        quick_notes: plan.quick_done.len(),
    })
}

/// What embedding has left to do with `embedder`: notes that should have vectors (and how
/// many), those whose vectors are missing or stale, and vectors of notes that are gone.
/// Vectors of another model count as missing.
fn embedding_plan(store: &Store, embedder: &Embedder) -> Result<EmbeddingPlan> {
    let vectors = &store.index.vectors;
    let same_model = vectors.model()? == Some((embedder.name().to_string(), embedder.dimensions()));
    let mut embedded = if same_model {
        vectors.embedded()?
    } else {
        HashMap::new()
    };
    let mut plan = EmbeddingPlan::default();
    for project in crate::scope::projects(store, None)? {
        for note in crate::notes::all_notes(&store.index, &project)? {
            let current = embedded.remove(&(project.name.clone(), note.id.clone()));
            if note.kind != NoteKind::Markdown || note.checksum.is_empty() {
                continue;
            }
            plan.notes += 1;
            if current.is_none_or(|e| e.checksum != note.checksum) {
                plan.todo.push(note);
            }
        }
    }
    plan.gone = embedded.into_keys().collect();
    let quick = &store.index.quick_vectors;
    plan.quick_under_way = !quick.is_empty()?
        && quick
            .model()?
            .is_some_and(|(name, _)| name == quick::quick_name(embedder));
    if plan.quick_under_way {
        let quick_embedded = quick.embedded()?;
        plan.quick_done = plan
            .todo
            .iter()
            .map(|n| ((n.project.clone(), n.id.clone()), &n.checksum))
            .filter(|(key, checksum)| {
                quick_embedded
                    .get(key)
                    .is_some_and(|e| &e.checksum == *checksum)
            })
            .map(|(key, _)| key)
            .collect();
    }
    Ok(plan)
}

/// Brings every note's vectors in step with its text: embeds notes that are new or
/// changed, drops vectors of notes that are gone, starts over when the model changed. A
/// large backlog goes through the quick stage first (`quick`). Returns how many notes the
/// chosen model embedded; does nothing without a model.
pub(crate) fn embed_pending(engine: &Engine, on_progress: &dyn Fn(EmbedProgress)) -> Result<usize> {
    let Some(embedder) = embedder(engine)? else {
        return Ok(0);
    };
    let _working = engine
        .semantic
        .working
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    let vectors = &engine.store.index.vectors;
    if vectors.model()? != Some((embedder.name().to_string(), embedder.dimensions())) {
        vectors.reset(embedder.name(), embedder.dimensions())?;
    }
    // Everything acknowledged so far is then in the search index, whose text is what
    // gets embedded (a command line `reindex` embeds all it wrote).
    engine.store.index.wait_searchable()?;
    let mut embedded = 0;
    // In rounds of at most ROUND_TIME, each planned afresh: notes written during a long
    // backlog reach the quick stage without waiting for its end.
    loop {
        let plan = embedding_plan(&engine.store, &embedder)?;
        tracing::debug!(
            todo = plan.todo.len(),
            gone = plan.gone.len(),
            "embedding plan"
        );
        for (project, id) in &plan.gone {
            vectors.remove(project, id)?;
        }
        if plan.todo.is_empty() {
            crate::semantic::quick::end_quick_stage(&engine.store.index)?;
            return Ok(embedded);
        }
        if quick::quick_stage_runs(plan.todo.len(), plan.quick_under_way) {
            run_quick_stage(engine, &embedder, &plan, on_progress);
        }
        let total = embedded + plan.todo.len();
        on_progress(EmbedProgress {
            stage: EmbedStage::Full,
            done: embedded,
            total,
        });
        let round = embed_notes(
            engine,
            &embedder,
            vectors,
            plan.todo,
            Some(ROUND_TIME),
            &|done| {
                on_progress(EmbedProgress {
                    stage: EmbedStage::Full,
                    done: embedded + done,
                    total,
                })
            },
        )?;
        embedded += round;
        // Nothing embedded: what is left waits for the search index (whose next commit
        // wakes the worker again), or shutdown.
        if round == 0 || engine.semantic.stop.load(Ordering::Relaxed) {
            return Ok(embedded);
        }
    }
}

/// Embeds `notes` with `embedder` into `store`, stopping at shutdown or once `time` is
/// spent; `on_done(notes embedded so far)`. Returns how many notes it embedded.
fn embed_notes(
    engine: &Engine,
    embedder: &Embedder,
    store: &VectorStore,
    notes: Vec<NoteRecord>,
    time: Option<Duration>,
    on_done: &dyn Fn(usize),
) -> Result<usize> {
    let started = Instant::now();
    // Notes are stored in batches, one commit (one disk sync) each, cut by count and by
    // time so that a slow model's work still becomes searchable every second or so.
    let mut batch: Vec<NoteVectors> = Vec::new();
    let mut batch_started = Instant::now();
    let mut stored = 0;
    for note in notes {
        if engine.semantic.stop.load(Ordering::Relaxed)
            || time.is_some_and(|t| started.elapsed() >= t)
        {
            break;
        }
        // A note the search index has not caught up with yet is left for the search
        // commit that brings it, which wakes this worker again.
        let Some((checksum, body)) = engine.store.index.indexed_body(&note.id)? else {
            continue;
        };
        if checksum != note.checksum {
            continue;
        }
        let texts = passages(&note.title, &body);
        let refs: Vec<&str> = texts.iter().map(|p| p.text.as_str()).collect();
        let vectors_of_note = embedder
            .embed_passages(&refs)
            .map_err(InternalError::from)?;
        batch.push(NoteVectors {
            project: note.project,
            note_id: note.id,
            checksum: note.checksum,
            vectors: vectors_of_note,
        });
        on_done(stored + batch.len());
        if batch.len() >= BATCH_NOTES || batch_started.elapsed() >= BATCH_TIME {
            store.put_many(&batch)?;
            stored += batch.len();
            batch.clear();
            batch_started = Instant::now();
        }
    }
    if !batch.is_empty() {
        store.put_many(&batch)?;
    }
    tracing::debug!(
        notes = stored + batch.len(),
        model = embedder.name(),
        "embedded"
    );
    Ok(stored + batch.len())
}

/// Embeds the notes of `plan` that have no current quick vectors with the quick stage's
/// model, distilling it first if need be. A failure only costs the stage: the notes
/// still get the chosen model's vectors, and the next pass does not try again.
fn run_quick_stage(
    engine: &Engine,
    embedder: &Embedder,
    plan: &EmbeddingPlan,
    on_progress: &dyn Fn(EmbedProgress),
) {
    if engine.semantic.quick_failed.load(Ordering::Relaxed) {
        return;
    }
    let waiting: Vec<NoteRecord> = plan
        .todo
        .iter()
        .filter(|n| !plan.quick_done.contains(&(n.project.clone(), n.id.clone())))
        .cloned()
        .collect();
    // A later round of a long backlog: the stage has done its work, and reporting it
    // again would tell a user watching progress that it started over.
    if waiting.is_empty() {
        return;
    }
    let run = || -> Result<()> {
        let Some(quick) =
            crate::semantic::quick::quick_embedder(engine, embedder, Some(on_progress))?
        else {
            return Ok(());
        };
        crate::semantic::quick::quick_store_for(&engine.store.index, &quick)?;
        let total = waiting.len();
        let progress = |done| {
            on_progress(EmbedProgress {
                stage: EmbedStage::Quick,
                done,
                total,
            })
        };
        progress(0);
        embed_notes(
            engine,
            &quick,
            &engine.store.index.quick_vectors,
            waiting,
            None,
            &progress,
        )?;
        Ok(())
    };
    if let Err(e) = run() {
        tracing::warn!("the quick stage failed; notes wait for the model's own vectors: {e}");
        engine.semantic.quick_failed.store(true, Ordering::Relaxed);
    }
}

/// Stops embedding work between notes (at shutdown).
pub(super) fn stop_embedding(engine: &Engine) {
    engine.semantic.stop.store(true, Ordering::Relaxed);
}

/// Runs until shutdown: once at start (notes changed while no server ran), then after
/// every search commit and every change of model, embeds what changed (the model commands embed for themselves). A
/// failed pass (or a panic in the model) is tried again after a growing pause, so one
/// failure never leaves vectors stale until the next write.
pub(crate) fn embed_in_background(engine: &Engine) {
    let mut done_up_to: Option<(u64, u64)> = None;
    let mut retry = RETRY_FIRST;
    while !engine.semantic.stop.load(Ordering::Relaxed) {
        let seq = engine.store.index.search_seq();
        let now = (seq, engine.semantic.choices.load(Ordering::Relaxed));
        let mut pause = IDLE_CHECK;
        if done_up_to != Some(now) {
            let pass = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                embed_pending(engine, &|_| {})
            }));
            match pass {
                Ok(Ok(_)) => {
                    done_up_to = Some(now);
                    retry = RETRY_FIRST;
                }
                failed => {
                    let why = match failed {
                        Ok(Err(e)) => e.to_string(),
                        _ => "it panicked".to_string(),
                    };
                    tracing::warn!("embedding notes failed (trying again in {retry:?}): {why}");
                    pause = retry;
                    retry = (retry * 2).min(RETRY_LAST);
                }
            }
        }
        if engine.store.index.wait_search_commit(seq, pause).is_err() {
            return;
        }
    }
}

/// Notes of `project` ranked by their passages' similarity to `query`; `None` without a
/// model. `allowed` restricts the notes; `min_similarity` drops weaker ones.
pub(super) fn vector_ranking(
    engine: &Engine,
    project: &Project,
    query: &str,
    limit: usize,
    allowed: Option<&HashSet<String>>,
    min_similarity: Option<f32>,
) -> Result<Option<Vec<VectorHit>>> {
    let Some(embedder) = embedder(engine)? else {
        return Ok(None);
    };
    let vector = embedder.embed_query(query).map_err(InternalError::from)?;
    let admit = |id: &str| allowed.is_none_or(|a| a.contains(id));
    let hits = engine
        .store
        .index
        .vectors
        .search(&project.name, &vector, limit, admit)?;
    let mut hits = crate::semantic::quick::with_quick_stage(
        engine,
        &project.name,
        &embedder,
        query,
        hits,
        limit,
        &admit,
    )?;
    if let Some(min) = min_similarity {
        hits.retain(|h| h.similarity >= min);
    }
    // Clients sort by score; during the quick stage two models' similarities alternate,
    // so each is capped at the one above it to keep the ranking's order.
    let mut above = f32::INFINITY;
    for hit in &mut hits {
        hit.similarity = hit.similarity.min(above);
        above = hit.similarity;
    }
    Ok(Some(hits))
}
