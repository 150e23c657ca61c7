//! The agent loop against a misbehaving OpenAI-compatible server on 127.0.0.1: rate
//! limits, server errors, resets, broken and cut streams, a slow server. Each run ends
//! in a retry that succeeds or a clear `failed`/`timeout` status, never a panic or a
//! hang, and no tool call runs twice because a request was retried. A huge error page
//! costs the client no more than its first kilobytes.
//!
//! Each fault runs twice: over whole answers and over the streamed path.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

mod support;

#[path = "faults/broken.rs"]
mod broken;
#[path = "faults/memory.rs"]
mod memory;
#[path = "faults/retries.rs"]
mod retries;
#[path = "faults/slow.rs"]
mod slow;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hermes_core::{Agent, AgentBuilder, AgentOutcome, RunStatus};
use hermes_llm::{OpenAiBackend, RetryPolicy};
use serde_json::Value;
use support::server::{FaultServer, Reply};
use support::streamed::Streamed;
use support::wire::{self, Call};

/// The safety net around every run: far longer than any of them needs.
const HANG: Duration = Duration::from_secs(20);

/// Whole answers (`complete`) or the streamed path (`stream`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Whole,
    Streamed,
}

const MODES: [Mode; 2] = [Mode::Whole, Mode::Streamed];

/// Retries with a 5 ms first wait.
fn quick_retries(attempts: u32) -> RetryPolicy {
    RetryPolicy::new(attempts, Duration::from_millis(5))
}

fn openai(server: &FaultServer, retry: RetryPolicy) -> OpenAiBackend {
    OpenAiBackend::builder()
        .base_url(&server.base_url)
        .api_key("sk-test")
        .model("m")
        .retry(retry)
        .build()
        .unwrap()
}

/// An agent over `backend` in `mode`, with a counting `echo` tool.
fn agent(mode: Mode, backend: OpenAiBackend, runs: &Arc<AtomicUsize>) -> AgentBuilder {
    let builder = Agent::builder()
        .registry(support::tools::echo_registry(runs.clone()))
        .max_rounds(4);
    match mode {
        Mode::Whole => builder.backend(backend),
        Mode::Streamed => builder.backend(Streamed(backend)),
    }
}

/// Run `agent` under the safety net.
async fn run(agent: &Agent) -> AgentOutcome {
    support::within(HANG, agent.run("go")).await
}

/// A reply calling tools, in the mode's shape.
fn calls(mode: Mode, calls: &[Call<'_>]) -> Reply {
    match mode {
        Mode::Whole => Reply::Json(wire::calls(calls)),
        Mode::Streamed => Reply::sse(&wire::streamed_calls(calls)),
    }
}

/// A reply with a final text, in the mode's shape.
fn text(mode: Mode, content: &str) -> Reply {
    match mode {
        Mode::Whole => Reply::Json(wire::text(content)),
        Mode::Streamed => Reply::sse(&wire::streamed_text(content)),
    }
}

fn runs_of(runs: &AtomicUsize) -> usize {
    runs.load(Ordering::SeqCst)
}

/// The tool messages of a request body: `(tool_call_id, content)`.
fn tool_results(body: &Value) -> Vec<(String, String)> {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|message| message["role"] == "tool")
        .map(|message| {
            (
                message["tool_call_id"].as_str().unwrap().to_owned(),
                message["content"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

/// Assert the run completed with `answer` and a transcript whose call ids pair up.
fn assert_completed(outcome: &AgentOutcome, answer: &str, mode: Mode) {
    assert_eq!(
        outcome.status,
        RunStatus::Completed,
        "{mode:?}: {:?}\n{}",
        outcome.error,
        outcome.trace()
    );
    assert_eq!(outcome.answer.as_deref(), Some(answer), "{mode:?}");
    support::transcript::check_call_ids(&outcome.messages).unwrap();
}

/// Assert the run failed with an error that says `says`, its transcript still valid.
fn assert_failed(outcome: &AgentOutcome, says: &str, mode: Mode) {
    assert_eq!(
        outcome.status,
        RunStatus::Failed,
        "{mode:?}: {}",
        outcome.trace()
    );
    let error = outcome.error.as_deref().unwrap_or_default();
    assert!(error.contains(says), "{mode:?}: `{says}` not in: {error}");
    support::transcript::check_call_ids(&outcome.messages).unwrap();
}
