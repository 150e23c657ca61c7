//! Behaviour tests of the `file` family: every call goes through the gateway, on real
//! files in a temporary workspace.
#![cfg(feature = "file")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    unreachable_pub
)]

mod common;

#[path = "file/archive.rs"]
mod archive;
#[path = "file/confinement.rs"]
mod confinement;
#[path = "file/delete.rs"]
mod delete;
#[path = "file/edit.rs"]
mod edit;
#[path = "file/list.rs"]
mod list;
#[path = "file/read.rs"]
mod read;
#[path = "file/search.rs"]
mod search;
#[path = "file/write.rs"]
mod write;
