//! A diff as results show it: each file with its change and line counts, the totals,
//! and (for `git_diff`) the unified patch text within a byte cap.

use git2::{Diff, Patch};
use hermes_core::ToolError;
use serde::Serialize;

use super::MAX_FILES;
use super::change::FileChange;
use super::repository::git_failure;
use crate::common::blocking::Stop;
use crate::common::output::truncate_middle;

/// One file of a diff, with its line counts.
#[derive(Debug, Serialize)]
pub(super) struct FileStat {
    /// The file and its change.
    #[serde(flatten)]
    pub(super) file: FileChange,
    /// Lines added.
    pub(super) insertions: usize,
    /// Lines removed.
    pub(super) deletions: usize,
    /// The file is binary: no line counts.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(super) binary: bool,
}

/// A diff, summarised.
#[derive(Debug, Serialize)]
pub(super) struct Summary {
    /// How many files changed.
    pub(super) files_changed: usize,
    /// Lines added, over all files.
    pub(super) insertions: usize,
    /// Lines removed, over all files.
    pub(super) deletions: usize,
    /// The files (the first [`MAX_FILES`]).
    pub(super) files: Vec<FileStat>,
    /// More files changed than are listed.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub(super) files_truncated: bool,
}

/// The unified patch text of a diff, cut to a cap.
#[derive(Debug, Default)]
pub(super) struct PatchText {
    /// The text, head and tail kept when cut.
    pub(super) text: String,
    /// The text was cut.
    pub(super) truncated: bool,
}

/// Summarise `diff`; with `patch_cap`, also render its patch within that many bytes.
///
/// # Errors
///
/// A libgit2 failure, or the call was cancelled.
pub(super) fn summarise(
    diff: &Diff<'_>,
    stop: &Stop,
    patch_cap: Option<usize>,
) -> Result<(Summary, PatchText), ToolError> {
    let mut summary = Summary {
        files_changed: 0,
        insertions: 0,
        deletions: 0,
        files: Vec::new(),
        files_truncated: false,
    };
    let mut patch = PatchText::default();
    // Past this much text, rendering stops: the cut keeps only the head and the tail of
    // the cap anyway, so the rest would be thrown away.
    let render_limit = patch_cap.map(|cap| cap.saturating_mul(4));
    for index in 0..diff.deltas().len() {
        stop.check()?;
        let Some(delta) = diff.get_delta(index) else {
            continue;
        };
        let file_patch = Patch::from_diff(diff, index)
            .map_err(|error| git_failure("cannot compute the diff", error))?;
        let binary = delta.flags().is_binary();
        let (insertions, deletions) = match &file_patch {
            Some(file_patch) if !binary => {
                let (_, added, removed) = file_patch
                    .line_stats()
                    .map_err(|error| git_failure("cannot count the changed lines", error))?;
                (added, removed)
            }
            _ => (0, 0),
        };
        summary.files_changed += 1;
        summary.insertions += insertions;
        summary.deletions += deletions;
        if summary.files.len() < MAX_FILES {
            summary.files.push(FileStat {
                file: FileChange::of(&delta),
                insertions,
                deletions,
                binary,
            });
        } else {
            summary.files_truncated = true;
        }
        if let (Some(limit), Some(mut file_patch)) = (render_limit, file_patch) {
            if patch.text.len() >= limit {
                patch.truncated = true;
                continue;
            }
            let buf = file_patch
                .to_buf()
                .map_err(|error| git_failure("cannot render the patch", error))?;
            patch.text.push_str(&String::from_utf8_lossy(&buf));
        }
    }
    if let Some(cap) = patch_cap
        && (patch.truncated || patch.text.len() > cap)
    {
        patch.truncated = true;
        patch.text = truncate_middle(std::mem::take(&mut patch.text), cap);
    }
    Ok((summary, patch))
}
