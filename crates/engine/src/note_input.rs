//! From file bytes to what the index stores: decoding, parsing, timestamps, warnings.

use crate::config::Project;
use crate::Result;
use crate::Store;
use index::{NoteInput, NoteKind, WriteOp};
use note::{self, permalink::note_permalink};
use vault::file::Observed;

/// Notes larger than this are indexed, but only this much of their text is full-text searchable.
pub(crate) const SEARCH_TEXT_LIMIT: usize = index::documents::MAX_SEARCH_TEXT;

pub(crate) fn is_markdown(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    lower.ends_with(".md") || lower.ends_with(".markdown")
}

/// A MIME type from the file extension (`.canvas` is JSON Canvas).
pub fn content_type(path: &str) -> &'static str {
    let ext = path
        .rsplit_once('.')
        .map(|(_, e)| e.to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "md" | "markdown" => "text/markdown",
        "txt" | "text" => "text/plain",
        "json" | "canvas" => "application/json",
        "pdf" => "application/pdf",
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "svg" => "image/svg+xml",
        "bmp" => "image/bmp",
        "html" | "htm" => "text/html",
        "css" => "text/css",
        "js" | "mjs" => "text/javascript",
        "csv" => "text/csv",
        "xml" => "application/xml",
        "yaml" | "yml" => "application/yaml",
        "toml" => "application/toml",
        "zip" => "application/zip",
        "mp3" => "audio/mpeg",
        "mp4" => "video/mp4",
        _ => "text/plain",
    }
}

fn ms_from_ns(ns: i64) -> i64 {
    ns / 1_000_000
}

fn mib(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / (1024.0 * 1024.0))
}

/// Builds the index input for one file.
pub(crate) fn from_file(
    project: &str,
    include_project_prefix: bool,
    path: &str,
    observed: &Observed,
    bytes: &[u8],
) -> NoteInput {
    from_parsed(project, include_project_prefix, path, observed, bytes, None)
}

/// `note_input`, given what `note::parse_note` made of `bytes` already (a write parses its
/// text before placing it); it is used only where `bytes` are that text as they are.
pub(crate) fn from_parsed(
    project: &str,
    include_project_prefix: bool,
    path: &str,
    observed: &Observed,
    bytes: &[u8],
    parsed: Option<note::ParsedNote>,
) -> NoteInput {
    let mtime_ms = ms_from_ns(observed.stat.mtime_ns);
    let created_fallback = observed.created_ns.map(ms_from_ns).unwrap_or(mtime_ms);
    let file_name = path.rsplit('/').next().unwrap_or(path).to_string();
    let mut warnings = Vec::new();
    let binary = bytes.iter().take(8192).any(|&b| b == 0);
    let as_file = |title: String, warnings: Vec<String>| NoteInput {
        project: project.to_string(),
        path: path.to_string(),
        kind: NoteKind::File,
        title,
        note_type: "file".into(),
        content_type: content_type(path).into(),
        requested_permalink: None,
        generated_permalink: None,
        tags: Vec::new(),
        aliases: Vec::new(),
        status: None,
        metadata: Default::default(),
        created_ms: created_fallback,
        updated_ms: mtime_ms,
        checksum: observed.checksum.clone(),
        size: observed.stat.size,
        mtime_ns: observed.stat.mtime_ns,
        observations: Vec::new(),
        relations: Vec::new(),
        warnings,
        search_text: String::new(),
    };
    if !is_markdown(path) {
        return as_file(file_name, warnings);
    }
    if binary {
        warnings.push("binary content in a markdown file; listed by name only, not parsed".into());
        return as_file(file_name, warnings);
    }
    let decoded = match std::str::from_utf8(bytes) {
        Ok(text) => std::borrow::Cow::Borrowed(text),
        Err(_) => {
            warnings.push("not valid UTF-8; invalid bytes are read as U+FFFD for indexing (the file is unchanged)".into());
            String::from_utf8_lossy(bytes)
        }
    };
    let text: std::borrow::Cow<str> = if decoded.contains('\0') {
        std::borrow::Cow::Owned(decoded.replace('\0', ""))
    } else {
        decoded
    };
    let parsed = match (parsed, &text) {
        (Some(parsed), std::borrow::Cow::Borrowed(_)) => parsed,
        _ => note::parse_note(path, &text),
    };
    warnings.extend(parsed.warnings.iter().cloned());
    let body = &text[parsed.body_start..];
    let search_text = if body.len() > SEARCH_TEXT_LIMIT {
        warnings.push(format!(
            "note is {}; only its first {} are full-text indexed",
            mib(bytes.len()),
            mib(SEARCH_TEXT_LIMIT)
        ));
        let mut cut = SEARCH_TEXT_LIMIT;
        while !body.is_char_boundary(cut) {
            cut -= 1;
        }
        body[..cut].to_string()
    } else {
        body.to_string()
    };
    NoteInput {
        project: project.to_string(),
        path: path.to_string(),
        kind: NoteKind::Markdown,
        title: parsed.title,
        note_type: parsed.note_type,
        content_type: "text/markdown".into(),
        requested_permalink: parsed.permalink,
        generated_permalink: Some(note_permalink(project, path, include_project_prefix)),
        tags: parsed.tags,
        aliases: parsed.aliases,
        status: parsed.status,
        metadata: parsed.metadata,
        created_ms: parsed
            .created
            .map(|d| d.timestamp_millis())
            .unwrap_or(created_fallback),
        updated_ms: parsed
            .modified
            .map(|d| d.timestamp_millis())
            .unwrap_or(mtime_ms),
        checksum: observed.checksum.clone(),
        size: observed.stat.size,
        mtime_ns: observed.stat.mtime_ns,
        observations: parsed.observations,
        relations: parsed.relations,
        warnings,
        search_text,
    }
}

