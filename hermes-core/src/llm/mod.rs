//! The model side: the [`LlmBackend`] trait the agent talks to, and [`ScriptedBackend`]
//! for tests and demos. Real backends (OpenAI-compatible servers, the Hermes text
//! format, Anthropic) live in `hermes-llm`.

mod delta;
mod scripted;

use std::fmt;

use async_trait::async_trait;
use futures_util::stream::{self, BoxStream, StreamExt};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::time::Instant;

pub use delta::{ChatDelta, DeltaAccumulator};
pub use scripted::{ScriptedBackend, ScriptedTurn};

use crate::{AssistantMessage, LlmError, Message, Usage};

/// A stream of response pieces.
pub type DeltaStream = BoxStream<'static, Result<ChatDelta, LlmError>>;

/// A chat model the agent can call. Backends are values: the agent holds an
/// `Arc<dyn LlmBackend>` and never knows which one it talks to.
#[async_trait]
pub trait LlmBackend: Send + Sync + fmt::Debug + 'static {
    /// Ask for one whole assistant turn.
    ///
    /// # Errors
    ///
    /// [`LlmError`] when the server cannot be reached, refuses, or answers nonsense
    /// (after the backend's own retries).
    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError>;

    /// Ask for one assistant turn as a stream of pieces. The default calls
    /// [`complete`](Self::complete) and replays its answer as deltas.
    ///
    /// # Errors
    ///
    /// As [`complete`](Self::complete), for the request as a whole; errors mid-stream
    /// come as stream items.
    async fn stream(&self, request: ChatRequest<'_>) -> Result<DeltaStream, LlmError> {
        let response = self.complete(request).await?;
        Ok(stream::iter(response.into_deltas().into_iter().map(Ok)).boxed())
    }
}

/// What the agent sends: the conversation, the tools, how to choose among them.
#[derive(Debug, Clone, Copy)]
#[non_exhaustive]
pub struct ChatRequest<'a> {
    /// The conversation so far.
    pub messages: &'a [Message],
    /// OpenAI function objects of the tools on offer.
    pub tools: &'a [Value],
    /// Whether and which tool to call.
    pub tool_choice: &'a ToolChoice,
    /// When the run's total timeout ends, if it has one: retries must stop by then.
    pub deadline: Option<Instant>,
}

impl<'a> ChatRequest<'a> {
    /// A request with `tool_choice: auto` and no deadline.
    pub fn new(messages: &'a [Message], tools: &'a [Value]) -> Self {
        Self {
            messages,
            tools,
            tool_choice: &ToolChoice::Auto,
            deadline: None,
        }
    }

    /// Set the tool choice.
    #[must_use]
    pub fn with_tool_choice(mut self, tool_choice: &'a ToolChoice) -> Self {
        self.tool_choice = tool_choice;
        self
    }

    /// Set the deadline.
    #[must_use]
    pub fn with_deadline(mut self, deadline: Option<Instant>) -> Self {
        self.deadline = deadline;
        self
    }
}

/// OpenAI's `tool_choice`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolChoice {
    /// The model decides.
    #[default]
    Auto,
    /// No tool calls.
    None,
    /// At least one tool call.
    Required,
    /// This tool.
    Function(String),
}

impl ToolChoice {
    /// The wire value: `"auto"`, `"none"`, `"required"` or
    /// `{"type": "function", "function": {"name": ..}}`.
    pub fn to_json(&self) -> Value {
        match self {
            Self::Auto => Value::from("auto"),
            Self::None => Value::from("none"),
            Self::Required => Value::from("required"),
            Self::Function(name) => {
                serde_json::json!({"type": "function", "function": {"name": name}})
            }
        }
    }
}

/// Why the model stopped, as OpenAI names it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum FinishReason {
    /// A natural end.
    Stop,
    /// It called tools.
    ToolCalls,
    /// It hit the token limit.
    Length,
    /// A filter stopped it.
    ContentFilter,
    /// Something else the server said.
    #[serde(untagged)]
    Other(String),
}

impl FinishReason {
    /// The reason named by a server's `finish_reason` string.
    pub fn from_wire(reason: &str) -> Self {
        match reason {
            "stop" => Self::Stop,
            "tool_calls" => Self::ToolCalls,
            "length" => Self::Length,
            "content_filter" => Self::ContentFilter,
            other => Self::Other(other.to_owned()),
        }
    }
}

/// One whole assistant turn.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ChatResponse {
    /// The assistant message.
    pub message: AssistantMessage,
    /// Token counts, if the server sent them.
    pub usage: Option<Usage>,
    /// Why it stopped, if the server said.
    pub finish_reason: Option<FinishReason>,
    /// The model's reasoning (`reasoning_content`, `<think>`), kept apart from the answer.
    pub reasoning: Option<String>,
}

impl ChatResponse {
    /// A response carrying `message`.
    pub fn new(message: AssistantMessage) -> Self {
        Self {
            message,
            usage: None,
            finish_reason: None,
            reasoning: None,
        }
    }

    /// Set the usage.
    #[must_use]
    pub fn with_usage(mut self, usage: Usage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// Set the finish reason.
    #[must_use]
    pub fn with_finish_reason(mut self, reason: FinishReason) -> Self {
        self.finish_reason = Some(reason);
        self
    }

    /// Set the reasoning.
    #[must_use]
    pub fn with_reasoning(mut self, reasoning: impl Into<String>) -> Self {
        self.reasoning = Some(reasoning.into());
        self
    }

    /// The response as the deltas a streaming server would send.
    pub fn into_deltas(self) -> Vec<ChatDelta> {
        let mut deltas = Vec::new();
        if let Some(reasoning) = self.reasoning {
            deltas.push(ChatDelta::Reasoning(reasoning));
        }
        if let Some(text) = self.message.content {
            deltas.push(ChatDelta::Text(text));
        }
        for (index, call) in self.message.tool_calls.into_iter().enumerate() {
            deltas.push(ChatDelta::ToolCall {
                index,
                id: Some(call.id),
                name: Some(call.function.name),
                arguments: call.function.arguments,
            });
        }
        if let Some(usage) = self.usage {
            deltas.push(ChatDelta::Usage(usage));
        }
        if let Some(reason) = self.finish_reason {
            deltas.push(ChatDelta::Finish(reason));
        }
        deltas
    }
}
