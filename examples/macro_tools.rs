//! `#[tool]`: functions become tools, with schemas from their signatures and docs.
//!
//! Shows: sync, async and blocking tool functions; `#[arg]` defaults and ranges; the
//! injected `ToolContext`; `Registry::from_linked()`; a bad call refused by validation.
//! Needs: nothing: `cargo run --example macro_tools`.
//! Prints: each tool's OpenAI function object, then the trace of a scripted run.
#![allow(clippy::print_stdout, reason = "an example prints its results")]

use hermes::{
    Agent, Registry, ScriptedBackend, ScriptedTurn, ToolCall, ToolContext, ToolError, tool,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Unit {
    Celsius,
    Fahrenheit,
}

#[derive(Serialize)]
struct Forecast {
    city: String,
    days: u8,
    unit: Unit,
    highs: Vec<f32>,
}

/// Query the weather forecast for a city.
///
/// # Arguments
/// * `city` - City name, in any language.
/// * `days` - Forecast days, 1 to 7.
/// * `unit` - Temperature unit.
#[tool(name = "weather_query", tags = ["weather"], timeout = "15s", permissions = ["network:fetch"])]
async fn get_weather(
    city: String,
    #[arg(default = 3, minimum = 1, maximum = 7)] days: u8,
    #[arg(default = "celsius")] unit: Unit,
) -> Result<Forecast, ToolError> {
    // A stand-in for an HTTP call: deterministic numbers from the city's name.
    let base = city.bytes().map(f32::from).sum::<f32>() % 15.0 + 10.0;
    let highs = (0..days).map(|day| base + f32::from(day)).collect();
    Ok(Forecast {
        city,
        days,
        unit,
        highs,
    })
}

/// Count the words of a text.
#[tool]
fn word_count(#[arg(desc = "The text to count.", max_length = 100_000)] text: String) -> usize {
    text.split_whitespace().count()
}

/// Report which call and session this is (the context is injected, not in the schema).
#[tool]
fn whoami(ctx: &ToolContext) -> String {
    format!(
        "call {} in session {}",
        ctx.tool_call_id(),
        ctx.session_id()
    )
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), hermes::Error> {
    let registry = Registry::from_linked()?;
    for tool in registry.list() {
        println!("{:#}", tool.spec().schema());
    }

    let backend = ScriptedBackend::new([
        ScriptedTurn::tool_calls([
            ToolCall::new("call_1", "weather_query", r#"{"city": "Lisbon"}"#),
            ToolCall::new("call_2", "word_count", r#"{"text": "the quick brown fox"}"#),
            ToolCall::new("call_3", "whoami", "{}"),
            // Out of range: refused by the schema before the function runs.
            ToolCall::new("call_4", "weather_query", r#"{"city": "Oslo", "days": 30}"#),
        ]),
        ScriptedTurn::text("Lisbon: highs of 10 to 12 °C over the next three days."),
    ]);
    let agent = Agent::builder()
        .backend(backend)
        .registry(registry)
        .session_id("example")
        .build()?;
    let outcome = agent.run("Weather in Lisbon?").await;
    println!();
    print!("{}", outcome.trace());
    for message in &outcome.messages[3..] {
        if let hermes::Message::Tool(result) = message {
            println!("{} -> {}", result.tool_call_id, result.content);
        }
    }
    Ok(())
}
