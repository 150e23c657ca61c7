//! A misbehaving OpenAI-compatible server on 127.0.0.1, written on bare TCP so it can
//! do what a well-behaved HTTP stack never would: reset a connection mid-body, stop a
//! stream without `[DONE]`, send broken JSON, go silent.
//!
//! It runs on its own thread and runtime, so its tasks never count among the tasks of
//! the test's runtime, and dropping it closes every connection it holds.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;

/// How the server answers one request.
#[derive(Debug, Clone)]
pub enum Reply {
    /// 200 with this JSON body; the connection stays open for the next request.
    Json(Value),
    /// This status and body, with `Retry-After` when given.
    Status {
        status: u16,
        retry_after: Option<String>,
        body: String,
    },
    /// A 200 body sent as is (for bodies that are not JSON).
    Raw(String),
    /// This status with a body of `bytes` bytes of HTML, written piece by piece (the
    /// server never holds it whole).
    HugeError { status: u16, bytes: usize },
    /// A stream of `: keep-alive` comments, one every `every`, that never answers.
    Trickle { every: Duration },
    /// A server-sent event stream: one `data:` event per item, then the end.
    Sse { events: Vec<String>, end: End },
    /// A 200 announcing `claimed` bytes of body, sending these, then a reset.
    CutBody { claimed: usize, sent: String },
    /// A reset before any answer.
    Reset,
    /// Wait, then answer.
    Delay(Duration, Box<Reply>),
    /// Never answer (the connection stays open until the server is dropped).
    Hang,
}

/// How a [`Reply::Sse`] stream ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// `data: [DONE]`, then the connection closes.
    Done,
    /// The connection closes, no `[DONE]`.
    Close,
    /// The connection is reset (TCP RST), no `[DONE]`.
    Reset,
    /// Nothing more is sent, and the connection stays open.
    Stall,
}

impl Reply {
    /// A status with a JSON error body.
    pub fn status(status: u16, message: &str) -> Self {
        Self::Status {
            status,
            retry_after: None,
            body: serde_json::json!({"error": {"message": message}}).to_string(),
        }
    }

    /// A 429 with `Retry-After: seconds`.
    pub fn rate_limited(seconds: &str) -> Self {
        Self::Status {
            status: 429,
            retry_after: Some(seconds.to_owned()),
            body: r#"{"error": {"message": "rate limited"}}"#.to_owned(),
        }
    }

    /// These JSON chunks as a stream ending in `[DONE]`.
    pub fn sse(chunks: &[Value]) -> Self {
        Self::sse_ending(chunks, End::Done)
    }

    /// These JSON chunks as a stream with this end.
    pub fn sse_ending(chunks: &[Value], end: End) -> Self {
        Self::Sse {
            events: chunks.iter().map(Value::to_string).collect(),
            end,
        }
    }

    /// Answer after `wait`.
    pub fn after(self, wait: Duration) -> Self {
        Self::Delay(wait, Box::new(self))
    }
}

/// What decides each reply: given the request's body, and its number (from 0).
pub type Handler = dyn Fn(&Value, usize) -> Reply + Send + Sync;

/// The server. Dropping it stops it and closes its connections.
pub struct FaultServer {
    /// `http://127.0.0.1:port/v1`.
    pub base_url: String,
    seen: Arc<Seen>,
    stop: Option<oneshot::Sender<()>>,
}

#[derive(Default)]
struct Seen {
    count: AtomicUsize,
    /// The request bodies, when recorded.
    bodies: Option<Mutex<Vec<Value>>>,
}

impl FaultServer {
    /// A server answering with `replies` in order, then 500s; it records every body.
    pub fn scripted(replies: Vec<Reply>) -> Self {
        let queue = Mutex::new(VecDeque::from(replies));
        Self::start(true, move |_, _| {
            queue
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop_front()
                .unwrap_or_else(|| Reply::status(500, "the test's script ran out"))
        })
    }

    /// A server answering each request with `handler`'s reply; `record` keeps the
    /// bodies for [`requests`](Self::requests).
    pub fn start(
        record: bool,
        handler: impl Fn(&Value, usize) -> Reply + Send + Sync + 'static,
    ) -> Self {
        let handler: Arc<Handler> = Arc::new(handler);
        let seen = Arc::new(Seen {
            count: AtomicUsize::new(0),
            bodies: record.then(Mutex::default),
        });
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let base_url = format!("http://{}/v1", listener.local_addr().unwrap());
        let (stop, stopped) = oneshot::channel();
        let shared = seen.clone();
        std::thread::Builder::new()
            .name("fault-server".into())
            .spawn(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .unwrap();
                runtime.block_on(async move {
                    let listener = TcpListener::from_std(listener).unwrap();
                    tokio::select! {
                        _ = stopped => {}
                        () = accept(listener, handler, shared) => {}
                    }
                });
                // Dropping the runtime drops every connection task, open sockets too.
            })
            .unwrap();
        Self {
            base_url,
            seen,
            stop: Some(stop),
        }
    }

    /// How many requests arrived.
    pub fn count(&self) -> usize {
        self.seen.count.load(Ordering::SeqCst)
    }

    /// The recorded request bodies, in arrival order.
    pub fn requests(&self) -> Vec<Value> {
        self.seen
            .bodies
            .as_ref()
            .map(|bodies| {
                bodies
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .clone()
            })
            .unwrap_or_default()
    }
}

