//! The [`Dispatcher`]: the gateway every tool call goes through.
//!
//! One call, in order ([`Dispatcher::dispatch`]):
//! 1. `lookup`: find the tool (unknown: an error listing close names);
//! 2. `parse`: parse the argument string (bad JSON: the parser's message and position),
//!    then `defaults`: fill in the schema's defaults for what the model left out;
//! 3. `validate`: check the compiled schema (every violation, with its path and rule);
//! 4. `policy` and `approval`: allow, deny, or ask; `dangerous` always asks;
//! 5. `idempotency`: a repeated `write` call returns the first result;
//! 6. `invoke`: run under the timeout and the run's cancellation, panics caught;
//! 7. `cap`: cut long results, head and tail kept.
//!
//! Every failure becomes a structured tool message; nothing here ends a run.

mod approval;
mod cap;
mod defaults;
mod idempotency;
mod invoke;
mod lookup;
mod parse;
mod policy;
mod validate;

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use futures_util::{Stream, StreamExt, stream};
use serde_json::Value;
use tracing::Instrument;

pub(crate) use defaults::Defaults;
pub use idempotency::{IDEMPOTENCY_KEY_ARG, IdempotencyStore, MemoryIdempotencyStore};

use crate::policy::{Approver, Policy};
use crate::registry::Entry;
use crate::tool::Gate;
use crate::{
    AgentEvent, CallOutcome, DEFAULT_MAX_RESULT_BYTES, Error, Message, Registry, RunContext, Scope,
    ToolCall, ToolContext, ToolError, ToolMessage,
};

/// The default bound on calls of one assistant message that run at once.
pub const DEFAULT_MAX_PARALLEL_TOOLS: usize = 8;
/// How many `write` results the idempotency cache keeps by default.
pub const DEFAULT_IDEMPOTENCY_CAPACITY: usize = 4096;

/// Runs tool calls through the gateway steps. Cheap to clone.
///
/// ```
/// use hermes_core::{Dispatcher, Registry, RunContext, ToolCall, demo::Calc};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), hermes_core::Error> {
/// let registry = Registry::new();
/// registry.register(Calc::new())?;
/// let dispatcher = Dispatcher::new(registry);
///
/// let call = ToolCall::new("call_1", "calc", r#"{"expression": "2 * (3 + 4)"}"#);
/// let report = dispatcher.dispatch(&call, &RunContext::new()).await;
/// assert!(report.is_success());
/// assert_eq!(report.message.content, r#"{"expression":"2 * (3 + 4)","result":14}"#);
///
/// let typo = ToolCall::new("call_2", "clac", "{}");
/// let report = dispatcher.dispatch(&typo, &RunContext::new()).await;
/// assert!(report.message.content.contains("did you mean calc?"));
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct Dispatcher {
    registry: Registry,
    gate: Arc<Gate>,
    idempotency: Arc<idempotency::Idempotency>,
    max_parallel_tools: usize,
}

impl Dispatcher {
    /// A dispatcher with the default policy, an approver that refuses, and at most
    /// eight calls at once.
    pub fn new(registry: Registry) -> Self {
        Self {
            registry,
            gate: Arc::default(),
            idempotency: Arc::new(idempotency::Idempotency::new(Arc::new(
                MemoryIdempotencyStore::new(DEFAULT_IDEMPOTENCY_CAPACITY),
            ))),
            max_parallel_tools: DEFAULT_MAX_PARALLEL_TOOLS,
        }
    }

    /// Configure a dispatcher.
    pub fn builder(registry: Registry) -> DispatcherBuilder {
        DispatcherBuilder {
            dispatcher: Self::new(registry),
        }
    }

    /// The registry calls are looked up in.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The bound on concurrent calls in [`dispatch_all`](Self::dispatch_all).
    pub fn max_parallel_tools(&self) -> usize {
        self.max_parallel_tools
    }

