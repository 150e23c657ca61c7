//! A run that calls tools and answers.

use std::sync::Arc;

use hermes_core::{
    Agent, AgentEvent, CallOutcome, Message, Registry, RunStatus, ScriptedBackend, ScriptedTurn,
    TOOL_OUTPUT_NOTICE, ToolCall, ToolChoice, Usage, demo::Calc,
};

use crate::common::{Gates, error_of};

fn calc_registry() -> Registry {
    let registry = Registry::new();
    registry.register(Calc::new()).unwrap();
    registry
}

#[tokio::test]
async fn calc_round_trip_completes_with_answer_trace_and_usage() {
    let backend = Arc::new(ScriptedBackend::new([
        ScriptedTurn::tool_calls([ToolCall::new(
            "call_1",
            "calc",
            r#"{"expression":"(2+3)*4"}"#,
        )])
        .with_usage(Usage::new(100, 20)),
        ScriptedTurn::text("(2+3)*4 = 20").with_usage(Usage::new(130, 8)),
    ]));
    let agent = Agent::builder()
        .backend_arc(backend.clone())
        .registry(calc_registry())
        .system_prompt("You do arithmetic.")
        .build()
        .unwrap();
    let outcome = agent.run("What is (2+3)*4?").await;

    assert_eq!(outcome.status, RunStatus::Completed);
    assert_eq!(outcome.answer.as_deref(), Some("(2+3)*4 = 20"));
    assert_eq!(outcome.rounds, 2);
    assert_eq!(outcome.usage, Usage::new(230, 28));
    assert_eq!(outcome.trace_id.len(), 12);
    assert!(outcome.error.is_none());

    // The tool result went back to the model under the call's id.
    let second_request = &backend.requests()[1];
    let Message::Tool(result) = &second_request[3] else {
        panic!("{second_request:?}")
    };
    assert_eq!(result.tool_call_id, "call_1");
    assert_eq!(result.content, r#"{"expression":"(2+3)*4","result":20}"#);
    assert_eq!(outcome.messages.len(), 5);

    // The system prompt carries the user's words and the notice.
    let system = outcome.messages[0].content().unwrap();
    assert!(system.starts_with("You do arithmetic."));
    assert!(system.ends_with(TOOL_OUTPUT_NOTICE));

    let kinds: Vec<&str> = outcome
        .events
        .iter()
        .map(|event| match event {
            AgentEvent::RoundStarted { .. } => "round_started",
            AgentEvent::LlmResponse { .. } => "llm_response",
            AgentEvent::ToolCallStarted { .. } => "tool_call_started",
            AgentEvent::ToolCallFinished { outcome, .. } => {
                assert_eq!(*outcome, CallOutcome::Success);
                "tool_call_finished"
            }
            AgentEvent::ApprovalRequested { .. } => "approval_requested",
            AgentEvent::Finished { status, rounds, .. } => {
                assert_eq!((*status, *rounds), (RunStatus::Completed, 2));
                "finished"
            }
            _ => "other",
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "round_started",
            "llm_response",
            "tool_call_started",
            "tool_call_finished",
            "round_started",
            "llm_response",
            "finished"
        ]
    );
    let trace = outcome.trace();
    assert!(trace.contains("call call_1 calc("), "{trace}");
    assert!(
        trace.contains("run finished: completed after 2 round(s)"),
        "{trace}"
    );
}

#[tokio::test]
async fn tool_errors_go_back_to_the_model_and_the_run_goes_on() {
    let backend = Arc::new(ScriptedBackend::new([
        ScriptedTurn::tool_calls([ToolCall::new("c1", "calculator", r#"{"expression":"1/0"}"#)]),
        ScriptedTurn::tool_calls([ToolCall::new("c2", "calc", r#"{"expression":"1/0"}"#)]),
        ScriptedTurn::tool_calls([ToolCall::new("c3", "calc", r#"{"expression" 7}"#)]),
        ScriptedTurn::text("I cannot divide by zero."),
    ]));
    let agent = Agent::builder()
        .backend_arc(backend.clone())
        .registry(calc_registry())
        .build()
        .unwrap();
    let outcome = agent.run("1/0?").await;
    assert_eq!(outcome.status, RunStatus::Completed);
    let errors: Vec<String> = outcome
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool(tool) => {
                Some(error_of(&tool.content)["kind"].as_str().unwrap().to_owned())
            }
            _ => None,
        })
        .collect();
    assert_eq!(errors, ["not_found", "failed", "bad_json"]);
}

#[tokio::test]
async fn parallel_calls_come_back_in_call_order() {
    let gates = Gates::new();
    let registry = Registry::new();
    registry.register(gates.tool("wait", 1)).unwrap();
    let calls =
        (0..3).map(|i| ToolCall::new(format!("call_{i}"), "wait", format!(r#"{{"gate":"g{i}"}}"#)));
    let agent = Agent::builder()
        .backend(ScriptedBackend::new([
            ScriptedTurn::tool_calls(calls),
            ScriptedTurn::text("done"),
        ]))
        .registry(registry)
        .build()
        .unwrap();
    let (outcome, ()) = tokio::join!(agent.run("go"), async {
        gates.wait_entered(3).await;
        for gate in ["g1", "g2", "g0"] {
            gates.open(gate);
        }
    });
    assert_eq!(outcome.status, RunStatus::Completed);
    let ids: Vec<&str> = outcome
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool(tool) => Some(tool.tool_call_id.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(ids, ["call_0", "call_1", "call_2"]);
}

#[test]
fn builder_requires_a_backend_and_sane_limits() {
    let err = Agent::builder().build().unwrap_err();
    assert!(err.to_string().contains("call `backend`"), "{err}");
    let err = Agent::builder()
        .backend(ScriptedBackend::new([]))
        .max_rounds(0)
        .build()
        .unwrap_err();
    assert!(err.to_string().contains("max_rounds"), "{err}");
}

#[tokio::test]
async fn a_forced_tool_choice_applies_to_the_first_round_only() {
    let backend = Arc::new(ScriptedBackend::new([
        ScriptedTurn::tool_calls([ToolCall::new("c1", "calc", r#"{"expression":"1+1"}"#)]),
        ScriptedTurn::tool_calls([ToolCall::new("c2", "calc", r#"{"expression":"2+2"}"#)]),
        ScriptedTurn::text("4"),
    ]));
    let agent = Agent::builder()
        .backend_arc(backend.clone())
        .registry(calc_registry())
        .tool_choice(ToolChoice::Function("calc".into()))
        .build()
        .unwrap();
    assert!(agent.run("go").await.is_completed());
    assert_eq!(
        backend.tool_choices(),
        [
            ToolChoice::Function("calc".into()),
            ToolChoice::Auto,
            ToolChoice::Auto
        ]
    );

    let backend = Arc::new(ScriptedBackend::new([
        ScriptedTurn::tool_calls([ToolCall::new("c1", "calc", r#"{"expression":"1+1"}"#)]),
        ScriptedTurn::text("2"),
    ]));
    let agent = Agent::builder()
        .backend_arc(backend.clone())
        .registry(calc_registry())
        .tool_choice(ToolChoice::Required)
        .then_tool_choice(ToolChoice::None)
        .build()
        .unwrap();
    assert!(agent.run("go").await.is_completed());
    assert_eq!(
        backend.tool_choices(),
        [ToolChoice::Required, ToolChoice::None]
    );
}
