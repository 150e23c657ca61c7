//! CPU-heavy and blocking work (decoding, encoding, parsing) on tokio's blocking pool,
//! able to notice that its call was cancelled or timed out.

use hermes_core::{CancellationToken, ToolContext, ToolError};

/// Run `work` on tokio's blocking pool.
///
/// # Errors
///
/// What `work` returns; [`ToolError::Panicked`] if it panicked (a decoder choking on a
/// malformed file, say), [`ToolError::Cancelled`] if the task was cancelled.
pub(super) async fn blocking<T, F>(tool: &str, work: F) -> Result<T, ToolError>
where
    T: Send + 'static,
    F: FnOnce() -> Result<T, ToolError> + Send + 'static,
{
    match tokio::task::spawn_blocking(work).await {
        Ok(result) => result,
        Err(error) if error.is_panic() => Err(ToolError::Panicked {
            tool: tool.to_owned(),
            message: "the decoder panicked on this file; it is probably malformed".to_owned(),
        }),
        Err(_) => Err(ToolError::Cancelled {
            tool: tool.to_owned(),
        }),
    }
}

/// Lets blocking work notice that its call should stop.
#[derive(Debug, Clone)]
pub(super) struct Stop {
    /// The tool named in the error.
    tool: &'static str,
    /// The call's cancellation.
    token: CancellationToken,
}

impl Stop {
    /// Watch the cancellation of the call `ctx` serves.
    pub(super) fn of(tool: &'static str, ctx: &ToolContext) -> Self {
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
    pub(super) fn check(&self) -> Result<(), ToolError> {
        if self.token.is_cancelled() {
            return Err(ToolError::Cancelled {
                tool: self.tool.to_owned(),
            });
        }
        Ok(())
    }
}
