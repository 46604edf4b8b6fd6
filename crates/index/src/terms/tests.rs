use super::words::MAX_TERM_BYTES;
use super::*;

/// The term tables in an LMDB environment of their own, in a temporary folder.
fn term_tables(
    map_size: usize,
) -> (
    tempfile::TempDir,
    milli_core::heed::Env<milli_core::heed::WithoutTls>,
    TermTables,
) {
    let dir = tempfile::tempdir().unwrap();
    let mut options = milli_core::heed::EnvOpenOptions::new().read_txn_without_tls();
    options
        .map_size(map_size)
        .max_dbs(super::super::graph::TABLE_COUNT);
    let env = unsafe { options.open(dir.path()) }.unwrap();
    let tables = super::super::graph::Tables::create(&env).unwrap().terms;
    (dir, env, tables)
}

#[test]
fn terms_are_folded_stemmed_and_without_stopwords() {
    let cases: &[(&str, &[&str])] = &[
        ("The meetings were running late", &["meet", "run", "late"]),
        ("Café CAFE cafés", &["cafe", "cafe", "cafe"]),
        ("don't x 42 v2", &["don", "42", "v2"]),
        ("[[Internal links]] #tag", &["intern", "link", "tag"]),
        ("Привет, мир", &["привет", "мир"]),
        ("同期する 日本", &["同期", "期す", "する", "日本"]),
        // Simplified Han characters as milli's normalizer writes them (据 has no pair).
        ("学习 學習", &["學習", "學習"]),
        ("数据库", &["數据", "据庫"]),
        ("a of the", &[]),
    ];
    for (text, want) in cases {
        assert_eq!(terms(text), *want, "{text:?}");
    }
}

#[test]
fn a_notes_terms_are_counted_once_each() {
    let counted = NoteTerms::of("p", "Tea, more tea; coffee. Tea!");
    let pairs: Vec<(&str, u16)> = counted.pairs().collect();
    assert_eq!(pairs, [("coffe", 1), ("more", 1), ("tea", 3)]);
    assert_eq!(counted.length, 5);
    assert_eq!(NoteTerms::of("p", "the of").pairs().count(), 0);
}

#[test]
fn rewritten_and_removed_notes_leave_nothing_behind() {
    let (_dir, env, tables) = term_tables(1 << 24);
    let mut txn = env.write_txn().unwrap();
    let note = |text: &str| Some(NoteTerms::of("p", text));
    let record = |txn: &mut RwTxn, notes: &[(&str, Option<NoteTerms>)]| {
        let notes: Vec<_> = notes
            .iter()
            .map(|(id, t)| (id.to_string(), t.clone()))
            .collect();
        tables.record(txn, &notes).unwrap();
    };
    record(
        &mut txn,
        &[
            ("d", note("tea tea coffee")),
            ("a", note("tea")),
            ("c", note("tea tea coffee")),
        ],
    );
    record(&mut txn, &[("b", note("tea tea coffee"))]);
    let ranked = |txn: &RoTxn, limit: usize, keep: &dyn Fn(&str) -> bool| {
        let found = tables.rank(txn, "p", &["tea".into()], keep, limit).unwrap();
        found.into_iter().map(|(id, _)| id).collect::<Vec<_>>()
    };
    assert_eq!(ranked(&txn, 10, &|_| true), ["a", "b", "c", "d"]);
    assert_eq!(ranked(&txn, 2, &|_| true), ["a", "b"], "a tie cut by id");
    assert_eq!(ranked(&txn, 2, &|id| id != "b"), ["a", "c"]);

    record(
        &mut txn,
        &[("a", note("coffee")), ("b", None), ("c", note("of the"))],
    );
    assert_eq!(ranked(&txn, 10, &|_| true), ["d"]);
    record(&mut txn, &[("a", None), ("d", None)]);
    assert_eq!(tables.postings.len(&txn).unwrap(), 0);
    assert_eq!(tables.note_terms.len(&txn).unwrap(), 0);
    assert_eq!(tables.note_ids.len(&txn).unwrap(), 0);
    assert!(tables.meta.get(&txn, &totals_key("p")).unwrap().is_none());
}

/// The ranking as it was first written, every scored note hashed and sorted: what
/// [`TermTables::rank`] must give, whatever shortcuts it takes.
fn exhaustive_rank(
    tables: &TermTables,
    txn: &RoTxn,
    query_terms: &[String],
    keep: &dyn Fn(&str) -> bool,
    limit: usize,
) -> Vec<(String, f64)> {
    let totals = tables.totals(txn, "p").unwrap();
    if totals.notes == 0 {
        return Vec::new();
    }
    let bm25 = Bm25::new(totals);
    let mut scores: std::collections::HashMap<u32, f64> = Default::default();
    let mut asked: Vec<&String> = Vec::new();
    for term in query_terms.iter() {
        if asked.contains(&term) {
            continue;
        }
        asked.push(term);
        let found: Vec<(u32, u16, u32)> = (tables.postings)
            .prefix_iter(txn, &term_prefix("p", term))
            .unwrap()
            .flat_map(|item| {
                let block = Block::decode(item.unwrap().1).unwrap();
                block.postings().collect::<Vec<_>>()
            })
            .collect();
        let weight = bm25.weight(bm25.idf(found.len()));
        for (number, tf, len) in found {
            *scores.entry(number).or_insert(0.0) += weight.score(tf, len);
        }
    }
    let mut named: Vec<(String, f64)> = scores
        .into_iter()
        .map(|(number, score)| {
            let id = tables.note_ids.get(txn, &number.to_be_bytes()).unwrap();
            (id.unwrap().to_string(), score)
        })
        .filter(|(id, _)| keep(id))
        .collect();
    named.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    named.truncate(limit);
    named
}

