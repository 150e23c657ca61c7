//! `port_check`: whether a TCP port accepts connections, and how fast.

use std::sync::Arc;
use std::time::{Duration, Instant};

use hermes_core::{ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::net::TcpStream;

use super::web::Web;
use crate::common::http::{self, resolve::lookup};

/// Arguments of `port_check`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The host name or IP address.
    #[schemars(length(min = 1, max = 253))]
    host: String,
    /// The TCP port.
    #[schemars(range(min = 1, max = 65535))]
    port: u16,
    /// Seconds to wait for the connection.
    #[serde(default = "default_timeout")]
    #[schemars(range(min = 1, max = 60))]
    timeout_seconds: u64,
}

fn default_timeout() -> u64 {
    5
}

/// What a connection attempt found.
#[derive(Debug, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Status {
    /// The port accepted the connection.
    Open,
    /// The connection was refused or failed.
    Closed,
    /// No answer within the timeout (a firewall dropping packets, or a dead host).
    Timeout,
}

/// What `port_check` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The host asked about.
    host: String,
    /// The port asked about.
    port: u16,
    /// The address tried.
    address: String,
    /// `open`, `closed` or `timeout`.
    status: Status,
    /// Milliseconds until the answer (or the timeout).
    latency_ms: u64,
    /// Why the port is not open, when known.
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<String>,
}

/// The `port_check` tool.
#[derive(Debug)]
pub(crate) struct PortCheck {
    /// The family's shared state.
    web: Arc<Web>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl PortCheck {
    /// The tool, its spec built from the settings.
    pub(crate) fn new(web: &Arc<Web>) -> Result<Self, Error> {
        let description = "Check whether a TCP port on a host accepts connections. Returns \
             status (open, closed or timeout), the address tried and the latency in \
             milliseconds. Nothing is sent: the connection is closed once made. Only public \
             addresses are reachable unless the operator allows more.";
        let spec = ToolSpec::builder("port_check", description)
            .parameters_for::<Args>()
            .tag(super::FAMILY_TAG)
            .scope(Scope::Read)
            .permission("network:fetch")
            .arg_kind("host", ArgKind::Host)
            .timeout(Duration::from_secs(70))
            .max_result_bytes(4096)
            .build()?;
        Ok(Self {
            web: Arc::clone(web),
            spec,
        })
    }
}

impl TypedTool for PortCheck {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, _ctx: &ToolContext) -> Result<Output, ToolError> {
        let addresses = lookup(&self.web.addresses, args.host.trim(), args.port)
            .await
            .map_err(http::lookup_failed)?;
        let Some(&address) = addresses.first() else {
            return Err(ToolError::failed(format!(
                "`{}` has no address to connect to",
                args.host
            )));
        };
        let timeout = Duration::from_secs(args.timeout_seconds.clamp(1, 60));
        let started = Instant::now();
        let attempt = tokio::time::timeout(timeout, TcpStream::connect(address)).await;
        let latency_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        let (status, reason) = match attempt {
            Ok(Ok(_stream)) => (Status::Open, None),
            Ok(Err(error)) => (Status::Closed, Some(error.to_string())),
            Err(_elapsed) => (
                Status::Timeout,
                Some(format!("no answer within {} s", timeout.as_secs())),
            ),
        };
        Ok(Output {
            host: args.host,
            port: args.port,
            address: address.to_string(),
            status,
            latency_ms,
            reason,
        })
    }
}
