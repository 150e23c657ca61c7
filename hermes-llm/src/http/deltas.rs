//! The loop every streaming backend shares: SSE events in, deltas out, the backend's
//! rules deciding what each event means and how the stream may end.

use std::collections::VecDeque;

use futures_util::{Stream, StreamExt, stream};
use hermes_core::{ChatDelta, LlmError};

use super::SseEvent;

/// Whether to keep reading after an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flow {
    Continue,
    /// The answer is complete (`[DONE]`, `message_stop`).
    Stop,
}

/// A backend's reading of its stream.
pub(crate) trait DeltaSource: Send + 'static {
    /// Turn one event into deltas.
    fn event(&mut self, event: &SseEvent, out: &mut VecDeque<ChatDelta>) -> Result<Flow, LlmError>;

    /// The body ended (after `Stop`, or without one): last deltas, or why this end is
    /// an error.
    fn end(&mut self, stopped: bool, out: &mut VecDeque<ChatDelta>) -> Result<(), LlmError>;
}

/// The deltas of `events` read by `source`; the first error ends the stream.
pub(crate) fn deltas<S: DeltaSource>(
    events: impl Stream<Item = Result<SseEvent, LlmError>> + Send + 'static,
    source: S,
) -> impl Stream<Item = Result<ChatDelta, LlmError>> + Send {
    struct Loop<S> {
        source: S,
        ready: VecDeque<ChatDelta>,
        stopped: bool,
        done: bool,
    }
    let state = Loop {
        source,
        ready: VecDeque::new(),
        stopped: false,
        done: false,
    };
    stream::unfold(
        (events.boxed(), state),
        |(mut events, mut state)| async move {
            loop {
                if let Some(delta) = state.ready.pop_front() {
                    return Some((Ok(delta), (events, state)));
                }
                if state.done {
                    return None;
                }
                let next = if state.stopped {
                    None
                } else {
                    events.next().await
                };
                let outcome = match next {
                    Some(Ok(event)) => state.source.event(&event, &mut state.ready).map(|flow| {
                        state.stopped = flow == Flow::Stop;
                    }),
                    Some(Err(error)) => Err(error),
                    None => {
                        state.done = true;
                        state.source.end(state.stopped, &mut state.ready)
                    }
                };
                if let Err(error) = outcome {
                    state.done = true;
                    state.ready.clear();
                    return Some((Err(error), (events, state)));
                }
            }
        },
    )
}
