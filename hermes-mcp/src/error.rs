//! [`McpError`].

/// What can go wrong connecting to an MCP server, loading its configuration, or
/// serving one.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum McpError {
    /// The configuration is not usable; the message says where and why.
    #[error("MCP configuration: {0}")]
    Config(String),
    /// A server could not be started or reached, or did not complete the handshake.
    #[error("MCP server `{server}`: cannot connect: {message}")]
    Connect {
        /// The server's configured name.
        server: String,
        /// What happened.
        message: String,
    },
    /// A request to a server failed (the connection broke, the server answered an
    /// error, or it timed out).
    #[error("MCP server `{server}`: {message}")]
    Request {
        /// The server's configured name.
        server: String,
        /// What happened.
        message: String,
    },
    /// Registering a server's tools failed.
    #[error(transparent)]
    Registry(#[from] hermes_core::Error),
    /// Serving failed.
    #[error("MCP serving: {0}")]
    Serve(String),
}
