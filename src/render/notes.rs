//! Texts of the note tools: write_note, edit_note, read_note fallbacks, move and delete.

use crate::service::notes::NoteWritten;

pub fn session_footer(project: &str) -> String {
    format!("\n\n[Session: Using project '{project}']")
}

/// The `## Observations` / `## Relations` / `## Tags` blocks shared by write and edit.
fn graph_summary(w: &NoteWritten, with_unresolved_note: bool, with_tags: bool) -> String {
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
        if with_unresolved_note && w.unresolved_relations > 0 {
            out.push_str("\nNote: Unresolved relations point to entities that don't exist yet.\nThey will be automatically resolved when target entities are created or during sync operations.\n");
        }
    }
    if with_tags && !w.tags.is_empty() {
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
    let mut out = format!(
        "{header}\nproject: {project}\nfile_path: {}\npermalink: {}\nchecksum: {}\n",
        w.file_path,
        w.permalink.as_deref().unwrap_or(""),
        w.checksum
    );
    out.push_str(&graph_summary(w, true, true));
    format!("{}{}", out.trim_end(), session_footer(project))
}

pub fn conflict(title: &str, permalink: &str, project: &str) -> String {
    format!(
        "# Error: Note already exists\n\n**\"{title}\"** already exists (permalink: `{permalink}`).\n\n`write_note` does not overwrite by default. Choose an option:\n\n| Goal | Action |\n|------|--------|\n| Append content | `edit_note(\"{permalink}\", operation=\"append\", content=\"...\")` |\n| Prepend content | `edit_note(\"{permalink}\", operation=\"prepend\", content=\"...\")` |\n| Replace a section | `edit_note(\"{permalink}\", operation=\"replace_section\", section=\"...\", content=\"...\")` |\n| Full replace | `write_note(\"{title}\", ..., overwrite=True)` |\n| Inspect first | `read_note(\"{permalink}\")` |\n\nProject: {project}"
    )
}

pub fn edited(
    w: &NoteWritten,
    project: &str,
    operation: &str,
    summary: &str,
    created: bool,
) -> String {
    let mut out = if created {
        format!(
            "# Created note ({operation})\nproject: {project}\nfile_path: {}\npermalink: {}\nchecksum: {}\nfileCreated: true\noperation: {summary}\n",
            w.file_path,
            w.permalink.as_deref().unwrap_or(""),
            w.checksum
        )
    } else {
        format!(
            "# Edited note ({operation})\nproject: {project}\nfile_path: {}\npermalink: {}\nchecksum: {}\noperation: {summary}\n",
            w.file_path,
            w.permalink.as_deref().unwrap_or(""),
            w.checksum
        )
    };
    out.push_str(&graph_summary(w, false, false));
    format!("{}{}", out.trim_end(), session_footer(project))
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
        "\n# Note Not Found in {project}: \"{identifier}\"\n\nI couldn't find any notes matching \"{identifier}\". Here are some suggestions:\n\n## Check Identifier Type\n- If you provided a title, try using the exact permalink instead\n- If you provided a permalink, check for typos or try a broader search\n\n## Search Instead\nTry searching for related content:\n```\nsearch_notes(project=\"{project}\", query=\"{identifier}\")\n```\n\n## Recent Activity\nCheck recently modified notes:\n```\nrecent_activity(timeframe=\"7d\")\n```\n\n## Create New Note\nThis might be a good opportunity to create a new note on this topic:\n```\nwrite_note(\n    project=\"{project}\",\n    title=\"{}\",\n    content='''\n    # {}\n\n    ## Overview\n    [Your content here]\n\n    ## Observations\n    - [category] [Observation about {identifier}]\n\n    ## Relations\n    - relates_to [[Related Topic]]\n    ''',\n    folder=\"notes\"\n)\n```\n",
        capitalize(identifier),
        capitalize(identifier)
    )
}

pub fn read_related(
    identifier: &str,
    project: &str,
    related: &[(String, Option<String>)],
) -> String {
    let mut out = format!(
        "\n# Note Not Found in {project}: \"{identifier}\"\n\nI couldn't find an exact match for \"{identifier}\", but I found some related notes:\n\n"
    );
    for (i, (title, permalink)) in related.iter().enumerate() {
        let p = permalink.as_deref().unwrap_or("");
        out.push_str(&format!(
            "## {}. {title}\n- **Type**: entity\n- **Permalink**: {p}\n\nYou can read this note with:\n```\nread_note(project=\"{project}\", identifier=\"{p}\")\n```\n\n",
            i + 1
        ));
    }
    out.push_str(&format!(
        "## Try More Specific Lookup\nFor exact matches, try using the full permalink from one of the results above.\n\n## Search For More Results\nTo see more related content:\n```\nsearch_notes(project=\"{project}\", query=\"{identifier}\")\n```\n\n## Create New Note\nIf none of these match what you're looking for, consider creating a new note:\n```\nwrite_note(project=\"{project}\", title=\"[Your title]\", content=\"[Your content]\", folder=\"notes\")\n```\n"
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
