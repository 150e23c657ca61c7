//! rmcp's [`ServerHandler`] for [`McpServer`], written by hand: the tools are the
//! registry's, known only at run time.

use hermes_core::RunContext;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{NotificationContext, RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};

use super::{DEFAULT_SESSION, McpServer, exposure, watch};

/// The header streamable HTTP names the session in.
const SESSION_HEADER: &str = "mcp-session-id";

impl ServerHandler for McpServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools();
        let capabilities = if self.watch_interval.is_some() {
            capabilities.enable_tool_list_changed().build()
        } else {
            capabilities.build()
        };
        let config = ServerConfig::new(capabilities)
            .with_server_info(Implementation::new(&*self.name, &*self.version));
        match &self.instructions {
            Some(text) => config.with_instructions(&**text),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.tools()))
    }

    /// Never a protocol error: see [`McpServer::call`].
    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let session = session_id(&context).unwrap_or(DEFAULT_SESSION);
        // A `notifications/cancelled` for this request (or a client gone, over HTTP)
        // cancels the token, and the gateway stops the call.
        let run = RunContext::new()
            .with_session(session)
            .with_cancellation(context.ct.clone());
        tracing::debug!(trace_id = run.trace_id(), session, tool = %request.name, "MCP tool call");
        let id = format!("mcp_{}", context.id);
        let result = self.call(id, &request.name, request.arguments, &run).await;
        Ok(result.into())
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        let tool = self.dispatcher.registry().get(name)?;
        self.exposes(tool.spec())
            .then(|| exposure::describe(tool.spec()))
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        if let Some(interval) = self.watch_interval {
            watch::spawn(self.clone(), context.peer, interval);
        }
    }
}

/// The streamable HTTP session the request belongs to, if it has one.
fn session_id(context: &RequestContext<RoleServer>) -> Option<&str> {
    context
        .extensions
        .get::<axum::http::request::Parts>()?
        .headers
        .get(SESSION_HEADER)?
        .to_str()
        .ok()
        .filter(|id| !id.is_empty())
}
