//! Filesystem work as the file tools do it: off the runtime's threads, stoppable, and
//! failing with messages the model can act on.

use std::fs::Metadata;
use std::io;
use std::path::Path;

use hermes_core::{CancellationToken, ToolContext, ToolError};

/// Run blocking filesystem work on tokio's blocking pool.
///
/// # Errors
///
/// What `work` returns, or a failure if the blocking task itself crashed.
pub(crate) async fn blocking<T, F>(tool: &str, work: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(error) if error.is_panic() => Err(ToolError::Panicked {
            tool: tool.to_owned(),
            message: "the filesystem task panicked".to_owned(),
        }),
        Err(_) => Err(ToolError::Cancelled {
            tool: tool.to_owned(),
        }),
    }
}

/// Lets blocking work notice that its call was cancelled or timed out.
#[derive(Debug, Clone)]
pub(crate) struct Stop {
    /// The tool named in the error.
    tool: &'static str,
    /// The call's cancellation.
    token: CancellationToken,
}

impl Stop {
    /// Watch the cancellation of the call `ctx` serves.
    pub(crate) fn of(tool: &'static str, ctx: &ToolContext) -> Self {
        Self {
            tool,
            token: ctx.cancellation().clone(),
        }
    }

    /// `Err(Cancelled)` once the call should stop.
    ///
    /// # Errors
    ///
    /// [`ToolError::Cancelled`] when the run was stopped or the call timed out.
    pub(crate) fn check(&self) -> Result<(), ToolError> {
        if self.token.is_cancelled() {
            return Err(ToolError::Cancelled {
                tool: self.tool.to_owned(),
            });
        }
        Ok(())
    }
}

/// The metadata of `path` (shown as `shown`), which must be a regular file: a
/// directory, a FIFO (whose opening would block), a socket or a device is refused.
///
/// # Errors
///
/// When `path` cannot be inspected or is not a regular file.
pub(crate) fn regular_file(path: &Path, shown: &str, action: &str) -> Result<Metadata, ToolError> {
    let metadata = std::fs::metadata(path).map_err(|error| failure(action, shown, error))?;
    if metadata.is_dir() {
        return Err(ToolError::failed(format!(
            "`{shown}` is a directory; use list_directory to see what is in it"
        )));
    }
    if !metadata.is_file() {
        return Err(ToolError::failed(format!(
            "`{shown}` is not a regular file (a FIFO, socket or device); it cannot be used as one"
        )));
    }
    Ok(metadata)
}

/// A failed filesystem operation on `shown` (a path as the model sees it), with advice
/// that fits the error: a missing path, a permission problem, a file where a directory
/// was expected, and so on.
pub(crate) fn failure(action: &str, shown: &str, error: io::Error) -> ToolError {
    let advice = match error.kind() {
        io::ErrorKind::NotFound => {
            "; it does not exist: check the path with list_directory or file_search"
        }
        io::ErrorKind::PermissionDenied => "; the process may not access it: try another path",
        io::ErrorKind::AlreadyExists => "; something already exists there",
        io::ErrorKind::IsADirectory => "; it is a directory: use list_directory",
        io::ErrorKind::NotADirectory => "; a part of the path is a file, not a directory",
        io::ErrorKind::StorageFull => "; the disk is full",
        io::ErrorKind::ReadOnlyFilesystem => "; the filesystem is read-only",
        _ => "",
    };
    ToolError::failed(format!("cannot {action} `{shown}`: {error}{advice}"))
}
