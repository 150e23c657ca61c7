//! The [`Dispatcher`]: the gateway every tool call goes through.
//!
//! One call, in order ([`Dispatcher::dispatch`]):
//! 1. `lookup`: find the tool, repairing a slightly wrong name (`TERMINAL`, `web-search`,
//!    `terminall`); unknown: an error listing close names or every tool;
//! 2. `parse`: parse the argument string, repairing almost-JSON (a trailing comma, one
//!    brace) and refusing arguments cut off mid-way; then `defaults`: fill in the
//!    schema's defaults for what the model left out;
//! 3. `repair::coerce` and `validate`: convert what the schema reads unambiguously
//!    (`"42"` for an integer), then check the compiled schema (every violation, with its
//!    path and rule);
//! 4. `policy` and `approval`: allow, deny, or ask; `dangerous` always asks;
//! 5. `idempotency`: a repeated `write` call returns the first result;
//! 6. `invoke`: run under the timeout and the run's cancellation, panics caught;
//! 7. `budget` and `untrusted`: cut long results (head and tail kept), save very long
//!    ones to the scratch dir, fence outside content.
//!
//! The calls of one message ([`Dispatcher::dispatch_stream`]) run side by side, except
//! that a duplicate call runs once and calls writing the same resource run in call
//! order (`schedule`); their results together stay within a budget (`budget`).
//!
//! Every failure becomes a structured tool message; nothing here ends a run. Every
//! repair is reported ([`AgentEvent::ToolCallRepaired`]) and can be switched off
//! ([`Repairs`]).

mod approval;
mod budget;
mod builder;
pub(crate) mod cap;
mod clock;
mod defaults;
mod idempotency;
mod invoke;
mod lookup;
mod parse;
mod policy;
mod repair;
mod report;
mod schedule;
mod turn;
mod untrusted;
mod validate;

use std::fmt;
use std::sync::Arc;

use futures_util::{Stream, StreamExt};
use serde_json::Value;
use tracing::Instrument;

pub use budget::ResultBudget;
pub use builder::DispatcherBuilder;
pub(crate) use defaults::Defaults;
pub use idempotency::{IDEMPOTENCY_KEY_ARG, IdempotencyStore, MemoryIdempotencyStore};
pub use repair::{Repair, RepairKind, Repairs};
pub use report::CallReport;
pub use untrusted::DEFAULT_UNTRUSTED_TAGS;

use crate::observe::{Observers, Permission, PermissionDecision, ToolCallRecord};
use crate::registry::Entry;
use crate::tool::Gate;
use crate::{
    AgentEvent, DEFAULT_MAX_RESULT_BYTES, Registry, RunContext, Scope, ToolCall, ToolContext,
    ToolError,
};
use budget::{Body, SpillTarget};

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
/// // What a small model sends: the wrong case and a trailing comma. Repaired, and said so.
/// let sloppy = ToolCall::new("call_2", "CALC", r#"{"expression": "1 + 2",}"#);
/// let report = dispatcher.dispatch(&sloppy, &RunContext::new()).await;
/// assert!(report.is_success());
/// assert_eq!(report.repairs.len(), 2);
///
/// let typo = ToolCall::new("call_3", "clac", "{}");
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
    repairs: Repairs,
    budget: Arc<ResultBudget>,
    untrusted_tags: Arc<[String]>,
    observers: Observers,
}

/// A call after steps 1 to 3, before it runs.
pub(crate) struct Pending<'c> {
    call: &'c ToolCall,
    started: clock::Started,
    /// Errors boxed here and below: failures are the rare case, and these structs move
    /// through every layer.
    prepared: Result<(Arc<Entry>, Value), Box<ToolError>>,
    /// The tool, when it was found but its arguments failed.
    found: Option<Arc<Entry>>,
    repairs: Vec<Repair>,
}

impl Pending<'_> {
    /// The tool's registered name, or the model's name when there is no such tool.
    fn name(&self) -> &str {
        match (&self.prepared, &self.found) {
            (Ok((entry, _)), _) | (Err(_), Some(entry)) => entry.spec().name(),
            (Err(_), None) => self.call.name(),
        }
    }

    /// The tool and arguments of a call ready to run, or what a failed call came to;
    /// with when it started and what was repaired.
    #[allow(clippy::type_complexity, reason = "used right away by the two callers")]
    fn split(
        self,
    ) -> (
        Result<(Arc<Entry>, Value), Ran>,
        clock::Started,
        Vec<Repair>,
    ) {
        let ready = match self.prepared {
            Ok(ready) => Ok(ready),
            Err(error) => Err(Ran::failed(self.call, self.found.as_deref(), error)),
        };
        (ready, self.started, self.repairs)
    }
}

