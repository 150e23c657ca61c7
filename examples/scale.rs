//! Scale: many agent sessions at once in one process, on the scripted backend.
//!
//! Shows: N sessions (default 10,000) running concurrently on a multi-threaded tokio
//! runtime, each an agent of its own with 3 rounds of tool calls (the tool waits 5 ms,
//! as a network call would, so the sessions really are in flight together) and a
//! final answer; the wall time, the process's peak resident memory, and the memory per
//! session.
//! Needs: nothing: `cargo run --release --example scale [-- SESSIONS]`.
//! Prints: one JSON line: sessions, completed, wall_ms, peak_rss_mib, bytes_per_session.
#![allow(clippy::print_stdout, reason = "an example prints its results")]

use std::time::{Duration, Instant};

use hermes::{
    Agent, Registry, RunStatus, ScriptedBackend, ScriptedTurn, ToolCall, ToolError, tool,
};

/// Add two integers after a short wait, as a tool calling a service would.
///
/// # Arguments
/// * `a` - The first addend.
/// * `b` - The second addend.
#[tool]
async fn slow_add(a: i64, b: i64) -> Result<i64, ToolError> {
    tokio::time::sleep(Duration::from_millis(5)).await;
    Ok(a + b)
}

/// The process's resident memory high-water mark, in bytes (Linux).
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| {
            value
                .trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map_or(0, |kib| kib * 1024)
}

fn session(registry: &Registry, id: usize) -> Result<Agent, hermes::Error> {
    let turns: Vec<ScriptedTurn> = (0..3)
        .map(|round| {
            ScriptedTurn::tool_calls([ToolCall::new(
                format!("call_{round}"),
                "slow_add",
                format!(r#"{{"a": {id}, "b": {round}}}"#),
            )])
        })
        .chain([ScriptedTurn::text("done")])
        .collect();
    Agent::builder()
        .backend(ScriptedBackend::new(turns))
        .registry(registry.clone())
        .session_id(format!("session-{id}"))
        .build()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sessions: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(10_000);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let registry = Registry::new();
    registry.register(SlowAddTool)?;
    let before = peak_rss();
    let started = Instant::now();
    let completed = runtime.block_on(async {
        let mut runs = tokio::task::JoinSet::new();
        for id in 0..sessions {
            let agent = session(&registry, id)?;
            runs.spawn(async move { agent.run("add three times").await.status });
        }
        let mut completed = 0_usize;
        while let Some(status) = runs.join_next().await {
            completed += usize::from(status? == RunStatus::Completed);
        }
        Ok::<_, Box<dyn std::error::Error>>(completed)
    })?;
    let wall = started.elapsed();
    let peak = peak_rss();
    println!(
        "{}",
        serde_json::json!({
            "sessions": sessions,
            "completed": completed,
            "wall_ms": wall.as_secs_f64() * 1000.0,
            "peak_rss_mib": peak as f64 / (1024.0 * 1024.0),
            "bytes_per_session": peak.saturating_sub(before) / sessions.max(1) as u64,
        })
    );
    Ok(())
}
