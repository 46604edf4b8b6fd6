//! `cargo bench`: gitmem's hot paths in process, timed by criterion, which compares each run
//! with the last one it saved (or with a named baseline: `--save-baseline` / `--baseline`) and
//! says which got slower. Groups: `parse` (a typical and a long note), `index_write`
//! (write_note through the service), `search` (search_notes, text), `context` (build_context
//! depth 2), `mcp_dispatch` (a tool call as the MCP server and `gitmem tool` make it: JSON
//! arguments parsed, the service called, the reply rendered; and `rmcp_*`, the whole JSON-RPC
//! request through the server's rmcp handler over an in-memory pipe).
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
use engine::context::ContextRequest;
use engine::scope::ProjectChoice;
use engine::search::SearchRequest;
use engine::sync::SyncMode;
use engine::write::WriteNoteRequest;
use engine::App;
use mcp::notify::Notifier;
use mcp::server::{call_deadline, GitmemServer};
use mcp::tools::{self, ToolCtx};
use rmcp::transport::async_rw::AsyncRwTransport;
use rmcp::ServiceExt;
use serde_json::{json, Value};
use tempfile::TempDir;
use tokio::io::{
    AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream, Lines, ReadHalf, WriteHalf,
};
use vault::generate::{generate, passages, VaultSpec, DEFAULT_SEED};

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

fn search(app: &App, query: &str) -> engine::search::ScopedSearch {
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

/// A client of the MCP server's rmcp handler over an in-memory pipe: JSON-RPC lines as over
/// stdio, without the process and its pipes.
struct Session {
    runtime: tokio::runtime::Runtime,
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
    next_id: u64,
}

impl Session {
    fn open(ctx: ToolCtx) -> Self {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let (client, server) = tokio::io::duplex(1 << 20);
        runtime.spawn(async move {
            let (read, write) = tokio::io::split(server);
            let transport = AsyncRwTransport::new_server(read, write);
            let handler = GitmemServer::new(
                ctx,
                call_deadline(),
                &Notifier::default(),
                Default::default(),
            );
            let running = handler.serve(transport).await.expect("an MCP session");
            // The session ends when the runtime does, with the benchmark.
            let _ = running.waiting().await;
        });
        let (read, writer) = tokio::io::split(client);
        let mut session = Session {
            runtime,
            lines: BufReader::new(read).lines(),
            writer,
            next_id: 0,
        };
        let client = json!({"name": "bench", "version": "1"});
        let params =
            json!({"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": client});
        session.request("initialize", params);
        session.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}));
        session
    }

    fn send(&mut self, message: Value) {
        let line = format!("{message}\n");
        self.runtime
            .block_on(self.writer.write_all(line.as_bytes()))
            .expect("writing to the server");
    }

    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}));
        loop {
            let line = self.runtime.block_on(self.lines.next_line());
            let line = line.expect("reading the server").expect("an answer");
            let message: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
            if message["id"] == id {
                assert!(message.get("error").is_none(), "{method}: {message}");
                return message;
            }
        }
    }

    fn call(&mut self, tool: &str, args: Value) -> Value {
        let answer = self.request("tools/call", json!({"name": tool, "arguments": args}));
        assert_ne!(answer["result"]["isError"], true, "{tool}: {answer}");
        answer
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

/// Short enough that `cargo bench` runs in a few minutes, long enough for stable medians; a
/// change under 5 % is noise on a shared machine, not a regression.
fn configured<'a>(c: &'a mut Criterion, name: &str) -> BenchmarkGroup<'a, WallTime> {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(30)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .noise_threshold(0.05);
    group
}

fn parse(c: &mut Criterion) {
    let notes = sample_notes();
    let typical = notes[notes.len() / 2].clone();
    // The generated notes stay under a few kilobytes; a session's transcript does not. The
    // longest one, followed by 100 paragraphs of the same vocabulary, stands for it (~50 KB).
    let (path, longest) = &notes[notes.len() - 1];
    let long = (
        path.clone(),
        format!(
            "{longest}\n{}\n",
            passages(100, 80, DEFAULT_SEED).join("\n\n")
        ),
    );
    let mut group = configured(c, "parse");
    for (name, (path, text)) in [("typical", &typical), ("long", &long)] {
        group.throughput(Throughput::Bytes(text.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| note::parse_note(black_box(path), black_box(text)))
        });
    }
    group.finish();
}

fn index_write(c: &mut Criterion) {
    let vaults = Vaults::new(&[WRITE_VAULT]);
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
        let app = vaults.get(WRITE_VAULT).app();
        b.iter(|| {
            let (title, content) = next();
            let request = WriteNoteRequest {
                title,
                content,
                directory: "bench".into(),
                tags: None,
                note_type: None,
                metadata: None,
                ..WriteNoteRequest::default()
            };
            app.write_note(&ProjectChoice::default(), &request)
                .expect("write_note")
        })
    });
    group.finish();

    let mut group = configured(c, "mcp_dispatch");
    group.bench_function("write_note", |b| {
        let ctx = &vaults.get(WRITE_VAULT).ctx;
        b.iter(|| {
            let (title, content) = next();
            call(
                ctx,
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
        // Criterion calls the closure once per sample: one session serves them all.
        let mut session = None;
        group.bench_function(format!("rmcp_search_notes/{notes}"), |b| {
            let session =
                session.get_or_insert_with(|| Session::open(vaults.get(notes).ctx.clone()));
            b.iter(|| session.call("search_notes", json!({"query": query()})))
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
