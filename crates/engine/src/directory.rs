//! list_directory: folders and files of a project as the index knows them (compat 2.11).

use crate::NoteRow;
use std::collections::BTreeSet;

use super::error::{PageError, QueryError};
use super::read::Page;
use super::scope::ProjectChoice;
use super::Result;
use crate::Store;
use index::NoteRecord;
use vault::path::RelPath;

/// The largest page list_directory returns.
const MAX_PAGE_SIZE: usize = 200;

/// One entry of a listing: a folder, or a file with the note the index has for it.
#[derive(Debug, Clone, PartialEq)]
pub struct DirectoryNode {
    pub name: String,
    /// The entry's project path, with a leading `/`.
    pub directory_path: String,
    /// A file's note; a folder has none.
    pub note: Option<NoteRow>,
}

impl DirectoryNode {
    /// What title sorts go by: a file's title, a folder's name.
    fn title(&self) -> &str {
        self.note.as_ref().map_or(&self.name, |note| &note.title)
    }

    fn updated_ms(&self) -> Option<i64> {
        self.note.as_ref().map(|note| note.updated_ms)
    }
}

/// One page of a listing; which page, and how large, the request says.
#[derive(Debug, Clone)]
pub struct DirectoryListing {
    pub nodes: Vec<DirectoryNode>,
    pub total: usize,
    pub has_more: bool,
    pub dir_name: String,
    /// How many folders and files matched, over every page.
    pub directories: usize,
    pub files: usize,
}

#[derive(Debug, Clone)]
pub struct DirectoryRequest {
    pub dir_name: String,
    pub depth: usize,
    pub glob: Option<String>,
    pub sort: Option<String>,
    pub page: usize,
    pub page_size: usize,
}

/// `./a/b/` -> `/a/b`; `""` -> `/`.
pub(crate) fn normalize_dir_name(dir: &str) -> String {
    let trimmed = dir.trim();
    let trimmed = trimmed.strip_prefix("./").unwrap_or(trimmed);
    let inner = trimmed.trim_matches('/');
    format!("/{inner}")
}

/// Shell-style match of a node name (`*`, `?`, `[abc]`).
fn name_matches(glob: &str, name: &str) -> bool {
    globset::GlobBuilder::new(glob)
        .literal_separator(false)
        .build()
        .map(|g| g.compile_matcher().is_match(name))
        .unwrap_or(false)
}

fn file_node(note: NoteRecord) -> DirectoryNode {
    DirectoryNode {
        name: note
            .path
            .rsplit('/')
            .next()
            .unwrap_or(&note.path)
            .to_string(),
        directory_path: format!("/{}", note.path),
        note: Some(note.into()),
    }
}

fn dir_node(path: &str) -> DirectoryNode {
    DirectoryNode {
        name: path.rsplit('/').next().unwrap_or(path).to_string(),
        directory_path: format!("/{path}"),
        note: None,
    }
}

pub(crate) fn list_directory(
    store: &Store,
    choice: &ProjectChoice,
    request: &DirectoryRequest,
) -> Result<DirectoryListing> {
    let project = &crate::scope::select_project(store, choice)?;
    if request.page < 1 {
        return Err(PageError::PageBelowOne(request.page as i64).into());
    }
    if !(1..=MAX_PAGE_SIZE).contains(&request.page_size) {
        return Err(PageError::SizeOutOfRange {
            max: MAX_PAGE_SIZE,
            size: request.page_size,
        }
        .into());
    }
    let dir_name = normalize_dir_name(&request.dir_name);
    let base = RelPath::parse(dir_name.trim_start_matches('/'))
        .map_err(|_| super::OutsideProject::new(super::PathArg::Directory, &request.dir_name))?;
    let base = base.as_str();
    let depth = request.depth.max(1);
    let mut directories: BTreeSet<String> = BTreeSet::new();
    let mut files = Vec::new();
    for note in crate::notes::notes_under(&store.index, project, base)? {
        let relative = if base.is_empty() {
            note.path.clone()
        } else {
            note.path[base.len() + 1..].to_string()
        };
        let parts: Vec<&str> = relative.split('/').collect();
        // Every folder between the listed one and the file, within the depth.
        for level in 1..parts.len() {
            if level <= depth {
                let folder = parts[..level].join("/");
                directories.insert(if base.is_empty() {
                    folder
                } else {
                    format!("{base}/{folder}")
                });
            }
        }
        if parts.len() <= depth {
            files.push(note);
        }
    }
    let glob = request.glob.as_deref().filter(|g| !g.is_empty());
    let mut dir_nodes: Vec<DirectoryNode> = directories
        .iter()
        .map(|d| dir_node(d))
        .filter(|n| glob.is_none_or(|g| name_matches(g, &n.name)))
        .collect();
    let mut file_nodes: Vec<DirectoryNode> = files
        .into_iter()
        .map(file_node)
        .filter(|n| glob.is_none_or(|g| name_matches(g, &n.name)))
        .collect();
    let folded = |s: &str| s.to_lowercase();
    dir_nodes.sort_by_key(|n| folded(&n.directory_path));
    match request.sort.as_deref() {
        None | Some("") => file_nodes.sort_by_key(|n| folded(&n.directory_path)),
        Some("title_asc") => file_nodes.sort_by_key(|n| folded(n.title())),
        Some("title_desc") => {
            file_nodes.sort_by_key(|n| folded(n.title()));
            file_nodes.reverse();
            dir_nodes.reverse();
        }
        Some("updated_asc") => file_nodes.sort_by_key(DirectoryNode::updated_ms),
        Some("updated_desc") => file_nodes.sort_by_key(|n| std::cmp::Reverse(n.updated_ms())),
        Some(other) => return Err(QueryError::InvalidSort(other.to_string()).into()),
    }
    let (n_dirs, n_files) = (dir_nodes.len(), file_nodes.len());
    let all: Vec<DirectoryNode> = dir_nodes.into_iter().chain(file_nodes).collect();
    let total = all.len();
    let page = Page {
        page: request.page,
        page_size: request.page_size,
    };
    let (nodes, has_more) = page.of(all);
    Ok(DirectoryListing {
        has_more,
        nodes,
        total,
        dir_name,
        directories: n_dirs,
        files: n_files,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dir_names_and_globs() {
        for (raw, expected) in [
            ("/", "/"),
            ("", "/"),
            ("./specs/", "/specs"),
            ("specs", "/specs"),
            ("/a/b/", "/a/b"),
        ] {
            assert_eq!(normalize_dir_name(raw), expected, "{raw}");
        }
        assert!(name_matches("*.md", "Note.md"));
        assert!(!name_matches("*.md", "image.png"));
        assert!(name_matches("Se?rch*", "Search Design.md"));
    }
}
