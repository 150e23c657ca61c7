//! From the model's text to the protocol: a whole output to an assistant message, or
//! streamed text to deltas (text and reasoning as they come, each call when its block
//! ends). Shared by the completions backend and the in-process one.

use std::collections::{HashMap, VecDeque};

use hermes_core::{AssistantMessage, ChatDelta, ChatResponse, FinishReason, ToolCall, Usage};

use super::parser::{
    HermesParser, ParseEvent, ParseIssue, ParseOutcome, ParsedCall, ParserOptions,
};

/// The assistant message the parser's outcome describes. A block that could not be
/// read still becomes a call (its raw text as arguments, its name if known), so the
/// gateway answers it with an error the model can act on instead of losing it.
pub(crate) fn response_from(outcome: ParseOutcome, server_reason: Option<&str>) -> ChatResponse {
    let mut numbered: Vec<(usize, ToolCall)> = outcome
        .calls
        .iter()
        .map(|call| {
            (
                call.block_index,
                ToolCall::new(fresh_id(), call.name.clone(), call.arguments.to_string()),
            )
        })
        .chain(
            outcome
                .errors
                .iter()
                .map(|issue| (issue.block_index, broken_call(issue))),
        )
        .collect();
    // In the order of the output; calls of one block keep their order (stable sort).
    numbered.sort_by_key(|(block, _)| *block);
    let tool_calls: Vec<ToolCall> = numbered.into_iter().map(|(_, call)| call).collect();
    let finish = if tool_calls.is_empty() {
        server_reason.map(FinishReason::from_wire)
    } else {
        Some(FinishReason::ToolCalls)
    };
    let mut response = ChatResponse::new(AssistantMessage {
        content: outcome.content,
        tool_calls,
    });
    response.finish_reason = finish;
    response.reasoning = outcome.reasoning;
    response
}

fn broken_call(issue: &ParseIssue) -> ToolCall {
    ToolCall::new(
        fresh_id(),
        issue.name.clone().unwrap_or_default(),
        issue.text.trim().to_owned(),
    )
}

fn fresh_id() -> String {
    format!("call_{}", hermes_core::new_trace_id())
}

/// Streamed text to deltas: feed pieces with [`push`](Self::push), end with
/// [`finish`](Self::finish).
pub(crate) struct Transcript {
    parser: Option<HermesParser>,
    calls: Calls,
}

impl Transcript {
    pub(crate) fn new(options: ParserOptions) -> Self {
        Self {
            parser: Some(HermesParser::new(options)),
            calls: Calls::default(),
        }
    }

    /// The deltas `text` completes.
    pub(crate) fn push(&mut self, text: &str, out: &mut VecDeque<ChatDelta>) {
        if let Some(parser) = &mut self.parser {
            for event in parser.push(text) {
                self.calls.convert(event, out);
            }
        }
    }

    /// Whatever the parser still holds, then `usage` and why it stopped: `tool_calls`
    /// when there were calls, else `reason`.
    pub(crate) fn finish(
        &mut self,
        usage: Option<Usage>,
        reason: Option<&str>,
        out: &mut VecDeque<ChatDelta>,
    ) {
        if let Some(parser) = self.parser.take() {
            let (events, outcome) = parser.finish();
            for warning in &outcome.warnings {
                tracing::warn!(warning, "hermes format");
            }
            for event in events {
                self.calls.convert(event, out);
            }
        }
        if let Some(usage) = usage {
            out.push_back(ChatDelta::Usage(usage));
        }
        let reason = if self.calls.any {
            Some(FinishReason::ToolCalls)
        } else {
            reason.map(FinishReason::from_wire)
        };
        if let Some(reason) = reason {
            out.push_back(ChatDelta::Finish(reason));
        }
    }
}

/// Gives each call its delta index and id, in the order calls appear.
#[derive(Default)]
struct Calls {
    by_block: HashMap<usize, usize>,
    next: usize,
    any: bool,
}

impl Calls {
    /// A new call: its first delta carries the id and the name.
    fn open(&mut self, name: String, out: &mut VecDeque<ChatDelta>) -> usize {
        let index = self.next;
        self.next += 1;
        self.any = true;
        out.push_back(ChatDelta::ToolCall {
            index,
            id: Some(fresh_id()),
            name: Some(name),
            arguments: String::new(),
        });
        index
    }

    fn convert(&mut self, event: ParseEvent, out: &mut VecDeque<ChatDelta>) {
        let arguments = |index: usize, text: String| ChatDelta::ToolCall {
            index,
            id: None,
            name: None,
            arguments: text,
        };
        match event {
            ParseEvent::Text(text) if !text.is_empty() => out.push_back(ChatDelta::Text(text)),
            ParseEvent::Reasoning(text) => out.push_back(ChatDelta::Reasoning(text)),
            ParseEvent::CallStart { block_index, name } => {
                let index = self.open(name, out);
                self.by_block.insert(block_index, index);
            }
            ParseEvent::CallEnd {
                block_index,
                result,
            } => {
                let mut started = self.by_block.remove(&block_index);
                match result {
                    Ok(parsed) => {
                        for ParsedCall {
                            name,
                            arguments: args,
                            ..
                        } in parsed
                        {
                            let index = match started.take() {
                                Some(index) => index,
                                None => self.open(name, out),
                            };
                            out.push_back(arguments(index, args.to_string()));
                        }
                    }
                    Err(issue) => {
                        let index = match started {
                            Some(index) => index,
                            None => self.open(issue.name.clone().unwrap_or_default(), out),
                        };
                        out.push_back(arguments(index, issue.text.trim().to_owned()));
                    }
                }
            }
            _ => {}
        }
    }
}
