use crate::{AssistantMessage, ToolCall, Usage};

use super::{ChatResponse, FinishReason};

/// One piece of a streamed response.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum ChatDelta {
    /// More text.
    Text(String),
    /// More reasoning text (`reasoning_content` / `reasoning`), not part of the answer.
    Reasoning(String),
    /// A piece of a tool call. The first piece of a call carries its id and name;
    /// later pieces with the same `index` append to its arguments.
    ToolCall {
        /// The call's position in the message.
        index: usize,
        /// The call's id, on its first piece.
        id: Option<String>,
        /// The tool's name, on its first piece.
        name: Option<String>,
        /// More of the argument string.
        arguments: String,
    },
    /// Token counts.
    Usage(Usage),
    /// Why the model stopped.
    Finish(FinishReason),
}

/// Assembles deltas into a [`ChatResponse`].
///
/// Tool-call pieces are joined by `index`; a piece that brings a new `id` at an index
/// already in use starts a new call (some servers send every parallel call at index 0).
#[derive(Debug, Default)]
pub struct DeltaAccumulator {
    text: Option<String>,
    reasoning: String,
    calls: Vec<PartialCall>,
    usage: Option<Usage>,
    finish_reason: Option<FinishReason>,
}

#[derive(Debug)]
struct PartialCall {
    index: usize,
    id: String,
    name: String,
    arguments: String,
}

impl DeltaAccumulator {
    /// An empty accumulator.
    pub fn new() -> Self {
        Self::default()
    }

    /// Take one delta.
    pub fn push(&mut self, delta: ChatDelta) {
        match delta {
            ChatDelta::Text(text) => self.text.get_or_insert_with(String::new).push_str(&text),
            ChatDelta::Reasoning(text) => self.reasoning.push_str(&text),
            ChatDelta::ToolCall {
                index,
                id,
                name,
                arguments,
            } => self.push_call(index, id, name, &arguments),
            ChatDelta::Usage(usage) => self.usage = Some(usage),
            ChatDelta::Finish(reason) => self.finish_reason = Some(reason),
        }
    }

    fn push_call(
        &mut self,
        index: usize,
        id: Option<String>,
        name: Option<String>,
        arguments: &str,
    ) {
        let current = self.calls.iter().rposition(|call| call.index == index);
        let starts_new = match (current, &id) {
            (None, _) => true,
            (Some(at), Some(id)) => !id.is_empty() && self.calls[at].id != *id,
            (Some(_), None) => false,
        };
        if starts_new {
            self.calls.push(PartialCall {
                index,
                id: id.unwrap_or_default(),
                name: name.unwrap_or_default(),
                arguments: arguments.to_owned(),
            });
            return;
        }
        if let Some(call) = current.and_then(|at| self.calls.get_mut(at)) {
            // The name comes whole; servers that repeat it on every piece must not
            // make it `calccalc`.
            if call.name.is_empty() {
                if let Some(name) = name {
                    call.name = name;
                }
            }
            call.arguments.push_str(arguments);
        }
    }

    /// The reasoning text received so far.
    pub fn reasoning(&self) -> &str {
        &self.reasoning
    }

    /// The assembled response.
    pub fn finish(self) -> ChatResponse {
        let tool_calls = self
            .calls
            .into_iter()
            .map(|call| ToolCall::new(call.id, call.name, call.arguments))
            .collect();
        ChatResponse {
            message: AssistantMessage {
                content: self.text,
                tool_calls,
            },
            usage: self.usage,
            finish_reason: self.finish_reason,
            reasoning: Some(self.reasoning).filter(|text| !text.is_empty()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn piece(index: usize, id: Option<&str>, name: Option<&str>, args: &str) -> ChatDelta {
        ChatDelta::ToolCall {
            index,
            id: id.map(str::to_owned),
            name: name.map(str::to_owned),
            arguments: args.to_owned(),
        }
    }

    #[test]
    fn joins_pieces_by_index() {
        let mut acc = DeltaAccumulator::new();
        acc.push(piece(0, Some("a"), Some("calc"), "{\"expr"));
        acc.push(piece(1, Some("b"), Some("web_search"), "{}"));
        acc.push(piece(0, None, None, "ession\":\"1\"}"));
        acc.push(ChatDelta::Finish(FinishReason::ToolCalls));
        let response = acc.finish();
        let calls = &response.message.tool_calls;
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].arguments(), "{\"expression\":\"1\"}");
        assert_eq!(calls[1].name(), "web_search");
        assert_eq!(response.finish_reason, Some(FinishReason::ToolCalls));
        assert_eq!(response.message.content, None);
    }

    #[test]
    fn a_repeated_name_is_kept_once() {
        let mut acc = DeltaAccumulator::new();
        acc.push(piece(0, Some("a"), Some("calc"), "{"));
        acc.push(piece(0, Some("a"), Some("calc"), "}"));
        let calls = acc.finish().message.tool_calls;
        assert_eq!(
            (calls.len(), calls[0].name(), calls[0].arguments()),
            (1, "calc", "{}")
        );
    }

    #[test]
    fn a_new_id_at_a_reused_index_starts_a_new_call() {
        let mut acc = DeltaAccumulator::new();
        acc.push(piece(0, Some("a"), Some("one"), "{}"));
        acc.push(piece(0, Some("b"), Some("two"), "{\"x\":"));
        acc.push(piece(0, None, None, "1}"));
        let calls = acc.finish().message.tool_calls;
        assert_eq!(calls.len(), 2);
        assert_eq!(
            (calls[1].id.as_str(), calls[1].arguments()),
            ("b", "{\"x\":1}")
        );
    }

    #[test]
    fn round_trips_a_response() {
        let response = ChatResponse::new(AssistantMessage {
            content: Some("thinking aloud".into()),
            tool_calls: vec![ToolCall::new("c1", "calc", "{}")],
        })
        .with_usage(Usage::new(10, 2))
        .with_finish_reason(FinishReason::ToolCalls);
        let mut acc = DeltaAccumulator::new();
        for delta in response.clone().into_deltas() {
            acc.push(delta);
        }
        assert_eq!(acc.finish(), response);
    }
}
