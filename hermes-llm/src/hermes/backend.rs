use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use async_trait::async_trait;
use futures_util::{Stream, StreamExt, stream};
use hermes_core::{
    AssistantMessage, ChatDelta, ChatRequest, ChatResponse, DeltaStream, FinishReason, LlmBackend,
    LlmError, ToolCall, ToolChoice, Usage,
};
use reqwest::header::HeaderMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::grammar::tool_call_grammar;
use super::parser::{
    HermesParser, ParseEvent, ParseIssue, ParseOutcome, ParsedCall, ParserOptions, parse,
};
use super::prompt;
use crate::Error;
use crate::config;
use crate::http::{self, Http, RetryPolicy, SseEvent};

/// Stop sequences: the ends of a ChatML turn. Never `</tool_call>`: a model may call
/// several tools in one turn.
const STOP: [&str; 2] = ["<|im_end|>", "<|eot_id|>"];

/// A backend speaking the Hermes text format over `POST {base}/completions`.
///
/// ```no_run
/// use hermes_llm::HermesBackend;
///
/// let backend = HermesBackend::builder()
///     .base_url("http://127.0.0.1:8080/v1")
///     .model("smollm2")
///     .grammar(true) // llama.cpp servers: constrain forced calls to the format
///     .build()?;
/// # Ok::<(), hermes_llm::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct HermesBackend {
    http: Http,
    url: String,
    headers: HeaderMap,
    model: String,
    options: ParserOptions,
    grammar: bool,
    temperature: Option<f32>,
    max_tokens: u32,
}

impl HermesBackend {
    /// Configure a backend.
    pub fn builder() -> HermesBuilder {
        HermesBuilder::default()
    }

    fn body(&self, request: &ChatRequest<'_>, stream: bool) -> Value {
        let prompt = prompt::render(
            request.messages,
            request.tools,
            request.tool_choice,
            self.options.think_open,
        );
        let mut body = Map::new();
        body.insert("model".into(), Value::String(self.model.clone()));
        body.insert("prompt".into(), Value::String(prompt));
        body.insert("max_tokens".into(), json!(self.max_tokens));
        body.insert("stop".into(), json!(STOP));
        if let Some(temperature) = self.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        let forced: Vec<Value> = match request.tool_choice {
            ToolChoice::Required => request.tools.to_vec(),
            ToolChoice::Function(name) => request
                .tools
                .iter()
                .filter(|tool| tool.pointer("/function/name").and_then(Value::as_str) == Some(name))
                .cloned()
                .collect(),
            _ => Vec::new(),
        };
        if self.grammar && !forced.is_empty() {
            body.insert("grammar".into(), Value::String(tool_call_grammar(&forced)));
        }
        if stream {
            body.insert("stream".into(), Value::Bool(true));
        }
        Value::Object(body)
    }
}

#[derive(Debug, Deserialize)]
struct Completion {
    #[serde(default)]
    choices: Vec<CompletionChoice>,
    usage: Option<WireUsage>,
}

#[derive(Debug, Deserialize)]
struct CompletionChoice {
    #[serde(default)]
    text: String,
    finish_reason: Option<String>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
struct WireUsage {
    #[serde(default)]
    prompt_tokens: u64,
    #[serde(default)]
    completion_tokens: u64,
}

#[async_trait]
impl LlmBackend for HermesBackend {
    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        let body = self.body(&request, false);
        let response = self
            .http
            .post(&self.url, &self.headers, &body, request.deadline)
            .await?;
        let text = response.text().await.map_err(|error| LlmError::Transport {
            message: "the connection broke while reading the answer".to_owned(),
            source: Some(Box::new(error)),
        })?;
        let completion: Completion =
            serde_json::from_str(&text).map_err(|error| LlmError::InvalidResponse {
                message: format!(
                    "the answer is not a completion ({error}): {}",
                    http::server_message(&text)
                ),
            })?;
        let choice =
            completion
                .choices
                .into_iter()
                .next()
                .ok_or_else(|| LlmError::InvalidResponse {
                    message: "the answer has no choices".to_owned(),
                })?;
        let outcome = parse(&choice.text, self.options);
        for warning in &outcome.warnings {
            tracing::warn!(warning, "hermes format");
        }
        let mut response = response_from(outcome, choice.finish_reason.as_deref());
        response.usage = completion
            .usage
            .map(|u| Usage::new(u.prompt_tokens, u.completion_tokens));
        Ok(response)
    }

    async fn stream(&self, request: ChatRequest<'_>) -> Result<DeltaStream, LlmError> {
        let body = self.body(&request, true);
        let response = self
            .http
            .post(&self.url, &self.headers, &body, request.deadline)
            .await?;
        Ok(deltas(http::events(response), self.options).boxed())
    }
}

