//! Load: 1,000 concurrent agent runs against a local fake-latency OpenAI-compatible
//! server (each answer after a random 1-20 ms; a first turn of 2-4 parallel calls with
//! ids unique over the whole test, then an answer), half of them streamed, while the
//! registry is hot-reloaded every 100 ms with a fresh set of the tools being called.
//!
//! Checked: every run completes; every call id gets exactly one result, its own, in
//! every transcript and in every request the server saw; every call ran once; no task
//! outlives the runs; the peak resident memory stays bounded. Prints the figures:
//! `cargo test -p hermes --test load -- --nocapture`.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    clippy::print_stderr
)]

mod support;

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use hermes_core::{
    Agent, AgentOutcome, CancellationToken, FnTool, Message, Registry, RunStatus, Tool, ToolError,
    ToolSpec,
};
use hermes_llm::{OpenAiBackend, RetryPolicy};
use serde_json::{Value, json};
use support::memory;
use support::server::{FaultServer, Reply};
use support::streamed::Streamed;
use support::wire;
use tokio::runtime::Handle;

const RUNS: usize = 1_000;
const TOOLS: [&str; 3] = ["echo_a", "echo_b", "echo_c"];
const RELOAD_EVERY: Duration = Duration::from_millis(100);
/// The bound on the peak resident memory's growth over the test.
const MEMORY_BOUND: u64 = 512 * 1024 * 1024;

/// A tool that waits 0-3 ms (so parallel calls finish out of order), counts its runs
/// and answers with the id of the call it served.
fn echo(name: &str, runs: Arc<AtomicUsize>) -> Arc<dyn Tool> {
    let spec = ToolSpec::builder(name, "Echo a number back with the call's id.")
        .parameters_for::<support::tools::EchoArgs>()
        .build()
        .unwrap();
    Arc::new(FnTool::new(
        spec,
        move |args: support::tools::EchoArgs, ctx| {
            runs.fetch_add(1, Ordering::SeqCst);
            async move {
                let wait = fastrand::u64(0..=3);
                if wait > 0 {
                    tokio::time::sleep(Duration::from_millis(wait)).await;
                }
                Ok::<Value, ToolError>(json!({"n": args.n, "call": ctx.tool_call_id()}))
            }
        },
    ))
}

fn fresh_tools(runs: &Arc<AtomicUsize>) -> Vec<Arc<dyn Tool>> {
    TOOLS.iter().map(|name| echo(name, runs.clone())).collect()
}

/// What the server hands out and finds wrong.
#[derive(Default)]
struct Ledger {
    /// Call ids handed out so far (ids are `call_<n>`).
    calls: AtomicUsize,
    /// Requests whose transcript did not pair every call with one result.
    bad_requests: AtomicUsize,
}

