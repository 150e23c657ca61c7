//! hermes-llm: the model backends of [hermes](https://github.com/hermes-rs/hermes).
//!
//! Each backend is a value implementing hermes-core's
//! [`LlmBackend`](hermes_core::LlmBackend); the agent holds it and never knows which
//! one it talks to.
//!
//! - [`OpenAiBackend`]: OpenAI-compatible Chat Completions (OpenAI, OpenRouter, Nous
//!   Portal, vLLM, llama.cpp, llama-cpp-python, Ollama, LM Studio), whole and streamed.
//! - [`HermesBackend`]: the Hermes text format over a plain completions endpoint: it
//!   renders the ChatML prompt, parses `<tool_call>` blocks ([`hermes::parser`]), and
//!   can send a GBNF grammar so small local models answer in the format.
//! - [`AnthropicBackend`]: Anthropic Messages (`tool_use` / `tool_result`).
//! - `LocalBackend` (feature `local`): a GGUF model run in-process by llama.cpp, with
//!   tool calls constrained by a grammar built from the tool schemas; no server.
//!
//! Requests retry with backoff on 429, 5xx and connection errors, honour
//! `Retry-After`, and stop at the run's deadline; errors carry what the server said.
//!
//! ```no_run
//! use hermes_core::{Agent, Registry, demo::Calc};
//! use hermes_llm::OpenAiBackend;
//!
//! # async fn run() -> Result<(), Box<dyn std::error::Error>> {
//! let registry = Registry::new();
//! registry.register(Calc::new())?;
//! let backend = OpenAiBackend::from_env()?;
//! let agent = Agent::builder().backend(backend).registry(registry).build()?;
//! let outcome = agent.run("What is 17 * 23?").await;
//! println!("{}", outcome.answer.unwrap_or_default());
//! # Ok(())
//! # }
//! ```
//!
//! # Features
//!
//! - `rustls` (default): HTTPS with rustls and the ring provider.
//! - `local`: `LocalBackend`; compiles llama.cpp (`llama-cpp-2`, minutes; needs cmake
//!   and libclang-dev).

mod anthropic;
mod config;
mod error;
pub mod hermes;
mod http;
#[cfg(feature = "local")]
pub mod local;
mod openai;

pub use anthropic::{AnthropicBackend, AnthropicBuilder};
pub use config::{ANTHROPIC_BASE_URL, DEFAULT_TIMEOUT, OPENAI_BASE_URL, Settings};
pub use error::Error;
pub use hermes::{HermesBackend, HermesBuilder};
pub use http::RetryPolicy;
#[cfg(feature = "local")]
pub use local::{LocalBackend, LocalBuilder, MODEL_PATH_ENV};
pub use openai::{OpenAiBackend, OpenAiBuilder};

/// Internals the fuzz targets in `fuzz/` drive; not part of the API, may change at any time.
#[doc(hidden)]
pub mod __fuzz {
    use futures_util::{Stream, StreamExt};

    /// One server-sent event as the streaming backends see it: its `event:` name and
    /// its `data:` lines joined.
    pub type SseEvent = (Option<String>, String);

    /// The events the SSE decoder reads from `response`'s body, chunk by chunk as the
    /// body arrives; a transport error as its message.
    pub fn sse_events(
        response: reqwest::Response,
    ) -> impl Stream<Item = Result<SseEvent, String>> + Send {
        crate::http::events(response).map(|item| {
            item.map(|event| (event.event, event.data))
                .map_err(|error| error.to_string())
        })
    }
}
