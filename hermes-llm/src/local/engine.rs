//! The model's own thread: it owns the llama.cpp context, takes generation jobs from a
//! queue one at a time (one model instance serves any number of runs), and streams
//! each job's text back. The async runtime never runs model code.

use std::num::NonZeroU32;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, Sender, channel};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;

use llama_cpp_2::context::LlamaContext;
use llama_cpp_2::context::params::LlamaContextParams;
use llama_cpp_2::llama_backend::LlamaBackend;
use llama_cpp_2::llama_batch::LlamaBatch;
use llama_cpp_2::model::LlamaModel;
use llama_cpp_2::model::params::LlamaModelParams;
use llama_cpp_2::sampling::LlamaSampler;
use llama_cpp_2::token::LlamaToken;
use tokio::sync::mpsc::UnboundedSender;

use super::template::Template;
use crate::Error;

/// Tokens decoded per batch while reading the prompt.
const BATCH: usize = 512;

/// How a job picks tokens.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sampling {
    /// 0: always the likeliest token (reproducible).
    pub(crate) temperature: f32,
    /// The random seed when `temperature` is above 0.
    pub(crate) seed: u32,
    /// The most tokens generated.
    pub(crate) max_tokens: u32,
}

/// One generation.
pub(crate) struct Job {
    /// The rendered prompt, special tokens written as text.
    pub(crate) prompt: String,
    /// A GBNF grammar (root rule `root`) every token must follow.
    pub(crate) grammar: Option<String>,
    pub(crate) sampling: Sampling,
    /// Where the text goes; when its receiver is gone, generation stops.
    pub(crate) out: UnboundedSender<Piece>,
}

/// What a job sends back.
#[derive(Debug)]
pub(crate) enum Piece {
    /// More text (whole UTF-8 characters).
    Text(String),
    /// Generation ended.
    Done {
        prompt_tokens: u64,
        completion_tokens: u64,
        /// `stop` (end of turn) or `length` (max_tokens reached).
        reason: &'static str,
    },
    /// Generation failed.
    Failed(String),
}

/// The loaded model and its worker thread.
#[derive(Debug)]
pub(crate) struct Engine {
    jobs: Sender<Job>,
    model: Arc<LlamaModel>,
    template: Template,
    /// Tokens generated and prompt tokens read since the model loaded, all jobs.
    counters: Arc<Counters>,
    _worker: JoinHandle<()>,
}

/// Running totals of a model's work.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    /// Tokens generated.
    pub(crate) generated: AtomicU64,
    /// Prompt tokens read (those a job reused from the cache are not).
    pub(crate) read: AtomicU64,
}

/// Settings fixed when the model loads.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Settings {
    pub(crate) threads: u32,
    pub(crate) context: u32,
}

/// llama.cpp's process-wide initialisation, done once.
fn backend() -> Result<&'static LlamaBackend, Error> {
    static BACKEND: OnceLock<Result<LlamaBackend, String>> = OnceLock::new();
    BACKEND
        .get_or_init(|| {
            llama_cpp_2::send_logs_to_tracing(llama_cpp_2::LogOptions::default());
            LlamaBackend::init().map_err(|error| error.to_string())
        })
        .as_ref()
        .map_err(|reason| Error::Model {
            path: String::new(),
            reason: format!("llama.cpp did not start: {reason}"),
        })
}

impl Engine {
    /// Load the GGUF file at `path` and start its thread. Blocks while the model loads.
    pub(crate) fn load(path: &Path, settings: Settings) -> Result<Self, Error> {
        let shown = path.display().to_string();
        let failed = |reason: String| Error::Model {
            path: shown.clone(),
            reason,
        };
        if !path.is_file() {
            return Err(failed(
                "no such file; run scripts/fetch-model, or set HERMES_MODEL_PATH to a GGUF file"
                    .to_owned(),
            ));
        }
        let backend = backend()?;
        let model = LlamaModel::load_from_file(backend, path, &LlamaModelParams::default())
            .map_err(|error| failed(format!("llama.cpp could not load it: {error}")))?;
        let model = Arc::new(model);
        let template = Template::of(&model);
        tracing::debug!(template = template.name(), path = %shown, "local model loaded");
        let (jobs, queue) = channel::<Job>();
        let (ready, started) = channel::<Result<(), String>>();
        let worker_model = Arc::clone(&model);
        let counters = Arc::new(Counters::default());
        let counter = Arc::clone(&counters);
        let worker = std::thread::Builder::new()
            .name("hermes-local-model".to_owned())
            .spawn(move || work(backend, &worker_model, settings, &queue, &ready, &counter))
            .map_err(|error| failed(format!("could not start the model's thread: {error}")))?;
        match started.recv() {
            Ok(Ok(())) => Ok(Self {
                jobs,
                model,
                template,
                counters,
                _worker: worker,
            }),
            Ok(Err(reason)) => Err(failed(reason)),
            Err(_) => Err(failed("the model's thread ended while starting".to_owned())),
        }
    }

