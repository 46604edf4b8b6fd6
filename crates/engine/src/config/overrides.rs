//! config.toml's keys set from the environment: `GITMEM_<SECTION>_<KEY>` (the key's path in
//! upper case, dots as underscores: `GITMEM_SERVER_BIND`, `GITMEM_STORAGE_LOCAL_WATCH_MODE`),
//! from the process environment or from a `.env` file beside config.toml. Precedence, highest
//! first: a command-line flag, the process environment, `.env` (which never replaces a
//! variable the environment has), config.toml, the defaults.
//!
//! The keys are listed with their types, so a misspelt override or a value of the wrong type is
//! an error naming the variable, never a setting silently left as it was. `default_project` and
//! the project registry are not among them: `gitmem project` writes those into the file.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::ConfigError;

/// What a key's value is in config.toml.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Bool,
    Int,
    Str,
    /// A TOML array (`["a", "b"]`), or strings separated by commas.
    List,
}

impl Kind {
    fn expected(self) -> &'static str {
        match self {
            Kind::Bool => "true or false",
            Kind::Int => "a whole number",
            Kind::Str => "a string",
            Kind::List => "a list: comma-separated, or a TOML array like [\"a\", \"b\"]",
        }
    }
}

/// Every key an override may set, by its path in config.toml.
const KEYS: &[(&str, Kind)] = &[
    ("storage.local.allow_outside_home", Kind::Bool),
    ("storage.local.watch.mode", Kind::Str),
    ("storage.local.watch.poll_interval_ms", Kind::Int),
    ("storage.local.watch.jitter_pct", Kind::Int),
    ("storage.local.watch.max_concurrent", Kind::Int),
    ("compat.permalinks_include_project", Kind::Bool),
    ("compat.write_note_overwrite_default", Kind::Bool),
    ("compat.dotted_names", Kind::Bool),
    ("server.transport", Kind::Str),
    ("server.bind", Kind::Str),
    ("server.public_url", Kind::Str),
    ("server.tools", Kind::Str),
    ("server.posix_tools", Kind::Bool),
    ("server.metrics_bind", Kind::Str),
    ("search.model", Kind::Str),
    ("search.hub", Kind::Str),
    ("search.reranker", Kind::Str),
    ("search.reranker_candidates", Kind::Int),
    ("search.refresh_ms", Kind::Int),
    ("crypto.enabled", Kind::Bool),
    ("crypto.age_recipients", Kind::List),
    ("crypto.identity_file", Kind::Str),
    ("limits.max_memory_size", Kind::Int),
    ("limits.max_total_daily", Kind::Int),
    ("redaction.enabled", Kind::Bool),
    ("redaction.patterns", Kind::List),
];

/// The environment variable that names the config file instead of `<root>/config.toml`.
pub const CONFIG_VAR: &str = "GITMEM_CONFIG";

const PREFIX: &str = "GITMEM_";

/// The variable that sets `key`.
fn var_of(key: &str) -> String {
    format!("{PREFIX}{}", key.replace('.', "_").to_ascii_uppercase())
}

/// The config file of `root` under `env`: `GITMEM_CONFIG`, else `<root>/config.toml`.
pub(crate) fn config_file(root: &Path, env: &BTreeMap<String, String>) -> PathBuf {
    match env.get(CONFIG_VAR).filter(|p| !p.is_empty()) {
        Some(path) => PathBuf::from(path),
        None => root.join("config.toml"),
    }
}

/// The process environment, where it is text.
pub(crate) fn process_env() -> BTreeMap<String, String> {
    std::env::vars_os()
        .filter_map(|(name, value)| Some((name.into_string().ok()?, value.into_string().ok()?)))
        .collect()
}

