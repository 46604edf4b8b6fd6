//! Project tools, sync_status, diagnostics, and `gitmem project`.

use serde_json::{json, Value};

use super::{Format, Output, Rendered};
use engine::config::Project;
use engine::progress::ProjectSync;
use engine::projects::Prepared;
use engine::projects::{
    ProjectAdded, ProjectCreated, ProjectListing, ProjectRefusal, ProjectStatistics,
};
use engine::status::{Diagnostics, SyncStatus};
use engine::Outcome;

pub fn list_projects(listing: &ProjectListing, format: Format) -> Rendered {
    if let (Some(constrained), Format::Text) = (&listing.constrained, format) {
        return Rendered::Text(format!(
            "Project: {constrained}\n\nNote: This MCP server is constrained to a single project.\nAll operations will automatically use this project."
        ));
    }
    Rendered::either(
        format,
        || {
            let mut out = String::from("Available projects:\n");
            for p in &listing.projects {
                out.push_str(&format!("- {} (local) [{}]\n", p.name, p.external_id()));
            }
            out.push_str(&format!(
                "\n{}\nNext: Ask which project to use for this session.\nExample: 'Which project should I use for this task?'\n\nSession reminder: Track the selected project for all subsequent operations in this conversation.\nThe user can say 'switch to [project]' to change projects.",
                "─".repeat(40)
            ));
            out
        },
        || {
            json!({
                "projects": listing.projects.iter().map(|p| json!({
                    "name": p.name, "external_id": p.external_id(), "path": p.path, "local_path": p.path,
                    "cloud_path": null, "source": "local", "is_default": p.is_default, "is_private": false,
                    "display_name": null, "workspace_name": null, "workspace_type": null, "workspace_tenant_id": null,
                    "workspace_slug": null, "workspace_is_default": false, "sync_supported": true, "sync_reason": null,
                    "local_usage": "sync-supported", "qualified_name": null,
                })).collect::<Vec<_>>(),
                "default_project": listing.default,
                "constrained_project": listing.constrained,
            })
        },
    )
}

pub fn create_project(
    name: &str,
    outcome: &Outcome<ProjectCreated, ProjectRefusal>,
    format: Format,
) -> Rendered {
    let created = match outcome {
        Outcome::Done(created) => created,
        Outcome::Refused(ProjectRefusal::Constrained { project }) => {
            return Rendered::either(
                format,
                || {
                    format!("# Error\n\nProject creation disabled - MCP server is constrained to project '{project}'.\nUse the CLI to create projects: `gitmem project add \"name\" \"path\"`")
                },
                || json!({"name": name, "created": false, "error": "PROJECT_CONSTRAINED"}),
            )
        }
    };
    let p = &created.project;
    let r = &created.indexing;
    Rendered::either(
        format,
        || {
            if created.created {
                format!(
                    "✓ Project '{}' added successfully\n\nProject Details:\n• Name: {}\n• External ID: {}\n• Path: {}\n{}\nIndexing:\n• State: completed\n• Files discovered: {}\n• Files enqueued: {}\n• Batches enqueued: 1\n• Orphans deleted: {}\n\nProject is now available for use in tool calls; indexing completed.\nUse '{}' as the project parameter in MCP tool calls.",
                    p.name, p.name, p.external_id(), p.path.display(),
                    if p.is_default { "• Set as default project\n" } else { "" },
                    r.scanned, r.created + r.modified, r.deleted, p.name
                )
            } else {
                format!(
                    "✓ Project already exists: {}\n\nProject Details:\n• Name: {}\n• External ID: {}\n• Path: {}\n\nThe project was re-indexed ({} files).",
                    p.name, p.name, p.external_id(), p.path.display(), r.scanned
                )
            }
        },
        || {
            json!({
                "name": p.name, "external_id": p.external_id(), "path": p.path, "is_default": p.is_default,
                "created": created.created, "already_exists": !created.created,
                "indexing": {"total_files": r.scanned, "enqueued_files": r.created + r.modified, "enqueued_batches": 1, "deleted_files": r.deleted, "state": "completed"},
            })
        },
    )
}

pub fn delete_project(outcome: &Outcome<Project, ProjectRefusal>, delete_notes: bool) -> Rendered {
    Rendered::Text(match outcome {
        Outcome::Done(p) => {
            let files_line = if delete_notes {
                "The project directory and its note files were deleted."
            } else {
                "Note files remain on disk but the project is no longer tracked by gitmem.\nRe-add the project to access its content again."
            };
            format!(
                "✓ Project '{}' removed successfully\n\nRemoved project details:\n• Name: {}\n• Path: {}\n{files_line}",
                p.name,
                p.name,
                p.path.display()
            )
        }
        Outcome::Refused(ProjectRefusal::Constrained { project }) => format!(
            "# Error\n\nProject deletion disabled - MCP server is constrained to project '{project}'.\nUse the CLI to delete projects: `gitmem project remove \"name\"`"
        ),
    })
}

