use std::fmt;
use std::sync::Arc;

use tokio_util::sync::CancellationToken;

use crate::policy::{Approver, DefaultPolicy, DenyAll, Policy};
use crate::trace::new_trace_id;

/// What a tool knows about the call it is serving.
///
/// The gateway builds one per call. Long-running tools should watch
/// [`cancellation`](Self::cancellation): it fires when the run is stopped or the call
/// times out. Tools that need a second opinion (a path inside an allowed root, say) can
/// ask the [`policy`](Self::policy).
#[derive(Clone)]
#[non_exhaustive]
pub struct ToolContext {
    trace_id: Arc<str>,
    session_id: Arc<str>,
    tool_call_id: Arc<str>,
    cancellation: CancellationToken,
    policy: Arc<dyn Policy>,
    approver: Arc<dyn Approver>,
}

impl ToolContext {
    /// A context outside any run, for calling a tool directly (tests, scripts): a fresh
    /// trace id, session `default`, the default policy and an approver that refuses.
    pub fn new(tool_call_id: impl Into<Arc<str>>) -> Self {
        Self {
            trace_id: new_trace_id().into(),
            session_id: Arc::from("default"),
            tool_call_id: tool_call_id.into(),
            cancellation: CancellationToken::new(),
            policy: Arc::new(DefaultPolicy),
            approver: Arc::new(DenyAll),
        }
    }

    pub(crate) fn for_call(
        trace_id: Arc<str>,
        session_id: Arc<str>,
        tool_call_id: Arc<str>,
        cancellation: CancellationToken,
        policy: Arc<dyn Policy>,
        approver: Arc<dyn Approver>,
    ) -> Self {
        Self {
            trace_id,
            session_id,
            tool_call_id,
            cancellation,
            policy,
            approver,
        }
    }

    /// Replace the session id.
    #[must_use]
    pub fn with_session(mut self, session_id: impl Into<Arc<str>>) -> Self {
        self.session_id = session_id.into();
        self
    }

    /// Replace the cancellation token.
    #[must_use]
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        self.cancellation = token;
        self
    }

    /// Replace the policy.
    #[must_use]
    pub fn with_policy(mut self, policy: Arc<dyn Policy>) -> Self {
        self.policy = policy;
        self
    }

    /// The run's trace id (12 hex characters).
    pub fn trace_id(&self) -> &str {
        &self.trace_id
    }

    /// The session the run belongs to.
    pub fn session_id(&self) -> &str {
        &self.session_id
    }

    /// The id of the call being served.
    pub fn tool_call_id(&self) -> &str {
        &self.tool_call_id
    }

    /// Fires when the run is cancelled or this call times out.
    pub fn cancellation(&self) -> &CancellationToken {
        &self.cancellation
    }

    /// The policy in force.
    pub fn policy(&self) -> &Arc<dyn Policy> {
        &self.policy
    }

    /// The approver in force.
    pub fn approver(&self) -> &Arc<dyn Approver> {
        &self.approver
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("trace_id", &self.trace_id)
            .field("session_id", &self.session_id)
            .field("tool_call_id", &self.tool_call_id)
            .field("cancelled", &self.cancellation.is_cancelled())
            .finish_non_exhaustive()
    }
}
