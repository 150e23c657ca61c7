//! [`SqliteAudit`]: the audit trail as a SQLite table.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};

use hermes_core::observe::{Observer, ToolCallRecord};
use hermes_core::redact::Redactor;
use rusqlite::{Connection, OpenFlags, params};

use super::AuditEntry;
use crate::TelemetryError;
use crate::store::open_wal;

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY,
    at TEXT NOT NULL,
    trace_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    user_id TEXT,
    tool_call_id TEXT NOT NULL,
    tool TEXT NOT NULL,
    arguments TEXT NOT NULL,
    decision TEXT NOT NULL,
    rule TEXT,
    outcome TEXT NOT NULL,
    error TEXT,
    duration_ms REAL NOT NULL,
    replayed INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS audit_trace ON audit (trace_id);
";

/// Inserts one row per tool call into the `audit` table of a SQLite file (it may be
/// the telemetry store's file).
///
/// Each entry is its own transaction in WAL mode: committed before the call's result
/// is handed on, and kept if the process dies right after. Writers from several
/// threads take turns on one connection.
#[derive(Debug)]
pub struct SqliteAudit {
    conn: Mutex<Connection>,
    path: PathBuf,
    redactor: Option<Redactor>,
    failures: AtomicU64,
}

impl SqliteAudit {
    /// Open (or create) the file and its `audit` table; masking on.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Open`] when the file cannot be opened or is not a database.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TelemetryError> {
        let path = path.as_ref().to_owned();
        let open = |source| TelemetryError::Open {
            path: path.clone(),
            source,
        };
        let conn = open_wal(&path, OpenFlags::default()).map_err(open)?;
        conn.execute_batch(SCHEMA).map_err(open)?;
        Ok(Self {
            conn: Mutex::new(conn),
            path,
            redactor: Some(Redactor::new()),
            failures: AtomicU64::new(0),
        })
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

    /// Insert one entry.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Sqlite`] when the insert fails.
    pub fn append(&self, entry: &AuditEntry) -> Result<(), TelemetryError> {
        let conn = self.conn.lock().unwrap_or_else(PoisonError::into_inner);
        conn.prepare_cached(
            "INSERT INTO audit (at, trace_id, session_id, user_id, tool_call_id, tool, \
             arguments, decision, rule, outcome, error, duration_ms, replayed) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)",
        )?
        .execute(params![
            entry.at,
            entry.trace_id,
            entry.session_id,
            entry.user_id,
            entry.tool_call_id,
            entry.tool,
            entry.arguments.to_string(),
            entry.decision,
            entry.rule,
            entry.outcome,
            entry.error,
            entry.duration_ms,
            entry.replayed,
        ])?;
        Ok(())
    }

    /// Every entry in the `audit` table of the file at `path`, in order.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Open`] or [`TelemetryError::Sqlite`] when it cannot be read.
    pub fn read(path: impl AsRef<Path>) -> Result<Vec<AuditEntry>, TelemetryError> {
        let path = path.as_ref();
        let conn = Connection::open_with_flags(path, OpenFlags::SQLITE_OPEN_READ_ONLY).map_err(
            |source| TelemetryError::Open {
                path: path.to_owned(),
                source,
            },
        )?;
        let mut query = conn.prepare(
            "SELECT at, trace_id, session_id, user_id, tool_call_id, tool, arguments, decision, \
             rule, outcome, error, duration_ms, replayed FROM audit ORDER BY id",
        )?;
        let rows = query.query_map([], |row| {
            let arguments: String = row.get(6)?;
            Ok(AuditEntry {
                at: row.get(0)?,
                trace_id: row.get(1)?,
                session_id: row.get(2)?,
                user_id: row.get(3)?,
                tool_call_id: row.get(4)?,
                tool: row.get(5)?,
                arguments: serde_json::from_str(&arguments)
                    .unwrap_or(serde_json::Value::String(arguments)),
                decision: row.get(7)?,
                rule: row.get(8)?,
                outcome: row.get(9)?,
                error: row.get(10)?,
                duration_ms: row.get(11)?,
                replayed: row.get(12)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

impl Observer for SqliteAudit {
    fn tool_call(&self, record: &ToolCallRecord<'_>) {
        let entry = AuditEntry::from_record(record, self.redactor.as_ref());
        if let Err(error) = self.append(&entry) {
            self.failures.fetch_add(1, Ordering::Relaxed);
            tracing::error!(%error, tool_call_id = record.tool_call_id, "audit entry not written");
        }
    }
}
