//! Round limit, total timeout, cancellation, backend failure.

use std::sync::Arc;
use std::time::Duration;

use hermes_core::{
    Agent, CancellationToken, LlmError, Message, Registry, RunStatus, ScriptedBackend,
    ScriptedTurn, ToolCall,
};

use crate::common::{Probe, add, error_of, stuck};

fn looping_backend(rounds: usize) -> ScriptedBackend {
    ScriptedBackend::new((0..rounds).map(|i| {
        ScriptedTurn::tool_calls([ToolCall::new(format!("c{i}"), "add", r#"{"a":1,"b":1}"#)])
    }))
}

#[tokio::test]
async fn max_rounds_stops_a_model_that_keeps_calling_tools() {
    let registry = Registry::new();
    registry.register(add()).unwrap();
    let backend = Arc::new(looping_backend(10));
    let agent = Agent::builder()
        .backend_arc(backend.clone())
        .registry(registry)
        .max_rounds(3)
        .build()
        .unwrap();
    let outcome = agent.run("loop").await;
    assert_eq!(outcome.status, RunStatus::MaxRounds);
    assert_eq!(outcome.rounds, 3);
    assert_eq!(outcome.answer, None);
    assert_eq!(backend.requests().len(), 3);
    // Every call of the last round was answered.
    assert!(
        matches!(outcome.messages.last(), Some(Message::Tool(tool)) if tool.tool_call_id == "c2")
    );
}

#[tokio::test(start_paused = true)]
async fn total_timeout_ends_a_run_whose_tool_hangs() {
    let probe = Probe::default();
    let registry = Registry::new();
    registry
        .register(stuck(Duration::from_secs(3600), probe.clone()))
        .unwrap();
    let agent = Agent::builder()
        .backend(ScriptedBackend::new([ScriptedTurn::tool_calls([
            ToolCall::new("c1", "stuck", "{}"),
            ToolCall::new("c2", "stuck", "{}"),
        ])]))
        .registry(registry)
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let outcome = agent.run("hang").await;
    assert_eq!(outcome.status, RunStatus::Timeout);
    // The calls cut off are answered, so the transcript is valid to send again.
    let tail: Vec<(String, String)> = outcome.messages[3..]
        .iter()
        .map(|message| match message {
            Message::Tool(tool) => (
                tool.tool_call_id.clone(),
                error_of(&tool.content)["kind"].as_str().unwrap().to_owned(),
            ),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(
        tail,
        [
            ("c1".into(), "cancelled".into()),
            ("c2".into(), "cancelled".into())
        ]
    );
    probe.saw_cancel.notified().await;
}

#[tokio::test(start_paused = true)]
async fn total_timeout_ends_a_run_whose_model_hangs() {
    let agent = Agent::builder()
        .backend(ScriptedBackend::new([ScriptedTurn::Hang]))
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let outcome = agent.run("hello").await;
    assert_eq!(outcome.status, RunStatus::Timeout);
    assert_eq!(outcome.messages.len(), 2);
}

#[tokio::test]
async fn cancellation_ends_the_run_and_stops_its_calls() {
    let probe = Probe::default();
    let registry = Registry::new();
    registry
        .register(stuck(Duration::from_secs(3600), probe.clone()))
        .unwrap();
    let agent = Agent::builder()
        .backend(ScriptedBackend::new([ScriptedTurn::tool_calls([
            ToolCall::new("c1", "stuck", "{}"),
        ])]))
        .registry(registry)
        .build()
        .unwrap();
    let token = CancellationToken::new();
    let (outcome, ()) = tokio::join!(agent.run_with("hang", token.clone()), async {
        probe.entered.notified().await;
        token.cancel();
    });
    assert_eq!(outcome.status, RunStatus::Cancelled);
    probe.saw_cancel.notified().await;
}

#[tokio::test]
async fn backend_failure_fails_the_run_with_the_servers_words() {
    let agent = Agent::builder()
        .backend(ScriptedBackend::new([ScriptedTurn::Fail(
            LlmError::Status {
                status: 401,
                body: "invalid api key".into(),
            },
        )]))
        .build()
        .unwrap();
    let outcome = agent.run("hi").await;
    assert_eq!(outcome.status, RunStatus::Failed);
    assert_eq!(
        outcome.error.as_deref(),
        Some("the model server answered 401: invalid api key")
    );
}

#[tokio::test]
async fn an_exhausted_script_says_so() {
    let registry = Registry::new();
    registry.register(add()).unwrap();
    let agent = Agent::builder()
        .backend(looping_backend(1))
        .registry(registry)
        .build()
        .unwrap();
    let outcome = agent.run("go").await;
    assert_eq!(outcome.status, RunStatus::Failed);
    assert!(
        outcome
            .error
            .unwrap()
            .contains("no turn left (it was given 1)")
    );
}
