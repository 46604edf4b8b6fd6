//! The index as a whole: writes, searches, links, recovery after a dead writer, rebuilds.
use super::horizon::Horizon;
use super::query::Query;
use super::*;
use note::Relation;

pub(super) fn input(path: &str, title: &str, body: &str, links: &[&str]) -> WriteOp {
    WriteOp::Upsert(Box::new(NoteInput {
        project: "main".into(),
        path: path.into(),
        kind: NoteKind::Markdown,
        title: title.into(),
        note_type: "note".into(),
        content_type: "text/markdown".into(),
        requested_permalink: None,
        generated_permalink: Some(note::permalink::note_permalink("main", path, true)),
        tags: vec![],
        aliases: vec![],
        status: None,
        metadata: Default::default(),
        created_ms: 0,
        updated_ms: 0,
        checksum: vault::file::sha256_hex(body.as_bytes()),
        size: body.len() as u64,
        mtime_ns: 0,
        observations: vec![],
        relations: links
            .iter()
            .map(|t| Relation {
                relation_type: "links_to".into(),
                target: t.to_string(),
                context: None,
            })
            .collect(),
        warnings: vec![],
        search_text: body.into(),
    }))
}

/// An index in a new temporary folder, which lives as long as the folder is held.
fn fresh() -> (tempfile::TempDir, Index) {
    let dir = tempfile::tempdir().unwrap();
    let index = Index::open(dir.path()).unwrap();
    (dir, index)
}

/// A new index holding `notes`.
pub(super) fn holding(notes: Vec<WriteOp>) -> (tempfile::TempDir, Index) {
    let (dir, index) = fresh();
    index.write(notes).unwrap();
    (dir, index)
}

pub(super) fn note_at(index: &Index, path: &str) -> NoteRecord {
    let txn = index.read_txn().unwrap();
    let id = index
        .tables
        .id_by_path(&txn, "main", path)
        .unwrap()
        .unwrap();
    index.tables.get_note(&txn, &id).unwrap().unwrap()
}

fn delete(index: &Index, path: &str) {
    index
        .write(vec![WriteOp::Delete {
            project: "main".into(),
            path: path.into(),
        }])
        .unwrap();
}

/// Writes `a.md` holding "kiwi", which search then finds; the note's id.
fn searchable_kiwi(index: &Index) -> String {
    index.write(vec![input("a.md", "A", "kiwi", &[])]).unwrap();
    assert_eq!(hits(index, "kiwi"), 1);
    note_at(index, "a.md").id
}

fn hits(index: &Index, text: &str) -> u64 {
    let q = Query {
        text: text.into(),
        limit: 10,
        ..Default::default()
    };
    index.search(&q).unwrap().total
}

/// Puts a note in the search outbox as the writer of `token` (`owner#commit`) leaves it.
fn mark_dirty(index: &Index, id: &str, token: &str) {
    let mut wtxn = index.env.write_txn().unwrap();
    index.tables.search_dirty.put(&mut wtxn, id, token).unwrap();
    wtxn.commit().unwrap();
}

/// Puts a note in the search outbox of a writer that is gone, with no index open: an open
/// index's search indexer takes a gone writer's entries, and a pass kicked by its own last
/// commit may still be on its way.
fn mark_dirty_closed(dir: &Path, id: &str, token: &str) {
    let mut options = env_options(GRAPH_MAP_SIZE);
    options.max_dbs(graph::TABLE_COUNT);
    let env = unsafe { options.open(dir.join("graph")) }.unwrap();
    let tables = Tables::create(&env).unwrap();
    let mut wtxn = env.write_txn().unwrap();
    tables.search_dirty.put(&mut wtxn, id, token).unwrap();
    wtxn.commit().unwrap();
}

fn handed(stamp: u64, checksum: &str, text: &str) -> documents::Handed {
    documents::Handed {
        stamp,
        checksum: checksum.into(),
        text: text.into(),
    }
}

