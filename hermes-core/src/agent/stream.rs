use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::Stream;
use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::AgentOutcome;
use crate::AgentEvent;

/// A run in progress: a [`Stream`] of its events as they happen, then its outcome.
///
/// Dropping it cancels the run.
///
/// ```
/// use futures_util::StreamExt;
/// use hermes_core::{Agent, ScriptedBackend, ScriptedTurn};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), hermes_core::Error> {
/// let agent = Agent::builder()
///     .backend(ScriptedBackend::new([ScriptedTurn::text("hi")]))
///     .build()?;
/// let mut run = agent.stream("hello");
/// while let Some(event) = run.next().await {
///     println!("{event}");
/// }
/// let outcome = run.outcome().await;
/// assert_eq!(outcome.answer.as_deref(), Some("hi"));
/// # Ok(())
/// # }
/// ```
pub struct RunStream {
    trace_id: String,
    events: UnboundedReceiver<AgentEvent>,
    task: JoinHandle<AgentOutcome>,
    cancellation: CancellationToken,
}

impl RunStream {
    pub(super) fn new(
        trace_id: String,
        events: UnboundedReceiver<AgentEvent>,
        task: JoinHandle<AgentOutcome>,
        cancellation: CancellationToken,
    ) -> Self {
        Self {
            trace_id,
            events,
            task,
            cancellation,
        }
    }

    /// The run's trace id.
    pub fn trace_id(&self) -> &str {
        &self.trace_id
    }

    /// Stop the run; the stream ends and the outcome says `cancelled`.
    pub fn cancel(&self) {
        self.cancellation.cancel();
    }

    /// Wait for the run to end and return its outcome (which holds every event, streamed
    /// or not).
    pub async fn outcome(mut self) -> AgentOutcome {
        let trace_id = self.trace_id.clone();
        match (&mut self.task).await {
            Ok(outcome) => outcome,
            Err(join_error) => super::run::crashed(trace_id, &join_error.to_string()),
        }
    }
}

impl Stream for RunStream {
    type Item = AgentEvent;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<AgentEvent>> {
        self.events.poll_recv(cx)
    }
}

impl Drop for RunStream {
    fn drop(&mut self) {
        self.cancellation.cancel();
    }
}

impl fmt::Debug for RunStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RunStream")
            .field("trace_id", &self.trace_id)
            .finish_non_exhaustive()
    }
}
