//! The layering rules the compiler does not keep. The compiler refuses a name from a crate that
//! is not a dependency; these tests refuse the dependency itself when a layer may not have it
//! (each crate's `Cargo.toml`), the impure calls of the pure layers (their `use` lines and
//! paths), and a crate that `docs/architecture.md` does not map.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use crate::common::workspace_root;

/// Each crate of `crates/`, with the gitmem crates it may depend on: a layer sees only the
/// layers below it.
const LAYERS: &[(&str, &[&str])] = &[
    ("note", &[]),
    ("vault", &[]),
    ("embed", &["vault"]),
    ("index", &["note", "vault"]),
    ("git", &["vault"]),
    ("auth", &["vault"]),
    (
        "engine",
        &["note", "vault", "embed", "index", "git", "auth"],
    ),
    // The renderings see the engine's outcomes, never a stored record (`index`), a file
    // (`vault`), a repository (`git`) or a model (`embed`).
    ("render", &["note", "auth", "engine"]),
    ("mcp", &["note", "vault", "auth", "engine", "render"]),
    (
        "gitmem",
        &["note", "vault", "auth", "engine", "render", "mcp"],
    ),
];

/// Paths a pure layer never names: it takes values in and gives values out.
const IMPURE: &[&str] = &[
    "std::fs",
    "std::net",
    "std::process",
    "std::env::var",
    "tokio::",
];

fn crates_dir() -> PathBuf {
    workspace_root().join("crates")
}

fn crate_names() -> BTreeSet<String> {
    std::fs::read_dir(crates_dir())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

/// The gitmem crates a manifest's `[dependencies]` name (`name.workspace = true`). Tests and
/// benchmarks (`[dev-dependencies]`) may reach any layer.
fn internal_dependencies(manifest: &str) -> BTreeSet<String> {
    let layers: BTreeSet<&str> = LAYERS.iter().map(|(name, _)| *name).collect();
    let mut table = "";
    manifest
        .lines()
        .filter(|line| {
            if line.starts_with('[') {
                table = line.trim();
            }
            table == "[dependencies]"
        })
        .filter_map(|line| line.split_once(".workspace"))
        .map(|(name, _)| name.trim())
        .filter(|name| layers.contains(name))
        .map(String::from)
        .collect()
}

fn allowed(name: &str) -> &'static [&'static str] {
    LAYERS
        .iter()
        .find(|(layer, _)| *layer == name)
        .map(|(_, below)| *below)
        .unwrap_or_else(|| panic!("crates/{name} is not a layer of tests/process/architecture.rs"))
}

/// Every `.rs` file under `dir`, with its text up to its unit tests: tests may touch what
/// the code may not (a test writes its fixture files).
pub(crate) fn code_files(dir: &Path, into: &mut Vec<(PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            code_files(&path, into);
        } else if path.extension().is_some_and(|e| e == "rs")
            && path.file_stem().is_none_or(|stem| stem != "tests")
        {
            let text = std::fs::read_to_string(&path).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("").to_string();
            into.push((path, code));
        }
    }
}

fn files_naming(crate_name: &str, needles: &[&str], except: &[&str]) -> Vec<String> {
    let src = crates_dir().join(crate_name).join("src");
    let mut files = Vec::new();
    code_files(&src, &mut files);
    files
        .iter()
        .filter(|(path, _)| {
            let relative = path
                .strip_prefix(&src)
                .unwrap()
                .to_string_lossy()
                .into_owned();
            !except.iter().any(|allowed| relative.starts_with(allowed))
        })
        .filter_map(|(path, code)| {
            let named: Vec<&str> = needles
                .iter()
                .copied()
                .filter(|needle| code.contains(needle))
                .collect();
            (!named.is_empty()).then(|| format!("{}: {named:?}", path.display()))
        })
        .collect()
}

#[test]
fn every_crate_is_a_layer_and_depends_only_on_layers_below_it() {
    let crates = crate_names();
    let layers: BTreeSet<String> = LAYERS.iter().map(|(name, _)| name.to_string()).collect();
    assert_eq!(crates, layers, "crates/ and the layers differ");
    for name in &crates {
        let manifest = std::fs::read_to_string(crates_dir().join(name).join("Cargo.toml")).unwrap();
        let below = allowed(name);
        let forbidden: Vec<String> = internal_dependencies(&manifest)
            .into_iter()
            .filter(|dependency| !below.contains(&dependency.as_str()))
            .collect();
        assert!(
            forbidden.is_empty(),
            "crates/{name} may not depend on {forbidden:?}"
        );
    }
}

