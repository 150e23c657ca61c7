//! Result budgets: how much tool output goes back to the model.
//!
//! A result over its tool's cap ([`ToolSpec::max_result_bytes`](crate::ToolSpec::max_result_bytes))
//! is cut, head and tail kept. A result over [`ResultBudget::spill_bytes`] is not cut
//! but saved whole in the session's scratch dir; the model gets a preview and the path.
//! Over a message's results together, [`ResultBudget::turn_bytes`] holds: the largest
//! results are spilled first until the rest fits.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::cap;
use super::untrusted;
use crate::text::preview;
use crate::{RunContext, new_trace_id};

/// Limits on the tool output sent back to the model; see [`DispatcherBuilder::result_budget`](super::DispatcherBuilder::result_budget).
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ResultBudget {
    /// A result longer than this is saved in full to a file and replaced by a preview and
    /// the path (default 256 KiB).
    pub spill_bytes: usize,
    /// The results of one assistant message together: over this, the largest are
    /// spilled first (default 256 KiB).
    pub turn_bytes: usize,
    /// How much of a spilled result the model sees (default 4 KiB).
    pub preview_bytes: usize,
    /// Spilled results go to `<scratch_dir>/<session id>/`
    /// (default `hermes-scratch` in the system's temporary directory).
    pub scratch_dir: PathBuf,
}

impl Default for ResultBudget {
    fn default() -> Self {
        Self {
            spill_bytes: 256 * 1024,
            turn_bytes: 256 * 1024,
            preview_bytes: 4 * 1024,
            scratch_dir: std::env::temp_dir().join("hermes-scratch"),
        }
    }
}

impl ResultBudget {
    /// The defaults with another scratch dir.
    pub fn with_scratch_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.scratch_dir = dir.into();
        self
    }
}

/// A result on its way to the model: its text, where it was spilled, and whether it is
/// outside content to be fenced. Rendered once, when it is handed out.
#[derive(Debug, Clone)]
pub(crate) struct Body {
    text: String,
    /// The tool's cap on a result that is cut rather than spilled.
    cap: usize,
    spilled: Option<Spilled>,
    /// The tool's name, when its output is untrusted outside content.
    untrusted: Option<Box<str>>,
}

#[derive(Debug, Clone)]
struct Spilled {
    /// The line that tells the model where the whole result is.
    notice: Box<str>,
}

impl Body {
    /// An error's JSON: never spilled or fenced.
    pub(crate) fn error(text: String) -> Self {
        Self {
            text,
            cap: usize::MAX,
            spilled: None,
            untrusted: None,
        }
    }

    /// A tool's output, as it came, with the tool's cap.
    pub(crate) fn output(text: String, untrusted: Option<&str>, cap: usize) -> Self {
        Self {
            text,
            cap,
            spilled: None,
            untrusted: untrusted.map(Box::from),
        }
    }

    /// Whether the output is long enough to spill rather than cut.
    pub(crate) fn must_spill(&self, budget: &ResultBudget) -> bool {
        self.spilled.is_none() && self.text.len() > budget.spill_bytes
    }

    /// Cut the output to the tool's cap, head and tail kept.
    pub(crate) fn cut(&mut self) {
        if self.text.len() > self.cap {
            self.text = cap::cap(std::mem::take(&mut self.text), self.cap);
        }
    }

    /// Spill the output, or cut it when the file cannot be written.
    pub(crate) async fn spill_or_cut(&mut self, budget: &ResultBudget, at: SpillTarget<'_>) {
        if !self.spill(budget, at).await {
            self.cut();
        }
    }

    /// The bytes this result costs in the message, once rendered (near enough: text
    /// defused inside a fence can grow by a few bytes).
    pub(crate) fn len(&self) -> usize {
        let notice = self
            .spilled
            .as_ref()
            .map_or(0, |spilled| spilled.notice.len());
        let fence = self.untrusted.as_deref().map_or(0, untrusted::overhead);
        self.text.len() + notice + fence
    }

    /// The text the model would see before fencing (for events).
    pub(crate) fn text(&self) -> &str {
        &self.text
    }

    fn can_spill(&self, budget: &ResultBudget) -> bool {
        self.spilled.is_none() && self.text.len() > budget.preview_bytes
    }