#[test]
fn a_search_after_a_write_finds_it() {
    let (_dir, index) = fresh();
    assert!(!index.rebuilt, "a new index is not a rebuilt one");
    let words = [
        "aardvark", "bison", "capybara", "dingo", "echidna", "ferret", "gazelle", "hyena",
    ];
    for (i, word) in words.iter().enumerate() {
        index
            .write(vec![input(
                &format!("n{i}.md"),
                &format!("Note {i}"),
                word,
                &[],
            )])
            .unwrap();
        assert_eq!(hits(&index, word), 1, "write {i} is searchable at once");
    }
    index.close();
}

#[test]
fn every_acknowledged_write_of_concurrent_writers_is_searchable() {
    let (_dir, index) = fresh();
    std::thread::scope(|scope| {
        for writer in 0..4 {
            let index = &index;
            scope.spawn(move || {
                for i in 0..40 {
                    let path = format!("w{writer}/n{i}.md");
                    let body = format!("writer {writer} note {i}");
                    let outcome = index
                        .write(vec![input(&path, &path, &body, &[])])
                        .unwrap()
                        .pop()
                        .unwrap()
                        .unwrap();
                    let OpOutcome::Upserted { id, .. } = outcome else {
                        panic!("{outcome:?}");
                    };
                    assert_eq!(
                        index.stored_body(&id).unwrap().as_deref(),
                        Some(body.as_str()),
                        "{path} is searchable once its write returned"
                    );
                }
            });
        }
    });
    index.close();
}

#[test]
fn links_resolve_when_the_target_appears_and_unresolve_when_it_goes() {
    let (_dir, index) = holding(vec![input(
        "a.md",
        "A",
        "a",
        &["Search UI", "b", "Nothing"],
    )]);
    let a = note_at(&index, "a.md");
    assert!(a.relations.iter().all(|r| r.to_id.is_none()));

    index
        .write(vec![
            input("specs/Search UI.md", "Search UI", "widgets", &[]),
            input("b.md", "B", "b", &[]),
        ])
        .unwrap();
    let a = note_at(&index, "a.md");
    let ui = note_at(&index, "specs/Search UI.md");
    let b = note_at(&index, "b.md");
    let targets: Vec<_> = a.relations.iter().map(|r| r.to_id.clone()).collect();
    assert_eq!(targets, vec![Some(ui.id.clone()), Some(b.id.clone()), None]);

    delete(&index, "specs/Search UI.md");
    let a = note_at(&index, "a.md");
    assert_eq!(
        a.relations[0].to_id, None,
        "a deleted target leaves the link unresolved"
    );
    assert_eq!(hits(&index, "widgets"), 0);
    index.close();
}

#[test]
fn targets_arriving_one_batch_at_a_time_resolve_their_links_and_leave_only_the_rest_waiting() {
    let (_dir, index) = holding(vec![input("a.md", "A", "a", &["B", "C", "Nothing"])]);
    let targets = |index: &Index| -> Vec<Option<String>> {
        let a = note_at(index, "a.md");
        a.relations.iter().map(|r| r.to_id.clone()).collect()
    };
    let waiting = |index: &Index| -> Vec<String> {
        let txn = index.read_txn().unwrap();
        let mut keys: Vec<String> = (index.tables.unresolved.iter(&txn).unwrap())
            .map(|item| item.unwrap().0.split('\0').nth(1).unwrap().to_string())
            .collect();
        keys.sort();
        keys
    };
    assert_eq!(
        waiting(&index),
        ["b", "c", "main/b", "main/c", "main/nothing", "nothing"]
    );

    index.write(vec![input("b.md", "B", "b", &[])]).unwrap();
    let b = note_at(&index, "b.md").id;
    assert_eq!(targets(&index), [Some(b.clone()), None, None]);
    index.write(vec![input("c.md", "C", "c", &[])]).unwrap();
    let c = note_at(&index, "c.md").id;
    assert_eq!(targets(&index), [Some(b), Some(c.clone()), None]);
    assert_eq!(waiting(&index), ["main/nothing", "nothing"]);

    // A target gone makes its link wait again, and one coming back takes it.
    delete(&index, "b.md");
    assert_eq!(targets(&index), [None, Some(c.clone()), None]);
    assert_eq!(waiting(&index), ["b", "main/b", "main/nothing", "nothing"]);
    index.write(vec![input("b.md", "B", "b", &[])]).unwrap();
    let b = note_at(&index, "b.md").id;
    assert_eq!(targets(&index), [Some(b), Some(c), None]);
    assert_eq!(waiting(&index), ["main/nothing", "nothing"]);
    index.close();
}

