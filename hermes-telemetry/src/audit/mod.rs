//! The audit trail: one [`AuditEntry`] per tool call, masked, appended where it
//! survives a crash.
//!
//! An [`AuditTrail`] is the [`Observer`] to install on an agent or a dispatcher: it
//! builds the entry of each call, masks it, and hands it to an [`AuditSink`]:
//! - [`JsonlAudit`]: one JSON object per line, appended with a single `write` per
//!   entry (no buffer in the process, so a crash loses nothing already recorded);
//!   [`durable`](JsonlAudit::durable) adds an `fsync` per entry against power loss.
//! - [`SqliteAudit`]: a table in a SQLite file (WAL), one transaction per entry.
//! - your own, for another database or a log service.
//!
//! Entries are written on the calling task, after the call and before its result is
//! handed on: an entry is on disk before the model sees the result. Arguments, error
//! messages and the session and user ids are masked ([`hermes_core::redact`]) unless
//! the trail is told to keep PII.
//!
//! ```
//! use hermes_core::{Dispatcher, Registry, RunContext, ToolCall, demo::Calc};
//! use hermes_telemetry::audit::{AuditTrail, JsonlAudit};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let dir = tempfile::tempdir()?;
//! let path = dir.path().join("audit.jsonl");
//! let registry = Registry::new();
//! registry.register(Calc::new())?;
//! let trail = AuditTrail::new(JsonlAudit::open(&path)?);
//! let gateway = Dispatcher::builder(registry).observer(trail).build()?;
//! let run = RunContext::new().with_user("ada@example.com");
//! gateway.dispatch(&ToolCall::new("c1", "calc", r#"{"expression": "2+2"}"#), &run).await;
//!
//! let entries = JsonlAudit::read(&path)?;
//! assert_eq!(entries[0].tool, "calc");
//! assert_eq!(entries[0].decision, "allowed");
//! assert_eq!(entries[0].user_id.as_deref(), Some("[EMAIL]"));
//! # Ok(())
//! # }
//! ```

mod jsonl;
mod sqlite;

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use hermes_core::observe::{Observer, ToolCallRecord};
use hermes_core::redact::Redactor;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use time::OffsetDateTime;

pub use jsonl::JsonlAudit;
pub use sqlite::SqliteAudit;

use crate::TelemetryError;

/// Where audit entries go. `append` runs on the calling task, once per tool call:
/// write the entry durably and return; do not queue it in memory.
pub trait AuditSink: Send + Sync + fmt::Debug + 'static {
    /// Store one entry.
    ///
    /// # Errors
    ///
    /// Whatever kept it from being stored; the trail counts and logs it.
    fn append(&self, entry: &AuditEntry) -> Result<(), TelemetryError>;
}

/// The audit trail of a gateway: an [`Observer`] that masks each tool call's entry and
/// appends it to its [`AuditSink`].
#[derive(Debug)]
pub struct AuditTrail {
    sink: Box<dyn AuditSink>,
    redactor: Option<Redactor>,
    failures: AtomicU64,
}

impl AuditTrail {
    /// A trail into `sink`, masking with the default redactor.
    pub fn new(sink: impl AuditSink) -> Self {
        Self {
            sink: Box::new(sink),
            redactor: Some(Redactor::new()),
            failures: AtomicU64::new(0),
        }
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

    /// Entries the sink could not store (each is logged as an error).
    pub fn failures(&self) -> u64 {
        self.failures.load(Ordering::Relaxed)
    }
}

impl Observer for AuditTrail {
    fn tool_call(&self, record: &ToolCallRecord<'_>) {
        let entry = AuditEntry::from_record(record, self.redactor.as_ref());
        if let Err(error) = self.sink.append(&entry) {
            self.failures.fetch_add(1, Ordering::Relaxed);
            tracing::error!(%error, tool_call_id = record.tool_call_id, "audit entry not written");
        }
    }
}

/// One tool call in the audit trail.
///
/// ```json
/// {"at": "2026-11-30T06:01:02.345Z", "trace_id": "9f2c4e1a0b3d", "session_id": "s1",
///  "user_id": "[EMAIL]", "tool_call_id": "call_1", "tool": "file_write",
///  "arguments": {"path": "notes.md", "content": "mail [EMAIL]"},
///  "decision": "allowed", "rule": "tool:file:*", "outcome": "ok", "error": null,
///  "duration_ms": 1.25, "replayed": false}
/// ```
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AuditEntry {
    /// When the call ended, RFC 3339 in UTC.
    pub at: String,
    /// The run's trace id.
    pub trace_id: String,
    /// The session.
    pub session_id: String,
    /// The user, when the run named one.
    pub user_id: Option<String>,
    /// The call's id.
    pub tool_call_id: String,
    /// The tool (the model's name when there is no such tool).
    pub tool: String,
    /// The arguments as sent, masked: the JSON value, or the string when it was not
    /// JSON.
    pub arguments: Value,
    /// What the permission step decided: `allowed`, `denied`, `approved`, `refused`,
    /// or `not_reached` when the call failed before it.
    pub decision: String,
    /// The rule that decided, when the policy named one.
    pub rule: Option<String>,
    /// `ok` or the error kind.
    pub outcome: String,
    /// The error message, masked, when the call failed.
    pub error: Option<String>,
    /// Time in the gateway, in milliseconds.
    pub duration_ms: f64,
    /// True when the result was reused, not run.
    pub replayed: bool,
}

impl AuditEntry {
    /// The entry for one gateway record, masked with `redactor` unless it is `None`.
    pub fn from_record(record: &ToolCallRecord<'_>, redactor: Option<&Redactor>) -> Self {
        let mask = |text: &str| -> String {
            redactor.map_or_else(|| text.to_owned(), |r| r.mask(text).into_owned())
        };
        let mut arguments = serde_json::from_str(record.arguments)
            .unwrap_or_else(|_| Value::String(record.arguments.to_owned()));
        if let Some(redactor) = redactor {
            redactor.mask_json(&mut arguments);
        }
        let at = rfc3339_millis(OffsetDateTime::from(record.at));
        Self {
            at,
            trace_id: record.origin.trace_id.to_owned(),
            session_id: mask(record.origin.session_id),
            user_id: record.origin.user_id.map(mask),
            tool_call_id: record.tool_call_id.to_owned(),
            tool: record.tool.to_owned(),
            arguments,
            decision: record.permission.decision.as_str().to_owned(),
            rule: record.permission.rule.as_deref().map(str::to_owned),
            outcome: record.outcome.as_str().to_owned(),
            error: record.error.map(|error| mask(&error.to_string())),
            // Microsecond precision: enough, and no float noise in the file.
            duration_ms: (record.duration.as_secs_f64() * 1e6).round() / 1e3,
            replayed: record.replayed,
        }
    }
}

/// `2026-11-30T06:01:02.345Z`: always UTC, always three decimals, so entries sort as
/// text.
fn rfc3339_millis(at: OffsetDateTime) -> String {
    let at = at.to_offset(time::UtcOffset::UTC);
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        at.year(),
        u8::from(at.month()),
        at.day(),
        at.hour(),
        at.minute(),
        at.second(),
        at.millisecond()
    )
}
