//! Wire types that serialize exactly like the OpenAI Chat Completions format.
//!
//! Transcripts made of these types round-trip through real servers: assistant
//! `tool_calls[]` with `function.arguments` as a JSON *string*, and `role: "tool"`
//! results matched by `tool_call_id`.

mod message;
mod tool_call;
mod usage;

pub use message::{AssistantMessage, Message, Role, ToolMessage};
pub use tool_call::{FunctionCall, ToolCall, ToolCallKind};
pub use usage::Usage;