    /// Save the whole text to the scratch dir and keep a preview. False (and nothing
    /// changed) when the file could not be written.
    async fn spill(&mut self, budget: &ResultBudget, at: SpillTarget<'_>) -> bool {
        let dir = budget.scratch_dir.join(file_safe(at.run.session_id()));
        // Models reuse call ids across rounds: a random tail keeps earlier files.
        let path = dir.join(format!(
            "{}-{}-{}.txt",
            file_safe(at.run.trace_id()),
            file_safe(at.tool_call_id),
            &new_trace_id()[..6]
        ));
        let bytes = self.text.len();
        let target = path.clone();
        // The text itself goes to the writing thread and comes back: a result of
        // hundreds of megabytes is not copied for the write.
        let text = std::mem::take(&mut self.text);
        let fence = self.untrusted.clone();
        let written = tokio::task::spawn_blocking(move || {
            // Outside content stays fenced in the file too, for whoever reads it back.
            let outcome = match &fence {
                Some(tool) => {
                    write_private(&dir, &target, untrusted::fence(tool, &text).as_bytes())
                }
                None => write_private(&dir, &target, text.as_bytes()),
            };
            (text, outcome)
        })
        .await;
        let written = match written {
            Ok((text, outcome)) => {
                self.text = text;
                Ok(outcome)
            }
            // Only a runtime shutting down gets here (the writer does not panic): the
            // text went with the task.
            Err(error) => {
                self.text = format!("[hermes: this result of {bytes} bytes was lost: {error}]");
                Err(error)
            }
        };
        match written {
            Ok(Ok(())) => {
                let notice = format!(
                    "[hermes: this result is {bytes} bytes, too long to show whole; it was \
                     saved in full to {}. Its beginning follows; read that file for the rest.]\n",
                    path.display()
                );
                self.text = preview(&self.text, budget.preview_bytes);
                self.spilled = Some(Spilled {
                    notice: notice.into(),
                });
                true
            }
            Ok(Err(error)) => {
                tracing::warn!(path = %path.display(), %error, "could not spill a tool result");
                false
            }
            Err(error) => {
                tracing::warn!(%error, "the spill task failed");
                false
            }
        }
    }

    /// The tool message content.
    pub(crate) fn render(self) -> String {
        let text = match &self.untrusted {
            Some(tool) => untrusted::fence(tool, &self.text),
            None => self.text,
        };
        match self.spilled {
            None => text,
            Some(Spilled { notice }) => {
                let mut content = String::from(notice);
                content.push_str(&text);
                content
            }
        }
    }
}

/// Where a spilled result is filed: the run (session and trace ids) and the call.
#[derive(Debug, Clone, Copy)]
pub(crate) struct SpillTarget<'a> {
    pub(crate) run: &'a RunContext,
    pub(crate) tool_call_id: &'a str,
}

/// Spill the largest of `bodies` until those still held plus `already` (bytes already
/// handed out this turn) fit `budget.turn_bytes`, or nothing more can be spilled.
pub(crate) async fn fit_turn(
    bodies: &mut [(&mut Body, SpillTarget<'_>)],
    already: usize,
    budget: &ResultBudget,
) {
    loop {
        let total: usize = already + bodies.iter().map(|(body, _)| body.len()).sum::<usize>();
        if total <= budget.turn_bytes {
            return;
        }
        let largest = bodies
            .iter_mut()
            .filter(|(body, _)| body.can_spill(budget))
            .max_by_key(|(body, _)| body.len());
        let Some((body, at)) = largest else { return };
        if !body.spill(budget, *at).await {
            // Could not write: cut it to the preview size instead, so the turn still fits.
            let cut = cap::cap(std::mem::take(&mut body.text), budget.preview_bytes);
            body.text = cut;
        }
    }
}

/// `name` with anything but ASCII letters, digits, `-` and `_` replaced, so ids from
/// the model cannot climb out of the scratch dir.
fn file_safe(name: &str) -> String {
    let safe: String = name
        .chars()
        .take(64)
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    if safe.is_empty() {
        "_".to_owned()
    } else {
        safe
    }
}

/// Write `contents` to `path`, readable by this user only, creating `dir` likewise.
fn write_private(dir: &Path, path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let mut dirs = std::fs::DirBuilder::new();
    dirs.recursive(true);
    let mut file = std::fs::OpenOptions::new();
    file.write(true).create(true).truncate(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
        dirs.mode(0o700);
        file.mode(0o600);
    }
    dirs.create(dir)?;
    file.open(path)?.write_all(contents)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_names_stay_inside_the_dir() {
        assert_eq!(file_safe("../../etc/passwd"), "______etc_passwd");
        assert_eq!(file_safe("call_1"), "call_1");
        assert_eq!(file_safe(""), "_");
        assert_eq!(file_safe(&"x".repeat(100)).len(), 64);
    }
}
