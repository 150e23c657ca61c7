//! `git_status`: the branch, its upstream, and the staged, unstaged, untracked and
//! conflicted files of a repository.

use std::sync::Arc;

use git2::{Branch, ErrorCode, Repository, Status, StatusOptions};
use hermes_core::{Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::change::{ChangeKind, FileChange};
use super::repository::{Repo, Target, git_failure};
use super::revision::short_id;
use super::{MAX_FILES, TIMEOUT};
use crate::common::Shared;
use crate::common::blocking::{Stop, stoppable};

/// Arguments of `git_status`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Args {
    /// The repository: its directory or any path inside it, relative to the workspace
    /// root (default: the workspace root).
    #[serde(default)]
    #[schemars(length(min = 1, max = 4096))]
    path: Option<String>,
    /// Only files under these files or directories (paths relative to the workspace
    /// root, inside the repository).
    #[serde(default)]
    #[schemars(length(max = 100))]
    paths: Vec<String>,
    /// Whether to list untracked files (default true). Ignored files are never listed.
    #[serde(default)]
    include_untracked: Option<bool>,
    /// The most files to list over all groups (default and maximum 500).
    #[serde(default)]
    #[schemars(range(min = 1, max = 500))]
    max_files: Option<usize>,
}

/// What `git_status` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The repository's working tree, relative to the workspace root.
    repository: String,
    /// The current branch; absent when HEAD is detached.
    #[serde(skip_serializing_if = "Option::is_none")]
    branch: Option<String>,
    /// The commit HEAD points at (short id); absent before the first commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    head: Option<String>,
    /// HEAD is detached (not on a branch).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    detached: bool,
    /// The branch has no commits yet.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    unborn: bool,
    /// The branch's upstream and how far apart they are.
    #[serde(skip_serializing_if = "Option::is_none")]
    upstream: Option<Upstream>,
    /// No staged, unstaged, untracked or conflicted files.
    clean: bool,
    /// Changes in the index, to be committed.
    staged: Vec<FileChange>,
    /// Changes in the working tree, not staged.
    unstaged: Vec<FileChange>,
    /// Files git does not track (and does not ignore).
    untracked: Vec<String>,
    /// Files with merge conflicts.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    conflicted: Vec<String>,
    /// More files changed than are listed.
    truncated: bool,
    /// What to know about the result.
    #[serde(skip_serializing_if = "Option::is_none")]
    note: Option<String>,
}

/// A branch's upstream.
#[derive(Debug, Serialize)]
struct Upstream {
    /// Its name (`origin/main`).
    name: String,
    /// Commits on the branch that the upstream lacks.
    ahead: usize,
    /// Commits on the upstream that the branch lacks.
    behind: usize,
}

/// The `git_status` tool.
#[derive(Debug)]
pub(crate) struct GitStatus {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl GitStatus {
    /// The tool.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let spec = ToolSpec::builder(
            "git_status",
            "Show the state of a git repository's working tree. Returns the branch (or \
             detached HEAD), the short id of HEAD, the upstream with how many commits the \
             branch is ahead and behind, and the files in groups: staged (in the index, to be \
             committed), unstaged (changed in the working tree), untracked and conflicted, \
             each file with its change (added, modified, deleted, renamed with old_path, \
             typechange), optionally only under `paths`. File paths are relative to the \
             repository root; `clean` is true when there is nothing to commit.",
        )
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

impl TypedTool for GitStatus {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let target = Target::resolve(&self.shared, ctx, args.path.as_deref(), &args.paths)?;
        let untracked = args.include_untracked.unwrap_or(true);
        let limit = args.max_files.unwrap_or(MAX_FILES).clamp(1, MAX_FILES);
        stoppable("git_status", ctx, move |stop| {
            let repo = target.open()?;
            let specs = target.pathspecs(&repo)?;
            status(&repo, &specs, untracked, limit, stop)
        })
        .await
    }
}

