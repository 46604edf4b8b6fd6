//! The MCP server on rmcp: tools, prompts and resources over stdio, plus the background work
//! of a running server (initial indexing, watching project directories).

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, CompleteRequestParams, CompleteResult,
    ContentBlock, GetPromptRequestParams, GetPromptResponse, Implementation, ListPromptsResult,
    ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
};
use rmcp::model::{SubscribeRequestParams, UnsubscribeRequestParams};
use rmcp::service::{NotificationContext, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{json, Value};

use super::error::ServeError;
use super::notify::{Notifier, Session};
use super::tools::{self, ToolCtx, ToolReply};
use super::{prompts, resources};
use auth::Grant;
use engine::{background, horizon, App, Horizon, Horizons};

pub const INSTRUCTIONS: &str = include_str!("../../../templates/instructions.md");

/// The id of one HTTP request, in its logs and its `x-request-id` header.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// Longest a tool call may take before the client gets an error instead of its result
/// (`GITMEM_CALL_DEADLINE_MS` changes it).
const CALL_DEADLINE: Duration = Duration::from_secs(60);

#[derive(Clone)]
pub struct GitmemServer {
    ctx: ToolCtx,
    deadline: Duration,
    /// This client's session, for change notifications.
    session: Arc<Session>,
    /// What this session wrote, for its reads (read-your-writes).
    horizon: Arc<Horizon>,
    /// The horizons of tokens (and of anonymous stateless requests).
    horizons: Arc<Horizons>,
}

impl GitmemServer {
    /// The handler of one client session (stdio, or one HTTP session), or of one stateless
    /// HTTP request.
    pub fn new(
        ctx: ToolCtx,
        deadline: Duration,
        notifier: &Notifier,
        horizons: Arc<Horizons>,
    ) -> Self {
        Self {
            ctx,
            deadline,
            session: notifier.session(),
            horizon: Arc::default(),
            horizons,
        }
    }

    /// Whose writes a request's reads wait for: its session's and its token's. A stateless
    /// HTTP request has no session (and a new handler each time); without a token either, the
    /// client is every anonymous stateless caller.
    fn horizons_for(&self, context: &RequestContext<RoleServer>) -> Vec<Arc<Horizon>> {
        let Some(parts) = context.extensions.get::<axum::http::request::Parts>() else {
            return vec![self.horizon.clone()];
        };
        let token = parts.extensions.get::<Grant>().map(|g| g.name.as_str());
        let session = parts.headers.contains_key("mcp-session-id");
        let mut horizons = Vec::with_capacity(2);
        if token.is_some() || !session {
            horizons.push(self.horizons.of(token.unwrap_or_default()));
        }
        if session {
            horizons.push(self.horizon.clone());
        }
        horizons
    }

    /// Runs blocking work for a request inside its client's horizon.
    fn blocking<R: Send + 'static>(
        &self,
        context: &RequestContext<RoleServer>,
        work: impl FnOnce() -> R + Send + 'static,
    ) -> tokio::task::JoinHandle<R> {
        let horizons = self.horizons_for(context);
        tokio::task::spawn_blocking(move || horizon::scope(&horizons, work))
    }

    /// The context of one request: over HTTP, narrowed to the grant the guard attached to the
    /// request (`mcp::http`); over stdio, the server's own.
    fn ctx_for(&self, context: &RequestContext<RoleServer>) -> Result<ToolCtx, ErrorData> {
        let grant = context
            .extensions
            .get::<axum::http::request::Parts>()
            .and_then(|parts| parts.extensions.get::<Grant>());
        self.ctx
            .for_grant(grant)
            .map_err(|refused| ErrorData::invalid_request(refused.to_string(), None))
    }
}

/// The request id the HTTP guard gave a request, for the logs of what it caused.
fn request_id(context: &RequestContext<RoleServer>) -> Option<String> {
    context
        .extensions
        .get::<axum::http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<RequestId>())
        .map(|id| id.0.clone())
}