#[test]
fn only_the_binary_uses_anyhow() {
    for name in crate_names().iter().filter(|name| *name != "gitmem") {
        let manifest = std::fs::read_to_string(crates_dir().join(name).join("Cargo.toml")).unwrap();
        assert!(
            !manifest.lines().any(|line| line.starts_with("anyhow")),
            "crates/{name} depends on anyhow: a library's errors are typed"
        );
    }
}

#[test]
fn the_pure_layers_touch_no_file_network_process_or_runtime() {
    for name in ["note", "render"] {
        let offenders = files_naming(name, IMPURE, &[]);
        assert!(offenders.is_empty(), "crates/{name} is pure: {offenders:?}");
    }
}

#[test]
fn the_engine_touches_files_only_through_vault_and_config() {
    let offenders = files_naming("engine", &["std::fs"], &["config"]);
    assert!(
        offenders.is_empty(),
        "the engine's workflows go through vault: {offenders:?}"
    );
}

#[test]
fn only_the_index_opens_lmdb_or_milli() {
    for name in crate_names().iter().filter(|name| *name != "index") {
        let manifest = std::fs::read_to_string(crates_dir().join(name).join("Cargo.toml")).unwrap();
        assert!(
            !manifest.contains("milli-core"),
            "crates/{name} depends on milli: reads go through index::Snapshot"
        );
        let offenders = files_naming(name, &["milli_core", "heed::"], &[]);
        assert!(
            offenders.is_empty(),
            "crates/{name} opens the index's storage: {offenders:?}"
        );
    }
}

#[test]
fn the_adapters_touch_no_file_directly() {
    let offenders = files_naming("mcp", &["std::fs"], &[]);
    assert!(offenders.is_empty(), "mcp only adapts: {offenders:?}");
}

/// The index's stored types, which no public field or variant of the engine may carry: what
/// render prints is the engine's row types, so a change to the index changes no answer.
const STORED: &[&str] = &["NoteRecord", "StoredRelation", "Tables", "RoTxn", "RwTxn"];

/// The declarations of `code` that put a stored type in a public shape: a `pub` field, or a
/// variant of a `pub` enum.
fn stored_types_exposed(code: &str) -> Vec<String> {
    let mut in_public_enum = false;
    let mut exposed = Vec::new();
    for line in code.lines().map(str::trim) {
        if line.contains("enum ") || line.contains("struct ") {
            in_public_enum = line.starts_with("pub enum ");
        }
        let field = line.starts_with("pub ") && line.contains(": ") && !line.contains("fn ");
        let variant = in_public_enum && line.starts_with(|c: char| c.is_ascii_uppercase());
        if (field || variant) && STORED.iter().any(|stored| line.contains(stored)) {
            exposed.push(line.to_string());
        }
    }
    exposed
}

#[test]
fn the_engine_hands_out_rows_not_stored_records() {
    let src = crates_dir().join("engine").join("src");
    let mut files = Vec::new();
    code_files(&src, &mut files);
    let offenders: Vec<String> = files
        .iter()
        .flat_map(|(path, code)| {
            stored_types_exposed(code)
                .into_iter()
                .map(move |line| format!("{}: {line}", path.display()))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "stored records in the engine's outcomes: {offenders:#?}"
    );
}

/// The methods of `App` in `lib` (the engine's lib.rs), each as its signature and its body.
fn facade_methods(lib: &str) -> Vec<(String, String)> {
    let mut methods = Vec::new();
    for block in lib.split("\nimpl App {").skip(1) {
        let mut lines = block.split("\n}").next().unwrap_or("").lines();
        while let Some(line) = lines.next() {
            let line = line.trim();
            if !(line.starts_with("pub fn ") || line.starts_with("fn ")) {
                continue;
            }
            match line.strip_suffix(" }").and_then(|l| l.split_once(" { ")) {
                Some((signature, body)) => methods.push((signature.into(), body.into())),
                None => {
                    let body: Vec<&str> = lines.by_ref().take_while(|l| l.trim() != "}").collect();
                    methods.push((line.to_string(), body.join(" ")));
                }
            }
        }
    }
    methods
}

/// Why a facade method is more than one call to its feature, if it is.
fn more_than_a_call(body: &str) -> Option<&'static str> {
    let body = body.trim();
    if body.contains(';') {
        return Some("statements");
    }
    let control = ["if", "match", "for", "while", "loop", "let"];
    body.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .any(|word| control.contains(&word))
        .then_some("control flow")
}

