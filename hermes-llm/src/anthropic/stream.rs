//! Anthropic's streamed events to [`ChatDelta`]s.

use std::collections::{HashMap, VecDeque};

use hermes_core::{ChatDelta, LlmError, Usage};
use serde_json::Value;

use super::wire::stop_reason;
use crate::http::{DeltaSource, Flow, SseEvent, server_message};

/// What the stream has seen.
#[derive(Debug, Default)]
pub(super) struct Reader {
    /// Content block index -> tool call index, and whether it got input.
    tools: HashMap<u64, (usize, bool)>,
    next_tool: usize,
    input_tokens: u64,
}

impl DeltaSource for Reader {
    fn event(&mut self, event: &SseEvent, out: &mut VecDeque<ChatDelta>) -> Result<Flow, LlmError> {
        convert(event, self, out)
    }

    fn end(&mut self, stopped: bool, _out: &mut VecDeque<ChatDelta>) -> Result<(), LlmError> {
        if stopped {
            Ok(())
        } else {
            Err(LlmError::InvalidResponse {
                message: "the stream ended before `message_stop`".to_owned(),
            })
        }
    }
}

fn convert(
    event: &SseEvent,
    state: &mut Reader,
    out: &mut VecDeque<ChatDelta>,
) -> Result<Flow, LlmError> {
    let data: Value =
        serde_json::from_str(&event.data).map_err(|error| LlmError::InvalidResponse {
            message: format!(
                "a stream event is not JSON ({error}): {}",
                server_message(&event.data)
            ),
        })?;
    let kind = data
        .get("type")
        .and_then(Value::as_str)
        .or(event.event.as_deref())
        .unwrap_or_default();
    let text = |value: Option<&Value>| value.and_then(Value::as_str).unwrap_or_default().to_owned();
    match kind {
        "message_start" => {
            state.input_tokens = data
                .pointer("/message/usage/input_tokens")
                .and_then(Value::as_u64)
                .unwrap_or(0);
        }
        "content_block_start" => {
            let block = data.get("content_block").cloned().unwrap_or(Value::Null);
            let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
            match block.get("type").and_then(Value::as_str) {
                Some("tool_use") => {
                    let call = state.next_tool;
                    state.next_tool += 1;
                    state.tools.insert(index, (call, false));
                    out.push_back(ChatDelta::ToolCall {
                        index: call,
                        id: Some(text(block.get("id"))),
                        name: Some(text(block.get("name"))),
                        arguments: String::new(),
                    });
                }
                Some("text") => {
                    let initial = text(block.get("text"));
                    if !initial.is_empty() {
                        out.push_back(ChatDelta::Text(initial));
                    }
                }
                _ => {}
            }
        }
        "content_block_delta" => {
            let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
            let delta = data.get("delta").cloned().unwrap_or(Value::Null);
            match delta.get("type").and_then(Value::as_str) {
                Some("text_delta") => out.push_back(ChatDelta::Text(text(delta.get("text")))),
                Some("thinking_delta") => {
                    out.push_back(ChatDelta::Reasoning(text(delta.get("thinking"))))
                }
                Some("input_json_delta") => {
                    if let Some((call, got_input)) = state.tools.get_mut(&index) {
                        *got_input = true;
                        out.push_back(ChatDelta::ToolCall {
                            index: *call,
                            id: None,
                            name: None,
                            arguments: text(delta.get("partial_json")),
                        });
                    }
                }
                _ => {}
            }
        }
        "content_block_stop" => {
            let index = data.get("index").and_then(Value::as_u64).unwrap_or(0);
            // A call with no input at all still needs JSON arguments.
            if let Some((call, false)) = state.tools.get(&index) {
                out.push_back(ChatDelta::ToolCall {
                    index: *call,
                    id: None,
                    name: None,
                    arguments: "{}".to_owned(),
                });
            }
        }
        "message_delta" => {
            if let Some(reason) = data.pointer("/delta/stop_reason").and_then(Value::as_str) {
                out.push_back(ChatDelta::Finish(stop_reason(reason)));
            }
            if let Some(output) = data.pointer("/usage/output_tokens").and_then(Value::as_u64) {
                out.push_back(ChatDelta::Usage(Usage::new(state.input_tokens, output)));
            }
        }
        "message_stop" => return Ok(Flow::Stop),
        "error" => {
            return Err(LlmError::Status {
                status: 200,
                body: server_message(&data.to_string()),
            });
        }
        _ => {}
    }
    Ok(Flow::Continue)
}
