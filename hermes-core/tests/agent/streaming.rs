//! The streaming variant yields the same events, live.

use futures_util::StreamExt;
use hermes_core::{
    Agent, AgentEvent, Registry, RunStatus, ScriptedBackend, ScriptedTurn, ToolCall, demo::Calc,
};

#[tokio::test]
async fn streamed_events_match_the_outcome() {
    let registry = Registry::new();
    registry.register(Calc::new()).unwrap();
    let agent = Agent::builder()
        .backend(ScriptedBackend::new([
            ScriptedTurn::tool_calls([ToolCall::new("c1", "calc", r#"{"expression":"2*21"}"#)]),
            ScriptedTurn::text("42"),
        ]))
        .registry(registry)
        .build()
        .unwrap();
    let mut run = agent.stream("2*21?");
    let trace_id = run.trace_id().to_owned();
    let mut streamed = Vec::new();
    while let Some(event) = run.next().await {
        streamed.push(event);
    }
    let outcome = run.outcome().await;
    assert_eq!(outcome.trace_id, trace_id);
    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(streamed, outcome.events);
    assert!(matches!(streamed.last(), Some(AgentEvent::Finished { .. })));
}

#[tokio::test]
async fn cancelling_a_stream_ends_the_run() {
    let agent = Agent::builder()
        .backend(ScriptedBackend::new([ScriptedTurn::Hang]))
        .build()
        .unwrap();
    let mut run = agent.stream("hello");
    assert!(matches!(
        run.next().await,
        Some(AgentEvent::RoundStarted { round: 1, .. })
    ));
    run.cancel();
    let outcome = run.outcome().await;
    assert_eq!(outcome.status, RunStatus::Cancelled);
}

#[test]
fn events_serialize_with_a_snake_case_type_tag() {
    let event: AgentEvent = serde_json::from_str(
        r#"{"type":"tool_call_finished","tool_call_id":"c1","name":"calc","duration_ms":1.5,"outcome":"timeout","success":false,"replayed":false,"preview":""}"#,
    )
    .unwrap();
    let back = serde_json::to_value(&event).unwrap();
    assert_eq!(back["type"], "tool_call_finished");
    assert_eq!(back["outcome"], "timeout");
    assert_eq!(back["duration_ms"], 1.5);
}

#[tokio::test]
async fn a_backends_default_stream_replays_its_answer_as_deltas() {
    use hermes_core::{ChatRequest, DeltaAccumulator, LlmBackend, ScriptedBackend, Usage};

    let turn = || {
        ScriptedTurn::tool_calls([
            ToolCall::new("c1", "calc", r#"{"expression":"1+1"}"#),
            ToolCall::new("c2", "calc", r#"{"expression":"2+2"}"#),
        ])
        .with_usage(Usage::new(12, 3))
    };
    let backend = ScriptedBackend::new([turn(), turn()]);
    let messages = [hermes_core::Message::user("add")];
    let whole = backend
        .complete(ChatRequest::new(&messages, &[]))
        .await
        .unwrap();
    let mut deltas = backend
        .stream(ChatRequest::new(&messages, &[]))
        .await
        .unwrap();
    let mut accumulator = DeltaAccumulator::new();
    while let Some(delta) = deltas.next().await {
        accumulator.push(delta.unwrap());
    }
    assert_eq!(accumulator.finish(), whole);
}
