//! `docs/tools.md` is made from the tool specs (`mcp::tools::reference`): regenerated, it must
//! be the page as committed, so the reference never says what the server does not serve.

use crate::common::workspace_root;
use crate::snapshots::assert_file;

#[test]
fn the_tool_reference_is_made_from_the_specs() {
    assert_file(
        &workspace_root().join("docs/tools.md"),
        &mcp::tools::reference(),
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
