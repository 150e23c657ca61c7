//! The YAML loaders: any text given to the tools-file loader (`ToolFile::parse`, then
//! building and registering its tools) and to the profile loader
//! (`ProfileSet::from_yaml`, then an engine on each profile) ends in `Ok` or an error
//! that says something, never a panic.
//!
//! Input: the text (invalid UTF-8 replaced).

use hermes_core::Registry;
use hermes_permissions::{BareValue, PermissionEngine, ProfileSet};
use hermes_tools::yaml::ToolFile;

/// Check one input.
pub(crate) fn check(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    tools_file(&text);
    profiles(&text);
}

fn tools_file(text: &str) {
    let file = match ToolFile::parse(text, "fuzz.yaml") {
        Ok(file) => file,
        Err(error) => return said_something(&error),
    };
    // Building a tool compiles its schema; registering swaps it in (inside a runtime,
    // as a program would be).
    let _guard = super::runtime().enter();
    match file.tools() {
        Ok(tools) => assert_eq!(tools.len(), file.names().len()),
        Err(error) => return said_something(&error),
    }
    let registry = Registry::new();
    match file.register(&registry) {
        Ok(_) => {
            for name in file.names() {
                assert!(registry.contains(name), "`{name}` was not registered");
            }
        }
        Err(error) => said_something(&error),
    }
}

fn profiles(text: &str) {
    let set = match ProfileSet::from_yaml(text) {
        Ok(set) => set,
        Err(error) => return said_something(&error),
    };
    for name in set.names() {
        let profile = set.get(name).expect("a listed profile");
        let engine = PermissionEngine::new(profile);
        for (permission, value) in [
            ("file:read", BareValue::Path("/tmp/fuzz/a.txt")),
            ("terminal:execute", BareValue::Command("rm -rf build")),
            ("network:fetch", BareValue::Url("https://example.com/x")),
        ] {
            let ruling = engine.check(permission, value, "fuzz");
            assert!(!ruling.explain().is_empty());
        }
    }
}

fn said_something(error: &dyn std::error::Error) {
    assert!(
        !error.to_string().trim().is_empty(),
        "an empty error: {error:?}"
    );
}
