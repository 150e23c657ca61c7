//! `database_query`: one SQL statement against PostgreSQL, MySQL/MariaDB or SQLite, its
//! rows as typed JSON. Pools are kept per connection string across calls and closed at
//! teardown; each statement runs in a transaction of its own, read-only and rolled back
//! unless the policy grants `database:write` ([`write_gate`](super::config::write_gate)).

mod connection;
mod errors;
mod pools;
mod run;
mod statement;
mod values;

use std::sync::Arc;
use std::time::{Duration, Instant};

use hermes_core::{ArgKind, Error, Scope, Tool, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::write_gate::WriteGate;
use crate::common::Shared;
use connection::{Dialect, Target};
use pools::Pools;
use run::{Column, Request};

/// The tool's name.
const NAME: &str = "database_query";
/// The longest `timeout_ms` a call may ask for.
const MAX_TIMEOUT_MS: u64 = 120_000;
/// The cap on the JSON of one result.
const MAX_RESULT_BYTES: usize = 256 * 1024;

/// Every database tool.
pub(crate) fn tools(shared: &Arc<Shared>) -> Result<Vec<Arc<dyn Tool>>, Error> {
    Ok(vec![Arc::new(DatabaseQuery::new(shared)?)])
}

/// The arguments of `database_query`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct DatabaseQueryArgs {
    /// The database: `postgres://user:password@host:port/db`,
    /// `mysql://user:password@host:port/db` (MariaDB too), or `sqlite:path/to/file.db`
    /// (a path inside the workspace).
    #[schemars(length(min = 1, max = 4096))]
    connection: String,
    /// One SQL statement (no BEGIN/COMMIT: each call is its own transaction).
    #[schemars(length(min = 1, max = 200_000))]
    query: String,
    /// `postgresql`, `mysql` or `sqlite`; read from the connection string's scheme when
    /// left out (needed for a bare SQLite path).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    dialect: Option<Dialect>,
    /// The most rows returned; `truncated` says when there were more.
    #[serde(default = "default_max_rows")]
    #[schemars(range(min = 1, max = 10_000))]
    max_rows: usize,
    /// How long the statement may run, in milliseconds (at most 120000).
    #[serde(default = "default_timeout_ms")]
    #[schemars(range(min = 1, max = 120_000))]
    timeout_ms: u64,
}

fn default_max_rows() -> usize {
    1000
}

fn default_timeout_ms() -> u64 {
    30_000
}

/// What a statement gave back.
#[derive(Debug, Serialize)]
pub(crate) struct QueryResult {
    /// The database, password masked.
    database: String,
    dialect: &'static str,
    /// Whether the statement ran read-only (rolled back).
    read_only: bool,
    columns: Vec<Column>,
    /// Rows as arrays, in the order of `columns`.
    rows: Vec<Vec<Value>>,
    row_count: usize,
    /// Whether rows were left out (`max_rows` or the size cap).
    truncated: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    rows_affected: Option<u64>,
    query_time_ms: u64,
}

/// `database_query`.
#[derive(Debug)]
pub(crate) struct DatabaseQuery {
    spec: ToolSpec,
    shared: Arc<Shared>,
    pools: Pools,
    gate: WriteGate,
}

impl DatabaseQuery {
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let spec = ToolSpec::builder(
            NAME,
            "Run one SQL statement against PostgreSQL, MySQL/MariaDB or SQLite. Returns \
             {columns: [{name, type}], rows: [[value, ...]], row_count, truncated, \
             rows_affected, query_time_ms, read_only}. Values are typed JSON (timestamps, decimals and \
             UUIDs as strings, bytes as {base64}). Statements run read-only and are rolled \
             back unless the policy grants database:write. Connections are reused across \
             calls.",
        )
        .parameters_for::<DatabaseQueryArgs>()
        .scope(Scope::Read)
        .permission("database:read")
        .arg_kind("connection", ArgKind::Resource)
        .timeout(Duration::from_millis(MAX_TIMEOUT_MS) + Duration::from_secs(20))
        .max_result_bytes(MAX_RESULT_BYTES)
        .tag(super::FAMILY_TAG)
        .build()?;
        Ok(Self {
            spec,
            shared: Arc::clone(shared),
            pools: Pools::default(),
            gate: WriteGate::new()?,
        })
    }
}

impl TypedTool for DatabaseQuery {
    type Args = DatabaseQueryArgs;
    type Output = QueryResult;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: DatabaseQueryArgs,
        ctx: &ToolContext,
    ) -> Result<QueryResult, ToolError> {
        let target = Target::parse(&self.shared, ctx, &args.connection, args.dialect)?;
        let dialect = target.dialect();
        if let Some(reason) = statement::refusal(&args.query, dialect) {
            return Err(ToolError::failed(reason));
        }
        let write = self.gate.allows(NAME, &target.display(), ctx);
        if let Target::Sqlite(path) = &target
            && !write
            && !tokio::fs::try_exists(path).await.unwrap_or(false)
        {
            return Err(ToolError::failed(format!(
                "no SQLite database at `{}`; check the path (a new database needs \
                 database:write)",
                crate::common::paths::display(&self.shared, ctx, path)
            )));
        }
        let pool = self.pools.get(&target)?;
        let timeout = Duration::from_millis(args.timeout_ms.min(MAX_TIMEOUT_MS));
        let request = Request {
            sql: &args.query,
            max_rows: args.max_rows,
            max_bytes: (self.shared.config.max_output_bytes * 4).clamp(16 * 1024, 192 * 1024),
            timeout,
            write,
        };
        let started = Instant::now();
        let collected = match run::run(&pool, request).await {
            Ok(collected) => collected,
            Err(failure) => {
                if matches!(failure, run::Failure::Connect(_)) {
                    self.pools.forget(&target).await;
                }
                return Err(errors::explain(&failure, &target, timeout, write));
            }
        };
        let query_time_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        // Statements that return no rows report how many they changed.
        let rows_affected = collected
            .columns
            .is_empty()
            .then_some(collected.rows_affected);
        Ok(QueryResult {
            database: target.display(),
            dialect: dialect.as_str(),
            read_only: !write,
            row_count: collected.rows.len(),
            columns: collected.columns,
            rows: collected.rows,
            truncated: collected.truncated,
            rows_affected,
            query_time_ms,
        })
    }

    async fn teardown(&self) {
        self.pools.close_all().await;
    }
}