    /// Run one call through every gateway step. Never fails: a failure is a report whose
    /// message carries `{"error": {"kind", "message"}}`.
    pub async fn dispatch(&self, call: &ToolCall, run: &RunContext) -> CallReport {
        // quanta reads the CPU's counter: a third of what a clock_gettime pair costs in a
        // VM, and this pair is on every call.
        let started = quanta::Instant::now();
        let name = call.name();
        run.emit(|| AgentEvent::ToolCallStarted {
            tool_call_id: call.id.clone(),
            name: name.to_owned(),
        });
        let span = tracing::info_span!(
            "tool_call",
            trace_id = run.trace_id(),
            tool = name,
            tool_call_id = call.id.as_str()
        );
        let (outcome, tool_call_id) = self.gateway(call, run).instrument(span).await;
        let (content, error, replayed) = match outcome {
            Ok((content, replayed)) => (content, None, replayed),
            Err(error) => {
                tracing::debug!(trace_id = run.trace_id(), tool = name, %error, "tool call failed");
                let content = cap::cap(error.to_content(), DEFAULT_MAX_RESULT_BYTES);
                (content, Some(error), false)
            }
        };
        let report = CallReport {
            message: ToolMessage {
                tool_call_id,
                name: name.to_owned(),
                content,
            },
            error,
            duration: started.elapsed(),
            replayed,
        };
        run.emit(|| AgentEvent::ToolCallFinished {
            tool_call_id: call.id.clone(),
            name: name.to_owned(),
            duration: report.duration,
            outcome: report.outcome(),
            success: report.is_success(),
            replayed,
            preview: crate::event::preview(&report.message.content, 500),
        });
        report
    }

    /// Run the calls of one assistant message concurrently, at most
    /// [`max_parallel_tools`](Self::max_parallel_tools) at once. Reports come back in
    /// call order, whatever order the calls finish in.
    pub async fn dispatch_all(&self, calls: &[ToolCall], run: &RunContext) -> Vec<CallReport> {
        if let [call] = calls {
            return vec![self.dispatch(call, run).await];
        }
        self.dispatch_stream(calls, run).collect().await
    }

    /// [`dispatch_all`](Self::dispatch_all) as a stream: each report is yielded, in call
    /// order, as soon as it and every call before it have finished.
    pub fn dispatch_stream<'a>(
        &'a self,
        calls: &'a [ToolCall],
        run: &'a RunContext,
    ) -> impl Stream<Item = CallReport> + Send + 'a {
        stream::iter(calls)
            .map(move |call| self.dispatch(call, run))
            .buffered(self.max_parallel_tools)
    }

    /// Steps 1 to 7: the content of a success and whether it was replayed, and the
    /// call's id as an owned string (the context borrows it and gives it back, to spare
    /// an allocation on the hot path).
    async fn gateway(
        &self,
        call: &ToolCall,
        run: &RunContext,
    ) -> (Result<(String, bool), ToolError>, String) {
        let (entry, args) = match self.prepare(call) {
            Ok(prepared) => prepared,
            Err(error) => return (Err(error), call.id.clone()),
        };
        let ctx = ToolContext::for_call(run.shared(), &self.gate, call.id.clone());
        let outcome = self.authorize_and_run(&entry, args, &ctx, run).await;
        (outcome, ctx.into_tool_call_id())
    }

    /// Steps 1 to 3: the tool and its validated arguments.
    fn prepare(&self, call: &ToolCall) -> Result<(Arc<Entry>, Value), ToolError> {
        let entry = lookup::find(&self.registry, call.name())?;
        let mut args = parse::arguments(call.arguments())?;
        entry.defaults().apply(&mut args);
        validate::arguments(entry.validator(), &args)?;
        Ok((entry, args))
    }

    /// Steps 4 to 7. The rare paths (approval, first-call setup, idempotent writes) are
    /// boxed so the common call's future stays small: it is moved on every await.
    async fn authorize_and_run(
        &self,
        entry: &Entry,
        args: Value,
        ctx: &ToolContext,
        run: &RunContext,
    ) -> Result<(String, bool), ToolError> {
        let spec = entry.spec();
        if let policy::Verdict::AskApproval { prompt, class } =
            policy::check(self.gate.policy.as_ref(), spec, &args, ctx)?
        {
            let ask = approval::ask(&self.gate, spec, &args, (prompt, class), ctx, run);
            Box::pin(ask).await?;
        }
        if !entry.is_ready() {
            Box::pin(entry.ensure_ready()).await?;
        }
        if spec.scope() == Scope::Write {
            let key = idempotency::key(spec.name(), &args);
            let once = self
                .idempotency
                .run_once(run.session_id(), key, || execute(entry, args, ctx));
            Box::pin(once).await
        } else {
            Ok((execute(entry, args, ctx).await?, false))
        }
    }
}

