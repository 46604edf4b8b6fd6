//! `cargo bench`: gitmem's hot paths in process, timed by criterion, which compares each run
//! with the last one it saved (or with a named baseline: `--save-baseline` / `--baseline`) and
//! says which got slower. Groups: `parse` (a typical and a long note), `index_write`
//! (write_note through the service), `search` (search_notes, text), `context` (build_context
//! depth 2), `mcp_dispatch` (a tool call as the MCP server and `gitmem tool` make it: JSON
//! arguments parsed, the service called, the reply rendered).
//!
//! What only a client sees (stdio framing, the server's threads, a model) stays with
//! `benches/mcp_latency.py`. The vaults are `gitmem bench generate`'s, generated and indexed
//! into a temporary root on first use, outside the timed loops, and removed at the end.

use std::cell::OnceCell;
use std::hint::black_box;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use criterion::measurement::WallTime;
use criterion::{criterion_group, criterion_main, BenchmarkGroup, Criterion, Throughput};
use gitmem::mcp::tools::{self, ToolCtx};
use gitmem::service::context::ContextRequest;
use gitmem::service::notes::WriteNoteRequest;
use gitmem::service::scope::ProjectChoice;
use gitmem::service::search::SearchRequest;
use gitmem::service::sync::SyncMode;
use gitmem::service::App;
use gitmem::vault::generate::{generate, passages, VaultSpec, DEFAULT_SEED};
use serde_json::{json, Value};
use tempfile::TempDir;

/// The sizes searched; 10,000 notes is the size the design's latency budgets are set at.
const SIZES: [usize; 2] = [1_000, 10_000];
/// The size of the vault the writes go to.
const WRITE_VAULT: usize = 1_000;
/// Words of the generated vocabulary, one to three a query, as the MCP latency script asks.
const QUERIES: &[&str] = &[
    "memory",
    "search index",
    "graph link sync",
    "design decision",
    "lmdb watcher",
    "release roadmap meeting",
    "parser token",
    "canvas",
];

/// A data root whose default project is a generated vault, indexed.
struct Vault {
    ctx: ToolCtx,
    permalinks: Vec<String>,
    // Dropped after the app has let go of the index.
    _root: TempDir,
}

impl Vault {
    fn new(notes: usize) -> Self {
        let root = tempfile::tempdir().expect("a temporary root");
        generate(
            &root.path().join("projects/main"),
            VaultSpec {
                notes,
                seed: DEFAULT_SEED,
            },
        )
        .expect("the generated vault");
        let app = App::open(root.path()).expect("opening the temporary root");
        for project in app.projects(None).expect("the projects of the root") {
            app.sync_project(&project, SyncMode::Incremental, &|_| {})
                .expect("indexing the generated vault");
        }
        let ctx = ToolCtx::new(Arc::new(app), None);
        let permalinks = QUERIES
            .iter()
            .flat_map(|q| search(&ctx.app, q).response.results)
            .filter_map(|r| r.permalink)
            .collect::<Vec<_>>();
        assert!(!permalinks.is_empty(), "the searches found no note");
        Self {
            ctx,
            permalinks,
            _root: root,
        }
    }

    fn app(&self) -> &App {
        &self.ctx.app
    }
}

impl Drop for Vault {
    fn drop(&mut self) {
        self.ctx.app.shutdown();
    }
}

/// Vaults generated when a benchmark that is not filtered out first needs them.
struct Vaults {
    sizes: Vec<(usize, OnceCell<Vault>)>,
}

impl Vaults {
    fn new(sizes: &[usize]) -> Self {
        Self {
            sizes: sizes.iter().map(|&n| (n, OnceCell::new())).collect(),
        }
    }

    fn get(&self, notes: usize) -> &Vault {
        let (_, cell) = self
            .sizes
            .iter()
            .find(|(n, _)| *n == notes)
            .expect("a size the benchmark declared");
        cell.get_or_init(|| Vault::new(notes))
    }
}

fn search(app: &App, query: &str) -> gitmem::service::search::ScopedSearch {
    let request = SearchRequest {
        query: Some(query.to_string()),
        page: 1,
        page_size: 10,
        ..Default::default()
    };
    app.search_notes(&ProjectChoice::default(), false, &request)
        .expect("a text search")
}

fn context_request() -> ContextRequest {
    ContextRequest {
        uri: String::new(),
        depth: 2,
        since: None,
        page: 1,
        page_size: 10,
        max_related: 10,
        include_superseded: false,
        stop: None,
    }
}

/// Cycles through `items`, so successive iterations do not ask the same thing.
fn cycling<'a, T>(items: &'a [T]) -> impl FnMut() -> &'a T + 'a {
    let mut next = 0;
    move || {
        let item = &items[next];
        next = (next + 1) % items.len();
        item
    }
}

