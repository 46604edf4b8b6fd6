//! `gitmem token create`: bearer tokens for the HTTP transport, limited to projects of the data
//! root. The token store itself is the `auth` crate's.

use std::path::Path;

use auth::{CreatedToken, TokenStore};

use crate::config::Config;
use crate::Result;

/// `gitmem token create`: a token for `projects` only, when any are named (each must be a
/// project of the data root at `root`; the token names them as the registry spells them).
pub fn create_token(
    root: &Path,
    name: &str,
    read_only: bool,
    projects: &[String],
) -> Result<CreatedToken> {
    let mut names = Vec::new();
    if !projects.is_empty() {
        let config = Config::load(root)?;
        for project in projects {
            names.push(config.project(project)?.name.clone());
        }
    }
    Ok(TokenStore::at(root).create(name, read_only, &names)?)
}