/// The status of the files of `repo` under `specs` (all when empty), listing at most
/// `limit` of them.
fn status(
    repo: &Repo,
    specs: &[String],
    untracked: bool,
    limit: usize,
    stop: &Stop,
) -> Result<Output, ToolError> {
    repo.workdir()?;
    let git = &repo.repo;
    let mut options = StatusOptions::new();
    options
        .include_untracked(untracked)
        .recurse_untracked_dirs(untracked)
        .include_ignored(false)
        .renames_head_to_index(true)
        .renames_index_to_workdir(true)
        // The paths are files and directories, not patterns.
        .disable_pathspec_match(true);
    for spec in specs {
        options.pathspec(spec);
    }
    let statuses = git
        .statuses(Some(&mut options))
        .map_err(|error| git_failure("cannot read the repository's status", error))?;
    stop.check()?;
    let mut out = head_of(git)?;
    out.repository.clone_from(&repo.shown);
    let mut listed = 0;
    for entry in statuses.iter() {
        let flags = entry.status();
        if flags.is_ignored() || flags.is_empty() {
            continue;
        }
        out.clean = false;
        if listed >= limit {
            out.truncated = true;
            continue;
        }
        listed += 1;
        let path = String::from_utf8_lossy(entry.path_bytes()).into_owned();
        if flags.is_conflicted() {
            out.conflicted.push(path);
            continue;
        }
        if flags.intersects(STAGED) {
            out.staged.push(match entry.head_to_index() {
                Some(delta) => FileChange::of(&delta),
                None => plain(path.clone(), ChangeKind::Modified),
            });
        }
        if flags.is_wt_new() {
            out.untracked.push(path);
        } else if flags.intersects(UNSTAGED) {
            out.unstaged.push(match entry.index_to_workdir() {
                Some(delta) => FileChange::of(&delta),
                None => plain(path, ChangeKind::Modified),
            });
        }
    }
    if out.truncated {
        out.note = Some(format!(
            "more than {limit} files changed; only the first {limit} are listed: pass a \
             larger max_files (at most {MAX_FILES}) or narrow the listing with paths"
        ));
    }
    Ok(out)
}

/// Index changes (staged).
const STAGED: Status = Status::INDEX_NEW
    .union(Status::INDEX_MODIFIED)
    .union(Status::INDEX_DELETED)
    .union(Status::INDEX_RENAMED)
    .union(Status::INDEX_TYPECHANGE);

/// Working-tree changes of tracked files (unstaged).
const UNSTAGED: Status = Status::WT_MODIFIED
    .union(Status::WT_DELETED)
    .union(Status::WT_RENAMED)
    .union(Status::WT_TYPECHANGE);

/// A change with no rename.
fn plain(path: String, change: ChangeKind) -> FileChange {
    FileChange {
        path,
        change,
        old_path: None,
    }
}

/// An empty result describing where HEAD is: branch, commit, upstream.
fn head_of(git: &Repository) -> Result<Output, ToolError> {
    let mut out = Output {
        repository: String::new(),
        branch: None,
        head: None,
        detached: false,
        unborn: false,
        upstream: None,
        clean: true,
        staged: Vec::new(),
        unstaged: Vec::new(),
        untracked: Vec::new(),
        conflicted: Vec::new(),
        truncated: false,
        note: None,
    };
    let head = match git.head() {
        Ok(head) => head,
        Err(error) if error.code() == ErrorCode::UnbornBranch => {
            out.unborn = true;
            out.branch = git
                .find_reference("HEAD")
                .ok()
                .and_then(|head| head.symbolic_target().ok().flatten().map(str::to_owned))
                .map(|target| target.trim_start_matches("refs/heads/").to_owned());
            return Ok(out);
        }
        Err(error) => return Err(git_failure("cannot read HEAD", error)),
    };
    out.head = head
        .peel_to_commit()
        .ok()
        .map(|commit| short_id(commit.as_object()));
    if !head.is_branch() {
        out.detached = true;
        return Ok(out);
    }
    out.branch = head.shorthand().ok().map(str::to_owned);
    let local = head.target();
    let branch = Branch::wrap(head);
    if let (Ok(upstream), Some(local)) = (branch.upstream(), local) {
        let name = upstream
            .name()
            .ok()
            .flatten()
            .unwrap_or_default()
            .to_owned();
        if let Some(remote) = upstream.get().target() {
            let (ahead, behind) = git.graph_ahead_behind(local, remote).unwrap_or((0, 0));
            out.upstream = Some(Upstream {
                name,
                ahead,
                behind,
            });
        }
    }
    Ok(out)
}