/// A tool reply as MCP content: one text item, plus structured content for JSON, plus
/// `resource_link` blocks for the notes a reply names.
pub fn to_result(reply: ToolReply) -> CallToolResult {
    match reply {
        ToolReply::Text(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
        ToolReply::Error(text) => CallToolResult::error(vec![ContentBlock::text(text)]),
        ToolReply::Failed { text, content } => {
            let mut result = CallToolResult::error(vec![ContentBlock::text(text)]);
            result.structured_content = Some(content);
            result
        }
        ToolReply::Structured { text, content } => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            result.structured_content = Some(content);
            result
        }
        ToolReply::Json(value) => {
            let text = serde_json::to_string(&value).unwrap_or_default();
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            result.structured_content = Some(match value {
                Value::Array(_) => json!({ "result": value }),
                other => other,
            });
            result
        }
        ToolReply::Linked(reply, notes) => {
            let mut result = to_result(*reply);
            result
                .content
                .extend(notes.iter().filter_map(|(permalink, title)| {
                    let mut link = resources::note_resource(permalink, title);
                    link["type"] = json!("resource_link");
                    serde_json::from_value::<ContentBlock>(link).ok()
                }));
            result
        }
    }
}

fn from_json<T: serde::de::DeserializeOwned>(value: Value) -> Result<T, ErrorData> {
    serde_json::from_value(value).map_err(|e| ErrorData::internal_error(e.to_string(), None))
}

