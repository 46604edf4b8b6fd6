//! A running server follows the files: edits on disk show up within a second, editors that save
//! by rename keep their notes, deletes apply, and two servers on one root see each other.

use std::fs;
use std::time::Instant;

use crate::common::mcp::{ready, Mcp};
use crate::common::{eventually, SLOW};
use serde_json::json;

fn hits(mcp: &mut Mcp, query: &str) -> u64 {
    mcp.call(
        "search_notes",
        json!({"query": query, "output_format": "json"}),
    )
    .json()["total"]
        .as_u64()
        .unwrap_or(0)
}

/// Waits for a condition and reports how long it took (the budget of a second is checked by
/// the benchmark, not here).
fn reflected(what: &str, mut check: impl FnMut() -> bool) {
    let start = Instant::now();
    assert!(eventually(SLOW, &mut check), "{what} was never reflected");
    eprintln!("{what}: reflected after {} ms", start.elapsed().as_millis());
}

#[test]
fn files_created_edited_renamed_and_deleted_on_disk_are_reflected() {
    let dir = tempfile::tempdir().unwrap();
    let main = dir.path().join("projects/main");
    fs::create_dir_all(&main).unwrap();
    let mut mcp = Mcp::start(dir.path());
    ready(&mut mcp, SLOW);

    fs::write(
        main.join("wombat.md"),
        "# Wombat\n\n- [fact] wombats dig burrows\n",
    )
    .unwrap();
    reflected("a created file", || hits(&mut mcp, "burrows") == 1);

    fs::write(
        main.join("wombat.md"),
        "# Wombat\n\n- [fact] wombats eat grass\n",
    )
    .unwrap();
    reflected("an edit", || {
        hits(&mut mcp, "grass") == 1 && hits(&mut mcp, "burrows") == 0
    });
    let id = mcp
        .call(
            "search_notes",
            json!({"query": "grass", "output_format": "json"}),
        )
        .json()["results"][0]["external_id"]
        .clone();

    // vim and Obsidian: write a temp file, then rename it over the note.
    fs::write(main.join(".wombat.md.swp"), "swap").unwrap();
    fs::write(
        main.join("wombat.md.tmp"),
        "# Wombat\n\n- [fact] wombats are marsupials\n",
    )
    .unwrap();
    fs::rename(main.join("wombat.md.tmp"), main.join("wombat.md")).unwrap();
    fs::remove_file(main.join(".wombat.md.swp")).unwrap();
    reflected("a save by rename", || hits(&mut mcp, "marsupials") == 1);
    let after = mcp
        .call(
            "search_notes",
            json!({"query": "marsupials", "output_format": "json"}),
        )
        .json();
    assert_eq!(
        after["results"][0]["external_id"], id,
        "the note keeps its id"
    );

    fs::create_dir_all(main.join("animals")).unwrap();
    fs::rename(main.join("wombat.md"), main.join("animals/wombat.md")).unwrap();
    reflected("a rename", || {
        mcp.call(
            "search_notes",
            json!({"query": "marsupials", "output_format": "json"}),
        )
        .json()["results"][0]["file_path"]
            == "animals/wombat.md"
    });

    fs::remove_file(main.join("animals/wombat.md")).unwrap();
    reflected("a delete", || hits(&mut mcp, "marsupials") == 0);
    assert!(!main.join("wombat.md.tmp").exists());

    // A folder renamed or deleted whole: the events name the folder, not its files.
    fs::create_dir_all(main.join("zoo")).unwrap();
    fs::write(main.join("zoo/koala.md"), "# Koala\n\neats eucalyptus\n").unwrap();
    fs::write(main.join("zoo/emu.md"), "# Emu\n\nnever eats eucalyptus\n").unwrap();
    reflected("a new folder's files", || hits(&mut mcp, "eucalyptus") == 2);
    fs::rename(main.join("zoo"), main.join("park")).unwrap();
    reflected("a renamed folder", || {
        let found = mcp
            .call(
                "search_notes",
                json!({"query": "eucalyptus", "output_format": "json"}),
            )
            .json();
        let paths: Vec<&str> = found["results"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|r| r["file_path"].as_str())
            .collect();
        paths.len() == 2 && paths.iter().all(|p| p.starts_with("park/"))
    });
    fs::remove_dir_all(main.join("park")).unwrap();
    reflected("a deleted folder", || hits(&mut mcp, "eucalyptus") == 0);
}

#[test]
fn two_servers_on_one_root_see_each_others_writes() {
    let dir = tempfile::tempdir().unwrap();
    let mut a = Mcp::start(dir.path());
    let mut b = Mcp::start(dir.path());
    ready(&mut a, SLOW);
    ready(&mut b, SLOW);
    for i in 0..5 {
        a.text("write_note", json!({"title": format!("From A {i}"), "directory": "a", "content": format!("quokka {i} written by a")}));
        b.text("write_note", json!({"title": format!("From B {i}"), "directory": "b", "content": format!("numbat {i} written by b")}));
    }
    reflected("A's writes in B", || hits(&mut b, "quokka") == 5);
    reflected("B's writes in A", || hits(&mut a, "numbat") == 5);
    let read = b.text("read_note", json!({"identifier": "a/from-a-3"}));
    assert!(read.contains("quokka 3 written by a"), "{read}");
    b.text(
        "edit_note",
        json!({"identifier": "a/from-a-0", "operation": "append", "content": "edited by b"}),
    );
    reflected("B's edit in A", || hits(&mut a, "edited") == 1);
    drop(a);
    drop(b);

    let status = crate::common::gitmem(dir.path(), &["status", "--json"])
        .ok()
        .json();
    assert_eq!(
        status["projects"][0]["notes"], 10,
        "nothing lost or duplicated"
    );
}
