//! Two `#[tool]` functions with one name: `Registry::from_linked` says where both are.
#![allow(clippy::unwrap_used, missing_docs, unreachable_pub, dead_code)]

mod first {
    /// Look something up.
    #[hermes_core::tool(name = "lookup")]
    pub fn lookup_a() -> u8 {
        1
    }
}

mod second {
    /// Look something else up.
    #[hermes_core::tool(name = "lookup")]
    pub fn lookup_b() -> u8 {
        2
    }
}

#[test]
fn from_linked_reports_both_places() {
    let err = hermes_core::Registry::from_linked().unwrap_err();
    let hermes_core::Error::DuplicateLinkedTool {
        name,
        first,
        second,
    } = &err
    else {
        panic!("{err}");
    };
    assert_eq!(name, "lookup");
    assert!(
        first.starts_with("hermes-core/tests/linked_duplicate_names.rs:"),
        "{first}"
    );
    assert!(
        second.starts_with("hermes-core/tests/linked_duplicate_names.rs:"),
        "{second}"
    );
    assert_ne!(first, second);
    assert!(err.to_string().contains("rename one"), "{err}");
}
