//! [`RunContext`]: what every call of one run shares.

use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;

use crate::event::{AgentEvent, EventSink};
use crate::observe::CallOrigin;
use crate::tool::Gate;
use crate::trace::new_trace_id;

/// The identity and controls of one run, shared by all its calls: trace id, session,
/// cancellation, and where events go. Cheap to clone.
///
/// The agent makes one per run. Build one yourself to call the [`Dispatcher`](crate::Dispatcher)
/// directly.
#[derive(Debug, Clone)]
pub struct RunContext {
    shared: Arc<RunShared>,
    events: Option<EventSink>,
}

/// The part of a run every [`ToolContext`](crate::ToolContext) of it points to.
#[derive(Debug, Clone)]
pub(crate) struct RunShared {
    pub(crate) trace_id: Box<str>,
    pub(crate) session_id: Box<str>,
    pub(crate) user_id: Option<Box<str>>,
    pub(crate) cancellation: CancellationToken,
    /// The policy and approver of the first dispatcher that served this run. A context
    /// made by that dispatcher reads them from here instead of holding its own handle:
    /// one reference count less on every call.
    pub(crate) gate: OnceLock<Arc<Gate>>,
    /// Where the run's events go, for tools reporting progress
    /// ([`ToolContext::progress`](crate::ToolContext::progress)).
    pub(crate) events: Option<EventSink>,
}

impl RunShared {
    pub(crate) fn new(
        trace_id: Box<str>,
        session_id: Box<str>,
        cancellation: CancellationToken,
    ) -> Self {
        Self {
            trace_id,
            session_id,
            user_id: None,
            cancellation,
            gate: OnceLock::new(),
            events: None,
        }
    }
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
            shared: Arc::new(RunShared::new(
                new_trace_id().into(),
                "default".into(),
                CancellationToken::new(),
            )),
            events: None,
        }
    }

    /// Use this trace id.
    #[must_use]
    pub fn with_trace_id(mut self, trace_id: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.shared).trace_id = trace_id.into().into_boxed_str();
        self
    }

    /// Use this session id. Idempotency keys are scoped to the session.
    #[must_use]
    pub fn with_session(mut self, session_id: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.shared).session_id = session_id.into().into_boxed_str();
        self
    }

    /// Name the user the run is for; it goes into the audit trail and telemetry
    /// ([`crate::observe`]), not to the model.
    #[must_use]
    pub fn with_user(mut self, user_id: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.shared).user_id = Some(user_id.into().into_boxed_str());
        self
    }

    /// Stop the run's calls when `token` is cancelled.
    #[must_use]
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        Arc::make_mut(&mut self.shared).cancellation = token;
        self
    }

    /// Record the run's events in `sink`.
    #[must_use]
    pub fn with_events(mut self, sink: EventSink) -> Self {
        Arc::make_mut(&mut self.shared).events = Some(sink.clone());
        self.events = Some(sink);
        self
    }

    /// The trace id.
    pub fn trace_id(&self) -> &str {
        &self.shared.trace_id
    }

    /// The session id.
    pub fn session_id(&self) -> &str {
        &self.shared.session_id
    }

    /// The user, if the run named one.
    pub fn user_id(&self) -> Option<&str> {
        self.shared.user_id.as_deref()
    }

    /// The trace id, session and user, for an observer's record.
    pub fn origin(&self) -> CallOrigin<'_> {
        CallOrigin {
            trace_id: self.trace_id(),
            session_id: self.session_id(),
            user_id: self.user_id(),
        }
    }

    /// The run's cancellation token.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.shared.cancellation
    }

    /// The event sink, if any.
    pub fn events(&self) -> Option<&EventSink> {
        self.events.as_ref()
    }

    pub(crate) fn shared(&self) -> &Arc<RunShared> {
        &self.shared
    }

    /// Emit an event if anyone records them; `event` is only built then.
    pub(crate) fn emit(&self, event: impl FnOnce() -> AgentEvent) {
        if let Some(sink) = &self.events {
            sink.emit(event());
        }
    }
}
