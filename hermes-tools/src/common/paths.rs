//! Paths from the model: normalised exactly as the permission engine judges them, against
//! the session's workspace root, and (when confined) kept inside it.

use std::path::{Path, PathBuf};

use hermes_core::{ToolContext, ToolError};
use hermes_permissions::normalise_path;

use super::Shared;

/// The path a tool must open for `raw`: relative paths against the session's workspace,
/// `.`/`..` and symbolic links resolved as the permission engine resolves them.
///
/// # Errors
///
/// A message for the model when the path cannot name a file safely (NUL bytes,
/// look-alike separators) or, when confined, leads outside the workspace.
pub(crate) fn resolve(shared: &Shared, ctx: &ToolContext, raw: &str) -> Result<PathBuf, ToolError> {
    let root = workspace_root(shared, ctx);
    let path = normalise_path(raw, &root)
        .map_err(|error| ToolError::failed(format!("`{raw}` cannot be used as a path: {error}")))?;
    if shared.config.confine && !path.starts_with(&root) {
        return Err(ToolError::failed(format!(
            "`{raw}` is outside the workspace ({}); use a path inside it",
            root.display()
        )));
    }
    Ok(path)
}

/// The session's workspace root, with its own symbolic links resolved (so a root under
/// `/tmp` on a system where that is a link still contains the paths under it).
pub(crate) fn workspace_root(shared: &Shared, ctx: &ToolContext) -> PathBuf {
    let root = shared.config.workspace.root(ctx.session_id());
    normalise_path(&root.to_string_lossy(), Path::new("/")).unwrap_or(root)
}

/// `path` as the model should see it: relative to the workspace root when inside it.
pub(crate) fn display(shared: &Shared, ctx: &ToolContext, path: &Path) -> String {
    let root = workspace_root(shared, ctx);
    match path.strip_prefix(&root) {
        Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
        Ok(relative) => relative.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}
