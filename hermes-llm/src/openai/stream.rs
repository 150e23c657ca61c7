//! Chat Completions chunks to [`ChatDelta`]s.

use std::collections::VecDeque;

use hermes_core::{ChatDelta, FinishReason, LlmError, Usage};

use serde_json::Value;

use super::wire::Chunk;
use crate::http::{DeltaSource, Flow, SseEvent};

/// What the stream has seen, to tell a finished answer from a cut one.
#[derive(Debug, Default)]
pub(super) struct Reader {
    finished: bool,
    /// Whether any chunk had a choice: a stream of none is no answer.
    saw_choice: bool,
    saw_tool_calls: bool,
    /// The call indexes seen so far: a call's first piece without an id gets one.
    call_indexes: Vec<usize>,
    /// For servers that send only the legacy `function_call`: its pieces are call 0.
    legacy_started: bool,
}

impl DeltaSource for Reader {
    fn event(&mut self, event: &SseEvent, out: &mut VecDeque<ChatDelta>) -> Result<Flow, LlmError> {
        convert(event, self, out)
    }

    /// A stream that ends without `[DONE]` and without a `finish_reason` is an error,
    /// not an empty answer.
    fn end(&mut self, stopped: bool, _out: &mut VecDeque<ChatDelta>) -> Result<(), LlmError> {
        if !(stopped || self.finished) {
            Err(LlmError::InvalidResponse {
                message: "the stream ended before `[DONE]` or a finish_reason; the server may not stream with these options (try without streaming)".to_owned(),
            })
        } else if !self.saw_choice {
            Err(LlmError::InvalidResponse {
                message: "the streamed answer has no choices".to_owned(),
            })
        } else {
            Ok(())
        }
    }
}

fn convert(
    event: &SseEvent,
    state: &mut Reader,
    out: &mut VecDeque<ChatDelta>,
) -> Result<Flow, LlmError> {
    let data = event.data.trim();
    if data == "[DONE]" {
        state.finished = true;
        return Ok(Flow::Stop);
    }
    if data.is_empty() {
        return Ok(Flow::Continue);
    }
    let chunk: Chunk = serde_json::from_str(data).map_err(|error| LlmError::InvalidResponse {
        message: format!(
            "a stream chunk is not the JSON expected ({error}): {}",
            crate::http::server_message(data)
        ),
    })?;
    if let Some(error) = chunk.error {
        return Err(LlmError::Status {
            status: 200,
            body: crate::http::server_message(&serde_json::json!({"error": error}).to_string()),
        });
    }
    for choice in chunk.choices {
        state.saw_choice = true;
        let delta = choice.delta;
        if let Some(text) = delta
            .reasoning_content
            .or(delta.reasoning)
            .filter(|t| !t.is_empty())
        {
            out.push_back(ChatDelta::Reasoning(text));
        }
        if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
            out.push_back(ChatDelta::Text(text));
        }
        let calls = delta.tool_calls.unwrap_or_default();
        if !calls.is_empty() {
            state.saw_tool_calls = true;
        }
        for (position, call) in calls.into_iter().enumerate() {
            let function = call.function;
            let arguments = piece_text(function.as_ref().and_then(|f| f.arguments.clone()));
            let index = call.index.unwrap_or(position);
            let mut id = call.id.filter(|id| !id.is_empty());
            if !state.call_indexes.contains(&index) {
                state.call_indexes.push(index);
                // As for a whole answer: a call the server gave no id gets one.
                id = id.or_else(|| Some(super::wire::fresh_id()));
            }
            out.push_back(ChatDelta::ToolCall {
                index,
                id,
                name: function
                    .and_then(|f| f.name)
                    .filter(|name| !name.is_empty()),
                arguments,
            });
        }
        // The legacy field counts only when a server sends nothing else.
        if !state.saw_tool_calls {
            if let Some(function) = delta.function_call {
                let name = if state.legacy_started {
                    None
                } else {
                    state.legacy_started = true;
                    function
                        .name
                        .map(|name| name.trim_end_matches(':').to_owned())
                };
                let id = name.as_ref().map(|_| super::wire::fresh_id());
                out.push_back(ChatDelta::ToolCall {
                    index: 0,
                    id,
                    name,
                    arguments: piece_text(function.arguments),
                });
            }
        }
        if let Some(reason) = choice.finish_reason {
            state.finished = true;
            out.push_back(ChatDelta::Finish(FinishReason::from_wire(&reason)));
        }
    }
    if let Some(usage) = chunk.usage {
        out.push_back(ChatDelta::Usage(Usage::from(usage)));
    }
    Ok(Flow::Continue)
}

/// A piece of streamed arguments: text as is, nothing for `null`.
fn piece_text(piece: Option<Value>) -> String {
    match piece {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text,
        Some(other) => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The deltas of these `data:` payloads, or the first error, stream end included.
    fn read(payloads: &[&str]) -> Result<Vec<ChatDelta>, LlmError> {
        let mut reader = Reader::default();
        let mut out = VecDeque::new();
        let mut stopped = false;
        for data in payloads {
            let event = SseEvent {
                event: None,
                data: (*data).to_owned(),
            };
            stopped = reader.event(&event, &mut out)? == Flow::Stop;
        }
        reader.end(stopped, &mut out)?;
        Ok(out.into_iter().collect())
    }

    #[test]
    fn a_stream_without_a_single_choice_is_an_error() {
        let error = read(&[r#"{"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 0, "total_tokens": 1}}"#, "[DONE]"])
            .unwrap_err();
        assert!(error.to_string().contains("no choices"), "{error}");
    }

    #[test]
    fn a_call_that_comes_without_an_id_gets_one_on_its_first_piece_only() {
        let deltas = read(&[
            r#"{"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "a", "arguments": "{}"}}]}}]}"#,
            r#"{"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 2, "function": {"name": "b", "arguments": "{"}}]}}]}"#,
            r#"{"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 2, "function": {"arguments": "}"}}]}, "finish_reason": "tool_calls"}]}"#,
            "[DONE]",
        ])
        .unwrap();
        let ids: Vec<Option<&str>> = deltas
            .iter()
            .filter_map(|delta| match delta {
                ChatDelta::ToolCall { id, .. } => Some(id.as_deref()),
                _ => None,
            })
            .collect();
        assert_eq!(ids[0], Some("c1"));
        assert!(ids[1].is_some_and(|id| id.starts_with("call_")), "{ids:?}");
        assert_eq!(ids[2], None, "a later piece continues the call");
    }
}
