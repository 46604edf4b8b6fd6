//! gitmem: a filesystem-native markdown knowledge base for AI assistants.
//!
//! Layers, from the bottom: `note` (pure markdown model), `vault` (files on disk), `index`
//! (derived LMDB state), `config` (data root and projects), `service` (the operations),
//! `render` (text outputs), `cli` (the command line). See `docs/architecture.md`.

pub mod cli;
pub mod config;
pub mod git;
pub mod import;
pub mod index;
pub mod mcp;
pub mod note;
pub mod render;
pub mod service;
pub mod vault;
