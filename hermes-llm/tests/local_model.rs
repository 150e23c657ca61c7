//! The in-process backend on a real model: SmolLM2-135M (`scripts/fetch-model`), loaded
//! from `HERMES_MODEL_PATH`. Assertions are on the protocol, not on the answers' wisdom.
//! Without the variable these tests skip loudly, unless `CI` is set: then they fail.
#![cfg(feature = "local")]
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stderr,
    missing_docs
)]

mod support;

use std::sync::{Arc, OnceLock};

use futures_util::StreamExt;
use hermes_core::demo::Calc;
use hermes_core::{Agent, ChatRequest, LlmBackend, Message, Registry, RunStatus, ToolChoice};
use hermes_llm::LocalBackend;
use serde_json::Value;
use support::{add_tool, agent_round_trip, streamed_forced_call};

/// The tests share one model and read its counters: one test at a time.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// One model for the whole test binary, as an application would hold it.
fn model() -> Option<LocalBackend> {
    static MODEL: OnceLock<Option<LocalBackend>> = OnceLock::new();
    MODEL
        .get_or_init(|| match std::env::var("HERMES_MODEL_PATH") {
            Ok(path) if !path.trim().is_empty() => Some(
                LocalBackend::builder()
                    .model_path(path)
                    .threads(2)
                    .max_tokens(96)
                    .build()
                    .unwrap(),
            ),
            _ if std::env::var_os("CI").is_some() => panic!(
                "CI is set but HERMES_MODEL_PATH is not: `export HERMES_MODEL_PATH=$(scripts/fetch-model)` (scripts/test does)"
            ),
            _ => {
                eprintln!(
                    "\n*** SKIPPED: no local model. Run `export HERMES_MODEL_PATH=$(scripts/fetch-model)` to run the in-process model tests. ***\n"
                );
                None
            }
        })
        .clone()
}

#[tokio::test]
async fn a_missing_model_file_is_a_clear_error() {
    let error = LocalBackend::builder()
        .model_path("/nonexistent/model.gguf")
        .build()
        .unwrap_err();
    let message = error.to_string();
    assert!(message.contains("/nonexistent/model.gguf"), "{message}");
    assert!(message.contains("scripts/fetch-model"), "{message}");
}

#[tokio::test]
async fn it_loads_and_answers_in_text() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(backend) = model() else { return };
    let messages = [Message::user("Say hello in one short sentence.")];
    let response = backend
        .complete(ChatRequest::new(&messages, &[]))
        .await
        .unwrap();
    let text = response.message.content.clone().unwrap_or_default();
    assert!(!text.trim().is_empty(), "{response:?}");
    assert!(response.message.tool_calls.is_empty());
    let usage = response.usage.unwrap();
    assert!(
        usage.prompt_tokens > 5 && usage.completion_tokens > 0,
        "{usage:?}"
    );
}

#[tokio::test]
async fn a_forced_call_streams_and_validates_against_the_schema() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(backend) = model() else { return };
    streamed_forced_call(backend.clone()).await;
    // Every forced call, whole, matches the tool's schema: the grammar makes it so.
    let registry = add_tool(Arc::default());
    let tools = registry.schemas();
    let schema = registry.get("add").unwrap().spec().parameters().clone();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for prompt in ["Add 4 and 5.", "What is 100 plus -7?", "hello"] {
        let messages = [Message::user(prompt)];
        let choice = ToolChoice::Function("add".into());
        let request = ChatRequest::new(&messages, &tools).with_tool_choice(&choice);
        let response = backend.complete(request).await.unwrap();
        let call = response.message.tool_calls.first().unwrap();
        assert_eq!(call.name(), "add");
        let args: Value = serde_json::from_str(call.arguments()).unwrap();
        assert!(validator.is_valid(&args), "{prompt}: {args}");
    }
}

#[tokio::test]
async fn an_agent_run_with_the_calculator() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(backend) = model() else { return };
    let registry = Registry::new();
    registry.register(Calc::new()).unwrap();
    // Room for the longest string the grammar allows in an argument.
    let agent = Agent::builder()
        .backend(backend.with_max_tokens(256))
        .registry(registry)
        .tool_choice(ToolChoice::Function("calc".into()))
        .then_tool_choice(ToolChoice::None)
        .max_rounds(3)
        .build()
        .unwrap();
    let outcome = agent.run("What is 12 times 7? Use the calc tool.").await;
    assert_eq!(outcome.status, RunStatus::Completed, "{}", outcome.trace());
    let call = outcome
        .messages
        .iter()
        .find_map(|m| m.calls().first().cloned())
        .unwrap_or_else(|| panic!("no call: {}", outcome.trace()));
    assert_eq!(call.name(), "calc");
    let result = outcome
        .messages
        .iter()
        .find_map(|m| match m {
            Message::Tool(tool) if tool.tool_call_id == call.id => Some(tool.content.clone()),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no result for {}: {}", call.id, outcome.trace()));
    // The call was well formed and matched the schema, so the tool ran: its result, or
    // its own verdict on the expression (the model's arithmetic is not under test).
    let result: Value = serde_json::from_str(&result).unwrap();
    let kind = result.pointer("/error/kind").and_then(Value::as_str);
    assert!(
        matches!(kind, None | Some("failed")),
        "the call reached the tool: {result}"
    );
    assert!(outcome.answer.is_some(), "{}", outcome.trace());
}

#[tokio::test]
async fn the_add_round_trip_works_in_process_too() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(backend) = model() else { return };
    agent_round_trip(backend).await;
}