/// The overrides in force: each key's path and its value.
#[derive(Debug, Default)]
pub(super) struct Overrides(Vec<(&'static str, toml::Value)>);

impl Overrides {
    /// The overrides of `env`, and of `dotenv` (a `.env` file's path and text) where `env`
    /// does not set the same variable.
    pub(super) fn read(
        env: &BTreeMap<String, String>,
        dotenv: Option<(&Path, &str)>,
    ) -> Result<Overrides, ConfigError> {
        let mut found = Vec::new();
        for (name, value) in env {
            if let Some(set) = override_of(name, value, "the environment")? {
                found.push(set);
            }
        }
        if let Some((path, text)) = dotenv {
            let from = path.display().to_string();
            for (line, name, value) in dotenv_lines(path, text)? {
                if env.contains_key(&name) {
                    continue;
                }
                match override_of(&name, &value, &from)? {
                    Some(set) => found.push(set),
                    None if name.starts_with(PREFIX) => {
                        return Err(ConfigError::DotEnv {
                            path: path.to_path_buf(),
                            line,
                            message: format!(
                                "{name} is not a config key; a .env beside config.toml sets only \
                                 GITMEM_<SECTION>_<KEY> overrides (set {name} in the environment)"
                            ),
                        })
                    }
                    None => {}
                }
            }
        }
        Ok(Overrides(found))
    }

    /// `table` (config.toml, parsed) with every override set in it.
    pub(super) fn apply(&self, table: &mut toml::Table) {
        for (key, value) in &self.0 {
            let mut parts: Vec<&str> = key.split('.').collect();
            let last = parts.pop().expect("a key has a name");
            let mut at = &mut *table;
            for part in parts {
                let entry = at
                    .entry(part)
                    .or_insert_with(|| toml::Value::Table(toml::Table::new()));
                if !entry.is_table() {
                    *entry = toml::Value::Table(toml::Table::new());
                }
                at = entry.as_table_mut().expect("made a table");
            }
            at.insert(last.to_string(), value.clone());
        }
    }
}

/// The key `name` overrides with its value, `None` for a variable that is no config
/// override, or an error for one that looks like an override (it names a section) but is not.
fn override_of(
    name: &str,
    value: &str,
    from: &str,
) -> Result<Option<(&'static str, toml::Value)>, ConfigError> {
    if let Some(&(key, kind)) = KEYS.iter().find(|(key, _)| var_of(key) == name) {
        return match parse(kind, value) {
            Some(parsed) => Ok(Some((key, parsed))),
            None => Err(ConfigError::BadOverride {
                var: name.to_string(),
                from: from.to_string(),
                value: value.to_string(),
                expected: kind.expected(),
            }),
        };
    }
    let section = KEYS
        .iter()
        .map(|(key, _)| key.split('.').next().unwrap_or(key))
        .find(|section| name.starts_with(&var_of(&format!("{section}."))));
    match section {
        Some(section) => Err(ConfigError::UnknownOverride {
            var: name.to_string(),
            from: from.to_string(),
            section: section.to_string(),
            known: KEYS
                .iter()
                .filter(|(key, _)| key.starts_with(&format!("{section}.")))
                .map(|(key, _)| var_of(key))
                .collect::<Vec<_>>()
                .join(", "),
        }),
        None => Ok(None),
    }
}

fn parse(kind: Kind, value: &str) -> Option<toml::Value> {
    let trimmed = value.trim();
    match kind {
        Kind::Bool => match trimmed.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "on" => Some(toml::Value::Boolean(true)),
            "false" | "0" | "no" | "off" => Some(toml::Value::Boolean(false)),
            _ => None,
        },
        Kind::Int => trimmed
            .parse::<i64>()
            .ok()
            .filter(|n| *n >= 0)
            .map(toml::Value::Integer),
        Kind::Str => Some(toml::Value::String(value.to_string())),
        Kind::List if trimmed.starts_with('[') => {
            let mut table: toml::Table = toml::from_str(&format!("v = {trimmed}")).ok()?;
            table.remove("v").filter(toml::Value::is_array)
        }
        Kind::List => Some(toml::Value::Array(
            trimmed
                .split(',')
                .map(str::trim)
                .filter(|item| !item.is_empty())
                .map(|item| toml::Value::String(item.to_string()))
                .collect(),
        )),
    }
}

/// A `.env` file's assignments (line, name, value): `NAME=value`, `export NAME=value`, values
/// optionally in single or double quotes; blank lines and `#` comments skipped.
fn dotenv_lines(path: &Path, text: &str) -> Result<Vec<(usize, String, String)>, ConfigError> {
    let mut found = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line.strip_prefix("export ").unwrap_or(line);
        let Some((name, value)) = line.split_once('=') else {
            return Err(ConfigError::DotEnv {
                path: path.to_path_buf(),
                line: i + 1,
                message: "expected NAME=value".into(),
            });
        };
        let value = value.trim();
        let unquoted = ['"', '\'']
            .iter()
            .find_map(|q| value.strip_prefix(*q)?.strip_suffix(*q))
            .unwrap_or(value);
        found.push((i + 1, name.trim().to_string(), unquoted.to_string()));
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(n, v)| (n.to_string(), v.to_string()))
            .collect()
    }

    /// The table the overrides of `pairs` make of an empty config.toml, as TOML text.
    fn applied(pairs: &[(&str, &str)]) -> Result<String, String> {
        let overrides = Overrides::read(&env(pairs), None).map_err(|e| e.to_string())?;
        let mut table = toml::Table::new();
        overrides.apply(&mut table);
        Ok(toml::to_string(&table).unwrap().trim().to_string())
    }

    #[test]
    fn values_parse_with_their_keys_type() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "GITMEM_SERVER_BIND",
                "0.0.0.0:8177",
                "[server]\nbind = \"0.0.0.0:8177\"",
            ),
            (
                "GITMEM_SERVER_METRICS_BIND",
                "10.0.0.5:9177",
                "[server]\nmetrics_bind = \"10.0.0.5:9177\"",
            ),
            (
                "GITMEM_SERVER_POSIX_TOOLS",
                "false",
                "[server]\nposix_tools = false",
            ),
            (
                "GITMEM_SERVER_POSIX_TOOLS",
                "Yes",
                "[server]\nposix_tools = true",
            ),
            (
                "GITMEM_LIMITS_MAX_MEMORY_SIZE",
                " 2048 ",
                "[limits]\nmax_memory_size = 2048",
            ),
            (
                "GITMEM_STORAGE_LOCAL_WATCH_POLL_INTERVAL_MS",
                "5000",
                "[storage.local.watch]\npoll_interval_ms = 5000",
            ),
            (
                "GITMEM_CRYPTO_AGE_RECIPIENTS",
                "age1a, age1b,",
                "[crypto]\nage_recipients = [\"age1a\", \"age1b\"]",
            ),
            (
                "GITMEM_REDACTION_PATTERNS",
                r#"['a,b', { name = "x", regex = "y" }]"#,
                "[redaction]\npatterns = [\"a,b\", { name = \"x\", regex = \"y\" }]",
            ),
            // Variables gitmem reads for other purposes are no config overrides.
            ("GITMEM_AUTH_TOKEN", "gmt_x", ""),
            ("GITMEM_ROOT", "/data", ""),
            ("GITMEM_EMBED_F32", "1", ""),
            ("HOME", "/root", ""),
        ];
        for (name, value, expected) in cases {
            assert_eq!(
                applied(&[(name, value)]).as_deref(),
                Ok(*expected),
                "{name}={value}"
            );
        }
    }

    #[test]
    fn a_misspelt_key_or_a_bad_value_is_an_error_naming_the_variable() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "GITMEM_SERVER_BINDD",
                "x",
                "GITMEM_SERVER_BINDD (from the environment) names no key of [server]; its keys are GITMEM_SERVER_TRANSPORT, GITMEM_SERVER_BIND, GITMEM_SERVER_PUBLIC_URL, GITMEM_SERVER_TOOLS, GITMEM_SERVER_POSIX_TOOLS, GITMEM_SERVER_METRICS_BIND",
            ),
            (
                "GITMEM_LIMITS_MAX_MEMORY_SIZE",
                "1MB",
                "GITMEM_LIMITS_MAX_MEMORY_SIZE='1MB' (from the environment) is not a whole number",
            ),
            (
                "GITMEM_SEARCH_RERANKER_CANDIDATES",
                "-3",
                "GITMEM_SEARCH_RERANKER_CANDIDATES='-3' (from the environment) is not a whole number",
            ),
            (
                "GITMEM_COMPAT_DOTTED_NAMES",
                "maybe",
                "GITMEM_COMPAT_DOTTED_NAMES='maybe' (from the environment) is not true or false",
            ),
            (
                "GITMEM_REDACTION_PATTERNS",
                "[1, ",
                "GITMEM_REDACTION_PATTERNS='[1, ' (from the environment) is not a list: comma-separated, or a TOML array like [\"a\", \"b\"]",
            ),
        ];
        for (name, value, message) in cases {
            assert_eq!(
                applied(&[(name, value)]),
                Err(message.to_string()),
                "{name}={value}"
            );
        }
    }

    #[test]
    fn the_environment_wins_over_dotenv_which_sets_only_config_keys() {
        let path = Path::new("/etc/gitmem/.env");
        let dotenv = "# comment\n\nexport GITMEM_SERVER_BIND='0.0.0.0:9000'\nGITMEM_SERVER_TOOLS = \"all\"\nOTHER=ignored\n";
        let overrides = Overrides::read(
            &env(&[("GITMEM_SERVER_TOOLS", "basic")]),
            Some((path, dotenv)),
        )
        .unwrap();
        let mut table = toml::Table::new();
        overrides.apply(&mut table);
        assert_eq!(
            toml::to_string(&table).unwrap(),
            "[server]\nbind = \"0.0.0.0:9000\"\ntools = \"basic\"\n"
        );
        let refused = [
            ("GITMEM_AUTH_TOKEN=x\n", "/etc/gitmem/.env, line 1: GITMEM_AUTH_TOKEN is not a config key; a .env beside config.toml sets only GITMEM_<SECTION>_<KEY> overrides (set GITMEM_AUTH_TOKEN in the environment)"),
            ("\nGITMEM_SERVER_BIND\n", "/etc/gitmem/.env, line 2: expected NAME=value"),
            (
                "GITMEM_LIMITS_MAX_TOTAL_DAILY=lots\n",
                "GITMEM_LIMITS_MAX_TOTAL_DAILY='lots' (from /etc/gitmem/.env) is not a whole number",
            ),
        ];
        for (text, message) in refused {
            let e = Overrides::read(&BTreeMap::new(), Some((path, text))).unwrap_err();
            assert_eq!(e.to_string(), message, "{text}");
        }
    }

    #[test]
    fn environment_then_dotenv_then_the_file_then_the_defaults() {
        let dir = tempfile::tempdir().unwrap();
        let etc = dir.path().join("etc");
        std::fs::create_dir_all(&etc).unwrap();
        let file = etc.join("gitmem.toml");
        std::fs::write(
            &file,
            "[server]\nbind = \"file\"\ntools = \"file\"\npublic_url = \"file\"\n",
        )
        .unwrap();
        std::fs::write(
            etc.join(".env"),
            "GITMEM_SERVER_BIND=dotenv\nGITMEM_SERVER_TOOLS=dotenv\n",
        )
        .unwrap();
        let env = env(&[
            (CONFIG_VAR, file.to_str().unwrap()),
            ("GITMEM_SERVER_TOOLS", "env"),
        ]);
        let root = dir.path().join("root");
        let mut config = super::super::Config::load_in(&root, &env).unwrap();
        let server = &config.server;
        assert_eq!(
            (
                server.tools.as_deref(),
                server.bind.as_deref(),
                server.public_url.as_deref(),
                server.transport.as_deref()
            ),
            (Some("env"), Some("dotenv"), Some("file"), None)
        );
        // The project commands write to the file that was read, and never the overrides.
        config
            .add_project("work", &dir.path().join("work"), false)
            .unwrap();
        let written = std::fs::read_to_string(&file).unwrap();
        assert!(written.contains("[projects.work]"), "{written}");
        assert!(
            !written.contains("dotenv") && !written.contains("env\""),
            "{written}"
        );
        assert!(!root.join("config.toml").exists());
    }

    #[test]
    fn every_key_is_one_config_toml_reads() {
        let read = |key: &'static str, value: toml::Value| {
            let mut table = toml::Table::new();
            Overrides(vec![(key, value)]).apply(&mut table);
            let file: super::super::ConfigFile = toml::Value::Table(table)
                .try_into()
                .unwrap_or_else(|e| panic!("{key}: {e}"));
            format!("{file:?}")
        };
        let default = format!("{:?}", super::super::ConfigFile::default());
        for (key, kind) in KEYS {
            let values = match kind {
                Kind::Bool => vec!["true", "false"],
                Kind::Int => vec!["7"],
                Kind::Str => vec!["x"],
                Kind::List => vec!["a"],
            };
            // A key config.toml does not know would be read as the default.
            assert!(
                values
                    .into_iter()
                    .any(|v| read(key, parse(*kind, v).unwrap()) != default),
                "{key} changes nothing"
            );
        }
    }
}
