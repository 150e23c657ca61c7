//! Using the tools of MCP servers through the hermes gateway.
//!
//! An [`McpClient`] connects to one server, over stdio (a spawned command with its
//! arguments and environment) or streamable HTTP, and registers each of its tools in a
//! [`Registry`](hermes_core::Registry) as `mcp_<server>_<tool>` (the prefix is
//! configurable). Calls then go through the same gateway as every other tool: the
//! server's input schema is compiled and checked before anything is sent, the
//! permission policy judges the call, approval is asked, the timeout holds, telemetry
//! and the audit trail record it.
//!
//! Server tools are untrusted. Their scope and permissions come from the
//! [`ServerConfig`] (per server and per tool), never from the server's own hints;
//! unconfigured, a server tool is `dangerous` (each call needs approval) and declares
//! `mcp:call`. Every MCP tool is tagged `mcp`, so its results are fenced as outside
//! content, and a server's descriptions are cut to 1 KiB.
//!
//! ```no_run
//! use hermes_core::{Registry, Scope};
//! use hermes_mcp::client::{McpClient, ServerConfig};
//!
//! # async fn demo() -> Result<(), hermes_mcp::McpError> {
//! let registry = Registry::new();
//! let config = ServerConfig::stdio("npx")
//!     .args(["-y", "@modelcontextprotocol/server-filesystem", "/srv/docs"])
//!     .scope(Scope::Read)
//!     .include(["read_*", "list_*", "search_files"]);
//! let client = McpClient::connect("docs", config, &registry).await?;
//! assert!(registry.contains("mcp_docs_read_text_file"));
//! # drop(client);
//! # Ok(())
//! # }
//! ```
//!
//! [`McpClients::start`] connects every server of an [`McpConfig`] (the
//! `mcp_servers:` YAML file).

mod config;
mod connection;
mod filter;
mod set;
mod tool;

pub use config::{
    DEFAULT_PERMISSION, DEFAULT_TIMEOUT, McpConfig, ServerConfig, ToolOverride, ToolsConfig,
};
pub use connection::{McpClient, McpClientBuilder};
pub use set::McpClients;
