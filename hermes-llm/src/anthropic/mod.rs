//! Anthropic Messages: `tool_use` and `tool_result` blocks, streamed `input_json_delta`.

mod stream;
mod wire;

use async_trait::async_trait;
use futures_util::StreamExt;
use hermes_core::{ChatRequest, ChatResponse, DeltaStream, LlmBackend, LlmError};
use reqwest::header::HeaderMap;
use serde_json::{Map, Value, json};

use crate::Error;
use crate::config;
use crate::http::{self, Http};

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
        let parsed: wire::Response = self
            .http
            .post_for(
                &self.url,
                &self.headers,
                &body,
                request.deadline,
                "a message",
            )
            .await?;
        Ok(parsed.into_response())
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

/// Configures an [`AnthropicBackend`]; see [`AnthropicBackend::builder`].
#[derive(Debug, Default)]
#[must_use]
pub struct AnthropicBuilder {
    common: config::Common,
}

impl AnthropicBuilder {
    config::common_setters!();

    /// Finish. The base URL defaults to `https://api.anthropic.com`, the most tokens to
    /// 4096 (the API requires a value); the key goes in `x-api-key`.
    ///
    /// # Errors
    ///
    /// [`Error::Missing`] without a model; [`Error::Invalid`] for a bad URL or key.
    pub fn build(mut self) -> Result<AnthropicBackend, Error> {
        let model = self.common.model()?;
        let base = self.common.base_url(Some(config::ANTHROPIC_BASE_URL))?;
        self.common
            .headers
            .push(("anthropic-version".to_owned(), VERSION.to_owned()));
        Ok(AnthropicBackend {
            http: self.common.http()?,
            url: format!("{base}/v1/messages"),
            headers: self
                .common
                .headers(|key| ("x-api-key".to_owned(), key.to_owned()))?,
            model,
            max_tokens: self.common.max_tokens.unwrap_or(4096),
            temperature: self.common.temperature,
        })
    }
}