impl Drop for FaultServer {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

async fn accept(listener: TcpListener, handler: Arc<Handler>, seen: Arc<Seen>) {
    loop {
        let Ok((socket, _)) = listener.accept().await else {
            // Out of descriptors, say: let connections close before trying again.
            tokio::time::sleep(Duration::from_millis(10)).await;
            continue;
        };
        let _ = socket.set_nodelay(true);
        tokio::spawn(serve(socket, handler.clone(), seen.clone()));
    }
}

/// Serve the requests of one connection until a reply closes it or the client leaves.
async fn serve(mut socket: TcpStream, handler: Arc<Handler>, seen: Arc<Seen>) {
    let mut buffer = Vec::new();
    while let Some(body) = read_request(&mut socket, &mut buffer).await {
        let number = seen.count.fetch_add(1, Ordering::SeqCst);
        if let Some(bodies) = &seen.bodies {
            bodies
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(body.clone());
        }
        let reply = handler(&body, number);
        if !answer(&mut socket, reply).await {
            return;
        }
    }
}

/// Write `reply`; false when the connection is done.
async fn answer(socket: &mut TcpStream, mut reply: Reply) -> bool {
    while let Reply::Delay(wait, inner) = reply {
        tokio::time::sleep(wait).await;
        reply = *inner;
    }
    match reply {
        Reply::Json(value) => write_whole(socket, 200, &[], &value.to_string()).await,
        Reply::Raw(text) => write_whole(socket, 200, &[], &text).await,
        Reply::Status {
            status,
            retry_after,
            body,
        } => {
            let headers: Vec<(&str, &str)> = retry_after
                .as_deref()
                .map(|seconds| ("retry-after", seconds))
                .into_iter()
                .collect();
            write_whole(socket, status, &headers, &body).await
        }
        Reply::HugeError { status, bytes } => write_huge(socket, status, bytes).await,
        Reply::Trickle { every } => {
            let head =
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
            if socket.write_all(head.as_bytes()).await.is_ok() {
                while socket.write_all(b": keep-alive\n\n").await.is_ok() {
                    tokio::time::sleep(every).await;
                }
            }
            false
        }
        Reply::Sse { events, end } => {
            write_sse(socket, &events, end).await;
            false
        }
        Reply::CutBody { claimed, sent } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {claimed}\r\n\r\n{sent}"
            );
            let _ = socket.write_all(head.as_bytes()).await;
            let _ = socket.flush().await;
            tokio::time::sleep(Duration::from_millis(20)).await;
            reset(socket);
            false
        }
        Reply::Reset => {
            reset(socket);
            false
        }
        Reply::Hang | Reply::Delay(..) => std::future::pending().await,
    }
}

async fn write_whole(
    socket: &mut TcpStream,
    status: u16,
    headers: &[(&str, &str)],
    body: &str,
) -> bool {
    let mut head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    head.push_str(body);
    socket.write_all(head.as_bytes()).await.is_ok()
}

async fn write_huge(socket: &mut TcpStream, status: u16, bytes: usize) -> bool {
    let head = format!(
        "HTTP/1.1 {status} X\r\ncontent-type: text/html\r\ncontent-length: {bytes}\r\n\r\n"
    );
    if socket.write_all(head.as_bytes()).await.is_err() {
        return false;
    }
    let piece = "<p>upstream error</p>".repeat(3000);
    let mut left = bytes;
    while left > 0 {
        let n = left.min(piece.len());
        if socket.write_all(&piece.as_bytes()[..n]).await.is_err() {
            // The client stopped reading: it has what it wanted.
            return false;
        }
        left -= n;
    }
    true
}

async fn write_sse(socket: &mut TcpStream, events: &[String], end: End) {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";
    if socket.write_all(head.as_bytes()).await.is_err() {
        return;
    }
    for event in events {
        // One event per write, so the client really reads them one by one.
        let _ = socket
            .write_all(format!("data: {event}\n\n").as_bytes())
            .await;
        let _ = socket.flush().await;
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
    match end {
        End::Done => {
            let _ = socket.write_all(b"data: [DONE]\n\n").await;
            let _ = socket.shutdown().await;
        }
        End::Close => {
            let _ = socket.shutdown().await;
        }
        End::Reset => {
            tokio::time::sleep(Duration::from_millis(20)).await;
            reset(socket);
        }
        End::Stall => std::future::pending().await,
    }
}

/// Make the kernel answer with RST: linger zero, then close.
fn reset(socket: &TcpStream) {
    let _ = socket.set_zero_linger();
    // The caller drops the socket right after.
}

/// One request's JSON body; `None` when the client closed the connection. `buffer`
/// carries bytes read past this request to the next.
async fn read_request(socket: &mut TcpStream, buffer: &mut Vec<u8>) -> Option<Value> {
    let mut chunk = [0u8; 16 * 1024];
    let header_end = loop {
        if let Some(at) = buffer.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buffer[..header_end]).to_ascii_lowercase();
    let length: usize = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim() == "content-length")
        .and_then(|(_, value)| value.trim().parse().ok())
        .unwrap_or(0);
    while buffer.len() < header_end + length {
        let n = socket.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buffer.extend_from_slice(&chunk[..n]);
    }
    let body: Vec<u8> = buffer
        .drain(..header_end + length)
        .skip(header_end)
        .collect();
    Some(serde_json::from_slice(&body).unwrap_or(Value::Null))
}