/// The statistics of a project's info resource.
pub fn statistics(stats: &ProjectStatistics) -> Value {
    json!({
        "total_entities": stats.total_entities,
        "total_observations": stats.total_observations,
        "total_relations": stats.total_relations,
        "total_unresolved_relations": stats.total_unresolved_relations,
        "note_types": stats.note_types,
        "observation_categories": stats.observation_categories,
        "relation_types": stats.relation_types,
        "most_connected_entities": stats.most_connected_entities.iter().map(|e| json!({
            "title": e.title, "permalink": e.permalink, "relation_count": e.relation_count,
        })).collect::<Vec<_>>(),
        "isolated_entities": stats.isolated_entities,
    })
}

pub fn sync_status(status: &SyncStatus) -> Rendered {
    let states = &status.projects;
    let mut out = String::from("# Basic Memory Sync Status\n\n");
    if status.ready() {
        out.push_str("**Current Status**: All projects are indexed and watched\n**System Ready**: ✅ Yes\n\n");
        out.push_str("✅ **All sync operations completed**\n\n- File indexing: Complete\n- Knowledge graph: Ready\n- Search index: Ready\n\nYour knowledge base is ready for use!\n\n");
    } else {
        out.push_str("**Current Status**: Indexing in progress\n**System Ready**: 🔄 Processing\n\n🔄 **File synchronization in progress**\n\n**Currently Processing:**\n");
        for (name, state) in states {
            if let ProjectSync::Running { done, total } = state {
                let pct = if *total == 0 { 0 } else { done * 100 / total };
                out.push_str(&format!(
                    "- **{name}**: indexing ({done}/{total}, {pct}%)\n"
                ));
            }
        }
        out.push('\n');
    }
    let failed: Vec<(&String, &String)> = states
        .iter()
        .filter_map(|(name, s)| match s {
            ProjectSync::Failed(e) => Some((name, e)),
            _ => None,
        })
        .collect();
    if !failed.is_empty() {
        out.push_str("❌ **Some projects failed to sync:**\n");
        for (name, e) in &failed {
            out.push_str(&format!("- **{name}**: {e}\n"));
        }
        out.push('\n');
    }
    out.push_str("**All Projects Status:**\n");
    for (name, state) in states {
        let line = match state {
            ProjectSync::Done => format!("- 👁️ **{name}**: Watching for changes"),
            ProjectSync::Running { done, total } => {
                format!("- 🔄 **{name}**: Sync in progress ({done}/{total})")
            }
            ProjectSync::Failed(e) => format!("- ❌ **{name}**: Sync error: {e}"),
            ProjectSync::Pending => format!("- ⏳ **{name}**: Pending sync"),
        };
        out.push_str(&line);
        out.push('\n');
    }
    if let Some(health) = &status.health {
        if health.is_clean() {
            out.push_str("\n**Index health**: ✅ files, graph and search agree\n");
        } else {
            out.push_str("\n**Index health**: ⚠️ the index has drifted from the files\n");
            for p in health.projects.iter().filter(|p| !p.is_clean()) {
                out.push_str(&format!(
                    "- **{}**: {} not indexed, {} changed, {} without a file, {} missing from search, {} with lost text, {} waiting\n",
                    p.project,
                    p.not_indexed.len(),
                    p.changed.len(),
                    p.stale.len(),
                    p.not_searchable.len(),
                    p.text_lost.len(),
                    p.pending_search
                ));
            }
            out.push_str("Run `gitmem repair` to fix it (user files are only read).\n");
        }
    }
    out.push_str(&format!(
        "\n**Semantic search**: {}\n",
        super::models::semantic_line(&status.semantic)
    ));
    if let Some(line) = super::models::reranker_line(&status.reranker) {
        out.push_str(&format!("\n**Reranking**: {line}\n"));
    }
    if !status.conflicts.is_empty() {
        out.push_str("\n**Sync conflicts**: ⚠️ both devices changed the same lines; the local note was kept (tagged `conflict`) and the remote's text written beside it. Merge them by hand, then delete the copy and the tag:\n");
        for (project, conflict) in &status.conflicts {
            out.push_str(&format!(
                "- **{project}**: {} (remote version: {})\n",
                conflict.path, conflict.copy
            ));
        }
    }
    if !status.held.is_empty() {
        out.push_str("\n**Push held**: ⚠️ commits not on the remote yet carry secret-shaped text, so they are not pushed. The user decides: edit it out of the file (the next push then sends the unpushed commits as one, without it), or run `gitmem sync push --allow-secrets PATH`:\n");
        for (project, held) in &status.held {
            out.push_str(&format!("- **{project}**: {held}\n"));
        }
    }
    if let Some((name, path)) = &status.active {
        out.push_str(&format!(
            "\n**Active Project**: {name}\n**Project Path**: {path}\n"
        ));
    }
    Rendered::Text(out.trim_end().to_string())
}

