//! `#[tool]` functions: their schemas, and their calls through the gateway.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    unreachable_pub,
    dead_code
)]

#[path = "../common/mod.rs"]
mod common;

mod calls;
mod schemas;
mod tools;
