//! Tools that fail badly, through the agent: a panic, a hang past the timeout, a tool
//! that ignores cancellation, 100 MB of output, bytes that are not UTF-8, a lifecycle
//! tool whose setup fails. Each call gets a structured error (or its output, bounded),
//! the other calls of the same message succeed, and the run goes on to its answer.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    missing_docs,
    unreachable_pub
)]

mod support;
#[path = "tool_faults/tools.rs"]
mod tools;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hermes_core::{
    Agent, AgentOutcome, Availability, Message, Registry, ResultBudget, RunStatus, ScriptedBackend,
    ScriptedTurn, Tool, ToolCall,
};
use serde_json::{Value, json};
use support::memory;
use support::tools::echo;
use support::transcript::check_call_ids;
use tools::{Breaks, Counts, Fault, Faulty, Lifecycle};

const HANG: Duration = Duration::from_secs(20);

/// One message calling each of `faulty` once (call id = tool name) between two `echo`
/// calls, then a final answer; the outcome and how often `echo` ran.
async fn run_among_echoes(faulty: Vec<Arc<dyn Tool>>) -> (AgentOutcome, usize) {
    run_with(faulty, |builder| builder).await
}

async fn run_with(
    faulty: Vec<Arc<dyn Tool>>,
    configure: impl FnOnce(hermes_core::AgentBuilder) -> hermes_core::AgentBuilder,
) -> (AgentOutcome, usize) {
    let _shared = memory::PEAK.read().await;
    run_alone(faulty, configure).await
}

