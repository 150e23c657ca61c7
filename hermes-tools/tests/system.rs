//! Behaviour tests of the `system` family: every call goes through the gateway, with
//! real shells, processes and environment variables in a temporary workspace.
//!
//! No test runs a harmful command: the hardline and dangerous cases first assert the
//! detector's verdict (so a detector that stopped flagging them fails the test before
//! anything runs), and the dangerous ones only delete directories of the test's own
//! workspace.
#![cfg(feature = "system")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    unreachable_pub
)]

mod common;

#[path = "system/approval.rs"]
mod approval;
#[path = "system/env.rs"]
mod env;
#[path = "system/info.rs"]
mod info;
#[path = "system/process.rs"]
mod process;
#[path = "system/support.rs"]
mod support;
#[path = "system/terminal.rs"]
mod terminal;
