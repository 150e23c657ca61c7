//! `git_diff`: unstaged changes (working tree against the index), staged changes (the
//! index against HEAD), or the changes between two revisions, as a unified patch with
//! per-file line counts.

use std::sync::Arc;

use git2::{Diff, DiffFindOptions, DiffOptions, Repository};
use hermes_core::{
    Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool, Violation,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::TIMEOUT;
use super::diffstat::{Summary, summarise};
use super::repository::{Target, git_failure};
use super::revision::{head_tree, tree_of};
use crate::common::Shared;
use crate::common::blocking::stoppable;

/// Arguments of `git_diff`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Args {
    /// The repository: its directory or any path inside it, relative to the workspace
    /// root (default: the workspace root).
    #[serde(default)]
    #[schemars(length(min = 1, max = 4096))]
    path: Option<String>,
    /// Show the staged changes (the index against HEAD, or against `from`) instead of
    /// the unstaged ones (default false).
    #[serde(default)]
    staged: bool,
    /// A revision to compare from (branch, tag, commit, `HEAD~2`). Alone: that revision
    /// against the working tree (or the index when staged).
    #[serde(default)]
    #[schemars(length(min = 1, max = 512))]
    from: Option<String>,
    /// A revision to compare to; needs `from`. Both: the changes between the two.
    #[serde(default)]
    #[schemars(length(min = 1, max = 512))]
    to: Option<String>,
    /// Only these files or directories (paths relative to the workspace root, inside the
    /// repository).
    #[serde(default)]
    #[schemars(length(max = 100))]
    paths: Vec<String>,
    /// Lines of context around each change (default 3).
    #[serde(default)]
    #[schemars(range(max = 100))]
    context_lines: Option<u32>,
}

/// What `git_diff` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The repository's working tree, relative to the workspace root.
    repository: String,
    /// The old side: a revision, `HEAD` or `index`.
    from: String,
    /// The new side: a revision, `index` or `worktree`.
    to: String,
    /// The files and line counts.
    #[serde(flatten)]
    summary: Summary,
    /// The unified patch (`git diff` format).
    patch: String,
    /// The patch was cut at the size cap (head and tail kept).
    truncated: bool,
    /// What to know about the result.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// The `git_diff` tool.
#[derive(Debug)]
pub(crate) struct GitDiff {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl GitDiff {
    /// The tool, its patch cap taken from `shared`'s settings.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let description = format!(
            "Show changes in a git repository as a unified patch. Default: unstaged changes \
             (working tree against the index); staged: true for what would be committed \
             (index against HEAD); from (and to) for the changes since a revision or between \
             two. Returns from/to, files (path, change, old_path for renames, insertions, \
             deletions, binary), the totals files_changed, insertions and deletions, and \
             the patch text (cut in the middle past {} KiB, `truncated` says so). Untracked \
             files are not shown: see git_status. Paths in arguments are relative to the \
             workspace root, in results to the repository root.",
            shared.config.max_output_bytes() / 1024
        );
        let spec = ToolSpec::builder("git_diff", description)
            .parameters_for::<Args>()
            .tag(super::super::FAMILY_TAG)
            .scope(Scope::Read)
            .permission("git:read")
            .arg_kind("path", ArgKind::Path(Access::Read))
            .arg_kind("paths", ArgKind::Path(Access::Read))
            .timeout(TIMEOUT)
            .max_result_bytes(super::result_cap(shared))
            .build()?;
        Ok(Self {
            shared: Arc::clone(shared),
            spec,
        })
    }
}

impl TypedTool for GitDiff {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let sides = Sides::of(&args)?;
        let target = Target::resolve(&self.shared, ctx, args.path.as_deref(), &args.paths)?;
        let cap = self.shared.config.max_output_bytes();
        let context = args.context_lines.unwrap_or(3);
        stoppable("git_diff", ctx, move |stop| {
            let repo = target.open()?;
            let specs = target.pathspecs(&repo)?;
            let mut options = DiffOptions::new();
            // The paths are files and directories, not patterns.
            options.context_lines(context).disable_pathspec_match(true);
            for spec in &specs {
                options.pathspec(spec);
            }
            let mut diff = sides.diff(&repo.repo, &mut options)?;
            diff.find_similar(Some(DiffFindOptions::new().renames(true)))
                .map_err(|error| git_failure("cannot detect renames", error))?;
            stop.check()?;
            let (summary, patch) = summarise(&diff, stop, Some(cap))?;
            let note = patch.truncated.then(|| {
                "the patch was cut in the middle; ask for fewer files with paths for the rest"
                    .to_owned()
            });
            Ok(Output {
                repository: repo.shown,
                from: sides.old_side(),
                to: sides.new_side(),
                summary,
                patch: patch.text,
                truncated: patch.truncated,
                note,
            })
        })
        .await
    }
}

