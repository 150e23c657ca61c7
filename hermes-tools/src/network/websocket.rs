//! `websocket`: connect to a WebSocket server, send messages, and collect its replies
//! for a while or up to a count.

use std::sync::Arc;
use std::time::Duration;

use futures_util::{SinkExt, StreamExt};
use hermes_core::{ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::net::TcpStream;
use tokio::time::Instant;
use tokio_tungstenite::tungstenite::protocol::WebSocketConfig;
use tokio_tungstenite::tungstenite::{self, Message};

use super::web::Web;
use crate::common::http::{self, check_url, resolve::lookup};
use crate::common::output::truncate_middle;

/// How long the connection and handshake may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(15);

/// Arguments of `websocket`.
#[derive(Debug, Deserialize, JsonSchema)]
pub(crate) struct Args {
    /// The ws:// or wss:// URL to connect to.
    #[schemars(url)]
    url: String,
    /// Text messages to send, in order, once connected.
    #[serde(default)]
    #[schemars(length(max = 100))]
    messages: Vec<String>,
    /// Stop after receiving this many messages.
    #[serde(default = "default_max_messages")]
    #[schemars(range(min = 1, max = 1000))]
    max_messages: usize,
    /// Stop listening after this many seconds (counted once the messages are sent).
    #[serde(default = "default_wait")]
    #[schemars(range(min = 1, max = 60))]
    wait_seconds: u64,
}

fn default_max_messages() -> usize {
    10
}

fn default_wait() -> u64 {
    5
}

/// A message received.
#[derive(Debug, Serialize)]
pub(crate) struct Received {
    /// `text` or `binary`.
    kind: &'static str,
    /// The text; binary data as UTF-8 when it is, else described.
    data: String,
}

/// Why listening stopped.
#[derive(Debug, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Stopped {
    /// max_messages were received.
    MaxMessages,
    /// wait_seconds passed.
    WaitSeconds,
    /// The server closed the connection.
    Closed,
    /// The size cap on received data was reached.
    SizeCap,
}

/// What `websocket` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The URL connected to.
    url: String,
    /// Messages sent.
    sent: usize,
    /// Messages received, in order.
    received: Vec<Received>,
    /// Why listening stopped.
    stopped: Stopped,
    /// The close code, when the server closed with one.
    #[serde(skip_serializing_if = "Option::is_none")]
    close_code: Option<u16>,
    /// The close reason, when the server gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    close_reason: Option<String>,
}

/// The `websocket` tool.
#[derive(Debug)]
pub(crate) struct WebSocket {
    /// The family's shared state.
    web: Arc<Web>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl WebSocket {
    /// The tool, its spec built from the settings.
    pub(crate) fn new(web: &Arc<Web>) -> Result<Self, Error> {
        let description = "Connect to a WebSocket server (ws:// or wss://), send text messages \
             in order, then collect the server's messages until max_messages arrive, \
             wait_seconds pass or the server closes. Returns the messages received (text, or \
             binary described), why listening stopped and any close code. Only public \
             addresses are reachable unless the operator allows more.";
        let spec = ToolSpec::builder("websocket", description)
            .parameters_for::<Args>()
            .tag(super::FAMILY_TAG)
            .scope(Scope::Write)
            .permission("network:websocket")
            .arg_kind("url", ArgKind::Url)
            .timeout(CONNECT_TIMEOUT + Duration::from_secs(70))
            .max_result_bytes(super::result_cap(web))
            .build()?;
        Ok(Self {
            web: Arc::clone(web),
            spec,
        })
    }
}

impl TypedTool for WebSocket {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, _ctx: &ToolContext) -> Result<Output, ToolError> {
        let url =
            check_url(&args.url, &["ws", "wss"], &self.web.addresses).map_err(http::url_refused)?;
        let host = url.host_str().unwrap_or_default();
        let port = url.port_or_known_default().unwrap_or(80);
        let addresses = lookup(&self.web.addresses, host, port)
            .await
            .map_err(http::lookup_failed)?;
        let max_message = self.web.config().max_body_bytes;
        let connect = async {
            let stream = TcpStream::connect(addresses.as_slice())
                .await
                .map_err(|error| connect_failed(&args.url, &error.to_string()))?;
            let limits = WebSocketConfig::default()
                .max_message_size(Some(max_message))
                .max_frame_size(Some(max_message));
            tokio_tungstenite::client_async_tls_with_config(
                url.as_str(),
                stream,
                Some(limits),
                None,
            )
            .await
            .map_err(|error| handshake_failed(&args.url, error))
        };
        let (mut socket, _response) = tokio::time::timeout(CONNECT_TIMEOUT, connect)
            .await
            .map_err(|_elapsed| {
                connect_failed(
                    &args.url,
                    &format!("no answer within {} s", CONNECT_TIMEOUT.as_secs()),
                )
            })??;
        let mut sent = 0;
        for message in args.messages {
            socket.send(Message::text(message)).await.map_err(|error| {
                ToolError::failed_with(format!("sending to `{}` failed", args.url), error)
            })?;
            sent += 1;
        }
        let deadline = Instant::now() + Duration::from_secs(args.wait_seconds.clamp(1, 60));
        let mut listen = Listen::new(self.web.text_cap(), args.max_messages);
        let stopped = loop {
            match tokio::time::timeout_at(deadline, socket.next()).await {
                Err(_elapsed) => break Stopped::WaitSeconds,
                Ok(None) => break Stopped::Closed,
                Ok(Some(Err(
                    tungstenite::Error::ConnectionClosed | tungstenite::Error::AlreadyClosed,
                ))) => break Stopped::Closed,
                Ok(Some(Err(tungstenite::Error::Capacity(_)))) => {
                    return Err(ToolError::failed(format!(
                        "`{}` sent a message larger than {max_message} bytes, the most this tool \
                         accepts",
                        args.url
                    )));
                }
                Ok(Some(Err(error))) => {
                    return Err(ToolError::failed_with(
                        format!("the connection to `{}` broke", args.url),
                        error,
                    ));
                }
                Ok(Some(Ok(message))) => {
                    if let Some(stopped) = listen.take(message) {
                        break stopped;
                    }
                }
            }
        };
        // A polite close; the server may already be gone.
        let _ = tokio::time::timeout(Duration::from_secs(2), socket.close(None)).await;
        Ok(Output {
            url: args.url,
            sent,
            received: listen.received,
            stopped,
            close_code: listen.close_code,
            close_reason: listen.close_reason,
        })
    }
}

