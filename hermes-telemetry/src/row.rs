//! What the store keeps of each call: owned rows, built from the gateway's records.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use hermes_core::observe::{LlmCallRecord, ToolCallRecord};

/// One tool call, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallRow {
    /// When it ended, in milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// The run's trace id.
    pub trace_id: String,
    /// The session (masked before storage unless PII is kept).
    pub session_id: String,
    /// The user, if named (masked likewise).
    pub user_id: Option<String>,
    /// The tool.
    pub tool: String,
    /// `ok` or the error kind.
    pub outcome: String,
    /// Time in the gateway, in microseconds.
    pub duration_us: i64,
    /// Whether the result was reused rather than run.
    pub replayed: bool,
}

impl ToolCallRow {
    /// The row for one gateway record.
    pub fn from_record(record: &ToolCallRecord<'_>) -> Self {
        Self {
            at_ms: epoch_ms(record.at),
            trace_id: record.origin.trace_id.to_owned(),
            session_id: record.origin.session_id.to_owned(),
            user_id: record.origin.user_id.map(str::to_owned),
            tool: record.tool.to_owned(),
            outcome: record.outcome.as_str().to_owned(),
            duration_us: micros(record.duration),
            replayed: record.replayed,
        }
    }
}

/// One model call, as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmCallRow {
    /// When it ended, in milliseconds since the Unix epoch.
    pub at_ms: i64,
    /// The run's trace id.
    pub trace_id: String,
    /// The session (masked before storage unless PII is kept).
    pub session_id: String,
    /// The user, if named (masked likewise).
    pub user_id: Option<String>,
    /// The round, from 1.
    pub round: u32,
    /// Wall time, in microseconds.
    pub duration_us: i64,
    /// Prompt tokens (0 when the backend reported none).
    pub prompt_tokens: u64,
    /// Completion tokens (0 when the backend reported none).
    pub completion_tokens: u64,
    /// The tools the model called, in call order.
    pub tools: Vec<String>,
    /// The failure's kind, if the call failed.
    pub error: Option<String>,
}

impl LlmCallRow {
    /// The row for one agent-loop record.
    pub fn from_record(record: &LlmCallRecord<'_>) -> Self {
        let usage = record.usage.unwrap_or_default();
        Self {
            at_ms: epoch_ms(record.at),
            trace_id: record.origin.trace_id.to_owned(),
            session_id: record.origin.session_id.to_owned(),
            user_id: record.origin.user_id.map(str::to_owned),
            round: record.round,
            duration_us: micros(record.duration),
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            tools: record.tools.iter().map(|name| (*name).to_owned()).collect(),
            error: record.error.map(str::to_owned),
        }
    }

    /// Prompt and completion tokens together.
    pub fn tokens(&self) -> u64 {
        self.prompt_tokens.saturating_add(self.completion_tokens)
    }
}

/// Milliseconds since the Unix epoch (negative before it).
pub fn epoch_ms(at: SystemTime) -> i64 {
    match at.duration_since(UNIX_EPOCH) {
        Ok(after) => i64::try_from(after.as_millis()).unwrap_or(i64::MAX),
        Err(before) => -i64::try_from(before.duration().as_millis()).unwrap_or(i64::MAX),
    }
}

fn micros(duration: Duration) -> i64 {
    i64::try_from(duration.as_micros()).unwrap_or(i64::MAX)
}
