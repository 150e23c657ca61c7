//! Text files the read-only tools of the family take (`code_analyze`, `json_query`,
//! `text_diff`): resolved like every path, bounded in size, and refused with a reason
//! when they are not UTF-8 text.

use std::path::PathBuf;

use hermes_core::{ToolContext, ToolError};

use crate::common::{Shared, paths};

/// A text file as read.
#[derive(Debug)]
pub(super) struct TextFile {
    /// Where it is.
    pub(super) path: PathBuf,
    /// The path as the model should see it (relative to the workspace when inside).
    pub(super) shown: String,
    /// The whole text.
    pub(super) text: String,
}

/// Read the UTF-8 file the model named `raw`, of at most `max_bytes` bytes.
///
/// # Errors
///
/// A message for the model when the path cannot be used, is not a file, is larger
/// than `max_bytes`, cannot be read, or is not UTF-8 text.
pub(super) async fn read(
    shared: &Shared,
    ctx: &ToolContext,
    raw: &str,
    max_bytes: u64,
) -> Result<TextFile, ToolError> {
    let path = paths::resolve(shared, ctx, raw)?;
    let shown = paths::display(shared, ctx, &path);
    let metadata = tokio::fs::metadata(&path).await.map_err(|error| {
        ToolError::failed_with(
            format!("cannot read `{shown}`: {error}; check the path (list the directory first)"),
            error,
        )
    })?;
    if !metadata.is_file() {
        return Err(ToolError::failed(format!(
            "`{shown}` is not a file; give the path of a file"
        )));
    }
    if metadata.len() > max_bytes {
        return Err(ToolError::failed(format!(
            "`{shown}` is {} bytes, more than the {max_bytes} this tool reads; use a smaller file",
            metadata.len()
        )));
    }
    let bytes = tokio::fs::read(&path).await.map_err(|error| {
        ToolError::failed_with(format!("cannot read `{shown}`: {error}"), error)
    })?;
    let text = String::from_utf8(bytes).map_err(|error| {
        ToolError::failed(format!(
            "`{shown}` is not UTF-8 text (invalid byte at offset {}); this tool reads text files only",
            error.utf8_error().valid_up_to()
        ))
    })?;
    Ok(TextFile { path, shown, text })
}