/// The two sides a diff compares.
#[derive(Debug)]
enum Sides {
    /// The index against the working tree.
    Unstaged,
    /// A revision (HEAD when `None`) against the index.
    Staged(Option<String>),
    /// A revision against the working tree (through the index, as `git diff REV`).
    RevToWorktree(String),
    /// One revision against another.
    Revs(String, String),
}

impl Sides {
    /// The sides `args` ask for.
    fn of(args: &Args) -> Result<Self, ToolError> {
        match (&args.from, &args.to, args.staged) {
            (None, Some(_), _) => Err(invalid("/to", "`to` needs `from`: pass both revisions")),
            (Some(_), Some(_), true) => Err(invalid(
                "/staged",
                "staged compares the index with a revision; drop it when passing `to`",
            )),
            (Some(from), Some(to), false) => Ok(Self::Revs(from.clone(), to.clone())),
            (from, None, true) => Ok(Self::Staged(from.clone())),
            (Some(from), None, false) => Ok(Self::RevToWorktree(from.clone())),
            (None, None, false) => Ok(Self::Unstaged),
        }
    }

    /// Compute the diff.
    fn diff<'repo>(
        &self,
        git: &'repo Repository,
        options: &mut DiffOptions,
    ) -> Result<Diff<'repo>, ToolError> {
        let failed = |error| git_failure("cannot compute the diff", error);
        match self {
            Self::Unstaged => {
                need_workdir(git)?;
                git.diff_index_to_workdir(None, Some(options))
                    .map_err(failed)
            }
            Self::Staged(from) => {
                let tree = match from {
                    Some(rev) => Some(tree_of(git, rev)?),
                    None => head_tree(git)?,
                };
                git.diff_tree_to_index(tree.as_ref(), None, Some(options))
                    .map_err(failed)
            }
            Self::RevToWorktree(from) => {
                need_workdir(git)?;
                let tree = tree_of(git, from)?;
                git.diff_tree_to_workdir_with_index(Some(&tree), Some(options))
                    .map_err(failed)
            }
            Self::Revs(from, to) => {
                let (old, new) = (tree_of(git, from)?, tree_of(git, to)?);
                git.diff_tree_to_tree(Some(&old), Some(&new), Some(options))
                    .map_err(failed)
            }
        }
    }

    /// What the old side is.
    fn old_side(&self) -> String {
        match self {
            Self::Unstaged => "index".to_owned(),
            Self::Staged(None) => "HEAD".to_owned(),
            Self::Staged(Some(rev)) | Self::RevToWorktree(rev) | Self::Revs(rev, _) => rev.clone(),
        }
    }

    /// What the new side is.
    fn new_side(&self) -> String {
        match self {
            Self::Unstaged | Self::RevToWorktree(_) => "worktree".to_owned(),
            Self::Staged(_) => "index".to_owned(),
            Self::Revs(_, to) => to.clone(),
        }
    }
}

/// An argument error at `pointer`.
fn invalid(pointer: &str, message: &str) -> ToolError {
    ToolError::InvalidArguments {
        violations: vec![Violation::new(pointer, "dependencies", message)],
    }
}

/// An error for a bare repository.
fn need_workdir(git: &Repository) -> Result<(), ToolError> {
    if git.is_bare() {
        return Err(ToolError::failed(
            "a bare repository has no working tree; compare revisions with from and to",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(staged: bool, from: Option<&str>, to: Option<&str>) -> Args {
        Args {
            path: None,
            staged,
            from: from.map(str::to_owned),
            to: to.map(str::to_owned),
            paths: Vec::new(),
            context_lines: None,
        }
    }

    fn sides(staged: bool, from: Option<&str>, to: Option<&str>) -> Option<(String, String)> {
        let sides = Sides::of(&args(staged, from, to)).ok()?;
        Some((sides.old_side(), sides.new_side()))
    }

    #[test]
    fn the_arguments_choose_the_sides() {
        let pair = |old: &str, new: &str| Some((old.to_owned(), new.to_owned()));
        assert_eq!(sides(false, None, None), pair("index", "worktree"));
        assert_eq!(sides(true, None, None), pair("HEAD", "index"));
        assert_eq!(sides(true, Some("v1"), None), pair("v1", "index"));
        assert_eq!(sides(false, Some("v1"), None), pair("v1", "worktree"));
        assert_eq!(sides(false, Some("v1"), Some("v2")), pair("v1", "v2"));
        assert_eq!(sides(false, None, Some("v2")), None);
        assert_eq!(sides(true, Some("v1"), Some("v2")), None);
    }
}
