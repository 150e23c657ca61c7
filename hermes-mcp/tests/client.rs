//! The MCP client against real peers: the reference servers from npm
//! (server-everything, server-filesystem) and a server written with the official
//! Python SDK, over stdio and streamable HTTP. `scripts/mcp-peers` installs them and
//! prints the variables these tests read; without them the tests skip loudly, and fail
//! when CI is set.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    missing_docs
)]

mod client {
    pub(crate) mod common;
    mod everything;
    mod filesystem;
    mod toy;
}
