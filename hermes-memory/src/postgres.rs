//! [`PostgresMemory`]: facts in PostgreSQL, shared by every worker that connects,
//! searched with `tsvector`.

use async_trait::async_trait;
use hermes_core::memory::{Fact, MemoryError, MemoryStore};
use hermes_core::redact::Redactor;
use sqlx::Row;
use sqlx::postgres::{PgPool, PgPoolOptions};

use crate::query::words;
use crate::{failed, prepare};

/// The schema. The `simple` text-search configuration: no stemming, any language.
const SCHEMA: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS hermes_facts (
        namespace TEXT NOT NULL,
        key TEXT NOT NULL,
        text TEXT NOT NULL,
        updated_at TIMESTAMPTZ NOT NULL DEFAULT now(),
        search TSVECTOR GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED,
        PRIMARY KEY (namespace, key)
    )",
    "CREATE INDEX IF NOT EXISTS hermes_facts_search ON hermes_facts USING GIN (search)",
];

/// RFC 3339 in UTC, as the SQLite store writes it.
const UPDATED_AT: &str = "to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')";

/// Facts in a PostgreSQL database (table `hermes_facts`, created if missing). Cheap to
/// clone: clones share the pool.
#[derive(Debug, Clone)]
pub struct PostgresMemory {
    pool: PgPool,
    redactor: Option<Redactor>,
}

impl PostgresMemory {
    /// Connect to `url` (`postgres://user:password@host/db`) and create the table if
    /// missing.
    ///
    /// # Errors
    ///
    /// [`MemoryError::Store`] when the server cannot be reached or the table created.
    pub async fn connect(url: &str) -> Result<Self, MemoryError> {
        let pool = PgPoolOptions::new()
            .max_connections(8)
            .acquire_timeout(std::time::Duration::from_secs(5))
            .connect(url)
            .await
            .map_err(|error| failed("connecting to the memory database", error))?;
        // Two workers starting at once may both create: the loser's error is harmless
        // when the table then exists.
        for statement in SCHEMA {
            if let Err(error) = sqlx::query(statement).execute(&pool).await {
                let exists = sqlx::query("SELECT 1 FROM hermes_facts LIMIT 1")
                    .execute(&pool)
                    .await
                    .is_ok();
                if !exists {
                    return Err(failed("creating the memory's table", error));
                }
            }
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

    /// Close the pool.
    pub async fn close(&self) {
        self.pool.close().await;
    }
}

fn fact(row: &sqlx::postgres::PgRow) -> Fact {
    Fact::new(
        row.get::<String, _>(0),
        row.get::<String, _>(1),
        row.get::<String, _>(2),
    )
}

#[async_trait]
impl MemoryStore for PostgresMemory {
    async fn save_fact(&self, namespace: &str, key: &str, text: &str) -> Result<Fact, MemoryError> {
        let text = prepare(key, text, self.redactor.as_ref())?;
        let row = sqlx::query(&format!(
            "INSERT INTO hermes_facts (namespace, key, text) VALUES ($1, $2, $3)
             ON CONFLICT (namespace, key) DO UPDATE SET text = excluded.text, updated_at = now()
             RETURNING key, text, {UPDATED_AT}"
        ))
        .bind(namespace)
        .bind(key)
        .bind(&text)
        .fetch_one(&self.pool)
        .await
        .map_err(|error| failed("saving a fact", error))?;
        Ok(fact(&row))
    }

    async fn recall(&self, namespace: &str, key: &str) -> Result<Option<Fact>, MemoryError> {
        let row = sqlx::query(&format!(
            "SELECT key, text, {UPDATED_AT} FROM hermes_facts WHERE namespace = $1 AND key = $2"
        ))
        .bind(namespace)
        .bind(key)
        .fetch_optional(&self.pool)
        .await
        .map_err(|error| failed("recalling a fact", error))?;
        Ok(row.as_ref().map(fact))
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
        // Any of the words (letters and digits only, so each is a plain lexeme), ranked.
        let expression = words
            .iter()
            .map(|word| format!("'{word}'"))
            .collect::<Vec<_>>()
            .join(" | ");
        let rows = sqlx::query(&format!(
            "SELECT key, text, {UPDATED_AT} FROM hermes_facts, to_tsquery('simple', $2) AS q
             WHERE namespace = $1 AND search @@ q
             ORDER BY ts_rank(search, q) DESC, key LIMIT $3"
        ))
        .bind(namespace)
        .bind(expression)
        .bind(i64::try_from(limit).unwrap_or(i64::MAX))
        .fetch_all(&self.pool)
        .await
        .map_err(|error| failed("searching the memory", error))?;
        Ok(rows.iter().map(fact).collect())
    }

    async fn forget(&self, namespace: &str, key: &str) -> Result<bool, MemoryError> {
        let deleted = sqlx::query("DELETE FROM hermes_facts WHERE namespace = $1 AND key = $2")
            .bind(namespace)
            .bind(key)
            .execute(&self.pool)
            .await
            .map_err(|error| failed("forgetting a fact", error))?
            .rows_affected();
        Ok(deleted > 0)
    }
}
