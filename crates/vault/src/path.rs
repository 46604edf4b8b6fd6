//! Path safety for project-relative paths supplied by users and agents (compat 4.8).

use std::fmt;
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

/// A project-relative path whose text cannot leave the project: no `~`, no leading `/` or `\`,
/// no drive letter, no control character, no `..` segment. The text is kept as given: what a
/// leading `/` means differs between tools (the project in list_directory, a refusal in
/// write_note), so callers trim before parsing. The empty path is the project itself. Only
/// symlinks can still lead out, which `resolve_inside` checks against the disk.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct RelPath(String);

impl RelPath {
    /// The one check of a path's text; nothing touches the disk.
    pub fn parse(path: &str) -> Result<RelPath, PathError> {
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
        // Windows (and some shells) take `...` or `.. ` for the parent too.
        let parent_like = |segment: &str| {
            segment.starts_with("..") && segment[2..].chars().all(|c| c == '.' || c == ' ')
        };
        if path.split(['/', '\\']).any(parent_like) {
            return Err(PathError::ParentSegment(owned()));
        }
        Ok(RelPath(owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0
    }

    /// Joins the path onto `root`, refusing it if a symlink on the way (of the part that
    /// already exists) leads out of `root`.
    pub fn resolve_inside(&self, root: &Path) -> Result<PathBuf, PathError> {
        let root = root.canonicalize().unwrap_or_else(|_| root.to_path_buf());
        let joined = root.join(&self.0);
        // The text has no `..`, so only a symlink can lead out: without one among the parts
        // that exist, canonicalising them all (a lookup of every ancestor for each) is waste.
        if !passes_a_symlink(&root, &self.0)
            || canonicalize_existing_prefix(&joined).starts_with(&root)
        {
            Ok(joined)
        } else {
            Err(PathError::Escapes(self.0.clone()))
        }
    }
}

impl fmt::Display for RelPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Whether a part of `relative` under `root` that exists is a symlink, or cannot be told
/// apart from one; the walk ends at the first part that does not exist.
fn passes_a_symlink(root: &Path, relative: &str) -> bool {
    let mut path = root.to_path_buf();
    for part in Path::new(relative).components() {
        let Component::Normal(part) = part else {
            continue;
        };
        path.push(part);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.file_type().is_symlink() => return true,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return false,
            Err(_) => return true,
        }
    }
    false
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
    fn what_parses() {
        let accepted = [
            "",
            "notes",
            "notes/a.md",
            "notes/",
            "a b/c.md",
            "..hidden-not-parent/x",
            "x/..y",
            "tab\there",
            "ünïcödé/日本.md",
        ];
        for p in accepted {
            assert_eq!(RelPath::parse(p).map(|r| r.to_string()), Ok(p.to_string()));
        }
        let refused = [
            ("~/notes", "Tilde"),
            ("notes/~x", "Tilde"),
            ("..", "ParentSegment"),
            ("../etc", "ParentSegment"),
            ("notes/../../etc", "ParentSegment"),
            ("notes/.. ./x", "ParentSegment"),
            ("notes/...", "ParentSegment"),
            ("a\\..\\b", "ParentSegment"),
            ("/notes", "Absolute"),
            ("/", "Absolute"),
            ("\\notes", "Absolute"),
            ("C:/windows", "DriveLetter"),
            ("c:notes", "DriveLetter"),
            ("bad\u{1}name", "ControlCharacter"),
            ("line\nbreak", "ControlCharacter"),
        ];
        for (p, kind) in refused {
            let err = RelPath::parse(p).unwrap_err();
            assert!(format!("{err:?}").starts_with(kind), "{p:?} gave {err:?}");
            assert!(err.to_string().contains(&format!("'{p}' is not allowed")));
        }
    }

    #[test]
    fn symlinks_cannot_escape() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let outside = dir.path().join("outside");
        std::fs::create_dir_all(root.join("notes/deep")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("secret.md"), "x").unwrap();
        std::os::unix::fs::symlink(&outside, root.join("link")).unwrap();
        std::os::unix::fs::symlink(&outside, root.join("notes/deep/away")).unwrap();
        std::os::unix::fs::symlink(outside.join("secret.md"), root.join("notes/file.md")).unwrap();
        std::os::unix::fs::symlink(root.join("notes"), root.join("alias")).unwrap();
        // (path, stays inside)
        let cases = [
            ("notes/new.md", true),
            ("notes/deep/new/even/deeper.md", true),
            ("new/folder/note.md", true),
            ("", true),
            ("link/secret.md", false),
            ("link", false),
            ("notes/deep/away/new.md", false),
            ("notes/file.md", false),
            // A symlink that stays inside the project is followed.
            ("alias/new.md", true),
        ];
        for (path, inside) in cases {
            let resolved = RelPath::parse(path).unwrap().resolve_inside(&root);
            if inside {
                assert_eq!(
                    resolved,
                    Ok(root.canonicalize().unwrap().join(path)),
                    "{path}"
                );
            } else {
                assert_eq!(resolved, Err(PathError::Escapes(path.into())), "{path}");
            }
        }
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
            if let Ok(parsed) = RelPath::parse(&path) {
                prop_assert_eq!(parsed.as_str(), path.as_str());
                prop_assert!(!path.starts_with('/') && !path.starts_with('\\'));
                prop_assert!(!path.split(['/', '\\']).any(|s| s == ".."));
                let resolved = parsed.resolve_inside(root.path()).unwrap();
                prop_assert!(resolved.starts_with(root.path().canonicalize().unwrap()));
            }
        }
    }
}
