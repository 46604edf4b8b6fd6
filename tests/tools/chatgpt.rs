//! The ChatGPT connector shims `search` and `fetch`.

use mcp::tools::ToolReply;
use serde_json::{json, Value};

use crate::{Harness, ReplyExt};

/// The inner JSON payload of a ChatGPT `search` / `fetch` reply (compat 2.17).
fn chatgpt_inner(reply: &ToolReply) -> Value {
    assert!(!reply.is_error(), "{}", reply.text());
    let outer = reply.json();
    let items = outer
        .as_array()
        .unwrap_or_else(|| panic!("not a list: {outer}"));
    assert_eq!(items.len(), 1, "{outer}");
    assert_eq!(items[0]["type"], "text", "{outer}");
    serde_json::from_str(items[0]["text"].as_str().unwrap())
        .unwrap_or_else(|e| panic!("inner text is not JSON ({e}): {outer}"))
}

#[test]
fn chatgpt_search_and_fetch_use_the_connector_format() {
    let h = Harness::new();
    h.write(
        "Connector Note",
        "c",
        "# Connector Note\n\nchatgptword body",
    );
    let search = h.call("search", json!({"query": "chatgptword"}));
    assert!(
        search.text().starts_with("[{\"type\":\"text\",\"text\":"),
        "{}",
        search.text()
    );
    let inner = chatgpt_inner(&search);
    assert_eq!(inner["total_count"], 1, "{inner}");
    assert_eq!(inner["query"], "chatgptword");
    let hit = &inner["results"][0];
    assert_eq!(hit["title"], "Connector Note");
    assert_eq!(hit["id"], "main/c/connector-note");
    assert_eq!(hit["url"], "main/c/connector-note");

    let fetched = chatgpt_inner(&h.call("fetch", json!({"id": hit["id"]})));
    assert_eq!(fetched["id"], "main/c/connector-note");
    assert_eq!(fetched["url"], "main/c/connector-note");
    assert_eq!(fetched["metadata"]["format"], "markdown", "{fetched}");
    assert!(
        fetched["text"]
            .as_str()
            .unwrap()
            .contains("chatgptword body"),
        "{fetched}"
    );
    // The file starts with front matter, so the title comes from the id.
    assert_eq!(fetched["title"], "Connector Note");

    let missing = chatgpt_inner(&h.call("fetch", json!({"id": "main/c/nothing-here"})));
    assert_eq!(
        missing["metadata"]["error"], "Document not found",
        "{missing}"
    );
    let none = chatgpt_inner(&h.call("search", json!({"query": "nothingmatchesthis"})));
    assert_eq!(none["total_count"], 0);
    assert_eq!(none["results"], json!([]));
}
