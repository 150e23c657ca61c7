use std::fmt;

use serde::{Deserialize, Serialize};

use crate::{AgentEvent, Message, Usage};

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunStatus {
    /// The model answered without calling tools.
    Completed,
    /// The round limit was reached while the model still called tools.
    MaxRounds,
    /// The run's total timeout ran out.
    Timeout,
    /// The run was cancelled.
    Cancelled,
    /// The backend failed (after its retries), or the model kept sending calls that
    /// could not run (the strike limit); [`AgentOutcome::error`] says which.
    Failed,
    /// A content check refused the input or the model's text
    /// ([`AgentBuilder::content_check`](crate::AgentBuilder::content_check));
    /// [`AgentOutcome::error`] says why.
    Blocked,
}

impl RunStatus {
    /// `completed`, `max_rounds`, `timeout`, `cancelled`, `failed` or `blocked`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Completed => "completed",
            Self::MaxRounds => "max_rounds",
            Self::Timeout => "timeout",
            Self::Cancelled => "cancelled",
            Self::Failed => "failed",
            Self::Blocked => "blocked",
        }
    }
}

impl fmt::Display for RunStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Everything a run produced.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct AgentOutcome {
    /// The run's trace id (12 hex characters), also on its `tracing` spans.
    pub trace_id: String,
    /// How the run ended.
    pub status: RunStatus,
    /// The model's final text, when it completed.
    pub answer: Option<String>,
    /// The whole conversation: system, user, assistant and tool messages. Calls cut off
    /// by a timeout or cancellation have a `cancelled` tool message, so the transcript
    /// stays valid to send again.
    pub messages: Vec<Message>,
    /// Token totals over all rounds.
    pub usage: Usage,
    /// Rounds run.
    pub rounds: u32,
    /// What happened, in order.
    pub events: Vec<AgentEvent>,
    /// Why the run failed: the backend's error, or the strike limit.
    pub error: Option<String>,
}

impl AgentOutcome {
    /// Whether the run completed with an answer.
    pub fn is_completed(&self) -> bool {
        self.status == RunStatus::Completed
    }

    /// The events, one per line, for people.
    pub fn trace(&self) -> String {
        let mut trace = format!("trace {}\n", self.trace_id);
        for event in &self.events {
            trace.push_str(&event.to_string());
            trace.push('\n');
        }
        trace
    }
}
