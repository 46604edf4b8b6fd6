//! Icons for clients that show them: the server's, and one per family of tools (notes, search,
//! projects, linked folders), as SVG data URIs.

use base64::Engine;
use serde_json::{json, Value};

const NOTEBOOK: &str = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'><rect x='6' y='4' width='20' height='24' rx='3' fill='#2d6a4f'/><path d='M11 11h10M11 16h10M11 21h6' stroke='#fff' stroke-width='2' stroke-linecap='round'/></svg>";
const SEARCH: &str = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'><circle cx='14' cy='14' r='8' fill='none' stroke='#2d6a4f' stroke-width='3'/><path d='M20 20l7 7' stroke='#2d6a4f' stroke-width='3' stroke-linecap='round'/></svg>";
const FOLDER: &str = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'><path d='M4 9a2 2 0 0 1 2-2h7l3 3h10a2 2 0 0 1 2 2v12a2 2 0 0 1-2 2H6a2 2 0 0 1-2-2z' fill='#2d6a4f'/></svg>";
const LINK: &str = "<svg xmlns='http://www.w3.org/2000/svg' viewBox='0 0 32 32'><path d='M13 19l6-6M11 15l-3 3a4 4 0 0 0 6 6l3-3M21 17l3-3a4 4 0 0 0-6-6l-3 3' fill='none' stroke='#2d6a4f' stroke-width='3' stroke-linecap='round'/></svg>";

/// An MCP icon list holding one SVG.
fn icons(svg: &str) -> Value {
    let data = base64::engine::general_purpose::STANDARD.encode(svg);
    json!([{
        "src": format!("data:image/svg+xml;base64,{data}"),
        "mimeType": "image/svg+xml",
        "sizes": ["any"],
    }])
}

/// The server's icon.
pub fn server() -> Value {
    icons(NOTEBOOK)
}

/// The icon of a family of tools.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Icon {
    Notebook,
    Search,
    Folder,
    Link,
}

impl Icon {
    /// The MCP icon list of a tool with this icon.
    pub fn list(self) -> Value {
        icons(match self {
            Icon::Notebook => NOTEBOOK,
            Icon::Search => SEARCH,
            Icon::Folder => FOLDER,
            Icon::Link => LINK,
        })
    }
}
