//! MCP for hermes agents, on the official Rust SDK (`rmcp`).
//!
//! - [`client`]: connect to MCP servers (a spawned command over stdio, or streamable
//!   HTTP), register their tools in a hermes [`Registry`](hermes_core::Registry) as
//!   `mcp_<server>_<tool>`, and call them through the same gateway as every other tool
//!   (validation, permissions, approval, timeout, telemetry). Server tools are
//!   untrusted: their scope and permissions come from configuration, their results are
//!   fenced as outside content, and a server that dies is restarted with backoff.
//! - [`server`]: serve a registry over MCP (stdio and streamable HTTP on 127.0.0.1),
//!   every call through a hermes [`Dispatcher`](hermes_core::Dispatcher) and its
//!   permission policy. `hermes mcp serve` is built on it.

pub mod client;
mod error;
pub mod server;

pub use error::McpError;