/// A call that ran (or failed), its result not yet rendered for the model.
pub(crate) struct Done {
    tool_call_id: String,
    name: String,
    body: Body,
    /// Boxed: a failure is the rare case, and this struct is moved through every layer.
    error: Option<Box<ToolError>>,
    duration: std::time::Duration,
    replayed: bool,
    repairs: Vec<Repair>,
    permission: Permission,
}

impl Done {
    fn into_report(self) -> CallReport {
        CallReport {
            message: crate::ToolMessage {
                tool_call_id: self.tool_call_id,
                name: self.name,
                content: self.body.render(),
            },
            error: self.error.map(|error| *error),
            duration: self.duration,
            replayed: self.replayed,
            repairs: self.repairs,
        }
    }
}

/// A call after steps 4 to 6: its id, the tool's name, and the output or the error.
struct Ran {
    tool_call_id: String,
    name: String,
    outcome: Result<(Body, bool), Box<ToolError>>,
    permission: Permission,
}

impl Ran {
    /// A call that failed before it could run; `found` is the tool, if it was found.
    fn failed(call: &ToolCall, found: Option<&Entry>, error: Box<ToolError>) -> Self {
        Self {
            tool_call_id: call.id.clone(),
            name: found
                .map_or(call.name(), |entry| entry.spec().name())
                .to_owned(),
            outcome: Err(error),
            permission: Permission::default(),
        }
    }
}

impl Dispatcher {
    /// A dispatcher with the default policy, an approver that refuses, at most eight
    /// calls at once, every repair on, and the default [`ResultBudget`].
    pub fn new(registry: Registry) -> Self {
        Self {
            registry,
            gate: Arc::default(),
            idempotency: Arc::new(idempotency::Idempotency::new(Arc::new(
                MemoryIdempotencyStore::new(DEFAULT_IDEMPOTENCY_CAPACITY),
            ))),
            max_parallel_tools: DEFAULT_MAX_PARALLEL_TOOLS,
            repairs: Repairs::all(),
            budget: Arc::default(),
            untrusted_tags: DEFAULT_UNTRUSTED_TAGS
                .iter()
                .map(|tag| (*tag).to_owned())
                .collect(),
            observers: Observers::default(),
        }
    }

    /// Configure a dispatcher.
    pub fn builder(registry: Registry) -> DispatcherBuilder {
        DispatcherBuilder::new(Self::new(registry))
    }

    /// The registry calls are looked up in.
    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// The bound on concurrent calls in [`dispatch_all`](Self::dispatch_all).
    pub fn max_parallel_tools(&self) -> usize {
        self.max_parallel_tools
    }

    /// The repairs this dispatcher makes.
    pub fn repairs(&self) -> Repairs {
        self.repairs
    }

    /// The limits on tool output.
    pub fn result_budget(&self) -> &ResultBudget {
        &self.budget
    }

    /// Run one call through every gateway step. Never fails: a failure is a report whose
    /// message carries `{"error": {"kind", "message"}}`.
    pub async fn dispatch(&self, call: &ToolCall, run: &RunContext) -> CallReport {
        // Written out rather than calling `complete`: one async layer less on the
        // hottest path (every layer's future is moved on each await of its callers).
        let (ready, started, repairs) = self.begin(call, run).split();
        let ran = match ready {
            Ok((entry, args)) => self.run_prepared(entry, args, call, run).await,
            Err(failed) => failed,
        };
        let done = self.settle(ran, started, repairs, run);
        if done.body.must_spill(&self.budget) || done.body.len() > self.budget.turn_bytes {
            return Box::pin(self.finish_long(done, call, run)).await;
        }
        self.finished(run, call, &done);
        done.into_report()
    }

