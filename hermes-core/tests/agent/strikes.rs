//! The strike limit: a model that keeps sending calls that cannot run (unknown tools,
//! unreadable arguments) ends the run as failed instead of burning every round.

use std::sync::Arc;

use hermes_core::{
    Agent, AgentEvent, Registry, RunStatus, ScriptedBackend, ScriptedTurn, ToolCall,
};

use crate::common::add;

fn registry() -> Registry {
    let registry = Registry::new();
    registry.register(add()).unwrap();
    registry
}

fn turn(id: &str, name: &str, args: &str) -> ScriptedTurn {
    ScriptedTurn::tool_calls([ToolCall::new(id, name, args)])
}

#[tokio::test]
async fn three_unusable_rounds_in_a_row_fail_the_run() {
    let backend = Arc::new(ScriptedBackend::new([
        turn("c1", "xyz_no_such_tool", "{}"),
        turn("c2", "add", r#"{"a" 1}"#),
        turn("c3", "add", r#"{"a": 1, "b": "cut off mid-str"#),
        ScriptedTurn::text("never reached"),
    ]));
    let agent = Agent::builder()
        .backend_arc(backend.clone())
        .registry(registry())
        .max_rounds(10)
        .build()
        .unwrap();
    let outcome = agent.run("add").await;
    assert_eq!(outcome.status, RunStatus::Failed);
    assert_eq!(outcome.rounds, 3);
    let error = outcome.error.unwrap();
    assert!(error.contains("3 rounds in a row"), "{error}");
    assert!(error.contains("unknown tool"), "{error}");
    assert_eq!(backend.requests().len(), 3);
    assert!(matches!(
        outcome.events.last(),
        Some(AgentEvent::Finished {
            status: RunStatus::Failed,
            rounds: 3,
            ..
        })
    ));
}

#[tokio::test]
async fn a_usable_round_resets_the_count() {
    let backend = Arc::new(ScriptedBackend::new([
        turn("c1", "nope", "{}"),
        turn("c2", "nope", "{}"),
        // Valid JSON, wrong types: the model can act on that, so it is not a strike.
        turn("c3", "add", r#"{"a": "one", "b": 2}"#),
        turn("c4", "nope", "{}"),
        turn("c5", "nope", "{}"),
        turn("c6", "add", r#"{"a": 1, "b": 2}"#),
        ScriptedTurn::text("3"),
    ]));
    let agent = Agent::builder()
        .backend_arc(backend)
        .registry(registry())
        .build()
        .unwrap();
    let outcome = agent.run("add").await;
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.error);
    assert_eq!(outcome.rounds, 7);
}

#[tokio::test]
async fn one_good_call_in_a_round_is_not_a_strike_and_the_limit_is_configurable() {
    let mixed = || {
        ScriptedTurn::tool_calls([
            ToolCall::new("bad", "nope", "{}"),
            ToolCall::new("good", "add", r#"{"a": 1, "b": 2}"#),
        ])
    };
    let backend =
        ScriptedBackend::new([mixed(), mixed(), mixed(), mixed(), ScriptedTurn::text("3")]);
    let agent = Agent::builder()
        .backend(backend)
        .registry(registry())
        .build()
        .unwrap();
    assert_eq!(agent.run("add").await.status, RunStatus::Completed);

    let lost = || turn("c", "nope", "{}");
    let backend = ScriptedBackend::new([lost(), lost(), lost(), lost(), ScriptedTurn::text("ok")]);
    let agent = Agent::builder()
        .backend(backend)
        .registry(registry())
        .strike_limit(0)
        .build()
        .unwrap();
    assert_eq!(
        agent.run("add").await.status,
        RunStatus::Completed,
        "0: never"
    );

    let backend = ScriptedBackend::new([lost(), ScriptedTurn::text("ok")]);
    let agent = Agent::builder()
        .backend(backend)
        .registry(registry())
        .strike_limit(1)
        .build()
        .unwrap();
    assert_eq!(agent.run("add").await.status, RunStatus::Failed);
}
