//! Step 6: run the tool under its timeout and the run's cancellation, panics caught.

use std::any::Any;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use serde_json::Value;
use tokio::time::Instant;

use crate::{Tool, ToolContext, ToolError, ToolOutput};

/// The timeout counts from `invoked_at` (the caller's clock reading, saved to spare a
/// second one). Dropping this future drops the tool's mid-call.
pub(crate) async fn invoke(
    tool: &dyn Tool,
    args: Value,
    ctx: &ToolContext,
    invoked_at: Instant,
) -> Result<ToolOutput, ToolError> {
    let spec = tool.spec();
    let cancelled = || ToolError::Cancelled {
        tool: spec.name().to_owned(),
    };
    let run_token = ctx.run_cancellation();
    if run_token.is_cancelled() {
        return Err(cancelled());
    }
    let run = AssertUnwindSafe(tool.run(args, ctx)).catch_unwind();
    // The tool is polled first, so a call that finishes at once never registers a timer
    // or a cancellation waiter.
    let outcome = tokio::select! {
        biased;
        outcome = tokio::time::timeout_at(invoked_at + spec.timeout(), run) => outcome,
        () = run_token.cancelled() => return Err(cancelled()),
    };
    match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(panic)) => Err(ToolError::Panicked {
            tool: spec.name().to_owned(),
            message: panic_message(panic.as_ref()),
        }),
        Err(_elapsed) => {
            // Tell whatever the tool left running (spawned tasks, child processes) to stop.
            ctx.cancel_call();
            Err(ToolError::TimedOut {
                tool: spec.name().to_owned(),
                after: spec.timeout(),
            })
        }
    }
}

fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    }
}
