//! [`RunContext`]: what every call of one run shares.

use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::event::{AgentEvent, EventSink};
use crate::trace::new_trace_id;

/// The identity and controls of one run, shared by all its calls: trace id, session,
/// cancellation, and where events go.
///
/// The agent makes one per run. Build one yourself to call the [`Dispatcher`](crate::Dispatcher)
/// directly.
#[derive(Debug, Clone)]
pub struct RunContext {
    trace_id: Arc<str>,
    session_id: Arc<str>,
    cancellation: CancellationToken,
    events: Option<EventSink>,
}

impl Default for RunContext {
    fn default() -> Self {
        Self::new()
    }
}

impl RunContext {
    /// A fresh trace id, session `default`, a new cancellation token, no event sink.
    pub fn new() -> Self {
        Self {
            trace_id: new_trace_id().into(),
            session_id: Arc::from("default"),
            cancellation: CancellationToken::new(),
            events: None,
        }
    }

    /// Use this trace id.
    #[must_use]
    pub fn with_trace_id(mut self, trace_id: impl Into<Arc<str>>) -> Self {
        self.trace_id = trace_id.into();
        self
    }

    /// Use this session id. Idempotency keys are scoped to the session.
    #[must_use]
    pub fn with_session(mut self, session_id: impl Into<Arc<str>>) -> Self {
        self.session_id = session_id.into();
        self
    }

    /// Stop the run's calls when `token` is cancelled.
    #[must_use]
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = token;
        self
    }

    /// Record the run's events in `sink`.
    #[must_use]
    pub fn with_events(mut self, sink: EventSink) -> Self {
        self.events = Some(sink);
        self
    }

    /// The trace id.
    pub fn trace_id(&self) -> &str {
        &self.trace_id
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The run's cancellation token.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// The event sink, if any.
    pub fn events(&self) -> Option<&EventSink> {
        self.events.as_ref()
    }

    pub(crate) fn shared_trace_id(&self) -> &Arc<str> {
        &self.trace_id
    }

    pub(crate) fn shared_session_id(&self) -> &Arc<str> {
        &self.session_id
    }

    /// Emit an event if anyone records them; `event` is only built then.
    pub(crate) fn emit(&self, event: impl FnOnce() -> AgentEvent) {
        if let Some(sink) = &self.events {
            sink.emit(event());
        }
    }
}
