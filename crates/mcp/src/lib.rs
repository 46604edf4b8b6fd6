//! The MCP server: tool, prompt and resource adapters over `engine`, and the stdio transport.
//! `gitmem tool NAME --args JSON` runs the same `tools::call` the server runs.

mod args;
pub mod context_tools;
mod correct_tools;
mod crypto_tools;
mod decay_tools;
pub mod diagnostics_tools;
pub mod error;
mod graph_query_tools;
pub mod graph_tools;
pub mod history_tools;
pub mod http;
mod icons;
pub mod link_tools;
pub mod memory_tools;
pub mod note_tools;
pub mod notify;
pub mod posix_tools;
pub mod project_tools;
pub mod prompts;
pub mod query_tools;
pub mod resources;
pub mod schema_tools;
pub mod server;
mod stdin;
pub mod tools;
