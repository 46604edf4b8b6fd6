//! `gitmem tool`: one MCP tool through the server's code path.

use anyhow::{Context, Result};

use super::emit;
use engine::oneshot::Unobserved;
use engine::App;
use render::Output;

/// `gitmem tool NAME --args JSON`: brings the index up to date, then runs the tool exactly as
/// the MCP server would and prints what a client would see.
pub(super) fn tool(
    root: &std::path::Path,
    name: &str,
    args: &str,
    project: Option<String>,
) -> Result<()> {
    let parsed: serde_json::Value =
        serde_json::from_str(args).with_context(|| format!("--args is not valid JSON: {args}"))?;
    let serde_json::Value::Object(args) = parsed else {
        anyhow::bail!("--args must be a JSON object, e.g. '{{\"query\": \"search\"}}'");
    };
    let app = std::sync::Arc::new(
        App::open(root).with_context(|| format!("opening data root {}", root.display()))?,
    );
    app.oneshot(&Unobserved).sync_projects(project.as_deref())?;
    // Any tool, by any of its names: a shell has no client configuration to match.
    let ctx = mcp::tools::ToolCtx {
        dotted_names: true,
        profiles: mcp::tools::Profiles::ALL,
        ..mcp::tools::ToolCtx::new(app.clone(), project)
    };
    let reply = mcp::tools::call(&ctx, name, &args);
    app.shutdown();
    if reply.is_error() {
        anyhow::bail!("{}", reply.text());
    }
    emit(Output::line(&reply.text()));
    Ok(())
}