    /// A result too long to send whole: spilled, and kept within the turn's budget.
    async fn finish_long(&self, done: Done, call: &ToolCall, run: &RunContext) -> CallReport {
        let mut done = self.spill_output(done, run).await;
        self.finished(run, call, &done);
        let at = SpillTarget {
            run,
            tool_call_id: &done.tool_call_id,
        };
        budget::fit_turn(&mut [(&mut done.body, at)], 0, &self.budget).await;
        done.into_report()
    }

    /// Run the calls of one assistant message, at most
    /// [`max_parallel_tools`](Self::max_parallel_tools) at once, and collect the reports
    /// in call order.
    pub async fn dispatch_all(&self, calls: &[ToolCall], run: &RunContext) -> Vec<CallReport> {
        if let [call] = calls {
            return vec![self.dispatch(call, run).await];
        }
        self.dispatch_stream(calls, run).collect().await
    }

    /// [`dispatch_all`](Self::dispatch_all) as a stream: each report is yielded, in call
    /// order, as soon as it and every call before it have finished.
    ///
    /// Calls run side by side, with two exceptions. A call identical to an earlier one
    /// (same tool, same arguments once parsed) does not run: it gets the earlier call's
    /// result under its own `tool_call_id`. And when two calls touch the same resource
    /// (a path, the shell, a declared [`ArgKind::Resource`](crate::ArgKind::Resource))
    /// and either writes, the later waits for the earlier.
    ///
    /// The results together stay within [`ResultBudget::turn_bytes`]: when they would
    /// not, the largest results not yet handed out are saved to files and replaced by
    /// previews.
    pub fn dispatch_stream<'a>(
        &'a self,
        calls: &'a [ToolCall],
        run: &'a RunContext,
    ) -> impl Stream<Item = CallReport> + Send + 'a {
        turn::Turn::new(self, calls, run).into_stream()
    }

    /// Steps 1 to 3, with the `tool_call_started` and `tool_call_repaired` events.
    pub(crate) fn begin<'c>(&self, call: &'c ToolCall, run: &RunContext) -> Pending<'c> {
        // The CPU's counter, read raw: a third of what a clock_gettime pair costs in a
        // VM, and this pair is on every call.
        let started = clock::Started::now();
        run.emit(|| AgentEvent::ToolCallStarted {
            tool_call_id: call.id.clone(),
            name: call.name().to_owned(),
        });
        let mut repairs = Vec::new();
        let mut found = None;
        let prepared = self
            .prepare(call, &mut repairs, &mut found)
            .map_err(Box::new);
        let pending = Pending {
            call,
            started,
            prepared,
            found,
            repairs,
        };
        for repair in &pending.repairs {
            report_repair(run, call, pending.name(), repair);
        }
        pending
    }

    /// Steps 1 to 3: the tool and its validated arguments; when the arguments fail,
    /// the tool goes to `found`.
    fn prepare(
        &self,
        call: &ToolCall,
        repairs: &mut Vec<Repair>,
        found: &mut Option<Arc<Entry>>,
    ) -> Result<(Arc<Entry>, Value), ToolError> {
        let (entry, renamed) = lookup::find(&self.registry, call.name(), self.repairs.names)?;
        repairs.extend(renamed);
        match self.arguments(&entry, call, repairs) {
            Ok(args) => Ok((entry, args)),
            Err(error) => {
                *found = Some(entry);
                Err(error)
            }
        }
    }

    /// Steps 2 and 3.
    fn arguments(
        &self,
        entry: &Entry,
        call: &ToolCall,
        repairs: &mut Vec<Repair>,
    ) -> Result<Value, ToolError> {
        let (mut args, fixed) = parse::arguments(
            call.arguments(),
            self.repairs.json,
            entry.spec().parameters(),
        )?;
        repairs.extend(fixed);
        entry.defaults().apply(&mut args);
        // The common case checks the schema once and allocates nothing.
        if entry.validator().is_valid(&args) {
            return Ok(args);
        }
        if self.repairs.types {
            let schema = entry.spec().parameters();
            let changes = repair::coerce(&mut args, schema, schema);
            if !changes.is_empty() {
                // Arguments sent as a JSON string become an object only now: fill in
                // their defaults too.
                entry.defaults().apply(&mut args);
                repairs.push(Repair::new(RepairKind::Types, changes.join("; ")));
            }
        }
        validate::arguments(entry.validator(), &args)?;
        Ok(args)
    }

    /// Steps 4 to 7 for a prepared call, with the `tool_call_finished` event. The
    /// result stays unrendered so the turn's budget can still spill it.
    pub(crate) async fn complete(&self, pending: Pending<'_>, run: &RunContext) -> Done {
        let call = pending.call;
        let (ready, started, repairs) = pending.split();
        let ran = match ready {
            Ok((entry, args)) => self.run_prepared(entry, args, call, run).await,
            Err(failed) => failed,
        };
        let done = self.settle(ran, started, repairs, run);
        let done = if done.body.must_spill(&self.budget) {
            Box::pin(self.spill_output(done, run)).await
        } else {
            done
        };
        self.finished(run, call, &done);
        done
    }

    /// What a call came to, as a [`Done`] (errors as their JSON, capped).
    fn settle(
        &self,
        ran: Ran,
        started: clock::Started,
        repairs: Vec<Repair>,
        run: &RunContext,
    ) -> Done {
        let permission = ran.permission;
        let (body, error, replayed) = match ran.outcome {
            Ok((body, replayed)) => (body, None, replayed),
            Err(error) => {
                tracing::debug!(trace_id = run.trace_id(), tool = ran.name, %error, "tool call failed");
                let content = cap::cap(error.to_content(), DEFAULT_MAX_RESULT_BYTES);
                (Body::error(content), Some(error), false)
            }
        };
        Done {
            tool_call_id: ran.tool_call_id,
            name: ran.name,
            body,
            error,
            duration: started.elapsed(),
            replayed,
            repairs,
            permission,
        }
    }

    /// Steps 4 to 6 for a call whose arguments passed, and step 7 for a result short
    /// enough not to spill.
    async fn run_prepared(
        &self,
        entry: Arc<Entry>,
        args: Value,
        call: &ToolCall,
        run: &RunContext,
    ) -> Ran {
        // Named and keyed after OpenTelemetry's GenAI conventions. With no subscriber
        // anywhere, no span at all: a disabled span would still record its fields and
        // check `log` on every poll when a dependency turns on `tracing`'s `log`
        // feature (sqlx does), ~10% of the gateway's own instructions.
        let span = if tracing::dispatcher::has_been_set() {
            tracing::info_span!(
                "execute_tool",
                trace_id = run.trace_id(),
                "gen_ai.operation.name" = "execute_tool",
                "gen_ai.tool.name" = entry.spec().name(),
                "gen_ai.tool.call.id" = call.id.as_str(),
            )
        } else {
            tracing::Span::none()
        };
        // The context borrows the call's id and gives it back: no allocation for it
        // on the hot path.
        let ctx = ToolContext::for_call(run.shared(), &self.gate, call.id.clone());
        let mut permission = Permission::default();
        let steps = self.authorize_and_run(&entry, args, &ctx, run, &mut permission);
        // Not wrapped when there is no span: the wrapper is one more move and two more
        // calls on every poll.
        let outcome = if span.is_disabled() {
            steps.await
        } else {
            steps.instrument(span).await
        };
        let outcome = outcome
            .map(|(content, replayed)| (self.output(&entry, content), replayed))
            .map_err(Box::new);
        Ran {
            tool_call_id: ctx.into_tool_call_id(),
            name: entry.spec().name().to_owned(),
            outcome,
            permission,
        }
    }

    /// A tool's output, fenced if it is outside content, cut to the tool's cap unless
    /// it is long enough to spill.
    fn output(&self, entry: &Entry, content: String) -> Body {
        let spec = entry.spec();
        let untrusted = untrusted::is_untrusted(spec, &self.untrusted_tags).then(|| spec.name());
        let mut body = Body::output(content, untrusted, spec.max_result_bytes());
        if !body.must_spill(&self.budget) {
            body.cut();
        }
        body
    }

    /// Save a very long result to the scratch dir.
    async fn spill_output(&self, mut done: Done, run: &RunContext) -> Done {
        if done.body.must_spill(&self.budget) {
            let at = SpillTarget {
                run,
                tool_call_id: &done.tool_call_id,
            };
            done.body.spill_or_cut(&self.budget, at).await;
        }
        done
    }

    /// A duplicate's result: the first call's, under the duplicate's id.
    pub(crate) fn duplicate(
        &self,
        original: &Done,
        pending: Pending<'_>,
        run: &RunContext,
    ) -> Done {
        let done = Done {
            tool_call_id: pending.call.id.clone(),
            name: original.name.clone(),
            body: original.body.clone(),
            error: original
                .error
                .as_ref()
                .map(|error| Box::new(error.duplicate())),
            duration: pending.started.elapsed(),
            replayed: true,
            repairs: pending.repairs,
            permission: original.permission.clone(),
        };
        self.finished(run, pending.call, &done);
        done
    }

    /// Steps 4 to 6. The rare paths (approval, first-call setup, idempotent writes) are
    /// boxed so the common call's future stays small: it is moved on every await.
    async fn authorize_and_run(
        &self,
        entry: &Entry,
        args: Value,
        ctx: &ToolContext,
        run: &RunContext,
        permission: &mut Permission,
    ) -> Result<(String, bool), ToolError> {
        let spec = entry.spec();
        if let policy::Verdict::AskApproval { prompt, class } =
            policy::check(self.gate.policy.as_ref(), spec, &args, ctx, permission)?
        {
            let ask = approval::ask(spec, &args, (prompt, class), ctx, run);
            Box::pin(ask).await?;
            permission.decision = PermissionDecision::Approved;
        }
        if !entry.is_ready() {
            Box::pin(entry.ensure_ready()).await?;
        }
        let key = (spec.scope() == Scope::Write)
            .then(|| idempotency::key(spec.name(), &args, spec.replays()))
            .flatten();
        match key {
            Some(key) => {
                let once = self
                    .idempotency
                    .run_once(run.session_id(), key, || execute(entry, args, ctx));
                Box::pin(once).await
            }
            // A synchronous tool answers here: no future of `execute` to build and move.
            None => match invoke::start(entry.tool().as_ref(), args, ctx) {
                invoke::Started::Done(outcome) => Ok((outcome?.into_content(), false)),
                invoke::Started::Waiting(future) => {
                    let output = invoke::finish(entry.tool().as_ref(), future, ctx).await?;
                    Ok((output.into_content(), false))
                }
            },
        }
    }
}