#[tokio::test]
async fn dropping_a_stream_stops_its_generation() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(backend) = model() else { return };
    let long = backend.with_max_tokens(1500);
    let messages = [Message::user(
        "Write the word hello two thousand times, separated by spaces.",
    )];
    let before = backend.tokens_generated();
    let mut stream = long.stream(ChatRequest::new(&messages, &[])).await.unwrap();
    let mut pieces = 0;
    while pieces < 5 {
        stream.next().await.unwrap().unwrap();
        pieces += 1;
    }
    drop(stream);
    // The queue runs one job at a time: this one starts only when the dropped one has
    // stopped. Had it run to its limit, 1500 tokens would be counted before this one.
    let short = backend.with_max_tokens(8);
    let quick = [Message::user("Hi")];
    short.complete(ChatRequest::new(&quick, &[])).await.unwrap();
    let spent = backend.tokens_generated() - before;
    assert!(
        spent < 200,
        "the dropped stream went on generating: {spent} tokens"
    );
}

#[tokio::test]
async fn two_runs_share_one_model() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(backend) = model() else { return };
    let first = [Message::user("Name a colour.")];
    let second = [Message::user("Name an animal.")];
    let (a, b) = tokio::join!(
        backend.complete(ChatRequest::new(&first, &[])),
        backend.complete(ChatRequest::new(&second, &[]))
    );
    let (a, b) = (a.unwrap(), b.unwrap());
    assert!(a.message.content.is_some() && b.message.content.is_some());
    assert!(a.usage.unwrap().completion_tokens > 0 && b.usage.unwrap().completion_tokens > 0);
}

#[tokio::test]
async fn a_repeated_start_is_read_once_and_answers_the_same() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(backend) = model() else { return };
    let backend = backend.with_max_tokens(24);
    let first = [Message::user("List three fruits.")];
    let a = backend
        .complete(ChatRequest::new(&first, &[]))
        .await
        .unwrap();
    let read = backend.prompt_tokens_read();
    let again = backend
        .complete(ChatRequest::new(&first, &[]))
        .await
        .unwrap();
    // The same prompt: all of it but its last token came from the cache, and greedy
    // decoding on the reused state gives the same answer.
    assert!(backend.prompt_tokens_read() - read <= 1 + again.usage.unwrap().prompt_tokens / 2);
    assert_eq!(a.message.content, again.message.content);
    // A longer conversation starting the same way reads only its new part.
    let longer = [
        Message::user("List three fruits."),
        Message::assistant(a.message.content.clone().unwrap_or_default()),
        Message::user("And three vegetables."),
    ];
    let read = backend.prompt_tokens_read();
    let next = backend
        .complete(ChatRequest::new(&longer, &[]))
        .await
        .unwrap();
    let total = next.usage.unwrap().prompt_tokens;
    assert!(
        backend.prompt_tokens_read() - read < total,
        "read {} of {total}",
        backend.prompt_tokens_read() - read
    );
}

#[tokio::test]
async fn with_tools_on_auto_the_answer_is_text_or_valid_calls() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(backend) = model() else { return };
    let registry = add_tool(Arc::default());
    let tools = registry.schemas();
    let schema = registry.get("add").unwrap().spec().parameters().clone();
    let validator = jsonschema::validator_for(&schema).unwrap();
    for prompt in ["Add 2 and 40 with the add tool.", "Say hello."] {
        let messages = [Message::user(prompt)];
        let response = backend
            .complete(ChatRequest::new(&messages, &tools))
            .await
            .unwrap();
        let calls = &response.message.tool_calls;
        let text = response.message.content.clone().unwrap_or_default();
        assert!(
            !calls.is_empty() || !text.is_empty(),
            "{prompt}: {response:?}"
        );
        assert!(
            !text.contains('<'),
            "{prompt}: no half-written block: {text}"
        );
        for call in calls {
            assert_eq!(call.name(), "add");
            let args: Value = serde_json::from_str(call.arguments()).unwrap();
            assert!(validator.is_valid(&args), "{prompt}: {args}");
        }
    }
}

#[tokio::test]
async fn a_conversation_longer_than_the_context_is_a_clear_error() {
    let _turn = ONE_AT_A_TIME.lock().await;
    let Some(loaded) = model() else { return };
    let small = LocalBackend::builder()
        .model_path(loaded.model_path())
        .threads(2)
        .context_size(256)
        .build()
        .unwrap();
    let long = "lorem ipsum dolor sit amet ".repeat(200);
    let messages = [Message::user(long)];
    let error = small
        .complete(ChatRequest::new(&messages, &[]))
        .await
        .unwrap_err();
    let message = error.to_string();
    assert!(
        message.contains("the model's context holds 256"),
        "{message}"
    );
    // The model still serves a request that fits.
    let fits = [Message::user("Hi")];
    small
        .with_max_tokens(4)
        .complete(ChatRequest::new(&fits, &[]))
        .await
        .unwrap();
}
