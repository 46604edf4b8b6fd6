//! The quick stage: meaning-search for every note within seconds of a large backlog, while the
//! chosen transformer works through it (about 7 long notes a second for MiniLM on two cores:
//! half an hour for 10,000 notes). A static model distilled from the transformer
//! (`models/<model>/quick/`, made once, about 30 s for MiniLM) embeds every waiting note
//! first, into a store of its own; search ranks each note by the best vectors it has. The
//! quick vectors are dropped once the transformer has caught up.

use std::sync::Arc;

use super::{EmbedProgress, EmbedStage};
use crate::error::{InternalError, ModelError};
use crate::models::models_dir;
use crate::Engine;
use crate::Result;
use embed::Embedder;
use index::vectors::VectorHit;
use index::Index;

/// A backlog this large is worth distilling the quick stage's model for: with MiniLM it is
/// about 30 s of transformer work, as long as the distillation itself.
pub const QUICK_STAGE_NOTES: usize = 200;
/// Where a transformer's quick companion lives, inside the transformer's own folder (so that
/// reinstalling or removing the model takes it along).
const QUICK_DIR: &str = "quick";

/// Whether embedding `backlog` notes runs the quick stage first: a backlog worth a
/// distillation, or a stage already under way (its companion is then kept up with new notes).
pub(crate) fn quick_stage_runs(backlog: usize, under_way: bool) -> bool {
    backlog > 0 && (under_way || backlog >= QUICK_STAGE_NOTES)
}

/// The name the quick store records for the vectors of `teacher`'s companion.
pub(super) fn quick_name(teacher: &Embedder) -> String {
    format!("{}/{QUICK_DIR}", teacher.name())
}

/// `teacher`'s quick companion: loaded when it exists, else distilled first when
/// `distil`, else `None`. A static teacher has none (it is as quick as it gets).
pub(super) fn quick_embedder(
    engine: &Engine,
    teacher: &Embedder,
    distil: Option<&dyn Fn(EmbedProgress)>,
) -> Result<Option<Arc<Embedder>>> {
    if teacher.is_static() {
        return Ok(None);
    }
    let name = quick_name(teacher);
    engine.semantic.quick.get_or_load(&name, || {
        let models = models_dir(&engine.store.config().root);
        let dir = models.join(teacher.name()).join(QUICK_DIR);
        if !dir.is_dir() {
            let Some(on_progress) = distil else {
                return Ok(None);
            };
            let staging = tempfile::tempdir_in(&models).map_err(InternalError::from)?;
            let assembled = staging.path().join(QUICK_DIR);
            teacher
                .distill(&assembled, &|done, total| {
                    on_progress(EmbedProgress {
                        stage: EmbedStage::Distilling,
                        done,
                        total,
                    })
                })
                .map_err(|e| ModelError::Distil {
                    teacher: teacher.name().to_string(),
                    source: e,
                })?;
            vault::fs::replace_dir(&assembled, &dir).map_err(InternalError::from)?;
        }
        Ok(Some(
            Embedder::load(&dir, &name).map_err(InternalError::from)?,
        ))
    })
}

/// Brings the quick store to `teacher`'s companion, emptying it when it holds another
/// model's vectors.
pub(super) fn quick_store_for(index: &Index, quick: &Embedder) -> Result<()> {
    let store = &index.quick_vectors;
    if store.model()? != Some((quick.name().to_string(), quick.dimensions())) {
        store.reset(quick.name(), quick.dimensions())?;
    }
    Ok(())
}

/// Ends the quick stage: the transformer covers every note.
pub(super) fn end_quick_stage(index: &Index) -> Result<()> {
    let store = &index.quick_vectors;
    if !store.is_empty()? {
        let (name, dims) = store.model()?.unwrap_or_default();
        store.reset(&name, dims)?;
        tracing::info!("the quick stage is over: every note has the model's own vectors");
    }
    Ok(())
}

