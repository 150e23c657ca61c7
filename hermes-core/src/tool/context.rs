use std::fmt;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, OnceLock};

use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::policy::{Approval, ApprovalRequest, Approver, DefaultPolicy, DenyAll, Policy};
use crate::run_context::RunShared;
use crate::trace::new_trace_id;
use crate::{ToolError, ToolSpec};

/// What a tool knows about the call it is serving.
///
/// The gateway builds one per call. Long-running tools should watch
/// [`cancellation`](Self::cancellation): it fires when the run is stopped or the call
/// times out. Tools that need a second opinion (a path inside an allowed root, say) can
/// ask the [`policy`](Self::policy). Clones share the call's cancellation token.
pub struct ToolContext {
    run: Arc<RunShared>,
    /// The dispatcher's gate when it is not the one bound to the run.
    gate: Option<Arc<Gate>>,
    tool_call_id: String,
    /// A child of the run's token, made on first use: most tools never ask for it, and
    /// making one costs more than the rest of a small call.
    token: OnceLock<CancellationToken>,
    /// A human approved this call (at the gateway or through [`ToolContext::ask_approval`]).
    approved: AtomicBool,
}

/// The policy and approver of a dispatcher, shared by every context it makes.
#[derive(Debug, Clone)]
pub(crate) struct Gate {
    pub(crate) policy: Arc<dyn Policy>,
    pub(crate) approver: Arc<dyn Approver>,
}

impl Default for Gate {
    fn default() -> Self {
        Self {
            policy: Arc::new(DefaultPolicy),
            approver: Arc::new(DenyAll),
        }
    }
}

impl Clone for ToolContext {
    fn clone(&self) -> Self {
        Self {
            run: Arc::clone(&self.run),
            gate: self.gate.clone(),
            tool_call_id: self.tool_call_id.clone(),
            // Made now if it was not yet, so the clone and the original share one token.
            token: OnceLock::from(self.cancellation().clone()),
            approved: AtomicBool::new(self.was_approved()),
        }
    }
}

impl ToolContext {
    /// A context outside any run, for calling a tool directly (tests, scripts): a fresh
    /// trace id, session `default`, the default policy and an approver that refuses.
    pub fn new(tool_call_id: impl Into<String>) -> Self {
        let run = RunShared::new(
            new_trace_id().into(),
            "default".into(),
            CancellationToken::new(),
        );
        Self::for_call(&Arc::new(run), &Arc::default(), tool_call_id.into())
    }

    pub(crate) fn for_call(run: &Arc<RunShared>, gate: &Arc<Gate>, tool_call_id: String) -> Self {
        let bound = run.gate.get_or_init(|| Arc::clone(gate));
        Self {
            run: Arc::clone(run),
            gate: (!Arc::ptr_eq(bound, gate)).then(|| Arc::clone(gate)),
            tool_call_id,
            token: OnceLock::new(),
            approved: AtomicBool::new(false),
        }
    }

    fn gate(&self) -> &Gate {
        static FALLBACK: OnceLock<Gate> = OnceLock::new();
        match (&self.gate, self.run.gate.get()) {
            (Some(gate), _) | (None, Some(gate)) => gate,
            (None, None) => FALLBACK.get_or_init(Gate::default),
        }
    }

    fn gate_mut(&mut self) -> &mut Gate {
        let current = self.gate().clone();
        Arc::make_mut(self.gate.get_or_insert_with(|| Arc::new(current)))
    }

    /// Give the call id back (the gateway reuses it for the tool message).
    pub(crate) fn into_tool_call_id(self) -> String {
        self.tool_call_id
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
        self.token = OnceLock::new();
        self
    }

    /// Replace the policy.
    #[must_use]
    pub fn with_policy(mut self, policy: Arc<dyn Policy>) -> Self {
        self.gate_mut().policy = policy;
        self
    }

    /// Replace the approver.
    #[must_use]
    pub fn with_approver(mut self, approver: Arc<dyn Approver>) -> Self {
        self.gate_mut().approver = approver;
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
        &self.tool_call_id
    }

    /// Fires when the run is cancelled or this call times out.
    pub fn cancellation(&self) -> &CancellationToken {
        self.token
            .get_or_init(|| self.run.cancellation.child_token())
    }

    /// Whether the call should stop: the run was cancelled or the call timed out.
    pub fn is_cancelled(&self) -> bool {
        self.run.cancellation.is_cancelled()
            || self
                .token
                .get()
                .is_some_and(CancellationToken::is_cancelled)
    }

    /// The policy in force.
    pub fn policy(&self) -> &Arc<dyn Policy> {
        &self.gate().policy
    }

    /// The approver in force.
    pub fn approver(&self) -> &Arc<dyn Approver> {
        &self.gate().approver
    }

    /// Whether a human approved this call: the gateway asked (a `dangerous` tool, a
    /// policy that wanted approval) or the tool did ([`ask_approval`](Self::ask_approval)).
    /// A tool that finds out only while running that a call is risky (a shell command
    /// the detector flags, say) asks only when this is false.
    pub fn was_approved(&self) -> bool {
        self.approved.load(Ordering::Acquire)
    }

    /// Ask the approver about this call, from inside a tool: for risks only the tool can
    /// see (a process the session did not start, a command flagged while running).
    /// `class`, if given, is what an approval for the rest of the session would cover;
    /// such a grant goes to the policy. Gives up when the call is cancelled.
    ///
    /// # Errors
    ///
    /// [`ToolError::ApprovalDenied`] with the approver's reason, or
    /// [`ToolError::Cancelled`].
    pub async fn ask_approval(
        &self,
        spec: &ToolSpec,
        args: &Value,
        prompt: impl Into<String>,
        class: Option<String>,
    ) -> Result<(), ToolError> {
        let mut request = ApprovalRequest::new(spec.name(), spec.scope(), args.clone(), prompt);
        request.class = class;
        request.tool_call_id = self.tool_call_id.clone();
        request.trace_id = self.trace_id().to_owned();
        request.session_id = self.session_id().to_owned();
        let gate = self.gate();
        let answer = tokio::select! {
            () = self.cancellation().cancelled() => {
                return Err(ToolError::Cancelled { tool: spec.name().to_owned() });
            }
            answer = gate.approver.approve(&request) => answer,
        };
        match answer {
            Approval::Approved => {}
            Approval::ApprovedForSession => {
                if let Some(class) = &request.class {
                    gate.policy.grant(&request.session_id, class);
                }
            }
            Approval::Denied { reason } => {
                return Err(ToolError::ApprovalDenied {
                    tool: spec.name().to_owned(),
                    reason,
                });
            }
        }
        self.approved.store(true, Ordering::Release);
        Ok(())
    }

    /// Report progress of a long call (a download, an archive...) as a `tool_progress`
    /// event, when the run records events; costs nothing when it does not. `done` and
    /// `total` count whatever units fit (bytes, files).
    pub fn progress(&self, message: impl Into<String>, done: Option<u64>, total: Option<u64>) {
        if let Some(sink) = &self.run.events {
            sink.emit(crate::AgentEvent::ToolProgress {
                tool_call_id: self.tool_call_id.clone(),
                message: message.into(),
                done,
                total,
            });
        }
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
