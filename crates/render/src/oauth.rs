//! What the OAuth endpoints answer: the discovery documents (RFC 8414, RFC 9728), a client's
//! registration (RFC 7591), issued tokens, error bodies, and the pages of the approval step:
//! the form the owner approves a client with, and the page shown when a request cannot even be
//! sent back to its client.

use serde_json::{json, Value};

use auth::oauth::{AuthorizationRequest, Client, IssuedTokens, OAuthError, OAuthServer, SCOPES};

const APPROVAL: &str = include_str!("../../../templates/oauth_approve.html");

/// Escapes text for HTML content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            other => out.push(other),
        }
    }
    out
}

/// The approval form for `request`, posting back to `action`, with an optional message (a
/// wrong password, say).
pub fn approval_page(
    request: &AuthorizationRequest,
    action: &str,
    message: Option<&str>,
) -> String {
    let fields: String = request
        .params()
        .iter()
        .map(|(name, value)| {
            format!(
                "<input type=\"hidden\" name=\"{}\" value=\"{}\">\n",
                escape(name),
                escape(value)
            )
        })
        .collect();
    let access = if request.scope.split(' ').any(|s| s == "write") {
        "read and change"
    } else {
        "read"
    };
    APPROVAL
        .replace("{{client}}", &escape(&request.client_label))
        .replace("{{access}}", access)
        .replace("{{redirect}}", &escape(&request.redirect_uri))
        .replace(
            "{{message}}",
            &message
                .map(|m| format!("<p class=\"message\">{}</p>", escape(m)))
                .unwrap_or_default(),
        )
        .replace("{{action}}", &escape(action))
        .replace("{{fields}}", &fields)
}

/// A page that says why an authorization request was refused.
pub fn error_page(message: &str) -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>gitmem: request refused</title></head>\n<body style=\"font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto\">\n<h1>This sign-in request was refused</h1>\n<p>{}</p>\n</body></html>\n",
        escape(message)
    )
}

/// RFC 8414 metadata of the built-in authorization server.
pub fn authorization_server_metadata(oauth: &OAuthServer) -> Value {
    let issuer = &oauth.issuer;
    json!({
        "issuer": issuer,
        "authorization_endpoint": format!("{issuer}/oauth/authorize"),
        "token_endpoint": format!("{issuer}/oauth/token"),
        "registration_endpoint": format!("{issuer}/oauth/register"),
        "revocation_endpoint": format!("{issuer}/oauth/revoke"),
        "response_types_supported": ["code"],
        "response_modes_supported": ["query"],
        "grant_types_supported": ["authorization_code", "refresh_token"],
        "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
        "revocation_endpoint_auth_methods_supported": ["none", "client_secret_post", "client_secret_basic"],
        "scopes_supported": SCOPES,
        "client_id_metadata_document_supported": true,
        "authorization_response_iss_parameter_supported": true,
    })
}

/// RFC 9728 metadata of the MCP endpoint `resource`, whose tokens come from `issuer` (the
/// built-in authorization server or an external one).
pub fn protected_resource_metadata(resource: &str, issuer: &str) -> Value {
    json!({
        "resource": resource,
        "authorization_servers": [issuer],
        "bearer_methods_supported": ["header"],
        "scopes_supported": SCOPES,
        "resource_name": "gitmem",
    })
}

/// The answer to a registration: the client, and its secret once.
pub fn registration(client: &Client, secret: Option<&str>) -> Value {
    let mut answer = json!({
        "client_id": client.client_id,
        "client_id_issued_at": client.client_id_issued_at,
        "redirect_uris": client.redirect_uris,
        "token_endpoint_auth_method": client.token_endpoint_auth_method,
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    });
    if let Some(name) = &client.client_name {
        answer["client_name"] = json!(name);
    }
    if let Some(secret) = secret {
        answer["client_secret"] = json!(secret);
        answer["client_secret_expires_at"] = json!(0);
    }
    answer
}

/// The token endpoint's answer (RFC 6749 section 5.1).
pub fn tokens(issued: &IssuedTokens) -> Value {
    json!({
        "access_token": issued.access_token,
        "token_type": "Bearer",
        "expires_in": issued.expires_in,
        "refresh_token": issued.refresh_token,
        "scope": issued.scope,
    })
}

/// An error answer's body (RFC 6749 section 5.2).
pub fn error(error: &OAuthError) -> Value {
    json!({"error": error.code.as_str(), "error_description": error.description})
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_form_carries_the_request_escaped() {
        let request = AuthorizationRequest {
            client_id: "c1".into(),
            client_label: "<script>x</script>".into(),
            redirect_uri: "https://app.example/cb?a=1&b=\"2\"".into(),
            code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM".into(),
            state: Some("s".into()),
            scope: "read".into(),
            resource: "https://mem.example/mcp".into(),
        };
        let page = approval_page(&request, "/oauth/authorize", Some("Wrong <password>"));
        assert!(!page.contains("<script>x"), "{page}");
        assert!(page.contains("&lt;script&gt;x&lt;/script&gt;"));
        assert!(page.contains(
            "name=\"redirect_uri\" value=\"https://app.example/cb?a=1&amp;b=&quot;2&quot;\""
        ));
        assert!(page.contains("name=\"state\" value=\"s\""));
        assert!(page.contains("Wrong &lt;password&gt;"));
        assert!(page.contains("<strong>read</strong>"));
        assert!(!page.contains("{{"), "every placeholder is filled");
    }
}