/// `hits` of the transformer, completed with the quick stage's hits among the notes the
/// transformer has not reached yet, while the stage is under way.
pub(super) fn with_quick_stage(
    engine: &Engine,
    project: &str,
    teacher: &Embedder,
    query: &str,
    hits: Vec<VectorHit>,
    limit: usize,
    admit: &dyn Fn(&str) -> bool,
) -> Result<Vec<VectorHit>> {
    let store = &engine.store.index.quick_vectors;
    if store.is_empty()? {
        return Ok(hits);
    }
    let Some(quick) = quick_embedder(engine, teacher, None)? else {
        return Ok(hits);
    };
    if store.model()? != Some((quick.name().to_string(), quick.dimensions())) {
        return Ok(hits);
    }
    let covered = engine.store.index.vectors.notes(project)?;
    let waiting = store
        .notes(project)?
        .into_iter()
        .filter(|n| !covered.contains(n))
        .count();
    if waiting == 0 {
        return Ok(hits);
    }
    let vector = quick.embed_query(query).map_err(InternalError::from)?;
    let quick_hits = store.search(project, &vector, limit, |id| {
        !covered.contains(id) && admit(id)
    })?;
    Ok(merge_by_share(
        (hits, covered.len()),
        (quick_hits, waiting),
        limit,
    ))
}

/// Two rankings of disjoint sets of notes merged by where each note would stand among them
/// all: the i-th of a ranking over a share s of the notes stands about i / s. The transformer
/// takes notes in an order that has nothing to do with any query, so each set is a fair
/// sample of the project, and two similarities of different models are never compared.
fn merge_by_share(
    (first, first_notes): (Vec<VectorHit>, usize),
    (second, second_notes): (Vec<VectorHit>, usize),
    limit: usize,
) -> Vec<VectorHit> {
    let place = |rank: usize, notes: usize| (rank as f64 + 0.5) / notes.max(1) as f64;
    let mut placed: Vec<(f64, VectorHit)> = first
        .into_iter()
        .enumerate()
        .map(|(rank, hit)| (place(rank, first_notes), hit))
        .chain(
            second
                .into_iter()
                .enumerate()
                .map(|(rank, hit)| (place(rank, second_notes), hit)),
        )
        .collect();
    placed.sort_by(|a, b| a.0.total_cmp(&b.0));
    placed.into_iter().take(limit).map(|(_, hit)| hit).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hits(ids: &[&str]) -> Vec<VectorHit> {
        ids.iter()
            .map(|id| VectorHit {
                note_id: id.to_string(),
                similarity: 0.5,
                passage: 0,
            })
            .collect()
    }

    #[test]
    fn rankings_of_unequal_shares_interleave_by_estimated_place() {
        // (first ranking, its notes, second ranking, its notes, merged)
        type Case<'a> = (&'a [&'a str], usize, &'a [&'a str], usize, &'a [&'a str]);
        let cases: [Case; 3] = [
            // Equal shares alternate, the first ranking first.
            (
                &["a1", "a2"],
                10,
                &["b1", "b2"],
                10,
                &["a1", "b1", "a2", "b2"],
            ),
            // The transformer has done a tenth: its best note is about 5th of all.
            (
                &["a1"],
                10,
                &["b1", "b2", "b3", "b4", "b5", "b6"],
                80,
                &["b1", "b2", "b3", "b4", "a1", "b5", "b6"],
            ),
            // Nothing waits: the transformer's ranking alone.
            (&["a1", "a2"], 100, &[], 0, &["a1", "a2"]),
        ];
        for (first, first_notes, second, second_notes, want) in cases {
            let merged =
                merge_by_share((hits(first), first_notes), (hits(second), second_notes), 10);
            let got: Vec<&str> = merged.iter().map(|h| h.note_id.as_str()).collect();
            assert_eq!(
                got, want,
                "{first:?}/{first_notes} + {second:?}/{second_notes}"
            );
        }
    }

    #[test]
    fn the_quick_stage_runs_for_a_large_backlog_and_keeps_up_once_under_way() {
        let cases = [
            (0, false, false),
            (0, true, false),
            (1, false, false),
            (QUICK_STAGE_NOTES - 1, false, false),
            (QUICK_STAGE_NOTES, false, true),
            (1, true, true),
        ];
        for (backlog, under_way, runs) in cases {
            assert_eq!(
                quick_stage_runs(backlog, under_way),
                runs,
                "{backlog} {under_way}"
            );
        }
    }
}
