//! The kinds of change a file can have, and one changed file as results show it.

use git2::{Delta, DiffDelta};
use serde::Serialize;

/// What happened to a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(super) enum ChangeKind {
    /// A new file.
    Added,
    /// Changed content (or mode).
    Modified,
    /// Removed.
    Deleted,
    /// Moved (perhaps with changes): `old_path` says from where.
    Renamed,
    /// Copied from `old_path`.
    Copied,
    /// Changed type (a file became a symbolic link, say).
    Typechange,
    /// Not tracked by git.
    Untracked,
    /// Unmerged: a conflict to resolve.
    Conflicted,
    /// Anything else libgit2 reports (unreadable files).
    Other,
}

impl ChangeKind {
    /// The kind of a diff entry.
    pub(super) fn of_delta(delta: Delta) -> Self {
        match delta {
            Delta::Added => Self::Added,
            Delta::Modified => Self::Modified,
            Delta::Deleted => Self::Deleted,
            Delta::Renamed => Self::Renamed,
            Delta::Copied => Self::Copied,
            Delta::Typechange => Self::Typechange,
            Delta::Untracked => Self::Untracked,
            Delta::Conflicted => Self::Conflicted,
            Delta::Unmodified | Delta::Ignored | Delta::Unreadable => Self::Other,
        }
    }
}

/// A changed file: where it is, what happened, and where it was before a rename.
#[derive(Debug, Clone, Serialize)]
pub(super) struct FileChange {
    /// The file, relative to the repository root.
    pub(super) path: String,
    /// What happened to it.
    pub(super) change: ChangeKind,
    /// Its path before a rename or copy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) old_path: Option<String>,
}

impl FileChange {
    /// The file a diff entry is about.
    pub(super) fn of(delta: &DiffDelta<'_>) -> Self {
        let change = ChangeKind::of_delta(delta.status());
        let old = delta
            .old_file()
            .path()
            .map(|path| path.to_string_lossy().into_owned());
        let new = delta
            .new_file()
            .path()
            .map(|path| path.to_string_lossy().into_owned());
        let path = new.clone().or_else(|| old.clone()).unwrap_or_default();
        let old_path = matches!(change, ChangeKind::Renamed | ChangeKind::Copied)
            .then_some(old)
            .flatten()
            .filter(|old| *old != path);
        Self {
            path,
            change,
            old_path,
        }
    }
}
