//! What the real-model tests share: an `add` tool that counts its runs, an agent round
//! trip, a streamed forced call; whichever backend runs them.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    dead_code,
    missing_docs,
    unreachable_pub
)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use futures_util::StreamExt;
use hermes_core::{
    Agent, ChatRequest, DeltaAccumulator, FnTool, LlmBackend, Message, Registry, RunStatus,
    ToolChoice, ToolError, ToolSpec,
};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

#[derive(Debug, Deserialize, JsonSchema)]
struct AddArgs {
    /// The first number.
    a: i64,
    /// The second number.
    b: i64,
}

/// An `add` tool that counts its runs.
pub fn add_tool(runs: Arc<AtomicUsize>) -> Registry {
    let spec = ToolSpec::builder("add", "Add two integers and return the sum.")
        .parameters_for::<AddArgs>()
        .build()
        .unwrap();
    let tool = FnTool::new(spec, move |args: AddArgs, _ctx| {
        runs.fetch_add(1, Ordering::SeqCst);
        async move { Ok::<_, ToolError>(json!({"sum": args.a.saturating_add(args.b)})) }
    });
    let registry = Registry::new();
    registry.register(tool).unwrap();
    registry
}

pub async fn agent_round_trip(backend: impl LlmBackend) {
    let runs = Arc::new(AtomicUsize::new(0));
    let agent = Agent::builder()
        .backend(backend)
        .registry(add_tool(runs.clone()))
        .tool_choice(ToolChoice::Function("add".into()))
        // A 135M model keeps calling tools under `auto`; `none` makes it answer.
        .then_tool_choice(ToolChoice::None)
        .max_rounds(3)
        .build()
        .unwrap();
    let outcome = agent.run("What is 2 plus 3? Use the add tool.").await;
    assert_eq!(
        outcome.status,
        RunStatus::Completed,
        "{}\n{:?}",
        outcome.trace(),
        outcome.error
    );
    assert_eq!(runs.load(Ordering::SeqCst), 1, "{}", outcome.trace());
    // The call the model made is the one whose result went back.
    let call_id = outcome
        .messages
        .iter()
        .find_map(|m| m.calls().first().map(|c| c.id.clone()))
        .unwrap();
    let result = outcome
        .messages
        .iter()
        .find_map(|m| match m {
            Message::Tool(tool) if tool.tool_call_id == call_id => Some(tool.content.clone()),
            _ => None,
        })
        .unwrap();
    let result: Value = serde_json::from_str(&result).unwrap();
    assert!(
        result["sum"].is_i64(),
        "the tool ran with the model's arguments: {result}"
    );
    assert!(outcome.answer.is_some(), "{}", outcome.trace());
    assert!(outcome.usage.total_tokens > 0);
}

/// Stream a forced call and check it assembles into a call of `add` with integer args.
pub async fn streamed_forced_call(backend: impl LlmBackend) {
    let registry = add_tool(Arc::default());
    let tools = registry.schemas();
    let messages = [Message::user("Add 4 and 5.")];
    let choice = ToolChoice::Function("add".into());
    let request = ChatRequest::new(&messages, &tools).with_tool_choice(&choice);
    let mut stream = backend.stream(request).await.unwrap();
    let mut accumulator = DeltaAccumulator::new();
    let mut pieces = 0;
    while let Some(delta) = stream.next().await {
        accumulator.push(delta.unwrap());
        pieces += 1;
    }
    let response = accumulator.finish();
    let call = response
        .message
        .tool_calls
        .first()
        .unwrap_or_else(|| panic!("no call in {response:?}"));
    assert_eq!(call.name(), "add");
    assert!(!call.id.is_empty());
    let args: Value = serde_json::from_str(call.arguments()).unwrap();
    assert!(args["a"].is_i64() && args["b"].is_i64(), "{args}");
    assert!(pieces > 1, "it really streamed");
}
