//! OpenAI-compatible Chat Completions: OpenAI, OpenRouter, Nous Portal, vLLM, llama.cpp's
//! server, llama-cpp-python, Ollama, LM Studio.

mod stream;
mod wire;

use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use hermes_core::{ChatRequest, ChatResponse, DeltaStream, LlmBackend, LlmError};
use reqwest::header::HeaderMap;
use serde_json::{Map, Value, json};

use crate::Error;
use crate::config::{self, Settings};
use crate::http::{self, Http, RetryPolicy};

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
        let response = self
            .http
            .post(&self.url, &self.headers, &body, request.deadline)
            .await?;
        let text = response.text().await.map_err(|error| LlmError::Transport {
            message: "the connection broke while reading the answer".to_owned(),
            source: Some(Box::new(error)),
        })?;
        let completion: wire::Completion =
            serde_json::from_str(&text).map_err(|error| LlmError::InvalidResponse {
                message: format!(
                    "the answer is not a chat completion ({error}): {}",
                    http::server_message(&text)
                ),
            })?;
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
        Ok(stream::deltas(http::events(response)).boxed())
    }
}

/// Configures an [`OpenAiBackend`]; see [`OpenAiBackend::builder`].
#[derive(Debug, Default)]
#[must_use]
pub struct OpenAiBuilder {
    base_url: Option<String>,
    api_key: Option<String>,
    model: Option<String>,
    headers: Vec<(String, String)>,
    parallel_tool_calls: Option<bool>,
    temperature: Option<f32>,
    max_tokens: Option<u32>,
    retry: RetryPolicy,
    timeout: Option<Duration>,
}

impl OpenAiBuilder {
    /// The API root, as `https://api.openai.com/v1` or `http://127.0.0.1:8080/v1`.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The API key, sent as a bearer token.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The model name.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// An extra header (OpenRouter's `HTTP-Referer`, a proxy's key...).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Send `parallel_tool_calls` (unset: the server's default).
    pub fn parallel_tool_calls(mut self, parallel: bool) -> Self {
        self.parallel_tool_calls = Some(parallel);
        self
    }

    /// Sampling temperature (unset: the server's default).
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
        self
    }

    /// Most tokens to generate (unset: the server's default).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// How failed requests are retried (default: 4 attempts, from 500 ms).
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
    /// [`Error::Missing`] without a model; [`Error::Invalid`] for a bad URL or header.
    pub fn build(self) -> Result<OpenAiBackend, Error> {
        let model = self.model.ok_or(Error::Missing {
            what: "the model",
            hint: "call `model` on the builder (or set HERMES_MODEL)",
        })?;
        let base =
            config::check_base_url(self.base_url.as_deref().unwrap_or(config::OPENAI_BASE_URL))?;
        let mut pairs: Vec<(String, String)> = self.headers;
        if let Some(key) = &self.api_key {
            pairs.push(("authorization".to_owned(), format!("Bearer {key}")));
        }
        let headers = http::headers(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))?;
        Ok(OpenAiBackend {
            http: Http::new(self.retry, self.timeout.unwrap_or(config::DEFAULT_TIMEOUT))?,
            url: format!("{base}/chat/completions"),
            headers,
            model,
            parallel_tool_calls: self.parallel_tool_calls,
            temperature: self.temperature,
            max_tokens: self.max_tokens,
        })
    }
}
