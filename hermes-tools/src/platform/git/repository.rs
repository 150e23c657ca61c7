//! The repository a call names: found from a path inside the workspace (never above it
//! when paths are confined), and path arguments turned into pathspecs relative to its
//! working tree.

use std::path::{Path, PathBuf};

use git2::{ErrorCode, Repository, RepositoryOpenFlags};
use hermes_core::{ToolContext, ToolError};
use hermes_permissions::normalise_path;

use crate::common::Shared;
use crate::common::paths::{display, resolve, workspace_root};

/// Where to look for a repository and which files the call is about: resolved on the
/// runtime (cheap), opened on the blocking pool.
#[derive(Debug)]
pub(super) struct Target {
    /// The directory the search starts from.
    start: PathBuf,
    /// `start` as the model should see it.
    shown_start: String,
    /// The session's workspace root.
    root: PathBuf,
    /// Whether the repository must lie inside `root`.
    confine: bool,
    /// The `paths` arguments, resolved, each with its raw form for messages.
    paths: Vec<(PathBuf, String)>,
}

impl Target {
    /// The repository at or above `raw` (default: the workspace root), with `paths`
    /// (workspace paths inside it) to restrict the call to.
    ///
    /// # Errors
    ///
    /// A path that cannot be used or, when confined, leads outside the workspace.
    pub(super) fn resolve(
        shared: &Shared,
        ctx: &ToolContext,
        raw: Option<&str>,
        paths: &[String],
    ) -> Result<Self, ToolError> {
        let start = resolve(shared, ctx, raw.unwrap_or("."))?;
        let paths = paths
            .iter()
            .map(|path| Ok((resolve(shared, ctx, path)?, path.clone())))
            .collect::<Result<_, ToolError>>()?;
        Ok(Self {
            shown_start: display(shared, ctx, &start),
            start,
            root: workspace_root(shared, ctx),
            confine: shared.config.confine,
            paths,
        })
    }

    /// Open the repository (blocking).
    ///
    /// # Errors
    ///
    /// No repository at or above the start (inside the workspace, when confined), or
    /// one libgit2 cannot open.
    pub(super) fn open(&self) -> Result<Repo, ToolError> {
        let ceilings: Vec<&Path> = if self.confine {
            self.root.parent().into_iter().collect()
        } else {
            Vec::new()
        };
        let shown_start = &self.shown_start;
        let repo = Repository::open_ext(&self.start, RepositoryOpenFlags::empty(), ceilings)
            .map_err(|error| match error.code() {
                ErrorCode::NotFound => ToolError::failed(format!(
                    "`{shown_start}` is not in a git repository{}; pass the path of a \
                     repository's directory, or create one with `git init`",
                    if self.confine {
                        " inside the workspace"
                    } else {
                        ""
                    }
                )),
                _ => ToolError::failed_with(
                    format!("cannot open the git repository at `{shown_start}`"),
                    error,
                ),
            })?;
        let top = repo.workdir().unwrap_or_else(|| repo.path());
        let top = normalise_path(&top.to_string_lossy(), Path::new("/"))
            .unwrap_or_else(|_| top.to_path_buf());
        if self.confine && !top.starts_with(&self.root) {
            return Err(ToolError::failed(format!(
                "the repository of `{shown_start}` is at {}, outside the workspace; use a \
                 repository inside it",
                top.display()
            )));
        }
        let workdir = repo.workdir().is_some().then(|| top.clone());
        Ok(Repo {
            shown: self.shown(&top),
            workdir,
            repo,
        })
    }

    /// The `paths` arguments as pathspecs relative to `repo`'s working tree; empty when
    /// none were given or one of them is the whole working tree.
    ///
    /// # Errors
    ///
    /// A path outside the working tree, or a bare repository.
    pub(super) fn pathspecs(&self, repo: &Repo) -> Result<Vec<String>, ToolError> {
        if self.paths.is_empty() {
            return Ok(Vec::new());
        }
        let workdir = repo.workdir()?;
        let mut specs = Vec::with_capacity(self.paths.len());
        for (path, raw) in &self.paths {
            let Ok(relative) = path.strip_prefix(workdir) else {
                return Err(ToolError::failed(format!(
                    "`{raw}` is not inside the repository at `{}`; paths are relative to the \
                     workspace root and must lie in the repository's working tree",
                    repo.shown
                )));
            };
            if relative.as_os_str().is_empty() {
                return Ok(Vec::new());
            }
            specs.push(slashed(relative));
        }
        Ok(specs)
    }

    /// `path` relative to the workspace root when inside it.
    fn shown(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
            Ok(relative) => relative.display().to_string(),
            Err(_) => path.display().to_string(),
        }
    }
}

/// An open repository.
pub(super) struct Repo {
    /// The repository.
    pub(super) repo: Repository,
    /// Its working tree, normalised; `None` for a bare repository.
    workdir: Option<PathBuf>,
    /// Its working tree (or git directory) relative to the workspace root, for results.
    pub(super) shown: String,
}

impl std::fmt::Debug for Repo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Repo")
            .field("workdir", &self.workdir)
            .field("shown", &self.shown)
            .finish_non_exhaustive()
    }
}

impl Repo {
    /// The working tree.
    ///
    /// # Errors
    ///
    /// A bare repository, which has none.
    pub(super) fn workdir(&self) -> Result<&Path, ToolError> {
        self.workdir.as_deref().ok_or_else(|| {
            ToolError::failed(format!(
                "`{}` is a bare repository: it has no working tree; use a clone with one",
                self.shown
            ))
        })
    }
}

/// A relative path with `/` separators, as git names files.
fn slashed(path: &Path) -> String {
    path.components()
        .map(|component| component.as_os_str().to_string_lossy())
        .collect::<Vec<_>>()
        .join("/")
}

/// A libgit2 error as a failure, `what` saying what was being done.
pub(super) fn git_failure(what: impl Into<String>, error: git2::Error) -> ToolError {
    ToolError::failed_with(what, error)
}
