//! [`LocalBackend`]: a GGUF model run inside the process by llama.cpp — no server, no
//! Python, no network. Feature `local`.
//!
//! - The conversation is written in the Hermes format (tools in the system turn,
//!   `<tool_call>` blocks) through the model's own chat template when its GGUF has one
//!   that is not ChatML, else ChatML.
//! - When tools are offered, generation follows a grammar built from their schemas: the
//!   model writes either a plain answer or `<tool_call>` blocks whose name is one of the
//!   tools and whose arguments have that tool's shape, so even a 135M-parameter model
//!   makes calls that parse and validate. `tool_choice: required` or a named tool
//!   leaves only the blocks (for that tool); `none` lifts the grammar.
//! - The model runs on a thread of its own, never on the async runtime's workers. One
//!   loaded model serves every run that holds the backend (clones share it): requests
//!   queue and run one after the other. Dropping a stream (a cancelled run, a timeout)
//!   stops its generation at the next token.
//! - The context keeps the last prompt and answer: a request that starts the same way
//!   (the next round of an agent) reads only what is new.
//!
//! ```no_run
//! use hermes_llm::LocalBackend;
//!
//! // HERMES_MODEL_PATH, or a path in code; `scripts/fetch-model` fetches SmolLM2-135M.
//! let backend = LocalBackend::builder()
//!     .model_path("/models/SmolLM2-135M-Instruct.Q4_1.gguf")
//!     .threads(2)
//!     .build()?;
//! # Ok::<(), hermes_llm::Error>(())
//! ```

mod engine;
mod template;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use async_trait::async_trait;
use futures_util::StreamExt;
use futures_util::stream;
use hermes_core::{
    ChatDelta, ChatRequest, ChatResponse, DeltaStream, LlmBackend, LlmError, ToolChoice, Usage,
};
use serde_json::Value;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};

use crate::Error;
use crate::hermes::parser::{ParserOptions, parse};
use crate::hermes::transcript::{Transcript, response_from};
use crate::hermes::{answer_or_tool_calls_grammar, tool_call_grammar};
use engine::{Engine, Job, Piece, Sampling, Settings};

/// The environment variable naming the GGUF file when the builder is given none.
pub const MODEL_PATH_ENV: &str = "HERMES_MODEL_PATH";

/// A model run in-process; see the [module docs](self). Cheap to clone: clones share
/// the loaded model and its queue.
#[derive(Debug, Clone)]
pub struct LocalBackend {
    engine: Arc<Engine>,
    sampling: Sampling,
    path: PathBuf,
}

impl LocalBackend {
    /// Configure a backend.
    pub fn builder() -> LocalBuilder {
        LocalBuilder::default()
    }

    /// The same model with another answer length limit (clones share the model).
    #[must_use]
    pub fn with_max_tokens(&self, tokens: u32) -> Self {
        let mut clone = self.clone();
        clone.sampling.max_tokens = tokens.max(1);
        clone
    }

    /// Tokens the model has generated since it loaded, all runs together.
    pub fn tokens_generated(&self) -> u64 {
        self.engine.counters().generated.load(Ordering::Relaxed)
    }

    /// Prompt tokens the model has read since it loaded. A request that repeats the
    /// start of the previous one (an agent's next round) reads only the rest: the
    /// context keeps the last prompt and answer.
    pub fn prompt_tokens_read(&self) -> u64 {
        self.engine.counters().read.load(Ordering::Relaxed)
    }

    /// The GGUF file the model was loaded from.
    pub fn model_path(&self) -> &std::path::Path {
        &self.path
    }

    /// Render `request`, pick its grammar and queue it; the pieces arrive on the
    /// receiver.
    fn start(&self, request: &ChatRequest<'_>) -> Result<UnboundedReceiver<Piece>, LlmError> {
        let prompt = self
            .engine
            .render(request.messages, request.tools, request.tool_choice)
            .map_err(other)?;
        let grammar = grammar(request.tools, request.tool_choice);
        let (out, pieces) = unbounded_channel();
        self.engine.submit(Job {
            prompt,
            grammar,
            sampling: self.sampling,
            out,
        });
        Ok(pieces)
    }
}

/// The grammar for a request: none without tools (or with `none`); the named tool's
/// blocks only; any tool's blocks when a call is required; else an answer or calls.
fn grammar(tools: &[Value], choice: &ToolChoice) -> Option<String> {
    if tools.is_empty() {
        return None;
    }
    match choice {
        ToolChoice::None => None,
        ToolChoice::Required => Some(tool_call_grammar(tools)),
        ToolChoice::Function(name) => {
            let named: Vec<Value> = tools
                .iter()
                .filter(|tool| tool.pointer("/function/name").and_then(Value::as_str) == Some(name))
                .cloned()
                .collect();
            Some(tool_call_grammar(&named))
        }
        _ => Some(answer_or_tool_calls_grammar(tools)),
    }
}

fn other(message: String) -> LlmError {
    LlmError::Other {
        message,
        source: None,
    }
}

