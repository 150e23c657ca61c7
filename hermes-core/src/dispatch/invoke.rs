//! Step 6: run the tool under its timeout and the run's cancellation, panics caught.

use std::any::Any;
use std::panic::AssertUnwindSafe;

use futures_util::FutureExt;
use serde_json::Value;

use crate::{Tool, ToolContext, ToolError, ToolOutput};

/// Not cancel-safe in the usual sense: dropping it drops the tool's future mid-call.
pub(crate) async fn invoke(
    tool: &dyn Tool,
    args: Value,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let spec = tool.spec();
    let cancelled = || ToolError::Cancelled {
        tool: spec.name().to_owned(),
    };
    if ctx.cancellation().is_cancelled() {
        return Err(cancelled());
    }
    let run = AssertUnwindSafe(tool.run(args, ctx)).catch_unwind();
    // The tool is polled first, so a call that finishes at once never registers a timer
    // or a cancellation waiter.
    let outcome = tokio::select! {
        biased;
        outcome = tokio::time::timeout(spec.timeout(), run) => outcome,
        () = ctx.cancellation().cancelled() => return Err(cancelled()),
    };
    match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(panic)) => Err(ToolError::Panicked {
            tool: spec.name().to_owned(),
            message: panic_message(panic.as_ref()),
        }),
        Err(_elapsed) => {
            // Tell whatever the tool left running (spawned tasks, child processes) to stop.
            ctx.cancellation().cancel();
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
