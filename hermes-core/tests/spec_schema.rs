//! The OpenAI function object of a tool, pinned.
#![allow(clippy::unwrap_used, missing_docs)]

use hermes_core::{Tool, demo::Calc};

#[test]
fn calc_function_object() {
    insta::assert_json_snapshot!(Calc::new().spec().schema());
}