#[test]
fn a_move_keeps_id_permalink_and_incoming_links() {
    let (_dir, index) = holding(vec![
        input("old.md", "Old", "wombat", &[]),
        input("src.md", "Src", "s", &["Old"]),
    ]);
    let before = note_at(&index, "old.md");
    index
        .write(vec![WriteOp::Move {
            project: "main".into(),
            from: "old.md".into(),
            to: "dir/new.md".into(),
        }])
        .unwrap();
    let after = note_at(&index, "dir/new.md");
    assert_eq!(
        (after.id.clone(), after.permalink.clone()),
        (before.id.clone(), before.permalink.clone())
    );
    assert_eq!(
        note_at(&index, "src.md").relations[0].to_id,
        Some(before.id)
    );
    let txn = index.read_txn().unwrap();
    assert_eq!(
        index.tables.id_by_path(&txn, "main", "old.md").unwrap(),
        None
    );
    drop(txn);
    assert_eq!(hits(&index, "wombat"), 1);
    index.close();
}

#[test]
fn a_search_document_a_dead_process_deleted_unrecorded_counts_as_lost_text() {
    // The graph says milli holds a note's text, but a process died between the milli
    // commit that deleted the document and the graph commit recording it; the note is
    // waiting in the outbox of that dead process, its body gone with it.
    let dir = tempfile::tempdir().unwrap();
    let graph = dir.path().join("graph/data.mdb");
    let index = Index::open(dir.path()).unwrap();
    let id = searchable_kiwi(&index);
    index.close();
    mark_dirty_closed(dir.path(), &id, "2147483647:gone#1");
    let graph_then = std::fs::read(&graph).unwrap();

    let index = Index::open(dir.path()).unwrap();
    delete(&index, "a.md");
    assert_eq!(hits(&index, "kiwi"), 0);
    index.close();
    std::fs::write(&graph, graph_then).unwrap();

    let index = Index::open(dir.path()).unwrap();
    assert_eq!(index.recover().unwrap(), 1, "the note's text is lost");
    assert_eq!(
        note_at(&index, "a.md").checksum,
        "",
        "its file is to be read again"
    );
    assert_eq!(
        index
            .indexed_body(&id)
            .unwrap()
            .map(|(checksum, _)| checksum),
        Some(String::new()),
        "what search holds instead passes for no text"
    );
    index.close();
}

