//! Watching the gateway: an [`Observer`] hears about every tool call and every model
//! call, as a record borrowed for the length of the call to the observer.
//!
//! Telemetry and the audit trail (`hermes-telemetry`) are observers. The dispatcher
//! builds a record only when it has observers, so a gateway without them pays nothing.
//! Observers run on the caller's task, after the call ended and before its result is
//! handed on: they must be quick (copy what they need into a channel, append a line to
//! a file) and must not block on the network.
//!
//! ```
//! use std::sync::{Arc, Mutex};
//! use hermes_core::observe::{Observer, ToolCallRecord};
//! use hermes_core::{Dispatcher, Registry, RunContext, ToolCall, demo::Calc};
//!
//! #[derive(Debug, Default)]
//! struct Names(Mutex<Vec<String>>);
//!
//! impl Observer for Names {
//!     fn tool_call(&self, record: &ToolCallRecord<'_>) {
//!         let line = format!("{} {} {}", record.tool, record.outcome, record.permission.decision);
//!         self.0.lock().unwrap().push(line);
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), hermes_core::Error> {
//! let registry = Registry::new();
//! registry.register(Calc::new())?;
//! let names = Arc::new(Names::default());
//! let dispatcher = Dispatcher::builder(registry).observer(names.clone()).build()?;
//! let call = ToolCall::new("call_1", "calc", r#"{"expression": "1 + 1"}"#);
//! dispatcher.dispatch(&call, &RunContext::new()).await;
//! assert_eq!(names.0.lock().unwrap().as_slice(), ["calc ok allowed"]);
//! # Ok(())
//! # }
//! ```

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use crate::{CallOutcome, ToolError, Usage};

/// Told about every call through a gateway. Both methods default to doing nothing.
pub trait Observer: Send + Sync + fmt::Debug + 'static {
    /// A tool call ended (successfully, refused, failed, or replayed).
    fn tool_call(&self, record: &ToolCallRecord<'_>) {
        let _ = record;
    }

    /// A model call ended (answered or failed after the backend's retries).
    fn llm_call(&self, record: &LlmCallRecord<'_>) {
        let _ = record;
    }
}

impl<O: Observer + ?Sized> Observer for Arc<O> {
    fn tool_call(&self, record: &ToolCallRecord<'_>) {
        (**self).tool_call(record);
    }

    fn llm_call(&self, record: &LlmCallRecord<'_>) {
        (**self).llm_call(record);
    }
}

/// Who a call ran for: the run's trace id, session and user.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct CallOrigin<'a> {
    /// The run's trace id.
    pub trace_id: &'a str,
    /// The session.
    pub session_id: &'a str,
    /// The user, when the run named one ([`RunContext::with_user`](crate::RunContext::with_user)).
    pub user_id: Option<&'a str>,
}

/// One tool call, as the gateway saw it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ToolCallRecord<'a> {
    /// When the call ended.
    pub at: SystemTime,
    /// The run it belongs to.
    pub origin: CallOrigin<'a>,
    /// The call's id.
    pub tool_call_id: &'a str,
    /// The tool's registered name (the model's name when there is no such tool).
    pub tool: &'a str,
    /// The arguments exactly as the model sent them (a JSON string, unmasked: mask
    /// before storing them).
    pub arguments: &'a str,
    /// What the permission step decided, and by which rule.
    pub permission: &'a Permission,
    /// `ok` or the error kind.
    pub outcome: CallOutcome,
    /// The failure, when the call failed.
    pub error: Option<&'a ToolError>,
    /// Time in the gateway.
    pub duration: Duration,
    /// True when the result was reused, not run (an idempotent repeat, a duplicate).
    pub replayed: bool,
}

/// One model call, as the agent loop saw it.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct LlmCallRecord<'a> {
    /// When the call ended.
    pub at: SystemTime,
    /// The run it belongs to.
    pub origin: CallOrigin<'a>,
    /// The round, from 1.
    pub round: u32,
    /// Wall time of the call, retries included.
    pub duration: Duration,
    /// Token counts, when the backend reported them.
    pub usage: Option<Usage>,
    /// The tools the model called in its answer, in call order (a tool called twice is
    /// named twice). Telemetry charges the round's tokens to them.
    pub tools: &'a [&'a str],
    /// The failure's kind ([`LlmError::kind`](crate::LlmError::kind)), when the call
    /// failed.
    pub error: Option<&'static str>,
}

/// What the permission step decided about a call, and the rule behind it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Permission {
    /// The decision.
    pub decision: PermissionDecision,
    /// The rule that decided, when the policy names one
    /// ([`Policy::judge`](crate::Policy::judge)); `scope:dangerous` when the gateway
    /// asked for approval because of the tool's scope.
    pub rule: Option<Cow<'static, str>>,
}

impl Permission {
    pub(crate) fn new(decision: PermissionDecision, rule: Option<Cow<'static, str>>) -> Self {
        Self { decision, rule }
    }
}

/// How the permission step ended for a call.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum PermissionDecision {
    /// The call failed before the permission step (unknown tool, bad arguments).
    #[default]
    NotReached,
    /// The policy allowed it.
    Allowed,
    /// The policy refused it.
    Denied,
    /// It needed approval and a human (or stand-in) gave it.
    Approved,
    /// It needed approval and did not get it.
    Refused,
}

impl PermissionDecision {
    /// `not_reached`, `allowed`, `denied`, `approved` or `refused`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::NotReached => "not_reached",
            Self::Allowed => "allowed",
            Self::Denied => "denied",
            Self::Approved => "approved",
            Self::Refused => "refused",
        }
    }
}

impl fmt::Display for PermissionDecision {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The observers of one dispatcher; empty by default.
#[derive(Debug, Clone, Default)]
pub(crate) struct Observers(Arc<[Arc<dyn Observer>]>);

impl Observers {
    pub(crate) fn push(&mut self, observer: Arc<dyn Observer>) {
        let mut all = self.0.to_vec();
        all.push(observer);
        self.0 = all.into();
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    pub(crate) fn tool_call(&self, record: &ToolCallRecord<'_>) {
        for observer in self.0.iter() {
            observer.tool_call(record);
        }
    }

    pub(crate) fn llm_call(&self, record: &LlmCallRecord<'_>) {
        for observer in self.0.iter() {
            observer.llm_call(record);
        }
    }
}
