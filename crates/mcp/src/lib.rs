//! The MCP server: tool, prompt and resource adapters over `engine`, and the stdio transport.
//! `gitmem tool NAME --args JSON` runs the same `tools::call` the server runs.

pub mod error;
pub mod http;
mod icons;
pub mod notify;
pub mod prompts;
pub mod resources;
pub mod server;
mod stdin;
pub mod tools;
