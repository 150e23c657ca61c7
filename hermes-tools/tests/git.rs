//! Behaviour tests of the git tools of the `platform` family: every call goes through
//! the gateway, on real repositories made with the git CLI in a temporary workspace, and
//! every effect is checked by reading the repository back with the git CLI.
#![cfg(feature = "git")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    unreachable_pub
)]

mod common;

#[path = "git/commit.rs"]
mod commit;
#[path = "git/confinement.rs"]
mod confinement;
#[path = "git/diff.rs"]
mod diff;
#[path = "git/log.rs"]
mod log;
#[path = "git/status.rs"]
mod status;
#[path = "git/support.rs"]
mod support;