fn call(ctx: &ToolCtx, tool: &str, args: Value) -> String {
    let Value::Object(args) = args else {
        unreachable!("tool arguments are built as objects")
    };
    let reply = tools::call(ctx, tool, &args);
    assert!(!reply.is_error(), "{tool}: {}", reply.text());
    reply.text()
}

/// The markdown files of a small generated vault, shortest first.
fn sample_notes() -> Vec<(String, String)> {
    let dir = tempfile::tempdir().expect("a temporary folder");
    generate(
        dir.path(),
        VaultSpec {
            notes: 200,
            seed: DEFAULT_SEED,
        },
    )
    .expect("the generated vault");
    let mut notes = Vec::new();
    collect_markdown(dir.path(), dir.path(), &mut notes);
    notes.sort_by_key(|(_, text)| text.len());
    notes
}

fn collect_markdown(root: &Path, dir: &Path, out: &mut Vec<(String, String)>) {
    for entry in std::fs::read_dir(dir).expect("a generated folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            collect_markdown(root, &path, out);
        } else if path.extension().is_some_and(|e| e == "md") {
            let relative = path.strip_prefix(root).expect("under the root");
            let text = std::fs::read_to_string(&path).expect("a markdown file");
            out.push((relative.to_string_lossy().replace('\\', "/"), text));
        }
    }
}

/// Short enough that `cargo bench` runs in a few minutes, long enough for stable medians.
fn configured<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4));
    group
}

fn parse(c: &mut Criterion) {
    let notes = sample_notes();
    let typical = &notes[notes.len() / 2];
    let long = &notes[notes.len() - 1];
    let mut group = configured(c, "parse");
    for (name, (path, text)) in [("typical", typical), ("long", long)] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| gitmem::note::parse_note(black_box(path), black_box(text)))
        });
    }
    group.finish();
}

fn index_write(c: &mut Criterion) {
    let vault = Vault::new(WRITE_VAULT);
    let bodies = passages(500, 60, DEFAULT_SEED);
    let mut written = 0;
    // Each write is a new note, as an agent's usually is, with an observation and a relation.
    let note = |i: usize| {
        let body = &bodies[i % bodies.len()];
        (
            format!("Bench Note {i}"),
            format!(
                "{body}\n\n- [fact] written by the benchmark #bench\n- relates_to [[Bench Note {}]]\n",
                i.saturating_sub(1)
            ),
        )
    };
    let mut next = || {
        written += 1;
        note(written - 1)
    };

    let mut group = configured(c, "index_write");
    group.bench_function("write_note", |b| {
        b.iter(|| {
            let (title, content) = next();
            let request = WriteNoteRequest {
                title,
                content,
                directory: "bench".into(),
                tags: None,
                note_type: None,
                metadata: None,
                overwrite: None,
            };
            vault
                .app()
                .write_note(&ProjectChoice::default(), &request)
                .expect("write_note")
        })
    });
    group.finish();

    let mut group = configured(c, "mcp_dispatch");
    group.bench_function("write_note", |b| {
        b.iter(|| {
            let (title, content) = next();
            call(
                &vault.ctx,
                "write_note",
                json!({"title": title, "directory": "bench", "content": content}),
            )
        })
    });
    group.finish();
}

fn reads(c: &mut Criterion) {
    let vaults = Vaults::new(&SIZES);

    let mut group = configured(c, "search");
    for notes in SIZES {
        let mut query = cycling(QUERIES);
        group.bench_function(format!("text/{notes}"), |b| {
            let app = vaults.get(notes).app();
            b.iter(|| search(app, query()))
        });
    }
    group.finish();

    let mut group = configured(c, "context");
    for notes in SIZES {
        group.bench_function(format!("depth2/{notes}"), |b| {
            let vault = vaults.get(notes);
            let mut permalink = cycling(&vault.permalinks);
            b.iter(|| {
                vault
                    .app()
                    .build_context_at(&ProjectChoice::default(), permalink(), context_request())
                    .expect("build_context")
            })
        });
    }
    group.finish();

    let mut group = configured(c, "mcp_dispatch");
    for notes in SIZES {
        let mut query = cycling(QUERIES);
        group.bench_function(format!("search_notes/{notes}"), |b| {
            let vault = vaults.get(notes);
            b.iter(|| call(&vault.ctx, "search_notes", json!({"query": query()})))
        });
        group.bench_function(format!("build_context/{notes}"), |b| {
            let vault = vaults.get(notes);
            let mut permalink = cycling(&vault.permalinks);
            b.iter(|| {
                let url = format!("memory://{}", permalink());
                call(&vault.ctx, "build_context", json!({"url": url, "depth": 2}))
            })
        });
    }
    group.finish();
}

criterion_group!(benches, parse, reads, index_write);
criterion_main!(benches);