/// Steps 6 and 7.
async fn execute(entry: &Entry, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
    let output = invoke::invoke(entry.tool().as_ref(), args, ctx).await?;
    Ok(cap::cap(
        output.into_content(),
        entry.spec().max_result_bytes(),
    ))
}

impl fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dispatcher")
            .field("registry", &self.registry)
            .field("policy", &self.gate.policy)
            .field("approver", &self.gate.approver)
            .field("max_parallel_tools", &self.max_parallel_tools)
            .finish_non_exhaustive()
    }
}

/// Configures a [`Dispatcher`]; see [`Dispatcher::builder`].
#[derive(Debug)]
#[must_use]
pub struct DispatcherBuilder {
    dispatcher: Dispatcher,
}

impl DispatcherBuilder {
    /// The permission policy (default: [`DefaultPolicy`](crate::DefaultPolicy)).
    pub fn policy(mut self, policy: impl Policy) -> Self {
        Arc::make_mut(&mut self.dispatcher.gate).policy = Arc::new(policy);
        self
    }

    /// A shared permission policy.
    pub fn policy_arc(mut self, policy: Arc<dyn Policy>) -> Self {
        Arc::make_mut(&mut self.dispatcher.gate).policy = policy;
        self
    }

    /// Who approves calls that need it (default: [`DenyAll`](crate::DenyAll)).
    pub fn approver(mut self, approver: impl Approver) -> Self {
        Arc::make_mut(&mut self.dispatcher.gate).approver = Arc::new(approver);
        self
    }

    /// A shared approver.
    pub fn approver_arc(mut self, approver: Arc<dyn Approver>) -> Self {
        Arc::make_mut(&mut self.dispatcher.gate).approver = approver;
        self
    }

    /// At most this many calls of one message at once (default 8).
    pub fn max_parallel_tools(mut self, max: usize) -> Self {
        self.dispatcher.max_parallel_tools = max;
        self
    }

    /// Remember at most this many `write` results, in memory (default 4096).
    pub fn idempotency_capacity(self, capacity: usize) -> Self {
        self.idempotency_store(MemoryIdempotencyStore::new(capacity))
    }

    /// Where `write` results are remembered (default: [`MemoryIdempotencyStore`]).
    pub fn idempotency_store(self, store: impl IdempotencyStore) -> Self {
        self.idempotency_store_arc(Arc::new(store))
    }

    /// A shared idempotency store.
    pub fn idempotency_store_arc(mut self, store: Arc<dyn IdempotencyStore>) -> Self {
        self.dispatcher.idempotency = Arc::new(idempotency::Idempotency::new(store));
        self
    }

    /// Finish.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidSetting`] if `max_parallel_tools` is zero.
    pub fn build(self) -> Result<Dispatcher, Error> {
        if self.dispatcher.max_parallel_tools == 0 {
            return Err(Error::InvalidSetting {
                setting: "max_parallel_tools",
                reason: "at least one call must be able to run".into(),
            });
        }
        Ok(self.dispatcher)
    }
}

/// The result of one dispatched call.
#[derive(Debug)]
#[non_exhaustive]
pub struct CallReport {
    /// The tool message for the model, with the call's `tool_call_id`.
    pub message: ToolMessage,
    /// The failure, if the call failed (its JSON is the message content).
    pub error: Option<ToolError>,
    /// Time spent in the gateway.
    pub duration: Duration,
    /// True when an idempotent repeat returned the first result without running.
    pub replayed: bool,
}

impl CallReport {
    /// Whether the tool ran (or was replayed) successfully.
    pub fn is_success(&self) -> bool {
        self.error.is_none()
    }

    /// `ok` or the error kind.
    pub fn outcome(&self) -> CallOutcome {
        self.error.as_ref().map_or(CallOutcome::Success, |error| {
            CallOutcome::Failure(error.kind())
        })
    }

    /// The tool message.
    pub fn into_message(self) -> Message {
        Message::Tool(self.message)
    }
}
