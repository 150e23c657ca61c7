//! Serving hermes tools over MCP: [`McpServer`].
//!
//! An [`McpServer`] wraps a [`Dispatcher`] (its registry and its policy) and answers
//! MCP clients: `tools/list` lists the tools of the registry's current snapshot that
//! pass the exposure filter, `tools/call` runs the call through the gateway, as a
//! model's call would run (validation, policy, approval, idempotency, timeout, cap).
//!
//! - `exposure`: which tools the server shows, and how a [`ToolSpec`] reads as an MCP
//!   tool (annotations are hints taken from the scope, nothing more);
//! - `call`: a `tools/call` as a hermes [`ToolCall`](hermes_core::ToolCall), and its
//!   [`CallReport`](hermes_core::CallReport) as a `CallToolResult`;
//! - `handler`: rmcp's `ServerHandler`, written out by hand (the tools are dynamic);
//! - `watch`: `notifications/tools/list_changed` when the exposed tools change;
//! - `transport`: stdio, and streamable HTTP at `/mcp`.
//!
//! Failures are tool results, not protocol errors: a call that fails in the gateway,
//! and a call of a tool that does not exist or is not exposed, answer a
//! `CallToolResult` with `isError: true` whose text (and `structuredContent`) is the
//! gateway's `{"error": {"kind", "message"}}`, so the caller reads why.

mod call;
mod exposure;
mod handler;
mod transport;
mod watch;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Dispatcher, ToolSpec};

pub use transport::HTTP_PATH;

/// The default interval between two looks at the registry for a changed tool list.
pub const DEFAULT_WATCH_INTERVAL: Duration = Duration::from_secs(1);

/// The session id calls get when the transport has none (stdio, stateless HTTP).
pub const DEFAULT_SESSION: &str = "mcp";

/// Which tools a server exposes.
type Filter = Arc<dyn Fn(&ToolSpec) -> bool + Send + Sync>;

/// Serves the tools of a [`Dispatcher`]'s registry over MCP. Cheap to clone: clones
/// share the dispatcher and the filter.
///
/// Every call goes through [`Dispatcher::dispatch`], so the dispatcher's policy and
/// approver decide: over MCP there is nobody to ask, so give it an approver that
/// refuses (the default, [`DenyAll`](hermes_core::DenyAll)) unless approval is given
/// up front.
///
/// ```
/// use hermes_core::{Dispatcher, Registry, Scope, demo::Calc};
/// use hermes_mcp::server::McpServer;
///
/// # fn main() -> Result<(), hermes_core::Error> {
/// let registry = Registry::new();
/// registry.register(Calc::new())?;
/// let server = McpServer::new(Dispatcher::new(registry))
///     .named("calculator", "1.0.0")
///     .expose(|spec| spec.scope() != Scope::Dangerous);
/// assert_eq!(server.tools()[0].name, "calc");
/// // Then `server.serve_stdio().await?`, or mount `server.http_router()`.
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct McpServer {
    dispatcher: Dispatcher,
    filter: Option<Filter>,
    name: Arc<str>,
    version: Arc<str>,
    instructions: Option<Arc<str>>,
    watch_interval: Option<Duration>,
}

impl McpServer {
    /// A server over `dispatcher`, exposing every tool of its registry, named
    /// `hermes` with this crate's version, watching the registry every second.
    pub fn new(dispatcher: Dispatcher) -> Self {
        Self {
            dispatcher,
            filter: None,
            name: Arc::from("hermes"),
            version: Arc::from(env!("CARGO_PKG_VERSION")),
            instructions: None,
            watch_interval: Some(DEFAULT_WATCH_INTERVAL),
        }
    }

    /// Expose only the tools for which `filter` is true. A tool not exposed is neither
    /// listed nor callable: calling it answers the same `not_found` error as a tool
    /// that does not exist. Replaces an earlier filter.
    #[must_use]
    pub fn expose(mut self, filter: impl Fn(&ToolSpec) -> bool + Send + Sync + 'static) -> Self {
        self.filter = Some(Arc::new(filter));
        self
    }

    /// The name and version the server gives in its `initialize` answer.
    #[must_use]
    pub fn named(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.name = Arc::from(name.into());
        self.version = Arc::from(version.into());
        self
    }

    /// Instructions for the client (how to use the tools), sent at `initialize`.
    #[must_use]
    pub fn instructions(mut self, text: impl Into<String>) -> Self {
        self.instructions = Some(Arc::from(text.into()));
        self
    }

    /// How often each connection looks at the registry for a change in the exposed
    /// tools, to send `notifications/tools/list_changed`; `None` never looks (and does
    /// not announce `listChanged`).
    #[must_use]
    pub fn watch_interval(mut self, interval: Option<Duration>) -> Self {
        self.watch_interval = interval.filter(|interval| !interval.is_zero());
        self
    }

    /// The dispatcher calls go through.
    pub fn dispatcher(&self) -> &Dispatcher {
        &self.dispatcher
    }

    /// Whether the server exposes the tool `spec` describes.
    pub fn exposes(&self, spec: &ToolSpec) -> bool {
        self.filter.as_ref().is_none_or(|filter| filter(spec))
    }

    /// The exposed tools of the registry's current snapshot as MCP describes them,
    /// sorted by name: what `tools/list` answers.
    pub fn tools(&self) -> Vec<rmcp::model::Tool> {
        self.dispatcher
            .registry()
            .list()
            .iter()
            .map(|tool| tool.spec())
            .filter(|spec| self.exposes(spec))
            .map(exposure::describe)
            .collect()
    }
}

impl fmt::Debug for McpServer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("McpServer")
            .field("dispatcher", &self.dispatcher)
            .field("filtered", &self.filter.is_some())
            .field("name", &self.name)
            .field("version", &self.version)
            .field("watch_interval", &self.watch_interval)
            .finish_non_exhaustive()
    }
}