    /// The prompt for a request, in this model's template.
    pub(crate) fn render(
        &self,
        messages: &[hermes_core::Message],
        tools: &[serde_json::Value],
        choice: &hermes_core::ToolChoice,
    ) -> Result<String, String> {
        self.template.render(&self.model, messages, tools, choice)
    }

    /// What the model has done since it loaded.
    pub(crate) fn counters(&self) -> &Counters {
        &self.counters
    }

    /// Queue `job`; its pieces arrive on `job.out`.
    pub(crate) fn submit(&self, job: Job) {
        if let Err(error) = self.jobs.send(job) {
            let _ = error
                .0
                .out
                .send(Piece::Failed("the model's thread has stopped".to_owned()));
        }
    }
}

/// The worker: one context, jobs in arrival order, until the engine is dropped.
fn work(
    backend: &LlamaBackend,
    model: &LlamaModel,
    settings: Settings,
    queue: &Receiver<Job>,
    ready: &Sender<Result<(), String>>,
    counters: &Counters,
) {
    let threads = i32::try_from(settings.threads.max(1)).unwrap_or(1);
    let params = LlamaContextParams::default()
        .with_n_ctx(NonZeroU32::new(settings.context))
        .with_n_batch(u32::try_from(BATCH).unwrap_or(512))
        .with_n_threads(threads)
        .with_n_threads_batch(threads);
    let mut context = match model.new_context(backend, params) {
        Ok(context) => context,
        Err(error) => {
            let _ = ready.send(Err(format!(
                "llama.cpp could not create a context: {error}"
            )));
            return;
        }
    };
    let _ = ready.send(Ok(()));
    let mut cache = Cache::default();
    while let Ok(job) = queue.recv() {
        let out = job.out.clone();
        let result = generate(model, &mut context, &mut cache, job, counters);
        if !matches!(result, Ok(Some(_))) {
            // A failed or cancelled job may leave the cache part written: start afresh.
            context.clear_kv_cache();
            cache.tokens.clear();
        }
        match result {
            Ok(Some(done)) => {
                let _ = out.send(done);
            }
            Ok(None) => {} // cancelled: nobody is listening
            Err(reason) => {
                let _ = out.send(Piece::Failed(reason));
            }
        }
    }
}

/// The tokens whose keys and values the context holds, in position order: the last
/// job's prompt and answer. An agent's next request repeats them and adds a little, so
/// only what differs is read again.
#[derive(Debug, Default)]
struct Cache {
    tokens: Vec<LlamaToken>,
}

impl Cache {
    /// Keep the longest prefix `prompt` shares with the cache (at least one prompt token
    /// left to read, for its logits); drop the rest from the context. Returns the
    /// position reading starts at.
    fn reuse(&mut self, context: &mut LlamaContext<'_>, prompt: &[LlamaToken]) -> usize {
        let shared = self
            .tokens
            .iter()
            .zip(prompt)
            .take_while(|(cached, new)| cached == new)
            .count()
            .min(prompt.len().saturating_sub(1));
        let dropped = u32::try_from(shared)
            .ok()
            .and_then(|from| context.clear_kv_cache_seq(Some(0), Some(from), None).ok())
            == Some(true);
        if dropped {
            self.tokens.truncate(shared);
            shared
        } else {
            context.clear_kv_cache();
            self.tokens.clear();
            0
        }
    }
}

