//! Step 6: run the tool under its timeout and the run's cancellation, panics caught.

use std::any::Any;
use std::future::Future;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::pin::{Pin, pin};
use std::task::Poll;
use std::time::Duration;

use futures_util::{FutureExt, poll};
use serde_json::Value;
use tokio::time::Instant;
use tokio::time::error::Elapsed;
use tokio_util::sync::CancellationToken;

use crate::{Tool, ToolContext, ToolError, ToolFuture, ToolOutput};

/// Dropping this future drops the tool's mid-call.
///
/// A tool that answers on its first poll never touches the timer or the cancellation
/// token's waiter list: most calls are such, and those two cost more than the rest of
/// the gateway together. The timeout counts from the first time the tool had to wait.
/// A call started: answered already (a synchronous tool), or a future to wait on.
pub(crate) enum Started<'a> {
    /// The tool answered inside `run`, or failed to start.
    Done(Result<ToolOutput, ToolError>),
    /// The tool has to wait: [`finish`] it.
    Waiting(ToolFuture<'a>),
}

/// Start a call: refused if the run was cancelled; a synchronous tool does its work
/// inside `run` itself, and its answer comes back with no future to poll.
pub(crate) fn start<'a>(tool: &'a dyn Tool, args: Value, ctx: &'a ToolContext) -> Started<'a> {
    let spec = tool.spec();
    if ctx.run_cancellation().is_cancelled() {
        return Started::Done(Err(ToolError::Cancelled {
            tool: spec.name().to_owned(),
        }));
    }
    let mut future = match catch_unwind(AssertUnwindSafe(|| tool.run(args, ctx))) {
        Ok(future) => future,
        Err(panic) => return Started::Done(Err(panicked(spec.name(), panic.as_ref()))),
    };
    match future.take_ready() {
        Some(outcome) => Started::Done(outcome),
        None => Started::Waiting(future),
    }
}

/// Run a call through to its end.
pub(crate) async fn invoke(
    tool: &dyn Tool,
    args: Value,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    match start(tool, args, ctx) {
        Started::Done(outcome) => outcome,
        Started::Waiting(future) => finish(tool, future, ctx).await,
    }
}

/// The rest of a call whose tool had to wait: polled under its panic guard, then under
/// the timeout and the run's cancellation.
pub(crate) async fn finish(
    tool: &dyn Tool,
    future: ToolFuture<'_>,
    ctx: &ToolContext,
) -> Result<ToolOutput, ToolError> {
    let spec = tool.spec();
    let run_token = ctx.run_cancellation();
    let cancelled = || ToolError::Cancelled {
        tool: spec.name().to_owned(),
    };
    let mut run = pin!(AssertUnwindSafe(future).catch_unwind());
    let outcome = match poll!(run.as_mut()) {
        Poll::Ready(outcome) => Ok(outcome),
        Poll::Pending => match Box::pin(wait(run, spec.timeout(), run_token)).await {
            Some(outcome) => outcome,
            None => return Err(cancelled()),
        },
    };
    match outcome {
        Ok(Ok(result)) => result,
        Ok(Err(panic)) => Err(panicked(spec.name(), panic.as_ref())),
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

/// The rest of a call that had to wait: under the timeout, until the run is cancelled
/// (`None`). Boxed by the caller, so calls that never wait do not carry its state.
async fn wait<F: Future>(
    run: Pin<&mut F>,
    timeout: Duration,
    run_token: &CancellationToken,
) -> Option<Result<F::Output, Elapsed>> {
    let deadline = Instant::now() + timeout;
    tokio::select! {
        biased;
        outcome = tokio::time::timeout_at(deadline, run) => Some(outcome),
        () = run_token.cancelled() => None,
    }
}

fn panicked(tool: &str, payload: &(dyn Any + Send)) -> ToolError {
    let message = if let Some(text) = payload.downcast_ref::<&str>() {
        (*text).to_owned()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic without a message".to_owned()
    };
    ToolError::Panicked {
        tool: tool.to_owned(),
        message,
    }
}
