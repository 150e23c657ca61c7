//! Anthropic Messages: `tool_use` and `tool_result` blocks, streamed `input_json_delta`.

mod stream;
mod wire;

use std::time::Duration;

use async_trait::async_trait;
use futures_util::StreamExt;
use hermes_core::{ChatRequest, ChatResponse, DeltaStream, LlmBackend, LlmError};
use reqwest::header::HeaderMap;
use serde_json::{Map, Value, json};

use crate::Error;
use crate::config;
use crate::http::{self, Http, RetryPolicy};

/// The API version sent in `anthropic-version`.
const VERSION: &str = "2023-06-01";

/// An Anthropic Messages backend.
///
/// ```no_run
/// use hermes_llm::AnthropicBackend;
///
/// let backend = AnthropicBackend::builder()
///     .api_key(std::env::var("ANTHROPIC_API_KEY").unwrap_or_default())
///     .model("claude-sonnet-4-5")
///     .build()?;
/// # Ok::<(), hermes_llm::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct AnthropicBackend {
    http: Http,
    url: String,
    headers: HeaderMap,
    model: String,
    max_tokens: u32,
    temperature: Option<f32>,
}

impl AnthropicBackend {
    /// Configure a backend.
    pub fn builder() -> AnthropicBuilder {
        AnthropicBuilder::default()
    }

    fn body(&self, request: &ChatRequest<'_>, stream: bool) -> Value {
        let (system, messages) = wire::conversation(request.messages);
        let mut body = Map::new();
        body.insert("model".into(), Value::String(self.model.clone()));
        body.insert("max_tokens".into(), json!(self.max_tokens));
        if let Some(system) = system {
            body.insert("system".into(), Value::String(system));
        }
        body.insert("messages".into(), Value::Array(messages));
        if !request.tools.is_empty() {
            body.insert("tools".into(), Value::Array(wire::tools(request.tools)));
            body.insert("tool_choice".into(), wire::tool_choice(request.tool_choice));
        }
        if let Some(temperature) = self.temperature {
            body.insert("temperature".into(), json!(temperature));
        }
        if stream {
            body.insert("stream".into(), Value::Bool(true));
        }
        Value::Object(body)
    }
}

#[async_trait]
impl LlmBackend for AnthropicBackend {
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
        let parsed: wire::Response =
            serde_json::from_str(&text).map_err(|error| LlmError::InvalidResponse {
                message: format!(
                    "the answer is not a message ({error}): {}",
                    http::server_message(&text)
                ),
            })?;
        Ok(parsed.into_response())
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

/// Configures an [`AnthropicBackend`]; see [`AnthropicBackend::builder`].
#[derive(Debug, Default)]
#[must_use]
pub struct AnthropicBuilder {
    base_url: Option<String>,
    api_key: Option<String>,
    model: Option<String>,
    max_tokens: Option<u32>,
    temperature: Option<f32>,
    retry: RetryPolicy,
    timeout: Option<Duration>,
}

impl AnthropicBuilder {
    /// The API root (default `https://api.anthropic.com`).
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// The API key (`x-api-key`).
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The model name.
    pub fn model(mut self, model: impl Into<String>) -> Self {
        self.model = Some(model.into());
        self
    }

    /// Most tokens to generate (default 4096; the API requires a value).
    pub fn max_tokens(mut self, max_tokens: u32) -> Self {
        self.max_tokens = Some(max_tokens);
        self
    }

    /// Sampling temperature.
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = Some(temperature);
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
    /// [`Error::Missing`] without a model; [`Error::Invalid`] for a bad URL or key.
    pub fn build(self) -> Result<AnthropicBackend, Error> {
        let model = self.model.ok_or(Error::Missing {
            what: "the model",
            hint: "call `model` on the builder",
        })?;
        let base = config::check_base_url(
            self.base_url
                .as_deref()
                .unwrap_or(config::ANTHROPIC_BASE_URL),
        )?;
        let mut pairs = vec![("anthropic-version".to_owned(), VERSION.to_owned())];
        if let Some(key) = self.api_key {
            pairs.push(("x-api-key".to_owned(), key));
        }
        Ok(AnthropicBackend {
            http: Http::new(self.retry, self.timeout.unwrap_or(config::DEFAULT_TIMEOUT))?,
            url: format!("{base}/v1/messages"),
            headers: http::headers(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str())))?,
            model,
            max_tokens: self.max_tokens.unwrap_or(4096),
            temperature: self.temperature,
        })
    }
}
