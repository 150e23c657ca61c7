//! `git_commit`: stage the files asked for (or every tracked change), then record the
//! index as a new commit on the current branch, showing what went into it.

use std::sync::Arc;

use git2::{Commit, DiffFindOptions, Index, Oid, Repository, RepositoryState};
use hermes_core::{
    Access, ArgKind, Error, Scope, ToolContext, ToolError, ToolSpec, TypedTool, Violation,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::TIMEOUT;
use super::author::{Identities, identities};
use super::diffstat::{Summary, summarise};
use super::repository::{Repo, Target, git_failure};
use super::revision::{head_commit, short_id};
use super::stage::stage;
use crate::common::Shared;
use crate::common::blocking::{Stop, stoppable};

/// Arguments of `git_commit`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct Args {
    /// The repository: its directory or any path inside it, relative to the workspace
    /// root (default: the workspace root).
    #[serde(default)]
    #[schemars(length(min = 1, max = 4096))]
    path: Option<String>,
    /// The commit message: a summary line, then (optionally) a blank line and a body.
    #[schemars(length(min = 1, max = 65536))]
    message: String,
    /// Files or directories to stage before committing: new, modified and deleted files
    /// under them (paths relative to the workspace root, inside the repository).
    /// Already staged changes are committed too.
    #[serde(default)]
    #[schemars(length(max = 1000))]
    paths: Vec<String>,
    /// Stage the changes of every tracked file first, as `git commit -a` (untracked
    /// files still need `paths`). Default false.
    #[serde(default)]
    all: bool,
    /// Record a commit even if it changes nothing (default false: refused).
    #[serde(default)]
    allow_empty: bool,
    /// The author's name (default: the repository's user.name).
    #[serde(default)]
    #[schemars(length(min = 1, max = 256))]
    author_name: Option<String>,
    /// The author's email (default: the repository's user.email).
    #[serde(default)]
    #[schemars(length(min = 1, max = 256))]
    author_email: Option<String>,
    /// Optional, for retries: a call carrying the same key as an earlier successful one
    /// returns that call's result without committing again. Without a key, every call
    /// commits.
    #[serde(default)]
    #[schemars(length(max = 128))]
    #[expect(dead_code, reason = "the gateway reads it from the raw arguments")]
    idempotency_key: Option<String>,
}

/// What `git_commit` returns.
#[derive(Debug, Serialize)]
pub(crate) struct Output {
    /// The repository's working tree, relative to the workspace root.
    repository: String,
    /// The new commit's id.
    commit: String,
    /// A short unique prefix of it.
    short_id: String,
    /// The branch it was added to; absent on a detached HEAD.
    #[serde(skip_serializing_if = "Option::is_none")]
    branch: Option<String>,
    /// The first line of its message.
    summary: String,
    /// Its author, `Name <email>`.
    author: String,
    /// Its parent (short id); absent for the first commit.
    #[serde(skip_serializing_if = "Option::is_none")]
    parent: Option<String>,
    /// What it committed: the files and line counts against the parent.
    #[serde(flatten)]
    changes: Summary,
}

/// The `git_commit` tool.
#[derive(Debug)]
pub(crate) struct GitCommit {
    /// The settings and state the built-in tools share.
    shared: Arc<Shared>,
    /// The tool's spec.
    spec: ToolSpec,
}