/// The index operation that reads the project file `relative` as it is now.
pub(crate) fn upsert_op(store: &Store, project: &Project, relative: &str) -> Result<WriteOp> {
    let observed = Observed::read(&crate::mounts::project_file(store, project, relative)?)?;
    Ok(upsert_observed(store, project, relative, &observed, None))
}

/// The index operation for the project file `relative` as `observed` (with its bytes), and
/// the parse of those bytes when the caller has one.
pub(crate) fn upsert_observed(
    store: &Store,
    project: &Project,
    relative: &str,
    observed: &Observed,
    parsed: Option<note::ParsedNote>,
) -> WriteOp {
    let include_prefix = store.config().compat.permalinks_include_project;
    let bytes = observed.bytes.as_deref().unwrap_or_default();
    let input = from_parsed(
        &project.name,
        include_prefix,
        relative,
        observed,
        bytes,
        parsed,
    );
    WriteOp::Upsert(Box::new(input))
}

#[cfg(test)]
mod tests {
    use super::*;
    use vault::file::FileStat;

    fn observed(bytes: &[u8]) -> Observed {
        Observed {
            stat: FileStat {
                size: bytes.len() as u64,
                mtime_ns: 1_700_000_000_000_000_000,
            },
            checksum: vault::file::sha256_hex(bytes),
            created_ns: None,
            bytes: None,
        }
    }

    #[test]
    fn bad_inputs_become_warnings() {
        let cases: Vec<(&str, Vec<u8>, NoteKind, &str)> = vec![
            (
                "bin.md",
                vec![0x89, b'P', 0, 0, 1, 2],
                NoteKind::File,
                "binary content",
            ),
            (
                "latin1.md",
                b"caf\xe9 - [fact] x".to_vec(),
                NoteKind::Markdown,
                "not valid UTF-8",
            ),
            (
                "bad.md",
                b"---\ntitle: [x\n---\nbody".to_vec(),
                NoteKind::Markdown,
                "not valid YAML",
            ),
            (
                "big.md",
                vec![b'a'; SEARCH_TEXT_LIMIT + 10],
                NoteKind::Markdown,
                "full-text indexed",
            ),
        ];
        for (path, bytes, kind, warning) in cases {
            let input = from_file("main", true, path, &observed(&bytes), &bytes);
            assert_eq!(input.kind, kind, "{path}");
            assert!(
                input.warnings.iter().any(|w| w.contains(warning)),
                "{path}: {:?}",
                input.warnings
            );
            assert!(input.search_text.len() <= SEARCH_TEXT_LIMIT);
        }
    }

    #[test]
    fn markdown_and_resource_files() {
        let bytes = b"# Plain Note\n\nNo frontmatter here.\n";
        let input = from_file("main", true, "ext/plain-note.md", &observed(bytes), bytes);
        assert_eq!(input.title, "plain-note");
        assert_eq!(
            input.generated_permalink.as_deref(),
            Some("main/ext/plain-note")
        );
        assert_eq!(input.requested_permalink, None);
        assert!(input.warnings.is_empty());

        let image = from_file(
            "main",
            true,
            "img/photo.png",
            &observed(b"\x89PNG"),
            b"\x89PNG",
        );
        assert_eq!(
            (
                image.kind,
                image.title.as_str(),
                image.content_type.as_str()
            ),
            (NoteKind::File, "photo.png", "image/png")
        );
        assert_eq!(content_type("board.canvas"), "application/json");
    }
}
