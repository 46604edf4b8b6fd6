//! write_note, read_note, view_note, edit_note, read_content and canvas.

use base64::engine::general_purpose::STANDARD;
use base64::Engine as _;
use serde_json::{json, Value};

use super::{with_redacted, Format, Rendered};
use engine::canvas::CanvasWritten;
use engine::content::Content;
use engine::edit::{EditRefusal, NoteEdited};
use engine::notes::{split_note_text, NoteFile, NoteWritten};
use engine::read::{NoteLines, NoteView, ReadRefusal};
use engine::write::WriteRefusal;
use engine::{Outcome, OutsideProject};
use note::edit::EditError;
use note::identifier::normalize_identifier;
use note::permalink::generate_permalink;
use note::redact::Redactions;

pub fn session_footer(project: &str) -> String {
    format!("\n\n[Session: Using project '{project}']")
}

/// The `## Observations` / `## Relations` / `## Tags` blocks shared by write and edit; a
/// write's also explain unresolved relations and list the tags.
fn graph_summary(w: &NoteWritten, write: bool) -> String {
    let mut out = String::new();
    if !w.categories.is_empty() {
        out.push_str("\n## Observations\n");
        for (category, n) in &w.categories {
            out.push_str(&format!("- {category}: {n}\n"));
        }
    }
    if w.resolved_relations + w.unresolved_relations > 0 {
        out.push_str(&format!(
            "\n## Relations\n- Resolved: {}\n- Unresolved: {}\n",
            w.resolved_relations, w.unresolved_relations
        ));
        if write && w.unresolved_relations > 0 {
            out.push_str("\nNote: Unresolved relations point to entities that don't exist yet.\nThey will be automatically resolved when target entities are created or during sync operations.\n");
        }
    }
    if write && !w.tags.is_empty() {
        out.push_str(&format!("\n## Tags\n- {}\n", w.tags.join(", ")));
    }
    out
}

pub fn written(w: &NoteWritten, project: &str) -> String {
    let header = if w.created {
        "# Created note"
    } else {
        "# Updated note"
    };
    note_answer(header, "", w, project, true)
}

/// The answer to a write or an edit: `header`, where the note is, `details` (whole lines),
/// what the note holds and the session footer.
fn note_answer(header: &str, details: &str, w: &NoteWritten, project: &str, write: bool) -> String {
    let mut out = format!(
        "{header}\nproject: {project}\nfile_path: {}\npermalink: {}\nchecksum: {}\n{details}{}",
        w.file_path,
        w.permalink.as_deref().unwrap_or(""),
        w.checksum,
        redacted_line(&w.redacted)
    );
    out.push_str(&graph_summary(w, write));
    format!("{}{}", out.trim_end(), session_footer(project))
}

fn conflict(title: &str, identifier: &str, project: &str) -> String {
    format!(
        "# Error: Note already exists\n\n**\"{title}\"** already exists (`{identifier}`).\n\n`write_note` does not overwrite by default. Choose an option:\n\n| Goal | Action |\n|------|--------|\n| Append content | `edit_note(\"{identifier}\", operation=\"append\", content=\"...\")` |\n| Prepend content | `edit_note(\"{identifier}\", operation=\"prepend\", content=\"...\")` |\n| Replace a section | `edit_note(\"{identifier}\", operation=\"replace_section\", section=\"...\", content=\"...\")` |\n| Full replace | `write_note(title=\"{title}\", content=\"...\", directory=\"...\", overwrite=True)` |\n| Inspect first | `read_note(\"{identifier}\")` |\n\nProject: {project}"
    )
}

