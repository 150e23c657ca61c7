//! [`CallReport`]: what one dispatched call produced.

use std::time::Duration;

use super::Repair;
use crate::{CallOutcome, Message, ToolError, ToolMessage};

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
    /// True when the result was not run for this call but reused: an idempotent
    /// `write` repeated, or a duplicate call in the same message.
    pub replayed: bool,
    /// What the gateway repaired in the call, in order (also sent as
    /// `tool_call_repaired` events).
    pub repairs: Vec<Repair>,
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
