//! [`Workspace`]: where a session's relative paths resolve and its commands run.

use std::fmt;
use std::path::{Path, PathBuf};

use hermes_permissions::PermissionEngine;

/// The root directory of each session. Tools resolve relative paths against it (with
/// the permission engine's normaliser, so they open exactly the path the engine judged)
/// and, when [`ToolsConfig::confine`](crate::ToolsConfigBuilder::confine) is on, refuse
/// paths outside it.
///
/// A [`PathBuf`] is one root for every session; a [`PermissionEngine`] gives each
/// session the workspace it was told (`set_session_workspace`), so the engine and the
/// tools always agree.
pub trait Workspace: Send + Sync + fmt::Debug + 'static {
    /// The root of `session_id`; absolute.
    fn root(&self, session_id: &str) -> PathBuf;
}

impl Workspace for PathBuf {
    fn root(&self, _session_id: &str) -> PathBuf {
        self.clone()
    }
}

impl Workspace for PermissionEngine {
    fn root(&self, session_id: &str) -> PathBuf {
        self.workspace(session_id)
    }
}

/// `path` made absolute against the process's working directory, for a root given as a
/// relative path.
pub(crate) fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    std::env::current_dir()
        .map(|cwd| cwd.join(path))
        .unwrap_or_else(|_| path.to_path_buf())
}
