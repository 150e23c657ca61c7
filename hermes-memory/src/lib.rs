//! Long-term memory for [hermes](https://github.com/hermes-rs/hermes) agents:
//! [`MemoryStore`](hermes_core::memory::MemoryStore) implementations and the tools that
//! let a model use them.
//!
//! - [`SqliteMemory`]: one file, embedded, full-text search with SQLite's FTS5; the
//!   default for a single process. Survives restarts (WAL journal).
//! - [`PostgresMemory`]: for many agent workers sharing one memory; full-text search
//!   with `tsvector`.
//! - [`memory_tools`]: `memory_save`, `memory_recall`, `memory_search` over a store,
//!   each call in the namespace of its session.
//!
//! Facts are PII-masked ([`hermes_core::redact`]) before they are stored, unless the
//! store is built with `keep_pii()`.
//!
//! ```no_run
//! # async fn demo() -> Result<(), hermes_core::memory::MemoryError> {
//! use hermes_core::memory::MemoryStore;
//! use hermes_memory::SqliteMemory;
//!
//! let memory = SqliteMemory::open("agent-memory.db").await?;
//! memory.save_fact("user:42", "diet", "vegetarian, no nuts").await?;
//! let hits = memory.search("user:42", "nuts", 5).await?;
//! assert_eq!(hits[0].key, "diet");
//! # Ok(()) }
//! ```

mod postgres;
mod query;
mod sqlite;
mod tools;

pub use postgres::PostgresMemory;
pub use sqlite::SqliteMemory;
pub use tools::memory_tools;

use hermes_core::memory::MemoryError;
use hermes_core::redact::Redactor;

/// The longest key, in bytes.
const MAX_KEY: usize = 200;
/// The longest fact, in bytes.
const MAX_TEXT: usize = 16 * 1024;

/// Check a key and a fact, and mask the fact when `redactor` is set.
fn prepare(key: &str, text: &str, redactor: Option<&Redactor>) -> Result<String, MemoryError> {
    if key.trim().is_empty() || key.len() > MAX_KEY {
        return Err(MemoryError::Invalid(format!(
            "a memory key is 1 to {MAX_KEY} bytes, not {}",
            key.len()
        )));
    }
    if text.len() > MAX_TEXT {
        return Err(MemoryError::Invalid(format!(
            "a fact is at most {MAX_TEXT} bytes; this one is {}: keep what matters",
            text.len()
        )));
    }
    Ok(match redactor {
        Some(redactor) => redactor.mask(text).into_owned(),
        None => text.to_owned(),
    })
}

/// A store failure, from sqlx.
fn failed(what: &str, error: sqlx::Error) -> MemoryError {
    MemoryError::store(format!("{what} failed: {error}"), error)
}
