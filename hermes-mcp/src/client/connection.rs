//! [`McpClient`]: one server's connection, kept alive, and its tools kept in the
//! registry.

use std::collections::BTreeSet;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

use hermes_core::{AgentEvent, EventSink, Registry, Tool};
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{NotificationContext, Peer, RunningService, RunningServiceCancellationToken};
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::{CancellationToken, DropGuard};

use super::config::{Endpoint, ServerConfig, expand};
use super::filter::ToolFilter;
use super::tool::{Link, McpTool, hermes_name};
use crate::McpError;

/// How long to wait for a server to start and answer the handshake.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The first wait before reconnecting to a server that went away; doubled each failure.
const FIRST_BACKOFF: Duration = Duration::from_millis(250);
/// The longest wait between reconnection attempts.
const MAX_BACKOFF: Duration = Duration::from_secs(30);
/// Lines of a server's stderr kept to explain why it died.
const STDERR_LINES: usize = 5;

/// A connection to one MCP server whose tools are registered as hermes tools.
///
/// [`connect`](Self::connect) starts the server (or reaches it over HTTP), lists its
/// tools and registers them (the registry source `mcp:<name>`), then keeps them in step:
///
/// - a `notifications/tools/list_changed` from the server re-lists them and swaps them
///   in at once ([`Registry::swap_source`]: calls in flight finish on the old ones);
/// - when the server dies or the connection drops, the tools stay registered and answer
///   `unavailable` with the reason, while the client reconnects with exponential
///   backoff (250 ms doubling to 30 s). Both are reported as events
///   (`tools_reloaded`, `tools_reload_failed` with the source `mcp:<name>`) and logged.
///
/// Dropping the client (or [`shutdown`](Self::shutdown)) stops the server and removes
/// its tools.
#[derive(Debug)]
pub struct McpClient {
    name: String,
    registry: Registry,
    link: Arc<Link>,
    stop: CancellationToken,
    _stop_on_drop: DropGuard,
    supervisor: Option<tokio::task::JoinHandle<()>>,
}

/// Configures an [`McpClient`]; see [`McpClient::builder`].
#[derive(Debug)]
#[must_use]
pub struct McpClientBuilder {
    name: String,
    config: ServerConfig,
    registry: Registry,
    events: EventSink,
}

impl McpClientBuilder {
    /// Where connection and reload events go (default: a sink nobody reads; they are
    /// logged too).
    pub fn events(mut self, events: EventSink) -> Self {
        self.events = events;
        self
    }

    /// Connect, register the tools, and start watching the server. Must run inside a
    /// tokio runtime.
    ///
    /// # Errors
    ///
    /// [`McpError::Config`] for settings that do not fit together or a missing
    /// `${VAR}`; [`McpError::Connect`] when the first connection fails (later failures
    /// are retried); [`McpError::Request`] when the tools cannot be listed;
    /// [`McpError::Registry`] when a tool name is taken by a tool of another source.
    pub async fn connect(self) -> Result<McpClient, McpError> {
        self.config.check(&self.name)?;
        let link = Arc::new(Link::new(&self.name));
        let server = Server {
            name: self.name.clone(),
            config: self.config,
            registry: self.registry.clone(),
            link: link.clone(),
            events: self.events,
            filter: ToolFilter::default(),
        };
        let server = server.with_filter()?;
        let (relist, relists) = mpsc::unbounded_channel();
        let connection = server.open(&relist).await?;
        if let Err(error) = server.register(&connection.peer).await {
            connection.stop.cancel();
            return Err(error);
        }
        let stop = CancellationToken::new();
        let supervisor = tokio::spawn(server.supervise(connection, relist, relists, stop.clone()));
        Ok(McpClient {
            name: self.name,
            registry: self.registry,
            link,
            _stop_on_drop: stop.clone().drop_guard(),
            stop,
            supervisor: Some(supervisor),
        })
    }
}

impl McpClient {
    /// Connect to the server `name` as `config` says and register its tools in
    /// `registry`; see [`McpClientBuilder::connect`].
    ///
    /// # Errors
    ///
    /// As [`McpClientBuilder::connect`].
    pub async fn connect(
        name: impl Into<String>,
        config: ServerConfig,
        registry: &Registry,
    ) -> Result<Self, McpError> {
        Self::builder(name, config, registry).connect().await
    }

    /// Configure a connection.
    pub fn builder(
        name: impl Into<String>,
        config: ServerConfig,
        registry: &Registry,
    ) -> McpClientBuilder {
        McpClientBuilder {
            name: name.into(),
            config,
            registry: registry.clone(),
            events: EventSink::new(),
        }
    }

    /// The server's configured name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The registry source its tools are registered under: `mcp:<name>`.
    pub fn source(&self) -> String {
        source(&self.name)
    }

    /// The names of its tools in the registry, sorted.
    pub fn tools(&self) -> Vec<String> {
        let source = self.source();
        self.registry
            .names()
            .into_iter()
            .filter(|name| self.registry.source_of(name).as_deref() == Some(source.as_str()))
            .collect()
    }

