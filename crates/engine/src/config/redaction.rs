//! `[redaction]`: the user's patterns beside the built-in ones, compiled once at load.

use serde::Deserialize;

use note::redact::{CustomPattern, Redactor};

/// `[redaction]`: the filter every text gitmem writes passes, and the push gate uses.
#[derive(Debug, Clone, Deserialize)]
#[serde(default)]
pub struct RedactionConfig {
    /// `false` turns both off: nothing is redacted and no push is held.
    pub enabled: bool,
    /// The user's patterns, after the built-in ones.
    pub patterns: Vec<PatternEntry>,
}

impl Default for RedactionConfig {
    fn default() -> Self {
        Self {
            enabled: true,
            patterns: Vec::new(),
        }
    }
}

/// One user pattern: a bare regular expression (kind `custom`) or `{ name, regex }`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum PatternEntry {
    Regex(String),
    Named { name: String, regex: String },
}

impl RedactionConfig {
    pub(super) fn redactor(&self) -> Result<Redactor, note::redact::PatternError> {
        let custom: Vec<CustomPattern> = self
            .patterns
            .iter()
            .map(|entry| match entry {
                PatternEntry::Regex(regex) => CustomPattern {
                    name: "custom".into(),
                    regex: regex.clone(),
                },
                PatternEntry::Named { name, regex } => CustomPattern {
                    name: name.clone(),
                    regex: regex.clone(),
                },
            })
            .collect();
        Redactor::new(self.enabled, &custom)
    }
}

#[cfg(test)]
mod tests {
    use super::super::Config;

    #[test]
    fn redaction_patterns_are_compiled_at_load_and_a_bad_one_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = Config::config_path(dir.path());
        std::fs::write(
            &path,
            "[redaction]\npatterns = ['\\d{3}-\\d{4}', { name = \"email\", regex = '\\w+@\\w+\\.com' }]\n",
        )
        .unwrap();
        let config = Config::load(dir.path()).unwrap();
        let redacted = config.redactor.redact("call 555-1234 or ada@example.com");
        assert_eq!(redacted.text, "call [REDACTED:custom] or [REDACTED:email]");
        std::fs::write(&path, "[redaction]\npatterns = ['(unclosed']\n").unwrap();
        let err = Config::load(dir.path()).unwrap_err().to_string();
        assert!(err.contains("'(unclosed'"), "{err}");
        assert!(err.contains("config.toml"), "{err}");
        std::fs::write(&path, "[redaction]\nenabled = false\n").unwrap();
        let config = Config::load(dir.path()).unwrap();
        assert!(!config.redactor.is_enabled());
    }
}
