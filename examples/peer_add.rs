//! hermes' side of `scripts/bench-peers`: one `add(a, b)` tool call through the full
//! gateway, timed in batches, for comparison with other agent frameworks.
//!
//! Shows: a `#[tool]` function registered by hand, `Dispatcher::dispatch` on a model's
//! call `{"a":2,"b":3}` (lookup, parse, schema validation, policy, invoke, result cap,
//! the tool message), driven on a current-thread tokio runtime.
//! Needs: nothing: `cargo run --release --example peer_add -- [ITERATIONS] [BATCHES]`.
//! Prints: one JSON line, `{"name": "hermes", "ns_per_call": .., "iterations": ..,
//! "batches": [..]}`, the median of the batches' ns per call.
#![allow(clippy::print_stdout, reason = "the figure is the example's output")]

use std::hint::black_box;
use std::time::Instant;

use hermes::{Dispatcher, Registry, RunContext, ToolCall, tool};

/// Add two integers.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool]
fn add(a: i64, b: i64) -> i64 {
    a + b
}

/// Reads `[ITERATIONS] [BATCHES]` from the command line (200 000 and 5 by default).
fn settings() -> (u32, usize) {
    let mut argv = std::env::args().skip(1);
    let iterations = argv.next().and_then(|s| s.parse().ok()).unwrap_or(200_000);
    let batches = argv.next().and_then(|s| s.parse().ok()).unwrap_or(5);
    (iterations, batches.max(1))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (iterations, batches) = settings();
    let registry = Registry::new();
    registry.register(AddTool)?;
    let dispatcher = Dispatcher::builder(registry).build()?;
    let run = RunContext::new();
    let call = ToolCall::new("call_1", "add", r#"{"a":2,"b":3}"#);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;

    let mut per_batch = runtime.block_on(async {
        // The model's call to the tool message it reads back.
        let once = || async {
            dispatcher
                .dispatch(black_box(&call), &run)
                .await
                .into_message()
        };
        let first = once().await;
        if first.content() != Some("5") {
            return Err(format!("expected the content \"5\", got {first:?}"));
        }
        for _ in 0..iterations / 10 {
            black_box(once().await);
        }
        let mut per_batch = Vec::with_capacity(batches);
        for _ in 0..batches {
            let start = Instant::now();
            for _ in 0..iterations {
                black_box(once().await);
            }
            per_batch.push(start.elapsed().as_nanos() as f64 / f64::from(iterations));
        }
        Ok(per_batch)
    })?;
    per_batch.sort_by(f64::total_cmp);
    let median = per_batch[per_batch.len() / 2];
    let batches: Vec<String> = per_batch.iter().map(|ns| format!("{ns:.1}")).collect();
    println!(
        "{{\"name\": \"hermes\", \"version\": \"{}\", \"ns_per_call\": {median:.1}, \"iterations\": {iterations}, \"batches\": [{}]}}",
        env!("CARGO_PKG_VERSION"),
        batches.join(", ")
    );
    Ok(())
}
