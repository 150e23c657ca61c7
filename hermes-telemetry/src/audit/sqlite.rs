//! [`SqliteAudit`]: the audit trail as a SQLite table.

use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};

use rusqlite::{Connection, OpenFlags, params};

use super::{AuditEntry, AuditSink};
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

/// An [`AuditSink`] inserting one row per entry into the `audit` table of a SQLite
/// file (it may be the telemetry store's file).
///
/// Each entry is its own transaction in WAL mode: committed before the call's result
/// is handed on, and kept if the process dies right after. Writers from several
/// threads take turns on one connection.
#[derive(Debug)]
pub struct SqliteAudit {
    conn: Mutex<Connection>,
    path: PathBuf,
}

impl SqliteAudit {
    /// Open (or create) the file and its `audit` table.
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
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
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

impl AuditSink for SqliteAudit {
    fn append(&self, entry: &AuditEntry) -> Result<(), TelemetryError> {
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
}
