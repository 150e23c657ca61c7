//! What the fault, tool-fault and load tests share: a misbehaving model server, a
//! streaming adapter, the OpenAI wire shapes, counting tools, memory readings.
#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs
)]

pub mod memory;
pub mod server;
pub mod streamed;
pub mod tools;
pub mod transcript;
pub mod wire;

use std::future::Future;
use std::time::Duration;

/// Await `future`, failing the test (instead of hanging CI) past `limit`.
pub async fn within<T>(limit: Duration, future: impl Future<Output = T>) -> T {
    match tokio::time::timeout(limit, future).await {
        Ok(value) => value,
        Err(_) => panic!("hung: no result after {limit:?}"),
    }
}
