//! [`TelemetryError`].

use std::path::PathBuf;

/// What can go wrong with the telemetry store or the audit trail.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TelemetryError {
    /// The SQLite file could not be opened or created.
    #[error("cannot open the telemetry store {path}: {source}")]
    Open {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: rusqlite::Error,
    },
    /// A query or a write failed.
    #[error("telemetry store error: {0}")]
    Sqlite(#[from] rusqlite::Error),
    /// A file (the JSONL audit trail, the store's directory) could not be written.
    #[error("cannot write {path}: {source}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The collector's writer thread is gone (it panicked, or the store failed to open).
    #[error("the telemetry writer stopped: {0}")]
    WriterGone(String),
}
