//! `text_diff`: a unified diff between two texts or files (or a file and a text), with
//! how many lines were added and removed and in how many hunks, computed by `similar`.

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{Access, ArgKind, Scope, ToolContext, ToolError, ToolSpec, TypedTool};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use similar::{ChangeTag, TextDiff as LineDiff};

use super::{FAMILY_TAG, text_file};
use crate::common::{Shared, output::truncate_middle};

/// The largest file compared, in bytes.
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// How long the diff algorithm may search for the smallest diff before it settles for
/// a larger, still correct one.
const DIFF_DEADLINE: Duration = Duration::from_secs(5);

/// The `text_diff` tool.
#[derive(Debug)]
pub(crate) struct TextDiff {
    spec: ToolSpec,
    shared: Arc<Shared>,
}

/// The arguments of `text_diff`: one of `old`/`old_path` and one of `new`/`new_path`.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TextDiffArgs {
    /// The old text itself. Give this or `old_path`.
    old: Option<String>,
    /// The new text itself. Give this or `new_path`.
    new: Option<String>,
    /// A UTF-8 file holding the old text (relative to the workspace). Give this or `old`.
    old_path: Option<String>,
    /// A UTF-8 file holding the new text (relative to the workspace). Give this or `new`.
    new_path: Option<String>,
    /// Unchanged lines shown around each change.
    #[serde(default = "default_context_lines")]
    #[schemars(range(max = 100))]
    context_lines: u8,
}

fn default_context_lines() -> u8 {
    3
}

/// What `text_diff` returns.
#[derive(Debug, Serialize)]
pub(crate) struct TextDiffReport {
    /// Whether the texts are the same (then `diff` is empty).
    identical: bool,
    /// Lines only in the new text.
    added: usize,
    /// Lines only in the old text.
    removed: usize,
    /// The hunks of the unified diff.
    hunks: usize,
    /// The unified diff (`---`/`+++` headers, `@@` hunks).
    diff: String,
    /// Whether the diff was cut to fit (its head and tail kept).
    truncated: bool,
}

/// One side of the comparison: a label for the header and the text.
#[derive(Debug)]
struct Side {
    label: String,
    text: String,
}

impl TextDiff {
    /// The tool.
    pub(crate) fn new(shared: &Arc<Shared>) -> Result<Self, hermes_core::Error> {
        let spec = ToolSpec::builder(
            "text_diff",
            "Show a unified diff between two texts or two files (old/new text, or \
             old_path/new_path; a file against a text works too), with the numbers of lines \
             added and removed and of hunks. Use it to review a change before or after \
             writing it.",
        )
        .parameters_for::<TextDiffArgs>()
        .tag(FAMILY_TAG)
        .scope(Scope::Read)
        .permission("file:read")
        .arg_kind("old_path", ArgKind::Path(Access::Read))
        .arg_kind("new_path", ArgKind::Path(Access::Read))
        .timeout(Duration::from_secs(30))
        .max_result_bytes(128 * 1024)
        .build()?;
        Ok(Self {
            spec,
            shared: Arc::clone(shared),
        })
    }

    /// The side given by `text` or `path`, exactly one of them.
    async fn side(
        &self,
        ctx: &ToolContext,
        which: &str,
        text: Option<String>,
        path: Option<String>,
    ) -> Result<Side, ToolError> {
        match (text, path) {
            (Some(text), None) => Ok(Side {
                label: which.to_owned(),
                text,
            }),
            (None, Some(path)) => {
                let file = text_file::read(&self.shared, ctx, &path, MAX_FILE_BYTES).await?;
                Ok(Side {
                    label: file.shown,
                    text: file.text,
                })
            }
            (Some(_), Some(_)) => Err(ToolError::failed(format!(
                "give `{which}` or `{which}_path`, not both"
            ))),
            (None, None) => Err(ToolError::failed(format!(
                "give the {which} text as `{which}` or a file holding it as `{which}_path`"
            ))),
        }
    }
}

impl TypedTool for TextDiff {
    type Args = TextDiffArgs;
    type Output = TextDiffReport;

    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    async fn call(
        &self,
        args: TextDiffArgs,
        ctx: &ToolContext,
    ) -> Result<TextDiffReport, ToolError> {
        let old = self.side(ctx, "old", args.old, args.old_path).await?;
        let new = self.side(ctx, "new", args.new, args.new_path).await?;
        let context = usize::from(args.context_lines);
        let max = self.shared.config.max_output_bytes();
        tokio::task::spawn_blocking(move || diff(&old, &new, context, max))
            .await
            .map_err(|error| ToolError::failed_with("the diff stopped unexpectedly", error))
    }
}

/// The diff of `old` and `new` with `context` lines around changes, cut to `max` bytes.
fn diff(old: &Side, new: &Side, context: usize, max: usize) -> TextDiffReport {
    let lines = LineDiff::configure()
        .timeout(DIFF_DEADLINE)
        .diff_lines(&old.text, &new.text);
    let (mut added, mut removed) = (0, 0);
    for change in lines.iter_all_changes() {
        match change.tag() {
            ChangeTag::Insert => added += 1,
            ChangeTag::Delete => removed += 1,
            ChangeTag::Equal => {}
        }
    }
    let hunks = if added + removed == 0 {
        0
    } else {
        lines.grouped_ops(context).len()
    };
    let text = if hunks == 0 {
        String::new()
    } else {
        lines
            .unified_diff()
            .context_radius(context)
            .header(&old.label, &new.label)
            .to_string()
    };
    let truncated = text.len() > max;
    TextDiffReport {
        identical: added + removed == 0,
        added,
        removed,
        hunks,
        diff: truncate_middle(text, max),
        truncated,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn side(label: &str, text: &str) -> Side {
        Side {
            label: label.to_owned(),
            text: text.to_owned(),
        }
    }

    #[test]
    fn counts_lines_and_hunks() {
        let old = side("old", "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\n");
        let new = side("new", "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\n");
        let report = diff(&old, &new, 1, 10_000);
        assert_eq!((report.added, report.removed, report.hunks), (2, 1, 2));
        assert!(
            report
                .diff
                .starts_with("--- old\n+++ new\n@@ -1,3 +1,3 @@\n"),
            "{}",
            report.diff
        );
        assert!(report.diff.contains("-b\n+B\n"));
        let whole = diff(&old, &new, 20, 10_000);
        assert_eq!(whole.hunks, 1);
    }

    #[test]
    fn identical_texts_have_no_diff() {
        let report = diff(&side("a", "x\n"), &side("b", "x\n"), 3, 10_000);
        assert!(report.identical && report.diff.is_empty() && report.hunks == 0);
    }

    #[test]
    fn long_diffs_are_cut() {
        let old: String = (0..5000).map(|i| format!("line {i}\n")).collect();
        let report = diff(&side("old", &old), &side("new", ""), 3, 2000);
        assert!(report.truncated && report.removed == 5000);
        assert!(report.diff.len() < 2200);
    }
}
