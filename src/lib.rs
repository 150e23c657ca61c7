//! hermes: tool-calling LLM agents in Rust, after Nous Research's Hermes Agent.
//!
//! This facade re-exports the workspace's crates so one dependency brings everything:
//! [`hermes_core`] (protocol, tools, registry, gateway, agent loop, and the
//! [`tool`](macro@tool) attribute from `hermes-macros`), whose items are re-exported at
//! the root (`hermes::Agent` is `hermes_core::Agent`); [`permissions`]
//! (`hermes-permissions`, feature `permissions`), [`llm`] (`hermes-llm`, feature `llm`)
//! and [`tools`] (`hermes-tools`, the built-in tools, feature `tools`), all on by
//! default.
//!
//! ```
//! use hermes::{Agent, Registry, ScriptedBackend, ScriptedTurn, ToolCall, demo::Calc};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), hermes::Error> {
//! let registry = Registry::new();
//! registry.register(Calc::new())?;
//! let backend = ScriptedBackend::new([
//!     ScriptedTurn::tool_calls([ToolCall::new("call_1", "calc", r#"{"expression":"6*7"}"#)]),
//!     ScriptedTurn::text("42"),
//! ]);
//! let agent = Agent::builder().backend(backend).registry(registry).build()?;
//! let outcome = agent.run("What is 6*7?").await;
//! assert_eq!(outcome.answer.as_deref(), Some("42"));
//! # Ok(())
//! # }
//! ```

pub use hermes_core;
pub use hermes_core::*;

/// The permission engine (`hermes-permissions`): profiles in YAML, the four layers,
/// path/command/host rules, approvers.
#[cfg(feature = "permissions")]
pub use hermes_permissions as permissions;

/// Model backends (`hermes-llm`): OpenAI-compatible Chat Completions, the Hermes text
/// format, Anthropic Messages.
#[cfg(feature = "llm")]
pub use hermes_llm as llm;

/// Long-term memory stores and tools (`hermes-memory`).
#[cfg(feature = "memory")]
pub use hermes_memory as memory_stores;

/// Telemetry and the audit trail (`hermes-telemetry`): the collector, reports, audit
/// sinks, masked logs; the dashboard and OTLP export behind features.
#[cfg(feature = "telemetry")]
pub use hermes_telemetry as telemetry;

/// MCP (`hermes-mcp`): the tools of MCP servers through the gateway, and hermes tools
/// served over MCP.
#[cfg(feature = "mcp")]
pub use hermes_mcp as mcp;

/// The built-in tools (`hermes-tools`): six families, and YAML-configured HTTP tools.
#[cfg(feature = "tools")]
pub use hermes_tools as tools;

/// The README's Rust example, compiled and run as a doctest so it cannot rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