async fn run_alone(
    faulty: Vec<Arc<dyn Tool>>,
    configure: impl FnOnce(hermes_core::AgentBuilder) -> hermes_core::AgentBuilder,
) -> (AgentOutcome, usize) {
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = Registry::new();
    registry.register_arc(echo("echo", runs.clone())).unwrap();
    let mut calls = vec![ToolCall::new("echo_1", "echo", r#"{"n":1}"#)];
    for tool in faulty {
        let name = tool.spec().name().to_owned();
        registry.register_arc(tool).unwrap();
        calls.push(ToolCall::new(name.clone(), name, "{}"));
    }
    calls.push(ToolCall::new("echo_2", "echo", r#"{"n":2}"#));
    let backend =
        ScriptedBackend::new([ScriptedTurn::tool_calls(calls), ScriptedTurn::text("done")]);
    let agent = configure(Agent::builder().backend(backend).registry(registry))
        .build()
        .unwrap();
    let outcome = support::within(HANG, agent.run("go")).await;
    (outcome, runs.load(Ordering::SeqCst))
}

/// The tool messages by call id.
fn results(outcome: &AgentOutcome) -> HashMap<String, String> {
    outcome
        .messages
        .iter()
        .filter_map(|message| match message {
            Message::Tool(tool) => Some((tool.tool_call_id.clone(), tool.content.clone())),
            _ => None,
        })
        .collect()
}

/// The run completed, both echoes answered, the transcript pairs up; the results.
fn assert_went_on(outcome: &AgentOutcome, echo_runs: usize) -> HashMap<String, String> {
    assert_eq!(outcome.status, RunStatus::Completed, "{}", outcome.trace());
    assert_eq!(outcome.answer.as_deref(), Some("done"));
    check_call_ids(&outcome.messages).unwrap();
    assert_eq!(echo_runs, 2);
    let results = results(outcome);
    for (id, n) in [("echo_1", 1), ("echo_2", 2)] {
        let content: Value = serde_json::from_str(&results[id]).unwrap();
        assert_eq!(content, json!({"n": n, "call": id}));
    }
    results
}

/// The `error` object of a tool message.
fn error_of(content: &str) -> Value {
    let value: Value =
        serde_json::from_str(content).unwrap_or_else(|_| panic!("not JSON: {content}"));
    value
        .get("error")
        .cloned()
        .unwrap_or_else(|| panic!("not an error: {content}"))
}

fn assert_error(results: &HashMap<String, String>, id: &str, kind: &str, says: &str) {
    let error = error_of(&results[id]);
    assert_eq!(error["kind"], kind, "{id}: {error}");
    let message = error["message"].as_str().unwrap();
    assert!(message.contains(says), "{id}: `{says}` not in: {message}");
}

#[tokio::test]
async fn a_panicking_tool_gets_a_panicked_error() {
    let (outcome, echo_runs) = run_among_echoes(vec![
        Faulty::tool("panic_at_once", Fault::PanicAtOnce),
        Faulty::tool("panic_later", Fault::PanicLater),
    ])
    .await;
    let results = assert_went_on(&outcome, echo_runs);
    assert_error(&results, "panic_at_once", "panicked", "fell over at once");
    assert_error(&results, "panic_later", "panicked", "fell over later");
}

#[tokio::test]
async fn a_tool_that_hangs_times_out() {
    let (outcome, echo_runs) = run_among_echoes(vec![Faulty::tool("hang", Fault::Hang)]).await;
    let results = assert_went_on(&outcome, echo_runs);
    assert_error(&results, "hang", "timeout", "timed out");
}

/// Lets deaf loops end when dropped, failed assertion or not: the runtime waits for its
/// blocking threads when the test ends.
#[derive(Default)]
struct Release(Arc<AtomicBool>);

impl Drop for Release {
    fn drop(&mut self) {
        self.0.store(true, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn tools_that_ignore_cancellation_time_out_and_the_run_goes_on() {
    let release = Release::default();
    let token = Arc::new(Mutex::new(None));
    let (outcome, echo_runs) = run_among_echoes(vec![
        Faulty::tool("never_polls", Fault::NeverPolls),
        Faulty::tool(
            "blocks_thread",
            Fault::BlocksThread(tools::TOOL_TIMEOUT * 3),
        ),
        Faulty::tool(
            "deaf_loop",
            Fault::DeafLoop {
                release: release.0.clone(),
                token: token.clone(),
            },
        ),
    ])
    .await;
    let results = assert_went_on(&outcome, echo_runs);
    for id in ["never_polls", "blocks_thread", "deaf_loop"] {
        assert_error(&results, id, "timeout", "timed out");
    }
    // The deaf loop was told to stop; it did not look (its thread goes when `release`
    // drops).
    let token = token.lock().unwrap().clone().unwrap();
    assert!(token.is_cancelled());
}

#[tokio::test]
async fn a_tool_that_ignores_cancellation_cannot_hold_up_the_runs_timeout() {
    let release = Release::default();
    let token = Arc::new(Mutex::new(None));
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = Registry::new();
    registry.register_arc(echo("echo", runs.clone())).unwrap();
    // A tool timeout far longer than the run's: only the run's timeout can end it.
    let deaf = Fault::DeafLoop {
        release: release.0.clone(),
        token: token.clone(),
    };
    registry
        .register_arc(Faulty::with_timeout(
            "deaf_loop",
            deaf,
            Duration::from_secs(3600),
        ))
        .unwrap();
    let backend = ScriptedBackend::new([
        ScriptedTurn::tool_calls([
            ToolCall::new("echo_1", "echo", r#"{"n":1}"#),
            ToolCall::new("deaf", "deaf_loop", "{}"),
        ]),
        ScriptedTurn::text("never asked"),
    ]);
    let agent = Agent::builder()
        .backend(backend)
        .registry(registry)
        .timeout(Duration::from_secs(1))
        .build()
        .unwrap();
    let outcome = support::within(HANG, agent.run("go")).await;
    assert_eq!(outcome.status, RunStatus::Timeout, "{}", outcome.trace());
    check_call_ids(&outcome.messages).unwrap();
    let results = results(&outcome);
    // The call that finished keeps its result; the deaf one is answered as cancelled
    // and was told to stop, though it does not listen.
    assert_eq!(
        serde_json::from_str::<Value>(&results["echo_1"]).unwrap(),
        json!({"n": 1, "call": "echo_1"})
    );
    assert_error(&results, "deaf", "cancelled", "the run was stopped");
    assert!(token.lock().unwrap().as_ref().unwrap().is_cancelled());
    assert_eq!(runs.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_100_mb_result_is_spilled_and_memory_stays_bounded() {
    const SIZE: usize = 100 * 1024 * 1024;
    let scratch = tempfile::tempdir().unwrap();
    let budget = ResultBudget::default().with_scratch_dir(scratch.path());
    let _alone = memory::PEAK.write().await;
    let reset = memory::reset_peak();
    let before = memory::rss();
    let (outcome, echo_runs) =
        run_alone(vec![Faulty::tool("huge", Fault::Huge(SIZE))], |builder| {
            builder.result_budget(budget)
        })
        .await;
    let peak = memory::peak_rss();
    let growth = peak.saturating_sub(before);
    eprintln!(
        "100 MB result: peak RSS {:.0} MiB, {:.0} MiB over the {:.0} MiB before (peak reset: {reset})",
        memory::mib(peak),
        memory::mib(growth),
        memory::mib(before)
    );
    let results = assert_went_on(&outcome, echo_runs);
    let content = &results["huge"];
    // The model gets a preview and where the rest is, not 100 MB.
    assert!(content.len() < 64 * 1024, "{} bytes", content.len());
    assert!(
        content.contains(&format!("this result is {SIZE} bytes")),
        "{}",
        &content[..300]
    );
    let spilled: Vec<_> = walk(scratch.path());
    assert_eq!(spilled.len(), 1, "{spilled:?}");
    assert_eq!(std::fs::metadata(&spilled[0]).unwrap().len(), SIZE as u64);
    // The tool's string and nothing more: a copy made to write it out would cross
    // this line.
    assert!(
        growth < 3 * SIZE as u64 / 2,
        "peak grew by {:.0} MiB for a 100 MiB result",
        memory::mib(growth)
    );
}

fn walk(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[tokio::test]
async fn bytes_that_are_not_utf8_arrive_replaced_not_dropped() {
    let bytes = b"head \xff\xfe middle \xc3\x28 tail".to_vec();
    let (outcome, echo_runs) =
        run_among_echoes(vec![Faulty::tool("bytes", Fault::Bytes(bytes))]).await;
    let results = assert_went_on(&outcome, echo_runs);
    assert_eq!(
        results["bytes"],
        "head \u{FFFD}\u{FFFD} middle \u{FFFD}( tail"
    );
    // The transcript still serializes for the next request.
    let wire = serde_json::to_string(&outcome.messages).unwrap();
    let back: Vec<Message> = serde_json::from_str(&wire).unwrap();
    assert_eq!(back, outcome.messages);
}

/// A message calling the lifecycle tool `database` twice between two echoes, then a
/// round calling it once more, then the answer. The outcome, the tool's counts, and
/// the registry (still holding the tool).
async fn run_lifecycle(breaks: Breaks) -> (AgentOutcome, Arc<Counts>, Registry) {
    let counts = Arc::new(Counts::default());
    let runs = Arc::new(AtomicUsize::new(0));
    let registry = Registry::new();
    registry.register_arc(echo("echo", runs.clone())).unwrap();
    registry
        .register_arc(Lifecycle::tool("database", breaks, counts.clone()))
        .unwrap();
    let backend = ScriptedBackend::new([
        ScriptedTurn::tool_calls([
            ToolCall::new("echo_1", "echo", r#"{"n":1}"#),
            ToolCall::new("db_1", "database", r#"{"query":"a"}"#),
            ToolCall::new("db_2", "database", r#"{"query":"b"}"#),
            ToolCall::new("echo_2", "echo", r#"{"n":2}"#),
        ]),
        ScriptedTurn::tool_calls([ToolCall::new("db_3", "database", r#"{"query":"c"}"#)]),
        ScriptedTurn::text("done"),
    ]);
    let agent = Agent::builder()
        .backend(backend)
        .registry(registry.clone())
        .build()
        .unwrap();
    let outcome = support::within(HANG, agent.run("go")).await;
    assert_went_on(&outcome, runs.load(Ordering::SeqCst));
    (outcome, counts, registry)
}

#[tokio::test]
async fn a_tool_whose_setup_fails_is_unavailable_and_set_up_once() {
    let (outcome, counts, registry) = run_lifecycle(Breaks::SetupFails).await;
    let results = results(&outcome);
    for id in ["db_1", "db_2", "db_3"] {
        assert_error(&results, id, "unavailable", "refused the connection");
    }
    assert_eq!(counts.setups.load(Ordering::SeqCst), 1);
    assert_eq!(counts.runs.load(Ordering::SeqCst), 0);
    assert!(matches!(
        registry.availability("database"),
        Some(Availability::Unavailable { reason }) if reason.contains("refused")
    ));
    support::within(HANG, registry.shutdown()).await;
    // Nothing was acquired, so nothing is released.
    assert_eq!(counts.teardowns.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_tool_whose_setup_panics_is_unavailable() {
    let (outcome, counts, registry) = run_lifecycle(Breaks::SetupPanics).await;
    let results = results(&outcome);
    for id in ["db_1", "db_2", "db_3"] {
        assert_error(&results, id, "unavailable", "setup panicked");
    }
    assert_eq!(counts.setups.load(Ordering::SeqCst), 1);
    assert_eq!(counts.runs.load(Ordering::SeqCst), 0);
    support::within(HANG, registry.shutdown()).await;
    assert_eq!(counts.teardowns.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_teardown_that_panics_does_not_hold_up_the_shutdown() {
    let (outcome, counts, registry) = run_lifecycle(Breaks::TeardownPanics).await;
    let results = results(&outcome);
    for id in ["db_1", "db_2", "db_3"] {
        assert_eq!(results[id], "ran");
    }
    assert_eq!(counts.setups.load(Ordering::SeqCst), 1);
    assert_eq!(counts.runs.load(Ordering::SeqCst), 3);
    support::within(HANG, registry.shutdown()).await;
    assert_eq!(counts.teardowns.load(Ordering::SeqCst), 1);
    assert!(registry.is_empty());
}
