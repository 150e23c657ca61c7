//! [`TelemetryCollector`]: records every call through a channel to a writer thread.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, TrySendError, sync_channel};
use std::thread::JoinHandle;
use std::time::Duration;

use hermes_core::observe::{LlmCallRecord, Observer, ToolCallRecord};
use hermes_core::redact::Redactor;

use crate::report::Report;
use crate::row::{LlmCallRow, ToolCallRow};
use crate::{TelemetryError, TelemetryStore};

/// Records queued at most before new ones are dropped (and counted), by default.
pub const DEFAULT_CAPACITY: usize = 65_536;
/// Rows written per transaction at most.
const BATCH: usize = 4_096;

enum Message {
    Tool(ToolCallRow),
    Llm(LlmCallRow),
    Flush(SyncSender<()>),
}

/// Collects telemetry from a gateway and an agent loop into a [`TelemetryStore`].
///
/// Install it as an [`Observer`]
/// ([`AgentBuilder::observer`](hermes_core::AgentBuilder::observer),
/// [`DispatcherBuilder::observer`](hermes_core::DispatcherBuilder::observer)). On the
/// calling task it only copies the record and puts it in a bounded channel, without
/// waiting and without taking a lock; a writer thread masks the session and user ids
/// (unless [`keep_pii`](TelemetryCollectorBuilder::keep_pii)) and writes them in
/// batches, one transaction each. When the channel is full, records are dropped and
/// counted ([`dropped`](Self::dropped)) rather than slowing the calls down.
///
/// Clones share the writer. When the last clone is dropped, what is queued is written
/// before the drop returns.
///
/// ```
/// use std::time::Duration;
/// use hermes_core::{Agent, Registry, ScriptedBackend, ScriptedTurn, ToolCall, demo::Calc};
/// use hermes_telemetry::TelemetryCollector;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let telemetry = TelemetryCollector::open(dir.path().join("telemetry.db"))?;
/// let registry = Registry::new();
/// registry.register(Calc::new())?;
/// let agent = Agent::builder()
///     .backend(ScriptedBackend::new([
///         ScriptedTurn::tool_calls([ToolCall::new("c1", "calc", r#"{"expression": "6*7"}"#)]),
///         ScriptedTurn::text("42"),
///     ]))
///     .registry(registry)
///     .observer(telemetry.clone())
///     .build()?;
/// agent.run("6 times 7?").await;
///
/// let report = telemetry.report(Duration::from_secs(3600))?;
/// assert_eq!(report.total_calls, 1);
/// assert_eq!(report.top_tools[0].name, "calc");
/// assert!(report.token_consumption.by_tool["calc"] > 0);
/// # Ok(())
/// # }
/// ```
#[derive(Debug, Clone)]
pub struct TelemetryCollector {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    path: PathBuf,
    sender: Option<SyncSender<Message>>,
    writer: Option<JoinHandle<()>>,
    counters: Arc<Counters>,
}

#[derive(Debug, Default)]
struct Counters {
    dropped: AtomicU64,
    failed_writes: AtomicU64,
}

impl TelemetryCollector {
    /// A collector writing to the store at `path` (created if needed), with the
    /// default capacity, masking session and user ids.
    ///
    /// # Errors
    ///
    /// As [`TelemetryStore::open`].
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TelemetryError> {
        Self::builder(path).build()
    }

    /// Configure a collector.
    pub fn builder(path: impl AsRef<Path>) -> TelemetryCollectorBuilder {
        TelemetryCollectorBuilder {
            path: path.as_ref().to_owned(),
            capacity: DEFAULT_CAPACITY,
            redactor: Some(Redactor::new()),
        }
    }

    /// The store's file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    /// Wait until everything recorded so far is written.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::WriterGone`] if the writer thread is gone.
    pub fn flush(&self) -> Result<(), TelemetryError> {
        let gone = || TelemetryError::WriterGone("it no longer takes records".into());
        let sender = self.inner.sender.as_ref().ok_or_else(gone)?;
        let (ack, done) = sync_channel(1);
        sender.send(Message::Flush(ack)).map_err(|_| gone())?;
        done.recv().map_err(|_| gone())
    }

    /// [`flush`](Self::flush), then the report over the last `period`, read from the
    /// store (so it covers earlier processes too). Blocks on SQLite: from async code,
    /// call it in `spawn_blocking`.
    ///
    /// # Errors
    ///
    /// As [`flush`](Self::flush) and [`TelemetryStore::report`].
    pub fn report(&self, period: Duration) -> Result<Report, TelemetryError> {
        self.flush()?;
        TelemetryStore::open_read_only(&self.inner.path)?.report(period)
    }

