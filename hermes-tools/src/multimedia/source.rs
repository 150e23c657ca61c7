//! The file a multimedia tool reads: resolved like every path, a regular file, and no
//! larger than the tool's limit; refused otherwise with a message that says what to do.

use std::io;
use std::path::PathBuf;

use hermes_core::{ToolContext, ToolError};

use crate::common::{Shared, paths};

/// An input file, checked.
#[derive(Debug, Clone)]
pub(super) struct Source {
    /// Where it is.
    pub(super) path: PathBuf,
    /// The path as the model should see it (relative to the workspace when inside).
    pub(super) shown: String,
    /// Its size in bytes.
    pub(super) size: u64,
}

/// The file the model named `raw`, of at most `max_bytes`.
///
/// # Errors
///
/// A message for the model when the path cannot be used or leads outside the
/// workspace, does not exist, is not a regular file, or is larger than `max_bytes`.
pub(super) async fn open(
    shared: &Shared,
    ctx: &ToolContext,
    raw: &str,
    max_bytes: u64,
) -> Result<Source, ToolError> {
    let path = paths::resolve(shared, ctx, raw)?;
    let shown = paths::display(shared, ctx, &path);
    let metadata = tokio::fs::metadata(&path)
        .await
        .map_err(|error| unreadable(&shown, &error))?;
    if metadata.is_dir() {
        return Err(ToolError::failed(format!(
            "`{shown}` is a directory; name a file inside it (list_directory shows what is there)"
        )));
    }
    if !metadata.is_file() {
        return Err(ToolError::failed(format!(
            "`{shown}` is not a regular file (a FIFO, socket or device); name a regular file"
        )));
    }
    if metadata.len() > max_bytes {
        return Err(ToolError::failed(format!(
            "`{shown}` is {} bytes, more than the {} MiB this tool reads; use a smaller file",
            metadata.len(),
            max_bytes / (1024 * 1024)
        )));
    }
    Ok(Source {
        path,
        shown,
        size: metadata.len(),
    })
}

/// Why `shown` cannot be inspected, with advice that fits the error.
pub(super) fn unreadable(shown: &str, error: &io::Error) -> ToolError {
    let advice = match error.kind() {
        io::ErrorKind::NotFound => {
            "it does not exist; check the path (list_directory or file_search show what is there)"
        }
        io::ErrorKind::PermissionDenied => "the process may not read it; try another file",
        io::ErrorKind::NotADirectory => "a part of the path is a file, not a directory",
        _ => "check the path",
    };
    ToolError::failed(format!("cannot read `{shown}`: {error}; {advice}"))
}
