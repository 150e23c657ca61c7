//! [`TelemetryStore`]: the SQLite file telemetry is kept in, and the queries over it.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use rusqlite::{Connection, OpenFlags, params};

use crate::TelemetryError;
use crate::report::{self, Report};
use crate::row::{LlmCallRow, ToolCallRow, epoch_ms};
use crate::series::{self, Bucket};

const SCHEMA: &str = "
CREATE TABLE IF NOT EXISTS tool_calls (
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    trace_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    user_id TEXT,
    tool TEXT NOT NULL,
    outcome TEXT NOT NULL,
    duration_us INTEGER NOT NULL,
    replayed INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS tool_calls_at ON tool_calls (at_ms);
CREATE TABLE IF NOT EXISTS llm_calls (
    id INTEGER PRIMARY KEY,
    at_ms INTEGER NOT NULL,
    trace_id TEXT NOT NULL,
    session_id TEXT NOT NULL,
    user_id TEXT,
    round INTEGER NOT NULL,
    duration_us INTEGER NOT NULL,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    tools TEXT NOT NULL,
    error TEXT
);
CREATE INDEX IF NOT EXISTS llm_calls_at ON llm_calls (at_ms);
";

/// A telemetry store: one SQLite file in WAL mode, so one process writes while others
/// (`hermes telemetry report`, `hermes dashboard`) read.
///
/// ```
/// use std::time::Duration;
/// use hermes_telemetry::{TelemetryStore, ToolCallRow};
///
/// let dir = tempfile::tempdir()?;
/// let mut store = TelemetryStore::open(dir.path().join("telemetry.db"))?;
/// let now = hermes_telemetry::epoch_ms(std::time::SystemTime::now());
/// store.insert(&[ToolCallRow {
///     at_ms: now,
///     trace_id: "t1".into(),
///     session_id: "s1".into(),
///     user_id: None,
///     tool: "calc".into(),
///     outcome: "ok".into(),
///     duration_us: 1500,
///     replayed: false,
/// }], &[])?;
/// let report = store.report(Duration::from_secs(3600))?;
/// assert_eq!(report.total_calls, 1);
/// assert_eq!(report.top_tools[0].avg_latency_ms, 1.5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct TelemetryStore {
    conn: Connection,
    path: PathBuf,
}

