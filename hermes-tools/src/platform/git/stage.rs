//! Staging what `git_commit` is asked to commit: each path, a file or a directory taken
//! literally (not as a pattern), with its additions, changes and deletions.

use std::path::Path;

use git2::{Index, IndexAddOption, Repository};
use hermes_core::ToolError;

use super::repository::{Repo, git_failure};
use super::revision::head_tree;

/// Stage `specs` (pathspecs of the raw `paths`, in order; empty when one of them is the
/// whole working tree) into `index`.
///
/// # Errors
///
/// A path that is neither in the working tree, nor in the index, nor in HEAD; a libgit2
/// failure.
pub(super) fn stage(
    repo: &Repo,
    index: &mut Index,
    specs: &[String],
    paths: &[String],
) -> Result<(), ToolError> {
    let workdir = repo.workdir()?;
    if specs.is_empty() {
        return stage_everything(index);
    }
    for (spec, raw) in specs.iter().zip(paths) {
        stage_one(&repo.repo, workdir, index, spec, raw)?;
    }
    Ok(())
}

/// Stage every change of the working tree, new files included (ignored ones excepted).
fn stage_everything(index: &mut Index) -> Result<(), ToolError> {
    index
        .add_all(["*"], IndexAddOption::DEFAULT, None)
        .map_err(|error| git_failure("cannot stage the working tree", error))?;
    index
        .update_all(["*"], None)
        .map_err(|error| git_failure("cannot stage the deleted files", error))
}

/// Stage the file or directory `spec` (shown to the model as `raw`).
fn stage_one(
    git: &Repository,
    workdir: &Path,
    index: &mut Index,
    spec: &str,
    raw: &str,
) -> Result<(), ToolError> {
    let failed = |error| git_failure(format!("cannot stage `{raw}`"), error);
    match workdir.join(spec).symlink_metadata() {
        Ok(metadata) if metadata.is_dir() => {
            index
                .add_all([spec], IndexAddOption::DISABLE_PATHSPEC_MATCH, None)
                .map_err(failed)?;
            unstage_missing(workdir, index, spec)?;
        }
        Ok(_) => index.add_path(Path::new(spec)).map_err(failed)?,
        Err(_) => {
            let removed = unstage_missing(workdir, index, spec)?;
            let in_head =
                head_tree(git)?.is_some_and(|tree| tree.get_path(Path::new(spec)).is_ok());
            if removed == 0 && !in_head {
                return Err(ToolError::failed(format!(
                    "`{raw}` is neither in the working tree nor tracked by git: nothing to \
                     stage; check the path (git_status lists changed files)"
                )));
            }
        }
    }
    Ok(())
}

/// Remove from `index` the entries at or under `spec` whose file is gone from the
/// working tree; how many.
fn unstage_missing(workdir: &Path, index: &mut Index, spec: &str) -> Result<usize, ToolError> {
    let prefix = format!("{spec}/");
    let gone: Vec<String> = index
        .iter()
        .map(|entry| String::from_utf8_lossy(&entry.path).into_owned())
        .filter(|path| *path == spec || path.starts_with(&prefix))
        .filter(|path| workdir.join(path).symlink_metadata().is_err())
        .collect();
    for path in &gone {
        index.remove_path(Path::new(path)).map_err(|error| {
            git_failure(format!("cannot stage the deletion of `{path}`"), error)
        })?;
    }
    Ok(gone.len())
}
