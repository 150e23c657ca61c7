//! What the gateway makes of the calls a small model really sends.
//!
//! Shows: tool-name, JSON and type repairs, each reported as a `tool_call_repaired`
//! event; a call cut off at the token limit refused, not guessed; a duplicate call
//! answered once; the strike limit ending a run that only sends unusable calls; and
//! the same calls with every repair switched off.
//! Needs: nothing: `cargo run --example repairs`.
//! Prints: each call, what was repaired, and the tool message content.
#![allow(clippy::print_stdout, reason = "an example prints its results")]

use hermes::{
    Agent, AgentEvent, Dispatcher, EventSink, Registry, Repairs, RunContext, ScriptedBackend,
    ScriptedTurn, ToolCall, demo::Calc,
};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), hermes::Error> {
    let registry = Registry::new();
    registry.register(Calc::new())?;

    // One message with what small models get wrong, and one call twice.
    let calls = [
        ToolCall::new("call_1", "CALC", r#"{"expression": "1+2",}"#),
        ToolCall::new("call_2", "calc_tool", "{\"expression\": \"2*\n3\"}"),
        ToolCall::new("call_3", "calc", r#"{"expression": "(1+2)*(3+4"#),
        ToolCall::new("call_4", "calculate", r#"{"expression": "1"}"#),
        ToolCall::new("call_5", "Calc", r#"{ "expression" : "1+2" }"#),
    ];

    for (title, repairs) in [("repairs on", Repairs::all()), ("strict", Repairs::none())] {
        println!("== {title}");
        let dispatcher = Dispatcher::builder(registry.clone())
            .repairs(repairs)
            .build()?;
        let sink = EventSink::new();
        let run = RunContext::new().with_events(sink.clone());
        let reports = dispatcher.dispatch_all(&calls, &run).await;
        for (call, report) in calls.iter().zip(&reports) {
            println!("{} {}({})", call.id, call.name(), call.arguments());
            for event in sink.events() {
                if let AgentEvent::ToolCallRepaired {
                    tool_call_id,
                    kind,
                    detail,
                    ..
                } = event
                {
                    if tool_call_id == call.id {
                        println!("  repaired {}: {detail}", kind.as_str());
                    }
                }
            }
            println!("  -> {}", report.message.content);
        }
    }

    // A model that cannot form a call: the run ends after three strikes, not ten rounds.
    let lost = || ScriptedTurn::tool_calls([ToolCall::new("c", "calculator_pro", "{}")]);
    let backend = ScriptedBackend::new((0..10).map(|_| lost()));
    let agent = Agent::builder()
        .backend(backend)
        .registry(registry)
        .build()?;
    let outcome = agent.run("add 1 and 2").await;
    println!("== strike limit");
    println!(
        "status {} after {} rounds: {}",
        outcome.status,
        outcome.rounds,
        outcome.error.unwrap_or_default()
    );
    Ok(())
}
