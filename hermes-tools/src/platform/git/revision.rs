//! Naming commits and trees: revisions the model passes, HEAD, short ids.

use git2::{Commit, ErrorCode, Object, Repository, Tree};
use hermes_core::ToolError;

use super::repository::git_failure;

/// The tree of the revision `rev` (a branch, tag, commit id, `HEAD~2`).
///
/// # Errors
///
/// `rev` names nothing in the repository, or libgit2 cannot read it.
pub(super) fn tree_of<'repo>(git: &'repo Repository, rev: &str) -> Result<Tree<'repo>, ToolError> {
    git.revparse_single(rev)
        .and_then(|object| object.peel_to_tree())
        .map_err(|error| match error.code() {
            ErrorCode::NotFound | ErrorCode::InvalidSpec | ErrorCode::Ambiguous => {
                ToolError::failed(format!(
                    "`{rev}` does not name a revision of this repository; use a branch, tag \
                     or commit id (git_log lists commits)"
                ))
            }
            _ => git_failure(format!("cannot read revision `{rev}`"), error),
        })
}

/// The commit HEAD points at; `None` before the first commit.
///
/// # Errors
///
/// libgit2 cannot read HEAD or its commit.
pub(super) fn head_commit(git: &Repository) -> Result<Option<Commit<'_>>, ToolError> {
    match git.head() {
        Ok(head) => head
            .peel_to_commit()
            .map(Some)
            .map_err(|error| git_failure("cannot read HEAD's commit", error)),
        Err(error) if matches!(error.code(), ErrorCode::UnbornBranch | ErrorCode::NotFound) => {
            Ok(None)
        }
        Err(error) => Err(git_failure("cannot read HEAD", error)),
    }
}

/// The tree of HEAD; `None` before the first commit.
///
/// # Errors
///
/// libgit2 cannot read HEAD or its tree.
pub(super) fn head_tree(git: &Repository) -> Result<Option<Tree<'_>>, ToolError> {
    head_commit(git)?
        .map(|commit| commit.tree())
        .transpose()
        .map_err(|error| git_failure("cannot read HEAD's tree", error))
}

/// A short unique prefix of `object`'s id (its first 7 digits if libgit2 cannot say).
pub(super) fn short_id(object: &Object<'_>) -> String {
    object
        .short_id()
        .ok()
        .and_then(|buf| buf.as_str().ok().map(str::to_owned))
        .unwrap_or_else(|| object.id().to_string().chars().take(7).collect())
}
