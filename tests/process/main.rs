//! What only a real process shows: the `gitmem` binary run as users and clients run it, over
//! stdio and HTTP, with signals, kill -9, git remotes and the official MCP Python SDK. One test
//! binary, so the suite links it once; behaviour in process lives in `tests/tools`.

#[path = "../common/mod.rs"]
mod common;

mod architecture;
mod cli_inputs;
mod cli_projects;
mod cli_tool;
mod cli_vault;
mod crash;
mod cycles;
mod git;
mod git_credentials;
mod http;
mod http_ingest;
mod http_metrics;
mod http_python;
mod import;
mod links;
mod mcp_cancel;
mod mcp_live;
mod mcp_stdio;
mod oauth;
mod oauth_issuer;
mod retrieval;
mod semantic;
mod stdio_python;
