//! [`MemoryStore`]: long-term memory, facts kept across runs and restarts.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::BoxError;

/// One remembered fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Fact {
    /// Its key, unique in its namespace.
    pub key: String,
    /// What is remembered.
    pub text: String,
    /// When it was last saved, RFC 3339 (UTC).
    pub updated_at: String,
}

impl Fact {
    /// A fact.
    pub fn new(
        key: impl Into<String>,
        text: impl Into<String>,
        updated_at: impl Into<String>,
    ) -> Self {
        Self {
            key: key.into(),
            text: text.into(),
            updated_at: updated_at.into(),
        }
    }
}

/// Why a memory operation failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MemoryError {
    /// The argument cannot be used (an empty key, say).
    #[error("{0}")]
    Invalid(String),
    /// The store failed.
    #[error("the memory store failed: {message}")]
    Store {
        /// What happened.
        message: String,
        /// The underlying error.
        #[source]
        source: Option<BoxError>,
    },
}

impl MemoryError {
    /// A store failure caused by `source`.
    pub fn store(message: impl Into<String>, source: impl Into<BoxError>) -> Self {
        Self::Store {
            message: message.into(),
            source: Some(source.into()),
        }
    }
}

/// Long-term memory: facts by key in namespaces (a user, a session), searchable by
/// text. Implementations: `hermes-memory`'s SQLite (embedded, the default) and
/// PostgreSQL (shared by many workers).
#[async_trait]
pub trait MemoryStore: Send + Sync + std::fmt::Debug + 'static {
    /// Save `text` under `key` in `namespace`, replacing what was there.
    ///
    /// # Errors
    ///
    /// [`MemoryError`] when the key is empty or the store fails.
    async fn save_fact(&self, namespace: &str, key: &str, text: &str) -> Result<Fact, MemoryError>;

    /// The fact under `key`, if any.
    ///
    /// # Errors
    ///
    /// [`MemoryError`] when the store fails.
    async fn recall(&self, namespace: &str, key: &str) -> Result<Option<Fact>, MemoryError>;

    /// The facts of `namespace` matching `query` (full-text, best first), at most
    /// `limit`.
    ///
    /// # Errors
    ///
    /// [`MemoryError`] when the store fails.
    async fn search(
        &self,
        namespace: &str,
        query: &str,
        limit: usize,
    ) -> Result<Vec<Fact>, MemoryError>;

    /// Delete the fact under `key`; whether there was one.
    ///
    /// # Errors
    ///
    /// [`MemoryError`] when the store fails.
    async fn forget(&self, namespace: &str, key: &str) -> Result<bool, MemoryError>;
}
