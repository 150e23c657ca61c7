//! libgit2 work on tokio's blocking pool, able to notice that its call was cancelled.

use hermes_core::{CancellationToken, ToolContext, ToolError};

/// Lets blocking work notice that its call should stop.
#[derive(Debug, Clone)]
pub(super) struct Stop {
    /// The tool named in the error.
    tool: &'static str,
    /// The call's cancellation.
    token: CancellationToken,
}

impl Stop {
    /// `Err(Cancelled)` once the call should stop (the run was stopped or the call timed
    /// out).
    ///
    /// # Errors
    ///
    /// [`ToolError::Cancelled`] when the call should stop.
    pub(super) fn check(&self) -> Result<(), ToolError> {
        if self.token.is_cancelled() {
            return Err(ToolError::Cancelled {
                tool: self.tool.to_owned(),
            });
        }
        Ok(())
    }
}

/// Run `work` for the call `ctx` serves on tokio's blocking pool, handing it a [`Stop`].
///
/// # Errors
///
/// What `work` returns; [`ToolError::Panicked`] if it panicked, [`ToolError::Cancelled`]
/// if the task was cancelled.
pub(super) async fn blocking<T, F>(
    tool: &'static str,
    ctx: &ToolContext,
    work: F,
) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce(&Stop) -> Result<T, ToolError> + Send + 'static,
{
    let stop = Stop {
        tool,
        token: ctx.cancellation().clone(),
    };
    match tokio::task::spawn_blocking(move || work(&stop)).await {
        Ok(result) => result,
        Err(error) if error.is_panic() => Err(ToolError::Panicked {
            tool: tool.to_owned(),
            message: "libgit2 work panicked".to_owned(),
        }),
        Err(_) => Err(ToolError::Cancelled {
            tool: tool.to_owned(),
        }),
    }
}