#[test]
fn a_body_handed_over_by_a_write_the_pass_does_not_see_waits_for_the_next_pass() {
    let (dir, index) = fresh();
    let id = searchable_kiwi(&index);
    // A newer write has handed over its body and is not committed yet.
    let owner = owner::Owner::claim(dir.path()).unwrap();
    let bodies = std::sync::Mutex::new(std::collections::HashMap::from([(
        id.clone(),
        handed(2, "newer", "mango"),
    )]));
    mark_dirty(&index, &id, &format!("{}#1", owner.name));
    let flush = |index: &Index| {
        let nothing_in_flight = Default::default();
        documents::flush(
            &index.env,
            &index.tables,
            &index.milli,
            &bodies,
            &owner,
            (10, &nothing_in_flight),
        )
    };
    let done = flush(&index).unwrap().unwrap();
    assert!(
        bodies.lock().unwrap().contains_key(&id),
        "the newer body is left for the pass that sees its write"
    );
    assert!(done.stale.is_empty(), "{done:?}");

    // The note deleted, and a body waiting of a write after (kept) or before (dropped)
    // the delete this snapshot sees.
    delete(&index, "a.md");
    index.wait_searchable().unwrap();
    for (stamp, kept) in [(6, true), (4, false)] {
        bodies
            .lock()
            .unwrap()
            .insert(id.clone(), handed(stamp, "again", "papaya"));
        mark_dirty(&index, &id, &format!("{}#5", owner.name));
        flush(&index).unwrap();
        assert_eq!(
            bodies.lock().unwrap().contains_key(&id),
            kept,
            "a body of commit {stamp} against a delete of commit 5"
        );
    }
    index.write(vec![input("a.md", "A", "kiwi", &[])]).unwrap();

    let clear = |checksum: &str| {
        index
            .write(vec![WriteOp::SearchDone(SearchDone {
                entries: vec![],
                stale: vec![(id.clone(), checksum.to_string())],
                terms: vec![],
            })])
            .unwrap();
        note_at(&index, "a.md").checksum
    };
    assert_ne!(clear("an older text"), "", "a newer text is not lost");
    let current = note_at(&index, "a.md").checksum;
    assert_eq!(clear(&current), "", "the text that was lost");
    index.close();
}

#[test]
fn permalinks_are_unique_and_ids_are_stable_across_rebuilds() {
    let (_dir, index) = holding(vec![
        input("x.md", "X", "1", &[]),
        input("X.md", "X", "2", &[]),
    ]);
    let (a, b) = (note_at(&index, "x.md"), note_at(&index, "X.md"));
    assert_eq!(a.permalink.as_deref(), Some("main/x"));
    assert_eq!(b.permalink.as_deref(), Some("main/x-1"));
    index.close();

    let other = tempfile::tempdir().unwrap();
    let fresh = Index::open(other.path()).unwrap();
    fresh.write(vec![input("x.md", "X", "1", &[])]).unwrap();
    assert_eq!(
        note_at(&fresh, "x.md").id,
        a.id,
        "ids derive from where a note was first seen"
    );
    fresh.close();
}

#[test]
fn another_schema_version_rebuilds_the_index() {
    let (dir, index) = holding(vec![input("a.md", "A", "a", &[])]);
    let mut wtxn = index.env.write_txn().unwrap();
    index
        .tables
        .meta
        .put(&mut wtxn, "schema_version", b"gitmem-graph-0")
        .unwrap();
    wtxn.commit().unwrap();
    index.close();
    assert_reopened_empty(dir.path(), "a.md");
}

/// Opening the index in `dir` finds it deleted and made anew: `path` is no longer there.
pub(super) fn assert_reopened_empty(dir: &Path, path: &str) {
    let reopened = Index::open(dir).unwrap();
    assert!(reopened.rebuilt);
    let txn = reopened.read_txn().unwrap();
    assert_eq!(
        reopened.tables.id_by_path(&txn, "main", path).unwrap(),
        None
    );
    drop(txn);
    reopened.close();
}

#[test]
fn an_index_without_a_version_is_rebuilt_only_when_it_holds_notes() {
    for (notes, rebuilt) in [(vec![], false), (vec![input("a.md", "A", "a", &[])], true)] {
        let (dir, index) = holding(notes);
        let mut wtxn = index.env.write_txn().unwrap();
        index
            .tables
            .meta
            .delete(&mut wtxn, "schema_version")
            .unwrap();
        wtxn.commit().unwrap();
        index.close();
        // What another process found when it opened the files of an index being created,
        // before their creator wrote the version.
        std::fs::write(dir.path().join("search").join("creator-was-here"), "").unwrap();

        let reopened = Index::open(dir.path()).unwrap();
        assert_eq!(reopened.rebuilt, rebuilt);
        let kept = dir.path().join("search").join("creator-was-here").exists();
        assert_eq!(kept, !rebuilt, "an index without notes is opened as it is");
        reopened.close();
    }
}

