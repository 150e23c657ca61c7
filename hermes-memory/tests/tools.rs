//! The memory tools through the gateway: per-session namespaces, results, errors.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic, missing_docs)]

use std::sync::Arc;

use hermes_core::{Dispatcher, Registry, RunContext, ToolCall};
use hermes_memory::{SqliteMemory, memory_tools};
use serde_json::{Value, json};

async fn call(dispatcher: &Dispatcher, session: &str, tool: &str, args: Value) -> Value {
    let run = RunContext::new().with_session(session);
    let report = dispatcher
        .dispatch(&ToolCall::with_args("c1", tool, &args), &run)
        .await;
    serde_json::from_str(&report.message.content).unwrap()
}

#[tokio::test]
async fn save_recall_and_search_in_the_sessions_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteMemory::open(dir.path().join("m.db")).await.unwrap());
    let registry = Registry::new();
    for tool in memory_tools(store).unwrap() {
        registry.register_arc(tool).unwrap();
    }
    assert_eq!(
        registry.names(),
        ["memory_recall", "memory_save", "memory_search"]
    );
    let dispatcher = Dispatcher::new(registry);
    let saved = call(
        &dispatcher,
        "alice",
        "memory_save",
        json!({"key": "diet", "fact": "vegan; phone 13812345678"}),
    )
    .await;
    assert_eq!(saved["saved"], true, "{saved}");
    let recalled = call(
        &dispatcher,
        "alice",
        "memory_recall",
        json!({"key": "diet"}),
    )
    .await;
    assert_eq!(recalled["fact"], "vegan; phone [PHONE]");
    let found = call(
        &dispatcher,
        "alice",
        "memory_search",
        json!({"query": "vegan"}),
    )
    .await;
    assert_eq!(found["facts"][0]["key"], "diet");
    // Another session sees nothing of alice's.
    let other = call(&dispatcher, "bob", "memory_recall", json!({"key": "diet"})).await;
    assert_eq!(other, json!({"found": false, "key": "diet"}));
    let none = call(
        &dispatcher,
        "bob",
        "memory_search",
        json!({"query": "vegan"}),
    )
    .await;
    assert_eq!(none, json!({"facts": []}));
    // The schema is enforced by the gateway.
    let bad = call(&dispatcher, "alice", "memory_save", json!({"key": "k"})).await;
    assert_eq!(bad["error"]["kind"], "invalid_arguments", "{bad}");
}
