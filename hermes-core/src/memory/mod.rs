//! Memory. [`MemoryStore`]: the long-term memory, facts kept across runs (see
//! `hermes-memory` for SQLite and PostgreSQL stores). [`Window`]: the short-term memory, i.e. the part of the conversation the
//! agent sends each round, bounded by turns and by an approximate token budget.
//!
//! A turn starts at a user message and holds what followed it: the assistant's calls,
//! their results, the answer. Trimming drops whole turns, oldest first, then, inside the
//! turn that remains, whole exchanges (an assistant message and the results of its
//! calls). The system messages at the start are always kept, and a tool call is never
//! sent without its result, nor a result without its call.
//!
//! ```
//! use hermes_core::Message;
//! use hermes_core::memory::Window;
//!
//! let messages = vec![
//!     Message::system("Be brief."),
//!     Message::user("first question"),
//!     Message::assistant("first answer"),
//!     Message::user("second question"),
//! ];
//! let window = Window::new().max_turns(1);
//! let sent = window.select(&messages);
//! assert_eq!(sent.len(), 2); // the system prompt and the last turn
//! ```

mod store;
mod window;

pub use store::{Fact, MemoryError, MemoryStore};
pub use window::{Window, estimate_tokens};