impl TelemetryStore {
    /// Open `path`, creating the file, its directory and the tables if needed.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Open`] when the file cannot be opened or is not a database;
    /// [`TelemetryError::Io`] when its directory cannot be created.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, TelemetryError> {
        let path = path.as_ref().to_owned();
        if let Some(dir) = path.parent().filter(|dir| !dir.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir).map_err(|source| TelemetryError::Io {
                path: dir.to_owned(),
                source,
            })?;
        }
        let conn =
            open_wal(&path, OpenFlags::default()).map_err(|source| TelemetryError::Open {
                path: path.clone(),
                source,
            })?;
        conn.execute_batch(SCHEMA)
            .map_err(|source| TelemetryError::Open {
                path: path.clone(),
                source,
            })?;
        Ok(Self { conn, path })
    }

    /// Open an existing store for reading only; a missing file is an error rather than
    /// an empty store, so a mistyped path is noticed.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Open`].
    pub fn open_read_only(path: impl AsRef<Path>) -> Result<Self, TelemetryError> {
        let path = path.as_ref().to_owned();
        let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX;
        let conn = Connection::open_with_flags(&path, flags)
            .and_then(|conn| {
                conn.busy_timeout(Duration::from_secs(5))?;
                // Fails here, not at the first query, when the file is not a store.
                conn.query_row("SELECT count(*) FROM tool_calls", [], |_| Ok(()))?;
                Ok(conn)
            })
            .map_err(|source| TelemetryError::Open {
                path: path.clone(),
                source,
            })?;
        Ok(Self { conn, path })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Append rows, all in one transaction.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Sqlite`] when the write fails (nothing is written then).
    pub fn insert(
        &mut self,
        tools: &[ToolCallRow],
        llm: &[LlmCallRow],
    ) -> Result<(), TelemetryError> {
        let tx = self.conn.transaction()?;
        {
            let mut insert = tx.prepare_cached(
                "INSERT INTO tool_calls (at_ms, trace_id, session_id, user_id, tool, outcome, \
                 duration_us, replayed) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
            )?;
            for row in tools {
                insert.execute(params![
                    row.at_ms,
                    row.trace_id,
                    row.session_id,
                    row.user_id,
                    row.tool,
                    row.outcome,
                    row.duration_us,
                    row.replayed,
                ])?;
            }
            let mut insert = tx.prepare_cached(
                "INSERT INTO llm_calls (at_ms, trace_id, session_id, user_id, round, duration_us, \
                 prompt_tokens, completion_tokens, tools, error) \
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
            )?;
            for row in llm {
                let tools = serde_json::to_string(&row.tools).unwrap_or_else(|_| "[]".into());
                insert.execute(params![
                    row.at_ms,
                    row.trace_id,
                    row.session_id,
                    row.user_id,
                    row.round,
                    row.duration_us,
                    i64::try_from(row.prompt_tokens).unwrap_or(i64::MAX),
                    i64::try_from(row.completion_tokens).unwrap_or(i64::MAX),
                    tools,
                    row.error,
                ])?;
            }
        }
        tx.commit()?;
        Ok(())
    }

    /// The report over the last `period` (see [`Report`]).
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Sqlite`] when the store cannot be read.
    pub fn report(&self, period: Duration) -> Result<Report, TelemetryError> {
        let since = since(period);
        let tools = self.tool_calls_since(since)?;
        let llm = self.llm_calls_since(since)?;
        Ok(report::build(period, &tools, &llm))
    }

    /// Calls, errors and tokens over the last `period`, in `buckets` equal slices,
    /// oldest first (for the dashboard's charts).
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Sqlite`] when the store cannot be read.
    pub fn series(&self, period: Duration, buckets: u32) -> Result<Vec<Bucket>, TelemetryError> {
        let now = epoch_ms(SystemTime::now());
        let since = since(period);
        let tools = self.tool_calls_since(since)?;
        let llm = self.llm_calls_since(since)?;
        Ok(series::build(since, now, buckets, &tools, &llm))
    }

    /// Tool calls that ended at or after `since_ms`, oldest first.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Sqlite`] when the store cannot be read.
    pub fn tool_calls_since(&self, since_ms: i64) -> Result<Vec<ToolCallRow>, TelemetryError> {
        let mut query = self.conn.prepare_cached(
            "SELECT at_ms, trace_id, session_id, user_id, tool, outcome, duration_us, replayed \
             FROM tool_calls WHERE at_ms >= ?1 ORDER BY at_ms, id",
        )?;
        let rows = query.query_map([since_ms], |row| {
            Ok(ToolCallRow {
                at_ms: row.get(0)?,
                trace_id: row.get(1)?,
                session_id: row.get(2)?,
                user_id: row.get(3)?,
                tool: row.get(4)?,
                outcome: row.get(5)?,
                duration_us: row.get(6)?,
                replayed: row.get(7)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Model calls that ended at or after `since_ms`, oldest first.
    ///
    /// # Errors
    ///
    /// [`TelemetryError::Sqlite`] when the store cannot be read.
    pub fn llm_calls_since(&self, since_ms: i64) -> Result<Vec<LlmCallRow>, TelemetryError> {
        let mut query = self.conn.prepare_cached(
            "SELECT at_ms, trace_id, session_id, user_id, round, duration_us, prompt_tokens, \
             completion_tokens, tools, error FROM llm_calls WHERE at_ms >= ?1 ORDER BY at_ms, id",
        )?;
        let rows = query.query_map([since_ms], |row| {
            let tools: String = row.get(8)?;
            Ok(LlmCallRow {
                at_ms: row.get(0)?,
                trace_id: row.get(1)?,
                session_id: row.get(2)?,
                user_id: row.get(3)?,
                round: row.get(4)?,
                duration_us: row.get(5)?,
                prompt_tokens: u64::try_from(row.get::<_, i64>(6)?).unwrap_or(0),
                completion_tokens: u64::try_from(row.get::<_, i64>(7)?).unwrap_or(0),
                tools: serde_json::from_str(&tools).unwrap_or_default(),
                error: row.get(9)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

/// A connection in WAL mode that waits for a busy writer rather than failing.
pub(crate) fn open_wal(path: &Path, flags: OpenFlags) -> rusqlite::Result<Connection> {
    let conn = Connection::open_with_flags(path, flags)?;
    conn.busy_timeout(Duration::from_secs(5))?;
    conn.pragma_update(None, "journal_mode", "WAL")?;
    // With WAL, NORMAL loses nothing when the process dies; only a power cut can take
    // the last transactions.
    conn.pragma_update(None, "synchronous", "NORMAL")?;
    Ok(conn)
}

fn since(period: Duration) -> i64 {
    let now = epoch_ms(SystemTime::now());
    now.saturating_sub(i64::try_from(period.as_millis()).unwrap_or(i64::MAX))
}
