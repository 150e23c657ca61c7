//! The crate's error type.

use std::path::PathBuf;

/// What went wrong loading or building profiles.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The file could not be read.
    #[error("cannot read profile file {}", path.display())]
    Read {
        /// The file.
        path: PathBuf,
        /// Why.
        #[source]
        source: std::io::Error,
    },
    /// The file is not a valid profile file.
    #[error("{}:{line}:{column}: {message}", file.display())]
    Invalid {
        /// The file (or `<string>` for text loaded from memory).
        file: PathBuf,
        /// 1-based line.
        line: u64,
        /// 1-based column.
        column: u64,
        /// The key at fault, when there is one.
        key: Option<String>,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// A profile that does not exist.
    #[error("no profile named `{name}`; the file defines: {available}")]
    UnknownProfile {
        /// The name asked for.
        name: String,
        /// The names there are.
        available: String,
    },
    /// A rule built in code that does not hold.
    #[error("invalid rule: {0}")]
    InvalidRule(String),
}