#[test]
fn the_engine_facade_is_one_list_of_one_line_workflows() {
    let src = crates_dir().join("engine").join("src");
    let mut files = Vec::new();
    code_files(&src, &mut files);
    let elsewhere: Vec<String> = files
        .iter()
        .filter(|(path, code)| !path.ends_with("lib.rs") && code.contains("impl App {"))
        .map(|(path, _)| path.display().to_string())
        .collect();
    assert!(
        elsewhere.is_empty(),
        "App's methods belong in engine's lib.rs; also in {elsewhere:?}"
    );
    let lib = std::fs::read_to_string(src.join("lib.rs")).unwrap();
    let methods = facade_methods(&lib);
    assert!(methods.len() > 100, "{} facade methods read", methods.len());
    for (signature, body) in &methods {
        if let Some(why) = more_than_a_call(body) {
            panic!("the facade's {signature} has {why}: a feature function owns the work");
        }
        if let Some(stored) = STORED.iter().find(|s| signature.contains(**s)) {
            panic!("the facade's {signature} hands out the stored {stored}");
        }
    }
}

#[test]
fn the_architecture_map_has_a_section_for_every_crate() {
    let map = std::fs::read_to_string(workspace_root().join("docs/architecture.md")).unwrap();
    let missing: Vec<String> = crate_names()
        .into_iter()
        .filter(|name| !map.contains(&format!("\n### `{name}`")))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/architecture.md has no section for {missing:?}"
    );
}

#[test]
fn the_rules_read_manifests_and_code_as_written() {
    let manifest = "[dependencies]\nnote.workspace = true\nserde.workspace = true\n\
                    vault.workspace = true\n[dev-dependencies]\nindex.workspace = true\n";
    let found = internal_dependencies(manifest);
    assert_eq!(found, BTreeSet::from(["note".into(), "vault".into()]));
    assert!(allowed("render").contains(&"engine"));
    assert!(!allowed("note").contains(&"vault"));
    for (code, exposed) in [
        ("pub struct A {\n    pub note: NoteRecord,\n}", 1),
        (
            "pub struct A {\n    pub notes: Vec<index::NoteRecord>,\n}",
            1,
        ),
        ("pub enum A {\n    Found(Box<NoteRecord>),\n    Gone,\n}", 1),
        ("pub(crate) enum A {\n    Found(Box<NoteRecord>),\n}", 0),
        (
            "pub struct A {\n    pub note: NoteRow,\n    note: NoteRecord,\n}",
            0,
        ),
        ("pub fn note(&self) -> Result<Option<NoteRecord>> {", 0),
        ("    let notes: Vec<NoteRecord> = Vec::new();", 0),
    ] {
        assert_eq!(stored_types_exposed(code).len(), exposed, "{code}");
    }
    let lib = "impl App {\n    pub fn open(root: &Path) -> Result<Self> {\n        Ok(Self { engine: Engine::open(root)? })\n    }\n}\n\
               impl App {\n    // notes\n    pub fn a(&self) -> usize { notes::a(&self.engine) }\n    pub fn b(&self) {\n        let x = 1;\n        notes::b(x)\n    }\n}\n";
    let methods = facade_methods(&format!("\n{lib}"));
    let names: Vec<&str> = methods.iter().map(|(s, _)| s.as_str()).collect();
    assert_eq!(
        names,
        [
            "pub fn open(root: &Path) -> Result<Self> {",
            "pub fn a(&self) -> usize",
            "pub fn b(&self) {"
        ]
    );
    let verdicts: Vec<Option<&str>> = methods.iter().map(|(_, b)| more_than_a_call(b)).collect();
    assert_eq!(verdicts, [None, None, Some("statements")]);
    assert_eq!(
        more_than_a_call("match x { _ => y() }"),
        Some("control flow")
    );
    assert_eq!(more_than_a_call("notes::format(&self.engine)"), None);
}
