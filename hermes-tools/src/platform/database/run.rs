//! Running one statement: in a transaction of its own (read-only unless writes are
//! allowed, rolled back unless they are), under a deadline the server enforces and the
//! tool backs up, its rows collected up to the caps.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use futures_util::TryStreamExt as _;
use serde::Serialize;
use serde_json::Value;
use sqlx::{
    Column as _, Connection as _, Database, Either, Executor, IntoArguments, Row, TypeInfo as _,
};

use sqlx::pool::PoolConnection;

use super::pools::Pool;

/// What one call asks.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Request<'a> {
    /// The statement.
    pub(crate) sql: &'a str,
    /// The most rows returned.
    pub(crate) max_rows: usize,
    /// The most bytes of row JSON returned.
    pub(crate) max_bytes: usize,
    /// The server-side deadline.
    pub(crate) timeout: Duration,
    /// Whether the statement may change data (and is committed).
    pub(crate) write: bool,
}

/// A column of the result.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct Column {
    /// Its name.
    pub(crate) name: String,
    /// Its type, as the database names it.
    #[serde(rename = "type")]
    pub(crate) type_name: String,
}

/// What a statement gave back.
#[derive(Debug, Default)]
pub(crate) struct Collected {
    /// The columns.
    pub(crate) columns: Vec<Column>,
    /// The rows, each an array in column order.
    pub(crate) rows: Vec<Vec<Value>>,
    /// Whether rows were left out (`max_rows` or the byte cap).
    pub(crate) truncated: bool,
    /// Rows changed, for statements that change rows.
    pub(crate) rows_affected: u64,
}

/// Why a statement failed.
#[derive(Debug)]
pub(crate) enum Failure {
    /// It ran past the deadline (the tool's backstop: the server did not stop it).
    TimedOut,
    /// No connection could be had.
    Connect(sqlx::Error),
    /// The database or the connection said no to the statement.
    Database(sqlx::Error),
}

impl From<sqlx::Error> for Failure {
    fn from(error: sqlx::Error) -> Self {
        Self::Database(error)
    }
}

/// How many SQLite virtual-machine steps run between two checks of the deadline.
const PROGRESS_STEPS: i32 = 10_000;

/// Interrupts a SQLite statement when dropped (the call ended, or was dropped).
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// How long the tool waits past the server's own deadline before giving up on it.
const GRACE: Duration = Duration::from_secs(2);

/// Run `request` on a connection of `pool`.
///
/// Cancel-safe in the sense that matters: a dropped call drops its connection's
/// transaction, which sqlx rolls back before the connection is reused.
pub(crate) async fn run(pool: &Pool, request: Request<'_>) -> Result<Collected, Failure> {
    let millis = request.timeout.as_millis();
    match pool {
        Pool::Postgres(pool) => {
            let mut conn = pool.acquire().await.map_err(Failure::Connect)?;
            let work = async {
                let begin = if request.write {
                    "BEGIN"
                } else {
                    "BEGIN READ ONLY"
                };
                let mut tx = conn.begin_with(begin).await?;
                sqlx::query(&format!("SET LOCAL statement_timeout = {millis}"))
                    .execute(&mut *tx)
                    .await?;
                let collected = collect::<sqlx::Postgres>(
                    &mut tx,
                    request,
                    super::values::postgres,
                    sqlx::postgres::PgQueryResult::rows_affected,
                )
                .await?;
                finish(tx, request.write).await?;
                Ok(collected)
            };
            let outcome = tokio::time::timeout(request.timeout + GRACE, work).await;
            settle(outcome, conn)
        }
        Pool::Mysql(pool) => {
            let mut conn = pool.acquire().await.map_err(Failure::Connect)?;
            let work = async {
                // MariaDB counts in seconds, MySQL in milliseconds (SELECTs only); one
                // of the two is unknown to each server.
                let seconds = request.timeout.as_secs_f64();
                if sqlx::query(&format!("SET SESSION max_statement_time = {seconds:.3}"))
                    .execute(&mut *conn)
                    .await
                    .is_err()
                {
                    let _ = sqlx::query(&format!("SET SESSION max_execution_time = {millis}"))
                        .execute(&mut *conn)
                        .await;
                }
                let begin = if request.write {
                    "START TRANSACTION"
                } else {
                    "START TRANSACTION READ ONLY"
                };
                let mut tx = conn.begin_with(begin).await?;
                let collected = collect::<sqlx::MySql>(
                    &mut tx,
                    request,
                    super::values::mysql,
                    sqlx::mysql::MySqlQueryResult::rows_affected,
                )
                .await?;
                finish(tx, request.write).await?;
                Ok(collected)
            };
            let outcome = tokio::time::timeout(request.timeout + GRACE, work).await;
            settle(outcome, conn)
        }
        Pool::Sqlite(pool) => {
            let mut conn = pool.acquire().await.map_err(Failure::Connect)?;
            // SQLite has no statement timeout: a progress handler interrupts the
            // statement past the deadline, or once the call is dropped.
            let stop = Arc::new(AtomicBool::new(false));
            let deadline = Instant::now() + request.timeout;
            {
                let flag = Arc::clone(&stop);
                let mut handle = conn.lock_handle().await?;
                handle.set_progress_handler(PROGRESS_STEPS, move || {
                    !flag.load(Ordering::Relaxed) && Instant::now() < deadline
                });
            }
            let _stop = StopOnDrop(stop);
            let work = async {
                let mode = if request.write { "OFF" } else { "ON" };
                sqlx::query(&format!("PRAGMA query_only = {mode}"))
                    .execute(&mut *conn)
                    .await?;
                let mut tx = conn.begin_with("BEGIN").await?;
                let collected = collect::<sqlx::Sqlite>(
                    &mut tx,
                    request,
                    super::values::sqlite,
                    sqlx::sqlite::SqliteQueryResult::rows_affected,
                )
                .await?;
                finish(tx, request.write).await?;
                Ok(collected)
            };
            let outcome = tokio::time::timeout(request.timeout + GRACE, work).await;
            settle(outcome, conn)
        }
    }
}