/// Run one job. `Ok(None)` when it was cancelled (its receiver dropped).
fn generate(
    model: &LlamaModel,
    context: &mut LlamaContext<'_>,
    cache: &mut Cache,
    job: Job,
    counters: &Counters,
) -> Result<Option<Piece>, String> {
    let vocab = model.vocab();
    let prompt = vocab.tokenize(job.prompt.as_bytes(), true, true);
    let room = context.n_ctx() as usize;
    if prompt.len() + 1 >= room {
        return Err(format!(
            "the conversation is {} tokens, and the model's context holds {room}; start a new conversation or load the model with a larger context",
            prompt.len()
        ));
    }
    let mut sampler = sampler(model, &job)?;
    let mut batch = LlamaBatch::new(BATCH, 1);
    let last = prompt.len() - 1;
    let start = cache.reuse(context, &prompt);
    for (chunk_index, chunk) in prompt[start..].chunks(BATCH).enumerate() {
        if job.out.is_closed() {
            return Ok(None);
        }
        batch.clear();
        for (offset, token) in chunk.iter().enumerate() {
            let position = start + chunk_index * BATCH + offset;
            batch
                .add(*token, position_of(position)?, &[0], position == last)
                .map_err(|error| error.to_string())?;
        }
        context
            .decode(&mut batch)
            .map_err(|error| format!("llama.cpp could not read the prompt: {error}"))?;
        counters
            .read
            .fetch_add(chunk.len() as u64, Ordering::Relaxed);
    }
    cache.tokens.clone_from(&prompt);
    let limit = (job.sampling.max_tokens as usize).min(room - prompt.len() - 1);
    let mut text = Utf8Pieces::default();
    let mut position = prompt.len();
    let mut generated = 0;
    let reason = loop {
        if job.out.is_closed() {
            return Ok(None);
        }
        let token = sampler.sample(context, batch.n_tokens() - 1);
        if vocab.is_eog(token) {
            break "stop";
        }
        generated += 1;
        counters.generated.fetch_add(1, Ordering::Relaxed);
        let piece = vocab.token_to_piece(token, false, None);
        if let Some(chunk) = text.push(&piece) {
            let _ = job.out.send(Piece::Text(chunk));
        }
        if generated >= limit {
            break "length";
        }
        batch.clear();
        batch
            .add(token, position_of(position)?, &[0], true)
            .map_err(|error| error.to_string())?;
        cache.tokens.push(token);
        position += 1;
        context
            .decode(&mut batch)
            .map_err(|error| format!("llama.cpp failed while generating: {error}"))?;
    };
    if let Some(rest) = text.finish() {
        let _ = job.out.send(Piece::Text(rest));
    }
    Ok(Some(Piece::Done {
        prompt_tokens: prompt.len() as u64,
        completion_tokens: generated as u64,
        reason,
    }))
}

fn position_of(position: usize) -> Result<i32, String> {
    i32::try_from(position).map_err(|_| "the conversation is too long".to_owned())
}

/// The job's sampler: its grammar first (so only allowed tokens remain), then the
/// likeliest token, or a draw at the temperature.
fn sampler(model: &LlamaModel, job: &Job) -> Result<LlamaSampler, String> {
    let mut chain = Vec::new();
    if let Some(grammar) = &job.grammar {
        chain.push(
            LlamaSampler::grammar(model, grammar, "root")
                .map_err(|error| format!("the tool-call grammar was refused: {error}"))?,
        );
    }
    if job.sampling.temperature > 0.0 {
        chain.push(LlamaSampler::top_k(40));
        chain.push(LlamaSampler::temp(job.sampling.temperature));
        chain.push(LlamaSampler::dist(job.sampling.seed));
    } else {
        chain.push(LlamaSampler::greedy());
    }
    Ok(LlamaSampler::chain_simple(chain))
}

/// Token bytes to text: a character split across tokens is held until it is whole.
#[derive(Debug, Default)]
struct Utf8Pieces {
    held: Vec<u8>,
}

impl Utf8Pieces {
    /// The text `bytes` complete, if any.
    fn push(&mut self, bytes: &[u8]) -> Option<String> {
        self.held.extend_from_slice(bytes);
        let whole = match std::str::from_utf8(&self.held) {
            Ok(_) => self.held.len(),
            // An incomplete character at the end: keep it for the next token.
            Err(error) if error.error_len().is_none() => error.valid_up_to(),
            // Invalid bytes: let them through, replaced.
            Err(_) => self.held.len(),
        };
        if whole == 0 {
            return None;
        }
        let rest = self.held.split_off(whole);
        let text = String::from_utf8_lossy(&self.held).into_owned();
        self.held = rest;
        Some(text)
    }

    /// What is still held, replaced where it is not UTF-8.
    fn finish(&mut self) -> Option<String> {
        (!self.held.is_empty())
            .then(|| String::from_utf8_lossy(&std::mem::take(&mut self.held)).into_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn characters_split_across_tokens_come_out_whole() {
        let mut pieces = Utf8Pieces::default();
        let euro = "€".as_bytes();
        assert_eq!(pieces.push(b"a"), Some("a".to_owned()));
        assert_eq!(pieces.push(&euro[..1]), None);
        assert_eq!(pieces.push(&euro[1..]), Some("€".to_owned()));
        assert_eq!(pieces.push(&[0xff]), Some("\u{fffd}".to_owned()));
        assert_eq!(pieces.push(&euro[..2]), None);
        assert_eq!(pieces.finish(), Some("\u{fffd}".to_owned()));
    }
}