impl ServerHandler for GitmemServer {
    fn get_info(&self) -> ServerConfig {
        let mut capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_prompts()
            .enable_resources()
            .enable_resources_list_changed()
            .enable_resources_subscribe()
            .enable_completions()
            .build();
        let mut experimental = rmcp::model::ExperimentalCapabilities::new();
        if let Value::Object(gitmem) = storage_capabilities() {
            experimental.insert("gitmem".into(), gitmem);
        }
        capabilities.experimental = Some(experimental);
        ServerConfig::new(capabilities)
            .with_server_info(server_info())
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult {
            tools: tools::tool_list_for(&self.ctx_for(&context)?),
            ..Default::default()
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let ctx = ToolCtx {
            stop: stop.clone(),
            ..self.ctx_for(&context)?
        };
        let name = request.name.to_string();
        let args = request.arguments.unwrap_or_default();
        let tool = name.clone();
        let span = match request_id(&context) {
            Some(id) => tracing::info_span!("request", id = %id, tool = %name),
            None => tracing::info_span!("call", tool = %name),
        };
        let call = self.blocking(&context, move || {
            span.in_scope(|| tools::call(&ctx, &tool, &args))
        });
        // A call that is cancelled or runs past the deadline is answered (or dropped) at once;
        // long operations see `stop` and end early, and the server goes on serving.
        let reply = tokio::select! {
            joined = call => joined
                .unwrap_or_else(|e| ToolReply::Error(format!("the tool call failed: {e}"))),
            _ = context.ct.cancelled() => {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                tracing::info!("tool '{name}' cancelled by the client");
                return Err(ErrorData::internal_error("the request was cancelled", None));
            }
            _ = tokio::time::sleep(self.deadline) => {
                stop.store(true, std::sync::atomic::Ordering::Relaxed);
                ToolReply::Error(format!(
                    "Error calling tool '{name}': no answer within {:.1} s; narrow the request (a smaller depth, page or folder)",
                    self.deadline.as_secs_f64()
                ))
            }
        };
        Ok(to_result(reply).into())
    }

    async fn on_custom_request(
        &self,
        request: rmcp::model::CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CustomResult, ErrorData> {
        if request.method == super::stdin::TOO_LARGE_METHOD {
            let params = request.params.unwrap_or_default();
            return Err(ErrorData::invalid_request(
                format!(
                    "the request is {} bytes, more than the limit of {}; split it (a note may hold at most 32 MiB)",
                    params["bytes"], params["limit"]
                ),
                None,
            ));
        }
        Err(ErrorData::new(
            rmcp::model::ErrorCode::METHOD_NOT_FOUND,
            request.method,
            None,
        ))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        from_json(json!({ "prompts": prompts::list() }))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let ctx = self.ctx_for(&context)?;
        let name = request.name.clone();
        let args = request.arguments.clone().unwrap_or_default();
        let rendered = self
            .blocking(&context, move || prompts::render(&ctx, &name, &args))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        match rendered {
            Ok((description, text)) => {
                let result: rmcp::model::GetPromptResult = from_json(json!({
                    "description": description,
                    "messages": [{"role": "user", "content": {"type": "text", "text": text}}],
                }))?;
                Ok(result.into())
            }
            Err(e) => Err(ErrorData::invalid_params(e.to_string(), None)),
        }
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let ctx = self.ctx_for(&context)?;
        let cursor = request.and_then(|r| r.cursor);
        let listed = self
            .blocking(&context, move || resources::list(&ctx, cursor.as_deref()))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        match listed {
            Ok((resources, next)) => {
                let mut result = json!({ "resources": resources });
                if let Some(next) = next {
                    result["nextCursor"] = json!(next);
                }
                from_json(result)
            }
            Err(e) => Err(ErrorData::invalid_params(e.to_string(), None)),
        }
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        self.session.set_peer(context.peer);
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let ctx = self.ctx_for(&context)?;
        let session = self.session.clone();
        self.blocking(&context, move || session.subscribe(&ctx, &request.uri))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        self.session.unsubscribe(&request.uri);
        Ok(())
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        from_json(json!({ "resourceTemplates": resources::templates() }))
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let ctx = self.ctx_for(&context)?;
        let params = serde_json::to_value(&request)
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        let argument = params["argument"]["name"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let value = params["argument"]["value"]
            .as_str()
            .unwrap_or("")
            .to_string();
        let resolved = params["context"]["arguments"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let values = self
            .blocking(&context, move || {
                resources::complete(&ctx, &argument, &value, &resolved)
            })
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        from_json(json!({
            "completion": {"values": values, "total": values.len(), "hasMore": false}
        }))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let uri = request.uri.clone();
        let ctx = self.ctx_for(&context)?;
        let read = self
            .blocking(&context, move || resources::read(&ctx, &uri))
            .await
            .map_err(|e| ErrorData::internal_error(e.to_string(), None))?;
        match read {
            Ok((mime, text)) => {
                let result: rmcp::model::ReadResourceResult = from_json(json!({
                    "contents": [{"uri": request.uri, "mimeType": mime, "text": text}],
                }))?;
                Ok(result.into())
            }
            Err(e) => Err(ErrorData::resource_not_found(e.to_string(), None)),
        }
    }
}

/// The server's name stays Basic Memory's (clients and prompts key on it); its title, description
/// and icon say what answers.
fn server_info() -> Implementation {
    let mut info = Implementation::new("Basic Memory", env!("CARGO_PKG_VERSION"));
    info.title = Some("gitmem".into());
    info.description = Some(
        "Markdown notes as an AI assistant's memory: Basic Memory's tools over local files".into(),
    );
    info.icons = serde_json::from_value(super::icons::server()).ok();
    info
}

/// `experimental.gitmem`: what local storage supports (design 6).
pub fn storage_capabilities() -> Value {
    json!({
        "storage": {
            "local": {
                "enabled": true,
                "linked_folders": true,
                "supports": {
                    "link_folder": true,
                    "unlink_folder": true,
                    "list_links": true,
                    "sync_external": true,
                    "watch_modes": ["poll", "native"],
                    "metadata": ["origin", "file_uri", "relative_path", "checksum_sha256", "linked_folder_id", "file_mtime", "file_size"],
                },
            },
        },
    })
}

/// What `gitmem serve` serves, whatever the transport.
#[derive(Debug, Clone)]
pub struct Served {
    /// `--project NAME`: every call uses this project.
    pub constrained: Option<String>,
    /// `--dotted-names` (or `[compat] dotted_names`).
    pub dotted_names: bool,
    /// `--tools`: the families of tools served.
    pub profiles: tools::Profiles,
}

/// A running server's state, the same for both transports: the opened root, the tool context
/// every session starts from, the change notifier, and the background work of
/// `engine::background` (indexing, watching, polling links, embedding, pulling).
pub(super) struct Running {
    pub app: Arc<App>,
    pub ctx: ToolCtx,
    pub notifier: Arc<Notifier>,
    watcher: std::thread::JoinHandle<Option<vault::watch::WatchGuard>>,
}

impl Running {
    /// Opens the root and starts the background work; `public_url` is the HTTP transport's.
    pub async fn start(
        root: &Path,
        served: &Served,
        public_url: Option<String>,
    ) -> Result<Running, ServeError> {
        let root = root.to_path_buf();
        let app = Arc::new(tokio::task::spawn_blocking(move || App::open(&root)).await??);
        if let Some(name) = &served.constrained {
            if app.project(Some(name)).is_err() {
                return Err(ServeError::UnknownProject(name.clone()));
            }
        }
        let ctx = ToolCtx {
            dotted_names: served.dotted_names || app.config().compat.dotted_names,
            profiles: served.profiles,
            public_url,
            ..ToolCtx::new(app.clone(), served.constrained.clone())
        };
        let watcher = background::index_and_watch(app.clone(), ctx.constrained.clone());
        background::poll_links(app.clone(), ctx.constrained.clone());
        background::fetch_model(app.clone());
        background::embed(app.clone());
        background::pull_remotes(app.clone(), ctx.constrained.clone());
        let notifier = Arc::new(Notifier::default());
        notifier.start(app.clone(), ctx.clone());
        Ok(Running {
            app,
            ctx,
            notifier,
            watcher,
        })
    }

    /// Drains both writers, so every acknowledged write reaches the graph and the search index
    /// before the process ends. The background threads still hold the app: it is drained
    /// through a shared reference.
    pub async fn finish(self) -> Result<(), ServeError> {
        let app = self.app;
        tokio::task::spawn_blocking(move || app.shutdown()).await?;
        drop(self.watcher);
        Ok(())
    }
}

/// `gitmem serve` over stdio.
pub async fn serve_stdio(root: &Path, served: &Served) -> Result<(), ServeError> {
    let running = Running::start(root, served, None).await?;
    let max_request =
        env_number("GITMEM_MAX_REQUEST_BYTES").unwrap_or(super::stdin::MAX_REQUEST_BYTES);
    let input = super::stdin::bounded(tokio::io::stdin(), max_request);
    // `bounded` already answers a line over the bound; rmcp's own cap (16 MiB by default)
    // would drop a line under it without an answer.
    let transport =
        rmcp::transport::async_rw::AsyncRwTransport::new_server(input, tokio::io::stdout())
            .with_max_line_length(max_request.saturating_add(1));
    let service = GitmemServer::new(
        running.ctx.clone(),
        call_deadline(),
        &running.notifier,
        Arc::default(),
    )
    .serve(transport)
    .await
    .map_err(Box::new)?;
    let cancel = service.cancellation_token();
    tokio::select! {
        ended = service.waiting() => { ended?; }
        signal = termination() => {
            tracing::info!("{signal}: finishing acknowledged writes before exiting");
            cancel.cancel();
        }
    }
    running.finish().await
}

/// How long a tool call may take (`GITMEM_CALL_DEADLINE_MS`, else 60 s).
pub fn call_deadline() -> Duration {
    env_number("GITMEM_CALL_DEADLINE_MS").map_or(CALL_DEADLINE, Duration::from_millis)
}

fn env_number<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Resolves when the process is asked to stop (SIGTERM, SIGINT), with the signal's name.
pub(super) async fn termination() -> &'static str {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut term), Ok(mut int)) = (
        signal(SignalKind::terminate()),
        signal(SignalKind::interrupt()),
    ) else {
        return std::future::pending().await;
    };
    tokio::select! {
        _ = term.recv() => "SIGTERM",
        _ = int.recv() => "SIGINT",
    }
}
