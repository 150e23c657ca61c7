//! The dispatcher gateway, one module per behaviour.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

#[path = "../common/mod.rs"]
mod common;

mod approval;
mod bad_input;
mod budget;
mod cancellation;
mod defaults;
mod idempotency;
mod lifecycle;
mod observe;
mod ordering;
mod parallel;
mod progress;
mod repairs;
mod result_cap;
mod timeout_and_panic;
mod untrusted;
