//! Secret-shaped values: replaced in the text gitmem is about to write (`Redactor::redact`),
//! found with their lines in the text it is about to push (`Redactor::findings`). Built-in
//! patterns cover private keys, cloud and service tokens, JWTs, passwords in URLs and
//! `password=` style assignments; `[redaction] patterns` in config.toml adds the user's own.
//! A value becomes `[REDACTED:<kind>]`: the kind stays visible, the value is gone.

use regex::{Captures, Regex};

use super::frontmatter;

/// What a replaced value becomes, and how a value already replaced is told apart.
const MARK: &str = "[REDACTED:";

/// The capture groups that hold the value of a match, tried in order; a pattern without any
/// redacts its whole match.
const VALUE_GROUPS: [&str; 4] = ["value", "dq", "sq", "plain"];

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum PatternError {
    #[error("[redaction] pattern '{pattern}' is not a valid regular expression: {message}")]
    Invalid { pattern: String, message: String },
    #[error("[redaction] pattern '{0}' matches empty text; give it something to match")]
    MatchesEmpty(String),
    #[error("[redaction] pattern name '{0}' must be 1 to 40 lowercase letters, digits or '-'")]
    BadName(String),
}

/// A user's pattern from config.toml: its kind's name and its regular expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CustomPattern {
    pub name: String,
    pub regex: String,
}

/// How many values of each kind were replaced, sorted by kind. Never the values.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactions(Vec<(String, usize)>);

impl Redactions {
    fn add(&mut self, kind: &str, count: usize) {
        match self.0.binary_search_by(|(k, _)| k.as_str().cmp(kind)) {
            Ok(i) => self.0[i].1 += count,
            Err(i) => self.0.insert(i, (kind.to_string(), count)),
        }
    }

    /// Adds another report's counts to this one.
    pub fn merge(&mut self, other: &Redactions) {
        for (kind, count) in &other.0 {
            self.add(kind, *count);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// (kind, count) pairs, sorted by kind.
    pub fn kinds(&self) -> &[(String, usize)] {
        &self.0
    }
}

/// Text with its secret-shaped values replaced, and what was replaced.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redacted {
    pub text: String,
    pub report: Redactions,
}

/// A secret-shaped value found in text: its kind and its line (1-based).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub kind: String,
    pub line: usize,
}

type Check = fn(&Captures, &str) -> bool;

#[derive(Debug)]
struct Pattern {
    kind: String,
    regex: Regex,
    /// Refuses a match that has the shape but not the substance (prose, placeholders).
    check: Check,
}

/// The compiled patterns of one configuration.
#[derive(Debug)]
pub struct Redactor {
    enabled: bool,
    patterns: Vec<Pattern>,
}

impl Default for Redactor {
    fn default() -> Self {
        Redactor {
            enabled: true,
            patterns: builtin(),
        }
    }
}

fn any(_: &Captures, _: &str) -> bool {
    true
}

/// Keys look like prose words too ("Password: required"), so an unquoted value after `:`
/// must look like a secret: a digit or a symbol in it. After `=`, or quoted, any value counts.
/// Placeholders (`$VAR`, `<your password>`, `***`) are not secrets.
fn assigned(caps: &Captures, value: &str) -> bool {
    if value.len() < 3 || value.starts_with(['$', '<', '{', '*', '%']) {
        return false;
    }
    let colon = caps.name("sep").is_some_and(|s| s.as_str() == ":");
    if colon && caps.name("plain").is_some() {
        return value.chars().any(|c| !c.is_alphabetic());
    }
    true
}

/// Provider keys are random: a run of words joined by hyphens ("sk-learn-style-...") is not.
fn random(_: &Captures, value: &str) -> bool {
    value.chars().any(|c| c.is_ascii_digit()) && !value.contains("--")
}

const ASSIGN_VALUE: &str =
    r#"["']?\s*(?P<sep>[:=])\s*(?:"(?P<dq>[^"\n]+)"|'(?P<sq>[^'\n]+)'|(?P<plain>[^\s"'`,;)\]}]+))"#;