/// A conditional overwrite refused: the note changed since it was read, or is gone.
fn revision_conflict(title: &str, file_path: &str, current: Option<&str>, project: &str) -> String {
    match current {
        None => format!(
            "# Error: Note revision conflict\n\n**\"{title}\"** no longer exists at `{file_path}`, so nothing was replaced.\nRead the project again before writing, or drop expected_checksum to create\na new note at this path.\n\nProject: {project}"
        ),
        Some(current) => format!(
            "# Error: Note revision conflict\n\n**\"{title}\"** at `{file_path}` changed since you read it, so nothing was replaced.\nCurrent checksum: `{current}`\n\nRead the note again and retry with expected_checksum=\"{current}\", or drop\nexpected_checksum to replace it unconditionally.\n\nProject: {project}"
        ),
    }
}

pub fn edited(
    w: &NoteWritten,
    project: &str,
    operation: &str,
    summary: &str,
    created: bool,
) -> String {
    let (header, created_line) = if created {
        (
            format!("# Created note ({operation})"),
            "fileCreated: true\n",
        )
    } else {
        (format!("# Edited note ({operation})"), "")
    };
    let details = format!("{created_line}operation: {summary}\n");
    note_answer(&header, &details, w, project, false)
}

/// Title suggestion for a missing note: Python's `str.capitalize()`.
pub fn capitalize(s: &str) -> String {
    let lower = s.to_lowercase();
    let mut chars = lower.chars();
    match chars.next() {
        Some(first) => first.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

pub fn read_not_found(identifier: &str, project: &str) -> String {
    format!(
        "\n# Note Not Found in {project}: \"{identifier}\"\n\nNo note matches \"{identifier}\" in {project}. Titles and permalinks must match\nexactly; title and text search found nothing either.\n\nTo look further, try `search_notes(query=\"{identifier}\", project=\"{project}\")` or\n`recent_activity(timeframe=\"7d\", project=\"{project}\")`. If the user wants this note\ncreated, use `write_note`.\n"
    )
}

pub fn read_related(
    identifier: &str,
    project: &str,
    related: &[(String, Option<String>)],
) -> String {
    let mut out = format!(
        "\n# Note Not Found in {project}: \"{identifier}\"\n\nNo exact match for \"{identifier}\" in {project}. Related notes:\n\n"
    );
    for (i, (title, permalink)) in related.iter().enumerate() {
        let p = permalink.as_deref().unwrap_or("unknown");
        out.push_str(&format!(
            "\n## {}. {title}\n- **Type**: entity\n- **Permalink**: {p}\n\n",
            i + 1
        ));
    }
    out.push_str(&format!(
        "\nRead one with `read_note(identifier=\"<permalink>\", project=\"{project}\")`, or search\nfurther with `search_notes(query=\"{identifier}\", project=\"{project}\")`.\n"
    ));
    out
}

pub fn view(title: &str, text: &str) -> String {
    format!(
        "Note retrieved: \"{title}\"\n\nDisplay this note as a markdown artifact for the user.\n\nContent:\n---\n{text}\n---"
    )
}

pub fn moved(title: &str, destination: &str, permalink: &str, project: &str) -> String {
    format!(
        "✅ Note moved successfully\n\n📁 **{title}** → **{destination}**\n🔗 Permalink: {permalink}\n📊 Database and search index updated\n\n<!-- Project: {project} -->"
    )
}

pub fn directory_summary(
    header: &str,
    labels: (&str, &str),
    lines: &[(&str, String)],
    total: usize,
    ok: &[String],
    failed: &[String],
    project: &str,
) -> String {
    let mut out = format!("# {header}\n\n");
    for (label, value) in lines {
        out.push_str(&format!("**{label}:** `{value}`\n"));
    }
    out.push_str(&format!(
        "\n## Summary\n- Total files: {total}\n- {}: {}\n- Failed: {}\n",
        labels.0,
        ok.len(),
        failed.len()
    ));
    if !ok.is_empty() {
        out.push_str(&format!("\n## {}\n", labels.1));
        for path in ok.iter().take(10) {
            out.push_str(&format!("- {path}\n"));
        }
        if ok.len() > 10 {
            out.push_str(&format!("- ... and {} more\n", ok.len() - 10));
        }
    }
    if !failed.is_empty() {
        out.push_str("\n## Failed\n");
        for f in failed {
            out.push_str(&format!("- {f}\n"));
        }
    }
    out.push_str(&format!("\n<!-- Project: {project} -->"));
    out
}

/// `# <title>\n\n<body>` guidance blocks used by several tools.
pub fn guidance(title: &str, body: &str) -> String {
    format!("# {title}\n\n{body}")
}

/// A refused call's answer: its guidance as text, or the tool's JSON answer carrying the error.
pub fn refused(format: Format, title: &str, body: &str, json: impl FnOnce() -> Value) -> Rendered {
    Rendered::either(format, || guidance(title, body), json)
}

/// `refused` as an error result: for the tools whose refusals Basic Memory 0.24 raises.
pub fn refused_error(
    format: Format,
    title: &str,
    body: &str,
    json: impl FnOnce() -> Value,
) -> Rendered {
    Rendered::refusal(format, || guidance(title, body), json)
}

/// `Redacted: 1 github-token, 2 password` and a line break, or nothing when nothing was:
/// answers stay Basic Memory's own unless a value was replaced.
pub fn redacted_line(redacted: &Redactions) -> String {
    if redacted.is_empty() {
        return String::new();
    }
    let kinds: Vec<String> = redacted
        .kinds()
        .iter()
        .map(|(kind, count)| format!("{count} {kind}"))
        .collect();
    format!("Redacted: {}\n", kinds.join(", "))
}

/// The JSON of a written or edited note.
fn written_json(w: &NoteWritten) -> Value {
    let answer = json!({
        "title": w.title,
        "permalink": w.permalink,
        "file_path": w.file_path,
        "checksum": w.checksum,
        "action": if w.created { "created" } else { "updated" },
    });
    with_redacted(answer, &w.redacted)
}

/// write_note's answer; `title` is the requested one.
pub fn write_note(
    title: &str,
    outcome: &Outcome<NoteWritten, WriteRefusal>,
    format: Format,
) -> Rendered {
    match outcome {
        Outcome::Done(w) => Rendered::either(format, || written(w, &w.project), || written_json(w)),
        Outcome::Refused(WriteRefusal::AlreadyExists {
            project,
            title,
            permalink,
            existing_path,
        }) => Rendered::refusal(
            format,
            || conflict(title, permalink, project),
            || {
                json!({
                    "title": title, "permalink": permalink, "file_path": existing_path,
                    "checksum": null, "action": "conflict", "error": "NOTE_ALREADY_EXISTS",
                })
            },
        ),
        Outcome::Refused(WriteRefusal::RevisionConflict {
            project,
            title,
            permalink,
            file_path,
            current,
        }) => Rendered::refusal(
            format,
            || {
                let at = file_path.as_deref().unwrap_or(title);
                revision_conflict(title, at, current.as_deref(), project)
            },
            || {
                json!({
                    "title": title, "permalink": permalink, "file_path": file_path,
                    "checksum": null, "action": "conflict", "error": "NOTE_REVISION_CONFLICT",
                    "currentChecksum": current,
                })
            },
        ),
        Outcome::Refused(WriteRefusal::OutsideProject(refusal)) => {
            refused_error(format, "Error", &refusal.to_string(), || {
                json!({
                    "title": title, "permalink": null, "file_path": null, "checksum": null,
                    "action": "created", "error": "SECURITY_VALIDATION_ERROR",
                })
            })
        }
        Outcome::Refused(WriteRefusal::Schema { title, violation }) => {
            let errors: Vec<String> = violation.errors.iter().map(|e| format!("- {e}")).collect();
            let body = format!(
                "Note '{title}' was not written: its schema ('{}') has `validation: strict` and the note does not pass it:\n\n{}\n\nAdd the missing observations (`- [field] value`) or relations (`- field [[Target]]`), or set the schema's `settings.validation` to `warn`.\n",
                violation.schema_entity,
                errors.join("\n"),
            );
            refused_error(
                format,
                "Error: Note does not match its schema",
                &body,
                || {
                    json!({
                        "title": title, "permalink": null, "file_path": null, "checksum": null,
                        "action": "refused", "error": "SCHEMA_VALIDATION_FAILED",
                        "schema": violation.schema_entity, "errors": violation.errors,
                    })
                },
            )
        }
    }
}

/// The JSON of a read that found nothing.
fn empty_read_json() -> Value {
    json!({"title": null, "permalink": null, "file_path": null, "content": null, "frontmatter": null})
}

/// The text of a read that found nothing: suggestions when there are related notes.
pub(super) fn not_found_text(
    project: &str,
    identifier: &str,
    related: &[engine::search::SearchResult],
) -> String {
    if related.is_empty() {
        return read_not_found(identifier, project);
    }
    let list: Vec<(String, Option<String>)> = related
        .iter()
        .map(|r| (r.title.clone(), r.permalink.clone()))
        .collect();
    read_related(identifier, project, &list)
}

/// read_note's answer: the file's exact text, or JSON with the body and front matter.
pub fn read_note(
    outcome: &Outcome<NoteFile, ReadRefusal>,
    format: Format,
    include_frontmatter: bool,
) -> Rendered {
    match outcome {
        Outcome::Done(file) => Rendered::either(
            format,
            || match &file.chain {
                Some(chain) => format!("{}{}", file.text, super::correct::chain_text(chain)),
                None => file.text.clone(),
            },
            || {
                let note = &file.note;
                let (body, frontmatter) = split_note_text(&file.text);
                let content = if include_frontmatter {
                    file.text.clone()
                } else {
                    body
                };
                let mut v = json!({
                    "title": note.title, "permalink": note.permalink, "file_path": note.path,
                    "content": content, "frontmatter": frontmatter, "checksum": file.checksum,
                });
                if let Some(source) = note.linked_source() {
                    v["source"] = source.clone();
                    v["tags"] = json!(note.tags);
                }
                if let Some(chain) = &file.chain {
                    v["correction_chain"] = super::correct::chain_json(chain);
                }
                v
            },
        ),
        Outcome::Refused(refusal) => read_refused(refusal, format),
    }
}

/// read_note with include_content=false: what identifies the note's revision, without its
/// body (the full checksum: the token expected_checksum takes).
pub fn read_note_metadata(outcome: &Outcome<NoteFile, ReadRefusal>, format: Format) -> Rendered {
    match outcome {
        Outcome::Done(file) => {
            let note = &file.note;
            let updated = super::iso_from_ms(note.updated_ms);
            Rendered::either(
                format,
                || {
                    let field = |v: Option<&str>| v.unwrap_or("unknown").to_string();
                    format!(
                        "# Note metadata\ntitle: {}\npermalink: {}\nfile_path: {}\nchecksum: {}\nupdated_at: {updated}",
                        note.title,
                        field(note.permalink.as_deref()),
                        note.path,
                        file.checksum,
                    )
                },
                || {
                    json!({
                        "title": note.title, "permalink": note.permalink, "file_path": note.path,
                        "checksum": file.checksum, "updated_at": updated,
                    })
                },
            )
        }
        Outcome::Refused(refusal) => read_refused(refusal, format),
    }
}

/// read_note with start_line/end_line: the lines with their numbers and where the next ones
/// start, as text; as JSON the read's payload with the slice's coordinates.
pub fn read_note_lines(outcome: &Outcome<NoteLines, ReadRefusal>, format: Format) -> Rendered {
    let lines = match outcome {
        Outcome::Done(lines) => lines,
        Outcome::Refused(refusal) => return read_refused(refusal, format),
    };
    let (first, last, total) = (lines.start_line, lines.end_line, lines.total_lines);
    let width = last + 1 - first;
    let next = (last < total).then(|| (last + 1, total.min(last + width)));
    Rendered::either(
        format,
        || {
            let mut header =
                format!("Lines {first}-{last} of {total} (document, including frontmatter)");
            match next {
                Some((start, end)) => {
                    header.push_str(&format!("; next: start_line={start}, end_line={end}"))
                }
                None => header.push_str("; EOF"),
            }
            if last < first {
                return header;
            }
            let numbered: Vec<String> = (first..=last)
                .zip(lines.content.split('\n'))
                .map(|(number, line)| format!("{number}: {line}"))
                .collect();
            format!("{header}\n{}", numbered.join("\n"))
        },
        || {
            let note = &lines.file.note;
            json!({
                "title": note.title, "permalink": note.permalink, "file_path": note.path,
                "content": lines.content, "frontmatter": null, "checksum": lines.file.checksum,
                "section": null, "start_line": first, "end_line": last, "total_lines": total,
                "has_more": next.is_some(),
                "next_start_line": next.map(|(start, _)| start),
                "next_end_line": next.map(|(_, end)| end),
            })
        },
    )
}

fn read_refused(refusal: &ReadRefusal, format: Format) -> Rendered {
    match refusal {
        ReadRefusal::OutsideProject(refusal) => {
            refused(format, "Error", &refusal.to_string(), || {
                let mut v = empty_read_json();
                v["error"] = json!("SECURITY_VALIDATION_ERROR");
                v
            })
        }
        ReadRefusal::NotFound {
            project,
            identifier,
            related,
        } => Rendered::either(
            format,
            || not_found_text(project, identifier, related),
            || {
                let mut v = empty_read_json();
                v["error"] = json!("NOTE_NOT_FOUND");
                v["message"] = json!(format!("Note not found: {identifier}"));
                if !related.is_empty() {
                    v["related_results"] = related
                        .iter()
                        .map(|r| json!({"title": r.title, "permalink": r.permalink, "file_path": r.file_path}))
                        .collect();
                }
                v
            },
        ),
    }
}

/// view_note's answer: the note, for the client to show as an artifact.
pub fn view_note(outcome: &Outcome<NoteView, ReadRefusal>) -> Rendered {
    match outcome {
        Outcome::Done(v) => Rendered::Text(view(&v.title, &v.text)),
        Outcome::Refused(refusal) => read_refused(refusal, Format::Text),
    }
}

/// The guidance title, the JSON error code and the explanation of a refused edit.
fn edit_refusal(refusal: &EditRefusal) -> (&'static str, &'static str, String) {
    match refusal {
        EditRefusal::RevisionConflict {
            identifier,
            current: None,
            ..
        } => (
            "Edit Failed - Note Revision Conflict",
            "NOTE_REVISION_CONFLICT",
            format!("The note '{identifier}' no longer exists, so nothing was edited. Look the note up again\nbefore retrying, or drop expected_checksum to create it with append or prepend."),
        ),
        EditRefusal::RevisionConflict {
            identifier,
            current: Some(current),
            ..
        } => (
            "Edit Failed - Note Revision Conflict",
            "NOTE_REVISION_CONFLICT",
            format!("The note '{identifier}' changed since you read it, so nothing was edited.\nCurrent checksum: `{current}`\n\nRe-read the note to see what changed (or fetch just its checksum with\n`read_note(identifier=\"{identifier}\", include_content=False)`),\nthen retry with expected_checksum=\"{current}\". Drop expected_checksum to edit\nthe current revision unconditionally."),
        ),
        EditRefusal::OutsideProject(o) => (
            "Edit Failed - Security Validation Error",
            "SECURITY_VALIDATION_ERROR",
            o.to_string(),
        ),
        EditRefusal::Ambiguous { identifier, notes } => {
            let list: Vec<String> = notes
                .iter()
                .map(|n| format!("{} (permalink: {})", n.path, n.permalink.as_deref().unwrap_or("")))
                .collect();
            (
                "Edit Failed - Ambiguous Identifier",
                "AMBIGUOUS_IDENTIFIER",
                format!(
                    "Ambiguous identifier '{identifier}' matches {} notes: {}. Pass an exact permalink or external_id to disambiguate.",
                    notes.len(),
                    list.join("; ")
                ),
            )
        }
        EditRefusal::NotFound { identifier, project } => (
            "Edit Failed - Note Not Found",
            "ENTITY_RESOLUTION_FAILED",
            format!(
                "The note '{identifier}' could not be found in project '{project}'.\n\nCheck the identifier with `search_notes(query=\"{}\")`, or use operation \"append\" to create it.",
                normalize_identifier(identifier)
            ),
        ),
        EditRefusal::UnresolvedProjectRoute { identifier, segment } => (
            "Edit Failed - Unresolved Project Route",
            "UNRESOLVED_PROJECT_ROUTE",
            format!("'{segment}' in '{identifier}' is not a project, and edit_note does not create notes in an unknown project."),
        ),
        EditRefusal::NotApplicable { identifier, error } => {
            let (title, code) = match error {
                EditError::TextNotFound(_) => ("Edit Failed - Text Not Found", "TEXT_NOT_FOUND"),
                EditError::WrongCount { .. } => (
                    "Edit Failed - Wrong Replacement Count",
                    "WRONG_REPLACEMENT_COUNT",
                ),
                EditError::DuplicateSection(_) => (
                    "Edit Failed - Duplicate Section Headers",
                    "DUPLICATE_SECTION",
                ),
                EditError::SectionNotFound(_) | EditError::ReplacedSectionNotFound(_) => {
                    ("Edit Failed - Section Not Found", "SECTION_NOT_FOUND")
                }
                EditError::MissingFindText | EditError::MissingSection(_) => ("Edit Failed", "EDIT_FAILED"),
            };
            let advice = match error {
                EditError::WrongCount { found, .. } => format!(
                    "\n\nRead the note first, then either set expected_replacements={found} or give a more specific find_text."
                ),
                EditError::TextNotFound(_) => {
                    "\n\nRead the note first and copy the exact text to replace.".to_string()
                }
                _ => String::new(),
            };
            (title, code, format!("Error editing note '{identifier}': {error}{advice}"))
        }
        EditRefusal::NotText { identifier } => (
            "Edit Failed - Not UTF-8 Text",
            "NOT_UTF8",
            format!("The file of '{identifier}' is not valid UTF-8 text, so it cannot be edited without changing bytes outside the edit. Fix its encoding, or replace it with write_note(overwrite=true)."),
        ),
        EditRefusal::KeptChanging { identifier } => (
            "Edit Failed - Note Changed During Edit",
            "CONCURRENT_MODIFICATION",
            format!("'{identifier}' was changed by another program while the edit was made, several times in a row; nothing was written. Read the note again and retry."),
        ),
    }
}

fn refusal_identifier(refusal: &EditRefusal) -> &str {
    match refusal {
        EditRefusal::OutsideProject(o) => &o.value,
        EditRefusal::Ambiguous { identifier, .. }
        | EditRefusal::NotFound { identifier, .. }
        | EditRefusal::UnresolvedProjectRoute { identifier, .. }
        | EditRefusal::NotApplicable { identifier, .. }
        | EditRefusal::NotText { identifier }
        | EditRefusal::KeptChanging { identifier }
        | EditRefusal::RevisionConflict { identifier, .. } => identifier,
    }
}

/// edit_note's answer.
pub fn edit_note(outcome: &Outcome<NoteEdited, EditRefusal>, format: Format) -> Rendered {
    match outcome {
        Outcome::Done(e) => Rendered::either(
            format,
            || {
                edited(
                    &e.written,
                    &e.written.project,
                    e.operation.name(),
                    &e.summary,
                    e.created,
                )
            },
            || {
                let w = &e.written;
                let answer = json!({
                    "title": w.title, "permalink": w.permalink, "file_path": w.file_path,
                    "checksum": w.checksum, "operation": e.operation.name(), "fileCreated": e.created,
                });
                with_redacted(answer, &w.redacted)
            },
        ),
        Outcome::Refused(refusal) => {
            let (title, code, body) = edit_refusal(refusal);
            refused_error(format, title, &body, || match refusal {
                // The note as it reads now (while it exists), and the revision to retry on.
                EditRefusal::RevisionConflict { note, current, .. } => json!({
                    "title": note.as_ref().map(|n| &n.title),
                    "permalink": note.as_ref().and_then(|n| n.permalink.as_ref()),
                    "file_path": note.as_ref().map(|n| &n.path),
                    "checksum": null, "operation": null, "fileCreated": false, "error": code,
                    "currentChecksum": current,
                }),
                _ => json!({
                    "title": null, "permalink": null, "file_path": null, "checksum": null,
                    "operation": null, "fileCreated": false, "error": code,
                    "identifier": refusal_identifier(refusal),
                }),
            })
        }
    }
}

/// read_content's answer: the payload, or an error object (compat 2.7). Binary content is
/// sent as base64.
pub fn read_content(outcome: &Outcome<Content, OutsideProject>) -> Rendered {
    let base64 = |media_type: &str, bytes: &[u8]| json!({"type": "base64", "media_type": media_type, "data": STANDARD.encode(bytes)});
    Rendered::Json(match outcome {
        Outcome::Done(Content::Text { text, mime }) => json!({
            "type": "text",
            "text": text,
            "content_type": format!("{mime}; charset=utf-8"),
            "encoding": "utf-8",
        }),
        Outcome::Done(Content::Image { jpeg }) => {
            json!({"type": "image", "source": base64("image/jpeg", jpeg)})
        }
        Outcome::Done(Content::Document { bytes, media_type }) => {
            json!({"type": "document", "source": base64(media_type, bytes)})
        }
        Outcome::Done(Content::TooLarge { size }) => json!({
            "type": "error",
            "error": format!("Document size {size} bytes exceeds maximum allowed size"),
        }),
        Outcome::Refused(refusal) => json!({"type": "error", "error": refusal.to_string()}),
    })
}

/// canvas's answer.
pub fn canvas(outcome: &Outcome<CanvasWritten, OutsideProject>) -> Rendered {
    Rendered::Text(match outcome {
        Outcome::Done(c) => format!(
            "# {}: {}\n\nThe canvas is ready to open in Obsidian.{}",
            if c.created { "Created" } else { "Updated" },
            c.path,
            match redacted_line(&c.redacted) {
                line if line.is_empty() => line,
                line => format!("\n{}", line.trim_end()),
            }
        ),
        Outcome::Refused(refusal) => guidance("Error", &refusal.to_string()),
    })
}

/// The suggestions for an identifier nothing matches: its capitalised form and its permalink.
pub fn identifier_suggestions(identifier: &str) -> (String, String) {
    let ident = normalize_identifier(identifier);
    (capitalize(&ident), generate_permalink(&ident, false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn read_content_answers_in_basic_memorys_shapes() {
        let cases = [
            (
                Content::Text {
                    text: "# Title\n".into(),
                    mime: "text/markdown".into(),
                },
                json!({"type": "text", "text": "# Title\n",
                       "content_type": "text/markdown; charset=utf-8", "encoding": "utf-8"}),
            ),
            (
                Content::Image {
                    jpeg: vec![0xFF, 0xD8],
                },
                json!({"type": "image",
                       "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9g="}}),
            ),
            (
                Content::Document {
                    bytes: b"%PDF".to_vec(),
                    media_type: "application/pdf".into(),
                },
                json!({"type": "document",
                       "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERg=="}}),
            ),
            (
                Content::TooLarge { size: 350_001 },
                json!({"type": "error",
                       "error": "Document size 350001 bytes exceeds maximum allowed size"}),
            ),
        ];
        for (content, expected) in cases {
            let Rendered::Json(answer) = read_content(&Outcome::Done(content)) else {
                panic!("read_content answers JSON");
            };
            assert_eq!(answer, expected);
        }
    }
}
