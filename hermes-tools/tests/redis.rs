//! Behaviour tests of `redis_command`: every call goes through the gateway, against a
//! real Redis server (`eval "$(scripts/services)"` starts a private one and exports
//! `HERMES_TEST_REDIS_URL`). Without it the server tests skip loudly, unless `CI` is
//! set: then they fail. Keys are unique per test; nothing wipes the server.
#![cfg(feature = "redis")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    missing_docs,
    unreachable_pub
)]

mod common;

#[path = "redis/commands.rs"]
mod commands;
#[path = "redis/gates.rs"]
mod gates;
#[path = "database/support.rs"]
mod support;