/// Read-your-writes: a client's search waits for that client's writes, never for another's.
/// The search indexer is held back by a milli write transaction the test keeps open, so a
/// search that waited for the stranger's write would never return.
#[test]
fn a_search_waits_for_its_own_clients_writes_and_not_for_a_strangers() {
    let (_dir, index) = fresh();
    let (writer, reader) = (Arc::new(Horizon::default()), Arc::new(Horizon::default()));
    let index = Arc::new(index);
    let held = index.milli.write_txn().unwrap();
    writer.scope(|| index.write(vec![input("a.md", "A", "kiwi", &[])]).unwrap());
    assert!(writer.commit() > 0, "the write moved its client's horizon");
    assert_eq!(reader.commit(), 0, "and no one else's");

    let (answer, answered) = std::sync::mpsc::channel();
    let searching = index.clone();
    std::thread::spawn(move || {
        let _ = answer.send(reader.scope(|| hits(&searching, "kiwi")));
    });
    let stranger_sees = answered
        .recv_timeout(std::time::Duration::from_secs(60))
        .expect("a reader that wrote nothing does not wait for the search indexer");
    assert_eq!(stranger_sees, 0, "the write is not searchable yet");

    drop(held);
    assert_eq!(
        writer.scope(|| hits(&index, "kiwi")),
        1,
        "its writer finds it"
    );
}

/// Under a stream of writes, search passes are paced: another client sees a write at the next
/// pass, while the writer's own search asks for that pass at once. With a pace of an hour, a
/// search that had to wait for the pace would never return.
#[test]
fn a_paced_indexer_serves_a_writers_own_search_at_once_and_strangers_at_the_next_pass() {
    let (_dir, index) = fresh();
    index
        .writer()
        .set_search_pace(std::time::Duration::from_secs(3600));
    let (writer, stranger) = (Arc::new(Horizon::default()), Arc::new(Horizon::default()));
    let index = Arc::new(index);
    let searches = |client: &Arc<Horizon>, text: &'static str| {
        let (index, client) = (index.clone(), client.clone());
        let (answer, answered) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let _ = answer.send(client.scope(|| hits(&index, text)));
        });
        answered
            .recv_timeout(std::time::Duration::from_secs(60))
            .expect("no search waits for the pace")
    };
    writer.scope(|| index.write(vec![input("a.md", "A", "kiwi", &[])]).unwrap());
    assert_eq!(searches(&writer, "kiwi"), 1, "the first pass is not paced");

    // The pass that indexed kiwi found notes, so the next one waits for the pace.
    writer.scope(|| index.write(vec![input("b.md", "B", "mango", &[])]).unwrap());
    assert_eq!(
        searches(&stranger, "mango"),
        0,
        "a stranger waits for the next pass"
    );
    assert_eq!(
        searches(&writer, "mango"),
        1,
        "its writer asks for that pass now"
    );
    assert_eq!(
        searches(&stranger, "mango"),
        1,
        "and everyone sees what it indexed"
    );
}

#[test]
fn hundreds_of_concurrent_readers_each_get_their_transactions_and_a_search_still_runs() {
    let (_dir, index) = holding(vec![input("kiwi.md", "Kiwi", "a kiwi grows", &[])]);
    // What 512 concurrent tool calls may hold, past LMDB's default of 126 readers.
    let readers = 600;
    let graph: Vec<_> = (0..readers).map(|_| index.read_txn().unwrap()).collect();
    let milli: Vec<_> = (0..readers)
        .map(|_| index.milli.read_txn().unwrap())
        .collect();
    assert_eq!(hits(&index, "kiwi"), 1);
    drop((graph, milli));
}

