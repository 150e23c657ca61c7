//! Memory: a SQLite long-term store the model reaches through tools, and the short-term
//! window that bounds what each round sends.
//!
//! Shows: facts saved by a (scripted) model in one run and recalled in a later one,
//! after the store was closed and reopened; PII masked before storage; a search; the
//! window trimming a long run's transcript.
//! Needs: nothing: `cargo run --example memory`.
//! Prints: each run's trace and what the store holds.
#![allow(clippy::print_stdout, reason = "an example prints its results")]

use std::sync::Arc;

use hermes::memory::{MemoryStore, Window};
use hermes::memory_stores::{SqliteMemory, memory_tools};
use hermes::{Agent, Registry, ScriptedBackend, ScriptedTurn, ToolCall};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::temp_dir().join(format!("hermes-memory-example-{}", std::process::id()));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join("memory.db");

    // Run 1: the model saves what it learned.
    let store = Arc::new(SqliteMemory::open(&path).await?);
    let saving = ScriptedBackend::new([
        ScriptedTurn::tool_calls([ToolCall::new(
            "c1",
            "memory_save",
            r#"{"key": "diet", "fact": "Vegan. Reach me at ana@example.com or 13812345678."}"#,
        )]),
        ScriptedTurn::text("Noted: you are vegan."),
    ]);
    let outcome = agent(saving, store.clone())?
        .run("Remember that I am vegan.")
        .await;
    print!("run 1\n{}", outcome.trace());
    store.close().await;

    // Run 2, after a "restart": a new store on the same file.
    let store = Arc::new(SqliteMemory::open(&path).await?);
    let recalling = ScriptedBackend::new([
        ScriptedTurn::tool_calls([ToolCall::new(
            "c1",
            "memory_search",
            r#"{"query": "vegan"}"#,
        )]),
        ScriptedTurn::text("You are vegan, so: a lentil curry."),
    ]);
    let outcome = agent(recalling, store.clone())?
        .run("What should I cook tonight?")
        .await;
    print!("\nrun 2\n{}", outcome.trace());
    let fact = store.recall("session:example", "diet").await?;
    println!("\nstored (PII masked): {:?}", fact.map(|fact| fact.text));

    // The short-term window: a run of 6 tool rounds sends at most ~150 tokens a round.
    let rounds: Vec<ScriptedTurn> = (0..6)
        .map(|i| {
            ScriptedTurn::tool_calls([ToolCall::new(
                format!("s{i}"),
                "memory_search",
                r#"{"query": "vegan"}"#,
            )])
        })
        .chain([ScriptedTurn::text("done")])
        .collect();
    let backend = Arc::new(ScriptedBackend::new(rounds));
    let registry = Registry::new();
    for tool in memory_tools(store)? {
        registry.register_arc(tool)?;
    }
    let outcome = Agent::builder()
        .backend_arc(backend.clone())
        .registry(registry)
        .session_id("example")
        .window(Window::new().max_tokens(150))
        .build()?
        .run("search again and again")
        .await;
    let sent: Vec<usize> = backend.requests().iter().map(Vec::len).collect();
    println!(
        "\nwindow: the transcript grew to {} messages; each round sent {sent:?}",
        outcome.messages.len()
    );
    std::fs::remove_dir_all(&dir)?;
    Ok(())
}

fn agent(backend: ScriptedBackend, store: Arc<SqliteMemory>) -> Result<Agent, hermes::Error> {
    let registry = Registry::new();
    for tool in memory_tools(store)? {
        registry.register_arc(tool)?;
    }
    Agent::builder()
        .backend(backend)
        .registry(registry)
        .session_id("example")
        .build()
}
