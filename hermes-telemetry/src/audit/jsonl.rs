//! [`JsonlAudit`]: the audit trail as a JSON Lines file.

use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use hermes_core::observe::{Observer, ToolCallRecord};
use hermes_core::redact::Redactor;

use super::AuditEntry;
use crate::TelemetryError;

/// Appends one JSON line per tool call to a file.
///
/// Each entry is written with one `write` on a file opened for appending, so entries
/// from several processes do not interleave, and nothing waits in a buffer: once the
/// call's result is handed on, its entry is in the kernel's hands and survives the
/// process dying. [`durable`](Self::durable) also syncs it to disk.
///
/// ```
/// use hermes_core::{Dispatcher, Registry, RunContext, ToolCall, demo::Calc};
/// use hermes_telemetry::audit::JsonlAudit;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let dir = tempfile::tempdir()?;
/// let path = dir.path().join("audit.jsonl");
/// let registry = Registry::new();
/// registry.register(Calc::new())?;
/// let gateway = Dispatcher::builder(registry).observer(JsonlAudit::open(&path)?).build()?;
/// let run = RunContext::new().with_user("ada@example.com");
/// gateway.dispatch(&ToolCall::new("c1", "calc", r#"{"expression": "2+2"}"#), &run).await;
///
/// let entries = JsonlAudit::read(&path)?;
/// assert_eq!(entries[0].tool, "calc");
/// assert_eq!(entries[0].decision, "allowed");
/// assert_eq!(entries[0].user_id.as_deref(), Some("[EMAIL]"));
/// # Ok(())
/// # }
/// ```
#[derive(Debug)]
pub struct JsonlAudit {
    file: File,
    path: PathBuf,
    redactor: Option<Redactor>,
    durable: bool,
    failures: AtomicU64,
}

impl JsonlAudit {
    /// Append to `path`, creating it (and its directory) if needed; masking on.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Io`] when the file cannot be opened for appending.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TelemetryError> {
        let path = path.as_ref().to_owned();
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| TelemetryError::Io { path, source }
        };
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(io(dir))?;
        }
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(io(&path))?;
        Ok(Self {
            file,
            path,
            redactor: Some(Redactor::new()),
            durable: false,
            failures: AtomicU64::new(0),
        })
    }

    /// Sync each entry to disk before the call's result is handed on (an `fsync` per
    /// call: safe against power loss, slower).
    #[must_use]
    pub fn durable(mut self) -> Self {
        self.durable = true;
        self
    }

    /// Keep arguments, errors and ids as they are, PII included.
    #[must_use]
    pub fn keep_pii(mut self) -> Self {
        self.redactor = None;
        self
    }

    /// Mask with this redactor instead of the default one.
    #[must_use]
    pub fn redactor(mut self, redactor: Redactor) -> Self {
        self.redactor = Some(redactor);
        self
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Entries that could not be written (each is logged).
    pub fn failures(&self) -> u64 {
        self.failures.load(Ordering::Relaxed)
    }

    /// Append one entry.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Io`] when the write (or the sync) fails.
    pub fn append(&self, entry: &AuditEntry) -> Result<(), TelemetryError> {
        let mut line = serde_json::to_vec(entry).unwrap_or_default();
        line.push(b'\n');
        let io = |source| TelemetryError::Io {
            path: self.path.clone(),
            source,
        };
        (&self.file).write_all(&line).map_err(io)?;
        if self.durable {
            self.file.sync_data().map_err(io)?;
        }
        Ok(())
    }

    /// Every entry of the file at `path`, in order.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Io`] when the file cannot be read, or a line is not an entry
    /// (its number is in the message).
    pub fn read(path: impl AsRef<Path>) -> Result<Vec<AuditEntry>, TelemetryError> {
        let path = path.as_ref();
        let io = |source| TelemetryError::Io {
            path: path.to_owned(),
            source,
        };
        let file = File::open(path).map_err(io)?;
        let mut entries = Vec::new();
        for (number, line) in BufReader::new(file).lines().enumerate() {
            let line = line.map_err(io)?;
            if line.trim().is_empty() {
                continue;
            }
            let entry = serde_json::from_str(&line).map_err(|error| {
                io(std::io::Error::new(
                    std::io::ErrorKind::InvalidData,
                    format!("line {} is not an audit entry: {error}", number + 1),
                ))
            })?;
            entries.push(entry);
        }
        Ok(entries)
    }
}

impl Observer for JsonlAudit {
    fn tool_call(&self, record: &ToolCallRecord<'_>) {
        let entry = AuditEntry::from_record(record, self.redactor.as_ref());
        if let Err(error) = self.append(&entry) {
            self.failures.fetch_add(1, Ordering::Relaxed);
            tracing::error!(%error, tool_call_id = record.tool_call_id, "audit entry not written");
        }
    }
}
