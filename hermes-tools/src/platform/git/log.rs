//! `git_log`: the commits of a branch, a revision or a range, newest first, optionally
//! only those touching some paths.

use std::sync::Arc;

use git2::{Commit, DiffOptions, ErrorCode, Repository, Revwalk, Sort};
use hermes_core::{Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::TIMEOUT;
use super::repository::{Target, git_failure};
use super::revision::short_id;
use super::time::rfc3339;
use crate::common::Shared;
use crate::common::blocking::{Stop, stoppable};

/// How many commits a call returns unless asked.
const DEFAULT_COUNT: usize = 20;
/// The most commits one call returns.
const MAX_COUNT: usize = 500;
/// The longest full message returned per commit, in bytes.
const MAX_MESSAGE_BYTES: usize = 4096;

/// Arguments of `git_log`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Args {
    /// The repository: its directory or any path inside it, relative to the workspace
    /// root (default: the workspace root).
    #[serde(default)]
    #[schemars(length(min = 1, max = 4096))]
    path: Option<String>,
    /// Where to start: a branch, tag or commit (`main`, `v1.2`, `HEAD~3`), or a range
    /// `A..B` (commits reachable from B but not from A). Default: HEAD.
    #[serde(default)]
    #[schemars(length(min = 1, max = 512))]
    rev: Option<String>,
    /// Only commits that changed one of these files or directories (paths relative to
    /// the workspace root, inside the repository).
    #[serde(default)]
    #[schemars(length(max = 100))]
    paths: Vec<String>,
    /// The most commits to return (default 20, at most 500).
    #[serde(default)]
    #[schemars(range(min = 1, max = 500))]
    max_count: Option<usize>,
    /// Commits to skip first, to page through history (default 0).
    #[serde(default)]
    skip: Option<usize>,
    /// Include each commit's full message, not only its summary line (default false).
    #[serde(default)]
    full_message: bool,
}

/// What `git_log` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The repository's working tree, relative to the workspace root.
    repository: String,
    /// The commits, newest first.
    commits: Vec<CommitEntry>,
    /// More commits match: call again with `skip` set to `next_skip`.
    more: bool,
    /// The `skip` that continues the listing, when there is more.
    #[serde(skip_serializing_if = "Option::is_none")]
    next_skip: Option<usize>,
}

/// One commit.
#[derive(Debug, Serialize)]
struct CommitEntry {
    /// The full commit id.
    id: String,
    /// A short unique prefix of the id.
    short_id: String,
    /// The author's name.
    author: String,
    /// The author's email.
    email: String,
    /// When it was authored (RFC 3339, in the author's offset).
    time: String,
    /// The first line of the message.
    summary: String,
    /// The whole message, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<String>,
    /// The parent ids (short); two or more for a merge.
    parents: Vec<String>,
}

/// The `git_log` tool.
#[derive(Debug)]
pub(crate) struct GitLog {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl GitLog {
    /// The tool.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let spec = ToolSpec::builder(
            "git_log",
            "List the commits of a git repository, newest first: from HEAD, a branch, tag or \
             commit, or a range `A..B`, optionally only those that changed some paths. Each \
             commit has its id and short_id, author, email, time (RFC 3339), summary line and \
             parent ids, plus the full message when full_message is true. Returns at most \
             max_count commits (default 20, up to 500); `more` and next_skip say how to page \
             on.",
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

impl TypedTool for GitLog {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        let target = Target::resolve(&self.shared, ctx, args.path.as_deref(), &args.paths)?;
        let page = Page {
            skip: args.skip.unwrap_or(0),
            count: args.max_count.unwrap_or(DEFAULT_COUNT).clamp(1, MAX_COUNT),
            full_message: args.full_message,
        };
        stoppable("git_log", ctx, move |stop| {
            let repo = target.open()?;
            let specs = target.pathspecs(&repo)?;
            let walk = walk(&repo.repo, args.rev.as_deref())?;
            let (commits, more) = collect(&repo.repo, walk, &specs, &page, stop)?;
            Ok(Output {
                repository: repo.shown,
                next_skip: more.then_some(page.skip + commits.len()),
                commits,
                more,
            })
        })
        .await
    }
}

/// Which commits of the walk to return.
#[derive(Debug)]
struct Page {
    /// Matching commits to pass over first.
    skip: usize,
    /// The most to return.
    count: usize,
    /// Include full messages.
    full_message: bool,
}

/// A walk over the commits `rev` names (HEAD by default), newest first.
fn walk<'repo>(git: &'repo Repository, rev: Option<&str>) -> Result<Revwalk<'repo>, ToolError> {
    let mut walk = git
        .revwalk()
        .map_err(|error| git_failure("cannot walk the history", error))?;
    walk.set_sorting(Sort::TIME)
        .map_err(|error| git_failure("cannot walk the history", error))?;
    if rev.is_none()
        && let Err(error) = git.head()
        && matches!(error.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound)
    {
        return Err(ToolError::failed(
            "the repository has no commits yet; commit something first (git_commit)",
        ));
    }
    let pushed = match rev {
        None => walk.push_head(),
        Some(rev) if rev.contains("..") => walk.push_range(rev),
        Some(rev) => match git
            .revparse_single(rev)
            .and_then(|object| object.peel_to_commit())
        {
            Ok(commit) => walk.push(commit.id()),
            Err(error) => Err(error),
        },
    };
    pushed.map_err(|error| match (rev, error.code()) {
        (Some(rev), ErrorCode::NotFound | ErrorCode::InvalidSpec | ErrorCode::Ambiguous) => {
            ToolError::failed(format!(
                "`{rev}` does not name a commit or a range of this repository; use a branch, \
                 tag or commit id (see git_status for the branch), or `A..B`"
            ))
        }
        _ => git_failure(
            format!("cannot walk from `{}`", rev.unwrap_or("HEAD")),
            error,
        ),
    })?;
    Ok(walk)
}

