use std::collections::VecDeque;

use async_trait::async_trait;
use futures_util::StreamExt;
use hermes_core::{
    ChatDelta, ChatRequest, ChatResponse, DeltaStream, LlmBackend, LlmError, ToolChoice, Usage,
};
use reqwest::header::HeaderMap;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use super::grammar::tool_call_grammar;
use super::parser::{ParserOptions, parse};
use super::prompt;
use super::transcript::{Transcript, response_from};
use crate::Error;
use crate::config;
use crate::http::{self, DeltaSource, Flow, Http, SseEvent};

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
        let completion: Completion = self
            .http
            .post_for(
                &self.url,
                &self.headers,
                &body,
                request.deadline,
                "a completion",
            )
            .await?;
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
        Ok(http::deltas(http::events(response), Reader::new(self.options)).boxed())
    }
}

/// Reads a streamed completion through a [`Transcript`].
struct Reader {
    transcript: Transcript,
    reason: Option<String>,
    usage: Option<Usage>,
}

impl Reader {
    fn new(options: ParserOptions) -> Self {
        Self {
            transcript: Transcript::new(options),
            reason: None,
            usage: None,
        }
    }
}

impl DeltaSource for Reader {
    fn event(&mut self, event: &SseEvent, out: &mut VecDeque<ChatDelta>) -> Result<Flow, LlmError> {
        if event.data.trim() == "[DONE]" {
            return Ok(Flow::Stop);
        }
        let chunk: Completion =
            serde_json::from_str(&event.data).map_err(|error| LlmError::InvalidResponse {
                message: format!(
                    "a stream chunk is not a completion ({error}): {}",
                    http::server_message(&event.data)
                ),
            })?;
        if let Some(usage) = chunk.usage {
            self.usage = Some(Usage::new(usage.prompt_tokens, usage.completion_tokens));
        }
        let mut text = String::new();
        for choice in chunk.choices {
            text.push_str(&choice.text);
            if choice.finish_reason.is_some() {
                self.reason = choice.finish_reason;
            }
        }
        self.transcript.push(&text, out);
        Ok(Flow::Continue)
    }

    /// Whatever the parser still holds, then usage and why it stopped.
    fn end(&mut self, _stopped: bool, out: &mut VecDeque<ChatDelta>) -> Result<(), LlmError> {
        self.transcript
            .finish(self.usage, self.reason.as_deref(), out);
        Ok(())
    }
}

/// Configures a [`HermesBackend`]; see [`HermesBackend::builder`].
#[derive(Debug, Default)]
#[must_use]
pub struct HermesBuilder {
    common: config::Common,
    options: ParserOptions,
    grammar: bool,
}

impl HermesBuilder {
    config::common_setters!();

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

    /// Finish. The most tokens default to 512.
    ///
    /// # Errors
    ///
    /// [`Error::Missing`] without a base URL or a model; [`Error::Invalid`] for a bad
    /// URL or header.
    pub fn build(mut self) -> Result<HermesBackend, Error> {
        let base = self.common.base_url(None)?;
        let model = self.common.model()?;
        Ok(HermesBackend {
            http: self.common.http()?,
            url: format!("{base}/completions"),
            headers: self
                .common
                .headers(|key| ("authorization".to_owned(), format!("Bearer {key}")))?,
            model,
            options: self.options,
            grammar: self.grammar,
            temperature: self.common.temperature,
            max_tokens: self.common.max_tokens.unwrap_or(512),
        })
    }
}
