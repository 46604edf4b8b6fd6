//! The one door through which text gitmem authors becomes a project file: notes written,
//! edited and created, memories, the graph tools' entities and observations, canvases,
//! imports and restores. `App::author` passes the text through the configured redaction
//! filter (`note::redact`) and refuses a file name that holds a secret; the writers below take
//! only what it made, so a write that skips the filter does not compile.

use std::path::Path;

use super::error::NoteError;
use super::Result;
use crate::Store;
use note::redact::Redactions;
use vault::{self, file::Observed};

/// Bytes gitmem is about to write, secrets replaced. Only `App::author` makes one.
#[derive(Debug)]
pub(crate) struct Authored {
    bytes: Vec<u8>,
    /// What was replaced, for the tool's answer.
    pub redacted: Redactions,
}

impl Authored {
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.bytes
    }
}

/// Prepares `text` for the project file `relative`. With `before` (what the file holds, for
/// an edit) only what the write adds is replaced: bytes another program wrote stay as they
/// are, and the push gate (`crate::git::secrets`) holds them instead.
pub(crate) fn author(
    store: &Store,
    relative: &str,
    text: &str,
    before: Option<&str>,
) -> Result<Authored> {
    let redactor = store.config().redactor.clone();
    if let Some(found) = redactor.findings(relative).into_iter().next() {
        return Err(NoteError::SecretInPath { kind: found.kind }.into());
    }
    let redacted = redactor.redact_new(text, before);
    Ok(Authored {
        bytes: redacted.text.into_bytes(),
        redacted: redacted.report,
    })
}

/// `author` for bytes that may not be text (a restored version): text is redacted; other
/// bytes cannot be, so they are written only if no secret shows in them.
pub(crate) fn author_bytes(store: &Store, relative: &str, bytes: &[u8]) -> Result<Authored> {
    match std::str::from_utf8(bytes) {
        Ok(text) => author(store, relative, text, None),
        Err(_) => {
            let lossy = String::from_utf8_lossy(bytes);
            let redactor = store.config().redactor.clone();
            if let Some(found) = redactor.findings(&lossy).into_iter().next() {
                return Err(NoteError::SecretInBinary { kind: found.kind }.into());
            }
            let mut authored = author(store, relative, "", None)?;
            authored.bytes = bytes.to_vec();
            Ok(authored)
        }
    }
}

/// A title as the name of a file and the permalink made from it: redacted before either
/// is derived, since a slug would hide the secret from every later check.
pub(crate) fn redact_title(store: &Store, title: &str) -> (String, Redactions) {
    let redacted = store.config().redactor.redact(title);
    (redacted.text, redacted.report)
}

/// Every one of `fields` as it will be stored, redacted in place: for input whose parts
/// are echoed back (the graph tools' names and observations), so the answer shows what
/// the files hold.
pub(crate) fn redact_fields<'a>(
    store: &Store,
    fields: impl IntoIterator<Item = &'a mut String>,
) -> Redactions {
    let redactor = store.config().redactor.clone();
    let mut report = Redactions::default();
    for field in fields {
        let redacted = redactor.redact(field);
        report.merge(&redacted.report);
        *field = redacted.text;
    }
    report
}

/// Writes over the file (or creates it), answering with what a scan would observe.
pub(crate) fn replace(absolute: &Path, authored: &Authored) -> std::io::Result<Observed> {
    vault::fs::atomic_write_observed(absolute, authored.bytes.clone())
}

/// Creates the file; `AlreadyExists` when there is one.
pub(crate) fn create(absolute: &Path, authored: &Authored) -> std::io::Result<()> {
    vault::fs::create_new(absolute, &authored.bytes)
}

/// Replaces the file only if it still holds `expected`; false when it changed.
pub(crate) fn replace_if(
    absolute: &Path,
    expected: &[u8],
    authored: &Authored,
) -> std::io::Result<bool> {
    vault::fs::replace_if_unchanged(absolute, expected, &authored.bytes)
}

#[cfg(test)]
mod tests {
    /// The modules that write what gitmem authors, with how many raw writes each may keep:
    /// an import's take-back puts back the bytes a file held before, which are not gitmem's,
    /// and the memory API's daily count is gitmem's own bookkeeping, not a note.
    const WRITERS: [(&str, &str, usize); 12] = [
        ("notes", include_str!("notes.rs"), 0),
        ("write", include_str!("write.rs"), 0),
        ("edit", include_str!("edit.rs"), 0),
        ("canvas", include_str!("canvas.rs"), 0),
        ("import", include_str!("import.rs"), 1),
        ("history", include_str!("history.rs"), 0),
        ("memory", include_str!("memory/mod.rs"), 0),
        ("memory::basic", include_str!("memory/basic.rs"), 0),
        ("memory::search", include_str!("memory/search.rs"), 0),
        ("memory::limits", include_str!("memory/limits.rs"), 1),
        ("graph", include_str!("graph.rs"), 0),
        ("relocate", include_str!("relocate.rs"), 0),
    ];

    #[test]
    fn every_authored_write_goes_through_the_filter() {
        for (name, source, allowed) in WRITERS {
            let raw = [
                "fs::atomic_write(",
                "fs::atomic_write_observed(",
                "fs::create_new(",
                "fs::replace_if_unchanged(",
            ]
            .iter()
            .map(|call| source.matches(call).count())
            .sum::<usize>();
            assert_eq!(
                raw, allowed,
                "engine::{name} writes around engine::authored"
            );
        }
    }
}
