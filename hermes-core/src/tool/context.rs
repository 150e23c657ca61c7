use std::fmt;
use std::sync::{Arc, OnceLock};

use tokio_util::sync::CancellationToken;

use crate::policy::{Approver, DefaultPolicy, DenyAll, Policy};
use crate::run_context::RunShared;
use crate::trace::new_trace_id;

/// What a tool knows about the call it is serving. Cheap to clone.
///
/// The gateway builds one per call. Long-running tools should watch
/// [`cancellation`](Self::cancellation): it fires when the run is stopped or the call
/// times out. Tools that need a second opinion (a path inside an allowed root, say) can
/// ask the [`policy`](Self::policy).
#[derive(Clone)]
pub struct ToolContext {
    run: Arc<RunShared>,
    call: Arc<CallShared>,
    policy: Arc<dyn Policy>,
    approver: Arc<dyn Approver>,
}

/// Per call, shared by the context's clones.
struct CallShared {
    tool_call_id: Box<str>,
    /// A child of the run's token, made on first use: most tools never ask for it, and
    /// making one costs more than the rest of a small call.
    token: OnceLock<CancellationToken>,
}

impl ToolContext {
    /// A context outside any run, for calling a tool directly (tests, scripts): a fresh
    /// trace id, session `default`, the default policy and an approver that refuses.
    pub fn new(tool_call_id: impl Into<String>) -> Self {
        let run = RunShared {
            trace_id: new_trace_id().into(),
            session_id: "default".into(),
            cancellation: CancellationToken::new(),
        };
        Self::for_call(
            Arc::new(run),
            tool_call_id.into().into_boxed_str(),
            Arc::new(DefaultPolicy),
            Arc::new(DenyAll),
        )
    }

    pub(crate) fn for_call(
        run: Arc<RunShared>,
        tool_call_id: Box<str>,
        policy: Arc<dyn Policy>,
        approver: Arc<dyn Approver>,
    ) -> Self {
        Self {
            run,
            call: Arc::new(CallShared {
                tool_call_id,
                token: OnceLock::new(),
            }),
            policy,
            approver,
        }
    }

    /// Replace the session id.
    #[must_use]
    pub fn with_session(mut self, session_id: impl Into<String>) -> Self {
        Arc::make_mut(&mut self.run).session_id = session_id.into().into_boxed_str();
        self
    }

    /// Use `token` as the run's cancellation token.
    #[must_use]
    pub fn with_cancellation(mut self, token: CancellationToken) -> Self {
        Arc::make_mut(&mut self.run).cancellation = token;
        self.call = Arc::new(CallShared {
            tool_call_id: self.call.tool_call_id.clone(),
            token: OnceLock::new(),
        });
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
        &self.run.trace_id
    }

    /// The session the run belongs to.
    pub fn session_id(&self) -> &str {
        &self.run.session_id
    }

    /// The id of the call being served.
    pub fn tool_call_id(&self) -> &str {
        &self.call.tool_call_id
    }

    /// Fires when the run is cancelled or this call times out.
    pub fn cancellation(&self) -> &CancellationToken {
        self.call
            .token
            .get_or_init(|| self.run.cancellation.child_token())
    }

    /// Whether the call should stop: the run was cancelled or the call timed out.
    pub fn is_cancelled(&self) -> bool {
        self.run.cancellation.is_cancelled()
            || self
                .call
                .token
                .get()
                .is_some_and(CancellationToken::is_cancelled)
    }

    /// The policy in force.
    pub fn policy(&self) -> &Arc<dyn Policy> {
        &self.policy
    }

    /// The approver in force.
    pub fn approver(&self) -> &Arc<dyn Approver> {
        &self.approver
    }

    /// Cancel this call only (its timeout ran out); the run goes on.
    pub(crate) fn cancel_call(&self) {
        self.cancellation().cancel();
    }

    /// The run's own token (not this call's child), for the gateway's select.
    pub(crate) fn run_cancellation(&self) -> &CancellationToken {
        &self.run.cancellation
    }
}

impl fmt::Debug for ToolContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolContext")
            .field("trace_id", &self.trace_id())
            .field("session_id", &self.session_id())
            .field("tool_call_id", &self.tool_call_id())
            .field("cancelled", &self.is_cancelled())
            .finish_non_exhaustive()
    }
}
