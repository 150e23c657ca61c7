//! The Hermes text format: for servers without a tool parser, and for Hermes models
//! served as plain text. The backend renders the ChatML prompt itself, calls a
//! completions endpoint, and reads `<tool_call>` blocks from the text with [`parser`].

mod backend;
mod grammar;
pub mod parser;
pub(crate) mod prompt;
pub(crate) mod transcript;

pub use backend::{HermesBackend, HermesBuilder};
pub use grammar::{answer_or_tool_calls_grammar, tool_call_grammar};
