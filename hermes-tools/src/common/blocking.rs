//! Blocking work (filesystem walks, decoders, libgit2) on tokio's blocking pool, able to
//! notice that its call was cancelled or timed out.

use hermes_core::{CancellationToken, ToolContext, ToolError};

/// Run `work` on tokio's blocking pool.
///
/// # Errors
///
/// What `work` returns; [`ToolError::Panicked`] if it panicked (a decoder choking on a
/// malformed file, say), [`ToolError::Cancelled`] if the task was cancelled.
pub(crate) async fn blocking<T, F>(tool: &str, work: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(error) if error.is_panic() => Err(ToolError::Panicked {
            tool: tool.to_owned(),
            message: "its blocking work panicked, probably on malformed input".to_owned(),
        }),
        Err(_) => Err(ToolError::Cancelled {
            tool: tool.to_owned(),
        }),
    }
}

/// [`blocking`], handing `work` a [`Stop`] for the call `ctx` serves.
///
/// # Errors
///
/// As [`blocking`].
#[cfg_attr(not(feature = "git"), allow(dead_code))]
pub(crate) async fn stoppable<T, F>(
    tool: &'static str,
    ctx: &ToolContext,
    work: F,
) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce(&Stop) -> Result<T, ToolError> + Send + 'static,
{
    let stop = Stop::of(tool, ctx);
    blocking(tool, move || work(&stop)).await
}

/// Lets blocking work notice that its call should stop.
#[derive(Debug, Clone)]
#[cfg_attr(
    not(any(feature = "file", feature = "multimedia", feature = "git")),
    allow(dead_code)
)]
pub(crate) struct Stop {
    /// The tool named in the error.
    tool: &'static str,
    /// The call's cancellation.
    token: CancellationToken,
}

// The network tools' blocking work is short and never checks.
#[cfg_attr(
    not(any(feature = "file", feature = "multimedia", feature = "git")),
    allow(dead_code)
)]
impl Stop {
    /// Watch the cancellation of the call `ctx` serves.
    pub(crate) fn of(tool: &'static str, ctx: &ToolContext) -> Self {
        Self {
            tool,
            token: ctx.cancellation().clone(),
        }
    }

    /// `Err(Cancelled)` once the call should stop.
    ///
    /// # Errors
    ///
    /// [`ToolError::Cancelled`] when the run was stopped or the call timed out.
    pub(crate) fn check(&self) -> Result<(), ToolError> {
        if self.token.is_cancelled() {
            return Err(ToolError::Cancelled {
                tool: self.tool.to_owned(),
            });
        }
        Ok(())
    }
}
