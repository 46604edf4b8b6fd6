//! list_directory text (compat 2.11).

use serde_json::{json, Value};

use super::{iso_from_ms, Format, Rendered};
use crate::service::directory::{DirectoryListing, DirectoryNode, DirectoryRequest, NodeKind};
use crate::service::OutsideProject;

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
        listing.page, listing.page_size, listing.total
    ));
    let of_kind = |kind: NodeKind| -> Vec<&DirectoryNode> {
        listing.nodes.iter().filter(|n| n.kind == kind).collect()
    };
    let (dirs, files) = (of_kind(NodeKind::Directory), of_kind(NodeKind::File));
    for d in &dirs {
        out.push_str(&format!("📁 {:<30} {}\n", d.name, d.directory_path));
    }
    if !dirs.is_empty() && !files.is_empty() {
        out.push('\n');
    }
    for f in &files {
        let mut line = format!("📄 {:<30} {}", f.name, f.file_path.as_deref().unwrap_or(""));
        if let Some(title) = f.title.as_deref().filter(|t| *t != f.name) {
            line.push_str(&format!(" | {title}"));
        }
        if let Some(updated) = f.updated_ms.map(iso_from_ms) {
            line.push_str(&format!(" | {}", &updated[..10.min(updated.len())]));
        }
        if let Some(id) = &f.external_id {
            line.push_str(&format!(" | id: {id}"));
        }
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
            listing.page + 1,
            listing.page_size
        ));
    }
    out
}

fn node_json(node: &DirectoryNode) -> Value {
    json!({
        "name": node.name,
        "file_path": node.file_path,
        "directory_path": node.directory_path,
        "type": match node.kind {
            NodeKind::Directory => "directory",
            NodeKind::File => "file",
        },
        "children": node.children.iter().map(node_json).collect::<Vec<_>>(),
        "title": node.title,
        "permalink": node.permalink,
        "external_id": node.external_id,
        "entity_id": node.entity_id,
        "note_type": node.note_type,
        "content_type": node.content_type,
        "updated_at": node.updated_ms.map(iso_from_ms),
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
                "page": listing.page,
                "page_size": listing.page_size,
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