fn builtin() -> Vec<Pattern> {
    let assignment = |keys: &str| format!(r"(?i)\b\w*(?:{keys}){ASSIGN_VALUE}");
    let table: Vec<(&str, String, Check)> = vec![
        (
            "private-key",
            r"-----BEGIN[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----(?s:.*?-----END[ A-Z0-9]*PRIVATE KEY(?: BLOCK)?-----|.*?(?:\n[ \t]*\n|\z))".into(),
            any,
        ),
        ("aws-access-key", r"\b(?:AKIA|ASIA)[A-Z0-9]{16}\b".into(), any),
        (
            "aws-secret-key",
            r#"(?i)\baws_?secret_?access_?key["']?\s*[:=]\s*["']?(?P<value>[A-Za-z0-9/+]{40})(?:[^A-Za-z0-9/+=]|\z)"#.into(),
            any,
        ),
        (
            "github-token",
            r"\b(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})\b".into(),
            any,
        ),
        ("gitlab-token", r"\bglpat-[A-Za-z0-9_-]{20,}".into(), any),
        (
            "slack-webhook",
            r"https://hooks\.slack\.com/services/[A-Za-z0-9_/]{8,}".into(),
            any,
        ),
        ("slack-token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}".into(), any),
        ("anthropic-key", r"\bsk-ant-[A-Za-z0-9_-]{20,}".into(), random),
        (
            "openai-key",
            r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}".into(),
            random,
        ),
        (
            "jwt",
            r"\beyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}".into(),
            any,
        ),
        (
            "password",
            r"\b[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@\[\]]+:(?P<value>[^\s/@]+)@[^\s/@]".into(),
            any,
        ),
        (
            "password",
            assignment("password|passwd|passphrase|pwd"),
            assigned,
        ),
        ("api-key", assignment(r"api[_-]?key"), assigned),
        (
            "secret",
            assignment(r"client[_-]?secret|secret[_-]?key|secret"),
            assigned,
        ),
        (
            "token",
            assignment(r"access[_-]?token|auth[_-]?token|api[_-]?token|bearer[_-]?token"),
            assigned,
        ),
    ];
    table
        .into_iter()
        .map(|(kind, regex, check)| Pattern {
            kind: kind.to_string(),
            regex: Regex::new(&regex).expect("built-in redaction patterns compile"),
            check,
        })
        .collect()
}

/// One value to replace: its byte range and its pattern.
struct Hit {
    start: usize,
    end: usize,
    pattern: usize,
}

impl Redactor {
    /// The built-in patterns followed by `custom` (each a kind of its own); `enabled = false`
    /// replaces and finds nothing. A custom pattern is checked here, so a bad one is refused
    /// where config.toml is read.
    pub fn new(enabled: bool, custom: &[CustomPattern]) -> Result<Self, PatternError> {
        let mut patterns = builtin();
        for entry in custom {
            let valid_name = !entry.name.is_empty()
                && entry.name.len() <= 40
                && entry
                    .name
                    .chars()
                    .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
            if !valid_name {
                return Err(PatternError::BadName(entry.name.clone()));
            }
            let regex = Regex::new(&entry.regex).map_err(|e| PatternError::Invalid {
                pattern: entry.regex.clone(),
                message: e.to_string(),
            })?;
            if regex.is_match("") {
                return Err(PatternError::MatchesEmpty(entry.regex.clone()));
            }
            patterns.push(Pattern {
                kind: entry.name.clone(),
                regex,
                check: any,
            });
        }
        Ok(Redactor { enabled, patterns })
    }

    pub fn is_enabled(&self) -> bool {
        self.enabled
    }

    /// Every value to replace in `text`, in order, none overlapping: where two patterns
    /// match at the same place the longer match wins, then the earlier pattern.
    fn hits(&self, text: &str) -> Vec<Hit> {
        if !self.enabled {
            return Vec::new();
        }
        let mut hits = Vec::new();
        for (index, pattern) in self.patterns.iter().enumerate() {
            for caps in pattern.regex.captures_iter(text) {
                let value = VALUE_GROUPS
                    .iter()
                    .find_map(|name| caps.name(name))
                    .or_else(|| caps.get(0))
                    .filter(|m| !m.is_empty());
                let Some(value) = value else { continue };
                // A value replaced before is not a secret found again.
                if value.as_str().contains(MARK) || !(pattern.check)(&caps, value.as_str()) {
                    continue;
                }
                hits.push(Hit {
                    start: value.start(),
                    end: value.end(),
                    pattern: index,
                });
            }
        }
        hits.sort_by_key(|h| (h.start, std::cmp::Reverse(h.end), h.pattern));
        let mut kept: Vec<Hit> = Vec::with_capacity(hits.len());
        for hit in hits {
            if kept.last().is_none_or(|last| hit.start >= last.end) {
                kept.push(hit);
            }
        }
        kept
    }

