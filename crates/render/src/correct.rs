//! correct_memory's answer, and the correction chain read_note shows.

use serde_json::{json, Value};

use super::with_redacted;
use engine::correct::Corrected;
use engine::NoteRow;
use engine::{ChainLink, CorrectionChain};

fn cited(note: &NoteRow) -> &str {
    note.permalink.as_deref().unwrap_or(&note.path)
}

fn note_json(note: &NoteRow) -> Value {
    json!({"title": note.title, "permalink": note.permalink, "file_path": note.path})
}

/// correct_memory's text.
pub fn text(c: &Corrected) -> String {
    let mut out = format!(
        "# Corrected\n\n- superseded: {} ({})\n- correction: {} ({})\n- reason: {}\n",
        c.old.title,
        cited(&c.old),
        c.new.title,
        cited(&c.new),
        c.reason
    );
    if let Some(id) = &c.memory_id {
        out.push_str(&format!("- memory id: {id}\n"));
    }
    out.push_str(&format!(
        "\nSearches, context and the graph now show the correction; the superseded note is kept and shown with include_superseded.\n\nProject: {}\n",
        c.project
    ));
    out
}

/// correct_memory's structured content.
pub fn json(c: &Corrected) -> Value {
    let mut answer = json!({
        "project": c.project,
        "superseded": note_json(&c.old),
        "correction": note_json(&c.new),
        "reason": c.reason,
    });
    if let Some(id) = &c.memory_id {
        answer["correction"]["id"] = json!(id);
    }
    with_redacted(answer, &c.redacted)
}

fn link_json(link: &ChainLink) -> Value {
    json!({
        "title": link.title, "permalink": link.permalink, "file_path": link.file_path,
        "reason": link.reason, "superseded_at": link.superseded_at,
    })
}

/// The chain as read_note's JSON carries it.
pub fn chain_json(chain: &CorrectionChain) -> Value {
    json!({
        "notes": chain.links.iter().map(link_json).collect::<Vec<_>>(),
        "this": chain.this,
        "current": chain.current().permalink,
    })
}

/// The chain as read_note's text ends with it: every note oldest first, the one read and
/// the current one marked.
pub fn chain_text(chain: &CorrectionChain) -> String {
    let last = chain.links.len() - 1;
    let mut out = String::from("\n---\nCorrection chain (oldest first):\n");
    for (i, link) in chain.links.iter().enumerate() {
        let name = link.permalink.as_deref().unwrap_or(&link.file_path);
        let mut line = format!("{}. [[{}]] ({name})", i + 1, link.title);
        if let Some(reason) = &link.reason {
            line.push_str(&format!(", correcting: {reason}"));
        }
        if let Some(at) = &link.superseded_at {
            line.push_str(&format!(", superseded {at}"));
        }
        match (i == chain.this, i == last) {
            (true, true) => line.push_str(" <- this note, current"),
            (true, false) => line.push_str(" <- this note (superseded: read the current one)"),
            (false, true) => line.push_str(" <- current"),
            (false, false) => {}
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}
