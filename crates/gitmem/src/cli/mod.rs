//! The command line: parses arguments, calls `engine`, prints. Decides nothing itself.

mod args;
mod auth;
mod bench;
mod git;
mod import;
mod links;
mod memory;
mod models;
mod progress;
mod projects;
mod schema;
mod search;
mod serve;
mod status;
mod tool;

use std::path::Path;

use anyhow::{Context, Result};

pub use args::*;

use engine::App;
use render::{Format, Output, Stream};

pub fn run(cli: Cli) -> Result<()> {
    if let Some(file) = &cli.config {
        // Every load of the configuration in this process, and in the processes it starts (a
        // model fetched in the background), must read this file: they find it where they
        // find GITMEM_CONFIG. No other thread runs yet.
        let file =
            std::path::absolute(file).with_context(|| format!("--config {}", file.display()))?;
        std::env::set_var(engine::config::CONFIG_VAR, file);
    }
    let root = cli.root.unwrap_or_else(engine::config::default_root);
    match cli.command {
        Command::Serve(args) => serve::serve(&root, &args),
        Command::Token(cmd) => auth::token(&root, &cmd),
        Command::Auth(AuthCommand::SetPassword) => auth::set_password(&root),
        Command::Tool {
            name,
            args,
            project,
        } => tool::tool(&root, &name, &args, project),
        Command::Bench(BenchCommand::Generate { out, notes, seed }) => {
            bench::generate_vault(&out, notes, seed)
        }
        Command::Bench(BenchCommand::Retrieval {
            vault,
            golden,
            search_types,
            misses,
            model,
            keep_root,
            json,
        }) => bench::retrieval(
            &vault,
            &golden,
            &search_types,
            model.as_deref(),
            keep_root.as_deref(),
            misses,
            json,
        ),
        Command::Bench(BenchCommand::Embed {
            model,
            passages,
            words,
            rounds,
            from,
            json,
        }) => with_app(&root, |app| {
            let spec = engine::throughput::ThroughputSpec {
                model: model.as_deref(),
                passages,
                words,
                rounds,
                from: from.as_deref(),
            };
            bench::embed(app, &spec, json)
        }),
        command => with_app(&root, |app| on_app(app, command)),
    }
}

/// The commands that work on an open data root.
fn on_app(app: &App, command: Command) -> Result<()> {
    match command {
        Command::Project(cmd) => projects::project(app, cmd),
        Command::Reindex { project } => status::reindex(app, project.as_deref()),
        Command::Status {
            project,
            json,
            check: false,
        } => status::status(app, project.as_deref(), json),
        Command::Status {
            project,
            json,
            check: true,
        } => status::check(app, project.as_deref(), json),
        Command::Repair { project, json } => status::repair(app, project.as_deref(), json),
        Command::Search(args) => search::search(app, &args),
        Command::Context(args) => search::context(app, &args),
        Command::Inspect(cmd) => search::inspect(app, cmd),
        Command::Memory(cmd) => memory::memory(app, cmd),
        Command::Compact(args) => memory::compact(app, &args),
        Command::Schema(cmd) => schema::schema(app, cmd),
        Command::Model(cmd) => models::model(app, cmd),
        Command::Git(cmd) => git::git(app, cmd),
        Command::Crypto(cmd) => git::crypto(app, cmd),
        Command::Sync {
            direction,
            project,
            json,
            allow_secrets,
        } => git::git_sync(app, &direction, project.as_deref(), json, &allow_secrets),
        Command::Import(args) => import::import(app, &args),
        Command::LinkFolder(args) => links::link_folder(app, &args),
        Command::UnlinkFolder {
            project,
            path,
            json,
        } => links::unlink_folder(app, &project, path.as_deref(), json),
        Command::ListLinks { project, json } => links::list_links(app, project.as_deref(), json),
        Command::RescanLinks {
            project,
            path,
            json,
        } => links::rescan_links(app, project.as_deref(), path.as_deref(), json),
        Command::Serve(_)
        | Command::Token(_)
        | Command::Auth(_)
        | Command::Tool { .. }
        | Command::Bench(_) => unreachable!("run handles the commands without a data root"),
    }
}

/// Runs `work` on the data root, and closes it (draining its writers) whatever `work` did.
fn with_app(root: &Path, work: impl FnOnce(&App) -> Result<()>) -> Result<()> {
    let app = App::open(root).with_context(|| format!("opening data root {}", root.display()))?;
    let result = work(&app);
    app.close();
    result
}

pub(super) fn format_of(json: bool) -> Format {
    if json {
        Format::Json
    } else {
        Format::Text
    }
}

/// Writes a command's output, each piece to its stream.
pub(super) fn emit(output: Output) {
    for (stream, text) in output.pieces {
        match stream {
            Stream::Stdout => print!("{text}"),
            Stream::Stderr => eprint!("{text}"),
        }
    }
}
