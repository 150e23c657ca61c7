//! The Chat Completions JSON, as servers really send it.

use hermes_core::{
    AssistantMessage, ChatResponse, FinishReason, Message, ToolCall, ToolChoice, Usage,
};
use serde::Deserialize;
use serde_json::{Value, json};

/// The request's `messages`, in the form every server accepts: an assistant message
/// that calls tools carries `"content": ""` (some servers fail on `null` or a missing
/// one), and tool messages carry no `name` (not in the API).
pub(super) fn messages(messages: &[Message]) -> Vec<Value> {
    messages
        .iter()
        .map(|message| {
            let mut value = serde_json::to_value(message).unwrap_or(Value::Null);
            match message {
                Message::Assistant(assistant) if assistant.content.is_none() => {
                    value["content"] = Value::String(String::new());
                }
                Message::Tool(_) => {
                    if let Some(object) = value.as_object_mut() {
                        object.remove("name");
                    }
                }
                _ => {}
            }
            value
        })
        .collect()
}

/// The request's `tool_choice`. `required` with a single tool is sent as that tool by
/// name: the same meaning, and servers that reject `required` accept it.
pub(super) fn tool_choice(choice: &ToolChoice, tools: &[Value]) -> Value {
    match (choice, tools) {
        (ToolChoice::Required, [only]) => match only.pointer("/function/name") {
            Some(name) => json!({"type": "function", "function": {"name": name}}),
            None => choice.to_json(),
        },
        _ => choice.to_json(),
    }
}

#[derive(Debug, Deserialize)]
pub(super) struct Completion {
    #[serde(default)]
    pub(super) choices: Vec<Choice>,
    pub(super) usage: Option<WireUsage>,
}

#[derive(Debug, Deserialize)]
pub(super) struct Choice {
    pub(super) message: WireMessage,
    pub(super) finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct WireMessage {
    pub(super) content: Option<String>,
    pub(super) tool_calls: Option<Vec<WireToolCall>>,
    /// The deprecated single call, still sent by some servers beside `tool_calls`.
    pub(super) function_call: Option<WireFunction>,
    pub(super) reasoning_content: Option<String>,
    pub(super) reasoning: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(super) struct WireToolCall {
    pub(super) id: Option<String>,
    pub(super) function: WireFunction,
}

#[derive(Debug, Deserialize)]
pub(super) struct WireFunction {
    #[serde(default)]
    pub(super) name: Option<String>,
    #[serde(default)]
    pub(super) arguments: Option<Value>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
pub(super) struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
    total_tokens: Option<u64>,
}

impl From<WireUsage> for Usage {
    fn from(usage: WireUsage) -> Self {
        let mut converted = Usage::new(usage.prompt_tokens, usage.completion_tokens);
        if let Some(total) = usage.total_tokens {
            converted.total_tokens = total;
        }
        converted
    }
}

/// Arguments as the JSON string the protocol wants, whatever the server sent.
pub(super) fn arguments_text(arguments: Option<Value>) -> String {
    match arguments {
        Some(Value::String(text)) => text,
        None | Some(Value::Null) => "{}".to_owned(),
        Some(other) => other.to_string(),
    }
}

/// A call id where the server gave none.
pub(super) fn fresh_id() -> String {
    format!("call_{}", hermes_core::new_trace_id())
}

impl Completion {
    pub(super) fn into_response(self) -> Option<ChatResponse> {
        let usage = self.usage.map(Usage::from);
        let choice = self.choices.into_iter().next()?;
        let message = choice.message;
        let mut tool_calls: Vec<ToolCall> = message
            .tool_calls
            .unwrap_or_default()
            .into_iter()
            .map(|call| {
                ToolCall::new(
                    call.id.filter(|id| !id.is_empty()).unwrap_or_else(fresh_id),
                    call.function.name.unwrap_or_default(),
                    arguments_text(call.function.arguments),
                )
            })
            .collect();
        // Only a server that knows no `tool_calls` sends the legacy field alone.
        if tool_calls.is_empty() {
            if let Some(function) = message.function_call {
                let name = function.name.unwrap_or_default();
                tool_calls.push(ToolCall::new(
                    fresh_id(),
                    name.trim_end_matches(':'),
                    arguments_text(function.arguments),
                ));
            }
        }
        let content = message
            .content
            .filter(|text| !text.is_empty() || tool_calls.is_empty());
        let mut response = ChatResponse::new(AssistantMessage {
            content,
            tool_calls,
        });
        response.usage = usage;
        response.finish_reason = choice.finish_reason.as_deref().map(FinishReason::from_wire);
        response.reasoning = message
            .reasoning_content
            .or(message.reasoning)
            .filter(|text| !text.is_empty());
        Some(response)
    }
}

/// One streamed chunk.
#[derive(Debug, Deserialize)]
pub(super) struct Chunk {
    #[serde(default)]
    pub(super) choices: Vec<ChunkChoice>,
    pub(super) usage: Option<WireUsage>,
    /// Some servers report errors inside the stream.
    pub(super) error: Option<Value>,
}

#[derive(Debug, Deserialize)]
pub(super) struct ChunkChoice {
    #[serde(default)]
    pub(super) delta: Delta,
    pub(super) finish_reason: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct Delta {
    pub(super) content: Option<String>,
    pub(super) reasoning_content: Option<String>,
    pub(super) reasoning: Option<String>,
    pub(super) tool_calls: Option<Vec<DeltaToolCall>>,
    pub(super) function_call: Option<WireFunction>,
}

#[derive(Debug, Deserialize)]
pub(super) struct DeltaToolCall {
    pub(super) index: Option<usize>,
    pub(super) id: Option<String>,
    pub(super) function: Option<DeltaFunction>,
}

#[derive(Debug, Deserialize)]
pub(super) struct DeltaFunction {
    pub(super) name: Option<String>,
    pub(super) arguments: Option<Value>,
}
