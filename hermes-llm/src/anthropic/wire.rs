//! Anthropic Messages JSON.

use hermes_core::{
    AssistantMessage, ChatResponse, FinishReason, Message, ToolCall, ToolChoice, Usage,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};

/// The system text, and the conversation as Anthropic wants it: alternating roles,
/// tool calls as `tool_use` blocks, results as `tool_result` blocks in a user turn.
pub(super) fn conversation(messages: &[Message]) -> (Option<String>, Vec<Value>) {
    let mut system = Vec::new();
    let mut turns: Vec<(String, Vec<Value>)> = Vec::new();
    let mut push = |role: &str, blocks: Vec<Value>| {
        if blocks.is_empty() {
            return;
        }
        match turns.last_mut() {
            Some((last, existing)) if last == role => existing.extend(blocks),
            _ => turns.push((role.to_owned(), blocks)),
        }
    };
    for message in messages {
        match message {
            Message::System { content } => system.push(content.clone()),
            Message::User { content } => {
                push("user", vec![json!({"type": "text", "text": content})])
            }
            Message::Assistant(assistant) => {
                let mut blocks = Vec::new();
                if let Some(text) = assistant.content.as_deref().filter(|text| !text.is_empty()) {
                    blocks.push(json!({"type": "text", "text": text}));
                }
                for call in &assistant.tool_calls {
                    let input = match serde_json::from_str::<Value>(call.arguments()) {
                        Ok(object @ Value::Object(_)) => object,
                        _ => Value::Object(Map::new()),
                    };
                    blocks.push(json!({"type": "tool_use", "id": call.id, "name": call.name(), "input": input}));
                }
                push("assistant", blocks);
            }
            Message::Tool(result) => {
                let is_error = serde_json::from_str::<Value>(&result.content)
                    .is_ok_and(|value| value.get("error").is_some());
                push(
                    "user",
                    vec![
                        json!({"type": "tool_result", "tool_use_id": result.tool_call_id, "content": result.content, "is_error": is_error}),
                    ],
                );
            }
            _ => {}
        }
    }
    let system = (!system.is_empty()).then(|| system.join("\n\n"));
    let messages = turns
        .into_iter()
        .map(|(role, content)| json!({"role": role, "content": content}))
        .collect();
    (system, messages)
}

/// OpenAI function objects as Anthropic tools.
pub(super) fn tools(tools: &[Value]) -> Vec<Value> {
    tools
        .iter()
        .map(|tool| {
            let function = tool.get("function").unwrap_or(tool);
            json!({
                "name": function.get("name").cloned().unwrap_or(Value::Null),
                "description": function.get("description").cloned().unwrap_or(Value::String(String::new())),
                "input_schema": function.get("parameters").cloned().unwrap_or(json!({"type": "object"})),
            })
        })
        .collect()
}

pub(super) fn tool_choice(choice: &ToolChoice) -> Value {
    match choice {
        ToolChoice::Required => json!({"type": "any"}),
        ToolChoice::Function(name) => json!({"type": "tool", "name": name}),
        ToolChoice::None => json!({"type": "none"}),
        _ => json!({"type": "auto"}),
    }
}

pub(super) fn stop_reason(reason: &str) -> FinishReason {
    match reason {
        "end_turn" | "stop_sequence" => FinishReason::Stop,
        "tool_use" => FinishReason::ToolCalls,
        "max_tokens" => FinishReason::Length,
        other => FinishReason::Other(other.to_owned()),
    }
}

#[derive(Debug, Deserialize)]
pub(super) struct Response {
    #[serde(default)]
    content: Vec<Value>,
    stop_reason: Option<String>,
    usage: Option<WireUsage>,
}

#[derive(Debug, Clone, Copy, Default, Deserialize)]
pub(super) struct WireUsage {
    #[serde(default)]
    pub(super) input_tokens: u64,
    #[serde(default)]
    pub(super) output_tokens: u64,
}

impl Response {
    pub(super) fn into_response(self) -> ChatResponse {
        let mut text = String::new();
        let mut reasoning = String::new();
        let mut tool_calls = Vec::new();
        for block in self.content {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => text.push_str(
                    block
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                ),
                Some("thinking") => reasoning.push_str(
                    block
                        .get("thinking")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                ),
                Some("tool_use") => tool_calls.push(ToolCall::new(
                    block.get("id").and_then(Value::as_str).unwrap_or_default(),
                    block
                        .get("name")
                        .and_then(Value::as_str)
                        .unwrap_or_default(),
                    block
                        .get("input")
                        .cloned()
                        .unwrap_or_else(|| json!({}))
                        .to_string(),
                )),
                _ => {}
            }
        }
        let mut response = ChatResponse::new(AssistantMessage {
            content: Some(text).filter(|text| !text.is_empty()),
            tool_calls,
        });
        response.finish_reason = self.stop_reason.as_deref().map(stop_reason);
        response.usage = self
            .usage
            .map(|u| Usage::new(u.input_tokens, u.output_tokens));
        response.reasoning = Some(reasoning).filter(|text| !text.is_empty());
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_results_join_the_user_turn() {
        let messages = vec![
            Message::system("Be brief."),
            Message::user("weather?"),
            Message::tool_calls([
                ToolCall::new("t1", "w", r#"{"city":"Oslo"}"#),
                ToolCall::new("t2", "w", "{}"),
            ]),
            Message::tool("t1", "w", r#"{"temp": 3}"#),
            Message::tool(
                "t2",
                "w",
                r#"{"error": {"kind": "failed", "message": "x"}}"#,
            ),
            Message::user("thanks"),
        ];
        let (system, turns) = conversation(&messages);
        assert_eq!(system.as_deref(), Some("Be brief."));
        assert_eq!(turns.len(), 3);
        assert_eq!(
            turns[1]["content"][0],
            json!({"type": "tool_use", "id": "t1", "name": "w", "input": {"city": "Oslo"}})
        );
        let results = turns[2]["content"].as_array().unwrap();
        assert_eq!(results.len(), 3);
        assert_eq!(results[0]["is_error"], false);
        assert_eq!(results[1]["is_error"], true);
        assert_eq!(results[2]["type"], "text");
    }
}
