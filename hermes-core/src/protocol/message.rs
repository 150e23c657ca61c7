use serde::{Deserialize, Serialize};

use super::ToolCall;

/// One chat message, tagged by `role` as on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "role", rename_all = "lowercase")]
#[non_exhaustive]
pub enum Message {
    /// Instructions for the model.
    System {
        /// The instructions.
        content: String,
    },
    /// What the user said.
    User {
        /// The user's text.
        content: String,
    },
    /// The model's turn: text, tool calls, or both.
    Assistant(AssistantMessage),
    /// The result of one tool call.
    Tool(ToolMessage),
}

/// The role of a [`Message`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum Role {
    /// `system`
    System,
    /// `user`
    User,
    /// `assistant`
    Assistant,
    /// `tool`
    Tool,
}

/// An assistant turn. `content` is `null` on the wire when the model only called tools.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct AssistantMessage {
    /// The text, if any.
    #[serde(default)]
    pub content: Option<String>,
    /// The tool calls, in the order the model wrote them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
}

/// A tool result: `{role: "tool", tool_call_id, name, content}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolMessage {
    /// The `id` of the call this answers.
    pub tool_call_id: String,
    /// The tool's name (omitted on the wire when empty).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The result: JSON text, or `{"error": {...}}` when the call failed.
    pub content: String,
}

impl Message {
    /// A system message.
    pub fn system(content: impl Into<String>) -> Self {
        Self::System {
            content: content.into(),
        }
    }

    /// A user message.
    pub fn user(content: impl Into<String>) -> Self {
        Self::User {
            content: content.into(),
        }
    }

    /// An assistant message with text only.
    pub fn assistant(content: impl Into<String>) -> Self {
        Self::Assistant(AssistantMessage {
            content: Some(content.into()),
            tool_calls: Vec::new(),
        })
    }

    /// An assistant message that only calls tools.
    pub fn tool_calls(calls: impl IntoIterator<Item = ToolCall>) -> Self {
        Self::Assistant(AssistantMessage {
            content: None,
            tool_calls: calls.into_iter().collect(),
        })
    }

    /// A tool result message.
    pub fn tool(
        tool_call_id: impl Into<String>,
        name: impl Into<String>,
        content: impl Into<String>,
    ) -> Self {
        Self::Tool(ToolMessage {
            tool_call_id: tool_call_id.into(),
            name: name.into(),
            content: content.into(),
        })
    }

    /// The message's role.
    pub fn role(&self) -> Role {
        match self {
            Self::System { .. } => Role::System,
            Self::User { .. } => Role::User,
            Self::Assistant(_) => Role::Assistant,
            Self::Tool(_) => Role::Tool,
        }
    }

    /// The text content, if the message has any.
    pub fn content(&self) -> Option<&str> {
        match self {
            Self::System { content } | Self::User { content } => Some(content),
            Self::Assistant(message) => message.content.as_deref(),
            Self::Tool(message) => Some(&message.content),
        }
    }

    /// The tool calls of an assistant message; empty for other roles.
    pub fn calls(&self) -> &[ToolCall] {
        match self {
            Self::Assistant(message) => &message.tool_calls,
            _ => &[],
        }
    }
}

impl From<AssistantMessage> for Message {
    fn from(message: AssistantMessage) -> Self {
        Self::Assistant(message)
    }
}

impl From<ToolMessage> for Message {
    fn from(message: ToolMessage) -> Self {
        Self::Tool(message)
    }
}