    /// `text` with every secret-shaped value replaced.
    pub fn redact(&self, text: &str) -> Redacted {
        self.redact_new(text, None)
    }

    /// `text` with the secret-shaped values it adds to `before` replaced: a value `before`
    /// already holds (another program wrote it) is left as it is, so an edit changes no
    /// byte outside what it adds; the push gate holds such a value instead.
    pub fn redact_new(&self, text: &str, before: Option<&str>) -> Redacted {
        let hits = self.hits(text);
        let yaml = frontmatter::locate(text).map(|block| block.yaml);
        let mut out = String::with_capacity(text.len());
        let mut report = Redactions::default();
        let mut copied = 0;
        for hit in hits {
            let value = &text[hit.start..hit.end];
            if before.is_some_and(|b| b.contains(value)) {
                continue;
            }
            let kind = &self.patterns[hit.pattern].kind;
            out.push_str(&text[copied..hit.start]);
            let mark = format!("{MARK}{kind}]");
            let in_yaml = yaml
                .as_ref()
                .is_some_and(|y| y.contains(&hit.start) && hit.end <= y.end);
            if in_yaml && starts_plain_scalar(text, hit.start, hit.end) {
                // `key: [REDACTED:x]` would read back as a list; quoted it stays a string.
                out.push_str(&format!("'{mark}'"));
            } else {
                out.push_str(&mark);
            }
            copied = hit.end;
            report.add(kind, 1);
        }
        out.push_str(&text[copied..]);
        Redacted { text: out, report }
    }

    /// The kind and line of every secret-shaped value in `text`.
    pub fn findings(&self, text: &str) -> Vec<Finding> {
        self.findings_new(text, None)
    }

    /// `findings` of the values `before` does not hold already (a version the user allowed).
    pub fn findings_new(&self, text: &str, before: Option<&str>) -> Vec<Finding> {
        let mut line = 1;
        let mut counted = 0;
        self.hits(text)
            .into_iter()
            .filter(|hit| !before.is_some_and(|b| b.contains(&text[hit.start..hit.end])))
            .map(|hit| {
                line += text[counted..hit.start].matches('\n').count();
                counted = hit.start;
                Finding {
                    kind: self.patterns[hit.pattern].kind.clone(),
                    line,
                }
            })
            .collect()
    }
}

