//! The lexical rankings of a plain query: by what a note is named and by what it says. The
//! two do not depend on one another, so they run side by side, on as many cores as the
//! machine has: a search's latency is then its longer ranking rather than their sum.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use super::names::{name_ranking, NAMING_FIELDS};
use super::ranked::{evidence_sum, Passing, Ranking};
use super::Result;
use index::documents::entity_doc_id;
use index::query::Query;
use index::Index;

/// Where the body ranking looks: the project, the query's terms, and the notes the filters
/// let through.
pub(super) struct BodyScope<'a> {
    pub project: &'a str,
    pub terms: &'a [String],
    pub passing: &'a Passing<'a>,
}

/// The lexical rankings: the two rankings, their fusion, and how many notes they found.
pub(super) struct Lexical {
    /// The documents the rankings found: all of them when `complete`, else the best of them.
    pub total: u64,
    /// Whether neither ranking had more matches than it returned.
    pub complete: bool,
    pub names: Ranking,
    pub said: Ranking,
    pub fused: Ranking,
}

/// One independent piece of the lexical rankings.
enum Piece {
    /// The documents by the query words their naming fields hold.
    Names(Ranking),
    /// The notes by body relevance (BM25).
    Said(Ranking),
}

type Job<'a, T> = Box<dyn FnOnce() -> Result<T> + Send + 'a>;

/// Runs `jobs` on the calling thread and on side threads (as many as there are cores, never
/// more than jobs), each thread taking the next job nobody took yet; the results come back in
/// the jobs' order, a job that panicked as an error. Side threads run as the calling thread's
/// client (read-your-writes).
fn side_by_side<T: Send>(jobs: Vec<Job<'_, T>>) -> Vec<Result<T>> {
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let threads = cores.min(jobs.len());
    let results: Vec<Mutex<Option<Result<T>>>> = jobs.iter().map(|_| Mutex::new(None)).collect();
    let jobs: Vec<Mutex<Option<Job<'_, T>>>> =
        jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let next = AtomicUsize::new(0);
    let work = || loop {
        let position = next.fetch_add(1, Ordering::Relaxed);
        let Some(slot) = jobs.get(position) else {
            break;
        };
        let job = slot.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(job) = job {
            let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(job))
                .unwrap_or_else(|_| {
                    Err(super::super::InternalError::Panicked("a lexical ranking").into())
                });
            *results[position].lock().unwrap_or_else(|e| e.into_inner()) = Some(result);
        }
    };
    let client = index::horizon::current();
    std::thread::scope(|scope| {
        // A thread the system refuses leaves its jobs to the others, the calling one at least.
        let side: Vec<_> = (1..threads)
            .filter_map(|_| {
                std::thread::Builder::new()
                    .spawn_scoped(scope, || index::horizon::scope(&client, work))
                    .ok()
            })
            .collect();
        work();
        for handle in side {
            // Jobs catch their own panics; a thread ends only when no job is left.
            let _ = handle.join();
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(|e| e.into_inner())
                .expect("every job ran once the threads are joined")
        })
        .collect()
}

/// The query ranked by what a note is named (title, aliases, tags, path) and by what it
/// says, its body relevance (BM25). The two scores add up ([`evidence_sum`]), so a note
/// whose title names the topic rises above a long note that mentions every word in passing,
/// and a body that alone holds the rare word rises above titles that hold common ones.
/// milli's buckets do not add a third vote: on long notes they tie or follow chance, and a
/// second body vote outweighed the title (docs/search-quality.md).
pub(super) fn lexical_ranking(
    index: &Index,
    query: &Query,
    body: BodyScope,
    window: usize,
) -> Result<Lexical> {
    // One more than the window: a ranking that fills it has matches beyond the window.
    let depth = window + 1;
    // The costliest piece first, so that the last one a thread starts is a short one.
    let mut jobs: Vec<Job<'_, Piece>> = Vec::new();
    jobs.push(Box::new(move || {
        let allowed = body.passing.notes()?;
        let keep = |id: &str| allowed.as_ref().is_none_or(|a| a.contains(id));
        let snap = index.snapshot()?;
        let said = snap
            .rank_by_terms(body.project, body.terms, keep, depth)?
            .into_iter()
            .map(|(id, score)| (entity_doc_id(&id), score))
            .collect();
        Ok(Piece::Said(said))
    }));
    jobs.push(Box::new(move || {
        let fields: Vec<String> = NAMING_FIELDS.iter().map(|f| f.to_string()).collect();
        let names = index.naming(query.filter.as_deref(), &fields, |naming| {
            name_ranking(naming, query, depth)
        })?;
        Ok(Piece::Names(names))
    }));
    let mut names = Vec::new();
    let mut said = Vec::new();
    for piece in side_by_side(jobs) {
        match piece? {
            Piece::Names(ranking) => names = ranking,
            Piece::Said(ranking) => said = ranking,
        }
    }
    let fused = evidence_sum(&[&names, &said]);
    Ok(Lexical {
        total: fused.len() as u64,
        complete: names.len() < depth && said.len() < depth,
        names,
        said,
        fused,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn jobs_answer_in_the_order_given_and_a_panic_is_an_error() {
        let jobs: Vec<Job<'_, usize>> = (0..7)
            .map(|i| -> Job<'_, usize> {
                Box::new(move || {
                    if i == 3 {
                        panic!("job 3 fails");
                    }
                    Ok(i * 10)
                })
            })
            .collect();
        let results = side_by_side(jobs);
        let failed = results[3].as_ref().map(|_| ()).unwrap_err().to_string();
        assert!(failed.contains("lexical ranking"), "{failed}");
        let answered: Vec<usize> = results.into_iter().filter_map(|r| r.ok()).collect();
        assert_eq!(answered, [0, 10, 20, 40, 50, 60]);
    }
}
