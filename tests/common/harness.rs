//! Tool calls in process, for `tests/tools/`: the tool table of an `App` over a temporary root,
//! with no server, no stdio and no watcher. Files a test writes on disk reach the index through
//! [`Harness::sync`], which stands in for the watcher of `gitmem serve`.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use engine::sync::SyncMode;
use engine::App;
use mcp::tools::{self, Profiles, ToolCtx, ToolReply};
use serde_json::{json, Value};
use tempfile::TempDir;

pub struct Harness {
    // Dropped before the directory, so the index lets go of its files before they are removed.
    ctx: ToolCtx,
    root: PathBuf,
    _temporary: Option<TempDir>,
}

impl Harness {
    /// A fresh root: its only project is the implicit default `main` at `<root>/projects/main`.
    pub fn new() -> Self {
        let dir = tempfile::tempdir().expect("a temporary root");
        let root = dir.path().to_path_buf();
        Self::serving(&root, None, Some(dir))
    }

    /// The data root at `root`, which the caller prepared (config, files) and keeps alive.
    pub fn open(root: &Path) -> Self {
        Self::serving(root, None, None)
    }

    /// The data root in `dir`, which the caller prepared (config, files); removed with the
    /// harness.
    pub fn prepared(dir: TempDir) -> Self {
        let root = dir.path().to_path_buf();
        Self::serving(&root, None, Some(dir))
    }

    /// The same root opened again, as by the next process: this one finishes its work first
    /// (commits, search index) and lets go of the index.
    pub fn reopen(self) -> Self {
        self.ctx.app.shutdown();
        let Harness {
            ctx,
            root,
            _temporary,
        } = self;
        drop(ctx);
        Self::serving(&root, None, _temporary)
    }

    /// The data root at `root` restricted to one project, as `gitmem serve --project NAME`.
    pub fn constrained(root: &Path, project: &str) -> Self {
        Self::serving(root, Some(project), None)
    }

    fn serving(root: &Path, constrained: Option<&str>, temporary: Option<TempDir>) -> Self {
        let app = App::open(root).unwrap_or_else(|e| panic!("opening {}: {e}", root.display()));
        Self {
            ctx: ToolCtx::new(Arc::new(app), constrained.map(String::from)),
            root: root.to_path_buf(),
            _temporary: temporary,
        }
    }

    /// This harness serving the families `gitmem serve --tools LIST` serves, with their dotted
    /// names (`--dotted-names`).
    pub fn serving_tools(mut self, list: &str) -> Self {
        self.ctx.profiles = Profiles::parse(list).expect("a list of tool families");
        self.ctx.dotted_names = true;
        self
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The directory of the default project of a fresh root.
    pub fn main_dir(&self) -> PathBuf {
        self.root.join("projects/main")
    }

    /// A fresh root whose default project holds one `# title` file per (title, body), indexed.
    pub fn with_notes(notes: &[(&str, &str)]) -> Harness {
        let h = Harness::new();
        std::fs::create_dir_all(h.main_dir()).unwrap();
        for (title, body) in notes {
            std::fs::write(
                h.main_dir().join(format!("{title}.md")),
                format!("# {title}\n\n{body}\n"),
            )
            .unwrap();
        }
        h.sync();
        h
    }

    /// Calls a tool as an MCP client would, with `args` as its arguments object.
    pub fn call(&self, tool: &str, args: Value) -> ToolReply {
        let Value::Object(args) = args else {
            panic!("tool arguments are a JSON object, got {args}");
        };
        tools::call(&self.ctx, tool, &args)
    }

    /// Calls a tool as a caller holding `grant` (a token's rights) would.
    pub fn call_as(&self, grant: &auth::Grant, tool: &str, args: Value) -> ToolReply {
        let Value::Object(args) = args else {
            panic!("tool arguments are a JSON object, got {args}");
        };
        let ctx = self
            .ctx
            .for_grant(Some(grant))
            .expect("a grant this server accepts");
        tools::call(&ctx, tool, &args)
    }

    /// The text of a call that must succeed.
    pub fn text(&self, tool: &str, args: Value) -> String {
        self.call(tool, args).ok().text()
    }

    /// A call that must succeed and answers JSON text, parsed.
    pub fn value(&self, tool: &str, args: Value) -> Value {
        let text = self.text(tool, args.clone());
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool} {args}: {e}: {text}"))
    }

    /// A call with `output_format: "json"` that must succeed, parsed.
    pub fn json(&self, tool: &str, mut args: Value) -> Value {
        args["output_format"] = json!("json");
        let reply = self.call(tool, args.clone());
        assert!(!reply.is_error(), "{tool} {args}: {}", reply.text());
        reply.json()
    }

    /// The text of a call that must be refused: an MCP error result.
    pub fn refused(&self, tool: &str, args: Value) -> String {
        let reply = self.call(tool, args.clone());
        assert!(
            reply.is_error(),
            "{tool} {args} must be refused: {}",
            reply.text()
        );
        reply.text()
    }

    /// The JSON payload of a refusal (`output_format: "json"`), which is the error's text.
    pub fn refused_json(&self, tool: &str, mut args: Value) -> Value {
        args["output_format"] = json!("json");
        let text = self.refused(tool, args.clone());
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{tool} {args}: {e}: {text}"))
    }

    /// write_note that must succeed.
    pub fn write(&self, title: &str, directory: &str, content: &str) {
        self.write_with(title, directory, content, json!({}));
    }

    /// write_note with extra arguments that must succeed.
    pub fn write_with(&self, title: &str, directory: &str, content: &str, extra: Value) {
        let mut args = json!({"title": title, "directory": directory, "content": content});
        for (key, value) in extra.as_object().expect("extra arguments are an object") {
            args[key] = value.clone();
        }
        self.call("write_note", args).ok();
    }

    /// The service below the tools, for tests of its typed outcomes.
    pub fn app(&self) -> &App {
        &self.ctx.app
    }

    /// Indexes what changed on disk in every project, as the watcher of a server would.
    pub fn sync(&self) {
        let app = &self.ctx.app;
        for project in app.projects(None).expect("the projects of the root") {
            app.sync_project(&project, SyncMode::Incremental, &|_| {})
                .unwrap_or_else(|e| panic!("syncing project '{}': {e}", project.name));
        }
    }
}

/// Assertions on a tool reply.
pub trait ReplyExt {
    /// The reply, which must not be an MCP error result.
    fn ok(self) -> Self;
    /// The reply's text as JSON, as a client parses it.
    fn json(&self) -> Value;
}

impl ReplyExt for ToolReply {
    fn ok(self) -> Self {
        assert!(!self.is_error(), "tool error: {}", self.text());
        self
    }

    fn json(&self) -> Value {
        let text = self.text();
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("not JSON ({e}): {text}"))
    }
}
