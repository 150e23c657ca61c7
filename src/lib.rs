//! hermes: tool-calling LLM agents in Rust, after Nous Research's Hermes Agent.
//!
//! This facade re-exports the workspace's crates so one dependency brings everything:
//! today [`hermes_core`] (protocol, tools, registry, gateway, agent loop, and the
//! [`tool`](macro@tool) attribute from `hermes-macros`). Its items are re-exported at the root, so
//! `hermes::Agent` and `hermes_core::Agent` are the same.
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

/// The README's Rust example, compiled and run as a doctest so it cannot rot.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