/// True when the value at `start..end` is a whole unquoted YAML scalar: after `key: ` or
/// `- ` (or alone on its line) and nothing but a comment after it.
fn starts_plain_scalar(text: &str, start: usize, end: usize) -> bool {
    let line_start = text[..start].rfind('\n').map_or(0, |i| i + 1);
    let before = &text[line_start..start];
    let rest = text[end..].split('\n').next().unwrap_or("");
    let rest = rest.trim();
    if !(rest.is_empty() || rest.starts_with('#')) {
        return false;
    }
    let spaced = before.trim_end_matches([' ', '\t']);
    let gap = before.len() > spaced.len();
    spaced.trim().is_empty()
        || (gap && spaced.ends_with(':'))
        || (gap && spaced.trim_start() == "-")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(text: &str) -> Vec<String> {
        Redactor::default()
            .findings(text)
            .into_iter()
            .map(|f| f.kind)
            .collect()
    }

    const GHP: &str = "ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8";

    #[test]
    fn each_built_in_kind_is_found_and_its_near_miss_is_not() {
        let key = "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----";
        let rsa =
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA\n-----END RSA PRIVATE KEY-----";
        let pgp =
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQdGBF\n-----END PGP PRIVATE KEY BLOCK-----";
        let jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U";
        let cases: &[(&str, &str, &[&str])] = &[
            ("openssh key", key, &["private-key"]),
            ("rsa key", rsa, &["private-key"]),
            ("pgp key with a blank line", pgp, &["private-key"]),
            ("unterminated key, to the blank line", "-----BEGIN EC PRIVATE KEY-----\nMHcCAQEE\n\nafter", &["private-key"]),
            ("a public key", "-----BEGIN PUBLIC KEY-----\nMIIBIjAN\n-----END PUBLIC KEY-----", &[]),
            ("aws access key id", "id AKIAIOSFODNN7EXAMPLE here", &["aws-access-key"]),
            ("aws session key id", "ASIAY34FZKBOKMUTVV7A", &["aws-access-key"]),
            ("aws id one short", "AKIAIOSFODNN7EXAMPL", &[]),
            ("aws id in lower case", "akiaiosfodnn7example", &[]),
            ("aws secret assignment", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY", &["aws-secret-key"]),
            ("aws secret, 39 characters", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKE", &[]),
            ("github classic token", GHP, &["github-token"]),
            ("github fine-grained token", "github_pat_11ABCDEFG0123456789abcdefghijklmnopqrstuvwxyz", &["github-token"]),
            ("github oauth, server, refresh", "gho_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 ghs_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8 ghr_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8", &["github-token", "github-token", "github-token"]),
            ("ghp_ too short", "ghp_abc123", &[]),
            ("gitlab token", "glpat-xXyYzZ0123456789abcd", &["gitlab-token"]),
            ("glpat- too short", "glpat-short", &[]),
            ("slack bot token", "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOp", &["slack-token"]),
            ("slack user token", "xoxp-1234567890-abcdefghij", &["slack-token"]),
            ("slack prefix alone", "the xoxb- prefix", &[]),
            ("slack webhook", "https://hooks.slack.com/services/T000/B000/XXXXXXXXXXXXXXXX", &["slack-webhook"]),
            ("slack's home page", "https://slack.com/services", &[]),
            ("openai key", "sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv", &["openai-key"]),
            ("openai legacy key", "sk-Ab3dEf6hIj9kLm2nOp5qRs8tUvWx1yZ4", &["openai-key"]),
            ("scikit-learn in prose", "we use sk-learn and sk-learn-compatible-estimators-everywhere", &[]),
            ("a word ending in sk", "risk-assessment-framework-2024-edition", &[]),
            ("anthropic key", "sk-ant-api03-Ab3dEf6hIj9kLm2nOp5qRs8t", &["anthropic-key"]),
            ("jwt", jwt, &["jwt"]),
            ("one base64 segment", "eyJhbGciOiJIUzI1NiJ9 alone", &[]),
            ("password in a url", "postgres://app:s3cr3t@db.example.com:5432/app", &["password"]),
            ("user alone in a url", "https://me@github.com/me/notes.git", &[]),
            ("a port, not a password", "http://localhost:8080/path", &[]),
            ("password assignment", "password=hunter2", &["password"]),
            ("quoted json password", r#"{"password": "correct horse"}"#, &["password"]),
            ("a prefixed key", "db_password: Tr0ub4dor&3", &["password"]),
            ("a longer word", "passwordless: enabled2", &[]),
            ("password after a colon", "password: Tr0ub4dor&3", &["password"]),
            ("password in prose", "Password: required for every login", &[]),
            ("password placeholder", "password=${DB_PASSWORD}", &[]),
            ("api key variants", "api_key=abc123def apikey: 'xyz789' API-KEY = \"q1w2e3r4\"", &["api-key", "api-key", "api-key"]),
            ("secret assignment", "client_secret = 9f8e7d6c5b", &["secret"]),
            ("a secret in prose", "secret: keep it short", &[]),
            ("access token assignment", "access_token=ya29.a0Af", &["token"]),
            ("the word token", "token: the unit of text a model reads", &[]),
        ];
        for (name, text, expected) in cases {
            assert_eq!(kinds(text), *expected, "{name}");
        }
    }

    #[test]
    fn a_value_becomes_its_kind_and_the_rest_of_the_text_stays() {
        let r = Redactor::default();
        let text =
            format!("my token is {GHP} and\npostgres://app:s3cr3t@db/app\npassword=hunter2\n");
        let redacted = r.redact(&text);
        assert_eq!(
            redacted.text,
            "my token is [REDACTED:github-token] and\npostgres://app:[REDACTED:password]@db/app\npassword=[REDACTED:password]\n"
        );
        assert_eq!(
            redacted.report.kinds(),
            &[("github-token".to_string(), 1), ("password".to_string(), 2)]
        );
        // Redacting again finds nothing: a mark is not a secret.
        let again = r.redact(&redacted.text);
        assert_eq!(again.text, redacted.text);
        assert!(again.report.is_empty());
    }

    #[test]
    fn findings_name_kinds_and_lines_never_values() {
        let text = format!("title\n\nfirst {GHP}\nnothing\nAKIAIOSFODNN7EXAMPLE\n");
        let found = Redactor::default().findings(&text);
        assert_eq!(
            found,
            vec![
                Finding {
                    kind: "github-token".into(),
                    line: 3
                },
                Finding {
                    kind: "aws-access-key".into(),
                    line: 5
                },
            ]
        );
    }

    #[test]
    fn a_value_in_front_matter_stays_a_yaml_string() {
        // The provider's kind wins over the assignment's: it says more.
        let text = format!("---\ntitle: N\napi_key: sk-proj-Ab3dEf6hIj9kLm2nOp5qRs8tUv\nnote: \"{GHP}\"\n---\n\nbody\n");
        let redacted = Redactor::default().redact(&text);
        assert!(
            redacted.text.contains("api_key: '[REDACTED:openai-key]'\n"),
            "{}",
            redacted.text
        );
        assert!(
            redacted
                .text
                .contains("note: \"[REDACTED:github-token]\"\n"),
            "{}",
            redacted.text
        );
        let block = frontmatter::locate(&redacted.text).unwrap();
        let meta = frontmatter::parse_yaml(&redacted.text[block.yaml]).unwrap();
        assert_eq!(meta["api_key"], "[REDACTED:openai-key]");
    }

    #[test]
    fn an_edit_redacts_only_what_it_adds() {
        let before = format!("theirs: {GHP}\n");
        let added = "ghp_Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2";
        let after = format!("{before}mine: {added}\n");
        let redacted = Redactor::default().redact_new(&after, Some(&before));
        assert_eq!(
            redacted.text,
            format!("{before}mine: [REDACTED:github-token]\n")
        );
        assert_eq!(redacted.report.kinds(), &[("github-token".to_string(), 1)]);
    }

    #[test]
    fn custom_patterns_add_kinds_and_bad_ones_are_refused() {
        let custom = |name: &str, regex: &str| CustomPattern {
            name: name.into(),
            regex: regex.into(),
        };
        let r = Redactor::new(
            true,
            &[
                custom("email", r"[\w.+-]+@[\w-]+\.[\w.]+"),
                custom("custom", r"\+\d{2} \d{3} \d{4}"),
                custom("ticket", r"TICKET-(?P<value>\d+)"),
            ],
        )
        .unwrap();
        let redacted = r.redact("write to ada@example.com or +44 207 1234, see TICKET-42");
        assert_eq!(
            redacted.text,
            "write to [REDACTED:email] or [REDACTED:custom], see TICKET-[REDACTED:ticket]"
        );
        let invalid = Redactor::new(true, &[custom("x", "(unclosed")]).unwrap_err();
        assert!(
            matches!(&invalid, PatternError::Invalid { pattern, .. } if pattern == "(unclosed"),
            "{invalid}"
        );
        assert!(invalid.to_string().contains("'(unclosed'"), "{invalid}");
        assert_eq!(
            Redactor::new(true, &[custom("x", "a*")]).unwrap_err(),
            PatternError::MatchesEmpty("a*".into())
        );
        assert_eq!(
            Redactor::new(true, &[custom("Bad Name", "x")]).unwrap_err(),
            PatternError::BadName("Bad Name".into())
        );
    }

    #[test]
    fn disabled_redaction_changes_and_finds_nothing() {
        let r = Redactor::new(false, &[]).unwrap();
        let text = format!("token {GHP}");
        assert_eq!(r.redact(&text).text, text);
        assert!(r.redact(&text).report.is_empty());
        assert!(r.findings(&text).is_empty());
    }

    #[test]
    fn reports_count_by_kind_and_merge() {
        let r = Redactor::default();
        let mut report = r.redact(&format!("{GHP} {GHP} password=hunter2")).report;
        assert_eq!(
            report.kinds(),
            &[("github-token".to_string(), 2), ("password".to_string(), 1)]
        );
        report.merge(&r.redact("AKIAIOSFODNN7EXAMPLE password=x9y8z7").report);
        assert_eq!(
            report.kinds(),
            &[
                ("aws-access-key".to_string(), 1),
                ("github-token".to_string(), 2),
                ("password".to_string(), 2)
            ]
        );
    }
}