#[test]
fn notes_are_listed_by_type_from_the_graph_as_soon_as_written() {
    let typed =
        |path: &str, note_type: &str, kind: NoteKind| match input(path, path, note_type, &[]) {
            WriteOp::Upsert(mut note) => {
                note.note_type = note_type.into();
                note.kind = kind;
                WriteOp::Upsert(note)
            }
            _ => unreachable!(),
        };
    let (_dir, index) = holding(vec![
        typed("a.md", "Schema", NoteKind::Markdown),
        typed("b.md", "note", NoteKind::Markdown),
        typed("c.png", "schema", NoteKind::File),
    ]);
    let ids = |t: &str| index.ids_of_type("main", t).unwrap();
    let a = note_at(&index, "a.md").id;
    assert_eq!(
        ids("schema"),
        std::slice::from_ref(&a),
        "snake-cased, markdown only"
    );
    index
        .write(vec![typed("a.md", "Person", NoteKind::Markdown)])
        .unwrap();
    assert!(ids("schema").is_empty(), "a new type moves the note");
    assert_eq!(ids("person"), [a]);
    delete(&index, "a.md");
    assert!(ids("person").is_empty());
}

#[test]
fn milli_builds_no_facet_search_tables() {
    let (_dir, index) = fresh();
    let rtxn = index.milli.read_txn().unwrap();
    assert!(!index.milli.facet_search(&rtxn).unwrap());
}

#[test]
fn a_bulk_load_of_several_search_commits_is_searchable_whole() {
    let notes = 2 * writer::SEARCH_BATCH + 1;
    let (_dir, index) = holding(
        (0..notes)
            .map(|i| input(&format!("n{i}.md"), &format!("N{i}"), "plum", &[]))
            .collect(),
    );
    index.wait_searchable().unwrap();
    assert_eq!(hits(&index, "plum"), notes as u64);
    assert_eq!(index.writer().lost_bodies(), 0, "no pass took a text twice");
    let txn = index.read_txn().unwrap();
    assert!(
        index.tables.search_dirty.is_empty(&txn).unwrap(),
        "outbox drained"
    );
}