pub fn diagnostics(d: &Diagnostics) -> Rendered {
    let mut out = format!(
        "# Basic Memory Diagnostics\n\n## Version\n- gitmem: {}\n- API: MCP (rmcp)\n\n## System\n- Platform: {} {}\n- Architecture: {}\n\n## Configuration\n- Data root: {}\n- Config path: {}\n- Config exists: {}\n",
        env!("CARGO_PKG_VERSION"),
        std::env::consts::OS,
        std::env::consts::FAMILY,
        std::env::consts::ARCH,
        d.root,
        d.config_path,
        if d.config_exists { "True" } else { "False" },
    );
    if !d.config_text.is_empty() {
        out.push_str(&format!("\n```toml\n{}\n```\n", d.config_text.trim_end()));
    }
    out.push_str("\n## Index\n");
    match &d.status {
        Ok(s) => {
            out.push_str(&format!(
                "- Index size: {:.1} MB\n",
                s.index_bytes as f64 / 1e6
            ));
            for p in &s.projects {
                out.push_str(&format!(
                    "- {}: {} notes, {} other files, {} observations, {} relations ({} unresolved), {} warnings, last scan {}\n",
                    p.project, p.notes, p.files, p.observations, p.relations, p.unresolved_relations,
                    p.warnings.len(), p.last_scan.as_deref().unwrap_or("never")
                ));
            }
        }
        Err(e) => out.push_str(&format!("- unavailable: {e}\n")),
    }
    Rendered::Text(out.trim_end().to_string())
}

/// `gitmem project add`, and how the project is versioned when that was asked.
pub fn added(added: &ProjectAdded) -> Output {
    let p = &added.project;
    let mut output = Output::line(&format!(
        "added project '{}' at {}{}",
        p.name,
        p.path.display(),
        if p.is_default { " (default)" } else { "" }
    ));
    if let Some((project, prepared)) = &added.versioned {
        output.append(versioned(project, *prepared));
    }
    output
}

/// A project now versioned in git (`git init`, `project add --git`).
pub fn versioned(p: &Project, prepared: Prepared) -> Output {
    let how = match prepared {
        Prepared::Existing => "uses the git work tree already there",
        Prepared::Initialised => "is now a git repository",
        Prepared::Cloned => "holds a clone of its remote",
    };
    Output::line(&format!(
        "project '{}' {how}; gitmem commits every change it makes ({})",
        p.name,
        p.path.display()
    ))
}

/// `gitmem project list`.
pub fn projects(projects: &[Project], format: Format) -> Output {
    Output::either(
        format,
        || {
            projects
                .iter()
                .map(|p| {
                    format!(
                        "{}{}\t{}\n",
                        p.name,
                        if p.is_default { " (default)" } else { "" },
                        p.path.display()
                    )
                })
                .collect()
        },
        || json!(projects),
    )
}

/// `gitmem project remove`.
pub fn removed(p: &Project, deleted_notes: bool) -> Output {
    Output::line(&if deleted_notes {
        format!(
            "removed project '{}' and deleted {}",
            p.name,
            p.path.display()
        )
    } else {
        format!(
            "removed project '{}' (its files stay in {})",
            p.name,
            p.path.display()
        )
    })
}

/// `gitmem project default`.
pub fn default_set(p: &Project) -> Output {
    Output::line(&format!("default project is now '{}'", p.name))
}

/// list_workspaces: the one local workspace, in the shape of Basic Memory's workspace list.
pub fn workspaces(format: Format) -> Rendered {
    Rendered::either(
        format,
        || {
            "# Available Workspaces (1)\n\n- Personal (slug=personal, type=personal, role=owner, default, tenant_id=personal)".to_string()
        },
        || {
            json!({
                "workspaces": [{
                    "tenant_id": "personal", "workspace_type": "personal", "slug": "personal",
                    "name": "Personal", "role": "owner", "is_default": true,
                    "organization_id": null, "has_active_subscription": true,
                }],
                "count": 1, "default_workspace_id": "personal", "current_workspace_id": null,
            })
        },
    )
}
