//! Chat Completions chunks to [`ChatDelta`]s.

use std::collections::VecDeque;

use futures_util::{Stream, StreamExt, stream};
use hermes_core::{ChatDelta, FinishReason, LlmError, Usage};

use serde_json::Value;

use super::wire::Chunk;
use crate::http::SseEvent;

/// What the stream has seen, to tell a finished answer from a cut one.
#[derive(Debug, Default)]
struct State {
    done: bool,
    finished: bool,
    saw_tool_calls: bool,
    /// For servers that send only the legacy `function_call`: its pieces are call 0.
    legacy_started: bool,
}

/// The deltas of a streamed completion. A stream that ends without `[DONE]` and without
/// a `finish_reason` is an error, not an empty answer.
pub(super) fn deltas(
    events: impl Stream<Item = Result<SseEvent, LlmError>> + Send + 'static,
) -> impl Stream<Item = Result<ChatDelta, LlmError>> + Send {
    let events = events.boxed();
    stream::unfold(
        (events, State::default(), VecDeque::new()),
        |(mut events, mut state, mut ready)| async move {
            loop {
                if let Some(delta) = ready.pop_front() {
                    return Some((Ok(delta), (events, state, ready)));
                }
                if state.done {
                    return None;
                }
                match events.next().await {
                    Some(Ok(event)) => match convert(&event, &mut state, &mut ready) {
                        Ok(()) => {}
                        Err(error) => {
                            state.done = true;
                            return Some((Err(error), (events, state, ready)));
                        }
                    },
                    Some(Err(error)) => {
                        state.done = true;
                        return Some((Err(error), (events, state, ready)));
                    }
                    None => {
                        state.done = true;
                        if !state.finished {
                            let error = LlmError::InvalidResponse {
                                message: "the stream ended before `[DONE]` or a finish_reason; the server may not stream with these options (try without streaming)".to_owned(),
                            };
                            return Some((Err(error), (events, state, ready)));
                        }
                    }
                }
            }
        },
    )
}

fn convert(
    event: &SseEvent,
    state: &mut State,
    out: &mut VecDeque<ChatDelta>,
) -> Result<(), LlmError> {
    let data = event.data.trim();
    if data == "[DONE]" {
        state.done = true;
        state.finished = true;
        return Ok(());
    }
    if data.is_empty() {
        return Ok(());
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
            out.push_back(ChatDelta::ToolCall {
                index: call.index.unwrap_or(position),
                id: call.id.filter(|id| !id.is_empty()),
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
    Ok(())
}

/// A piece of streamed arguments: text as is, nothing for `null`.
fn piece_text(piece: Option<Value>) -> String {
    match piece {
        None | Some(Value::Null) => String::new(),
        Some(Value::String(text)) => text,
        Some(other) => other.to_string(),
    }
}