/// The fake model: a first turn of 2-4 calls, then an answer; after 1-20 ms.
fn model(ledger: Arc<Ledger>) -> impl Fn(&Value, usize) -> Reply + Send + Sync + 'static {
    move |body, _| {
        let messages = body["messages"].as_array().cloned().unwrap_or_default();
        if !pairs_up(&messages) {
            ledger.bad_requests.fetch_add(1, Ordering::SeqCst);
        }
        let answered = messages.iter().any(|m| m["role"] == "assistant");
        let streamed = body["stream"] == true;
        let reply = if answered {
            if streamed {
                Reply::sse(&wire::streamed_text("done"))
            } else {
                Reply::Json(wire::text("done"))
            }
        } else {
            let count = fastrand::usize(2..=4);
            let calls: Vec<(String, &str, String)> = (0..count)
                .map(|i| {
                    let id = format!("call_{}", ledger.calls.fetch_add(1, Ordering::SeqCst));
                    (id, TOOLS[i % TOOLS.len()], format!(r#"{{"n":{i}}}"#))
                })
                .collect();
            let calls: Vec<wire::Call<'_>> = calls
                .iter()
                .map(|(id, name, args)| (id.as_str(), *name, args.as_str()))
                .collect();
            if streamed {
                Reply::sse(&wire::streamed_calls(&calls))
            } else {
                Reply::Json(wire::calls(&calls))
            }
        };
        reply.after(Duration::from_millis(fastrand::u64(1..=20)))
    }
}

/// Whether every call of the request's assistant messages has exactly one tool
/// message with its id right after it.
fn pairs_up(messages: &[Value]) -> bool {
    let mut open: HashMap<&str, usize> = HashMap::new();
    let mut ok = true;
    for message in messages {
        match message["role"].as_str() {
            Some("assistant") => {
                ok &= open.drain().all(|(_, n)| n == 1);
                for call in message["tool_calls"].as_array().into_iter().flatten() {
                    open.insert(call["id"].as_str().unwrap_or_default(), 0);
                }
            }
            Some("tool") => {
                match open.get_mut(message["tool_call_id"].as_str().unwrap_or_default()) {
                    Some(n) => *n += 1,
                    None => ok = false,
                }
            }
            _ => {}
        }
    }
    ok && open.into_values().all(|n| n == 1)
}

/// Check one outcome; its call ids.
fn check(outcome: &AgentOutcome) -> Vec<String> {
    assert_eq!(
        outcome.status,
        RunStatus::Completed,
        "{:?}\n{}",
        outcome.error,
        outcome.trace()
    );
    assert_eq!(outcome.answer.as_deref(), Some("done"));
    support::transcript::check_call_ids(&outcome.messages)
        .unwrap_or_else(|problems| panic!("{problems}\n{}", outcome.trace()));
    let mut ids = Vec::new();
    for message in &outcome.messages {
        if let Message::Tool(tool) = message {
            let content: Value = serde_json::from_str(&tool.content)
                .unwrap_or_else(|_| panic!("not a result: {}", tool.content));
            // The result is the one its own call produced.
            assert_eq!(
                content["call"],
                tool.tool_call_id.as_str(),
                "{}",
                tool.content
            );
            ids.push(tool.tool_call_id.clone());
        }
    }
    assert!((2..=4).contains(&ids.len()), "{} calls", ids.len());
    ids
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_concurrent_runs_through_hot_reloads() {
    let metrics = Handle::current().metrics();
    let baseline_tasks = metrics.num_alive_tasks();
    let reset = memory::reset_peak();
    let rss_before = memory::rss();

    let ledger = Arc::new(Ledger::default());
    let server = FaultServer::start(false, model(ledger.clone()));
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = Registry::new();
    registry.swap_source("load", fresh_tools(&runs)).unwrap();
    let backend = OpenAiBackend::builder()
        .base_url(&server.base_url)
        .model("m")
        .retry(RetryPolicy::none())
        .build()
        .unwrap();
    let whole = Agent::builder()
        .backend(backend.clone())
        .registry(registry.clone())
        .build()
        .unwrap();
    let streamed = Agent::builder()
        .backend(Streamed(backend))
        .registry(registry.clone())
        .build()
        .unwrap();

    let stop = CancellationToken::new();
    let reloader = {
        let (registry, runs, stop) = (registry.clone(), runs.clone(), stop.clone());
        tokio::spawn(async move {
            let mut reloads = 0usize;
            let mut every = tokio::time::interval(RELOAD_EVERY);
            every.tick().await;
            loop {
                tokio::select! {
                    () = stop.cancelled() => return reloads,
                    _ = every.tick() => {
                        let swap = registry.swap_source("load", fresh_tools(&runs)).unwrap();
                        assert_eq!(swap.replaced.len(), TOOLS.len());
                        reloads += 1;
                    }
                }
            }
        })
    };

    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..RUNS {
        let agent = if i % 2 == 0 {
            whole.clone()
        } else {
            streamed.clone()
        };
        tasks.spawn(async move { agent.run(format!("run {i}")).await });
    }
    let mut seen = HashSet::new();
    let mut completed = 0;
    support::within(Duration::from_secs(120), async {
        while let Some(joined) = tasks.join_next().await {
            for id in check(&joined.unwrap()) {
                assert!(seen.insert(id.clone()), "call id {id} in two runs");
            }
            completed += 1;
        }
    })
    .await;
    let wall = started.elapsed();
    stop.cancel();
    let reloads = reloader.await.unwrap();

    let handed_out = ledger.calls.load(Ordering::SeqCst);
    assert_eq!(completed, RUNS);
    assert_eq!(
        seen.len(),
        handed_out,
        "every call handed out came back, once"
    );
    assert_eq!(
        runs.load(Ordering::SeqCst),
        handed_out,
        "every call ran once"
    );
    assert_eq!(ledger.bad_requests.load(Ordering::SeqCst), 0);
    assert_eq!(server.count(), 2 * RUNS);
    assert!(reloads >= 1, "the registry was reloaded during the runs");

    // Everything the runs started has ended once the agents (and their HTTP
    // connections) are gone; the server's tasks live on its own runtime.
    let alive_after_runs = metrics.num_alive_tasks();
    drop((whole, streamed, registry));
    let tasks_left = support::within(Duration::from_secs(10), async {
        loop {
            let alive = metrics.num_alive_tasks();
            if alive <= baseline_tasks {
                return alive;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    })
    .await;

    let peak = memory::peak_rss();
    let growth = peak.saturating_sub(rss_before);
    eprintln!(
        "load: {RUNS} runs ({handed_out} tool calls, {reloads} reloads) in {:.2} s = {:.0} runs/s; \
         peak RSS {:.0} MiB ({:.0} MiB over the start; peak reset: {reset}); tasks alive: {alive_after_runs} after the runs (pooled connections), \
         {tasks_left} once the agents were dropped (baseline {baseline_tasks})",
        wall.as_secs_f64(),
        RUNS as f64 / wall.as_secs_f64(),
        memory::mib(peak),
        memory::mib(growth),
    );
    assert!(
        growth < MEMORY_BOUND,
        "peak RSS grew by {:.0} MiB",
        memory::mib(growth)
    );
}
