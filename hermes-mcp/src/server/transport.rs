//! The transports: any byte stream (stdio), and streamable HTTP at `/mcp`.

use std::sync::Arc;

use rmcp::ServiceExt;
use rmcp::service::QuitReason;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::TcpListener;

use super::McpServer;
use crate::McpError;

/// The path [`McpServer::http_router`] serves MCP at.
pub const HTTP_PATH: &str = "/mcp";

impl McpServer {
    /// Serve one client over stdin and stdout, until it closes stdin.
    ///
    /// Stdout is the protocol: nothing else may write to it while this runs (log to
    /// stderr).
    ///
    /// # Errors
    ///
    /// [`McpError::Serve`] if the handshake fails or the connection breaks.
    pub async fn serve_stdio(self) -> Result<(), McpError> {
        self.serve_io(tokio::io::stdin(), tokio::io::stdout()).await
    }

    /// Serve one client over a pair of byte streams (newline-delimited JSON-RPC), until
    /// the reader ends: a pipe, a socket, or one end of [`tokio::io::duplex`] in tests.
    ///
    /// # Errors
    ///
    /// [`McpError::Serve`] if the handshake fails or the connection breaks.
    pub async fn serve_io<R, W>(self, reader: R, writer: W) -> Result<(), McpError>
    where
        R: AsyncRead + Send + Unpin + 'static,
        W: AsyncWrite + Send + Unpin + 'static,
    {
        let running = ServiceExt::serve(self, (reader, writer))
            .await
            .map_err(|error| McpError::Serve(format!("handshake failed: {error}")))?;
        match running.waiting().await {
            Ok(QuitReason::JoinError(error)) | Err(error) => Err(McpError::Serve(format!(
                "the connection task failed: {error}"
            ))),
            Ok(_closed_or_cancelled) => Ok(()),
        }
    }

    /// An axum router serving streamable HTTP at `/mcp`, one MCP session per client
    /// (`Mcp-Session-Id`, which is also the hermes session of its calls). Only
    /// loopback `Host` headers are accepted (against DNS rebinding): bind it to
    /// 127.0.0.1, or nest the service yourself for other hosts.
    pub fn http_router(self) -> axum::Router {
        let service = StreamableHttpService::new(
            move || Ok(self.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        axum::Router::new().nest_service(HTTP_PATH, service)
    }

    /// Serve [`http_router`](Self::http_router) on `listener` until the task is
    /// dropped or accepting fails.
    ///
    /// # Errors
    ///
    /// [`McpError::Serve`] if the listener fails.
    pub async fn serve_http(self, listener: TcpListener) -> Result<(), McpError> {
        axum::serve(listener, self.http_router())
            .await
            .map_err(|error| McpError::Serve(format!("HTTP server failed: {error}")))
    }
}
