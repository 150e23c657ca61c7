use std::collections::VecDeque;
use std::sync::{Mutex, PoisonError};

use async_trait::async_trait;

use super::{ChatRequest, ChatResponse, FinishReason, LlmBackend, ToolChoice};
use crate::{AssistantMessage, LlmError, Message, ToolCall, Usage};

/// One turn of a [`ScriptedBackend`]'s script.
#[derive(Debug)]
#[non_exhaustive]
pub enum ScriptedTurn {
    /// Answer with this response.
    Respond(ChatResponse),
    /// Fail with this error.
    Fail(LlmError),
    /// Never answer (for timeout and cancellation tests).
    Hang,
}

impl ScriptedTurn {
    /// A final text answer.
    pub fn text(content: impl Into<String>) -> Self {
        Self::Respond(
            ChatResponse::new(AssistantMessage {
                content: Some(content.into()),
                tool_calls: Vec::new(),
            })
            .with_finish_reason(FinishReason::Stop),
        )
    }

    /// A turn that only calls tools.
    pub fn tool_calls(calls: impl IntoIterator<Item = ToolCall>) -> Self {
        Self::Respond(
            ChatResponse::new(AssistantMessage {
                content: None,
                tool_calls: calls.into_iter().collect(),
            })
            .with_finish_reason(FinishReason::ToolCalls),
        )
    }

    /// Set the usage this turn reports (otherwise an estimate is reported).
    #[must_use]
    pub fn with_usage(self, usage: Usage) -> Self {
        match self {
            Self::Respond(response) => Self::Respond(response.with_usage(usage)),
            other => other,
        }
    }
}

/// A backend that replays a script of assistant turns, in order, and records what it
/// was asked. For tests and demos: no server, no network, deterministic.
///
/// Turns without usage report an estimate (about four characters a token) so usage
/// totals stay meaningful. When the script runs out, calls fail with
/// [`LlmError::ScriptExhausted`].
///
/// ```
/// use hermes_core::{ScriptedBackend, ScriptedTurn, ToolCall};
///
/// let backend = ScriptedBackend::new([
///     ScriptedTurn::tool_calls([ToolCall::new("call_1", "calc", r#"{"expression":"6*7"}"#)]),
///     ScriptedTurn::text("6 times 7 is 42."),
/// ]);
/// ```
#[derive(Debug)]
pub struct ScriptedBackend {
    given: usize,
    turns: Mutex<VecDeque<ScriptedTurn>>,
    requests: Mutex<Vec<Vec<Message>>>,
    tool_choices: Mutex<Vec<ToolChoice>>,
}

impl ScriptedBackend {
    /// A backend that answers with `turns`, one per call.
    pub fn new(turns: impl IntoIterator<Item = ScriptedTurn>) -> Self {
        let turns: VecDeque<ScriptedTurn> = turns.into_iter().collect();
        Self {
            given: turns.len(),
            turns: Mutex::new(turns),
            requests: Mutex::default(),
            tool_choices: Mutex::default(),
        }
    }

    /// The messages of every request received so far, in order.
    pub fn requests(&self) -> Vec<Vec<Message>> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The `tool_choice` of every request received so far, in order.
    pub fn tool_choices(&self) -> Vec<ToolChoice> {
        self.tool_choices
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// How many turns are left.
    pub fn remaining(&self) -> usize {
        self.turns
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }
}

#[async_trait]
impl LlmBackend for ScriptedBackend {
    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        self.requests
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(request.messages.to_vec());
        self.tool_choices
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(request.tool_choice.clone());
        let turn = self
            .turns
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop_front();
        match turn {
            None => Err(LlmError::ScriptExhausted { given: self.given }),
            Some(ScriptedTurn::Fail(error)) => Err(error),
            Some(ScriptedTurn::Hang) => std::future::pending().await,
            Some(ScriptedTurn::Respond(mut response)) => {
                if response.usage.is_none() {
                    response.usage = Some(estimate_usage(&request, &response.message));
                }
                Ok(response)
            }
        }
    }
}

/// About four characters a token, over what was sent and what came back.
fn estimate_usage(request: &ChatRequest<'_>, answer: &AssistantMessage) -> Usage {
    let tokens = |chars: usize| (chars as u64).div_ceil(4);
    let sent: usize = request
        .messages
        .iter()
        .map(|message| message.content().map_or(0, str::len) + calls_len(message.calls()))
        .sum::<usize>()
        + request
            .tools
            .iter()
            .map(|tool| tool.to_string().len())
            .sum::<usize>();
    let received = answer.content.as_deref().map_or(0, str::len) + calls_len(&answer.tool_calls);
    Usage::new(tokens(sent), tokens(received))
}

fn calls_len(calls: &[ToolCall]) -> usize {
    calls
        .iter()
        .map(|call| call.name().len() + call.arguments().len())
        .sum()
}
