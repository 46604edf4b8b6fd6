//! The pages of the OAuth approval step: the form the owner approves a client with, and the
//! page shown when a request cannot even be sent back to its client.

use crate::service::oauth::AuthorizationRequest;

const APPROVAL: &str = include_str!("../../templates/oauth_approve.html");

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
