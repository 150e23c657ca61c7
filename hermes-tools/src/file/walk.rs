//! Directory walks for `list_directory`, `file_search` and `archive`: symbolic links never
//! followed, hidden files and `.gitignore` rules honoured as asked.

use std::path::Path;

use ignore::{Walk, WalkBuilder};

/// Whether a walk shows hidden files (names starting with `.`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hidden {
    /// Skip them, and everything under hidden directories.
    Skip,
    /// Include them.
    Include,
}

/// Whether a walk skips what `.gitignore`, `.ignore` and `.git/info/exclude` exclude.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gitignore {
    /// Skip ignored files, inside a git repository or not (the user's global excludes
    /// file is not read, so results do not depend on who runs the agent).
    Respect,
    /// Walk everything.
    Disregard,
}

impl Hidden {
    /// `Include` when `include` is true.
    pub(crate) fn from_flag(include: bool) -> Self {
        if include { Self::Include } else { Self::Skip }
    }
}

impl Gitignore {
    /// `Respect` when `respect` is true.
    pub(crate) fn from_flag(respect: bool) -> Self {
        if respect {
            Self::Respect
        } else {
            Self::Disregard
        }
    }
}

/// A walk of `root`, entries sorted by name within each directory, at most `max_depth`
/// levels below it (`None`: no limit). The first entry is `root` itself (depth 0).
pub(crate) fn walk(
    root: &Path,
    hidden: Hidden,
    gitignore: Gitignore,
    max_depth: Option<usize>,
) -> Walk {
    let respect = gitignore == Gitignore::Respect;
    WalkBuilder::new(root)
        .standard_filters(false)
        .hidden(hidden == Hidden::Skip)
        .git_ignore(respect)
        .git_exclude(respect)
        .ignore(respect)
        .parents(respect)
        .require_git(false)
        .git_global(false)
        .follow_links(false)
        .max_depth(max_depth)
        .sort_by_file_name(|a, b| a.cmp(b))
        .build()
}
