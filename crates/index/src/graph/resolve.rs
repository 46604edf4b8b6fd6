//! Resolving links: which note a relation's target names, recorded both ways (`incoming`), and
//! the targets that name no note yet (`unresolved`), so that a note arriving later under one of
//! their keys resolves them.
//!
//! A bulk load meets most links before their targets. Each arrival re-resolves only the
//! relations that looked for the keys it arrived under, not every relation of the notes that
//! wait for it: re-resolving whole notes was half of the graph writer's time at 100,000 notes.

use std::collections::{BTreeMap, BTreeSet};

use milli_core::heed::RwTxn;

use super::{key3, GraphWriter};
use crate::model::NoteRecord;
use crate::IndexError;
use note::identifier::lookup_key;
use note::parse::link_lookup_text;
use note::permalink::generate_permalink;

/// Why a note's relations are resolved again before the batch commits.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Relink {
    /// The note was written, or a note it linked to is gone: every relation is checked.
    All,
    /// Notes arrived under these lookup keys: only the unresolved relations that look for one
    /// of them can change.
    Arrived(BTreeSet<String>),
}

/// The notes whose relations must be resolved again before the batch commits.
#[derive(Debug, Default)]
pub(super) struct PendingRelinks {
    notes: BTreeMap<String, Relink>,
    /// Notes written in this batch: their relations have no `unresolved` entries yet.
    written: BTreeSet<String>,
}

impl PendingRelinks {
    /// `id` was written: its relations are new and all of them are resolved.
    pub(super) fn written(&mut self, id: &str) {
        self.notes.insert(id.to_string(), Relink::All);
        self.written.insert(id.to_string());
    }

    /// A note `id` linked to is gone: every relation of `id` is checked.
    pub(super) fn target_gone(&mut self, id: String) {
        self.notes.insert(id, Relink::All);
    }

    /// A note arrived under `key`, which an unresolved relation of `id` looks for.
    pub(super) fn arrived(&mut self, id: String, key: &str) {
        match self
            .notes
            .entry(id)
            .or_insert_with(|| Relink::Arrived(BTreeSet::new()))
        {
            Relink::All => {}
            Relink::Arrived(keys) => {
                keys.insert(key.to_string());
            }
        }
    }

    /// `id` is gone: nothing of it is left to resolve.
    pub(super) fn forget(&mut self, id: &str) {
        self.notes.remove(id);
        self.written.remove(id);
    }
}

/// Keys a link target may match, most specific first.
pub(super) fn target_keys(target: &str, source_folder: &str, project_slug: &str) -> Vec<String> {
    let text = link_lookup_text(target);
    let mut out: Vec<String> = Vec::new();
    let mut push = |s: String| {
        if !s.is_empty() && !out.contains(&s) {
            out.push(s);
        }
    };
    if !source_folder.is_empty() && text.contains('/') {
        push(lookup_key(&format!("{source_folder}/{text}")));
    }
    push(lookup_key(text));
    let slug = generate_permalink(text, true);
    push(lookup_key(&slug));
    push(lookup_key(&format!("{project_slug}/{slug}")));
    out
}

