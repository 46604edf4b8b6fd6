//! The memory API's error codes: each refusal a client of the specification can meet answers
//! with the specification's code.

use serde_json::json;

use super::error_code;
use crate::Harness;

#[test]
fn errors_carry_the_specifications_codes() {
    let h = Harness::new().serving_tools("basic,gitmem");
    let saved = h.value(
        "memory_save",
        json!({"content": "Once", "created_at": "2026-01-01T00:00:00Z"}),
    );
    let cases = [
        ("memory_get", json!({"id": "missing"}), "E_NOT_FOUND"),
        (
            "memory_update",
            json!({"id": "missing", "patch": {"title": "x"}}),
            "E_NOT_FOUND",
        ),
        ("memory_delete", json!({"id": "missing"}), "E_NOT_FOUND"),
        (
            "memory_lookup_basic_id",
            json!({"basic_id": "main/none"}),
            "E_NOT_FOUND",
        ),
        (
            "memory_save",
            json!({"content": "Once", "created_at": "2026-01-01T00:00:00Z"}),
            "E_CONFLICT",
        ),
        (
            "memory_save",
            json!({"id": saved["id"], "content": "Other"}),
            "E_CONFLICT",
        ),
        ("memory_save", json!({}), "E_VALIDATION"),
        (
            "memory_save",
            json!({"content": "x", "score": 3}),
            "E_VALIDATION",
        ),
        (
            "memory_update",
            json!({"id": saved["id"], "patch": {"ttl": "soon"}}),
            "E_VALIDATION",
        ),
        ("memory_search", json!({"limit": 500}), "E_VALIDATION"),
        ("memory_search", json!({"sort": "loudest"}), "E_VALIDATION"),
        (
            "memory_get",
            json!({"id": "x", "project": "nowhere"}),
            "E_NOT_FOUND",
        ),
    ];
    for (tool, args, code) in cases {
        assert_eq!(error_code(&h, tool, args.clone()), code, "{tool} {args}");
    }
}
