//! hermes-core: the protocol, the tools, the gateway and the agent loop of
//! [hermes](https://github.com/hermes-rs/hermes).
//!
//! Everything else in hermes plugs into this crate; it depends on no HTTP client and no
//! database, so a program that only needs the protocol, the registry and the
//! dispatcher pays for nothing else.
//!
//! - [`protocol`]: wire types that serialize exactly like OpenAI Chat Completions
//!   ([`Message`], [`ToolCall`], [`Usage`]).
//! - [`tool`](mod@tool): the [`Tool`] trait the registry stores, [`TypedTool`] for authors,
//!   [`FnTool`] for closures, [`ToolSpec`] (name, schema, [`Scope`], timeout, ...).
//! - [`registry`]: [`Registry`], swapped atomically, hot replace safe.
//! - [`dispatch`]: the [`Dispatcher`] gateway: lookup, parse, validate, policy,
//!   approval, idempotency, timeout/cancellation/panic containment, result budgets;
//!   it repairs what small models get slightly wrong ([`Repairs`]) and fences
//!   outside content.
//! - [`policy`]: the [`Policy`] and [`Approver`] traits and their defaults.
//! - [`llm`]: the [`LlmBackend`] trait and [`ScriptedBackend`].
//! - [`agent`]: the [`Agent`] loop, its [`AgentOutcome`] and [`RunStream`].
//!
//! ```
//! use hermes_core::{Agent, Registry, ScriptedBackend, ScriptedTurn, ToolCall, demo::Calc};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), hermes_core::Error> {
//! let registry = Registry::new();
//! registry.register(Calc::new())?;
//!
//! // A scripted model: one tool call, then an answer. Swap in a real backend later.
//! let backend = ScriptedBackend::new([
//!     ScriptedTurn::tool_calls([ToolCall::new("call_1", "calc", r#"{"expression":"(2+3)*4"}"#)]),
//!     ScriptedTurn::text("(2+3)*4 = 20"),
//! ]);
//! let agent = Agent::builder().backend(backend).registry(registry).build()?;
//!
//! let outcome = agent.run("What is (2+3)*4?").await;
//! assert!(outcome.is_completed());
//! assert_eq!(outcome.messages[3].content(), Some(r#"{"expression":"(2+3)*4","result":20}"#));
//! print!("{}", outcome.trace());
//! # Ok(())
//! # }
//! ```
//!
//! The gateway needs a tokio runtime with its timer enabled (`#[tokio::main]` has one).
//!
//! # Features
//!
//! - `macros` (default): the [`tool`](macro@tool) attribute, which turns a function into a tool.

pub mod agent;
pub mod content_check;
pub mod demo;
pub mod dispatch;
mod error;
mod event;
mod linked;
pub mod llm;
pub mod memory;
pub mod observe;
pub mod policy;
pub mod protocol;
pub mod redact;
pub mod registry;
mod run_context;
mod text;
pub mod tool;
mod trace;

#[doc(hidden)]
#[path = "private.rs"]
pub mod __private;

pub use agent::{Agent, AgentBuilder, AgentOutcome, RunStatus, RunStream, TOOL_OUTPUT_NOTICE};
pub use dispatch::{
    CallReport, DEFAULT_MAX_PARALLEL_TOOLS, Dispatcher, DispatcherBuilder, IdempotencyStore,
    MemoryIdempotencyStore, Repair, RepairKind, Repairs, ResultBudget,
};
pub use error::{BoxError, Error, LlmError, ToolError, ToolErrorKind, Violation};
pub use event::{AgentEvent, CallOutcome, EventSink};
pub use llm::{
    ChatDelta, ChatRequest, ChatResponse, DeltaAccumulator, DeltaStream, FinishReason, LlmBackend,
    ScriptedBackend, ScriptedTurn, ToolChoice,
};
pub use policy::{
    Approval, ApprovalRequest, ApproveAll, Approver, Decision, DefaultPolicy, DenyAll, Judgement,
    Policy,
};
pub use protocol::{
    AssistantMessage, FunctionCall, Message, Role, ToolCall, ToolCallKind, ToolMessage, Usage,
};
pub use registry::{Availability, Registry, SourceSwap};
pub use run_context::RunContext;
pub use tokio_util::sync::CancellationToken;
pub use tool::{
    Access, ArgKind, DEFAULT_MAX_RESULT_BYTES, DEFAULT_TIMEOUT, FnTool, IntoToolOutput, Scope,
    Tool, ToolContext, ToolFuture, ToolOutput, ToolSpec, ToolSpecBuilder, TypedTool, parse_args,
};
pub use trace::new_trace_id;

#[cfg(feature = "macros")]
#[doc = include_str!("tool_macro.md")]
pub use hermes_macros::tool;