impl GraphWriter<'_> {
    /// Resolves the links of notes touched by this batch; call once before commit. Doing it
    /// here rather than per write means a bulk load resolves each note's links once.
    pub fn finish(&mut self, txn: &mut RwTxn) -> Result<(), IndexError> {
        let pending = std::mem::take(&mut self.pending_relink);
        for (id, relink) in pending.notes {
            if let Some(mut note) = self.tables.get_note(txn, &id)? {
                let recorded = !pending.written.contains(&id);
                // Search documents hold links as written, so resolving one re-indexes nothing.
                if self.resolve_links(txn, &mut note, &relink, recorded)? {
                    self.tables.put_note(txn, &note)?;
                }
            }
        }
        Ok(())
    }

    /// Resolves the relations of `note` that `relink` may have changed: those that point
    /// nowhere (unresolved, or at a note that is gone), or only the unresolved ones that look
    /// for a key a note arrived under. `recorded`: the note's unresolved relations already have
    /// their `unresolved` entries. Returns whether anything changed.
    fn resolve_links(
        &mut self,
        txn: &mut RwTxn,
        note: &mut NoteRecord,
        relink: &Relink,
        recorded: bool,
    ) -> Result<bool, IndexError> {
        let project_slug = generate_permalink(&note.project, false);
        let folder = note.folder().to_string();
        let mut changed = false;
        for rel in &mut note.relations {
            let was_unresolved = rel.to_id.is_none();
            if let Some(to) = &rel.to_id {
                // A note arriving changes nothing for a relation that points at a note.
                if matches!(relink, Relink::Arrived(_)) || self.tables.notes.get(txn, to)?.is_some()
                {
                    continue;
                }
                self.tables
                    .incoming
                    .delete(txn, &key3(&note.project, to, &note.id))?;
            }
            let keys = target_keys(&rel.relation.target, &folder, &project_slug);
            if let Relink::Arrived(arrived) = relink {
                if !keys.iter().any(|key| arrived.contains(key)) {
                    continue;
                }
            }
            let mut best: Option<(u8, u16, String)> = None;
            for key in &keys {
                if let Some(found) = self
                    .tables
                    .ids_by_key(txn, &note.project, key)?
                    .into_iter()
                    .next()
                {
                    if best.as_ref().is_none_or(|b| found < *b) {
                        best = Some(found);
                    }
                }
            }
            let resolved = best.map(|(_, _, id)| id);
            let entries_exist = was_unresolved && recorded;
            match &resolved {
                Some(to) => {
                    if entries_exist {
                        for key in &keys {
                            self.tables
                                .unresolved
                                .delete(txn, &key3(&note.project, key, &note.id))?;
                        }
                    }
                    self.tables
                        .incoming
                        .put(txn, &key3(&note.project, to, &note.id), &())?;
                }
                None if !entries_exist => {
                    for key in &keys {
                        self.tables.unresolved.put(
                            txn,
                            &key3(&note.project, key, &note.id),
                            &(),
                        )?;
                    }
                }
                None => {}
            }
            changed |= resolved != rel.to_id;
            rel.to_id = resolved;
        }
        Ok(changed)
    }

    /// Removes the links of `note` from both directions and from the unresolved targets. Only
    /// a relation pointing nowhere has `unresolved` entries: resolving one removes them.
    pub(super) fn unlink(&mut self, txn: &mut RwTxn, note: &NoteRecord) -> Result<(), IndexError> {
        let project_slug = generate_permalink(&note.project, false);
        for rel in &note.relations {
            match &rel.to_id {
                Some(to) => {
                    self.tables
                        .incoming
                        .delete(txn, &key3(&note.project, to, &note.id))?;
                }
                None => {
                    for key in target_keys(&rel.relation.target, note.folder(), &project_slug) {
                        self.tables
                            .unresolved
                            .delete(txn, &key3(&note.project, &key, &note.id))?;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_keys_cover_titles_paths_and_slugs() {
        assert_eq!(
            target_keys("Search Design|shown", "", "main"),
            ["search design", "search-design", "main/search-design"]
        );
        assert_eq!(
            target_keys("sub/Note#Part", "notes", "main"),
            ["notes/sub/note", "sub/note", "main/sub/note"]
        );
    }

    #[test]
    fn a_note_written_or_losing_a_target_is_relinked_whole_and_arrivals_add_up() {
        let mut pending = PendingRelinks::default();
        pending.arrived("a".into(), "k1");
        pending.arrived("a".into(), "k2");
        pending.written("b");
        pending.arrived("b".into(), "k1");
        pending.arrived("c".into(), "k1");
        pending.target_gone("c".into());
        assert_eq!(
            pending.notes["a"],
            Relink::Arrived(["k1".to_string(), "k2".to_string()].into())
        );
        assert_eq!(pending.notes["b"], Relink::All);
        assert_eq!(pending.notes["c"], Relink::All);
        assert!(pending.written.contains("b") && !pending.written.contains("c"));
        pending.forget("b");
        assert!(!pending.notes.contains_key("b") && !pending.written.contains("b"));
    }
}
