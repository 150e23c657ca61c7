//! OpenAI-compatible Chat Completions: OpenAI, OpenRouter, Nous Portal, vLLM, llama.cpp's
//! server, llama-cpp-python, Ollama, LM Studio.

mod stream;
mod wire;

use async_trait::async_trait;
use futures_util::StreamExt;
use hermes_core::{ChatRequest, ChatResponse, DeltaStream, LlmBackend, LlmError};
use reqwest::header::HeaderMap;
use serde_json::{Map, Value, json};

use crate::Error;
use crate::config::{self, Settings};
use crate::http::{self, Http};

/// A Chat Completions backend.
///
/// ```no_run
/// use hermes_llm::OpenAiBackend;
///
/// let local = OpenAiBackend::builder()
///     .base_url("http://127.0.0.1:8080/v1")
///     .model("smollm2")
///     .build()?;
/// let from_env = OpenAiBackend::from_env()?; // HERMES_BASE_URL / HERMES_API_KEY / HERMES_MODEL
/// # Ok::<(), hermes_llm::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct OpenAiBackend {
    http: Http,
    url: String,
    headers: HeaderMap,
    model: String,
    parallel_tool_calls: Option<bool>,
    temperature: Option<f32>,
    max_tokens: Option<u32>,
}

impl OpenAiBackend {
    /// Configure a backend.
    pub fn builder() -> OpenAiBuilder {
        OpenAiBuilder::default()
    }

    /// A backend from the environment: `HERMES_BASE_URL`, `HERMES_API_KEY` and
    /// `HERMES_MODEL`, each falling back to `OPENAI_BASE_URL`, `OPENAI_API_KEY`,
    /// `OPENAI_MODEL`; the base URL defaults to OpenAI's.
    ///
    /// # Errors
    ///
    /// [`Error::Missing`] without a model; [`Error::Invalid`] for a bad URL.
    pub fn from_env() -> Result<Self, Error> {
        let settings = Settings::from_env();
        let mut builder = Self::builder().model(settings.model.ok_or(Error::Missing {
            what: "the model",
            hint: "set HERMES_MODEL (or OPENAI_MODEL)",
        })?);
        builder = builder.base_url(
            settings
                .base_url
                .unwrap_or_else(|| config::OPENAI_BASE_URL.to_owned()),
        );
        if let Some(key) = settings.api_key {
            builder = builder.api_key(key);
        }
        builder.build()
    }

    fn body(&self, request: &ChatRequest<'_>, stream: bool) -> Value {
        let mut body = Map::new();
        body.insert("model".into(), Value::String(self.model.clone()));
        body.insert(
            "messages".into(),
            Value::Array(wire::messages(request.messages)),
        );
        if !request.tools.is_empty() {
            body.insert("tools".into(), Value::Array(request.tools.to_vec()));
            body.insert(
                "tool_choice".into(),
                wire::tool_choice(request.tool_choice, request.tools),
            );
            if let Some(parallel) = self.parallel_tool_calls {
                body.insert("parallel_tool_calls".into(), Value::Bool(parallel));
            }
        }
        if let Some(temperature) = self.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        if let Some(max_tokens) = self.max_tokens {
            body.insert("max_tokens".into(), json!(max_tokens));
        }
        if stream {
            body.insert("stream".into(), Value::Bool(true));
            body.insert("stream_options".into(), json!({"include_usage": true}));
        }
        Value::Object(body)
    }
}

#[async_trait]
impl LlmBackend for OpenAiBackend {
    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        let body = self.body(&request, false);
        let completion: wire::Completion = self
            .http
            .post_for(
                &self.url,
                &self.headers,
                &body,
                request.deadline,
                "a chat completion",
            )
            .await?;
        completion
            .into_response()
            .ok_or_else(|| LlmError::InvalidResponse {
                message: "the answer has no choices".to_owned(),
            })
    }

    async fn stream(&self, request: ChatRequest<'_>) -> Result<DeltaStream, LlmError> {
        let body = self.body(&request, true);
        let response = self
            .http
            .post(&self.url, &self.headers, &body, request.deadline)
            .await?;
        Ok(http::deltas(http::events(response), stream::Reader::default()).boxed())
    }
}

/// Configures an [`OpenAiBackend`]; see [`OpenAiBackend::builder`].
#[derive(Debug, Default)]
#[must_use]
pub struct OpenAiBuilder {
    common: config::Common,
    parallel_tool_calls: Option<bool>,
}

impl OpenAiBuilder {
    config::common_setters!();

    /// Send `parallel_tool_calls` (unset: the server's default).
    pub fn parallel_tool_calls(mut self, parallel: bool) -> Self {
        self.parallel_tool_calls = Some(parallel);
        self
    }

    /// Finish.
    ///
    /// # Errors
    ///
    /// [`Error::Missing`] without a model; [`Error::Invalid`] for a bad URL or header.
    pub fn build(mut self) -> Result<OpenAiBackend, Error> {
        let model = self.common.model()?;
        let base = self.common.base_url(Some(config::OPENAI_BASE_URL))?;
        Ok(OpenAiBackend {
            http: self.common.http()?,
            url: format!("{base}/chat/completions"),
            headers: self
                .common
                .headers(|key| ("authorization".to_owned(), format!("Bearer {key}")))?,
            model,
            parallel_tool_calls: self.parallel_tool_calls,
            temperature: self.common.temperature,
            max_tokens: self.common.max_tokens,
        })
    }
}
