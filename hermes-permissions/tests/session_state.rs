//! The engine's per-session state: idempotent `write` results and grants, bounded, and
//! forgotten with the session.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hermes_core::{
    Dispatcher, FnTool, Policy, Registry, RunContext, Scope, ToolCall, ToolError, ToolSpec,
};
use hermes_permissions::{PermissionEngine, Profile};
use serde_json::{Value, json};

fn setup(capacity: usize) -> (PermissionEngine, Dispatcher, Arc<AtomicUsize>) {
    let engine =
        PermissionEngine::builder(Profile::builder("p").allow("file:write").build().unwrap())
            .session_capacity(capacity)
            .build();
    let runs = Arc::new(AtomicUsize::new(0));
    let counter = runs.clone();
    let spec = ToolSpec::builder("append", "Append a line.")
        .parameters(json!({"type": "object", "properties": {"line": {"type": "string"}}}))
        .scope(Scope::Write)
        .permission("file:write")
        .build()
        .unwrap();
    let tool = FnTool::new(spec, move |args: Value, _ctx| {
        let run = counter.fetch_add(1, Ordering::SeqCst) + 1;
        async move { Ok::<_, ToolError>(json!({"run": run, "line": args["line"]})) }
    });
    let registry = Registry::new();
    registry.register(tool).unwrap();
    let dispatcher = Dispatcher::builder(registry)
        .policy(engine.clone())
        .idempotency_store(engine.clone())
        .build()
        .unwrap();
    (engine, dispatcher, runs)
}

fn append(line: &str) -> ToolCall {
    ToolCall::with_args("c", "append", &json!({"line": line}))
}

#[tokio::test]
async fn write_results_live_in_the_session_and_go_with_it() {
    let (engine, dispatcher, runs) = setup(16);
    let run = RunContext::new().with_session("s1");
    let first = dispatcher.dispatch(&append("a"), &run).await;
    let repeat = dispatcher.dispatch(&append("a"), &run).await;
    assert!(repeat.replayed);
    assert_eq!(first.message.content, repeat.message.content);
    assert_eq!(runs.load(Ordering::SeqCst), 1);
    engine.end_session("s1");
    let after = dispatcher.dispatch(&append("a"), &run).await;
    assert!(!after.replayed);
    assert_eq!(runs.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn the_session_keeps_a_bounded_number_of_results() {
    let (_engine, dispatcher, runs) = setup(2);
    let run = RunContext::new().with_session("s1");
    for line in ["a", "b", "c"] {
        dispatcher.dispatch(&append(line), &run).await;
    }
    // "a" was the oldest of three with room for two: it runs again.
    let again = dispatcher.dispatch(&append("a"), &run).await;
    assert!(!again.replayed);
    let kept = dispatcher.dispatch(&append("c"), &run).await;
    assert!(kept.replayed);
    assert_eq!(runs.load(Ordering::SeqCst), 4);
}

#[test]
fn grants_are_bounded_too() {
    let (engine, _, _) = setup(2);
    for class in ["one", "two", "three"] {
        engine.grant("s", class);
    }
    assert!(!engine.is_granted("s", "one"));
    assert!(engine.is_granted("s", "two") && engine.is_granted("s", "three"));
}