#[test]
fn documents_by_id_come_in_the_order_asked_with_none_for_an_unknown_id() {
    let (_dir, index) = holding(vec![
        input("a.md", "Alpha", "first", &[]),
        input("b.md", "Beta", "second", &[]),
    ]);
    index.wait_searchable().unwrap();
    let a = documents::entity_doc_id(&note_at(&index, "a.md").id);
    let b = documents::entity_doc_id(&note_at(&index, "b.md").id);
    let asked = [b.clone(), "n:unknown".to_string(), a.clone(), b.clone()];
    let titles: Vec<Option<String>> = index
        .search_documents_by_id(&asked)
        .unwrap()
        .into_iter()
        .map(|found| found.map(|(_, doc)| doc["title"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(
        titles,
        [Some("Beta"), None, Some("Alpha"), Some("Beta")].map(|t| t.map(String::from))
    );
}

#[test]
fn released_map_pages_read_back_the_same_notes_and_hits() {
    let (_dir, index) = holding(vec![
        input("a.md", "A", "kiwi", &[]),
        input("b.md", "B", "mango", &["A"]),
    ]);
    assert_eq!(hits(&index, "kiwi"), 1);
    let before = note_at(&index, "b.md");
    for dir in [index.milli.path(), index.env.path()] {
        let map = dir.join("data.mdb").canonicalize().unwrap();
        assert!(
            !resident::mapped_ranges(&map).is_empty(),
            "{} is found among the process's maps",
            map.display()
        );
        resident::release_map(dir);
    }
    assert_eq!(note_at(&index, "b.md"), before);
    assert_eq!(hits(&index, "kiwi"), 1);
    assert_eq!(hits(&index, "mango"), 1);
}

#[test]
fn naming_reads_matches_words_as_written_title_lengths_and_ids() {
    let (_dir, index) = holding(vec![
        input("a.md", "Kiwi", "fruit", &[]),
        input("b.md", "Kiwis In A Tart", "dessert", &[]),
        input("c.md", "Mango", "kiwi in the body only", &[]),
    ]);
    index.wait_searchable().unwrap();
    let a = documents::entity_doc_id(&note_at(&index, "a.md").id);
    let b = documents::entity_doc_id(&note_at(&index, "b.md").id);
    let title = vec!["title".to_string()];
    let (ids, exact, lengths) = index
        .naming(None, &title, |naming| -> Result<_, IndexError> {
            assert_eq!(naming.scope().len(), 3, "no filter: every document");
            let matches = naming.word_matches("kiwi")?;
            let exact = naming.exact_matches("Kiwi", &["title"])?.expect("one word");
            let docids: Vec<u32> = matches.iter().collect();
            let lengths: Vec<usize> = naming
                .by_title_length(&matches)?
                .into_iter()
                .map(|(words, docs)| {
                    assert_eq!(docs.len(), 1);
                    words
                })
                .collect();
            let ids: Vec<(u32, String)> = naming.ids(&docids)?;
            let exact: Vec<String> = ids
                .iter()
                .filter(|(docid, _)| exact.contains(*docid))
                .map(|(_, id)| id.clone())
                .collect();
            let mut ids: Vec<String> = ids.into_iter().map(|(_, id)| id).collect();
            ids.sort();
            Ok((ids, exact, lengths))
        })
        .unwrap();
    let mut both = vec![a.clone(), b];
    both.sort();
    assert_eq!(ids, both, "the prefix match counts, the body does not");
    assert_eq!(exact, [a], "only the title that holds the word as written");
    assert_eq!(lengths, [1, 4], "shortest title first");
    let none = index
        .naming(None, &title, |naming| {
            naming.exact_matches("kiwi-tart", &["title"])
        })
        .unwrap();
    assert!(none.is_none(), "two words to milli");
}

/// Search documents hold links as written: a note whose link a new note resolves, or whose
/// target is renamed or moved, keeps its search documents and stays out of the search outbox.
#[test]
fn resolving_renaming_or_moving_a_link_target_re_indexes_only_the_target() {
    let dir = tempfile::tempdir().unwrap();
    let mut options = env_options(GRAPH_MAP_SIZE);
    options.max_dbs(graph::TABLE_COUNT);
    let env = unsafe { options.open(dir.path()) }.unwrap();
    let tables = Tables::create(&env).unwrap();
    let outbox_after = |ops: Vec<WriteOp>| -> Vec<String> {
        let mut wtxn = env.write_txn().unwrap();
        tables.search_dirty.clear(&mut wtxn).unwrap();
        let mut graph = graph::GraphWriter::new(&tables, "test", 1);
        for op in &ops {
            graph.apply(&mut wtxn, op).unwrap();
        }
        graph.finish(&mut wtxn).unwrap();
        let outbox = tables
            .search_dirty
            .iter(&wtxn)
            .unwrap()
            .map(|item| item.unwrap().0.to_string())
            .collect();
        wtxn.commit().unwrap();
        outbox
    };
    let id_at = |path: &str| {
        let txn = env.read_txn().unwrap();
        tables.id_by_path(&txn, "main", path).unwrap().unwrap()
    };
    outbox_after(vec![input("a.md", "A", "see beta", &["Beta"])]);
    let target_of_a = || {
        let txn = env.read_txn().unwrap();
        let a = tables.get_note(&txn, &id_at("a.md")).unwrap().unwrap();
        a.relations[0].to_id.clone()
    };
    assert_eq!(target_of_a(), None);

    assert_eq!(
        outbox_after(vec![input("b.md", "Beta", "b", &[])]),
        [id_at("b.md")]
    );
    assert_eq!(
        target_of_a(),
        Some(id_at("b.md")),
        "the new note resolved A's link"
    );

    let renamed = outbox_after(vec![input("b.md", "Beta Two", "b again", &[])]);
    assert_eq!(renamed, [id_at("b.md")]);

    let moved = outbox_after(vec![WriteOp::Move {
        project: "main".into(),
        from: "b.md".into(),
        to: "c.md".into(),
    }]);
    assert_eq!(moved, [id_at("c.md")]);
}
