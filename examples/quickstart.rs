//! Quickstart: an agent with the `calc` tool, driven by a scripted model.
//!
//! Shows: registering a tool, building an agent, running it, reading the outcome.
//! Needs: nothing (no server, no API key): `cargo run --example quickstart`.
//! Prints: the run's trace (rounds, tool calls, results), the answer and token usage.
#![allow(clippy::print_stdout, reason = "an example prints its results")]

use hermes::{Agent, Message, Registry, ScriptedBackend, ScriptedTurn, ToolCall, demo::Calc};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), hermes::Error> {
    // 1. The tools the model may call.
    let registry = Registry::new();
    registry.register(Calc::new())?;

    // 2. A model. The scripted backend replays these turns; swap in a real backend
    //    (hermes-llm) without touching anything else.
    let backend = ScriptedBackend::new([
        // Two calls in one turn: they run concurrently and come back in order.
        ScriptedTurn::tool_calls([
            ToolCall::new("call_1", "calc", r#"{"expression": "1250 * 0.8"}"#),
            ToolCall::new("call_2", "calc", r#"{"expression": "1250 * 0.8 / 12"}"#),
        ]),
        // A call that fails: the gateway answers with a structured error, the run goes on.
        ScriptedTurn::tool_calls([ToolCall::new(
            "call_3",
            "calc",
            r#"{"expression": "1000 / (12 - 12)"}"#,
        )]),
        ScriptedTurn::text(
            "After the 20% discount it costs 1000, about 83.33 a month over 12 months.",
        ),
    ]);

    // 3. The agent, and one run.
    let agent = Agent::builder()
        .backend(backend)
        .registry(registry)
        .system_prompt("You are a careful shopping assistant.")
        .max_rounds(5)
        .build()?;
    let outcome = agent
        .run("A laptop costs 1250 with 20% off. What is the monthly cost over 12 months?")
        .await;

    print!("{}", outcome.trace());
    println!();
    for message in &outcome.messages {
        if let Message::Tool(result) = message {
            println!("tool result [{}]: {}", result.tool_call_id, result.content);
        }
    }
    println!();
    println!("status: {}", outcome.status);
    println!("answer: {}", outcome.answer.as_deref().unwrap_or("(none)"));
    println!(
        "usage:  {} prompt + {} completion tokens (estimated by the scripted backend)",
        outcome.usage.prompt_tokens, outcome.usage.completion_tokens
    );
    Ok(())
}
