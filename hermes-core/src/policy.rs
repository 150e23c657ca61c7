//! The permission boundary: [`Policy`] decides, [`Approver`] asks a human.
//!
//! The gateway consults the policy on every call after the arguments validated. A
//! `dangerous` tool always needs approval, whatever the policy says (unless it denies).
//! The full permission engine (profiles, four layers, path and command rules) lives in
//! `hermes-permissions` and implements these traits.

use std::borrow::Cow;
use std::fmt;

use async_trait::async_trait;
use serde_json::Value;

use crate::{Scope, ToolContext, ToolSpec};

/// What a [`Policy`] says about one call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Decision {
    /// Run it.
    Allow,
    /// Refuse it; the reason goes back to the model.
    Deny {
        /// Why, in words the model and a user can act on.
        reason: String,
    },
    /// Ask the [`Approver`] first.
    NeedsApproval {
        /// What to ask the human.
        prompt: String,
        /// The kind of action a session-wide approval would cover (say
        /// `dangerous.git-force-push:git push`); `None` when an approval must not be
        /// remembered beyond this call.
        class: Option<String>,
    },
}

impl Decision {
    /// A refusal.
    pub fn deny(reason: impl Into<String>) -> Self {
        Self::Deny {
            reason: reason.into(),
        }
    }

    /// A request for approval of this call only.
    pub fn needs_approval(prompt: impl Into<String>) -> Self {
        Self::NeedsApproval {
            prompt: prompt.into(),
            class: None,
        }
    }

    /// A request for approval that the human may grant for the rest of the session, for
    /// every call of the same `class`.
    pub fn needs_approval_for(prompt: impl Into<String>, class: impl Into<String>) -> Self {
        Self::NeedsApproval {
            prompt: prompt.into(),
            class: Some(class.into()),
        }
    }
}

/// A [`Decision`] with the rule that made it, for the audit trail.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Judgement {
    /// What to do with the call.
    pub decision: Decision,
    /// The rule that decided, in the policy's own words (`parameter:allowed_paths`).
    pub rule: Option<Cow<'static, str>>,
}

impl Judgement {
    /// A decision without a named rule.
    pub fn new(decision: Decision) -> Self {
        Self {
            decision,
            rule: None,
        }
    }

    /// Name the rule that decided.
    #[must_use]
    pub fn with_rule(mut self, rule: impl Into<Cow<'static, str>>) -> Self {
        self.rule = Some(rule.into());
        self
    }
}

impl From<Decision> for Judgement {
    fn from(decision: Decision) -> Self {
        Self::new(decision)
    }
}

/// Decides whether a validated call may run.
///
/// `check` is synchronous and on the hot path: it should decide from the spec, the
/// arguments and the context without I/O.
pub trait Policy: Send + Sync + fmt::Debug + 'static {
    /// Decide about one call whose arguments already passed the tool's schema.
    fn check(&self, spec: &ToolSpec, args: &Value, ctx: &ToolContext) -> Decision;

    /// [`check`](Self::check), naming the rule that decided. The gateway calls this
    /// one and records the rule in the audit trail. The default names no rule; a
    /// policy that overrides it must decide exactly as `check` does.
    fn judge(&self, spec: &ToolSpec, args: &Value, ctx: &ToolContext) -> Judgement {
        Judgement::new(self.check(spec, args, ctx))
    }

    /// A human approved calls of `class` for the rest of `session_id`
    /// ([`Approval::ApprovedForSession`]); a policy that remembers grants should let
    /// such calls through from now on. The default forgets it.
    fn grant(&self, session_id: &str, class: &str) {
        let _ = (session_id, class);
    }
}

/// The default policy: `read` and `write` tools run, `dangerous` tools need approval.
#[derive(Debug, Clone, Copy, Default)]
pub struct DefaultPolicy;

impl Policy for DefaultPolicy {
    fn check(&self, spec: &ToolSpec, args: &Value, ctx: &ToolContext) -> Decision {
        self.judge(spec, args, ctx).decision
    }

    /// Decides by scope alone; the rule is `scope:read`, `scope:write` or
    /// `scope:dangerous`.
    fn judge(&self, spec: &ToolSpec, _args: &Value, _ctx: &ToolContext) -> Judgement {
        let rule = match spec.scope() {
            Scope::Read => "scope:read",
            Scope::Write => "scope:write",
            Scope::Dangerous => "scope:dangerous",
        };
        let decision = match spec.scope() {
            Scope::Read | Scope::Write => Decision::Allow,
            Scope::Dangerous => Decision::needs_approval(format!(
                "`{}` is a dangerous tool; allow this call?",
                spec.name()
            )),
        };
        Judgement::new(decision).with_rule(rule)
    }
}

/// A call waiting for a human's yes or no.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct ApprovalRequest {
    /// The tool called.
    pub tool: String,
    /// Its scope.
    pub scope: Scope,
    /// The validated arguments.
    pub arguments: Value,
    /// What to ask.
    pub prompt: String,
    /// What a session-wide approval would cover, when one is possible.
    pub class: Option<String>,
    /// The call's id.
    pub tool_call_id: String,
    /// The run's trace id.
    pub trace_id: String,
    /// The session.
    pub session_id: String,
}

impl ApprovalRequest {
    /// A request about `tool` (for approvers' tests and custom gateways; the dispatcher
    /// makes its own). Ids are empty until set.
    pub fn new(
        tool: impl Into<String>,
        scope: Scope,
        arguments: Value,
        prompt: impl Into<String>,
    ) -> Self {
        Self {
            tool: tool.into(),
            scope,
            arguments,
            prompt: prompt.into(),
            class: None,
            tool_call_id: String::new(),
            trace_id: String::new(),
            session_id: String::new(),
        }
    }

    /// Set the class a session-wide approval would cover.
    #[must_use]
    pub fn with_class(mut self, class: impl Into<String>) -> Self {
        self.class = Some(class.into());
        self
    }

    /// Set the session.
    #[must_use]
    pub fn with_session(mut self, session_id: impl Into<String>) -> Self {
        self.session_id = session_id.into();
        self
    }
}

/// A human's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Approval {
    /// Go ahead, this once.
    Approved,
    /// Go ahead, and for every call of the request's `class` for the rest of the
    /// session (this call only when the request has no class).
    ApprovedForSession,
    /// Do not run it.
    Denied {
        /// Why not.
        reason: String,
    },
}

impl Approval {
    /// A refusal.
    pub fn denied(reason: impl Into<String>) -> Self {
        Self::Denied {
            reason: reason.into(),
        }
    }
}

/// Asks a human (or a stand-in) to approve a call.
#[async_trait]
pub trait Approver: Send + Sync + fmt::Debug + 'static {
    /// Answer one request. The gateway stops waiting if the run is cancelled.
    async fn approve(&self, request: &ApprovalRequest) -> Approval;
}

/// The default approver: refuses everything, so the model is told the call
/// `requires_confirmation`.
#[derive(Debug, Clone, Copy, Default)]
pub struct DenyAll;

#[async_trait]
impl Approver for DenyAll {
    async fn approve(&self, _request: &ApprovalRequest) -> Approval {
        Approval::denied("no approver is configured, so calls that need approval are refused")
    }
}

/// Approves everything. For tests, and for a user who said `--yes`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ApproveAll;

#[async_trait]
impl Approver for ApproveAll {
    async fn approve(&self, _request: &ApprovalRequest) -> Approval {
        Approval::Approved
    }
}