    /// Records dropped because the channel was full.
    pub fn dropped(&self) -> u64 {
        self.inner.counters.dropped.load(Ordering::Relaxed)
    }

    /// Batches the writer failed to write (each is logged).
    pub fn failed_writes(&self) -> u64 {
        self.inner.counters.failed_writes.load(Ordering::Relaxed)
    }

    fn send(&self, message: Message) {
        let Some(sender) = &self.inner.sender else {
            return;
        };
        match sender.try_send(message) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Disconnected(_)) => {
                self.inner.counters.dropped.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
}

impl Observer for TelemetryCollector {
    fn tool_call(&self, record: &ToolCallRecord<'_>) {
        self.send(Message::Tool(ToolCallRow::from_record(record)));
    }

    fn llm_call(&self, record: &LlmCallRecord<'_>) {
        self.send(Message::Llm(LlmCallRow::from_record(record)));
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // Closing the channel ends the writer's loop once the queue is written.
        drop(self.sender.take());
        if let Some(writer) = self.writer.take() {
            let _ = writer.join();
        }
    }
}

/// Configures a [`TelemetryCollector`]; see [`TelemetryCollector::builder`].
#[derive(Debug)]
#[must_use]
pub struct TelemetryCollectorBuilder {
    path: PathBuf,
    capacity: usize,
    redactor: Option<Redactor>,
}

impl TelemetryCollectorBuilder {
    /// Queue at most this many records (default [`DEFAULT_CAPACITY`]).
    pub fn capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(1);
        self
    }

    /// Store session and user ids as they are (by default, PII in them, an email
    /// used as a user id say, is masked).
    pub fn keep_pii(mut self) -> Self {
        self.redactor = None;
        self
    }

    /// Mask with this redactor instead of the default one.
    pub fn redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = Some(redactor);
        self
    }

    /// Open the store and start the writer thread.
    ///
    /// # Errors
    ///
    /// As [`TelemetryStore::open`]; [`TelemetryError::Io`] if the thread cannot start.
    pub fn build(self) -> Result<TelemetryCollector, TelemetryError> {
        let store = TelemetryStore::open(&self.path)?;
        let (sender, receiver) = sync_channel(self.capacity);
        let counters = Arc::new(Counters::default());
        let writer = Writer {
            store,
            redactor: self.redactor,
            counters: counters.clone(),
        };
        let writer = std::thread::Builder::new()
            .name("hermes-telemetry".into())
            .spawn(move || writer.run(&receiver))
            .map_err(|source| TelemetryError::Io {
                path: self.path.clone(),
                source,
            })?;
        Ok(TelemetryCollector {
            inner: Arc::new(Inner {
                path: self.path,
                sender: Some(sender),
                writer: Some(writer),
                counters,
            }),
        })
    }
}

struct Writer {
    store: TelemetryStore,
    redactor: Option<Redactor>,
    counters: Arc<Counters>,
}

impl Writer {
    fn run(mut self, receiver: &Receiver<Message>) {
        let mut tools = Vec::new();
        let mut llm = Vec::new();
        let mut acks = Vec::new();
        while let Ok(first) = receiver.recv() {
            let mut next = Some(first);
            while let Some(message) = next {
                match message {
                    Message::Tool(row) => tools.push(row),
                    Message::Llm(row) => llm.push(row),
                    Message::Flush(ack) => acks.push(ack),
                }
                next = if tools.len() + llm.len() < BATCH {
                    receiver.try_recv().ok()
                } else {
                    None
                };
            }
            self.write(&mut tools, &mut llm);
            for ack in acks.drain(..) {
                let _ = ack.send(());
            }
        }
    }

    fn write(&mut self, tools: &mut Vec<ToolCallRow>, llm: &mut Vec<LlmCallRow>) {
        if tools.is_empty() && llm.is_empty() {
            return;
        }
        if let Some(redactor) = &self.redactor {
            for row in tools.iter_mut() {
                mask_ids(redactor, &mut row.session_id, &mut row.user_id);
            }
            for row in llm.iter_mut() {
                mask_ids(redactor, &mut row.session_id, &mut row.user_id);
            }
        }
        if let Err(error) = self.store.insert(tools, llm) {
            self.counters.failed_writes.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(
                path = %self.store.path().display(),
                rows = tools.len() + llm.len(),
                %error,
                "telemetry batch not written"
            );
        }
        tools.clear();
        llm.clear();
    }
}

fn mask_ids(redactor: &Redactor, session_id: &mut String, user_id: &mut Option<String>) {
    let mask = |text: &mut String| {
        if let std::borrow::Cow::Owned(masked) = redactor.mask(text) {
            *text = masked;
        }
    };
    mask(session_id);
    if let Some(user) = user_id {
        mask(user);
    }
}
