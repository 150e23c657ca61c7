//! The README's table of tools is generated from the registry: this test fails when they
//! differ, and rewrites the README when run with `UPDATE_README=1`.
#![allow(clippy::unwrap_used, clippy::panic, missing_docs)]

use hermes_tools::{ToolsConfig, tool_table, tools};

const START: &str = "<!-- tool-table:start -->\n";
const END: &str = "<!-- tool-table:end -->";

#[test]
fn readme_table_matches_the_registry() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/README.md");
    let readme = std::fs::read_to_string(path).unwrap();
    let start = readme.find(START).unwrap() + START.len();
    let end = readme.find(END).unwrap();
    let table = tool_table(&tools(ToolsConfig::default()).unwrap());
    if readme[start..end] == table {
        return;
    }
    if std::env::var_os("UPDATE_README").is_some() {
        let updated = format!("{}{table}{}", &readme[..start], &readme[end..]);
        std::fs::write(path, updated).unwrap();
        return;
    }
    panic!(
        "the README's tool table is out of date; run `UPDATE_README=1 cargo test -p hermes-tools --test tool_table`\n\nexpected:\n{table}"
    );
}

#[test]
fn every_tool_names_its_family_scope_and_a_bounded_output() {
    for tool in tools(ToolsConfig::default()).unwrap() {
        let spec = tool.spec();
        assert!(
            hermes_tools::family_of(tool.as_ref()).is_some(),
            "{} has no family tag",
            spec.name()
        );
        assert!(
            spec.description().len() >= 40,
            "{}: describe it for a model",
            spec.name()
        );
        assert!(spec.max_result_bytes() <= 256 * 1024, "{}", spec.name());
        assert!(spec.parameters()["type"] == "object");
    }
}