#[async_trait]
impl LlmBackend for LocalBackend {
    async fn complete(&self, request: ChatRequest<'_>) -> Result<ChatResponse, LlmError> {
        let mut pieces = self.start(&request)?;
        let mut text = String::new();
        while let Some(piece) = pieces.recv().await {
            match piece {
                Piece::Text(chunk) => text.push_str(&chunk),
                Piece::Done {
                    prompt_tokens,
                    completion_tokens,
                    reason,
                } => {
                    let outcome = parse(&text, ParserOptions::new());
                    for warning in &outcome.warnings {
                        tracing::warn!(warning, "hermes format");
                    }
                    let mut response = response_from(outcome, Some(reason));
                    response.usage = Some(Usage::new(prompt_tokens, completion_tokens));
                    return Ok(response);
                }
                Piece::Failed(message) => return Err(other(message)),
            }
        }
        Err(other("the model's thread stopped mid-answer".to_owned()))
    }

    async fn stream(&self, request: ChatRequest<'_>) -> Result<DeltaStream, LlmError> {
        let pieces = self.start(&request)?;
        let state = (pieces, Transcript::new(ParserOptions::new()), false);
        let deltas = stream::unfold(state, |(mut pieces, mut transcript, ended)| async move {
            if ended {
                return None;
            }
            let mut out = std::collections::VecDeque::new();
            let mut ended = false;
            match pieces.recv().await {
                Some(Piece::Text(chunk)) => transcript.push(&chunk, &mut out),
                Some(Piece::Done {
                    prompt_tokens,
                    completion_tokens,
                    reason,
                }) => {
                    transcript.finish(
                        Some(Usage::new(prompt_tokens, completion_tokens)),
                        Some(reason),
                        &mut out,
                    );
                    ended = true;
                }
                Some(Piece::Failed(message)) => {
                    return Some((vec![Err(other(message))], (pieces, transcript, true)));
                }
                None => {
                    return Some((
                        vec![Err(other(
                            "the model's thread stopped mid-answer".to_owned(),
                        ))],
                        (pieces, transcript, true),
                    ));
                }
            }
            let items: Vec<Result<ChatDelta, LlmError>> = out.into_iter().map(Ok).collect();
            Some((items, (pieces, transcript, ended)))
        })
        .flat_map(stream::iter);
        Ok(deltas.boxed())
    }
}

/// Configures a [`LocalBackend`]; see [`LocalBackend::builder`].
#[derive(Debug)]
#[must_use]
pub struct LocalBuilder {
    path: Option<PathBuf>,
    threads: Option<u32>,
    context: u32,
    max_tokens: u32,
    temperature: f32,
    seed: u32,
}

impl Default for LocalBuilder {
    fn default() -> Self {
        Self {
            path: None,
            threads: None,
            context: 4096,
            max_tokens: 512,
            temperature: 0.0,
            seed: 0x5EED,
        }
    }
}

impl LocalBuilder {
    /// The GGUF file (default: `HERMES_MODEL_PATH`).
    pub fn model_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// Threads for generation (default: the physical cores).
    pub fn threads(mut self, threads: u32) -> Self {
        self.threads = Some(threads.max(1));
        self
    }

    /// The context window in tokens: prompt and answer together (default 4096).
    pub fn context_size(mut self, tokens: u32) -> Self {
        self.context = tokens.max(256);
        self
    }

    /// The longest answer in tokens (default 512).
    pub fn max_tokens(mut self, tokens: u32) -> Self {
        self.max_tokens = tokens.max(1);
        self
    }

    /// Sampling temperature (default 0: always the likeliest token, reproducible).
    pub fn temperature(mut self, temperature: f32) -> Self {
        self.temperature = temperature.max(0.0);
        self
    }

    /// The seed when the temperature is above 0.
    pub fn seed(mut self, seed: u32) -> Self {
        self.seed = seed;
        self
    }

    /// Load the model (this blocks while it loads: from async code, call it inside
    /// `spawn_blocking`).
    ///
    /// # Errors
    ///
    /// [`Error::Missing`] without a path; [`Error::Model`] when the file is missing or
    /// llama.cpp cannot load it.
    pub fn build(self) -> Result<LocalBackend, Error> {
        let path = match self.path {
            Some(path) => path,
            None => std::env::var_os(MODEL_PATH_ENV)
                .filter(|value| !value.is_empty())
                .map(PathBuf::from)
                .ok_or(Error::Missing {
                    what: "the model path",
                    hint: "set HERMES_MODEL_PATH to a GGUF file (scripts/fetch-model prints one), or call LocalBuilder::model_path",
                })?,
        };
        let threads = self.threads.unwrap_or_else(physical_cores);
        let engine = Engine::load(
            &path,
            Settings {
                threads,
                context: self.context,
            },
        )?;
        Ok(LocalBackend {
            engine: Arc::new(engine),
            sampling: Sampling {
                temperature: self.temperature,
                seed: self.seed,
                max_tokens: self.max_tokens,
            },
            path,
        })
    }
}

/// Physical cores: distinct (package, core) pairs in /proc/cpuinfo on Linux, else the
/// available parallelism.
fn physical_cores() -> u32 {
    let logical = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
    let Ok(info) = std::fs::read_to_string("/proc/cpuinfo") else {
        return logical;
    };
    let mut cores = std::collections::HashSet::new();
    let mut package = "";
    for line in info.lines() {
        if let Some((key, value)) = line.split_once(':') {
            match key.trim() {
                "physical id" => package = value.trim(),
                "core id" => {
                    cores.insert((package.to_owned(), value.trim().to_owned()));
                }
                _ => {}
            }
        }
    }
    if cores.is_empty() {
        logical
    } else {
        u32::try_from(cores.len()).unwrap_or(logical)
    }
}
