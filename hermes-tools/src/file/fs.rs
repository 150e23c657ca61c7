//! Filesystem work as the file tools do it: off the runtime's threads, stoppable, and
//! failing with messages the model can act on.

use std::fs::Metadata;
use std::io;
use std::path::Path;

use hermes_core::ToolError;

pub(crate) use crate::common::blocking::{Stop, blocking};

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
