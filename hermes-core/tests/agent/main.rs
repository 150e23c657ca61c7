//! The agent loop, one module per behaviour.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../common/mod.rs"]
mod common;

mod completes;
mod content;
mod limits;
mod observe;
mod streaming;
mod strikes;
mod window;