#[test]
fn the_ranking_equals_an_exhaustive_one_on_generated_notes() {
    let (_dir, env, tables) = term_tables(1 << 26);
    let mut txn = env.write_txn().unwrap();
    // A fixed xorshift: the same notes, queries and rejections on every run.
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move |below: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state % below as u64) as usize
    };
    let words = [
        "tea", "coffee", "milk", "sugar", "lemon", "honey", "water", "juice",
    ];
    // Few words and short notes: many notes score alike, so ties cross every cut, and blocks'
    // bounds tie with scores. Words are skewed (tea is everywhere, juice rare) so that some
    // ranges are skipped and some are not. Each round rewrites and removes notes numbered
    // in blocks written before, so numbers have gaps and blocks change in place.
    for round in 0..3 {
        let mut notes: Vec<(String, Option<NoteTerms>)> = Vec::new();
        for n in 0..2000 {
            let length = 1 + next(8);
            let text: Vec<&str> = (0..length)
                .map(|_| {
                    let among = 1 + next(words.len());
                    words[next(among)]
                })
                .collect();
            notes.push((
                format!("n{:04}", next(2500 + 1000 * round) + n % 7),
                Some(NoteTerms::of("p", &text.join(" "))),
            ));
            if next(8) == 0 {
                notes.push((format!("n{:04}", next(2500 + 1000 * round)), None));
            }
        }
        tables.record(&mut txn, &notes).unwrap();
        let blocks = tables.postings.len(&txn).unwrap();
        assert!(blocks > 50, "round {round}: {blocks} blocks");
        for case in 0..200 {
            let query: Vec<String> = (0..1 + next(3))
                .map(|_| terms(words[next(words.len())]).remove(0))
                .collect();
            let limit = [1, 5, 10, 100, 400, 5000][next(6)];
            let rejected = next(4);
            let keep = |id: &str| {
                rejected == 0 || id.bytes().map(usize::from).sum::<usize>() % 4 != rejected
            };
            let want = exhaustive_rank(&tables, &txn, &query, &keep, limit);
            let got = tables.rank(&txn, "p", &query, keep, limit).unwrap();
            assert_eq!(
                got, want,
                "round {round}, case {case}: {query:?}, limit {limit}, rejecting {rejected}"
            );
        }
    }
}

#[test]
fn a_blocks_bounds_are_the_postings_no_other_beats() {
    let postings = [
        (0, 1, 9),
        (1, 3, 20),
        (2, 3, 12),
        (3, 2, 12),
        (4, 1, 4),
        (5, 1, 4),
    ];
    let bytes = encode_block(&postings);
    let block = Block::decode(&bytes).unwrap();
    assert_eq!(block.bounds().collect::<Vec<_>>(), [(3, 12), (1, 4)]);
    assert_eq!(block.postings().collect::<Vec<_>>(), postings);
    let bm25 = Bm25::new(Totals {
        notes: 100,
        length: 1000,
    });
    let best = postings
        .iter()
        .map(|&(_, tf, len)| bm25.weight(2.0).score(tf, len))
        .fold(0.0, f64::max);
    assert_eq!(block.bound(&bm25.weight(2.0)), best);
}

#[test]
fn one_record_of_many_notes_leaves_what_one_record_per_note_leaves() {
    type Dump = Vec<(Vec<u8>, Vec<u8>)>;
    fn dump(tables: &TermTables, txn: &RoTxn) -> [Dump; 4] {
        let postings = tables.postings.remap_types::<Bytes, Bytes>();
        let note_terms = tables.note_terms.remap_types::<Bytes, Bytes>();
        let note_ids = tables.note_ids.remap_types::<Bytes, Bytes>();
        let meta = tables.meta.remap_types::<Bytes, Bytes>();
        [postings, note_terms, note_ids, meta].map(|db| {
            db.iter(txn)
                .unwrap()
                .map(|item| {
                    let (k, v) = item.unwrap();
                    (k.to_vec(), v.to_vec())
                })
                .collect()
        })
    }
    let note = |project: &str, text: &str| Some(NoteTerms::of(project, text));
    let first: Vec<(String, Option<NoteTerms>)> = vec![
        ("d".into(), note("p", "tea tea coffee")),
        ("a".into(), note("p", "tea")),
        ("c".into(), note("q", "tea milk milk")),
    ];
    // Rewrites, a removal, a note that loses every term, a new note, a note written twice
    // in one record and a removed note written again.
    let second: Vec<(String, Option<NoteTerms>)> = vec![
        ("a".into(), note("p", "coffee coffee tea")),
        ("d".into(), None),
        ("c".into(), note("q", "of the")),
        ("b".into(), note("p", "milk tea")),
        ("b".into(), note("p", "milk")),
        ("e".into(), note("q", "tea")),
        ("d".into(), note("p", "tea tea coffee")),
    ];
    let (_dir, env, tables) = term_tables(1 << 24);
    let mut txn = env.write_txn().unwrap();
    let mut one_by_one = Vec::new();
    for notes in [&first, &second] {
        for single in notes.iter() {
            tables
                .record(&mut txn, std::slice::from_ref(single))
                .unwrap();
        }
        one_by_one.push(dump(&tables, &txn));
    }
    txn.abort();
    let mut txn = env.write_txn().unwrap();
    let mut together = Vec::new();
    for notes in [&first, &second] {
        tables.record(&mut txn, notes).unwrap();
        together.push(dump(&tables, &txn));
    }
    assert_eq!(together, one_by_one);
    assert!(!together[1][0].is_empty(), "postings are left to compare");
}

#[test]
fn overlong_words_are_not_terms() {
    let hash = "f".repeat(MAX_TERM_BYTES + 1);
    assert_eq!(terms(&format!("{hash} kept")), ["kept"]);
}