/// The messages collected so far, within a count and a size budget.
#[derive(Debug)]
struct Listen {
    /// Bytes of data still allowed.
    budget: usize,
    /// Messages still wanted.
    wanted: usize,
    /// The messages collected.
    received: Vec<Received>,
    /// The close code, once closed.
    close_code: Option<u16>,
    /// The close reason, once closed.
    close_reason: Option<String>,
}

impl Listen {
    fn new(budget: usize, wanted: usize) -> Self {
        Self {
            budget,
            wanted,
            received: Vec::new(),
            close_code: None,
            close_reason: None,
        }
    }

    /// Take `message`; why to stop listening, if it is time.
    fn take(&mut self, message: Message) -> Option<Stopped> {
        let (kind, data) = match message {
            Message::Text(text) => ("text", text.as_str().to_owned()),
            Message::Binary(bytes) => match std::str::from_utf8(&bytes) {
                Ok(text) => ("binary", text.to_owned()),
                Err(_) => ("binary", format!("{} bytes of binary data", bytes.len())),
            },
            Message::Close(frame) => {
                if let Some(frame) = frame {
                    self.close_code = Some(u16::from(frame.code));
                    self.close_reason =
                        Some(frame.reason.as_str().to_owned()).filter(|reason| !reason.is_empty());
                }
                return Some(Stopped::Closed);
            }
            Message::Ping(_) | Message::Pong(_) | Message::Frame(_) => return None,
        };
        let data = truncate_middle(data, self.budget.max(64));
        self.budget = self.budget.saturating_sub(data.len());
        self.received.push(Received { kind, data });
        if self.received.len() >= self.wanted {
            return Some(Stopped::MaxMessages);
        }
        (self.budget == 0).then_some(Stopped::SizeCap)
    }
}

/// The error for a connection that could not be made.
fn connect_failed(url: &str, why: &str) -> ToolError {
    ToolError::failed(format!(
        "cannot connect to `{url}` ({why}); check the host and port"
    ))
}

/// The error for a failed WebSocket handshake.
fn handshake_failed(url: &str, error: tungstenite::Error) -> ToolError {
    match error {
        tungstenite::Error::Http(response) => ToolError::failed(format!(
            "`{url}` did not accept a WebSocket connection: it answered HTTP {}; check the URL's path",
            response.status()
        )),
        other => ToolError::failed_with(
            format!("the WebSocket handshake with `{url}` failed"),
            other,
        ),
    }
}
