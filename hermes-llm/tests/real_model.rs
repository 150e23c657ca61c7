//! End to end against a real model server: SmolLM2-135M served by llama-cpp-python
//! (`scripts/local-model`), reached through `HERMES_TEST_BASE_URL`. The assertions are
//! on the protocol (a call parsed, run, fed back, the run completing), not on the
//! wisdom of a 135M model's answers. Requests go one at a time: the server is
//! single-threaded. Without the variable these tests skip loudly, unless `CI` is set:
//! then they fail.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    missing_docs
)]

mod support;

use hermes_llm::{HermesBackend, OpenAiBackend};
use support::{agent_round_trip, streamed_forced_call};
use tokio::sync::Mutex;

static ONE_AT_A_TIME: Mutex<()> = Mutex::const_new(());

fn base_url() -> Option<String> {
    match std::env::var("HERMES_TEST_BASE_URL") {
        Ok(url) if !url.trim().is_empty() => Some(url),
        _ if std::env::var_os("CI").is_some() => {
            panic!(
                "CI is set but HERMES_TEST_BASE_URL is not: start the model with scripts/local-model (scripts/test does)"
            )
        }
        _ => {
            eprintln!(
                "\n*** SKIPPED: no local model server. Run `export HERMES_TEST_BASE_URL=$(scripts/local-model)` to run the real-model tests. ***\n"
            );
            None
        }
    }
}

fn openai(url: &str) -> OpenAiBackend {
    OpenAiBackend::builder()
        .base_url(url)
        .model("smollm2")
        .temperature(0.0)
        .max_tokens(96)
        .build()
        .unwrap()
}

fn hermes(url: &str) -> HermesBackend {
    HermesBackend::builder()
        .base_url(url)
        .model("smollm2")
        .grammar(true)
        .temperature(0.0)
        .max_tokens(96)
        .build()
        .unwrap()
}

/// Run an agent that must call `add` first, then answer; check the protocol.
#[tokio::test]
async fn openai_backend_agent_round_trip() {
    let Some(url) = base_url() else { return };
    let _turn = ONE_AT_A_TIME.lock().await;
    agent_round_trip(openai(&url)).await;
}

#[tokio::test]
async fn openai_backend_streams_a_forced_call() {
    let Some(url) = base_url() else { return };
    let _turn = ONE_AT_A_TIME.lock().await;
    streamed_forced_call(openai(&url)).await;
}

#[tokio::test]
async fn hermes_backend_agent_round_trip_with_a_grammar() {
    let Some(url) = base_url() else { return };
    let _turn = ONE_AT_A_TIME.lock().await;
    agent_round_trip(hermes(&url)).await;
}

#[tokio::test]
async fn hermes_backend_streams_a_forced_call() {
    let Some(url) = base_url() else { return };
    let _turn = ONE_AT_A_TIME.lock().await;
    streamed_forced_call(hermes(&url)).await;
}
