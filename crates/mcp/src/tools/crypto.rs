//! memory_encrypt and memory_decrypt (`memory.encrypt` / `memory.decrypt`): turning the age
//! encryption of a project's remote on or off. Admin-only: a read-only token, or one limited
//! to some projects, cannot call them.

use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::args::{self, ProjectArgs};
use super::common::{arguments, json_answer};
use super::{schema_of, tri, Hints, Icon, ToolCtx, ToolReply, ToolSpec};

pub const MEMORY_ENCRYPT: ToolSpec = ToolSpec {
    name: "memory_encrypt",
    title: "Encrypt Project Remote",
    description: "Turn on age X25519 encryption of what a versioned project's git remote holds: the remote then gets only ciphertext (no note text, titles, file names or commit messages), while files and search on this device stay plaintext. Pulls the remote first, then replaces its branch with the encrypted history. `recipients` (age1…) replace the configured ones; this device's identity must be one of them. Admin only.",
    hints: Hints::DESTRUCTIVE.idempotent(true),
    schema: schema_of::<EncryptArgs>,
    handler: memory_encrypt,
    dotted: Some("memory.encrypt"),
    icon: Icon::Notebook,
    output: None,
};

pub const MEMORY_DECRYPT: ToolSpec = ToolSpec {
    name: "memory_decrypt",
    title: "Decrypt Project Remote",
    description: "Turn off the encryption of a project's git remote: pulls and decrypts what it holds, then replaces its branch with the plaintext history. Admin only.",
    hints: Hints::DESTRUCTIVE.idempotent(true),
    schema: schema_of::<DecryptArgs>,
    handler: memory_decrypt,
    dotted: Some("memory.decrypt"),
    icon: Icon::Notebook,
    output: None,
};

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct EncryptArgs {
    /// age X25519 recipients (age1…) to encrypt for; default: the configured `age_recipients`
    #[serde(default, deserialize_with = "args::string_list")]
    recipients: Option<Vec<String>>,
    /// Project name (default: the default project)
    #[serde(default, deserialize_with = "args::string")]
    project: Option<String>,
    /// Project external id (wins over `project`)
    #[serde(default, deserialize_with = "args::string")]
    project_id: Option<String>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct DecryptArgs {
    /// Project name (default: the default project)
    #[serde(default, deserialize_with = "args::string")]
    project: Option<String>,
    /// Project external id (wins over `project`)
    #[serde(default, deserialize_with = "args::string")]
    project_id: Option<String>,
}

/// The refusal of a caller that is not an administrator.
fn refused(ctx: &ToolCtx, tool: &str) -> Option<ToolReply> {
    (!ctx.admin).then(|| {
        ToolReply::Error(format!(
            "Error calling tool '{tool}': only an administrator may turn encryption on or off; this connection's token is read-only or limited to some projects"
        ))
    })
}

fn memory_encrypt(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = MEMORY_ENCRYPT.name;
    if let Some(refusal) = refused(ctx, TOOL) {
        return refusal;
    }
    let a: EncryptArgs = tri!(arguments(TOOL, raw));
    let choice = ctx.choice(&ProjectArgs {
        project: a.project,
        project_id: a.project_id,
    });
    json_answer(
        TOOL,
        ctx.app.crypto_enable(&choice, a.recipients),
        render::crypto::change,
    )
}

fn memory_decrypt(ctx: &ToolCtx, raw: &Map<String, Value>) -> ToolReply {
    const TOOL: &str = MEMORY_DECRYPT.name;
    if let Some(refusal) = refused(ctx, TOOL) {
        return refusal;
    }
    let a: DecryptArgs = tri!(arguments(TOOL, raw));
    let choice = ctx.choice(&ProjectArgs {
        project: a.project,
        project_id: a.project_id,
    });
    json_answer(
        TOOL,
        ctx.app.crypto_disable(&choice),
        render::crypto::change,
    )
}