    /// Whether the server is connected right now.
    pub fn is_connected(&self) -> bool {
        self.link.is_up()
    }

    /// Stop watching, close the connection (a spawned server is killed) and remove the
    /// tools from the registry.
    pub async fn shutdown(mut self) {
        self.stop.cancel();
        if let Some(supervisor) = self.supervisor.take() {
            let _ = supervisor.await;
        }
    }
}

fn source(name: &str) -> String {
    format!("mcp:{name}")
}

/// What the supervisor works with.
struct Server {
    name: String,
    config: ServerConfig,
    registry: Registry,
    link: Arc<Link>,
    events: EventSink,
    filter: ToolFilter,
}

/// One live connection.
struct Connection {
    peer: Peer<RoleClient>,
    stop: RunningServiceCancellationToken,
    /// Why the connection ended, once it has.
    ended: oneshot::Receiver<String>,
}

/// Hears the server's notifications: a changed tool list asks for a new listing.
struct Handler {
    relist: mpsc::UnboundedSender<()>,
}

impl ClientHandler for Handler {
    fn get_info(&self) -> ClientConfig {
        // The handshake every server version understands; hermes needs nothing newer.
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("hermes", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.relist.send(());
    }
}

impl Server {
    fn with_filter(mut self) -> Result<Self, McpError> {
        self.filter = ToolFilter::new(&self.config.tools.include, &self.config.tools.exclude)
            .map_err(|error| McpError::Config(format!("server `{}`: {error}", self.name)))?;
        Ok(self)
    }

    fn connect_error(&self, message: impl Into<String>) -> McpError {
        McpError::Connect {
            server: self.name.clone(),
            message: message.into(),
        }
    }

    /// Start or reach the server and complete the handshake.
    async fn open(&self, relist: &mpsc::UnboundedSender<()>) -> Result<Connection, McpError> {
        let handler = Handler {
            relist: relist.clone(),
        };
        let (ended_tx, ended) = oneshot::channel();
        let (service, stderr) = match self.config.endpoint() {
            Endpoint::Stdio(program) => {
                let mut command = tokio::process::Command::new(program);
                command.args(&self.config.args);
                for (key, value) in &self.config.env {
                    command.env(key, expand(value, &self.name)?);
                }
                if let Some(dir) = &self.config.cwd {
                    command.current_dir(dir);
                }
                let (transport, stderr) = TokioChildProcess::builder(command)
                    .stderr(Stdio::piped())
                    .spawn()
                    .map_err(|error| {
                        self.connect_error(format!("cannot start `{program}`: {error}"))
                    })?;
                let lines = stderr.map(|stderr| self.forward_stderr(stderr));
                let service = self.handshake(handler.serve(transport)).await?;
                (service, lines)
            }
            Endpoint::Http(url) => {
                let mut headers = std::collections::HashMap::new();
                for (key, value) in &self.config.headers {
                    let value = expand(value, &self.name)?;
                    let name = rmcp_header_name(key).ok_or_else(|| {
                        McpError::Config(format!(
                            "server `{}`: header `{key}` is not a valid name",
                            self.name
                        ))
                    })?;
                    let value = rmcp_header_value(&value).ok_or_else(|| {
                        McpError::Config(format!(
                            "server `{}`: the value of header `{key}` is not valid in HTTP",
                            self.name
                        ))
                    })?;
                    headers.insert(name, value);
                }
                // reqwest is built without a TLS provider of its own: use ring, unless the
                // program chose one already.
                let _ = rustls::crypto::ring::default_provider().install_default();
                let config =
                    StreamableHttpClientTransportConfig::with_uri(url).custom_headers(headers);
                let transport = StreamableHttpClientTransport::from_config(config);
                (self.handshake(handler.serve(transport)).await?, None)
            }
        };
        let peer = service.peer().clone();
        let stop = service.cancellation_token();
        tokio::spawn(async move {
            let reason = match service.waiting().await {
                Ok(reason) => format!("{reason:?}"),
                Err(error) => format!("the connection task failed: {error}"),
            };
            let last = match stderr {
                Some(lines) => lines.await.unwrap_or_default(),
                None => String::new(),
            };
            let why = if last.is_empty() {
                format!("the connection closed ({reason})")
            } else {
                format!("the connection closed ({reason}); its last words: {last}")
            };
            let _ = ended_tx.send(why);
        });
        self.link.up(peer.clone());
        Ok(Connection { peer, stop, ended })
    }

    async fn handshake<F, E>(
        &self,
        serving: F,
    ) -> Result<RunningService<RoleClient, Handler>, McpError>
    where
        F: Future<Output = Result<RunningService<RoleClient, Handler>, E>>,
        E: std::fmt::Display,
    {
        match tokio::time::timeout(CONNECT_TIMEOUT, serving).await {
            Ok(Ok(service)) => Ok(service),
            Ok(Err(error)) => Err(self.connect_error(format!("the handshake failed: {error}"))),
            Err(_) => Err(self.connect_error(format!(
                "no answer to the handshake within {} s",
                CONNECT_TIMEOUT.as_secs()
            ))),
        }
    }

