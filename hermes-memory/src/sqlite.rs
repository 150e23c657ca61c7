//! [`SqliteMemory`]: facts in one SQLite file, searched with FTS5.

use std::path::Path;
use std::str::FromStr;

use async_trait::async_trait;
use hermes_core::memory::{Fact, MemoryError, MemoryStore};
use hermes_core::redact::Redactor;
use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePool, SqlitePoolOptions};
use sqlx::{Row, SqliteConnection};

use crate::query::words;
use crate::{failed, prepare};

/// The schema: facts by (namespace, key), and an FTS5 index of their text.
const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS facts (
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        text TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        PRIMARY KEY (namespace, key)
    )",
    "CREATE VIRTUAL TABLE IF NOT EXISTS facts_fts USING fts5(namespace UNINDEXED, key UNINDEXED, text)",
];

/// Facts in a SQLite file (created if missing), full-text searched with FTS5. Cheap to
/// clone: clones share the connection pool.
#[derive(Debug, Clone)]
pub struct SqliteMemory {
    pool: SqlitePool,
    redactor: Option<Redactor>,
}

impl SqliteMemory {
    /// Open (or create) the store at `path`.
    ///
    /// # Errors
    ///
    /// [`MemoryError::Store`] when the file cannot be opened or its schema created.
    pub async fn open(path: impl AsRef<Path>) -> Result<Self, MemoryError> {
        let options = SqliteConnectOptions::from_str("sqlite:")
            .map_err(|error| failed("opening the memory", error))?
            .filename(path.as_ref())
            .create_if_missing(true)
            // Every save is committed to the write-ahead log before it returns.
            .journal_mode(SqliteJournalMode::Wal);
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            .connect_with(options)
            .await
            .map_err(|error| failed("opening the memory", error))?;
        for statement in SCHEMA {
            sqlx::query(statement)
                .execute(&pool)
                .await
                .map_err(|error| failed("creating the memory's tables", error))?;
        }
        Ok(Self {
            pool,
            redactor: Some(Redactor::new()),
        })
    }

    /// Store facts as given, PII included (the default masks it).
    #[must_use]
    pub fn keep_pii(mut self) -> Self {
        self.redactor = None;
        self
    }

    /// Close the pool (pending writes are already committed).
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

/// Remove `key`'s row from the index.
async fn unindex(
    connection: &mut SqliteConnection,
    namespace: &str,
    key: &str,
) -> Result<(), MemoryError> {
    sqlx::query("DELETE FROM facts_fts WHERE namespace = ? AND key = ?")
        .bind(namespace)
        .bind(key)
        .execute(&mut *connection)
        .await
        .map_err(|error| failed("updating the memory's index", error))?;
    Ok(())
}

#[async_trait]
impl MemoryStore for SqliteMemory {
    async fn save_fact(&self, namespace: &str, key: &str, text: &str) -> Result<Fact, MemoryError> {
        let text = prepare(key, text, self.redactor.as_ref())?;
        let mut transaction = self
            .pool
            .begin()
            .await
            .map_err(|error| failed("saving a fact", error))?;
        let row = sqlx::query(
            "INSERT INTO facts (namespace, key, text, updated_at)
             VALUES (?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
             ON CONFLICT (namespace, key) DO UPDATE SET text = excluded.text, updated_at = excluded.updated_at
             RETURNING updated_at",
        )
        .bind(namespace)
        .bind(key)
        .bind(&text)
        .fetch_one(&mut *transaction)
        .await
        .map_err(|error| failed("saving a fact", error))?;
        unindex(&mut transaction, namespace, key).await?;
        sqlx::query("INSERT INTO facts_fts (namespace, key, text) VALUES (?, ?, ?)")
            .bind(namespace)
            .bind(key)
            .bind(&text)
            .execute(&mut *transaction)
            .await
            .map_err(|error| failed("indexing a fact", error))?;
        transaction
            .commit()
            .await
            .map_err(|error| failed("saving a fact", error))?;
        Ok(Fact::new(key, text, row.get::<String, _>(0)))
    }

    async fn recall(&self, namespace: &str, key: &str) -> Result<Option<Fact>, MemoryError> {
        let row =
            sqlx::query("SELECT key, text, updated_at FROM facts WHERE namespace = ? AND key = ?")
                .bind(namespace)
                .bind(key)
                .fetch_optional(&self.pool)
                .await
                .map_err(|error| failed("recalling a fact", error))?;
        Ok(row.map(|row| {
            Fact::new(
                row.get::<String, _>(0),
                row.get::<String, _>(1),
                row.get::<String, _>(2),
            )
        }))
    }

    async fn search(
        &self,
        namespace: &str,
        query: &str,
        limit: usize,
    ) -> Result<Vec<Fact>, MemoryError> {
        let words = words(query);
        if words.is_empty() || limit == 0 {
            return Ok(Vec::new());
        }
        // Each word quoted (a phrase of one word), any of them: ranked by bm25.
        let expression = words
            .iter()
            .map(|word| format!("\"{word}\""))
            .collect::<Vec<_>>()
            .join(" OR ");
        let rows = sqlx::query(
            "SELECT f.key, f.text, f.updated_at
             FROM facts_fts JOIN facts f ON f.namespace = facts_fts.namespace AND f.key = facts_fts.key
             WHERE facts_fts MATCH ? AND facts_fts.namespace = ?
             ORDER BY bm25(facts_fts) LIMIT ?",
        )
        .bind(expression)
        .bind(namespace)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await
        .map_err(|error| failed("searching the memory", error))?;
        Ok(rows
            .into_iter()
            .map(|row| {
                Fact::new(
                    row.get::<String, _>(0),
                    row.get::<String, _>(1),
                    row.get::<String, _>(2),
                )
            })
            .collect())
    }

    async fn forget(&self, namespace: &str, key: &str) -> Result<bool, MemoryError> {
        let mut transaction = self
            .pool
            .begin()
            .await
            .map_err(|error| failed("forgetting a fact", error))?;
        let deleted = sqlx::query("DELETE FROM facts WHERE namespace = ? AND key = ?")
            .bind(namespace)
            .bind(key)
            .execute(&mut *transaction)
            .await
            .map_err(|error| failed("forgetting a fact", error))?
            .rows_affected();
        unindex(&mut transaction, namespace, key).await?;
        transaction
            .commit()
            .await
            .map_err(|error| failed("forgetting a fact", error))?;
        Ok(deleted > 0)
    }
}
