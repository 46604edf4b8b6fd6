//! Path safety for project-relative paths supplied by users and agents (compat 4.8).

use std::path::{Component, Path, PathBuf};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PathError {
    #[error("path '{0}' is not allowed: '~' is not expanded, use a path relative to the project")]
    Tilde(String),
    #[error("path '{0}' is not allowed: '..' segments would leave the project")]
    ParentSegment(String),
    #[error("path '{0}' is not allowed: use a path relative to the project, without a leading '/' or '\\'")]
    Absolute(String),
    #[error("path '{0}' is not allowed: drive letters are not project paths")]
    DriveLetter(String),
    #[error("path '{0}' is not allowed: it contains control characters")]
    ControlCharacter(String),
    #[error("path '{0}' is not allowed: it resolves outside the project")]
    Escapes(String),
}

/// Checks the text of a project-relative path without touching the disk.
pub fn validate_relative(path: &str) -> Result<(), PathError> {
    if path.is_empty() {
        return Ok(());
    }
    let owned = || path.to_string();
    if path.contains('~') {
        return Err(PathError::Tilde(owned()));
    }
    if path.starts_with('/') || path.starts_with('\\') {
        return Err(PathError::Absolute(owned()));
    }
    let bytes = path.as_bytes();
    if bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':' {
        return Err(PathError::DriveLetter(owned()));
    }
    if path.chars().any(|c| (c as u32) < 0x20 && c != '\t') {
        return Err(PathError::ControlCharacter(owned()));
    }
    let parent_like = |segment: &str| {
        segment.starts_with("..") && segment[2..].chars().all(|c| c == '.' || c == ' ')
    };
    if path.split(['/', '\\']).any(parent_like) {
        return Err(PathError::ParentSegment(owned()));
    }
    Ok(())
}

/// Resolves a project-relative path to an absolute one that is guaranteed to stay inside
/// `root`, following symlinks of the part that already exists.
pub fn resolve_inside(root: &Path, relative: &str) -> Result<PathBuf, PathError> {
    validate_relative(relative)?;
    let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
    let joined = root.join(relative);
    let resolved = canonicalize_existing_prefix(&joined);
    if resolved.starts_with(&root) {
        Ok(joined)
    } else {
        Err(PathError::Escapes(relative.to_string()))
    }
}

/// Canonicalises the longest existing ancestor of `path` and appends the rest lexically.
pub fn canonicalize_existing_prefix(path: &Path) -> PathBuf {
    let mut existing = path.to_path_buf();
    let mut rest: Vec<std::ffi::OsString> = Vec::new();
    loop {
        if let Ok(canonical) = existing.canonicalize() {
            let mut out = canonical;
            for part in rest.iter().rev() {
                out.push(part);
            }
            return normalize_lexically(&out);
        }
        match (existing.file_name(), existing.parent()) {
            (Some(name), Some(parent)) => {
                rest.push(name.to_os_string());
                existing = parent.to_path_buf();
            }
            _ => return normalize_lexically(path),
        }
    }
}

fn normalize_lexically(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// A project-relative path with `/` separators for a file under `root`.
pub fn relative_slash_path(root: &Path, path: &Path) -> Option<String> {
    let rel = path.strip_prefix(root).ok()?;
    let parts: Option<Vec<&str>> = rel.components().map(|c| c.as_os_str().to_str()).collect();
    Some(parts?.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_paths() {
        let allowed = [
            "",
            "notes",
            "notes/a.md",
            "a b/c.md",
            "..hidden-not-parent/x",
            "tab\there",
        ];
        for p in allowed {
            assert_eq!(validate_relative(p), Ok(()), "{p:?}");
        }
        let refused = [
            ("~/notes", "Tilde"),
            ("../etc", "ParentSegment"),
            ("notes/../../etc", "ParentSegment"),
            ("notes/.. ./x", "ParentSegment"),
            ("notes/...", "ParentSegment"),
            ("/notes", "Absolute"),
            ("\\notes", "Absolute"),
            ("C:/windows", "DriveLetter"),
            ("c:notes", "DriveLetter"),
            ("bad\u{1}name", "ControlCharacter"),
            ("line\nbreak", "ControlCharacter"),
            ("a\\..\\b", "ParentSegment"),
        ];
        for (p, kind) in refused {
            let err = validate_relative(p).unwrap_err();
            assert!(format!("{err:?}").starts_with(kind), "{p:?} gave {err:?}");
            assert!(err.to_string().contains("not allowed"));
        }
    }

    #[test]
    fn symlinks_cannot_escape() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(&root).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        assert!(resolve_inside(&root, "notes/new.md").is_ok());
        assert_eq!(
            resolve_inside(&root, "link/secret.md"),
            Err(PathError::Escapes("link/secret.md".into()))
        );
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn an_accepted_path_never_leaves_the_root(path in any::<String>()) {
            let root = tempfile::tempdir().unwrap();
            if validate_relative(&path).is_ok() {
                prop_assert!(!path.starts_with('/') && !path.starts_with('\\'));
                prop_assert!(!path.split(['/', '\\']).any(|s| s == ".."));
            }
            if let Ok(resolved) = resolve_inside(root.path(), &path) {
                prop_assert!(resolved.starts_with(root.path()));
            }
        }
    }
}
