//! `docs/tools.md` is made from the tool specs (`mcp::tools::reference`): regenerated, it must
//! be the page as committed, so the reference never says what the server does not serve.

use crate::common::workspace_root;

#[test]
fn the_tool_reference_is_made_from_the_specs() {
    let path = workspace_root().join("docs/tools.md");
    let generated = mcp::tools::reference();
    if std::env::var_os("GITMEM_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let written = std::fs::read_to_string(&path).unwrap_or_default();
    let first_difference = written
        .lines()
        .zip(generated.lines())
        .position(|(a, b)| a != b)
        .map(|line| format!("first difference at line {}", line + 1))
        .unwrap_or_else(|| "one is a prefix of the other".to_string());
    assert!(
        written == generated,
        "docs/tools.md differs from the tool specs ({first_difference}); rewrite it with \
         `GITMEM_BLESS=1 cargo test --release --test tools reference`"
    );
}

#[test]
fn the_reference_names_every_tool_with_its_parameters() {
    let page = mcp::tools::reference();
    for spec in mcp::tools::specs() {
        assert!(
            page.contains(&format!("\n### `{}`\n", spec.name)),
            "{}",
            spec.name
        );
    }
    assert!(
        page.contains("| `identifier` | string | yes |"),
        "edit_note's identifier"
    );
}
