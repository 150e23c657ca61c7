//! `write` calls run once per key; a repeat returns the first result.

use std::sync::Arc;
use std::sync::atomic::Ordering;

use hermes_core::{Dispatcher, RunContext, Scope, ToolCall};

use crate::common::{Counting, error_of, registry_with};

fn setup(scope: Scope) -> (Dispatcher, Arc<std::sync::atomic::AtomicUsize>) {
    let tool = Counting::new("save", scope);
    let runs = tool.runs.clone();
    (Dispatcher::new(registry_with([Arc::new(tool) as _])), runs)
}

#[tokio::test]
async fn repeated_write_returns_the_first_result_without_running() {
    let (dispatcher, runs) = setup(Scope::Write);
    let run = RunContext::new();
    let first = dispatcher
        .dispatch(&ToolCall::new("c1", "save", r#"{"path":"a"}"#), &run)
        .await;
    // Same arguments, other member order, other call id.
    let again = dispatcher
        .dispatch(&ToolCall::new("c2", "save", r#"{ "path" : "a" }"#), &run)
        .await;
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(first.message.content, r#"{"run":1}"#);
    assert_eq!(again.message.content, r#"{"run":1}"#);
    assert_eq!(again.message.tool_call_id, "c2");
    assert!(!first.replayed && again.replayed);

    let other = dispatcher
        .dispatch(&ToolCall::new("c3", "save", r#"{"path":"b"}"#), &run)
        .await;
    assert_eq!(other.message.content, r#"{"run":2}"#);
}

#[tokio::test]
async fn keys_are_per_session() {
    let (dispatcher, runs) = setup(Scope::Write);
    let call = ToolCall::new("c1", "save", r#"{"path":"a"}"#);
    dispatcher
        .dispatch(&call, &RunContext::new().with_session("one"))
        .await;
    dispatcher
        .dispatch(&call, &RunContext::new().with_session("two"))
        .await;
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn explicit_key_overrides_the_arguments() {
    let (dispatcher, runs) = setup(Scope::Write);
    let run = RunContext::new();
    let a = ToolCall::new("c1", "save", r#"{"path":"a","idempotency_key":"k"}"#);
    let b = ToolCall::new("c2", "save", r#"{"path":"b","idempotency_key":"k"}"#);
    dispatcher.dispatch(&a, &run).await;
    let repeat = dispatcher.dispatch(&b, &run).await;
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert!(repeat.replayed);
}

#[tokio::test]
async fn failed_write_runs_again_when_repeated() {
    let (dispatcher, runs) = setup(Scope::Write);
    let run = RunContext::new();
    let call = ToolCall::new("c1", "save", r#"{"path":"fail"}"#);
    let first = dispatcher.dispatch(&call, &run).await;
    assert_eq!(error_of(&first.message.content)["kind"], "failed");
    dispatcher.dispatch(&call, &run).await;
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn read_calls_always_run() {
    let (dispatcher, runs) = setup(Scope::Read);
    let call = ToolCall::new("c1", "save", r#"{"path":"a"}"#);
    let run = RunContext::new();
    dispatcher.dispatch(&call, &run).await;
    dispatcher.dispatch(&call, &run).await;
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn identical_writes_in_one_message_run_once() {
    let (dispatcher, runs) = setup(Scope::Write);
    let calls = [
        ToolCall::new("c1", "save", r#"{"path":"a"}"#),
        ToolCall::new("c2", "save", r#"{"path":"a"}"#),
    ];
    let reports = dispatcher.dispatch_all(&calls, &RunContext::new()).await;
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    assert_eq!(reports[0].message.content, reports[1].message.content);
    assert_eq!(reports[1].message.tool_call_id, "c2");
}

/// A store that records what it is asked.
#[derive(Debug, Default)]
struct Recording {
    puts: std::sync::Mutex<Vec<(String, String)>>,
}

impl hermes_core::IdempotencyStore for Recording {
    fn get(&self, session_id: &str, key: &str) -> Option<String> {
        self.puts
            .lock()
            .unwrap()
            .iter()
            .find(|(k, _)| k == &format!("{session_id}/{key}"))
            .map(|(_, v)| v.clone())
    }

    fn put(&self, session_id: &str, key: String, content: String) {
        self.puts
            .lock()
            .unwrap()
            .push((format!("{session_id}/{key}"), content));
    }
}

#[tokio::test]
async fn a_custom_store_keeps_the_results() {
    let tool = Counting::new("save", Scope::Write);
    let runs = tool.runs.clone();
    let store = Arc::new(Recording::default());
    let dispatcher = Dispatcher::builder(registry_with([Arc::new(tool) as _]))
        .idempotency_store_arc(store.clone())
        .build()
        .unwrap();
    let run = RunContext::new().with_session("s1");
    let call = ToolCall::new("c1", "save", r#"{"path":"a"}"#);
    dispatcher.dispatch(&call, &run).await;
    let again = dispatcher.dispatch(&call, &run).await;
    assert!(again.replayed);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    let puts = store.puts.lock().unwrap();
    assert_eq!(puts.len(), 1);
    assert!(puts[0].0.starts_with("s1/save"), "{puts:?}");
}

#[tokio::test]
async fn a_tool_that_does_not_replay_runs_each_time_unless_given_a_key() {
    let mut tool = Counting::new("run_command", Scope::Write);
    tool.spec = hermes_core::ToolSpec::builder("run_command", "Runs each time it is called.")
        .parameters(tool.spec.parameters().clone())
        .scope(Scope::Write)
        .replays(false)
        .build()
        .unwrap();
    let runs = tool.runs.clone();
    let dispatcher = Dispatcher::new(registry_with([Arc::new(tool) as _]));
    let run = RunContext::new();
    let call = |id: &str, args: &str| ToolCall::new(id, "run_command", args);
    for id in ["c1", "c2"] {
        let report = dispatcher
            .dispatch(&call(id, r#"{"path":"a"}"#), &run)
            .await;
        assert!(!report.replayed);
    }
    assert_eq!(
        runs.load(Ordering::SeqCst),
        2,
        "the same command twice is two runs"
    );
    let keyed = r#"{"path":"a","idempotency_key":"retry-1"}"#;
    dispatcher.dispatch(&call("c3", keyed), &run).await;
    let again = dispatcher.dispatch(&call("c4", keyed), &run).await;
    assert!(again.replayed, "an explicit key still makes a retry safe");
    assert_eq!(runs.load(Ordering::SeqCst), 3);
}
