//! The data root, `config.toml`, and the project registry.
//!
//! Layout (design 2): `config.toml` (optional), `projects/<name>/` (default home of a project's
//! notes), `meta/<project>/`, `index/` (derived). The registry lives in `config.toml` under
//! `[projects.<name>]`; a root without any project entry has the implicit project `main` at
//! `<root>/projects/main`. Writes to `config.toml` go through `toml_edit` so that a user's
//! comments and key order survive.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Deserialize;

use note::permalink::generate_permalink;
use note::redact::Redactor;

mod crypto;
mod error;
mod limits;
mod overrides;
mod redaction;
pub use crypto::{Crypto, CryptoSection};
pub use error::ConfigError;
pub use limits::LimitsConfig;
pub use overrides::CONFIG_VAR;
pub(crate) use overrides::{config_file, process_env};
pub use redaction::{PatternEntry, RedactionConfig};

pub(crate) const DEFAULT_PROJECT: &str = "main";

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct WatchConfig {
    pub mode: Option<String>,
    pub poll_interval_ms: Option<u64>,
    pub jitter_pct: Option<u32>,
    pub max_concurrent: Option<usize>,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct LocalStorageConfig {
    pub allow_outside_home: bool,
    pub watch: WatchConfig,
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct StorageConfig {
    pub local: LocalStorageConfig,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct CompatConfig {
    pub permalinks_include_project: bool,
    pub write_note_overwrite_default: bool,
    pub dotted_names: bool,
}

impl Default for CompatConfig {
    fn default() -> Self {
        Self {
            permalinks_include_project: true,
            write_note_overwrite_default: false,
            dotted_names: false,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct ServerConfig {
    pub transport: Option<String>,
    pub bind: Option<String>,
    /// The public base URL of the HTTP server, for the links the ChatGPT tools return.
    pub public_url: Option<String>,
    /// The families of tools `serve` offers (`basic`, `graph`, `gitmem`, `diagnostics`, `all`).
    pub tools: Option<String>,
    /// `false` hides the POSIX-shaped read tools (`cat`, `grep`, `ls`, `find`, `tail`, `man`),
    /// as Basic Memory's `enable_posix_tools = false` does; unset serves them.
    pub posix_tools: Option<bool>,
    /// Where `serve --transport http` also serves `/metrics` alone, without a token.
    pub metrics_bind: Option<String>,
}

impl ServerConfig {
    pub fn serves_posix_tools(&self) -> bool {
        self.posix_tools != Some(false)
    }
}

/// `[search]`: which embedding model semantic search uses, and which reranker reorders the
/// top of its results.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
pub struct SearchConfig {
    /// A Hugging Face model id (fetched when not installed), an installed model's name, or
    /// `"none"`; unset means the model `gitmem model use` chose, else the default model.
    pub model: Option<String>,
    /// Where models are fetched from: a Hugging Face hub or a mirror of one (`HF_ENDPOINT` when
    /// unset, else https://huggingface.co).
    pub hub: Option<String>,
    /// An installed cross-encoder's name, or the Hugging Face id it was installed from, that
    /// reorders the top of hybrid and vector results; unset or `"none"`: no reranking.
    pub reranker: Option<String>,
    /// How many of the fused results the reranker reorders (20 when unset).
    pub reranker_candidates: Option<usize>,
    /// While writes keep coming, how long at least search indexing passes are apart (1,000 ms
    /// when unset); a client's own writes are searchable for it without this wait.
    pub refresh_ms: Option<u64>,
}

#[derive(Debug, Clone, Deserialize)]
pub(crate) struct ProjectEntry {
    pub path: String,
    /// `[projects.NAME.git]`: the project is a git work tree gitmem commits to.
    #[serde(default)]
    pub git: Option<GitSettings>,
    /// `[projects.NAME.crypto]`: overrides `[crypto]` for this project.
    #[serde(default)]
    pub crypto: CryptoSection,
}

/// A versioned project's settings (`[projects.NAME.git]`). Credentials never live here.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct GitSettings {
    pub remote: Option<String>,
    pub author_name: String,
    pub author_email: String,
    /// Changes within this many milliseconds share one commit.
    pub commit_batch_ms: u64,
    /// Commit changes made on disk by other programs (a scan finds them).
    pub auto_commit_external: bool,
    /// Push after every commit (a failed push is retried with backoff, never failing a write).
    pub auto_push: bool,
    /// How often `serve` pulls from the remote; 0 turns periodic pulls off.
    pub pull_interval_ms: u64,
    /// This device's name in conflict copies (`<name>.conflict-<device>-<time>.md`); the host
    /// name when unset.
    pub device: Option<String>,
}

impl GitSettings {
    /// The device name conflict copies carry.
    pub(crate) fn device_name(&self) -> String {
        self.device
            .clone()
            .or_else(|| std::env::var("HOSTNAME").ok())
            .or_else(|| std::env::var("COMPUTERNAME").ok())
            .or_else(|| std::fs::read_to_string("/etc/hostname").ok())
            .map(|name| name.trim().to_string())
            .filter(|name| !name.is_empty())
            .unwrap_or_else(|| "device".into())
    }
}

impl Default for GitSettings {
    fn default() -> Self {
        Self {
            remote: None,
            author_name: "gitmem".into(),
            author_email: "gitmem@localhost".into(),
            commit_batch_ms: 500,
            auto_commit_external: true,
            auto_push: false,
            pull_interval_ms: 60_000,
            device: None,
        }
    }
}

#[derive(Debug, Clone, Deserialize, Default)]
#[serde(default)]
struct ConfigFile {
    default_project: Option<String>,
    storage: StorageConfig,
    compat: CompatConfig,
    server: ServerConfig,
    search: SearchConfig,
    crypto: CryptoSection,
    limits: LimitsConfig,
    redaction: RedactionConfig,
    projects: BTreeMap<String, ProjectEntry>,
}

/// A registered project.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Project {
    pub name: String,
    /// Slug of the name, the first segment of its permalinks.
    pub permalink: String,
    pub path: PathBuf,
    pub is_default: bool,
    /// Set when the project is versioned in git.
    #[serde(skip)]
    pub git: Option<GitSettings>,
    /// Set when its remote is encrypted.
    #[serde(skip)]
    pub crypto: Option<Crypto>,
}

impl Project {
    /// A stable UUID for the project, derived from its name (tools accept it as `project_id`).
    pub fn external_id(&self) -> String {
        use sha2::{Digest, Sha256};
        let digest = Sha256::digest(format!("gitmem-project\0{}", self.name).as_bytes());
        let mut bytes = [0u8; 16];
        bytes.copy_from_slice(&digest[..16]);
        uuid::Uuid::new_v8(bytes).to_string()
    }
}

/// The loaded configuration of one data root.
#[derive(Debug, Clone)]
pub struct Config {
    pub root: PathBuf,
    pub storage: StorageConfig,
    pub compat: CompatConfig,
    pub server: ServerConfig,
    pub search: SearchConfig,
    /// `[crypto]`, the default of every project's encryption.
    pub crypto: CryptoSection,
    pub limits: LimitsConfig,
    /// `[redaction]`, compiled once.
    pub redactor: Arc<Redactor>,
    /// The config file read (and written by the project commands).
    file: PathBuf,
    projects: Vec<Project>,
    /// Each project's own `[projects.NAME.crypto]`, as written.
    crypto_sections: BTreeMap<String, CryptoSection>,
}

impl Config {
    /// The config file: `GITMEM_CONFIG` (`--config`), else `<root>/config.toml`.
    pub fn config_path(root: &Path) -> PathBuf {
        config_file(root, &process_env())
    }

    pub fn index_dir(&self) -> PathBuf {
        self.root.join("index")
    }

    pub(crate) fn meta_dir(&self) -> PathBuf {
        self.root.join("meta")
    }

    /// Loads the config file (absent = defaults) under the process environment's overrides,
    /// and creates project directories.
    pub fn load(root: &Path) -> Result<Self, ConfigError> {
        Self::load_in(root, &process_env())
    }

    /// Loads the config file `env` names (`GITMEM_CONFIG`, else `<root>/config.toml`), with the
    /// `GITMEM_<SECTION>_<KEY>` overrides of `env` and of the `.env` file beside it.
    fn load_in(root: &Path, env: &BTreeMap<String, String>) -> Result<Self, ConfigError> {
        std::fs::create_dir_all(root).map_err(|source| ConfigError::CreateDir {
            path: root.to_path_buf(),
            source,
        })?;
        let root = root.canonicalize().map_err(|source| ConfigError::Read {
            path: root.to_path_buf(),
            source,
        })?;
        let path = config_file(&root, env);
        let parse_error = |e: toml::de::Error| ConfigError::Parse {
            path: path.clone(),
            message: e.to_string(),
        };
        let mut table: toml::Table = match std::fs::read_to_string(&path) {
            // Read as the settings first, so a bad value in the file is reported at its line.
            Ok(text) => toml::from_str::<ConfigFile>(&text)
                .and_then(|_| toml::from_str(&text))
                .map_err(parse_error)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => toml::Table::new(),
            Err(source) => return Err(ConfigError::Read { path, source }),
        };
        let dotenv_path = path.with_file_name(".env");
        let dotenv = match std::fs::read_to_string(&dotenv_path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(source) => {
                return Err(ConfigError::Read {
                    path: dotenv_path,
                    source,
                })
            }
        };
        overrides::Overrides::read(env, dotenv.as_deref().map(|t| (dotenv_path.as_path(), t)))?
            .apply(&mut table);
        let file: ConfigFile = toml::Value::Table(table).try_into().map_err(parse_error)?;
        let redactor = file
            .redaction
            .redactor()
            .map_err(|source| ConfigError::Redaction {
                path: path.clone(),
                source,
            })?;
        let explicit_projects = !file.projects.is_empty();
        let entries: Vec<(String, PathBuf, Option<GitSettings>)> = if explicit_projects {
            file.projects
                .iter()
                .map(|(name, entry)| {
                    (
                        name.clone(),
                        resolve_path(&root, &entry.path),
                        entry.git.clone(),
                    )
                })
                .collect()
        } else {
            vec![(
                DEFAULT_PROJECT.to_string(),
                root.join("projects").join(DEFAULT_PROJECT),
                None,
            )]
        };
        // `default_project = ""` means no default: tools then need an explicit project, and
        // recent_activity looks across all projects (compat 7.2, explicit null).
        let default = match file.default_project.as_deref() {
            Some("") => None,
            wanted => wanted
                .filter(|d| entries.iter().any(|(n, _, _)| n == d))
                .map(String::from)
                .or_else(|| entries.first().map(|(n, _, _)| n.clone())),
        };
        let crypto_sections: BTreeMap<String, CryptoSection> = file
            .projects
            .iter()
            .map(|(name, entry)| (name.clone(), entry.crypto.clone()))
            .collect();
        let mut projects = Vec::with_capacity(entries.len());
        for (name, path, git) in entries {
            // A project whose directory cannot be made stays registered: its scans report why.
            if let Err(e) = std::fs::create_dir_all(&path) {
                tracing::warn!("project '{name}': cannot create {}: {e}", path.display());
            }
            let path = path.canonicalize().unwrap_or(path);
            projects.push(Project {
                permalink: generate_permalink(&name, false),
                is_default: default.as_deref() == Some(name.as_str()),
                crypto: (crypto_sections.get(&name).cloned().unwrap_or_default())
                    .resolve(&file.crypto, &root),
                name,
                path,
                git,
            });
        }
        Ok(Self {
            root,
            file: path,
            storage: file.storage,
            compat: file.compat,
            server: file.server,
            search: file.search,
            crypto: file.crypto,
            limits: file.limits,
            redactor: Arc::new(redactor),
            projects,
            crypto_sections,
        })
    }

    pub fn projects(&self) -> &[Project] {
        &self.projects
    }

    pub fn default_project(&self) -> Option<&Project> {
        self.projects.iter().find(|p| p.is_default)
    }

    /// Finds a project by name, case-insensitive name, or slug.
    pub fn project(&self, name: &str) -> Result<&Project, ConfigError> {
        let slug = generate_permalink(name, false);
        self.projects
            .iter()
            .find(|p| p.name == name)
            .or_else(|| {
                self.projects
                    .iter()
                    .find(|p| p.name.eq_ignore_ascii_case(name) || p.permalink == slug)
            })
            .or_else(|| {
                self.projects
                    .iter()
                    .find(|p| p.external_id().eq_ignore_ascii_case(name.trim()))
            })
            .ok_or_else(|| ConfigError::UnknownProject(name.to_string(), self.project_names()))
    }

    /// The named project, or the default one.
    pub(crate) fn project_or_default(&self, name: Option<&str>) -> Result<&Project, ConfigError> {
        match name {
            Some(n) => self.project(n),
            None => self.default_project().ok_or_else(|| {
                ConfigError::UnknownProject("(default)".into(), self.project_names())
            }),
        }
    }

    fn project_names(&self) -> String {
        self.projects
            .iter()
            .map(|p| p.name.as_str())
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Registers a project; its directory is created if missing.
    pub fn add_project(
        &mut self,
        name: &str,
        path: &Path,
        make_default: bool,
    ) -> Result<Project, ConfigError> {
        validate_name(name)?;
        if self.project(name).is_ok() {
            return Err(ConfigError::DuplicateProject(name.to_string()));
        }
        let canonical = self.free_directory(name, path)?;
        let project = Project {
            name: name.to_string(),
            permalink: generate_permalink(name, false),
            path: canonical,
            is_default: false,
            git: None,
            crypto: CryptoSection::default().resolve(&self.crypto, &self.root),
        };
        self.projects.push(project.clone());
        if make_default || self.default_project().is_none() {
            self.set_default_flag(name);
        }
        self.save()?;
        Ok(self.project(name)?.clone())
    }

    /// Points an existing project at another directory, checked as a new project's is.
    pub(crate) fn relocate_project(
        &mut self,
        name: &str,
        path: &Path,
    ) -> Result<Project, ConfigError> {
        let name = self.project(name)?.name.clone();
        let canonical = self.free_directory(&name, path)?;
        if let Some(project) = self.projects.iter_mut().find(|p| p.name == name) {
            project.path = canonical;
        }
        self.save()?;
        Ok(self.project(&name)?.clone())
    }

    /// `path` made absolute, once it is known not to hold the data root nor to overlap a project
    /// other than `name`; then created. Every check runs before the directory is made, so a
    /// refused project leaves nothing.
    fn free_directory(&self, name: &str, path: &Path) -> Result<PathBuf, ConfigError> {
        let absolute = resolve_path(
            &std::env::current_dir().unwrap_or_default(),
            &path.to_string_lossy(),
        );
        let canonical = vault::path::canonicalize_existing_prefix(&absolute);
        if self.root.starts_with(&canonical) {
            return Err(ConfigError::ContainsRoot(canonical.display().to_string()));
        }
        for other in self.projects.iter().filter(|p| p.name != name) {
            if canonical.starts_with(&other.path) || other.path.starts_with(&canonical) {
                return Err(ConfigError::Overlap {
                    name: name.to_string(),
                    path: canonical.display().to_string(),
                    other: other.name.clone(),
                    other_path: other.path.display().to_string(),
                });
            }
        }
        std::fs::create_dir_all(&canonical).map_err(|source| ConfigError::CreateDir {
            path: canonical.clone(),
            source,
        })?;
        Ok(canonical)
    }

    /// Marks a project as versioned, with `remote` (kept, with any other key the user set, when
    /// it was versioned already).
    pub(crate) fn set_project_git(
        &mut self,
        name: &str,
        remote: Option<&str>,
    ) -> Result<Project, ConfigError> {
        let project = self
            .projects
            .iter_mut()
            .find(|p| p.name == name)
            .ok_or_else(|| ConfigError::UnknownProject(name.to_string(), String::new()))?;
        let git = project.git.get_or_insert_with(GitSettings::default);
        if let Some(remote) = remote {
            git.remote = Some(remote.to_string());
        }
        self.save()?;
        Ok(self.project(name)?.clone())
    }

    /// The encryption a project would have with it turned on (and `recipients`, when given).
    pub(crate) fn crypto_if_enabled(&self, name: &str, recipients: Option<&[String]>) -> Crypto {
        let mut section = self.crypto_sections.get(name).cloned().unwrap_or_default();
        section.enabled = Some(true);
        if let Some(recipients) = recipients {
            section.age_recipients = Some(recipients.to_vec());
        }
        (section.resolve(&self.crypto, &self.root)).expect("enabled")
    }

    /// The age identity `gitmem crypto keygen` writes when not told where.
    pub(crate) fn default_identity_file(&self) -> PathBuf {
        crypto::default_identity_file(&self.root)
    }

    /// Turns encryption on or off for a project (`[projects.NAME.crypto]`), with `recipients`
    /// when given; the rest of the section, and `[crypto]`, stay as the user wrote them.
    pub(crate) fn set_project_crypto(
        &mut self,
        name: &str,
        enabled: bool,
        recipients: Option<&[String]>,
    ) -> Result<Project, ConfigError> {
        let name = self.project(name)?.name.clone();
        let section = self.crypto_sections.entry(name.clone()).or_default();
        section.enabled = Some(enabled);
        if let Some(recipients) = recipients {
            section.age_recipients = Some(recipients.to_vec());
        }
        let resolved = section.resolve(&self.crypto, &self.root);
        if let Some(project) = self.projects.iter_mut().find(|p| p.name == name) {
            project.crypto = resolved;
        }
        self.save()?;
        Ok(self.project(&name)?.clone())
    }

    pub fn remove_project(&mut self, name: &str) -> Result<Project, ConfigError> {
        let project = self.project(name)?.clone();
        if project.is_default {
            return Err(ConfigError::RemoveDefault(project.name));
        }
        self.projects.retain(|p| p.name != project.name);
        self.save()?;
        Ok(project)
    }

    pub fn set_default(&mut self, name: &str) -> Result<Project, ConfigError> {
        let name = self.project(name)?.name.clone();
        self.set_default_flag(&name);
        self.save()?;
        Ok(self.project(&name)?.clone())
    }

    fn set_default_flag(&mut self, name: &str) {
        for p in &mut self.projects {
            p.is_default = p.name == name;
        }
    }

    /// Writes the registry into `config.toml`, keeping everything else in the file as it was.
    fn save(&mut self) -> Result<(), ConfigError> {
        let path = self.file.clone();
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(source) => return Err(ConfigError::Read { path, source }),
        };
        let mut doc: toml_edit::DocumentMut =
            text.parse()
                .map_err(|e: toml_edit::TomlError| ConfigError::Parse {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
        if let Some(default) = self.default_project() {
            doc["default_project"] = toml_edit::value(default.name.clone());
        }
        if !doc.contains_table("projects") {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            doc["projects"] = toml_edit::Item::Table(table);
        }
        let table = doc["projects"].as_table_mut().expect("projects is a table");
        let names: Vec<String> = table.iter().map(|(k, _)| k.to_string()).collect();
        for name in names {
            if !self.projects.iter().any(|p| p.name == name) {
                table.remove(&name);
            }
        }
        for project in &self.projects {
            let stored = if let Ok(rel) = project.path.strip_prefix(&self.root) {
                rel.to_string_lossy().into_owned()
            } else {
                project.path.to_string_lossy().into_owned()
            };
            if !table.contains_key(&project.name) {
                table[&project.name] = toml_edit::table();
            }
            table[&project.name]["path"] = toml_edit::value(stored);
            if let Some(git) = &project.git {
                let entry = &mut table[&project.name];
                if !entry.as_table().is_some_and(|t| t.contains_key("git")) {
                    entry["git"] = toml_edit::table();
                }
                if let Some(remote) = &git.remote {
                    entry["git"]["remote"] = toml_edit::value(remote.clone());
                }
            }
            let crypto = self.crypto_sections.get(&project.name);
            if let Some(crypto) = crypto.filter(|c| **c != CryptoSection::default()) {
                let entry = &mut table[&project.name];
                if !entry.as_table().is_some_and(|t| t.contains_key("crypto")) {
                    entry["crypto"] = toml_edit::table();
                }
                if let Some(enabled) = crypto.enabled {
                    entry["crypto"]["enabled"] = toml_edit::value(enabled);
                }
                if let Some(recipients) = &crypto.age_recipients {
                    let list: toml_edit::Array = recipients.iter().collect();
                    entry["crypto"]["age_recipients"] = toml_edit::value(list);
                }
            }
        }
        vault::fs::atomic_write(&path, doc.to_string().as_bytes())
            .map_err(|source| ConfigError::Write { path, source })?;
        Ok(())
    }
}

fn validate_name(name: &str) -> Result<(), ConfigError> {
    let ok = !name.trim().is_empty()
        && name.len() <= 100
        && !name.starts_with('.')
        && name
            .chars()
            .all(|c| c.is_alphanumeric() || matches!(c, ' ' | '-' | '_' | '.'));
    if ok {
        Ok(())
    } else {
        Err(ConfigError::BadName(name.to_string()))
    }
}

fn resolve_path(base: &Path, path: &str) -> PathBuf {
    let expanded = match path.strip_prefix("~/") {
        Some(rest) => dirs::home_dir().unwrap_or_default().join(rest),
        None => PathBuf::from(path),
    };
    if expanded.is_absolute() {
        expanded
    } else {
        base.join(expanded)
    }
}

/// The data root: `--root`, else `$GITMEM_ROOT`, else `~/.gitmem`.
pub fn default_root() -> PathBuf {
    dirs::home_dir()
        .unwrap_or_else(|| PathBuf::from("."))
        .join(".gitmem")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fresh_root_has_main_as_default() {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::load(dir.path()).unwrap();
        let main = config.default_project().unwrap();
        assert_eq!(main.name, "main");
        assert!(main.path.ends_with("projects/main"));
        assert!(main.path.is_dir());
        assert!(config.compat.permalinks_include_project);
        assert!(
            !Config::config_path(dir.path()).exists(),
            "loading writes nothing"
        );
    }

    #[test]
    fn add_list_default_remove() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::load(dir.path()).unwrap();
        let research = dir.path().join("elsewhere/research");
        config.add_project("My Research", &research, false).unwrap();
        assert_eq!(config.project("my-research").unwrap().name, "My Research");
        let id = config.project("My Research").unwrap().external_id();
        assert_eq!(
            config.project(&id).unwrap().name,
            "My Research",
            "external ids name projects too"
        );
        config.set_default("My Research").unwrap();
        assert!(matches!(
            config.remove_project("My Research"),
            Err(ConfigError::RemoveDefault(_))
        ));
        config.set_default("main").unwrap();

        let reloaded = Config::load(dir.path()).unwrap();
        let names: Vec<_> = reloaded
            .projects()
            .iter()
            .map(|p| p.name.as_str())
            .collect();
        assert_eq!(names, ["My Research", "main"]);
        assert_eq!(reloaded.default_project().unwrap().name, "main");

        let mut reloaded = reloaded;
        reloaded.remove_project("My Research").unwrap();
        assert_eq!(Config::load(dir.path()).unwrap().projects().len(), 1);
    }

    #[test]
    fn overlapping_projects_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut config = Config::load(dir.path()).unwrap();
        let main = config.default_project().unwrap().path.clone();
        let err = config
            .add_project("inner", &main.join("sub"), false)
            .unwrap_err();
        assert!(err.to_string().contains("may not be nested"), "{err}");
        let err = config
            .add_project("outer", &dir.path().join("projects"), false)
            .unwrap_err();
        assert!(matches!(err, ConfigError::Overlap { .. }), "{err}");
        let err = config
            .add_project("everything", dir.path(), false)
            .unwrap_err();
        assert!(matches!(err, ConfigError::ContainsRoot(_)), "{err}");
        assert!(matches!(
            config.add_project("main", &dir.path().join("x"), false),
            Err(ConfigError::DuplicateProject(_))
        ));
        assert!(matches!(
            config.add_project(".hidden", &dir.path().join("y"), false),
            Err(ConfigError::BadName(_))
        ));
        assert!(matches!(
            config.add_project("a/b", &dir.path().join("y"), false),
            Err(ConfigError::BadName(_))
        ));
    }

    #[test]
    fn an_empty_default_means_no_default() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(Config::config_path(dir.path()), "default_project = \"\"\n").unwrap();
        let config = Config::load(dir.path()).unwrap();
        assert!(config.default_project().is_none());
        assert!(config.project_or_default(None).is_err());
        assert_eq!(
            config.project_or_default(Some("main")).unwrap().name,
            "main"
        );
    }

    #[test]
    fn comments_in_config_survive_edits() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            Config::config_path(dir.path()),
            "# my settings\n[compat]\npermalinks_include_project = false # keep short\n",
        )
        .unwrap();
        let mut config = Config::load(dir.path()).unwrap();
        assert!(!config.compat.permalinks_include_project);
        config
            .add_project("work", &dir.path().join("work"), false)
            .unwrap();
        let text = std::fs::read_to_string(Config::config_path(dir.path())).unwrap();
        assert!(text.contains("# my settings\n[compat]\n"), "{text}");
        assert!(
            text.contains("permalinks_include_project = false # keep short"),
            "{text}"
        );
        assert!(text.contains("[projects.main]"), "{text}");
        assert!(text.contains("[projects.work]"), "{text}");
    }
}
