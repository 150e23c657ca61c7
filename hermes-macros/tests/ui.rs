//! Compile-time errors of `#[tool]`, one topic per test. Regenerate the `.stderr` files
//! with `TRYBUILD=overwrite cargo test -p hermes-macros --test ui` and review the diff.
#![allow(missing_docs)]

#[test]
fn signature() {
    trybuild::TestCases::new().compile_fail("tests/ui/signature/fail_*.rs");
}

#[test]
fn options() {
    trybuild::TestCases::new().compile_fail("tests/ui/options/fail_*.rs");
}

#[test]
fn args() {
    trybuild::TestCases::new().compile_fail("tests/ui/args/fail_*.rs");
}

#[test]
fn docs() {
    trybuild::TestCases::new().compile_fail("tests/ui/docs/fail_*.rs");
}

#[test]
fn returns() {
    trybuild::TestCases::new().compile_fail("tests/ui/returns/fail_*.rs");
}

#[test]
fn pass() {
    trybuild::TestCases::new().pass("tests/ui/pass/pass_*.rs");
}
