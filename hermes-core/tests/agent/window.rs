//! The short-term memory window: what each round sends, never a call without its result.

use std::sync::Arc;

use hermes_core::memory::{Window, estimate_tokens};
use hermes_core::{Agent, Message, Registry, RunStatus, ScriptedBackend, ScriptedTurn, ToolCall};

use crate::common::add;

#[tokio::test]
async fn a_long_tool_loop_sends_a_bounded_window_and_keeps_the_whole_transcript() {
    let registry = Registry::new();
    registry.register(add()).unwrap();
    let mut turns: Vec<ScriptedTurn> = (0..8)
        .map(|i| {
            ScriptedTurn::tool_calls([ToolCall::new(
                format!("c{i}"),
                "add",
                format!(r#"{{"a":{i},"b":1}}"#),
            )])
        })
        .collect();
    turns.push(ScriptedTurn::text("done"));
    let backend = Arc::new(ScriptedBackend::new(turns));
    let budget = 120;
    let agent = Agent::builder()
        .backend_arc(backend.clone())
        .registry(registry)
        .window(Window::new().max_tokens(budget))
        .max_rounds(10)
        .build()
        .unwrap();
    let outcome = agent.run("add numbers many times").await;
    assert_eq!(outcome.status, RunStatus::Completed, "{}", outcome.trace());
    // The outcome has everything: system, user, 8 exchanges of 2 messages, the answer.
    assert_eq!(outcome.messages.len(), 2 + 8 * 2 + 1);
    let requests = backend.requests();
    assert_eq!(requests.len(), 9);
    let last = requests.last().unwrap();
    assert!(
        last.len() < outcome.messages.len() - 1,
        "the window trimmed: {}",
        last.len()
    );
    for (round, sent) in requests.iter().enumerate() {
        // The system prompt and the question always go.
        assert!(matches!(sent[0], Message::System { .. }), "round {round}");
        assert!(
            matches!(&sent[1], Message::User { content } if content == "add numbers many times")
        );
        // Every call sent has its result, every result its call.
        let calls: Vec<&str> = sent
            .iter()
            .flat_map(|m| m.calls().iter().map(|c| c.id.as_str()))
            .collect();
        let results: Vec<&str> = sent
            .iter()
            .filter_map(|m| match m {
                Message::Tool(t) => Some(t.tool_call_id.as_str()),
                _ => None,
            })
            .collect();
        assert_eq!(calls, results, "round {round}");
        // Over the budget only by what must go: system, question, the latest exchange.
        let cost: usize = sent.iter().map(estimate_tokens).sum();
        let floor: usize = sent[..2]
            .iter()
            .chain(sent.iter().rev().take(2))
            .map(estimate_tokens)
            .sum();
        assert!(cost <= budget.max(floor), "round {round}: {cost} tokens");
    }
}

#[tokio::test]
async fn events_can_be_masked_while_the_model_sees_the_real_text() {
    use hermes_core::redact::Redactor;
    let registry = Registry::new();
    registry.register(add()).unwrap();
    let backend = Arc::new(ScriptedBackend::new([ScriptedTurn::text(
        "I will write to li.lei@example.com and call 13812345678.",
    )]));
    let agent = Agent::builder()
        .backend_arc(backend.clone())
        .registry(registry)
        .redact_events(Redactor::new())
        .build()
        .unwrap();
    let outcome = agent.run("my card is 4111 1111 1111 1111").await;
    let events = outcome
        .events
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n");
    assert!(
        events.contains("write to [EMAIL] and call [PHONE]"),
        "{events}"
    );
    assert!(!events.contains("13812345678"), "{events}");
    // What the run keeps and what the model got are unchanged.
    assert_eq!(
        outcome.answer.as_deref(),
        Some("I will write to li.lei@example.com and call 13812345678.")
    );
    let sent = backend.requests();
    assert!(
        matches!(&sent[0][1], Message::User { content } if content.contains("4111 1111 1111 1111"))
    );
}
