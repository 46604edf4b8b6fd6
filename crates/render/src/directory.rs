//! list_directory text (compat 2.11).

use serde_json::{json, Value};

use super::{iso_from_ms, Format, Rendered};
use engine::directory::{DirectoryListing, DirectoryNode, DirectoryRequest};
use engine::NoteRow;
use engine::OutsideProject;

pub fn text(listing: &DirectoryListing, request: &DirectoryRequest) -> String {
    let dir = &listing.dir_name;
    let glob = request.glob.as_deref().filter(|g| !g.is_empty());
    if listing.total == 0 {
        return match glob {
            Some(g) => format!("No files found in directory '{dir}' matching '{g}'"),
            None => format!("No files found in directory '{dir}'"),
        };
    }
    let mut out = match glob {
        Some(g) => format!(
            "Files in '{dir}' matching '{g}' (depth {}):\n",
            request.depth
        ),
        None => format!("Contents of '{dir}' (depth {}):\n", request.depth),
    };
    out.push_str(&format!(
        "Page {} (page size {}, {} total items)\n\n",
        request.page, request.page_size, listing.total
    ));
    let dirs: Vec<&DirectoryNode> = listing.nodes.iter().filter(|n| n.note.is_none()).collect();
    let files: Vec<(&DirectoryNode, &NoteRow)> = listing
        .nodes
        .iter()
        .filter_map(|n| Some((n, n.note.as_ref()?)))
        .collect();
    for d in &dirs {
        out.push_str(&format!("📁 {:<30} {}\n", d.name, d.directory_path));
    }
    if !dirs.is_empty() && !files.is_empty() {
        out.push('\n');
    }
    for (f, note) in &files {
        let mut line = format!("📄 {:<30} {}", f.name, note.path);
        if note.title != f.name {
            line.push_str(&format!(" | {}", note.title));
        }
        let updated = iso_from_ms(note.updated_ms);
        line.push_str(&format!(" | {}", &updated[..10.min(updated.len())]));
        line.push_str(&format!(" | id: {}", note.id));
        out.push_str(&line);
        out.push('\n');
    }
    let plural =
        |n: usize, one: &str, many: &str| format!("{n} {}", if n == 1 { one } else { many });
    out.push_str(&format!(
        "\nTotal: {} ({}, {})",
        plural(listing.total, "item", "items"),
        plural(listing.directories, "directory", "directories"),
        plural(listing.files, "file", "files")
    ));
    if listing.has_more {
        let glob_arg = glob
            .map(|g| format!(", file_name_glob='{g}'"))
            .unwrap_or_default();
        out.push_str(&format!(
            "\n\nMore results available. Call list_directory(dir_name='{dir}', depth={}, page={}, page_size={}{glob_arg}) to continue.",
            request.depth,
            request.page + 1,
            request.page_size
        ));
    }
    out
}

pub fn node_json(node: &DirectoryNode) -> Value {
    let note = node.note.as_ref();
    json!({
        "name": node.name,
        "file_path": note.map(|n| &n.path),
        "directory_path": node.directory_path,
        "type": if note.is_some() { "file" } else { "directory" },
        // Basic Memory's shape; a listing here is flat, whatever its depth.
        "children": [],
        "title": note.map(|n| &n.title),
        "permalink": note.and_then(|n| n.permalink.as_ref()),
        "external_id": note.map(|n| &n.id),
        "entity_id": note.map(|n| &n.id),
        "note_type": note.map(|n| &n.note_type),
        "content_type": note.map(|n| &n.content_type),
        "updated_at": note.map(|n| iso_from_ms(n.updated_ms)),
    })
}

/// list_directory's answer.
pub fn answer(listing: &DirectoryListing, request: &DirectoryRequest, format: Format) -> Rendered {
    Rendered::either(
        format,
        || text(listing, request),
        || {
            json!({
                "nodes": listing.nodes.iter().map(node_json).collect::<Vec<_>>(),
                "page": request.page,
                "page_size": request.page_size,
                "total": listing.total,
                "has_more": listing.has_more,
            })
        },
    )
}

/// A folder outside the project: guidance, in either format.
pub fn refused(refusal: &OutsideProject) -> Rendered {
    Rendered::Text(format!("# Error\n\n{refusal}"))
}