    /// Log the server's stderr; the last lines are handed back when it closes.
    fn forward_stderr(
        &self,
        stderr: tokio::process::ChildStderr,
    ) -> tokio::task::JoinHandle<String> {
        let server = self.name.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            let mut last = std::collections::VecDeque::with_capacity(STDERR_LINES);
            while let Ok(Some(line)) = lines.next_line().await {
                tracing::debug!(server = %server, "mcp server stderr: {line}");
                if last.len() == STDERR_LINES {
                    last.pop_front();
                }
                last.push_back(line);
            }
            Vec::from(last).join(" | ")
        })
    }

    /// List the tools and swap them into the registry.
    async fn register(&self, peer: &Peer<RoleClient>) -> Result<hermes_core::SourceSwap, McpError> {
        let listed = peer
            .list_all_tools()
            .await
            .map_err(|error| McpError::Request {
                server: self.name.clone(),
                message: format!("cannot list its tools: {error}"),
            })?;
        let prefix = self
            .config
            .prefix
            .clone()
            .unwrap_or_else(|| format!("mcp_{}_", self.name));
        let mut names = BTreeSet::new();
        let mut tools: Vec<Arc<dyn Tool>> = Vec::new();
        for tool in listed.iter().filter(|tool| self.filter.takes(&tool.name)) {
            let Some(name) = hermes_name(&prefix, &tool.name) else {
                tracing::warn!(server = %self.name, tool = %tool.name, "MCP tool skipped: no valid hermes name");
                continue;
            };
            if !names.insert(name.clone()) {
                tracing::warn!(server = %self.name, tool = %tool.name, %name, "MCP tool skipped: its name collides with another of the server's tools");
                continue;
            }
            match McpTool::new(name, tool, &self.config, self.link.clone()) {
                Ok(tool) => tools.push(Arc::new(tool)),
                Err(error) => {
                    tracing::warn!(server = %self.name, tool = %tool.name, %error, "MCP tool skipped");
                }
            }
        }
        Ok(self.registry.swap_source(&source(&self.name), tools)?)
    }

    /// Keep the tools in step with the server, and the server alive, until stopped.
    async fn supervise(
        self,
        mut connection: Connection,
        relist: mpsc::UnboundedSender<()>,
        mut relists: mpsc::UnboundedReceiver<()>,
        stop: CancellationToken,
    ) {
        let source = source(&self.name);
        loop {
            tokio::select! {
                () = stop.cancelled() => break,
                Some(()) = relists.recv() => {
                    match self.register(&connection.peer).await {
                        Ok(swap) => {
                            tracing::info!(server = %self.name, added = ?swap.added, removed = ?swap.removed, "MCP tools reloaded");
                            self.events.emit(AgentEvent::tools_reloaded(&source, swap.added, swap.replaced, swap.removed));
                        }
                        Err(error) => self.report(&error.to_string()),
                    }
                }
                ended = &mut connection.ended => {
                    let why = ended.unwrap_or_else(|_| "the connection ended".into());
                    self.link.down(why.clone());
                    self.report(&format!("server `{}` went away: {why}; reconnecting", self.name));
                    match self.reconnect(&relist, &stop).await {
                        Some(next) => {
                            connection = next;
                            // The server may have changed while it was away.
                            let _ = relist.send(());
                        }
                        None => break,
                    }
                }
            }
        }
        connection.stop.cancel();
        self.link.down("the client was shut down");
        if let Err(error) = self.registry.swap_source(&source, Vec::new()) {
            tracing::warn!(server = %self.name, %error, "could not remove the MCP tools");
        }
    }

    /// Connect again, waiting longer after each failure; `None` when stopped first.
    async fn reconnect(
        &self,
        relist: &mpsc::UnboundedSender<()>,
        stop: &CancellationToken,
    ) -> Option<Connection> {
        let mut wait = FIRST_BACKOFF;
        for attempt in 1_u32.. {
            tokio::select! {
                () = stop.cancelled() => return None,
                () = tokio::time::sleep(wait) => {}
            }
            match self.open(relist).await {
                Ok(connection) => {
                    tracing::info!(server = %self.name, attempt, "MCP server reconnected");
                    return Some(connection);
                }
                Err(error) => {
                    self.link
                        .down(format!("reconnecting (attempt {attempt} failed: {error})"));
                    self.report(&format!(
                        "{error}; retrying in {} ms",
                        (wait * 2).min(MAX_BACKOFF).as_millis()
                    ));
                }
            }
            wait = (wait * 2).min(MAX_BACKOFF);
        }
        None
    }

    fn report(&self, error: &str) {
        tracing::warn!(server = %self.name, "{error}");
        self.events
            .emit(AgentEvent::tools_reload_failed(source(&self.name), error));
    }
}

fn rmcp_header_name(name: &str) -> Option<http::HeaderName> {
    http::HeaderName::from_bytes(name.as_bytes()).ok()
}

fn rmcp_header_value(value: &str) -> Option<http::HeaderValue> {
    http::HeaderValue::from_str(value).ok()
}