/// Step 6.
async fn execute(entry: &Entry, args: Value, ctx: &ToolContext) -> Result<String, ToolError> {
    let output = invoke::invoke(entry.tool().as_ref(), args, ctx).await?;
    Ok(output.into_content())
}

fn report_repair(run: &RunContext, call: &ToolCall, name: &str, repair: &Repair) {
    tracing::debug!(trace_id = run.trace_id(), tool = name, %repair, "tool call repaired");
    run.emit(|| AgentEvent::ToolCallRepaired {
        tool_call_id: call.id.clone(),
        name: name.to_owned(),
        kind: repair.kind,
        detail: repair.detail.clone(),
    });
}

impl Dispatcher {
    /// The `tool_call_finished` event, and the record for the observers.
    fn finished(&self, run: &RunContext, call: &ToolCall, done: &Done) {
        let outcome = done
            .error
            .as_ref()
            .map_or(crate::CallOutcome::Success, |error| {
                crate::CallOutcome::Failure(error.kind())
            });
        run.emit(|| AgentEvent::ToolCallFinished {
            tool_call_id: done.tool_call_id.clone(),
            name: done.name.clone(),
            duration: done.duration,
            outcome,
            success: done.error.is_none(),
            replayed: done.replayed,
            preview: crate::text::preview(done.body.text(), 500),
        });
        if self.observers.is_empty() {
            return;
        }
        self.observers.tool_call(&ToolCallRecord {
            at: std::time::SystemTime::now(),
            origin: run.origin(),
            tool_call_id: &done.tool_call_id,
            tool: &done.name,
            arguments: call.arguments(),
            permission: &done.permission,
            outcome,
            error: done.error.as_deref(),
            duration: done.duration,
            replayed: done.replayed,
        });
    }

    /// Tell the observers about a model call (the agent loop does).
    pub(crate) fn observers(&self) -> &Observers {
        &self.observers
    }
}

impl fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Dispatcher")
            .field("registry", &self.registry)
            .field("policy", &self.gate.policy)
            .field("approver", &self.gate.approver)
            .field("max_parallel_tools", &self.max_parallel_tools)
            .field("repairs", &self.repairs)
            .field("budget", &self.budget)
            .finish_non_exhaustive()
    }
}
