//! `memory://` URLs (compat 5.1).

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MemoryUrlError {
    #[error("Invalid memory URL: it is empty")]
    Empty,
    #[error("Invalid memory URL '{0}': it may not contain '://' after the scheme or '//'")]
    Scheme(String),
    #[error("Invalid memory URL '{0}': it may not contain any of < > \" | ?")]
    Character(String),
    #[error("Invalid memory URL: longer than 2028 characters")]
    TooLong,
}

/// The path of a memory URL (`memory://specs/x` or bare `specs/x`), validated.
pub fn memory_url_path(raw: &str) -> Result<String, MemoryUrlError> {
    let trimmed = raw.trim();
    if trimmed.len() > 2028 {
        return Err(MemoryUrlError::TooLong);
    }
    let path = trimmed.strip_prefix("memory://").unwrap_or(trimmed).trim();
    if path.is_empty() {
        return Err(MemoryUrlError::Empty);
    }
    if path.contains("://") || path.contains("//") {
        return Err(MemoryUrlError::Scheme(raw.to_string()));
    }
    if path.contains(['<', '>', '"', '|', '?']) {
        return Err(MemoryUrlError::Character(raw.to_string()));
    }
    Ok(path.replace("::", "/").trim_matches('/').to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls() {
        let ok = [
            ("memory://specs/search-design", "specs/search-design"),
            ("specs/search-design", "specs/search-design"),
            ("  memory://main/x  ", "main/x"),
            ("memory://specs/*", "specs/*"),
            ("memory://Notes with spaces.md", "Notes with spaces.md"),
            ("memory://proj::note", "proj/note"),
        ];
        for (raw, path) in ok {
            assert_eq!(memory_url_path(raw).as_deref(), Ok(path), "{raw}");
        }
        let bad = [
            "",
            "memory://",
            "memory://a://b",
            "a//b",
            "a<b",
            "a|b",
            "what?",
            &"x".repeat(2029),
        ];
        for raw in bad {
            assert!(memory_url_path(raw).is_err(), "{raw}");
        }
    }
}
