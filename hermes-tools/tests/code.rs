//! The `code` family through the gateway, with real interpreters, compilers, test
//! runners and files: one module per tool.
#![cfg(feature = "code")]
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod common;

// A crate root finds its modules beside it; these live in `code/`.
#[path = "code/analyze.rs"]
mod analyze;
#[path = "code/calculator.rs"]
mod calculator;
#[path = "code/execute.rs"]
mod execute;
#[path = "code/json_query.rs"]
mod json_query;
#[path = "code/test_runner.rs"]
mod test_runner;
#[path = "code/text_diff.rs"]
mod text_diff;
