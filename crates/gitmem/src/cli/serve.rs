//! `gitmem serve`: the MCP server over stdio or HTTP, with its transport options.

use anyhow::{Context, Result};

use super::ServeArgs;

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

pub(super) fn serve(root: &std::path::Path, args: &ServeArgs) -> Result<()> {
    let settings = engine::config::Config::load(root)
        .with_context(|| format!("reading the configuration of {}", root.display()))?
        .server;
    let transport = args
        .transport
        .clone()
        .or(settings.transport)
        .unwrap_or_else(|| "stdio".to_string());
    let profiles = mcp::tools::Profiles::parse(
        args.tools
            .as_deref()
            .or(settings.tools.as_deref())
            .unwrap_or("basic"),
    )
    .map_err(|e| anyhow::anyhow!(e))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let served = mcp::server::Served {
        constrained: args.project.clone(),
        dotted_names: args.dotted_names,
        profiles,
    };
    let outcome = match transport.as_str() {
        "stdio" => runtime
            .block_on(mcp::server::serve_stdio(root, &served))
            .map_err(anyhow::Error::from),
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
            let options = mcp::http::HttpOptions {
                bind: args
                    .bind
                    .clone()
                    .or(settings.bind)
                    .unwrap_or_else(|| mcp::http::DEFAULT_BIND.to_string()),
                served,
                auth: mcp::http::AuthOptions {
                    tokens,
                    oauth: !args.no_oauth,
                    oauth_issuer: args.oauth_issuer.clone(),
                },
                public_url: args.public_url.clone().or(settings.public_url),
                allowed_hosts: args.allow_hosts.clone(),
                allowed_origins: args.allow_origins.clone(),
                limits: mcp::http::Limits {
                    max_request_bytes: args.max_request_bytes,
                    request_timeout: std::time::Duration::from_secs(args.request_timeout.max(1)),
                    call_deadline: mcp::server::call_deadline(),
                },
                metrics_bind: args.metrics_bind.clone().or(settings.metrics_bind),
            };
            runtime
                .block_on(mcp::http::serve_http(root, options))
                .map_err(anyhow::Error::from)
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
