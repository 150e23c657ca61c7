//! Behaviour tests of YAML-configured tools: loading (all or nothing, errors with line
//! and column), calls against a real HTTP server on 127.0.0.1, hot reload under load.
#![cfg(feature = "yaml")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    unreachable_pub
)]

mod yaml {
    pub mod calls;
    pub mod load;
    pub mod reload;
    pub mod server;
}
