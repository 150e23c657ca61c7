//! Connection pools, one per connection string, kept across calls and closed at teardown.

use std::collections::HashMap;
use std::str::FromStr;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use hermes_core::ToolError;
use sqlx::mysql::{MySqlConnectOptions, MySqlPool, MySqlPoolOptions};
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::sqlite::{SqliteConnectOptions, SqlitePool, SqlitePoolOptions};

use super::connection::{Dialect, Target, scrub};

/// The most pools kept at once; the oldest is closed to make room.
const MAX_POOLS: usize = 16;
/// The most connections one pool opens.
const MAX_CONNECTIONS: u32 = 4;
/// How long a call waits for a connection (which includes connecting).
pub(crate) const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);
/// How long an unused connection stays open.
const IDLE_TIMEOUT: Duration = Duration::from_secs(300);

/// A pool of one of the dialects.
#[derive(Debug, Clone)]
pub(crate) enum Pool {
    /// PostgreSQL.
    Postgres(PgPool),
    /// MySQL or MariaDB.
    Mysql(MySqlPool),
    /// SQLite.
    Sqlite(SqlitePool),
}

impl Pool {
    /// A pool for `target` that connects on first use.
    fn open(target: &Target) -> Result<Self, ToolError> {
        let bad_string = |error: sqlx::Error| {
            ToolError::failed(format!(
                "the connection string `{}` is malformed: {}; use \
                 scheme://user:password@host:port/database",
                target.display(),
                scrub(&error.to_string(), target.password())
            ))
        };
        Ok(match target {
            Target::Server {
                dialect: Dialect::Postgresql,
                url,
            } => {
                let options = PgConnectOptions::from_str(url).map_err(bad_string)?;
                Self::Postgres(
                    PgPoolOptions::new()
                        .max_connections(MAX_CONNECTIONS)
                        .acquire_timeout(ACQUIRE_TIMEOUT)
                        .idle_timeout(IDLE_TIMEOUT)
                        .connect_lazy_with(options),
                )
            }
            Target::Server { url, .. } => {
                let url = url
                    .strip_prefix("mariadb:")
                    .map_or_else(|| url.clone(), |rest| format!("mysql:{rest}"));
                let options = MySqlConnectOptions::from_str(&url).map_err(bad_string)?;
                Self::Mysql(
                    MySqlPoolOptions::new()
                        .max_connections(MAX_CONNECTIONS)
                        .acquire_timeout(ACQUIRE_TIMEOUT)
                        .idle_timeout(IDLE_TIMEOUT)
                        .connect_lazy_with(options),
                )
            }
            Target::Sqlite(path) => {
                let options = SqliteConnectOptions::new()
                    .filename(path)
                    .create_if_missing(true)
                    .busy_timeout(Duration::from_secs(5));
                Self::Sqlite(
                    SqlitePoolOptions::new()
                        .max_connections(2)
                        .acquire_timeout(ACQUIRE_TIMEOUT)
                        .idle_timeout(IDLE_TIMEOUT)
                        .connect_lazy_with(options),
                )
            }
        })
    }

    /// Close every connection.
    async fn close(&self) {
        match self {
            Self::Postgres(pool) => pool.close().await,
            Self::Mysql(pool) => pool.close().await,
            Self::Sqlite(pool) => pool.close().await,
        }
    }
}

/// The pools of one tool, keyed by connection string.
#[derive(Debug, Default)]
pub(crate) struct Pools {
    pools: Mutex<HashMap<String, (u64, Pool)>>,
}

impl Pools {
    /// The pool for `target`, opened on first use.
    ///
    /// # Errors
    ///
    /// A malformed connection string.
    pub(crate) fn get(&self, target: &Target) -> Result<Pool, ToolError> {
        let key = target.key();
        let (pool, evicted) = {
            let mut pools = self.pools.lock().unwrap_or_else(PoisonError::into_inner);
            if let Some((_, pool)) = pools.get(&key) {
                return Ok(pool.clone());
            }
            let pool = Pool::open(target)?;
            let evicted = if pools.len() >= MAX_POOLS {
                let oldest = pools
                    .iter()
                    .min_by_key(|(_, (order, _))| *order)
                    .map(|(key, _)| key.clone());
                oldest.and_then(|key| pools.remove(&key))
            } else {
                None
            };
            let order = pools.values().map(|(order, _)| *order).max().unwrap_or(0) + 1;
            pools.insert(key, (order, pool.clone()));
            (pool, evicted)
        };
        if let Some((_, old)) = evicted {
            tokio::spawn(async move { old.close().await });
        }
        Ok(pool)
    }

    /// Drop the pool of `target` (after it failed to connect), closing it.
    pub(crate) async fn forget(&self, target: &Target) {
        let removed = {
            let mut pools = self.pools.lock().unwrap_or_else(PoisonError::into_inner);
            pools.remove(&target.key())
        };
        if let Some((_, pool)) = removed {
            pool.close().await;
        }
    }

    /// Close every pool.
    pub(crate) async fn close_all(&self) {
        let pools: Vec<Pool> = {
            let mut pools = self.pools.lock().unwrap_or_else(PoisonError::into_inner);
            pools.drain().map(|(_, (_, pool))| pool).collect()
        };
        for pool in pools {
            pool.close().await;
        }
    }
}