impl GitCommit {
    /// The tool.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, Error> {
        let spec = ToolSpec::builder(
            "git_commit",
            "Create a git commit on the current branch. Stages `paths` first (new, modified \
             and deleted files under them) or, with all: true, every change to tracked files; \
             changes staged before are committed too. The author comes from author_name and \
             author_email or the repository's user.name and user.email. A commit that \
             changes nothing is refused unless allow_empty. Returns the new commit id and \
             short_id, branch, summary, author, parent, and what was committed: files (path, \
             change, old_path for renames, insertions, deletions) with the totals. Paths in \
             arguments are relative to the workspace root, in results to the repository \
             root. Git hooks are not run.",
        )
        .parameters_for::<Args>()
        .tag(super::super::FAMILY_TAG)
        .scope(Scope::Write)
        // Each call commits what is staged at that moment: the same message twice is two
        // commits. A retry can pass an idempotency_key.
        .replays(false)
        .permission("git:write")
        .arg_kind("path", ArgKind::Path(Access::Write))
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

impl TypedTool for GitCommit {
    type Args = Args;
    type Output = Output;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(&self, args: Args, ctx: &ToolContext) -> Result<Output, ToolError> {
        if args.message.trim().is_empty() {
            return Err(ToolError::InvalidArguments {
                violations: vec![Violation::new(
                    "/message",
                    "minLength",
                    "the message is blank; say what the commit changes",
                )],
            });
        }
        let target = Target::resolve(&self.shared, ctx, args.path.as_deref(), &args.paths)?;
        stoppable("git_commit", ctx, move |stop| {
            let repo = target.open()?;
            let specs = target.pathspecs(&repo)?;
            ready(&repo)?;
            let mut index = repo
                .repo
                .index()
                .map_err(|error| git_failure("cannot read the index", error))?;
            if index.has_conflicts() {
                return Err(ToolError::failed(
                    "the index has merge conflicts; resolve them (git_status lists them) \
                     before committing",
                ));
            }
            if !args.paths.is_empty() {
                stage(&repo, &mut index, &specs, &args.paths)?;
            }
            if args.all {
                index
                    .update_all(["*"], None)
                    .map_err(|error| git_failure("cannot stage the tracked files", error))?;
            }
            let parent = head_commit(&repo.repo)?;
            let changes = staged_changes(&repo.repo, parent.as_ref(), &index, stop)?;
            if changes.files_changed == 0 && !args.allow_empty {
                return Err(ToolError::failed(
                    "nothing to commit: no changes are staged; pass paths to stage files, or \
                     all: true for changes to tracked files (git_status shows what changed), or \
                     allow_empty: true for a commit without changes",
                ));
            }
            let who = identities(
                &repo.repo,
                args.author_name.as_deref(),
                args.author_email.as_deref(),
            )?;
            let message = git2::message_prettify(&args.message, None)
                .map_err(|error| git_failure("cannot clean up the message", error))?;
            stop.check()?;
            let id = record(&repo.repo, &mut index, parent.as_ref(), &who, &message)?;
            describe(&repo, id, parent.as_ref(), &who, changes)
        })
        .await
    }
}

/// What the index holds against `parent` (everything, for a first commit).
fn staged_changes(
    git: &Repository,
    parent: Option<&Commit<'_>>,
    index: &Index,
    stop: &Stop,
) -> Result<Summary, ToolError> {
    let parent_tree = parent
        .map(Commit::tree)
        .transpose()
        .map_err(|error| git_failure("cannot read HEAD's tree", error))?;
    let mut diff = git
        .diff_tree_to_index(parent_tree.as_ref(), Some(index), None)
        .map_err(|error| git_failure("cannot compare the index with HEAD", error))?;
    diff.find_similar(Some(DiffFindOptions::new().renames(true)))
        .map_err(|error| git_failure("cannot detect renames", error))?;
    Ok(summarise(&diff, stop, None)?.0)
}

/// Save `index` and record it as a commit on HEAD with `parent`; the new commit's id.
fn record(
    git: &Repository,
    index: &mut Index,
    parent: Option<&Commit<'_>>,
    who: &Identities,
    message: &str,
) -> Result<Oid, ToolError> {
    let tree_id = index
        .write_tree()
        .map_err(|error| git_failure("cannot write the index as a tree", error))?;
    index
        .write()
        .map_err(|error| git_failure("cannot save the index", error))?;
    let tree = git
        .find_tree(tree_id)
        .map_err(|error| git_failure("cannot read the new tree", error))?;
    let parents: Vec<&Commit<'_>> = parent.into_iter().collect();
    git.commit(
        Some("HEAD"),
        &who.author,
        &who.committer,
        message,
        &tree,
        &parents,
    )
    .map_err(|error| git_failure("cannot create the commit", error))
}

/// The result for the new commit `id`.
fn describe(
    repo: &Repo,
    id: Oid,
    parent: Option<&Commit<'_>>,
    who: &Identities,
    changes: Summary,
) -> Result<Output, ToolError> {
    let commit = repo
        .repo
        .find_commit(id)
        .map_err(|error| git_failure("cannot read the new commit", error))?;
    Ok(Output {
        repository: repo.shown.clone(),
        commit: id.to_string(),
        short_id: short_id(commit.as_object()),
        branch: branch(&repo.repo),
        summary: commit
            .summary()
            .ok()
            .flatten()
            .unwrap_or_default()
            .to_owned(),
        author: format!(
            "{} <{}>",
            String::from_utf8_lossy(who.author.name_bytes()),
            String::from_utf8_lossy(who.author.email_bytes())
        ),
        parent: parent.map(|parent| short_id(parent.as_object())),
        changes,
    })
}

/// Refuse to commit in the middle of a merge, rebase or other operation, or with
/// conflicts: those need the git CLI.
fn ready(repo: &Repo) -> Result<(), ToolError> {
    repo.workdir()?;
    let state = repo.repo.state();
    if state != RepositoryState::Clean {
        return Err(ToolError::failed(format!(
            "the repository is in the middle of an operation ({state:?}); finish or abort it \
             with the git CLI before committing"
        )));
    }
    Ok(())
}

/// The current branch's short name.
fn branch(git: &Repository) -> Option<String> {
    let head = git.head().ok()?;
    head.is_branch()
        .then(|| head.shorthand().ok().map(str::to_owned))
        .flatten()
}