/// Commit when writes are allowed, roll back otherwise.
async fn finish<DB: Database>(
    tx: sqlx::Transaction<'_, DB>,
    write: bool,
) -> Result<(), sqlx::Error> {
    if write {
        tx.commit().await
    } else {
        tx.rollback().await
    }
}

/// The result of a call run under `timeout + GRACE`; past that, the connection is
/// abandoned (closed, never reused mid-statement) and the timeout reported.
fn settle<DB: Database, T>(
    outcome: Result<Result<T, Failure>, tokio::time::error::Elapsed>,
    conn: PoolConnection<DB>,
) -> Result<T, Failure> {
    match outcome {
        Ok(result) => result,
        Err(_elapsed) => {
            drop(conn.detach());
            Err(Failure::TimedOut)
        }
    }
}

/// Run the statement on `conn` and collect its rows.
async fn collect<DB>(
    conn: &mut DB::Connection,
    request: Request<'_>,
    decode: fn(&DB::Row, usize) -> Value,
    affected: fn(&DB::QueryResult) -> u64,
) -> Result<Collected, sqlx::Error>
where
    DB: Database,
    for<'c> &'c mut DB::Connection: Executor<'c, Database = DB>,
    for<'q> <DB as Database>::Arguments<'q>: IntoArguments<'q, DB>,
{
    let mut collected = Collected::default();
    let mut bytes = 0usize;
    let mut described = false;
    {
        let mut stream = (&mut *conn).fetch_many(sqlx::query::<DB>(request.sql));
        while let Some(step) = stream.try_next().await? {
            match step {
                Either::Left(result) => collected.rows_affected += affected(&result),
                Either::Right(row) => {
                    if !described {
                        collected.columns = columns::<DB>(row.columns());
                        described = true;
                    }
                    if collected.rows.len() >= request.max_rows {
                        collected.truncated = true;
                        break;
                    }
                    let values: Vec<Value> =
                        (0..row.len()).map(|index| decode(&row, index)).collect();
                    bytes += serde_json::to_string(&values).map_or(0, |text| text.len() + 1);
                    if bytes > request.max_bytes && !collected.rows.is_empty() {
                        collected.truncated = true;
                        break;
                    }
                    collected.rows.push(values);
                }
            }
        }
    }
    if !described {
        // No rows: the columns still tell the model what the query would return.
        if let Ok(describe) = (&mut *conn).describe(request.sql).await {
            collected.columns = columns::<DB>(describe.columns());
        }
    }
    Ok(collected)
}

fn columns<DB: Database>(columns: &[DB::Column]) -> Vec<Column> {
    columns
        .iter()
        .map(|column| Column {
            name: column.name().to_owned(),
            type_name: column.type_info().name().to_owned(),
        })
        .collect()
}