/// The assistant message the parser's outcome describes. A block that could not be
/// read still becomes a call (its raw text as arguments, its name if known), so the
/// gateway answers it with an error the model can act on instead of losing it.
fn response_from(outcome: ParseOutcome, server_reason: Option<&str>) -> ChatResponse {
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

/// The deltas of a streamed completion: text and reasoning as they come, each call
/// when its block ends (its id and name as soon as the name is known).
fn deltas(
    events: impl Stream<Item = Result<SseEvent, LlmError>> + Send + 'static,
    options: ParserOptions,
) -> impl Stream<Item = Result<ChatDelta, LlmError>> + Send {
    struct State {
        parser: Option<HermesParser>,
        calls: Calls,
        reason: Option<String>,
        usage: Option<Usage>,
        done: bool,
    }
    let state = State {
        parser: Some(HermesParser::new(options)),
        calls: Calls::default(),
        reason: None,
        usage: None,
        done: false,
    };
    stream::unfold(
        (events.boxed(), state, VecDeque::new()),
        |(mut events, mut state, mut ready)| async move {
            loop {
                if let Some(delta) = ready.pop_front() {
                    return Some((Ok(delta), (events, state, ready)));
                }
                if state.done {
                    return None;
                }
                let parsed = match events.next().await {
                    Some(Ok(event)) if event.data.trim() == "[DONE]" => None,
                    Some(Ok(event)) => match serde_json::from_str::<Completion>(&event.data) {
                        Ok(chunk) => {
                            if let Some(usage) = chunk.usage {
                                state.usage =
                                    Some(Usage::new(usage.prompt_tokens, usage.completion_tokens));
                            }
                            let mut text = String::new();
                            for choice in chunk.choices {
                                text.push_str(&choice.text);
                                if choice.finish_reason.is_some() {
                                    state.reason = choice.finish_reason;
                                }
                            }
                            Some(text)
                        }
                        Err(error) => {
                            state.done = true;
                            let error = LlmError::InvalidResponse {
                                message: format!(
                                    "a stream chunk is not a completion ({error}): {}",
                                    http::server_message(&event.data)
                                ),
                            };
                            return Some((Err(error), (events, state, ready)));
                        }
                    },
                    Some(Err(error)) => {
                        state.done = true;
                        return Some((Err(error), (events, state, ready)));
                    }
                    None => None,
                };
                let parser_events = match (parsed, state.parser.as_mut()) {
                    (Some(text), Some(parser)) => parser.push(&text),
                    _ => {
                        // The stream ended: everything the parser still holds.
                        state.done = true;
                        let Some(parser) = state.parser.take() else {
                            continue;
                        };
                        let (last, outcome) = parser.finish();
                        for warning in &outcome.warnings {
                            tracing::warn!(warning, "hermes format");
                        }
                        let mut events = last;
                        events.push(ParseEvent::Text(String::new()));
                        events
                    }
                };
                for event in parser_events {
                    state.calls.convert(event, &mut ready);
                }
                if state.done {
                    if let Some(usage) = state.usage {
                        ready.push_back(ChatDelta::Usage(usage));
                    }
                    let reason = if state.calls.any {
                        Some(FinishReason::ToolCalls)
                    } else {
                        state.reason.as_deref().map(FinishReason::from_wire)
                    };
                    if let Some(reason) = reason {
                        ready.push_back(ChatDelta::Finish(reason));
                    }
                }
            }
        },
    )
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

/// Configures a [`HermesBackend`]; see [`HermesBackend::builder`].
#[derive(Debug, Default)]
#[must_use]
pub struct HermesBuilder {
    base_url: Option<String>,
    api_key: Option<String>,
    model: Option<String>,
    headers: Vec<(String, String)>,
    options: ParserOptions,
    grammar: bool,
    temperature: Option<f32>,
    max_tokens: Option<u32>,
    retry: RetryPolicy,
    timeout: Option<Duration>,
}

impl HermesBuilder {
    /// The API root (the backend posts to `{base}/completions`).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// An API key, sent as a bearer token.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The model name.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// An extra header.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Send a GBNF grammar when a call is forced (a named tool choice, `required`):
    /// the model can then only answer with a `<tool_call>` block for the tool, its
    /// arguments shaped by the schema. llama.cpp servers accept it; others ignore it.
    pub fn grammar(mut self, grammar: bool) -> Self {
        self.grammar = grammar;
        self
    }

    /// Read the output leniently (see [`ParserOptions::lenient`]).
    pub fn lenient(mut self, lenient: bool) -> Self {
        self.options = self.options.lenient(lenient);
        self
    }

    /// Open a `<think>` block at the start of each answer (Hermes 4 reasoning models).
    pub fn think_open(mut self, think_open: bool) -> Self {
        self.options = self.options.think_open(think_open);
        self
    }

    /// Sampling temperature (unset: the server's default).
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Most tokens to generate (default 512).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// How failed requests are retried.
    pub fn retry(mut self, retry: RetryPolicy) -> Self {
        self.retry = retry;
        self
    }

    /// The longest wait for a byte of the answer (default 10 minutes).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Finish.
    ///
    /// # Errors
    ///
    /// [`Error::Missing`] without a base URL or a model; [`Error::Invalid`] for a bad
    /// URL or header.
    pub fn build(self) -> Result<HermesBackend, Error> {
        let base = config::check_base_url(self.base_url.as_deref().ok_or(Error::Missing {
            what: "the base URL",
            hint: "call `base_url` on the builder (the server's `/v1` root)",
        })?)?;
        let model = self.model.ok_or(Error::Missing {
            what: "the model",
            hint: "call `model` on the builder",
        })?;
        let mut pairs = self.headers;
        if let Some(key) = &self.api_key {
            pairs.push(("authorization".to_owned(), format!("Bearer {key}")));
        }
        Ok(HermesBackend {
            http: Http::new(self.retry, self.timeout.unwrap_or(config::DEFAULT_TIMEOUT))?,
            url: format!("{base}/completions"),
            headers: http::headers(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))?,
            model,
            options: self.options,
            grammar: self.grammar,
            temperature: self.temperature,
            max_tokens: self.max_tokens.unwrap_or(512),
        })
    }
}