/// The page of matching commits of `walk`, and whether more match after it.
fn collect(
    git: &Repository,
    walk: Revwalk<'_>,
    specs: &[String],
    page: &Page,
    stop: &Stop,
) -> Result<(Vec<CommitEntry>, bool), ToolError> {
    let mut commits = Vec::new();
    let mut skipped = 0;
    for id in walk {
        stop.check()?;
        let id = id.map_err(|error| git_failure("cannot walk the history", error))?;
        let commit = git
            .find_commit(id)
            .map_err(|error| git_failure(format!("cannot read commit {id}"), error))?;
        if !specs.is_empty() && !touches(git, &commit, specs)? {
            continue;
        }
        if skipped < page.skip {
            skipped += 1;
            continue;
        }
        if commits.len() == page.count {
            return Ok((commits, true));
        }
        commits.push(entry(&commit, page.full_message));
    }
    Ok((commits, false))
}

/// Whether `commit` changed a path of `specs` compared with each of its parents (a merge
/// that took a path unchanged from one parent did not change it).
fn touches(git: &Repository, commit: &Commit<'_>, specs: &[String]) -> Result<bool, ToolError> {
    let tree = commit
        .tree()
        .map_err(|error| git_failure("cannot read a commit's tree", error))?;
    let mut options = DiffOptions::new();
    // The paths are files and directories, not patterns.
    options.disable_pathspec_match(true);
    for spec in specs {
        options.pathspec(spec);
    }
    let parents: Vec<Option<Commit<'_>>> = if commit.parent_count() == 0 {
        vec![None]
    } else {
        commit.parents().map(Some).collect()
    };
    for parent in parents {
        let parent_tree = match parent {
            Some(parent) => Some(
                parent
                    .tree()
                    .map_err(|error| git_failure("cannot read a commit's tree", error))?,
            ),
            None => None,
        };
        let diff = git
            .diff_tree_to_tree(parent_tree.as_ref(), Some(&tree), Some(&mut options))
            .map_err(|error| git_failure("cannot compare a commit with its parent", error))?;
        if diff.deltas().len() == 0 {
            return Ok(false);
        }
    }
    Ok(true)
}

/// `commit` as the result shows it.
fn entry(commit: &Commit<'_>, full_message: bool) -> CommitEntry {
    let author = commit.author();
    let when = author.when();
    CommitEntry {
        id: commit.id().to_string(),
        short_id: short_id(commit.as_object()),
        author: String::from_utf8_lossy(author.name_bytes()).into_owned(),
        email: String::from_utf8_lossy(author.email_bytes()).into_owned(),
        time: rfc3339(when.seconds(), when.offset_minutes()),
        summary: commit
            .summary_bytes()
            .map(|summary| String::from_utf8_lossy(summary).into_owned())
            .unwrap_or_default(),
        message: full_message.then(|| {
            let message = String::from_utf8_lossy(commit.message_bytes()).into_owned();
            crate::common::output::truncate_middle(message, MAX_MESSAGE_BYTES)
        }),
        parents: commit
            .parents()
            .map(|parent| short_id(parent.as_object()))
            .collect(),
    }
}
